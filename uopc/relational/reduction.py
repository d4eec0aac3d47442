"""Partial-order reduction: expand one *island* of a state instead of every step, keeping every normal form.

The argument is in ``docs/reduction.md``; in short: a node is *inert* if no rule's
pattern can match its op (so it is never a redex, whatever its sources). An *island*
of a graph is a node reached from the root through inert nodes only. If an island ``n``

  (a) has no redex strictly below it (its own redexes are the only ones in its subgraph),
  (b) is below no other island (every ancestor of ``n`` is inert),
  (c) rewrites, by each of its redexes, into a graph with no redex at all, and
  (d) has no failing step,

then the steps at ``n`` form a *persistent set*: every other step happens at a node that
is neither above nor below ``n``, keeps ``n`` (its ancestors are never rewritten) and
commutes with the steps at ``n``. So every normal form reachable from the state is
reachable by first taking one of ``n``'s steps. With the cycle proviso (a state whose
reduced successors are already known is expanded fully) this holds across the whole
exploration, cycles included.

>>> from uopc import UOp, symbolic
>>> from uopc.relational.stream import Exploration
>>> p = [UOp.param(k) for k in range(6)]
>>> prog = UOp.stack(*(pk + 0 for pk in p))                # six independent redexes: 2**6 graphs
>>> full, reduced = Exploration(prog, symbolic).run(), Exploration(prog, symbolic, reduce=True).run()
>>> len(full.states), len(reduced.states), [s.term() for s in reduced.normal_forms] == [s.term() for s in full.normal_forms]
(64, 7, True)
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Collection

from uopc.matcher import PatternMatcher
from uopc.relational.step import Redex, Stepper, Stuck
from uopc.uop import UOp

if TYPE_CHECKING:
  from uopc.relational.canonical_path import Firing

__all__ = ["IslandReduction", "canonical_graphs", "order_keep_full"]


class IslandReduction:
  """The reduction policy of an ``Exploration``: ``persistent(g, steps)`` picks the steps to explore.

  ``keep_full``: graphs that are always expanded fully (``order`` passes the canonical
  engine's path, so the forks on it are found exactly as without the reduction).
  """

  def __init__(self, stepper: Stepper, keep_full: Collection[UOp] = ()) -> None:
    self.stepper = stepper
    self.keep_full = frozenset(keep_full)

  def persistent(self, g: UOp, steps: dict[Redex, UOp | Stuck]) -> dict[Redex, UOp] | None:
    """The steps at one island satisfying (a)-(d), or None: explore every step of ``g``."""
    stepper = self.stepper
    if stepper.can_match(g.op) or g in self.keep_full: return None   # the root is the only island
    islands = self._islands(g)
    if len(islands) < 2: return None
    maps = [stepper.step_map(n) for n in islands]
    for i, (n, m) in enumerate(zip(islands, maps)):
      if m is None or any(r.node is not n or r.error is not None for r in m): continue   # (a), (d)
      if any(k != i and (mk is None or not mk.keys().isdisjoint(m)) for k, mk in enumerate(maps)): continue   # (b)
      chosen = {r: steps.get(r) for r in m}
      if all(h.__class__ is UOp and stepper.is_normal(r.result) for r, h in chosen.items()): return chosen   # (c), (d)
    return None

  def _islands(self, g: UOp) -> list[UOp]:
    """The islands of ``g`` with a redex in their subgraph, in a fixed order (depth first, left to right)."""
    can_match, step_map = self.stepper.can_match, self.stepper.step_map
    out: list[UOp] = []
    seen: set[UOp] = set()
    stack = [g]
    while stack:
      u = stack.pop()
      if u in seen: continue
      seen.add(u)
      if not can_match(u.op): stack.extend(reversed(u.src))
      elif (m := step_map(u)) is None or m: out.append(u)   # a big subgraph (None) may hold redexes
    return out


def canonical_graphs(root: UOp, stepper: Stepper, firings: list[Firing]) -> set[UOp] | None:
  """The graphs of the canonical engine's path (its firings replayed as steps), or None if they do not replay.

  (They do not when the engine reused a memoized result: ``canonical_path`` then catches
  up with extra steps, which this does not attempt; the caller explores fully instead.)
  """
  g, out = root, {root}
  for f in firings:
    m = stepper.step_map(g)
    if m is None: return None
    h = next((h for r, h in m.items() if r.node is f.node and r.rule_index == f.rule_index and r.result is f.result), None)
    if h.__class__ is not UOp: return None
    g = h
    out.add(g)
  return out


def order_keep_full(root: UOp, pm: PatternMatcher, stepper: Stepper) -> set[UOp] | None:
  """``canonical_graphs`` of ``graph_rewrite(root, pm)``'s recorded firings (None: explore fully)."""
  from uopc.relational.canonical_path import record   # deferred: canonical_path imports the stream, which imports this
  canonical, _, firings = record(root, pm)
  return None if canonical is None else canonical_graphs(root, stepper, firings)
