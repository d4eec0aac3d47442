"""The system C compiler: finding it, compiling with IEEE-exact flags, caching binaries.

The compiler is ``$CC`` (may hold arguments, e.g. ``ccache gcc``), else ``cc``, else
``gcc``. ``FLAGS`` turn trigraphs off
(``-std=gnu99``: GCC has no flag to turn them off in ``-std=c99``, and ``??/`` is a
backslash that can splice a line; ``-fexcess-precision=standard`` keeps what c99 mode
implies for floats) and keep float semantics exact: no fast-math, no FMA contraction (an FMA
rounds once where the program rounds twice), and no builtin folding of the libm
functions exec_alu calls through Python (GCC would fold ``sin(constant)`` with MPFR,
which may differ from glibc in the last bit).

Binaries are cached by a hash of compiler, flags and source under ``cache_dir()``:
``$UOPC_CACHE_DIR``, else ``$XDG_CACHE_HOME/uopc``, else ``~/.cache/uopc``. A cached
binary is run only if it and the directory are ``ours`` (owned by this user, writable by
no one else). Nothing else is left behind: sources are written to a temporary directory
that is removed (on SIGTERM too, see ``uopc.cli.backend_support``), and what a killed run left
is swept by the next build (``sweep_stale``): only what uopc made, build directories
holding its marker file inside its own directory of builds (``build_dir``).

>>> "-ffp-contract=off" in FLAGS
True
"""
from __future__ import annotations

import contextlib
import hashlib
import os
import re
import shlex
import shutil
import signal
import stat
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Iterator, Mapping

from uopc.backend.errors import CompileError
from uopc.children import adopt_child, release_child

FLAGS: tuple[str, ...] = ("-std=gnu99", "-fexcess-precision=standard", "-O1", "-fno-fast-math", "-ffp-contract=off",
                          "-fno-builtin-sin", "-fno-builtin-pow", "-fno-builtin-log2")
LIBS: tuple[str, ...] = ("-lm",)
BUILD_ROOT = "uopc-builds-"   # + the uid: this user's directory of build directories, in the temporary directory
BUILD_MARKER = ".uopc-build"   # written into each build directory: the sweeper removes only directories holding it
BUILD_PREFIX = "uopc-build-"   # a build directory outside BUILD_ROOT (when it is not ours to use): never swept
PARTIAL_PREFIX = ".uopc-partial-"   # + the cache key + "-": a binary being copied into the cache, under mkstemp's random tail
# the whole name of such a copy (the key is source_key's 32 hex digits, the tail mkstemp's 8 characters): in a cache directory
# the user chose ($UOPC_CACHE_DIR may be a directory of theirs), the sweeper removes nothing else
PARTIAL_NAME = re.compile(re.escape(PARTIAL_PREFIX) + r"[0-9a-f]{32}-[a-z0-9_]{8}")
STALE_SECONDS = 3600.0   # a build file older than this belongs to a killed run: builds take seconds, runs at most minutes


def find_cc(environ: Mapping[str, str] = os.environ) -> list[str]:
  """The compiler command: ``$CC`` split like a shell would, else ``cc``, else ``gcc``.

  >>> find_cc({"CC": "sh -c"})
  ['sh', '-c']
  """
  if (env := environ.get("CC", "").strip()):
    cmd = shlex.split(env)
    if shutil.which(cmd[0]) is None: raise CompileError(f"$CC is {env!r}, but {cmd[0]!r} is not an executable on PATH")
    return cmd
  for name in ("cc", "gcc"):
    if shutil.which(name) is not None: return [name]
  raise CompileError("no C compiler found: set $CC, or install cc or gcc")


def cache_dir(environ: Mapping[str, str] = os.environ) -> Path:
  """Where compiled programs are kept (not created here).

  >>> str(cache_dir({"XDG_CACHE_HOME": "/var/cache"})), str(cache_dir({"UOPC_CACHE_DIR": "/tmp/c", "XDG_CACHE_HOME": "/x"}))
  ('/var/cache/uopc', '/tmp/c')
  """
  if (d := environ.get("UOPC_CACHE_DIR")): return Path(d)
  if (d := environ.get("XDG_CACHE_HOME")): return Path(d) / "uopc"
  return Path.home() / ".cache" / "uopc"


def source_key(source: str, cc: list[str], opt: str | None = None) -> str:
  """The cache key of a program: what it is and how it is compiled.

  >>> source_key("int main(void) { return 0; }", ["cc"]) == source_key("int main(void) { return 0; }", ["gcc"])
  False
  """
  h = hashlib.sha256()
  for part in (*cc, *_flags(opt), *LIBS, source): h.update(part.encode() + b"\0")
  return h.hexdigest()[:32]


def _flags(opt: str | None) -> tuple[str, ...]:
  return FLAGS if opt is None else tuple(opt if f.startswith("-O") else f for f in FLAGS)


def compile_to(source: str, out: Path, cc: list[str] | None = None, opt: str | None = None) -> None:
  """Compile ``source`` into the executable ``out``; ``opt`` overrides ``-O1`` (e.g. ``-O0``).

  The source goes to a private temporary directory that is always removed. Raises
  ``CompileError`` with the compiler's first error line.
  """
  cc = cc or find_cc()
  with build_dir() as tmp:
    src = Path(tmp) / "prog.c"
    src.write_text(source)
    proc = _run_compiler([*cc, *_flags(opt), "-o", str(out), str(src), *LIBS], tmp)
  if proc.returncode != 0:
    errors = [ln for ln in proc.stderr.splitlines() if "error" in ln] or proc.stderr.strip().splitlines() or ["(no message)"]
    raise CompileError(f"the C compiler failed (exit {proc.returncode}): {errors[0].replace(str(src), 'prog.c')}")


def _run_compiler(cmd: list[str], tmp: Path) -> subprocess.CompletedProcess:
  """Run the compiler with its own temporary files in ``tmp`` (ours to remove), in a
  process group of its own, so an interrupt (Ctrl-C, SIGTERM) can stop all of it
  (driver, cc1, as) before ``tmp`` is removed."""
  try:
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         env={**os.environ, "TMPDIR": str(tmp)}, start_new_session=True)
  except OSError as e: raise CompileError(f"cannot run the C compiler {cmd[0]!r}: {e.strerror or e}") from None
  adopt_child(p.pid)
  try: out, err = p.communicate()
  except BaseException:
    with contextlib.suppress(OSError): os.killpg(p.pid, signal.SIGKILL)
    p.wait()
    raise
  finally: release_child(p.pid)
  return subprocess.CompletedProcess(cmd, p.returncode, out, err)


@contextlib.contextmanager
def built(source: str, cache: bool = True, opt: str | None = None) -> Iterator[Path]:
  """The path of an executable built from ``source``, for the duration of the ``with``.

  Every build happens in a private temporary directory, and the binary run is that
  build's, so deleting the cache meanwhile cannot fail the run. With ``cache``, a
  binary found in the cache is used only if it is ``ours`` (as is the directory);
  a new build is copied in under a temporary name and renamed into place (concurrent
  builds are safe), and leftovers of killed builds are swept (``sweep_stale``). A cache
  directory that cannot be used is skipped: the run is only slower.
  """
  cc = find_cc()
  d = _cache() if cache else None
  target = d / source_key(source, cc, opt) if d is not None else None
  if target is not None and ours(target) and os.access(target, os.X_OK):
    yield target
    return
  if d not in _swept:   # once a process and cache directory: a batch builds many times
    _swept.add(d)
    sweep_stale(d)
  with build_dir() as tmp:
    exe = tmp / "prog"
    compile_to(source, exe, cc, opt)
    if target is not None: _install(exe, target)
    yield exe


@contextlib.contextmanager
def build_dir() -> Iterator[Path]:
  """A private build directory, removed when the ``with`` ends: in ``$TMPDIR/uopc-builds-<uid>/`` (created private,
  used only if it is ours and no symlink), marked with ``BUILD_MARKER``, the only kind ``sweep_stale`` removes.
  The directory of builds goes too once empty; a build that finds it just removed makes it again."""
  root = Path(tempfile.gettempdir()) / f"{BUILD_ROOT}{os.getuid()}"
  for _ in range(5):
    with contextlib.suppress(OSError): root.mkdir(mode=0o700)
    try: st = os.lstat(root)
    except OSError: continue   # removed by another build ending right now
    if not (stat.S_ISDIR(st.st_mode) and st.st_uid == os.getuid() and not st.st_mode & 0o077): break   # not ours: see below
    try: tmp = Path(tempfile.mkdtemp(prefix="build-", dir=root))
    except FileNotFoundError: continue
    try:
      (tmp / BUILD_MARKER).write_text("a uopc build: removed when it ends, or by a later build an hour after a killed one\n")
      yield tmp
    finally:
      shutil.rmtree(tmp, ignore_errors=True)
      with contextlib.suppress(OSError): root.rmdir()   # only if empty: other builds' directories keep it
    return
  with tempfile.TemporaryDirectory(prefix=BUILD_PREFIX) as plain:   # no directory of builds of ours: unmarked, never swept
    yield Path(plain)


def ours(path: Path, directory: bool = False) -> bool:
  """Is ``path`` trusted: a regular file (``directory``: a directory) owned by this user
  and writable by no one else? A file someone else could have written is never run.

  >>> import tempfile; ours(Path(tempfile.gettempdir()), directory=True)   # /tmp is world-writable
  False
  """
  try: st = os.stat(path) if directory else os.lstat(path)   # an entry must not be a symlink
  except OSError: return False
  kind = stat.S_ISDIR if directory else stat.S_ISREG
  return kind(st.st_mode) and st.st_uid == os.getuid() and not st.st_mode & 0o022


def _cache() -> Path | None:
  """``cache_dir()``, created private if missing; None if it is not ours or not writable."""
  d = cache_dir()
  with contextlib.suppress(OSError): d.mkdir(mode=0o700, parents=True, exist_ok=True)
  return d if ours(d, directory=True) and os.access(d, os.W_OK | os.X_OK) else None


def _install(exe: Path, target: Path) -> None:
  """Copy ``exe`` to ``target`` atomically; a cache that vanished or filled up is skipped."""
  tmp = None
  try:
    fd, tmp = tempfile.mkstemp(prefix=f"{PARTIAL_PREFIX}{target.name}-", dir=target.parent)
    with os.fdopen(fd, "wb") as f, open(exe, "rb") as src: shutil.copyfileobj(src, f)
    os.chmod(tmp, 0o700)
    os.replace(tmp, target)
  except OSError:
    if tmp is not None:
      with contextlib.suppress(OSError): os.unlink(tmp)


_swept: set[Path | None] = set()


def sweep_stale(d: Path | None, now: float | None = None) -> list[Path]:
  """Remove what killed builds left (older than ``STALE_SECONDS``): in the cache ``d`` (if any), the partial copies
  ``_install`` names (``PARTIAL_NAME``: regular files of this user), and the build directories in
  ``$TMPDIR/uopc-builds-<uid>/`` that hold uopc's marker (``build_dir``); nothing else, whatever its name. Returns them.
  """
  cutoff = (time.time() if now is None else now) - STALE_SECONDS
  files = [p for p in _listdir(d) if PARTIAL_NAME.fullmatch(p.name)] if d is not None else []
  root = Path(tempfile.gettempdir()) / f"{BUILD_ROOT}{os.getuid()}"
  directories = []
  if ours(root, directory=True) and not root.is_symlink():
    directories = [p for p in _listdir(root) if os.path.isfile(p / BUILD_MARKER) and not p.is_symlink()]
  removed = []
  for p in files + directories:
    try:
      st = os.lstat(p)
      if st.st_mtime >= cutoff or st.st_uid != os.getuid(): continue
      if p in directories and stat.S_ISDIR(st.st_mode): shutil.rmtree(p)
      elif p in files and stat.S_ISREG(st.st_mode): os.unlink(p)
      else: continue   # a directory or link under a copy's name: not one _install made
      removed.append(p)
    except OSError: continue   # gone already, or not ours to remove
  return removed


def _listdir(d: Path) -> list[Path]:
  try: return list(d.iterdir())
  except OSError: return []

