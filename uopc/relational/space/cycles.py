"""Cycles are answers too: the terminal strongly connected components of an exploration.

A rule set that loops (``x*2 -> x+x`` with ``x+x -> x*2``, or commutativity) may have
no normal form at all: every rewrite sequence ends going round a set of graphs that
rewrite only among themselves. That set, a *terminal* strongly connected component of
the state graph with more than one graph, is the answer in place of a normal form: a
*normal-form class*. ``terminal_cycles`` finds them (iterative Tarjan: explorations are
deep) and names the rules on their edges.

>>> from uopc import UOp, UPat, PatternMatcher
>>> from uopc.matcher import short_name
>>> from uopc.relational.space.stream import Exploration
>>> x = UPat.var("x")
>>> loops = PatternMatcher([(x * 2, lambda x: x + x), (x + x, lambda x: x * 2)])
>>> ex = Exploration(UOp.param(0) * 2, loops).run()
>>> [([s.term() for s in c.states], [short_name(r) for r in c.rules]) for c in terminal_cycles(ex)]
[(['mul(p0, 2)', 'add(p0, p0)'], ['x * 2', 'x + x'])]
"""
from __future__ import annotations

from typing import Any, NamedTuple

from uopc.relational.space.states import State
from uopc.relational.space.stream import Exploration

__all__ = ["Cycle", "terminal_cycles"]


class Cycle(NamedTuple):
  """A normal-form class: graphs that rewrite only among themselves (in discovery order), and the rules
  of the steps between them (by first use)."""
  states: list[State]
  rules: list[str]


def terminal_cycles(ex: Exploration) -> list[Cycle]:
  """The terminal components of more than one graph whose every state was expanded fully.

  A component with a state never expanded (a bound) or expanded by a persistent set
  only (a reduction) is not reported: a step not taken could leave it. Use
  ``unsure_cycles`` to learn whether such a component exists.
  """
  return _classes(ex)[0]


def unsure_cycles(ex: Exploration) -> bool:
  """True if some component closed under the explored steps has a state that was not expanded fully."""
  return _classes(ex)[1]


def _classes(ex: Exploration) -> tuple[list[Cycle], bool]:
  found = getattr(ex, "cycle_classes", None)   # a cluster run's, found from the shards' steps (uopc.relational.cluster)
  if found is not None and (got := found()) is not None: return got
  edges: list[Any] | None = None   # made only if a cycle is found, for its rules
  cycles, unsure = [], False
  for comp in ex.closed_components():   # ids, not edges: a report of millions of edges must not make them all
    states = ex.states   # (read once a component exists: a cluster run's counting reports never make every state)
    members = set(comp)
    if not all(ex.fully_expanded(states[v]) for v in comp):
      unsure = True
      continue
    rules: list[str] = []
    if edges is None: edges = [e for e in ex.edges if e.target.error is None]
    for e in edges:
      if e.source.id in members and e.rule not in rules: rules.append(e.rule)
    cycles.append(Cycle([states[v] for v in sorted(comp)], rules))
  cycles.sort(key=lambda c: c.states[0].id)
  return cycles, unsure
