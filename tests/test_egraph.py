"""The e-graph: hash consing of e-nodes, union-find, congruence closure by deferred rebuild, bit-exact constants."""
from tests.helpers import param
from uopc import UOp, dtypes
from uopc.egraph.egraph import EGraph
from uopc.egraph.unionfind import UnionFind

p0, p1, p2 = param(0), param(1), param(2)


def test_union_find_merges_sets_and_keeps_others_apart():
  uf = UnionFind()
  ids = [uf.make() for _ in range(6)]
  uf.union(ids[0], ids[1]); uf.union(ids[2], ids[3]); uf.union(ids[1], ids[3])
  assert len({uf.find(i) for i in ids[:4]}) == 1
  assert len({uf.find(i) for i in ids}) == 3


def test_adding_a_graph_twice_gives_its_class():
  eg = EGraph()
  c = eg.add((p0 + 1) * (p0 + 1))
  assert eg.add((p0 + 1) * (p0 + 1)) == c
  assert eg.add(p0 + 1) != c
  assert len(eg) == 4 and eg.enode_count == 4   # p0, 1, add, mul: shared subgraphs are one class


def test_congruence_is_restored_by_rebuild_only():
  eg = EGraph()
  a, b = eg.add((p0 + 1) * 3), eg.add((p1 + 1) * 3)
  assert eg.union(eg.add(p0), eg.add(p1))
  assert eg.find(a) != eg.find(b)   # deferred: users are merged by rebuild
  eg.rebuild()
  assert eg.find(a) == eg.find(b) and eg.find(eg.add(p0 + 1)) == eg.find(eg.add(p1 + 1))
  # classes {p0, p1}, {1}, {add}, {3}, {mul}; the two adds (and muls) are one e-node once canonical
  assert len(eg) == 5 and eg.enode_count == 6


def test_union_of_one_class_is_no_change():
  eg = EGraph()
  c = eg.add(p0 * 2)
  assert not eg.union(c, c)


def test_unions_of_classes_of_different_types_are_refused():
  eg = EGraph()
  try: eg.union(eg.add(p0), eg.add(param(1, dtypes.f32)))
  except ValueError as e: assert "cannot merge" in str(e)
  else: raise AssertionError("merged an i32 class with an f32 one")


def test_constants_stay_bit_exact():
  eg = EGraph()
  zero, negzero, nan = eg.add(UOp.const(0.0)), eg.add(UOp.const(-0.0)), eg.add(UOp.const(float("nan")))
  assert len({zero, negzero, nan}) == 3
  assert not eg.union(zero, negzero) and not eg.union(nan, zero)
  assert eg.find(zero) != eg.find(negzero) and len(eg.conflicts) == 2
  # and not through congruence either: a class with 0.0 and one with -0.0 stay apart when their users meet
  x, y = eg.add(param(0, dtypes.f32) * 1.0), eg.add(param(1, dtypes.f32) * 1.0)
  eg.union(x, zero); eg.union(y, negzero)
  eg.union(eg.add(param(0, dtypes.f32)), eg.add(param(1, dtypes.f32)))
  eg.rebuild()
  assert eg.find(zero) != eg.find(negzero)


def test_a_20000_node_graph_is_fine():
  u = p0
  for i in range(20_000): u = u + (i % 5)
  eg = EGraph()
  c = eg.add(u)
  eg.union(eg.add(p0), eg.add(p1))
  eg.rebuild()
  assert len(eg) == 1 + 5 + 20_000 and eg.find(c) == eg.add(u)
