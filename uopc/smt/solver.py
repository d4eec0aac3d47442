"""The z3 module, or one line saying what cannot be done without it.

z3 (PyPI ``z3-solver``) is the optional extra ``prove``: everything else in uopc runs without it, and whatever needs
it calls ``require()`` first, which raises ``SMTUnavailable`` with the install command.
"""
from __future__ import annotations

from contextlib import contextmanager
from typing import Any, Iterator

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
SEED = 0   # z3's random seeds, set on every solver: with the rlimit, a query's answer is a function of the query


def budget(solver: Any, ms: int) -> Any:
  """Bound ``solver``'s work by ``ms`` milliseconds' worth of z3's resource count (``rlimit``), not by the clock: a
  verdict must not depend on how busy the machine is (no wall-clock timeout: the command's ``--timeout`` bounds it)."""
  solver.set(rlimit=max(ms, 1) * RLIMIT_PER_MS)
  return solver


class Session:
  """One proof's z3 context and query memo (``session()``): the queries a rule's proof asks share one context (making
  one costs 3.6 ms, and evaluate's rules ask hundreds of small queries), and a query asked again (the same formulas,
  tactic and budget: a fork's feasibility at every left side, a dtype's) is answered from the memo. Its answers are a
  function of the proof's own queries, in order, never of what the process asked before it."""

  def __init__(self) -> None:
    self.ctx = require().Context()
    self.memo: dict[tuple[Any, ...], tuple[Any, Any, str, list[Any]]] = {}   # key -> solver, its context, answer, formulas
    self.asked = self.answered = 0


_sessions: list[Session] = []


@contextmanager
def session() -> Iterator[Session]:
  """A ``Session`` for the queries made inside (the enclosing one, where one is open)."""
  if _sessions:
    yield _sessions[-1]
    return
  _sessions.append(s := Session())
  try: yield s
  finally: _sessions.pop()


class Fresh:
  """A z3 solver in a context of its own (the open ``session``'s, else a new one): a query's answer must not depend on
  what the process asked z3 before (in the one global context, earlier queries' terms and resource count changed
  later verdicts and counterexamples). Terms built in the global context are translated in; a model's values are
  translated back. Formulas are given to the solver as it checks: in a session, a query asked before is answered
  by the first one's solver.

  >>> z3 = require()
  >>> x = z3.Int("x")
  >>> q = Fresh(ms=100)
  >>> q.add(x * x == 49, x < 0)
  >>> q.check(), q.model().eval(x, model_completion=True)
  ('sat', -7)
  """

  def __init__(self, ms: int | None = None, rlimit: int | None = None, tactic: str | tuple[str, ...] | None = None,
               alone: bool = False) -> None:
    self.z3 = require()
    self.alone = alone   # in a context of its own even in a session: its answer must not depend on the session's queries
    self.rlimit = max(ms, 1) * RLIMIT_PER_MS if ms is not None else rlimit
    self.tactic = tactic
    self.formulas: list[Any] = []   # every formula added, in the global context
    self.given = 0                  # how many of them the solver has
    self.shared = False             # the solver is a memo's: a formula added after its check needs a solver of its own
    self.solver: Any = None
    self.ctx: Any = None
    self.answer = ""
    self._model: Any = None

  def add(self, *formulas: Any) -> None: self.formulas.extend(formulas)

  def _new_solver(self, ctx: Any) -> None:
    z3 = self.z3
    self.ctx = ctx
    if self.tactic:   # a tactic (or a sequence of them: z3's Then) as a solver; a tactic's seeds are its own, 0 by default
      t = z3.Tactic(self.tactic, ctx=ctx) if isinstance(self.tactic, str) else z3.Then(*self.tactic, ctx=ctx)
      self.solver = t.solver()
    else:
      self.solver = z3.Solver(ctx=ctx)
      self.solver.set(random_seed=SEED)
    if self.rlimit is not None: self.solver.set("rlimit", self.rlimit)
    self.given, self.shared = 0, False

  def check(self) -> str:
    """``sat``, ``unsat`` or ``unknown`` (then ``reason_unknown()`` says why)."""
    self._model = None
    key: tuple[Any, ...] | None = None
    if self.solver is None or (self.shared and self.given < len(self.formulas)):
      if _sessions:
        memo = _sessions[-1].memo
        key = (self.tactic, self.rlimit, *[f.get_id() for f in self.formulas])   # the memo keeps the formulas alive
        _sessions[-1].asked += 1
        if (first := memo.get(key)) is not None:
          _sessions[-1].answered += 1
          self.solver, self.ctx, self.answer, _ = first
          self.given, self.shared = len(self.formulas), True
          return self.answer
      self._new_solver(_sessions[-1].ctx if _sessions and not self.alone else self.z3.Context())
    self.solver.add(*[f.translate(self.ctx) for f in self.formulas[self.given:]])
    self.given = len(self.formulas)
    answer = self.solver.check()
    self.answer = "sat" if answer == self.z3.sat else "unsat" if answer == self.z3.unsat else "unknown"
    if key is not None:
      _sessions[-1].memo[key] = (self.solver, self.ctx, self.answer, list(self.formulas))
      self.shared = True
    return self.answer

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
