"""The static gate's type check: mypy over the package ``uopc`` and the console script's supervisor ``uopc_launch``.

``python dev/typecheck.py`` (``make static`` runs it); extra arguments go to mypy.
"""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main() -> int:
  cmd = [sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml"), "--cache-dir", str(ROOT / ".mypy_cache"),
         "-p", "uopc", "-m", "uopc_launch", *sys.argv[1:]]
  return subprocess.run(cmd, cwd=ROOT).returncode


if __name__ == "__main__":
  sys.exit(main())
