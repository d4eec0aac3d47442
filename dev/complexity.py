"""The static gate's complexity bound: no Python block of uopc/ above radon's cyclomatic complexity 30, no C function
above lizard's 40. A function past it is several concepts in one body: split it into named pieces (a driver of named
phases, as ``uopc.relational.space.stream``'s ``_drive``).

``python dev/complexity.py`` (``make static`` runs it) prints each offender, one line each, and exits 1 if any.
"""
from __future__ import annotations

import sys
from pathlib import Path

import lizard
from radon.complexity import cc_visit
from radon.visitors import Function

ROOT = Path(__file__).resolve().parent.parent
PYTHON_LIMIT = 30   # radon's grade E starts at 31
C_LIMIT = 40


def python_offenders(root: Path = ROOT / "uopc") -> list[str]:
  out = []
  for path in sorted(root.rglob("*.py")):
    for b in cc_visit(path.read_text()):   # functions and methods (a class's own score sums its methods': not a block)
      if isinstance(b, Function) and b.complexity > PYTHON_LIMIT:
        out.append(f"{path.relative_to(ROOT)}:{b.lineno}: {b.fullname} has complexity {b.complexity}")
  return out


def c_offenders(root: Path = ROOT / "uopc") -> list[str]:
  out = []
  for path in sorted([*root.rglob("*.c"), *root.rglob("*.h")]):
    for f in lizard.analyze_file(str(path)).function_list:
      if f.cyclomatic_complexity > C_LIMIT:
        out.append(f"{path.relative_to(ROOT)}:{f.start_line}: {f.name} has complexity {f.cyclomatic_complexity}")
  return out


def main() -> int:
  found = python_offenders() + c_offenders()
  for line in found: print(line)
  return 1 if found else 0


if __name__ == "__main__":
  sys.exit(main())
