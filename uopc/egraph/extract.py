"""Extraction: the cheapest graph of each e-class under a ``Cost``.

Each class's best is a concrete graph (a hash-consed UOp), improved by a worklist: a
class is looked at again when one of its children's best got cheaper, and takes an
e-node's graph only if it is strictly cheaper. Keeping concrete graphs makes cycles
in the e-graph harmless (a best graph is always finite) and makes the cost of a best
graph exactly ``cost.of`` of it.

For a DAG cost (a weight per distinct node) a class keeps the set of nodes of its best
graph, so sharing is free: ``x + x`` has 2 nodes where ``x * 2`` has 3. This is
greedy, as egg's DAG extraction is: optimal for trees, a good approximation for DAGs
(the exact problem is NP-hard).

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
from typing import NamedTuple

from uopc.cost import Cost
from uopc.egraph.egraph import EGraph, to_uop
from uopc.uop import UOp, UOpError


class Best(NamedTuple):
  """The cheapest graph found for a class, its cost, and (DAG costs) its distinct nodes."""
  graph: UOp
  cost: float
  nodes: frozenset


SHARING_LIMIT = 5_000   # e-classes; past this, node sets (quadratic in depth) give way to sums of weights


def extract_all(eg: EGraph, cost: Cost, sharing: bool | None = None) -> dict[int, Best]:
  """The best graph of every class that has a finite one (after ``eg.rebuild()``).

  ``sharing`` (DAG costs only; default: up to ``SHARING_LIMIT`` classes) counts each
  distinct node once; without it a DAG cost is summed as a tree (a shared node once per
  use), which is linear where node sets are quadratic in the depth of the graph. Either
  way ``best.graph`` is a graph of the class; ``cost.of(best.graph)`` is its real cost.
  """
  best: dict[int, Best] = {}
  classes, find = eg.classes, eg.find
  queue = deque(classes)
  queued = set(queue)
  dag = cost.dag and (sharing if sharing is not None else len(classes) <= SHARING_LIMIT)
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
      if dag:
        nodes = frozenset([u]).union(*[k.nodes for k in kids])
        value = sum(cost.weight(v.op) for v in nodes)
      elif weight is not None: nodes, value = frozenset(), weight(u.op) + sum(k.cost for k in kids)
      else: nodes, value = frozenset(), cost.node(u, [k.cost for k in kids])
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
