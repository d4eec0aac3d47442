"""The system C compiler: finding it, compiling with IEEE-exact flags, caching binaries.

The compiler is ``$CC`` (may hold arguments, e.g. ``ccache gcc``), else ``cc``, else
``gcc``. ``FLAGS`` keep float semantics exact: no fast-math, no FMA contraction (an FMA
rounds once where the program rounds twice), and no builtin folding of the libm
functions exec_alu calls through Python (GCC would fold ``sin(constant)`` with MPFR,
which may differ from glibc in the last bit).

Binaries are cached by a hash of compiler, flags and source under ``cache_dir()``:
``$UOPC_CACHE_DIR``, else ``$XDG_CACHE_HOME/uopc``, else ``~/.cache/uopc``. Nothing
else is left behind: sources are written to a temporary directory that is removed.

>>> "-ffp-contract=off" in FLAGS
True
"""
from __future__ import annotations

import contextlib
import hashlib
import os
import shlex
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Iterator, Mapping

from uopc.backend.errors import CompileError

FLAGS: tuple[str, ...] = ("-std=c99", "-O1", "-fno-fast-math", "-ffp-contract=off",
                          "-fno-builtin-sin", "-fno-builtin-pow", "-fno-builtin-log2")
LIBS: tuple[str, ...] = ("-lm",)


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

  The source goes to a temporary directory that is always removed. Raises ``CompileError``
  with the compiler's first error line.
  """
  cc = cc or find_cc()
  with tempfile.TemporaryDirectory(prefix="uopc-") as tmp:
    src = Path(tmp) / "prog.c"
    src.write_text(source)
    try:
      proc = subprocess.run([*cc, *_flags(opt), "-o", str(out), str(src), *LIBS], capture_output=True, text=True)
    except OSError as e: raise CompileError(f"cannot run the C compiler {cc[0]!r}: {e.strerror or e}") from None
  if proc.returncode != 0:
    errors = [ln for ln in proc.stderr.splitlines() if "error" in ln] or proc.stderr.strip().splitlines() or ["(no message)"]
    raise CompileError(f"the C compiler failed (exit {proc.returncode}): {errors[0].replace(str(src), 'prog.c')}")


@contextlib.contextmanager
def built(source: str, cache: bool = True, opt: str | None = None) -> Iterator[Path]:
  """The path of an executable built from ``source``, for the duration of the ``with``.

  With ``cache``, the binary is looked up in / stored into ``cache_dir()`` (written under
  a temporary name and renamed, so concurrent builds are safe); if the cache directory
  cannot be used, or without ``cache``, it lives in a temporary directory that is
  removed afterwards.
  """
  cc = find_cc()
  if cache:
    d = cache_dir()
    target = d / source_key(source, cc, opt)
    if os.access(target, os.X_OK):
      yield target
      return
    with contextlib.suppress(OSError):
      d.mkdir(parents=True, exist_ok=True)
    if d.is_dir() and os.access(d, os.W_OK):   # UOPC_CACHE_DIR may name a file: then no cache
      fd, tmp_name = tempfile.mkstemp(prefix=".build-", dir=d)
      os.close(fd)
      try:
        compile_to(source, Path(tmp_name), cc, opt)
        os.replace(tmp_name, target)
      finally:
        with contextlib.suppress(FileNotFoundError): os.unlink(tmp_name)
      yield target
      return
  with tempfile.TemporaryDirectory(prefix="uopc-") as tmp:
    exe = Path(tmp) / "prog"
    compile_to(source, exe, cc, opt)
    yield exe
