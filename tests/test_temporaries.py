"""A temporary output file a command killed by SIGKILL left behind is removed by the next command that writes there
(``uopc.cli.files.temporary``); one a running command holds, or another program's, is kept."""
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from uopc.cli.files import STALE_SECONDS, sweep_stale, temporary

ROOT = Path(__file__).resolve().parent.parent
KILLED = ("import os, signal, sys; from uopc.cli.files import temporary; fd, name = temporary(sys.argv[1], sys.argv[2]); "
          "os.write(fd, b'half a report'); print(name, flush=True); os.kill(os.getpid(), signal.SIGKILL)")


def _left_by_a_killed_command(prefix: str, directory: Path) -> Path:
  """The temporary file of a command killed by SIGKILL as it wrote, untouched since longer than ``STALE_SECONDS``."""
  r = subprocess.run([sys.executable, "-c", KILLED, prefix, str(directory)], capture_output=True, text=True, cwd=ROOT, timeout=120)
  assert r.returncode == -signal.SIGKILL, r.stderr
  return _aged(Path(r.stdout.strip()))


def _aged(path: Path) -> Path:
  old = time.time() - 2 * STALE_SECONDS
  os.utime(path, (old, old))
  return path


def test_the_next_command_removes_what_a_killed_one_left_and_nothing_else(tmp_path):
  held_fd, held = temporary(".out.json.", str(tmp_path))   # a command writing now, for longer than STALE_SECONDS
  _aged(Path(held))
  stale = _left_by_a_killed_command(".out.json.", tmp_path)
  fresh = tmp_path / ".out.json.abcd1234.tmp"   # just made, not locked yet
  fresh.write_text("")
  others = [tmp_path / name for name in (".out.json.not-8-chars.tmp", ".other.json.abcd1234.tmp", "out.json.abcd1234.tmp")]
  for p in others: p.write_text("")   # another program's, another output's: never ours to remove
  for p in others: _aged(p)
  try:
    assert sweep_stale(".out.json.", str(tmp_path)) == [str(stale)]
    assert not stale.exists() and Path(held).exists() and fresh.exists() and all(p.exists() for p in others)
  finally: os.close(held_fd)
  assert sweep_stale(".out.json.", str(tmp_path)) == [held]   # its command ended without removing it: stale now


def test_a_big_report_to_a_file_removes_the_leftover_of_a_killed_one(tmp_path):
  """End to end: a report written item by item (past ``BIG_JSON``: its spool beside the file) to where a killed command
  left its spool."""
  stale = _left_by_a_killed_command(".out.json.", tmp_path)
  r = subprocess.run([sys.executable, "-m", "uopc", "explore", "reachable", ROOT / "examples" / "five_params.uir", "--max-states", "12000",
                      "--format", "json", "-o", tmp_path / "out.json"], capture_output=True, text=True, cwd=ROOT, timeout=300)
  assert r.returncode == 3, r.stderr   # (--max-states: incomplete)
  data = json.loads((tmp_path / "out.json").read_text())
  assert len(data["states"]) == 12000 and len(data["states"]) + len(data["edges"]) > 20_000   # big: the spool's path
  assert not stale.exists() and sorted(os.listdir(tmp_path)) == ["out.json"]
