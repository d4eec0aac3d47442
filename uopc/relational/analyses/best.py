"""Best-first search: the cheapest graph *reachable* from a program by directed rewriting, with its path.

Equality saturation (``uopc.egraph``) finds the cheapest graph *equal* to a program
under the rules read as equations; a rewrite system is directed, and the graph it
finds may be out of reach. ``best(prog, pm, cost)`` answers the directed question:
it expands states cheapest first (a priority queue on the cost of each graph, ties
to the nearer one), remembers every graph it has seen (so cycles are harmless), and
keeps the cheapest graph so far. That is branch and bound with the only bound that
holds for every rule set: no graph costs less than its cheapest single node
(``lower_bound``), so a search that meets it stops at once. Otherwise a rewrite can
always make a graph cheaper later, and the search must see every reachable graph to
prove its answer minimal (``complete``); cheapest first, it finds good graphs early.

>>> from uopc import UOp, symbolic
>>> from uopc.term import show
>>> p0 = UOp.param(0)
>>> r = best((p0 + 2) * 3 + (UOp.const(1) + 4), symbolic)
>>> show(r.graph), r.cost, r.complete, len(r.path)
('add(mul(p0, 3), 11)', 5, True, 3)
"""
from __future__ import annotations

import heapq
import time
from typing import Any, NamedTuple

from uopc.cost import Cost, as_cost
from uopc.matcher import PatternMatcher
from uopc.ops import Ops
from uopc.relational.space.states import Edge, State
from uopc.relational.ir import rules_for
from uopc.relational.space.step import Stuck, stepper_for
from uopc.uop import UOp
from uopc.bounded import Bounded, StopReason


class _BestFields(NamedTuple):
  state: State
  cost: float
  seen: int
  expanded: int
  bound: StopReason | None
  elapsed: float


class BestResult(_BestFields, Bounded):
  """The cheapest graph found, its state (with the path to it) and cost; how many graphs were seen and expanded; ``bound``
  (None: the answer is proven minimal, ``complete``: the space was searched, or the lower bound was met). A tuple of its
  six fields (``state, cost, seen, expanded, bound, elapsed = r``)."""
  __slots__ = ()

  @property
  def graph(self) -> UOp: return self.state.graph

  @property
  def path(self) -> list[Edge]: return self.state.path()


def lower_bound(cost: Cost) -> float:
  """No graph costs less: one node of the lightest op (DAG costs); 0 for a user function."""
  return min(cost.weight(op) for op in Ops) if cost.dag else 0


def best(prog: UOp, pm: PatternMatcher, cost: Cost | str | None = None, *, max_states: int | None = 100_000,
         timeout: float | None = None, ctx: Any = None) -> BestResult:
  """The cheapest graph reachable from ``prog`` under ``pm`` (see the module docstring)."""
  cost = as_cost(cost)
  t0 = time.perf_counter()
  stepper = stepper_for(rules_for(prog, pm, "best: pm"), ctx)   # the rule protocol of the program's IR
  start = State(0, prog, 0, None, None, stepper)
  seen: dict[UOp, State] = {prog: start}
  top, top_cost = start, cost.of(prog)
  floor = lower_bound(cost)
  queue = [(top_cost, 0, 0, start)]
  expanded = 0
  bound: StopReason | None = None
  while queue and top_cost > floor:
    if timeout is not None and time.perf_counter() - t0 > timeout: bound = "timeout"; break
    _, _, _, s = heapq.heappop(queue)
    expanded += 1
    for redex, h in stepper.successors(s.graph):
      if isinstance(h, Stuck) or h in seen: continue   # a failing step reaches no graph
      if max_states is not None and len(seen) >= max_states: bound = "max_states"; break
      t = seen[h] = State(len(seen), h, s.depth + 1, s, redex, stepper)
      c = cost.of(h)
      if c < top_cost: top, top_cost = t, c
      heapq.heappush(queue, (c, t.depth, t.id, t))
    if bound is not None: break
  return BestResult(top, top_cost, len(seen), expanded, bound, time.perf_counter() - t0)


__all__ = ["BestResult", "best", "lower_bound"]
