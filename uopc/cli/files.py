"""Writing an output file whole or not at all.

A command killed, interrupted or failing half-way through writing ``-o FILE`` must not
leave a truncated FILE that looks like a result: the text goes to a temporary file in
the same directory, which is renamed over FILE only once it is complete.

A command killed by SIGKILL (or the out-of-memory killer) runs no clean-up: its temporary file stays. Each one is
therefore made by ``temporary``, which holds a lock on it (``flock``) for as long as the command lives (the kernel lets
it go with the process, however it ends) and first removes those a killed command left: the same name's
(``.out.json.XXXXXXXX.tmp`` beside ``out.json``, ``.uopc-report.XXXXXXXX.tmp`` in the temporary directory), held by
no process, untouched for ``STALE_SECONDS`` (``sweep_stale``).

>>> import os, tempfile
>>> d = tempfile.mkdtemp()
>>> write_atomically(os.path.join(d, "out.c"), "int x;\\n")
>>> open(os.path.join(d, "out.c")).read(), sorted(os.listdir(d))
('int x;\\n', ['out.c'])
"""
from __future__ import annotations

import contextlib
import os
import string
import tempfile
import time

try: import fcntl
except ImportError: fcntl = None   # type: ignore[assignment]   # (no flock: nothing is locked, nothing swept)

STALE_SECONDS = 60.0   # a temporary file held by no process and untouched this long was left by a killed command
_RANDOM = set(string.ascii_lowercase + string.digits + "_")   # what ``tempfile.mkstemp`` names its files with (8 of them)


def write_atomically(path: str, text: str) -> None:
  """Replace ``path`` by ``text`` (UTF-8) in one rename; raises ``OSError`` or ``UnicodeError``, leaving ``path`` as it was.

  A path that is not a regular file (``/dev/stdout``, a pipe) is written directly: it has no half-written state to keep.
  """
  if os.path.exists(path) and not os.path.isfile(path):
    with open(path, "w", encoding="utf-8") as f: f.write(text)
    return
  directory = os.path.dirname(os.path.abspath(path))
  fd, tmp = temporary(f".{os.path.basename(path)}.", directory)
  try:
    with os.fdopen(fd, "w", encoding="utf-8") as f: f.write(text)
    os.chmod(tmp, mode_for(path))
    os.replace(tmp, path)
  except BaseException:   # an interrupt too: the temporary file is never left behind
    with contextlib.suppress(OSError): os.unlink(tmp)
    raise


def mode_for(path: str) -> int:
  """The mode the file would get from ``open(path, "w")``: its current one, else 0o666 less the umask."""
  with contextlib.suppress(OSError): return os.stat(path).st_mode & 0o7777
  umask = os.umask(0)
  os.umask(umask)
  return 0o666 & ~umask


def temporary(prefix: str, directory: str | None) -> tuple[int, str]:
  """A new file ``prefix`` + 8 random characters + ``.tmp`` in ``directory`` (None: the temporary directory), as
  ``tempfile.mkstemp`` makes it (its descriptor and name), locked while the descriptor is open; the stale ones of the
  same name are removed first (``sweep_stale``)."""
  sweep_stale(prefix, directory)
  fd, name = tempfile.mkstemp(prefix=prefix, suffix=".tmp", dir=directory)
  if fcntl is not None:
    with contextlib.suppress(OSError): fcntl.flock(fd, fcntl.LOCK_EX)   # (no locks on this file system: none swept there either)
  return fd, name


def sweep_stale(prefix: str, directory: str | None) -> list[str]:
  """Remove the temporary files ``temporary`` made with ``prefix`` in ``directory`` that a killed command left: no
  process holds their lock, and none was written for ``STALE_SECONDS`` (one just made is locked a moment later). The
  paths removed."""
  removed: list[str] = []
  if fcntl is None: return removed
  cutoff = time.time() - STALE_SECONDS
  try: entries = [e for e in os.scandir(directory or tempfile.gettempdir()) if _made_by_temporary(e.name, prefix)]
  except OSError: return removed
  for e in entries:
    try:
      if not e.is_file(follow_symlinks=False) or e.stat(follow_symlinks=False).st_mtime > cutoff: continue
      fd = os.open(e.path, os.O_RDONLY | os.O_NOFOLLOW)
    except OSError: continue
    try:
      fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)   # BlockingIOError: its command still runs
      os.unlink(e.path)
      removed.append(e.path)
    except OSError: pass
    finally: os.close(fd)
  return removed


def _made_by_temporary(name: str, prefix: str) -> bool:
  middle = name[len(prefix):-len(".tmp")]
  return name.startswith(prefix) and name.endswith(".tmp") and len(middle) == 8 and set(middle) <= _RANDOM
