"""dev/asan.sh, the AddressSanitizer run of the native core's tests: it fails when ASan reports, and passes clean tests."""
import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
READS_FREED_MEMORY = """
import ctypes

def test_reads_freed_memory():
  libc = ctypes.CDLL(None)
  libc.malloc.restype = ctypes.c_void_p
  libc.free.argtypes = [ctypes.c_void_p]
  p = libc.malloc(64)
  libc.free(p)
  assert len(ctypes.string_at(p, 64)) == 64   # passes without ASan: freed memory is still mapped
"""
CLEAN = f"""
import uopc.relational.native._space as space

def test_the_sanitized_core_is_loaded():
  assert space.__file__.endswith(".so") and "uopc/relational/native/" in space.__file__
  assert not space.__file__.startswith({str(ROOT)!r})   # the copy's build, not the installed one
"""


def asan(tmp_path: Path, probe: str) -> subprocess.CompletedProcess:
  (tmp_path / "test_probe.py").write_text(probe)
  env = os.environ | {"PYTHON": "/bin/false"}   # the Makefile's PYTHON (the one that makes the venv) is not the one it runs
  return subprocess.run(["bash", str(ROOT / "dev" / "asan.sh"), str(tmp_path / "test_probe.py")], capture_output=True, text=True, timeout=300,
                        env=env)


@pytest.mark.slow   # builds the sanitized copy (CI's test-cores runs dev/asan.sh itself); --slow checks the gate fails
def test_it_fails_when_asan_reports(tmp_path):
  out = asan(tmp_path, READS_FREED_MEMORY)
  assert out.returncode == 1
  assert "ERROR: AddressSanitizer: heap-use-after-free" in out.stderr
  assert out.stderr.rstrip().endswith("dev/asan.sh: AddressSanitizer reported the above")


def test_it_passes_clean_tests(tmp_path):
  out = asan(tmp_path, CLEAN)
  assert out.returncode == 0, out.stdout + out.stderr
  assert "1 passed" in out.stdout and "AddressSanitizer" not in out.stderr
