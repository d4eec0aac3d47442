"""The z3 module, or one line saying what cannot be done without it.

z3 (PyPI ``z3-solver``) is the optional extra ``prove``: everything else in uopc runs without it, and whatever needs
it calls ``require()`` first, which raises ``SMTUnavailable`` with the install command.
"""
from __future__ import annotations

from typing import Any

try: import z3 as _z3
except ImportError: _z3 = None

MISSING = "proving needs the z3 SMT solver, which is not installed: pip install -e '.[prove]'"


class SMTUnavailable(ImportError):
  """z3 is not installed, so nothing can be encoded or proved."""


def available() -> bool:
  """Is z3 importable?"""
  return _z3 is not None


RLIMIT_PER_MS = 2000
"""z3's resource units per millisecond of solver time on an unloaded machine (measured: about 2 million a CPU second)."""


def budget(solver: Any, ms: int) -> Any:
  """Bound ``solver``'s work by ``ms`` milliseconds' worth of z3's resource count (``rlimit``), not by the clock: a
  verdict must not depend on how busy the machine is. A clock bound twenty times as long stays, for a solver that
  would run on without counting (it never cuts a query that the count lets finish, however loaded the machine)."""
  solver.set(rlimit=max(ms, 1) * RLIMIT_PER_MS, timeout=max(ms, 1) * 20)
  return solver


def require() -> Any:
  """The z3 module; ``SMTUnavailable`` (one line, naming the extra) if it is not installed."""
  if _z3 is None: raise SMTUnavailable(MISSING)
  return _z3
