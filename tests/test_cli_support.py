"""``uopc.cli.support``: the pieces every command shares."""
import re
import subprocess
import sys
from pathlib import Path

import pytest

from uopc.cli.main import main

CHECK = """
import threading
from uopc.cli.support import progress_bar
bar = progress_bar(10, "state", "exploring")
bar.update(3)
print(sorted(t.name for t in threading.enumerate()))
bar.close()
"""


def test_a_progress_bar_starts_no_thread():
  """A second thread could take the budget's signals; tqdm starts its monitor even for a disabled bar."""
  r = subprocess.run([sys.executable, "-c", CHECK], capture_output=True, text=True, timeout=60)
  assert r.returncode == 0 and r.stdout.strip() == "['MainThread']", r.stderr


EX = Path(__file__).resolve().parent.parent / "examples"
ORDER, AFFINE = str(EX / "order.uir"), str(EX / "affine.uir")
# every command with -o, in each format it prints (json and html write -o themselves: tests/test_html.py)
PRINTED_FORMATS = [(["simplify", AFFINE], "uir"), (["trace", AFFINE], "text"), (["trace", AFFINE, "--stats"], "text"),
                   (["explore", "reachable", ORDER], "text"), (["explore", "reachable", ORDER], "dot"),
                   (["explore", "normal-forms", ORDER], "text"), (["explore", "normal-forms", ORDER], "dot"),
                   (["explore", "order", ORDER], "text"), (["explore", "pairs", "fold", "--max-instances", "2"], "text"),
                   (["explore", "search", AFFINE, "--target", "add(?x, 11)"], "text"), (["explore", "best", ORDER], "text"),
                   (["saturate", ORDER], "text")]


def without_times(text: str) -> list[str]:
  """The lines, timings blanked, sorted (trace --stats orders its rules by time)."""
  return sorted(re.sub(r"[0-9]+\.[0-9]+", "T", text).splitlines())


@pytest.mark.parametrize("argv,fmt", PRINTED_FORMATS, ids=[" ".join(a[:2] if a[0] == "explore" else a[:1]) + f" {f}" + " --stats" * ("--stats" in a)
                                                          for a, f in PRINTED_FORMATS])
def test_o_writes_the_file_for_every_format(capsys, tmp_path, argv, fmt):
  # with text, dot and uir, -o was ignored: the output went to stdout, exit 0, no file and no warning
  code = main([*argv, "--format", fmt])
  printed = capsys.readouterr().out
  out = tmp_path / "out.txt"
  assert main([*argv, "--format", fmt, "-o", str(out)]) == code
  captured = capsys.readouterr()
  assert captured.out == "" and captured.err == "" and printed
  assert without_times(out.read_text()) == without_times(printed) and sorted(p.name for p in tmp_path.iterdir()) == ["out.txt"]


def test_o_to_a_directory_that_is_missing_is_one_line_exit_2(capsys, tmp_path):
  assert main(["simplify", AFFINE, "-o", str(tmp_path / "no" / "out.uir")]) == 2
  err = capsys.readouterr().err
  assert err.count("\n") == 1 and "cannot write" in err
