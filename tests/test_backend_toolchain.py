"""The compiler driver's cache (uopc/backend/toolchain.py): it runs only binaries it can trust,
survives the cache being deleted, and leaves nothing behind, on SIGTERM neither."""
from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from uopc.backend import program_source, run_c, toolchain
from uopc.uop import UOp

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def cache(tmp_path, monkeypatch) -> Path:
  d = tmp_path / "cache"
  monkeypatch.setenv("UOPC_CACHE_DIR", str(d))
  monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
  (tmp_path / "tmp").mkdir()
  return d


def _plant(cache: Path, prog: UOp) -> Path:
  """A script at the program's cache key that prints a wrong answer (what an attacker would plant)."""
  source, _ = program_source(prog)
  target = cache / toolchain.source_key(source, toolchain.find_cc())
  target.write_text("#!/bin/sh\necho ok 666\n")
  return target


def test_a_planted_binary_that_is_not_ours_alone_never_runs(cache):
  prog = UOp.param(0) * 3
  assert run_c(prog, {0: 2}) == 6   # creates the cache, private
  assert cache.stat().st_mode & 0o777 == 0o700
  for mode in (0o777, 0o775, 0o757):   # writable by the group or others: anyone could have put it there
    target = _plant(cache, prog)
    target.chmod(mode)
    assert run_c(prog, {0: 2}) == 6
    assert target.read_bytes().startswith(b"\x7fELF") and target.stat().st_mode & 0o777 == 0o700   # rebuilt over it
  os.unlink(target)
  os.symlink("/bin/true", target)   # a symlink is not an entry of ours either
  assert run_c(prog, {0: 5}) == 15 and not target.is_symlink()


def test_a_cache_directory_others_can_write_is_not_used(cache):
  cache.mkdir(mode=0o777)
  cache.chmod(0o777)
  prog = UOp.param(0) + 7
  target = _plant(cache, prog)
  target.chmod(0o700)
  assert run_c(prog, {0: 1}) == 8
  assert target.read_text().startswith("#!/bin/sh")   # left alone: the directory is not ours to fill
  cache.chmod(0o700)
  assert run_c(prog, {0: 1}) == 666   # the same file in a private directory is trusted: only we could write it


def test_a_file_where_the_cache_should_be_is_only_slower(cache):
  cache.write_text("not a directory")
  assert run_c(UOp.param(0) + 2, {0: 1}) == 3
  assert cache.read_text() == "not a directory"


def test_deleting_the_cache_during_a_run_does_not_fail_it(cache, monkeypatch):
  prog = UOp.param(0) * 11
  real = toolchain.compile_to

  def compile_then_delete(*a, **k):   # the cache goes away mid-build
    real(*a, **k)
    shutil.rmtree(cache, ignore_errors=True)
  monkeypatch.setattr(toolchain, "compile_to", compile_then_delete)
  assert run_c(prog, {0: 2}) == 22
  monkeypatch.setattr(toolchain, "compile_to", real)
  assert run_c(prog, {0: 3}) == 33   # cached now
  real_built = toolchain.built

  def built_then_delete(*a, **k):   # found in the cache, deleted before it runs
    cm = real_built(*a, **k)
    exe = cm.__enter__()
    if exe.parent == cache: exe.unlink()
    return _Entered(cm, exe)
  monkeypatch.setattr("uopc.backend.driver.built", built_then_delete)
  assert run_c(prog, {0: 4}) == 44


class _Entered:
  def __init__(self, cm, value): self.cm, self.value = cm, value
  def __enter__(self): return self.value
  def __exit__(self, *exc): return self.cm.__exit__(*exc)


def test_stale_build_files_are_swept(cache, tmp_path):
  cache.mkdir(mode=0o700)
  tmp = Path(tempfile.gettempdir())
  old_file, new_file = cache / ".build-old", cache / ".build-new"
  old_dir, legacy, foreign = tmp / "uopc-build-old", tmp / "uopc-x1", tmp / "uopc-other"
  for d in (old_dir, legacy, foreign): d.mkdir()
  (legacy / "prog.c").write_text("x" * 1000)
  (foreign / "notes.txt").write_text("someone else's")
  for p in (old_file, new_file): p.write_text("half a binary")
  hour_ago = time.time() - toolchain.STALE_SECONDS - 1
  for p in (old_file, old_dir, legacy, foreign): os.utime(p, (hour_ago, hour_ago))
  removed = toolchain.sweep_stale(cache)
  assert sorted(p.name for p in removed) == [".build-old", "uopc-build-old", "uopc-x1"]
  assert new_file.exists() and foreign.exists() and not legacy.exists()


def test_the_next_build_sweeps(cache, monkeypatch):
  cache.mkdir(mode=0o700)
  stale = [cache / ".build-killed", Path(tempfile.gettempdir()) / "uopc-build-killed"]
  stale[0].write_text("half a binary")
  stale[1].mkdir()
  (stale[1] / "prog.c").write_text("int x;" * 1000)
  for p in stale: os.utime(p, (time.time() - toolchain.STALE_SECONDS - 1,) * 2)
  monkeypatch.setattr(toolchain, "_swept", set())
  assert run_c(UOp.param(0) * 5 + 3, {0: 1}) == 8
  assert not any(p.exists() for p in stale)


def test_sigterm_during_a_build_leaves_nothing_behind(tmp_path):
  prog = tmp_path / "big.uir"   # a program that takes the compiler a while
  lines = ["%0 = param : slot=0 dtype=i32"] + [f"%{i} = add %{i - 1}, %{max(0, i - 7)}" for i in range(1, 6000)]
  prog.write_text("\n".join(lines) + "\n")
  tmp, cache = tmp_path / "tmp", tmp_path / "cache"
  tmp.mkdir()
  env = {**os.environ, "TMPDIR": str(tmp), "UOPC_CACHE_DIR": str(cache), "PYTHONPATH": str(ROOT)}
  proc = subprocess.Popen([sys.executable, "-m", "uopc", "run", "--backend", "c", str(prog), "--param", "0=1"],
                          env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
  deadline = time.monotonic() + 60
  while not list(tmp.glob("uopc-build-*/prog.c")) and proc.poll() is None and time.monotonic() < deadline: time.sleep(0.01)
  assert proc.poll() is None, "the build ended before it could be interrupted"
  proc.send_signal(signal.SIGTERM)
  _, err = proc.communicate(timeout=60)
  assert (proc.returncode, err) == (128 + signal.SIGTERM, "uopc: terminated\n")
  assert list(tmp.iterdir()) == [] and [p.name for p in cache.iterdir()] == []
