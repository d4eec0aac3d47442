"""bench/maude.py and bench/distributed.py run from any working directory, not only the repository's root."""
import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def _elsewhere(tmp_path, *argv):
  """``python argv...`` in an empty directory, with no PYTHONPATH to find the repository by."""
  env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
  return subprocess.run([sys.executable, *argv], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)


def test_the_memory_measure_runs_from_any_directory(tmp_path):
  # the child process memory_per_state starts, by the file's path: (i) at k = 6 has 2**6 states
  done = _elsewhere(tmp_path, str(REPO / "bench" / "maude.py"), "--memory", "uopc", "(i) k x (p+0)", "6")
  assert done.returncode == 0, done.stderr
  got = json.loads(done.stdout)
  assert got["states"] == 64 and got["complete"] is True


def test_memory_per_state_does_not_depend_on_the_working_directory(tmp_path, monkeypatch):
  from bench import maude
  monkeypatch.chdir(tmp_path)
  monkeypatch.delenv("PYTHONPATH", raising=False)
  shape = next(s for s in maude.SHAPES if s.name == "(i) k x (p+0)")
  elsewhere = maude.memory_run("uopc", shape, 6)
  monkeypatch.chdir(REPO)
  at_root = maude.memory_run("uopc", shape, 6)
  assert elsewhere is not None and at_root is not None
  assert (elsewhere["states"], elsewhere["complete"]) == (at_root["states"], at_root["complete"]) == (64, True)
  # resident growth of a fresh process each time: a page or two come and go (98,304 against 102,400 bytes, seen in CI)
  assert 0.5 < elsewhere["bytes"] / at_root["bytes"] < 2


def test_the_distributed_bench_imports_from_any_directory(tmp_path):
  # run by path without running the benchmark: its imports (bench.maude, bench.maude_gen) must resolve
  code = f"import runpy; g = runpy.run_path({str(REPO / 'bench' / 'distributed.py')!r}, run_name='bench_check'); print(g['add0_sum'](3, 0).op)"
  done = _elsewhere(tmp_path, "-c", code)
  assert (done.returncode, done.stdout) == (0, "Ops.ADD\n"), done.stderr
