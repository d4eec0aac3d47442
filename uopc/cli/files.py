"""Writing an output file whole or not at all.

A command killed, interrupted or failing half-way through writing ``-o FILE`` must not
leave a truncated FILE that looks like a result: the text goes to a temporary file in
the same directory, which is renamed over FILE only once it is complete.

>>> import os, tempfile
>>> d = tempfile.mkdtemp()
>>> write_atomically(os.path.join(d, "out.c"), "int x;\\n")
>>> open(os.path.join(d, "out.c")).read(), sorted(os.listdir(d))
('int x;\\n', ['out.c'])
"""
from __future__ import annotations

import contextlib
import os
import tempfile


def write_atomically(path: str, text: str) -> None:
  """Replace ``path`` by ``text`` (UTF-8) in one rename; raises ``OSError`` or ``UnicodeError``, leaving ``path`` as it was.

  A path that is not a regular file (``/dev/stdout``, a pipe) is written directly: it has no half-written state to keep.
  """
  if os.path.exists(path) and not os.path.isfile(path):
    with open(path, "w", encoding="utf-8") as f: f.write(text)
    return
  directory = os.path.dirname(os.path.abspath(path))
  fd, tmp = tempfile.mkstemp(prefix=f".{os.path.basename(path)}.", suffix=".tmp", dir=directory)
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
