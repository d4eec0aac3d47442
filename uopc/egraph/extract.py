"""Extraction: the cheapest graph of each e-class under a ``Cost``.

Each class's best is a concrete graph (a hash-consed UOp), improved by a worklist: a
class is looked at again when one of its children's best got cheaper, and takes an
e-node's graph only if it is strictly cheaper. Keeping concrete graphs makes cycles
in the e-graph harmless (a best graph is always finite) and makes the cost of a best
graph exactly ``cost.of`` of it.

For a DAG cost (a weight per distinct node) a class keeps the set of nodes of its best
graph, so sharing is free: ``x + x`` has 2 nodes where ``x * 2`` has 3. The sets are
bit sets (a Python int, a bit per distinct node seen), so a union is one ``|`` and a
cost a popcount per distinct weight, at any number of e-classes. The method is greedy,
as egg's DAG extraction is: each candidate's cost is exact (the distinct nodes of that
very graph), but each class commits to its own cheapest graph, not to the one its users
would share best, so it is optimal for trees and an approximation for DAGs, with no
constant-factor bound (exact DAG extraction is NP-hard). Its work is that of the
worklist times the size of a bit set: O(candidates x distinct nodes / 64) word operations.

>>> from uopc.uop import UOp
>>> from uopc.egraph.egraph import EGraph
>>> p0 = UOp.param(0)
>>> eg = EGraph()
>>> c = eg.add(p0 * 1)
>>> _ = eg.union(c, eg.add(p0)); eg.rebuild()
>>> best = extract_all(eg, Cost.nodes())
>>> best[eg.find(c)].graph is p0, best[eg.find(c)].cost
(True, 1)
"""
from __future__ import annotations

from collections import deque
from typing import Iterable, NamedTuple

from uopc.cost import Cost
from uopc.egraph.egraph import EGraph, to_uop
from uopc.uop import UOp, UOpError


class Best(NamedTuple):
  """The cheapest graph found for a class, its cost, and (DAG costs) its distinct nodes as a bit set (0 otherwise)."""
  graph: UOp
  cost: float
  nodes: int


class _Bits:
  """A bit per distinct node, and the nodes of each weight as a bit set: the weight of a set is a popcount per weight."""

  def __init__(self, cost: Cost) -> None:
    self.cost = cost
    self.index: dict[UOp, int] = {}         # node -> its bit
    self.by_weight: dict[float, int] = {}   # weight -> the bits of its nodes

  def bit(self, u: UOp) -> int:
    if (i := self.index.get(u)) is None:
      i = self.index[u] = len(self.index)
      w = self.cost.weight(u.op)
      self.by_weight[w] = self.by_weight.get(w, 0) | 1 << i
    return 1 << i

  def weight(self, bits: int) -> float:
    if len(self.by_weight) == 1:
      (w, _), = self.by_weight.items()
      return w * bits.bit_count()
    return sum(w * (bits & m).bit_count() for w, m in self.by_weight.items())


def extract_all(eg: EGraph, cost: Cost, sharing: bool = True) -> dict[int, Best]:
  """The best graph of every class that has a finite one (after ``eg.rebuild()``).

  ``sharing`` (DAG costs only) counts each distinct node once; without it a DAG cost is
  summed as a tree (a shared node once per use). Either way ``best.graph`` is a graph of
  the class; ``cost.of(best.graph)`` is its real cost.
  """
  best: dict[int, Best] = {}
  classes, find = eg.classes, eg.find
  queue = deque(classes)
  queued = set(queue)
  bits = _Bits(cost) if cost.dag and sharing else None
  weight = cost.weight if cost.dag else None
  while queue:
    c = queue.popleft()
    queued.discard(c)
    cur = best.get(c)
    improved = False
    for n in classes[c].nodes:
      kids = [b for k in n[3] if (b := best.get(find(k))) is not None]
      if len(kids) != len(n[3]): continue   # a child class has no graph yet
      try: u = to_uop(n, [k.graph for k in kids])
      except UOpError: continue   # an e-node on these graphs is not well-formed (a CALL whose body lost a PARAM)
      if bits is not None:
        nodes = bits.bit(u)
        for k in kids: nodes |= k.nodes
        value = bits.weight(nodes)
      elif weight is not None: nodes, value = 0, weight(u.op) + sum(k.cost for k in kids)
      else: nodes, value = 0, cost.node(u, [k.cost for k in kids])
      if cur is None or value < cur.cost:
        cur = best[c] = Best(u, value, nodes)
        improved = True
    if improved:
      for _, pc in classes[c].parents:
        pc = find(pc)
        if pc not in queued:
          queued.add(pc)
          queue.append(pc)
  return best


def extract(eg: EGraph, root: int, cost: Cost) -> Best:
  """The best graph of class ``root``."""
  return extract_all(eg, cost)[eg.find(root)]


class Representatives:
  """Each class's smallest graph as a tree, kept up to date as the e-graph grows: only what changed is looked at again.

  The size of a class's smallest tree only falls as e-nodes are added and classes merge,
  so a class needs a new look only when it was made or merged, or a child's tree got
  smaller; ``update`` says which classes' representatives changed.
  """

  def __init__(self) -> None:
    self.graph: dict[int, UOp] = {}
    self.size: dict[int, int] = {}

  def update(self, eg: EGraph, touched: Iterable[int], unions: list[tuple[int, int]]) -> tuple[set[int], set[int]]:
    """Bring the representatives up to date after ``eg.rebuild()``; the classes whose representative changed, and of
    those the ones that had none."""
    graph, size, classes, find = self.graph, self.size, eg.classes, eg.find
    changed: set[int] = set()
    fresh: set[int] = set()
    queue = deque(touched)
    for keep, gone in unions:   # a merged class keeps the smaller of its halves' trees
      if (s := size.pop(gone, None)) is None: continue
      g = graph.pop(gone)
      if (t := size.get(keep)) is None or s < t:
        graph[keep], size[keep] = g, s
        changed.add(keep)
        queue.extend(pc for _, pc in classes[find(keep)].parents)
    queued = set(queue)
    while queue:
      c0 = queue.popleft()
      queued.discard(c0)
      c = find(c0)
      cur = size.get(c)
      improved = False
      for n in classes[c].nodes:
        total = 1
        for k in n[3]:
          if (s := size.get(find(k))) is None: break
          total += s
        else:
          if cur is not None and total >= cur: continue
          try: u = to_uop(n, [graph[find(k)] for k in n[3]])
          except UOpError: continue
          if cur is None: fresh.add(c)
          graph[c], size[c], cur, improved = u, total, total, True
      if improved:
        changed.add(c)
        for _, pc in classes[c].parents:
          if pc not in queued:
            queued.add(pc)
            queue.append(pc)
    return changed, fresh
