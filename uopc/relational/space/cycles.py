"""Cycles: the terminal strongly connected components of an exploration (answers), and any reachable cycle (a loop).

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

A cycle need not be terminal to matter: where a step leaves it, the rewriting *can* leave, but an order that keeps
taking the cycle's steps never ends. ``reachable_cycle`` finds one if any exists: every explored state is reachable
from the program, so a strongly connected component with a cycle (more than one state, or a step to itself) is a
**loop** an order can stay on forever. No fairness is assumed: an order is any sequence of steps, as a deterministic
engine is (tinygrad's bottom-up ``graph_rewrite`` goes round such a cycle though a step leaves it); a strategy that
must eventually take every step it keeps skipping could leave. So "every order terminates" means the program's
rewriting is strongly normalizing: no infinite sequence of steps, which in a finite space is no reachable cycle.
The loop is a shortest path from the program into the first cycle state a breadth-first search reaches, and a
shortest cycle through that state; one pass over the states and steps (Tarjan's, in C where the native core ran the
search) and two breadth-first searches.

>>> ex = Exploration(UOp.param(0) * 2 + 0, loops).run()
>>> loop = reachable_cycle(ex)
>>> [e.rule for e in loop.path], [s.term() for s in loop.states], [short_name(r) for r in loop.rules], loop.on_cycles
([], ['add(mul(p0, 2), 0)', 'add(add(p0, p0), 0)'], ['x * 2', 'x + x'], 2)
"""
from __future__ import annotations

from collections import deque
from typing import Any, NamedTuple

from uopc.relational.space.states import Edge, State
from uopc.relational.space.stream import Exploration

__all__ = ["Cycle", "Loop", "cyclic_components", "reachable_cycle", "terminal_cycles"]


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


class Loop(NamedTuple):
  """A reachable cycle an order can go round forever: ``path`` a shortest path from the program to ``entry`` (the first
  state on any cycle a breadth-first search from the program reaches), ``cycle`` a shortest cycle of steps from
  ``entry`` back to it; ``component`` the states of ``entry``'s strongly connected component, ``on_cycles`` the states on
  any cycle (in a component with one), in ``components`` components; ``cyclic`` the ids of those states."""
  path: list[Edge]
  cycle: list[Edge]
  component: int
  on_cycles: int
  components: int
  cyclic: frozenset[int] = frozenset()

  @property
  def entry(self) -> State:
    """The cycle's first state: where ``path`` enters it."""
    return self.cycle[0].source

  @property
  def states(self) -> list[State]:
    """The cycle's states, from ``entry`` round."""
    return [e.source for e in self.cycle]

  @property
  def rules(self) -> list[str]:
    """The rules of the cycle's steps, by first use: the rules that loop."""
    out: list[str] = []
    for e in self.cycle:
      if e.rule not in out: out.append(e.rule)
    return out


def cyclic_components(ex: Exploration) -> list[list[int]]:
  """The ids of each strongly connected component of the explored steps that holds a cycle (more than one state, or a
  step from a state to itself), closed or not; failing steps and graphs a bound left unmade left out. Linear in the
  states and steps: Tarjan's, in C where the native core ran the search."""
  if not getattr(ex, "may_cycle", lambda: True)(): return []   # a cluster run whose shards saw no step that could close one
  if (space := ex.native_space) is not None:
    from uopc.relational.native.drive import cycles   # (the native core's: each answer kept)
    return cycles(space, True)[1]
  from uopc.relational.space.scc import components
  succ = {s.id: ids for s in ex.states if (ids := ex.successor_ids(s))}
  return [c for c in components((s.id for s in ex.states), succ) if len(c) > 1 or c[0] in succ.get(c[0], ())]


def reachable_cycle(ex: Exploration) -> Loop | None:
  """A cycle of ``ex``'s explored states that an order can stay on forever, with a shortest path into it (see the module
  doc), or None if the explored steps have no cycle. A cycle found is a real one, whatever the bounds (every explored
  step is a step); that there is none says every order terminates only where the search was complete."""
  comps = cyclic_components(ex)
  if not comps: return None
  states = ex.states
  entry = min((states[i] for c in comps for i in c), key=lambda s: (s.depth, s.id))   # BFS order: a shortest path into a cycle
  comp = next(c for c in comps if entry.id in c)
  cyclic = frozenset(i for c in comps for i in c)
  return Loop(entry.path(), _shortest_cycle(ex, entry), len(comp), len(cyclic), len(comps), cyclic)


def _shortest_cycle(ex: Exploration, entry: State) -> list[Edge]:
  """A shortest cycle of steps through ``entry`` (which lies on one): breadth first from it until a step leads back.
  Every state on a path from ``entry`` that returns to it is in its component, so the search needs no restriction."""
  states, start = ex.states, entry.id
  parent: dict[int, int] = {start: -1}
  todo = deque([start])
  last = -1
  while todo and last < 0:
    v = todo.popleft()
    for t in ex.successor_ids(states[v]):
      if t == start:
        last = v
        break
      if t not in parent:
        parent[t] = v
        todo.append(t)
  assert last >= 0, "the entry lies on a cycle"
  ids = [start]
  v = last
  while v != start:
    ids.append(v)
    v = parent[v]
  ids = [start, *reversed(ids[1:]), start]
  return [next(e for e in ex.edges_from(states[a]) if e.target.id == b and e.target.error is None) for a, b in zip(ids, ids[1:])]

