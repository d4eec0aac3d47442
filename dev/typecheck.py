"""The static gate's type check: mypy over the package as it installs, ``uopc`` with ``explore/`` as ``uopc.explore``.

mypy maps a folder to the package of its name, and setuptools' ``package-dir``
(``explore/`` installs as ``uopc.explore``) is beyond it: checked in place, ``explore/*.py``
would be a package ``explore``, and their imports of each other as ``uopc.explore.*`` would
go unchecked. So it checks a mirror of the installed layout, links in
``.mypy_cache/layout/``: ``uopc/`` links every entry of ``uopc/``, ``uopc/explore``
links ``explore/``, and ``uopc_launch.py`` (the console script's supervisor) sits beside
them. A message names ``uopc/explore/x.py`` for ``explore/x.py``.

``python dev/typecheck.py`` (``make static`` runs it); extra arguments go to mypy.
"""
from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def mirror() -> Path:
  """The installed layout as links (made anew each time: entries come and go)."""
  top = ROOT / ".mypy_cache" / "layout"
  shutil.rmtree(top, ignore_errors=True)
  pkg = top / "uopc"
  pkg.mkdir(parents=True)
  for entry in sorted((ROOT / "uopc").iterdir()):
    if entry.name != "__pycache__": (pkg / entry.name).symlink_to(entry)
  (pkg / "explore").symlink_to(ROOT / "explore")
  (top / "uopc_launch.py").symlink_to(ROOT / "uopc_launch.py")   # the console script's supervisor, a top-level module
  return top


def main() -> int:
  top = mirror()
  cmd = [sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml"), "--cache-dir", str(ROOT / ".mypy_cache"),
         "-p", "uopc", "-m", "uopc_launch", *sys.argv[1:]]
  return subprocess.run(cmd, cwd=top).returncode


if __name__ == "__main__":
  sys.exit(main())
