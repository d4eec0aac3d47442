"""A program on which a rule set loops, shown by the explorer: a reachable cycle, or a step into a larger graph that
holds the one it came from (``t -> C[t]``: the same steps apply again inside, forever).

``find_loop(prog, pm)`` explores ``prog`` (bounded) and returns the first ``Loop``: a shortest path from the program
to it, and the steps of the loop itself. It finds any reachable cycle, not only the terminal ones
``space/cycles.py`` reports as normal-form classes (the helper of issue 38.1 makes the explorer's own; this is the
termination check's, until then).

>>> from uopc import UOp, UPat, PatternMatcher
>>> x = UPat.var("x")
>>> loops = PatternMatcher([(x * 2, lambda x: x + x, "to-add"), (x + x, lambda x: x * 2, "to-mul")], name="loops")
>>> loop = find_loop(UOp.param(0) * 2, loops)
>>> loop.kind, [e.rule for e in loop.steps]
('cycle', ['to-add', 'to-mul'])
"""
from __future__ import annotations

from collections import deque
from typing import Any, NamedTuple

from uopc.limits import NO_LIMITS, Limits
from uopc.relational.space.explore import explore
from uopc.relational.space.scc import components
from uopc.relational.space.states import Edge, State
from uopc.relational.space.stream import Exploration

__all__ = ["Loop", "find_loop", "search_loop"]


class Loop(NamedTuple):
  """``kind`` "cycle" (``steps`` lead from ``entry`` back to it) or "grows" (one step from ``entry`` to a graph that
  holds it); ``path``: a shortest way from the program to ``entry``."""
  kind: str
  entry: State
  path: list[Edge]
  steps: list[Edge]
  exploration: Exploration


def _holds(big: Any, small: Any) -> bool:
  """Is ``small`` a proper subterm of ``big`` (any IR's nodes, by their ``src``)?"""
  seen, stack = set(), list(big.src)
  while stack:
    n = stack.pop()
    if n is small: return True
    if id(n) in seen: continue
    seen.add(id(n))
    stack.extend(n.src)
  return False


def _around(ex: Exploration, start: State, members: set[int]) -> list[Edge]:
  """The steps of a shortest way from ``start`` back to itself inside the component ``members``."""
  back: dict[int, Edge | None] = {}
  queue: deque[State] = deque([start])
  while queue:
    s = queue.popleft()
    for e in ex.edges_from(s):
      t = e.target
      if t.error is not None or t.id not in members: continue
      if t.id == start.id:
        steps = [e]
        while s.id != start.id:
          prev = back[s.id]
          assert prev is not None
          steps.append(prev)
          s = prev.source
        return steps[::-1]
      if t.id not in back:
        back[t.id] = e
        queue.append(t)
  return []


def find_loop(prog: Any, pm: Any, *, max_states: int | None = 2_000, max_depth: int | None = None, limits: Limits = NO_LIMITS) -> Loop | None:
  """The loop nearest to ``prog`` within the bounds (module doc), or None if the explored part has none."""
  return search_loop(prog, pm, max_states=max_states, max_depth=max_depth, limits=limits)[0]


def search_loop(prog: Any, pm: Any, *, max_states: int | None = 2_000, max_depth: int | None = None,
                limits: Limits = NO_LIMITS) -> tuple[Loop | None, Exploration]:
  """``find_loop``'s answer and the exploration it searched (complete: no loop means no order loops)."""
  ex = explore(prog, pm, max_states=max_states, max_depth=max_depth, limits=limits).run()
  states = ex.states
  succ = {s.id: [i for i in ex.successor_ids(s)] for s in states if s.normal is False}
  found: list[tuple[int, Loop]] = []
  for comp in components(sorted(succ), succ):
    members = set(comp)
    if len(comp) == 1 and comp[0] not in succ.get(comp[0], ()): continue
    entry = min((states[i] for i in comp), key=lambda s: (s.depth, s.id))
    found.append((entry.depth, Loop("cycle", entry, ex.path_to(entry), _around(ex, entry, members), ex)))
  for e in ex.edges:
    if e.target.error is None and e.source.id != e.target.id and _holds(e.target.graph, e.source.graph):
      found.append((e.source.depth, Loop("grows", e.source, ex.path_to(e.source), [e], ex)))
      break
  return (min(found, key=lambda f: (f[0], f[1].kind != "cycle"))[1] if found else None), ex
