"""Critical pairs: overlaps by unification, instances, joinability, and the classification of every pair."""
import importlib.util
import pathlib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from uopc import Ops, PatternMatcher, UOp, UPat, dtypes, symbolic
from uopc.relational.analyses.pair_instances import EDGE_CONSTANTS, Instances, renumber, renumbering
from uopc.relational.analyses.joinable import join, normalize
from uopc.relational.analyses.overlaps import Domain, forms_of, overlaps, pattern_text
from uopc.relational.analyses.pairs import critical_pairs
from uopc.rulesets import resolve_rules
from uopc.term import show

ROOT = pathlib.Path(__file__).resolve().parents[1]
x, y = UPat.var("x"), UPat.var("y")
p0, p1 = UOp.param(0), UOp.param(1)

# the book's example: mul(x, 0) -> 0 and distribution overlap on mul(add(a, b), 0), and join
MUL0 = (UPat(Ops.MUL, src=[UPat.var("x", dtype=dtypes.i32), UPat(Ops.CONST, arg=0)]), lambda x: x.const_like(0))
DIST = (UPat(Ops.MUL, src=(UPat(Ops.ADD, src=(x, y)), UPat.cvar("c"))), lambda x, y, c: x * c + y * c)
FOLD = symbolic.rules[0]


def load_example_rules() -> PatternMatcher:
  spec = importlib.util.spec_from_file_location("example_my_rules", ROOT / "examples" / "my_rules.py")
  mod = importlib.util.module_from_spec(spec)
  spec.loader.exec_module(mod)
  return mod.rules


def rule_named(pm: PatternMatcher, name: str) -> int:
  """The index of the rule named ``name``."""
  hits = [i for i, r in enumerate(pm.rules) if pm.name_of(r) == name]
  assert len(hits) == 1, (name, hits)
  return hits[0]


def pair(report, pm, a: str, b: str, position=()):
  ia, ib = rule_named(pm, a), rule_named(pm, b)
  hits = [p for p in report.pairs if p.rule_indices == (ia, ib) and p.position == position]
  assert len(hits) == 1, [(p.short_rules, p.position) for p in report.pairs if ia in p.rule_indices]
  return hits[0]


@pytest.fixture(scope="module")
def symbolic_report():
  return critical_pairs(symbolic)


@pytest.fixture(scope="module")
def example():
  pm = load_example_rules()
  return pm, critical_pairs(pm)


# ---- overlaps

def test_forms_follow_list_sources_op_sets_and_any_len():
  assert [pattern_text(f.term) for f in forms_of(x + 0)] == ["add(~x, ~_)", "add(~_, ~x)"]
  canon = symbolic.rules[1][0]   # {add,mul,max,cmpne}(const c, y)
  assert sorted(pattern_text(f.term) for f in forms_of(canon)) == ["add(~c, ~y)", "cmpne(~c, ~y)", "max(~c, ~y)", "mul(~c, ~y)"]
  idx = UPat(Ops.INDEX, src=(UPat(Ops.STACK, name="s"), UPat.cvar("i")), allow_any_len=True)
  assert [len(f.term._tuple) - 1 for f in forms_of(idx)] == [2, 3, 4]   # the prefix, plus 0, 1 or 2 more sources
  # leaves with an op constraint are non-variable positions; plain variables are not
  assert [p.path for p in forms_of(idx)[0].positions] == [(), (0,), (1,)]
  assert [p.path for p in forms_of(x + y)[0].positions] == [()]


def test_forms_are_renamed_apart():
  a, b = forms_of(x + 0)[0], forms_of(x + 0)[0]
  assert not set(a.domains) & set(b.domains)


def test_the_books_overlap_is_found_at_the_root():
  pm = PatternMatcher([MUL0, DIST])
  found = {(o.outer, o.inner, o.path): o for o in overlaps(pm)}
  assert (1, 0, ()) in found
  o = found[(1, 0, ())]
  assert pattern_text(o.term) == "mul(add(~x, ~y), ~c)"
  const = o.term._tuple[2]
  assert o.domains[const] == Domain(ops=frozenset([Ops.CONST]), args=(0,))


def test_domains_keep_incompatible_patterns_apart():
  ones = (UPat(Ops.MUL, src=[x, UPat(Ops.CONST, arg=1)]), lambda x: x)
  # arg 0 and arg 1 are never the same constant: the only overlaps put the 1 on x and the 0 on x'
  cross = [o for o in overlaps(PatternMatcher([MUL0, ones])) if o.outer != o.inner]
  assert cross and all(sorted(d.args for d in o.domains.values() if d.args) == [(0,), (1,)] for o in cross)
  where = (UPat(Ops.WHERE, name="w"), lambda w: None)
  assert not [o for o in overlaps(PatternMatcher([MUL0, where])) if o.outer != o.inner]   # op sets do not meet
  # x:i32 * 0 and x:f32 * 0.0 unify only crosswise, as mul(0:i32, 0.0:f32): no well-typed instance, so no pair
  f32_only = (UPat(Ops.MUL, src=[UPat.var("x", dtype=dtypes.f32), UPat(Ops.CONST, arg=0.0)]), lambda x: x.const_like(0.0))
  report = critical_pairs(PatternMatcher([MUL0, f32_only]))
  assert not [p for p in report.pairs if p.rule_indices == (0, 1)] and report.untyped >= 1


def test_nonlinear_patterns_do_not_unify_cyclically():
  same = (UPat(Ops.ADD, src=(x, x)), lambda x: x * 2)
  nested = (UPat(Ops.ADD, src=(y, UPat(Ops.ADD, src=(y, UPat.cvar("c"))))), lambda y, c: None)
  found = {o.path: pattern_text(o.term) for o in overlaps(PatternMatcher([same, nested])) if (o.outer, o.inner) == (1, 0)}
  # at the root, add(x, x) = add(y, add(y, c)) needs y = add(y, c): refused (no occurs check in unification itself)
  # at position 1, add(x, x) = add(y, c) makes y and c one constant
  assert found == {(1,): "add(~c, add(~c, ~c))"}


def test_constants_are_told_apart_bit_for_bit():
  zero = (UPat(Ops.MUL, src=(x, UPat(Ops.CONST, arg=0.0))), lambda x: None)
  one = (UPat(Ops.MUL, src=(x, UPat(Ops.CONST, arg=1.0))), lambda x: None)
  for rule, want in ((zero, 0.0), (one, 1.0), (zero, 0.0)):   # the candidates of one must not leak into the other
    f = forms_of(rule[0])[0]
    for u in Instances(f.term, f.domains, max_instances=32):
      assert u.src[1].arg == want


@given(st.data())
def test_every_instance_is_matched_by_both_patterns(data):
  """Soundness of unification with domains: the outer pattern matches the instance, the inner one its subterm."""
  o = data.draw(st.sampled_from(SYMBOLIC_OVERLAPS))
  insts = list(Instances(o.term, o.domains, max_instances=8))
  for u in insts:
    assert symbolic.rules[o.outer][0].match(u, {}), (show(u), pattern_text(o.term))
    node = u
    for k in o.actual: node = node.src[k]
    assert symbolic.rules[o.inner][0].match(node, {}), (show(node), show(u))


SYMBOLIC_OVERLAPS = list(overlaps(symbolic))


# ---- instances

def test_instances_use_fresh_params_and_edge_constants_filtered_by_dtype():
  o = next(o for o in SYMBOLIC_OVERLAPS if (o.outer, o.inner, o.path) == (rule_named(symbolic, "add-0.0"), 0, ()))
  gen = Instances(o.term, o.domains, max_instances=64)
  insts = [renumber(u, renumbering(u)) for u in gen]
  assert len(insts) == gen.tried <= 64 and gen.ill_typed > 0
  texts = [show(u) for u in insts]
  assert "add(-0.0, 0.0)" in texts and "add(p0, 0.0)" in texts and "add(p0, 0)" in texts
  for u in insts:
    c = u.src[1] if u.src[1].op is Ops.CONST else u.src[0]
    assert c.arg == 0.0 and c.dtype is u.dtype          # the pattern's 0.0 is matched with ==: 0, 0.0, -0.0, False
    for s in u.src:
      if s.op is Ops.CONST: assert any(type(v) is type(s.arg) and (v == s.arg or v != v) for v in EDGE_CONSTANTS[s.dtype])


def test_instances_are_bounded_and_distinct():
  o = next(o for o in SYMBOLIC_OVERLAPS if len(o.domains) >= 3)
  insts = list(Instances(o.term, o.domains, max_instances=5))
  assert len(insts) == len(set(insts)) == 5


# ---- joinability

def test_join_same_normal_form_and_meet():
  assert join(symbolic, p0 * 1, p0 + 0).how == "same normal form"
  # a rule set whose canonical engine loops, but whose results meet
  pm = PatternMatcher([(x + 0, lambda x: x), (UPat(Ops.MUL, src=(x, UPat(Ops.CONST, arg=2))), lambda x: (x * 2) + 0)])
  assert normalize(pm, p0 * 2, max_steps=100) is None
  j = join(pm, p0 * 2 + 0, p0 * 2)
  assert j.status == "joinable" and j.meet is p0 * 2 and j.steps == (1, 0) and j.how == "meet at mul(p0, 2) after 1/0 steps"


def test_join_where_the_canonical_engine_loops_reports_the_explored_normal_form():
  # const 1 -> 2 -> 1 loops in the canonical engine; the explorer also finds 1 -> 3, normal
  c = UOp.const
  pm = PatternMatcher([(UPat(Ops.CONST, arg=1), lambda: c(2)), (UPat(Ops.CONST, arg=2), lambda: c(1)),
                       (UPat(Ops.CONST, arg=1), lambda: c(3))])
  assert normalize(pm, c(1), max_steps=100) is None
  j = join(pm, c(1), c(4), max_steps=100)
  assert j.status == "not-joinable" and j.normal_forms == (c(3), c(4))   # graphs, not the explorer's states


def test_join_reports_undecided_when_a_bound_stops_it():
  grow = PatternMatcher([(UPat(Ops.MUL, src=(x, UPat(Ops.CONST, arg=2)), name="m"), lambda x, m: m * 1),
                         (UPat(Ops.MUL, src=(x, UPat(Ops.CONST, arg=3))), lambda x: x + x + x)])
  j = join(grow, p0 * 2 * 1, p0 * 3, max_states=50, timeout=5)
  assert j.status == "undecided" and "max_states" in j.how


# ---- the classification of pairs

def test_symbolic_minus_zero_pair_is_not_joinable(symbolic_report):
  p = pair(symbolic_report, symbolic, "fold-const", "add-0.0")
  assert p.status == "not-joinable" and p.position == ()
  assert p.witness is UOp.const(-0.0) + UOp.const(0.0)
  assert p.results[0] is UOp.const(0.0) and p.results[1] is UOp.const(-0.0)   # bit-exact: 0.0 by fold, -0.0 by x + 0.0
  assert p.how == "no common reduct"
  # UPat compares args with ==, so x + 0 fires on -0.0 + 0.0 as well
  q = pair(symbolic_report, symbolic, "fold-const", "add-0")
  assert q.status == "not-joinable" and q.witness is p.witness


def test_symbolic_books_pair_is_joinable(symbolic_report):
  p = pair(symbolic_report, symbolic, "mul-0", "distribute-sum")
  assert p.status == "joinable" and p.how == "same normal form" and p.applied > 0


def test_symbolic_report_is_ordered_and_counted(symbolic_report):
  r = symbolic_report
  ranks = ["not-joinable", "error", "undecided", "joinable"]
  assert [ranks.index(p.status) for p in r.pairs] == sorted(ranks.index(p.status) for p in r.pairs)
  assert r.count("not-joinable") + r.count("joinable") + r.count("error") + r.count("undecided") == len(r.pairs)
  assert r.count("error") == 0 and r.count("undecided") == 0 and not r.timed_out
  assert r.rules == len(symbolic.rules) and r.instances >= len(r.pairs)
  line = r.summary("symbolic")
  assert line.startswith(f"symbolic: {len(symbolic.rules)} rules, {len(r.pairs)} overlaps, {r.instances} instances tried")
  assert f"{r.count('not-joinable')} not joinable, 0 errors, 0 undecided" in line
  for p in r.pairs:
    if p.status == "not-joinable":
      assert p.witness is not None and None not in p.results and p.results[0] is not p.results[1]


def test_example_rule_set(example):
  pm, report = example
  bad = pair(report, pm, "fold", "mul-0.0")
  assert bad.status == "not-joinable" and show(bad.witness) == "mul(-0.0, 0.0)"
  assert [show(r) for r in bad.results] == ["-0.0", "0.0"]
  fork = pair(report, pm, "distribute", "mul-2")
  assert fork.status == "not-joinable" and show(fork.witness) == "mul(add(p0, p1), 2)"
  assert [show(n) for n in fork.normal_forms] == ["add(add(p0, p0), add(p1, p1))", "let a = add(p0, p1) in add(a, a)"]
  good = pair(report, pm, "mul-0", "distribute")
  assert good.status == "joinable" and good.how == "same normal form"
  inner = pair(report, pm, "distribute", "fold", (0,))
  assert inner.status == "joinable"
  assert report.count("not-joinable") == 4 and report.count("error") == 0


def test_a_rule_that_raises_is_an_error_pair():
  def boom(x, c):
    if c.arg == 1: raise ZeroDivisionError("boom")
    return None
  pm = PatternMatcher([(x * 1, lambda x: x), (UPat(Ops.MUL, src=(x, UPat.cvar("c"))), boom)])
  report = critical_pairs(pm)
  p = next(p for p in report.pairs if p.rule_indices == (0, 1))
  assert p.status == "error" and p.error == "ZeroDivisionError: boom" and p.error_rule == pm.name_of(pm.rules[1])
  assert p.witness is not None and p.witness.src[1].arg == 1


def test_the_overlap_of_an_op_set_pattern_is_the_form_its_witness_instantiates():
  # both rules match add and mul; they join on add(x, 0) (both give x) and not on mul(x, 0): the overlap shown is mul's
  zero = UPat(Ops.CONST, arg=0)
  pm = PatternMatcher([(UPat((Ops.ADD, Ops.MUL), src=(x, zero)), lambda x: x),
                       (UPat((Ops.ADD, Ops.MUL), src=(x, zero), name="e"), lambda e, x: x if e.op is Ops.ADD else x.const_like(0))])
  p = next(p for p in critical_pairs(pm).pairs if p.rule_indices == (0, 1))
  assert (p.status, p.overlap, p.witness.op, [show(r) for r in p.results]) == ("not-joinable", "mul(~x, ~_)", Ops.MUL, ["p0", "False"])


def test_pairs_undecided_by_bounds_and_timeout():
  grow = PatternMatcher([(UPat(Ops.MUL, src=(x, UPat(Ops.CONST, arg=2)), name="m"), lambda x, m: m * 1),
                         (UPat(Ops.MUL, src=[x, UPat(Ops.CONST, arg=2)]), lambda x: x + x)])
  r = critical_pairs(grow, max_states=30, max_steps=200, max_instances=4)
  assert r.count("undecided") >= 1 and r.count("not-joinable") == 0
  r = critical_pairs(grow, timeout=1e-9)
  assert r.timed_out and all(p.status == "undecided" for p in r.pairs)


def test_symbolic_plus_evaluate_has_no_error_pairs():
  # an out-of-bounds index into a STACK stays unreduced, like 7 // 0 (docs/guide.md), so no rule raises
  pm = resolve_rules("symbolic+evaluate")
  report = critical_pairs(pm, max_instances=16)
  assert report.count("error") == 0 and report.count("joinable") > 0
  assert any(p.rules == ("fold-const", "add-0.0") and p.status == "not-joinable" for p in report.pairs)


def _raises(x):
  raise ValueError("no")


def test_join_when_the_canonical_engine_fails_on_one_side():
  """The fallback normal form was once a State, and `explore pairs` died on `'State' object has no attribute 'op'`."""
  pm = PatternMatcher([(x + 0, _raises), (x + 0, lambda x: x)])   # the engine fires the raising rule first; the explorer goes on
  assert normalize(pm, p0 + 0) is None
  j = join(pm, p0 + 0, p1)
  assert (j.status, j.normal_forms) == ("not-joinable", (p0, p1))
  report = critical_pairs(pm)
  assert all(isinstance(h, UOp) for r in report.pairs for h in r.normal_forms if h is not None)
