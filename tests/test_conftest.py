"""The suite's options (conftest.py): ``--slow`` and env ``UOPC_SLOW`` bring in the tests marked slow, the default run deselects them."""
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROBE = """
import pytest

def test_quick(): assert True

@pytest.mark.slow
def test_heavy(): assert True
"""


def run_probe(tmp_path: Path, *args: str, slow_env: bool = False) -> str:
  (tmp_path / "test_probe.py").write_text(PROBE)
  env = {k: v for k, v in os.environ.items() if k != "UOPC_SLOW"} | {"PYTHONPATH": str(ROOT)} | ({"UOPC_SLOW": "1"} if slow_env else {})
  out = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-c", os.devnull, "-p", "conftest", "-q", *args,
                        "test_probe.py"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
  assert out.returncode == 0, out.stdout + out.stderr
  return out.stdout.strip().splitlines()[-1]


def test_the_default_run_deselects_the_slow_tests(tmp_path):
  assert run_probe(tmp_path).startswith("1 passed, 1 deselected in ")


def test_slow_runs_them(tmp_path):
  assert run_probe(tmp_path, "--slow").startswith("2 passed in ")
  assert run_probe(tmp_path, slow_env=True).startswith("2 passed in ")
