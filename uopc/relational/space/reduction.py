"""Partial-order reduction: explore the steps of one group of *islands* of a state, keeping every normal form.

The argument is in ``docs/reduction.md``. A node is *inert* if no rule's pattern can
match any form it can take (``forms.py``: its op, or its op and what its sources can
become; under ``symbolic``: STACK, INDEX, movement ops, ...), so it is never a redex,
and a step that rebuilds it makes another inert node. An *island*
is a non-inert node reached from the root through inert nodes only; islands that share
a redex (a shared node is rewritten in all of them at once) form one *group*. The steps
inside a group are a *persistent set* of the state when

  (a) the group is inside no other island (its redexes are in no other island's subgraph),
  (b) none of its steps fails (in the island or in the whole graph), and
  (c) each step removes its node and makes no redex the group did not already have.

Every other step then happens outside the group's subgraphs, never above them (their
ancestors are inert), and commutes with the group's steps; so every normal form reachable
from the state is reachable through one of them, by a path no longer (up to one step per
subgraph a later step builds again by hash consing). The cycle proviso (a state with a
reduced successor that was already expanded is expanded fully) makes every cycle of the
reduced graph pass through a fully expanded state, so the argument holds across the whole
exploration.

>>> from uopc import UOp, symbolic
>>> from uopc.relational.space.stream import Exploration
>>> p = [UOp.param(k) for k in range(6)]
>>> prog = UOp.stack(*(pk + 0 for pk in p))                # six independent redexes: 2**6 graphs
>>> full, reduced = Exploration(prog, symbolic).run(), Exploration(prog, symbolic, reduce=True).run()
>>> len(full.states), len(reduced.states), [s.term() for s in reduced.normal_forms] == [s.term() for s in full.normal_forms]
(64, 7, True)

Summed instead, under ``x + 0 -> x`` alone, no ``+`` above the leaves can become ``x + 0``:
the sum's spine is inert, and its leaves are the islands.

>>> from uopc import UPat, PatternMatcher
>>> add_zero = PatternMatcher([(UPat.var("x") + 0, lambda x: x)])
>>> total = sum((pk + 0 for pk in p[1:]), p[0] + 0)
>>> len(Exploration(total, add_zero).run().states), len(Exploration(total, add_zero, reduce=True).run().states)
(64, 7)

Under tree semantics an island is a position: the steps inside one of them are a persistent set
(steps at disjoint positions commute, and hash consing cannot merge two positions).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Collection

from uopc.matcher import PatternMatcher
from uopc.relational.space.forms import Forms
from uopc.relational.space.invisible import Invisible
from uopc.relational.space.step import Redex, Stepper, Stuck
from uopc.uop import UOp

if TYPE_CHECKING:
  from uopc.relational.space.engine_path import Firing

__all__ = ["IslandReduction", "canonical_graphs", "order_keep_full"]

_MAX_POSITIONS = 4096   # tree semantics: islands looked at per state, at most


class IslandReduction:
  """The reduction policy of an ``Exploration``: ``persistent(g, steps)`` picks the steps to explore.

  A root that is not inert is the only island: such graphs (a sum under ``symbolic``, whose
  ``x=alu`` rule may match every ALU node) are explored fully. See ``docs/reduction.md`` for
  why no sound reduction is known there.

  ``keep_full``: graphs that are always expanded fully (``order`` passes the canonical
  engine's path, so the forks on it are found exactly as without the reduction).
  """

  def __init__(self, stepper: Stepper, keep_full: Collection[UOp] = ()) -> None:
    self.stepper = stepper
    self.keep_full = frozenset(keep_full)
    self.forms = Forms(stepper)   # which nodes are inert (the native core asks it too)
    self.invisible = Invisible(stepper.pm)   # steps no rule can see, from declared footprints (Python core only)
    # rules that may read the state's whole graph (PyTensor's, through fgraph.clients): a step's result is then a function
    # of the node only while none has read it (``depends``, each reading recorded as it happens)
    self._reads_state = getattr(stepper.pm, "depends", None)

  def persistent(self, g: UOp, steps: dict[Any, UOp | Stuck]) -> dict[Any, UOp] | None:
    """Every step inside the first group of islands that satisfies (a)-(c), or None: explore every step of ``g``."""
    stepper = self.stepper
    if g in self.keep_full or self._reads_state: return None
    if not self.forms.inert(g):   # the root is the only island: unless footprints say a step is invisible
      return self.invisible.persistent(g, steps) if stepper.semantics == "graph" else None
    if stepper.semantics == "tree": return self._persistent_tree(g, steps)
    islands = self._islands(g)
    if len(islands) < 2: return None
    maps = [m for n in islands if (m := stepper.step_map(n)) is not None]
    if len(maps) != len(islands): return None   # a big island: its redexes are not listed
    groups = _groups(maps)
    if len(groups) < 2: return None
    for group in groups:
      redexes = {r: None for k in group for r in maps[k]}
      if all(self._closed(r, h, redexes) for k in group for r, h in maps[k].items()):
        chosen = {r: h for r in redexes if (h := steps.get(r)) is not None and h.__class__ is not Stuck}
        if len(chosen) == len(redexes): return chosen  # type: ignore[return-value]  # (b) for the whole graph too: nodes
    return None

  def _closed(self, r: Redex, h: UOp | Stuck, redexes: dict) -> bool:
    """(b) and (c) for the step ``r`` of an island (``h``: the island it makes) in a group whose redexes are
    ``redexes``: it does not fail, removes its own node, and the island it makes has no redex the group had not."""
    if isinstance(h, Stuck): return False
    m2 = self.stepper.step_map(h)
    return m2 is not None and r not in m2 and m2.keys() <= redexes.keys()

  def _persistent_tree(self, g: UOp, steps: dict[Any, UOp | Stuck]) -> dict[Any, UOp] | None:
    """Tree semantics: every step at a position inside the first island (by position) whose steps do not fail."""
    inert, step_map = self.forms.inert, self.stepper.step_map
    islands: dict[tuple[int, ...], dict[Any, UOp]] = {}   # position -> the root's steps inside it
    stack: list[tuple[UOp, tuple[int, ...]]] = [(g, ())]
    for _ in range(_MAX_POSITIONS):   # a DAG shared through inert nodes can have too many positions
      if not stack: break
      u, pos = stack.pop()
      if inert(u): stack.extend((s, (*pos, i)) for i, s in reversed(list(enumerate(u.src))))
      elif (m := step_map(u)) is None or m: islands[pos] = {}
    else: return None
    if len(islands) < 2: return None
    failing: set[tuple[int, ...]] = set()
    for k, h in steps.items():
      p = k.position
      at = next((p[:n] for n in range(len(p) + 1) if p[:n] in islands), None)
      if at is None: return None   # not below an island (it cannot be: the islands hold every redex)
      if h.__class__ is Stuck: failing.add(at)
      else: islands[at][k] = h  # type: ignore[assignment]  # not stuck: a node
    return next((chosen for pos, chosen in islands.items() if chosen and pos not in failing), None)

  def _islands(self, g: UOp) -> list[UOp]:
    """The islands of ``g`` with a redex in their subgraph, in a fixed order (depth first, left to right)."""
    inert, step_map = self.forms.inert, self.stepper.step_map
    out: list[UOp] = []
    seen: set[UOp] = set()
    stack = [g]
    while stack:
      u = stack.pop()
      if u in seen: continue
      seen.add(u)
      if inert(u): stack.extend(reversed(u.src))
      elif (m := step_map(u)) is None or m: out.append(u)   # a big subgraph (None) may hold redexes
    return out


def _groups(maps: list[dict]) -> list[list[int]]:
  """The islands (indices into ``maps``) grouped where they share a redex: a shared node is rewritten in
  all of them at once."""
  groups: list[tuple[list[int], set]] = []
  for i, m in enumerate(maps):
    members, keys = [i], set(m)
    keep = []
    for grp, gkeys in groups:
      if gkeys.isdisjoint(keys): keep.append((grp, gkeys))
      else: members, keys = grp + members, keys | gkeys
    groups = keep + [(sorted(members), keys)]
  return [grp for grp, _ in groups]


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
    if h is None or h.__class__ is Stuck: return None
    g = h  # type: ignore[assignment]  # not stuck: a node
    out.add(g)
  return out


def order_keep_full(root: UOp, pm: PatternMatcher, stepper: Stepper) -> set[UOp] | None:
  """``canonical_graphs`` of the IR's own engine's recorded firings on ``root`` (``IR.record``: uopc's ``graph_rewrite``,
  tinygrad's), or None: explore fully."""
  canonical, _, firings = stepper.ir.record(root, pm)
  return None if canonical is None else canonical_graphs(root, stepper, firings)
