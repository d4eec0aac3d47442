"""The answers of ``reacho(pm, g, q)`` and ``normalo(pm, g, q)`` for a fresh ``q``: one substitution per graph.

``run(0, q, reacho(pm, g, q), eq(q, pattern))`` would make a substitution for every reachable graph, then unify it
with the pattern. ``GraphAnswers`` is the stream of those substitutions, and an ``EqFilterable``: bound to
``eq(q, pattern)`` it matches each graph with the pattern's compiled matcher (``bridge.ground_matcher``) first, and
makes a substitution only for a graph that matches, with the pattern's variables and ``q`` bound in it. The same
answers in the same order as unifying each substitution.

>>> from kanren import run, var, eq
>>> from uopc import UOp, symbolic, show
>>> from uopc.relational import pat, reacho
>>> q, x = var(), var()
>>> [show(h) for h in run(0, q, reacho(symbolic, (UOp.param(0) + 0) * 1, q), eq(q, pat.mul(x, 1)))]
['mul(add(p0, 0), 1)', 'mul(p0, 1)']
"""
from __future__ import annotations

from typing import Any, Iterator, Mapping

from unification.variable import Var

from uopc.relational.logic.bridge import ground_matcher
from uopc.relational.logic.conjunction import EqFilterable
from uopc.relational.space.states import State


class GraphAnswers(EqFilterable):
  """``S`` with the fresh variable ``var`` bound to the graph of each state of ``states`` that is not stuck."""
  __slots__ = ("var", "states", "S", "_answers")

  def __init__(self, var: Var, states: Iterator[State], S: Mapping):
    self.var, self.states, self.S = var, states, S
    self._answers: Iterator[dict] | None = None

  def __iter__(self) -> Iterator[dict]:
    if self._answers is None: self._answers = self._each()
    return self._answers   # a generator: a for loop over the answers runs at a generator's speed

  def __next__(self) -> dict: return next(iter(self))

  def _each(self) -> Iterator[dict]:
    S, q = self.S, self.var
    for s in self.states:
      if s.error is None:
        S2 = dict(S)
        S2[q] = s.graph
        yield S2

  def filtered(self, u: Any, v: Any) -> Iterator[dict] | None:
    """``bind(self, eq(u, v))`` where one side is the variable and the other a pattern with a compiled matcher (and no
    answer has been taken yet); else None."""
    q, S = self.var, self.S
    pattern = v if u is q else u if v is q else None
    if self._answers is not None or pattern is None or type(S) is not dict: return None
    if (match := ground_matcher(pattern, S, q)) is None: return None
    self._answers = self._matching(match)
    return self._answers

  def _matching(self, match: Any) -> Iterator[dict]:
    S, q = self.S, self.var
    for s in self.states:
      if s.error is None and (S2 := match(graph := s.graph, S)) is not False:
        S2[q] = graph
        yield S2


__all__ = ["GraphAnswers"]
