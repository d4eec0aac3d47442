"""E-matching agrees with UPat.match on graphs, finds what merged classes hold, and calls rules as PatternMatcher does."""
from hypothesis import given

from tests.helpers import param
from tests.strategies import graphs
from uopc import ALU, Ops, PatternMatcher, UPat, dtypes
from uopc.cost import Cost
from uopc.egraph.egraph import EGraph
from uopc.egraph.ematch import instances, results
from uopc.egraph.extract import extract_all
from uopc.rulesets import resolve_rules

p0, p1 = param(0), param(1)
x, y, c = UPat.var("x"), UPat.var("y"), UPat.cvar("c")

PATTERNS = [pat for pat, _ in resolve_rules("symbolic+evaluate").rules] + [
  UPat(Ops.ADD, src=(x, x)), UPat(Ops.STACK, src=(x,), allow_any_len=True), UPat(Ops.STACK, src=[x, c]),
  UPat((Ops.ADD, Ops.MUL), src=[UPat(dtype=dtypes.f32, name="x"), UPat(Ops.CONST, arg=0)]),
  UPat(Ops.WHERE, src=(UPat(name="z"), x, UPat(Ops.WHERE, src=(UPat(name="z"), UPat(), y)))),
]


def reps_of(eg):
  return {k: b.graph for k, b in extract_all(eg, Cost.nodes()).items()}


@given(graphs())
def test_on_one_graph_e_matching_is_upat_match(g):
  # no unions: each class holds one node, so a pattern matches a class iff it matches that node
  eg = EGraph()
  eg.add(g)
  reps = reps_of(eg)
  for u in g.toposort():
    cls = eg.add(u)
    for pat in PATTERNS:
      assert instances(eg, pat, cls, reps) == ([u] if pat.match(u, {}) else []), (pat.pretty(), u)


def test_a_match_through_a_merged_class():
  eg = EGraph()
  top = eg.add((p0 * 1) + 3)
  eg.union(eg.add(p0 * 1), eg.add(p0)); eg.rebuild()
  reps = reps_of(eg)
  pat = UPat(Ops.ADD, src=[UPat(Ops.PARAM, name="x"), c])   # needs the PARAM that p0 * 1 is equal to
  assert instances(eg, pat, top, reps) == [p0 + 3]


def test_a_var_stands_for_the_cheapest_graph_of_its_class():
  eg = EGraph()
  top = eg.add((p0 * 1 + 0) * p1)
  eg.union(eg.add(p0 * 1 + 0), eg.add(p0)); eg.rebuild()
  assert instances(eg, x * y, top, reps_of(eg)) == [p0 * p1]


def test_a_repeated_name_needs_one_class():
  eg = EGraph()
  a, b = eg.add(p0 + p1), eg.add(p0 + p0)
  reps = reps_of(eg)
  assert instances(eg, UPat(Ops.ADD, src=(x, x)), a, reps) == []
  assert instances(eg, UPat(Ops.ADD, src=(x, x)), b, reps) == [p0 + p0]
  eg.union(eg.add(p0), eg.add(p1)); eg.rebuild()
  assert instances(eg, UPat(Ops.ADD, src=(x, x)), a, reps_of(eg)) == [p0 + p0]


def test_rules_are_called_as_pattern_matcher_calls_them():
  calls = []
  def spy(**kw):
    calls.append(kw)
    return None
  def with_ctx(x, c, ctx):
    calls.append(ctx)
    return x
  u = p0 + 3
  pm = PatternMatcher([(UPat(ALU, name="x"), spy)])
  pm.rewrite(u)
  engine_calls, calls[:] = list(calls), []
  assert results(UPat(ALU, name="x"), spy, u) == [] and calls == engine_calls == [{"x": u}]
  calls.clear()
  assert results(x + c, with_ctx, u, ctx={"k": 1}) == [p0] and calls == [{"k": 1}]
  # every binding gives an equality: both orders of a list pattern
  assert results(UPat(Ops.ADD, src=[x, y]), lambda x, y: y + x, p0 + p1) == [p1 + p0]
  assert results(UPat(Ops.ADD, src=[x, y]), lambda x, y: x * 2, p0 + p1) == [p0 * 2, p1 * 2]
