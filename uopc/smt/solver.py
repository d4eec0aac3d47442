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


class Fresh:
  """A z3 solver in a context of its own: a query's answer must not depend on what the process asked z3 before (in the
  one global context, earlier queries' terms and resource count changed later verdicts and counterexamples). Terms
  built in the global context are translated in; a model's values are translated back.

  >>> z3 = require()
  >>> x = z3.Int("x")
  >>> q = Fresh(ms=100)
  >>> q.add(x * x == 49, x < 0)
  >>> q.check(), q.model().eval(x, model_completion=True)
  ('sat', -7)
  """

  def __init__(self, ms: int | None = None, rlimit: int | None = None, tactic: str | None = None) -> None:
    z3 = self.z3 = require()
    self.ctx = z3.Context()
    self.solver = z3.Tactic(tactic, ctx=self.ctx).solver() if tactic else z3.Solver(ctx=self.ctx)
    if ms is not None: budget(self.solver, ms)
    if rlimit is not None: self.solver.set("rlimit", rlimit)
    self._model: Any = None

  def add(self, *formulas: Any) -> None: self.solver.add(*[f.translate(self.ctx) for f in formulas])

  def check(self) -> str:
    """``sat``, ``unsat`` or ``unknown`` (then ``reason_unknown()`` says why)."""
    self._model = None
    answer = self.solver.check()
    return "sat" if answer == self.z3.sat else "unsat" if answer == self.z3.unsat else "unknown"

  def reason_unknown(self) -> str: return str(self.solver.reason_unknown())

  def model(self) -> Fresh:
    """The last ``sat`` answer's model: ``eval(term, model_completion)`` takes and gives terms of the global context."""
    self._model = self.solver.model()
    return self

  def eval(self, term: Any, model_completion: bool = False) -> Any:
    return self._model.eval(term.translate(self.ctx), model_completion=model_completion).translate(self.z3.main_ctx())


def require() -> Any:
  """The z3 module; ``SMTUnavailable`` (one line, naming the extra) if it is not installed."""
  if _z3 is None: raise SMTUnavailable(MISSING)
  return _z3
