"""Two ways to evaluate the orders' conditions: with a candidate fixed (Python booleans, the search without z3) or
symbolically (z3 formulas, whose model is the candidate). ``path_order`` and ``weights`` write a condition once,
over a ``Logic``.

>>> py = Concrete(rank={"ADD": 1, "MUL": 2})
>>> py.all([py.above("MUL", "ADD"), py.true])
True
"""
from __future__ import annotations

from typing import Any, Iterable

from uopc.smt.solver import require


class Concrete:
  """Conditions as Python booleans, under one precedence (``rank``: higher is greater) and one status per op
  (``right_to_left``: the ops whose sources compare from the last)."""
  true, false = True, False

  def __init__(self, rank: dict[str, int], right_to_left: frozenset[str] = frozenset()):
    self.rank, self.rtl = rank, right_to_left

  def all(self, xs: Iterable[Any]) -> Any: return all(xs)
  def any(self, xs: Iterable[Any]) -> Any: return any(xs)
  def above(self, f: str, g: str) -> Any: return f != g and self.rank.get(f, 0) > self.rank.get(g, 0)
  def from_right(self, f: str) -> Any: return f in self.rtl


class Symbolic:
  """Conditions as z3 formulas over an integer rank and a status boolean per op."""

  def __init__(self) -> None:
    self.z3 = require()
    self.ctx = self.z3.Context()   # a fresh context per search: z3's answers depend on what its context saw before
    self.true, self.false = self.z3.BoolVal(True, self.ctx), self.z3.BoolVal(False, self.ctx)
    self.ranks: dict[str, Any] = {}
    self.statuses: dict[str, Any] = {}

  def all(self, xs: Iterable[Any]) -> Any:
    xs = [x for x in xs if x is not self.true]
    return self.false if any(x is self.false for x in xs) else self.true if not xs else xs[0] if len(xs) == 1 else self.z3.And(*xs)

  def any(self, xs: Iterable[Any]) -> Any:
    xs = [x for x in xs if x is not self.false]
    return self.true if any(x is self.true for x in xs) else self.false if not xs else xs[0] if len(xs) == 1 else self.z3.Or(*xs)

  def rank(self, f: str) -> Any:
    if f not in self.ranks: self.ranks[f] = self.z3.Int(f"rank_{f}", self.ctx)
    return self.ranks[f]

  def above(self, f: str, g: str) -> Any: return self.false if f == g else self.rank(f) > self.rank(g)

  def from_right(self, f: str) -> Any:
    if f not in self.statuses: self.statuses[f] = self.z3.Bool(f"right_to_left_{f}", self.ctx)
    return self.statuses[f]

  def concrete(self, model: Any) -> Concrete:
    """The precedence and statuses a model chose."""
    rank = {f: model.eval(r, model_completion=True).as_long() for f, r in self.ranks.items()}
    rtl = frozenset(f for f, b in self.statuses.items() if self.z3.is_true(model.eval(b, model_completion=True)))
    return Concrete(rank, rtl)
