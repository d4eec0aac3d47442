"""``uopc.cli_support``: the pieces every command shares."""
import subprocess
import sys

CHECK = """
import threading
from uopc.cli_support import progress_bar
bar = progress_bar(10, "state", "exploring")
bar.update(3)
print(sorted(t.name for t in threading.enumerate()))
bar.close()
"""


def test_a_progress_bar_starts_no_thread():
  """A second thread could take the budget's signals; tqdm starts its monitor even for a disabled bar."""
  r = subprocess.run([sys.executable, "-c", CHECK], capture_output=True, text=True, timeout=60)
  assert r.returncode == 0 and r.stdout.strip() == "['MainThread']", r.stderr
