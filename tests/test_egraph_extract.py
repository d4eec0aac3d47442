"""Extraction: the cheapest graph of a class, DAG costs share, cycles are harmless."""
from tests.helpers import param
from uopc import Ops
from uopc.cost import Cost
from uopc.egraph.egraph import EGraph
from uopc.egraph.extract import extract

p0, p1 = param(0), param(1)


def merged(*graphs):
  eg = EGraph()
  cs = [eg.add(g) for g in graphs]
  for c in cs[1:]: eg.union(cs[0], c)
  eg.rebuild()
  return eg, cs[0]


def test_dag_costs_share_and_tree_costs_do_not():
  x = (p0 + 1) * p1
  eg, c = merged(x * 2, x + x)
  assert extract(eg, c, Cost.nodes()).graph is x + x          # 6 distinct nodes against 7
  tree = Cost.function(lambda u, cs: 1 + sum(cs))
  assert extract(eg, c, tree).graph is x * 2 and extract(eg, c, tree).cost == 7   # x twice is 11


def test_weights_choose():
  eg, c = merged(p0 * 2, p0 + p0)
  assert extract(eg, c, Cost.weights({Ops.ADD: 3})).graph is p0 * 2
  assert extract(eg, c, Cost.weights({Ops.MUL: 3})).graph is p0 + p0


def test_a_cycle_in_the_e_graph_is_harmless():
  eg, c = merged(p0, p0 * 1)   # the class of p0 contains mul(itself, 1): infinitely many graphs
  best = extract(eg, c, Cost.nodes())
  assert best.graph is p0 and best.cost == 1
