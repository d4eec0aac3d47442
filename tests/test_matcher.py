"""PatternMatcher: priority, indexing by op, composition, the None escape hatch, rule names."""
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.helpers import param
from tests.strategies import graphs
from uopc import Ops, PatternMatcher, UOp, UPat, evaluate, symbolic
from uopc.matcher import rule_name

x = UPat.var("x")
p0 = param(0)


def test_first_rule_that_returns_a_new_node_wins():
  pm = PatternMatcher([(x + 0, lambda x: None), (x + 0, lambda x: x + 0), (x + 0, lambda x: x)])
  assert pm.rewrite(p0 + 0) is p0   # None: does not apply; the same node: no change
  assert pm.fire(p0 + 0)[0] is pm.rules[2]


def test_index_files_patterns_without_an_op_under_every_op():
  pm = PatternMatcher([(UPat(name="u"), lambda u: None), (x * 1, lambda x: x)])
  assert len(pm.by_op[Ops.CONST]) == 1 and len(pm.by_op[Ops.MUL]) == 2 and len(pm.by_op) == len(Ops)


def test_composition_and_length():
  a, b = PatternMatcher([(x + 0, lambda x: x)]), PatternMatcher([(x * 1, lambda x: x)])
  assert len(a + b) == 2 and (a + b).rules == a.rules + b.rules
  assert (a + b).rewrite(p0 * 1) is p0


def test_rule_names_say_where_and_what():
  names = [symbolic.name_of(r) for r in symbolic.rules]
  assert names[:4] == ["fold#0 x=alu", "symbolic#1 u={add,cmpne,max,mul}(const(c), y)", "symbolic#2 x + 0", "symbolic#3 x + 0.0"]
  assert len(set(names)) == len(names)
  assert symbolic.rules[2].location.startswith("symbolic.py:") and symbolic.rules[0].location.startswith("symbolic.py:")
  assert rule_name((x + 0, lambda x: x)) == "x + 0"


def test_rule_names_are_kept_by_sums_and_reorderings_and_default_to_the_module():
  a = PatternMatcher([(x + 0, lambda x: x), (x * 1, lambda x: x, "mul-1")])
  assert [r.name for r in a.rules] == ["test_matcher#0 x + 0", "mul-1"]
  b = PatternMatcher(a.rules[::-1], name="other")
  assert [r.name for r in b.rules] == ["mul-1", "test_matcher#0 x + 0"] and [r.name for r in (b + a).rules][2] == "test_matcher#0 x + 0"
  assert a.rules[1].location.startswith("test_matcher.py:")


def test_a_bare_pattern_rule_is_its_own_function_without_ctx_and_gives_the_same_rewrites():
  from uopc import graph_rewrite
  from uopc.ops import ALU
  from uopc.symbolic import _fold
  log = []
  def unchanged(x): log.append(("unchanged", x)); return x   # the node itself means "no change": the next rule runs
  def fold(x): log.append(("fold", x)); return _fold(x)
  def fold_kw(x, **_): log.append(("fold", x)); return _fold(x)   # takes more than x: not called directly
  prog = UOp.const(2) * UOp.const(3) + UOp.const(4)
  pm = PatternMatcher([(UPat(ALU, name="x"), unchanged), (UPat(ALU, name="x"), fold)])
  assert pm.plain_candidates(prog) == (unchanged, fold)
  assert graph_rewrite(prog, pm) is UOp.const(10)
  fast, log[:] = log[:], []

  class Watching(PatternMatcher):   # graph_rewrite's reference loop, with fn(x=u) calls
    def rewrite(self, u, ctx=None): return super().rewrite(u, ctx)
  assert graph_rewrite(prog, Watching(pm.rules)) is UOp.const(10) and log == fast
  assert [what for what, _ in fast] == ["unchanged", "fold"] * 2
  log.clear()
  kw = PatternMatcher([(UPat(ALU, name="x"), unchanged), (UPat(ALU, name="x"), fold_kw)])
  assert kw.plain_candidates(prog)[1] is not fold_kw and graph_rewrite(prog, kw) is UOp.const(10) and log == fast


def test_ctx_reaches_rules_through_the_fast_loop():
  from uopc import graph_rewrite
  seen = []
  def bump(x, ctx): seen.append(ctx); return x * 2 if ctx["left"] > 0 and not ctx.update(left=ctx["left"] - 1) else None
  pm = PatternMatcher([(UPat(Ops.PARAM, name="x"), bump)])
  ctx = {"left": 1}
  assert graph_rewrite(p0 + 1, pm, ctx=ctx) is p0 * 2 + 1 and seen == [ctx, ctx]


def test_candidate_tables_stay_bounded(monkeypatch):
  """Signatures of wide nodes are (op, width): any number of them in a long-lived process."""
  from uopc import matcher
  monkeypatch.setattr(matcher, "SIGNATURE_LIMIT", 8)
  pm = PatternMatcher([(UPat(Ops.STACK, name="s"), lambda s: None)])
  for n in range(5, 40): pm.candidates(UOp.stack(*range(n)))
  assert len(pm._candidates) <= 8
  assert len(pm.candidates(UOp.stack(*range(41)))) == 1   # still right after a drop


@given(graphs(max_ops=8), st.booleans())
@settings(max_examples=40)
def test_every_candidate_gives_every_binding_of_every_rule(g, compiled):
  # the explorer's view of a matcher: no rule that matches is dropped, each rule's bindings are UPat.match's, in order
  pm = PatternMatcher((symbolic + evaluate).rules, compiled=compiled)
  for u in g.toposort():
    want = [(i, b) for i, (p, _) in enumerate(pm.rules) for b in p.match(u, {})]
    got = [(i, b) for i, match, fn in pm.every_candidate(u) for b in match(u)]
    assert got == want
    assert all(fn is pm.rules[i][1] for i, _, fn in pm.every_candidate(u))


def test_every_candidate_keeps_a_rule_listed_twice_at_both_indices():
  pm = PatternMatcher([(x + 0, lambda x: x)])
  assert [i for i, _, _ in (pm + pm).every_candidate(p0 + 0)] == [0, 1]
