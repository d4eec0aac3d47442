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


def _killed_build(name: str, age: float = toolchain.STALE_SECONDS + 1, marker: bool = True) -> Path:
  """A build directory a killed run left in uopc's own directory of builds, ``age`` seconds old."""
  root = Path(tempfile.gettempdir()) / f"{toolchain.BUILD_ROOT}{os.getuid()}"
  root.mkdir(mode=0o700, exist_ok=True)
  d = root / name
  d.mkdir()
  (d / "prog.c").write_text("int x;" * 1000)
  if marker: (d / toolchain.BUILD_MARKER).write_text("")
  os.utime(d, (time.time() - age,) * 2)
  return d


def _partial(cache: Path, tail: str, age: float = toolchain.STALE_SECONDS + 1) -> Path:
  """A half-copied binary a killed run left in the cache, named as ``_install`` names it, ``age`` seconds old."""
  p = cache / f"{toolchain.PARTIAL_PREFIX}{'ab' * 16}-{tail}"
  p.write_text("half a binary")
  os.utime(p, (time.time() - age,) * 2)
  return p


def test_stale_build_files_are_swept(cache):
  cache.mkdir(mode=0o700)
  old_file, new_file = _partial(cache, "old_0001"), _partial(cache, "new_0001", age=10)
  old, new, unmarked = _killed_build("build-old"), _killed_build("build-new", age=10), _killed_build("build-x", marker=False)
  removed = toolchain.sweep_stale(cache)
  assert sorted(p.name for p in removed) == [old_file.name, "build-old"]
  assert new_file.exists() and new.exists() and unmarked.exists() and not old.exists()


def test_the_sweeper_never_touches_a_directory_uopc_did_not_make(cache):
  # the user's case: directories of their own in $TMPDIR named uopc-*, a hand-written prog.c and notes.txt in them,
  # were deleted (the sweep took any uopc-build-*, and any uopc-* holding only prog.c and prog)
  tmp = Path(tempfile.gettempdir())
  mine = [tmp / "uopc-notes", tmp / "uopc-build-mine", tmp / "uopc-x1", tmp / "uopc-build-", tmp / f"{toolchain.BUILD_ROOT}{os.getuid()}x"]
  for d in mine:
    d.mkdir()
    (d / "prog.c").write_text("int main(void) { return 0; }  /* by hand */\n")
  (mine[0] / "notes.txt").write_text("unrelated")
  (mine[1] / "prog").write_text("a binary of mine")
  for d in mine: os.utime(d, (time.time() - 10 * toolchain.STALE_SECONDS,) * 2)
  assert toolchain.sweep_stale(None) == [] and run_c(UOp.param(0) * 5 + 3, {0: 1}) == 8
  assert all((d / "prog.c").read_text().endswith("/* by hand */\n") for d in mine) and (mine[0] / "notes.txt").exists()


def test_the_sweeper_never_touches_what_uopc_did_not_make_in_a_cache_directory_of_the_users(cache):
  # the user's case: UOPC_CACHE_DIR pointed at a directory of theirs holding .build-* files and directories (a build
  # tool's), an hour old or more: the sweep took every .build-* entry there, directories with all they held
  cache.mkdir(mode=0o700)
  prefix = toolchain.PARTIAL_PREFIX
  theirs = [cache / ".build-cache", cache / ".build-log", cache / f"{prefix}notes", cache / f"{prefix}{'ab' * 16}"]
  theirs[0].mkdir()
  (theirs[0] / "objects").write_text("a build tool's")
  for p in theirs[1:]: p.write_text("the user's")
  lookalike = cache / f"{toolchain.PARTIAL_PREFIX}{'ab' * 16}-dir00000"   # a directory under a copy's name: _install makes none
  lookalike.mkdir()
  (lookalike / "kept").write_text("the user's")
  for p in (*theirs, lookalike): os.utime(p, (time.time() - 10 * toolchain.STALE_SECONDS,) * 2)
  assert toolchain.sweep_stale(cache) == [] and run_c(UOp.param(0) * 5 + 3, {0: 1}) == 8
  assert (theirs[0] / "objects").read_text() == "a build tool's" and all(p.exists() for p in theirs[1:]) and (lookalike / "kept").exists()


def test_a_copy_into_the_cache_is_named_for_the_sweeper(cache, monkeypatch):
  cache.mkdir(mode=0o700)
  names = []
  real_replace = os.replace
  def replace(src, dst):   # the copy's name, seen as it is renamed into place
    names.append(Path(src).name)
    real_replace(src, dst)
  monkeypatch.setattr(os, "replace", replace)
  assert run_c(UOp.param(0) * 7 + 3, {0: 1}) == 10
  assert len(names) == 1 and toolchain.PARTIAL_NAME.fullmatch(names[0])


def test_the_next_build_sweeps(cache, monkeypatch):
  cache.mkdir(mode=0o700)
  stale = [_partial(cache, "killed00"), _killed_build("build-killed")]
  monkeypatch.setattr(toolchain, "_swept", set())
  assert run_c(UOp.param(0) * 5 + 3, {0: 1}) == 8
  assert not any(p.exists() for p in stale)
  assert list(Path(tempfile.gettempdir()).iterdir()) == []   # the directory of builds goes too, once empty


# A compiler that says it started (its pid and arguments, written whole) and then blocks until it is killed: a signal
# sent once it has started certainly lands mid-build, however fast the machine.
BLOCKING_CC = """#!/bin/sh
printf '%s\\n' "$$" "$@" > "$UOPC_TEST_STARTED.tmp" && mv "$UOPC_TEST_STARTED.tmp" "$UOPC_TEST_STARTED"
exec sleep 600
"""


def test_sigterm_during_a_build_leaves_nothing_behind(tmp_path):
  tmp, cache, started, cc = tmp_path / "tmp", tmp_path / "cache", tmp_path / "started", tmp_path / "cc"
  tmp.mkdir()
  cc.write_text(BLOCKING_CC)
  cc.chmod(0o755)
  env = {**os.environ, "TMPDIR": str(tmp), "UOPC_CACHE_DIR": str(cache), "PYTHONPATH": str(ROOT), "CC": str(cc),
         "UOPC_TEST_STARTED": str(started)}
  proc = subprocess.Popen([sys.executable, "-m", "uopc", "run", "--backend", "c", str(ROOT / "examples" / "affine.uir"), "--param", "0=1"],
                          env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
  deadline = time.monotonic() + 60
  while not started.exists() and proc.poll() is None and time.monotonic() < deadline: time.sleep(0.01)
  assert started.exists(), "the compiler never started"
  pid, *argv = started.read_text().splitlines()
  source = Path(argv[argv.index("-o") + 2])
  assert proc.poll() is None and source.name == "prog.c" and source.is_file()   # mid-build: the compiler runs on prog.c
  assert source.parent.parent == tmp / f"{toolchain.BUILD_ROOT}{os.getuid()}" and (source.parent / toolchain.BUILD_MARKER).is_file()
  proc.send_signal(signal.SIGTERM)
  _, err = proc.communicate(timeout=60)
  assert (proc.returncode, err) == (128 + signal.SIGTERM, "uopc: terminated\n")
  assert list(tmp.iterdir()) == [] and [p.name for p in cache.iterdir()] == []
  with pytest.raises(ProcessLookupError): os.kill(int(pid), 0)   # the compiler was stopped with it
