"""The polynomial interpretation (``uopc.termination.interpretation``) and the proof of ``evaluate`` it completes."""
from __future__ import annotations

import random

from hypothesis import given, settings, strategies as st

from uopc import PatternMatcher, UOp, UPat
from uopc.ops import Ops
from uopc.relational.space.explore import explore
from uopc.rulesets import NAMED
from uopc.termination import find_measure
from uopc.termination.instances import rule_instances
from uopc.termination.interpretation import Interpretation, compare, find_interpretation, interpret, literal_value, polynomial
from uopc.termination.polynomial import Polynomial, above, at_least

from tests.strategies import graphs

EVALUATE = NAMED["evaluate"]
LOWERED = ("eval-movement", "index-stack", "alu-stack", "inline-call")   # the interpretation lowers these; keeps the INDEX rules
_MEASURE = find_measure(EVALUATE)
_INSTANCES = {EVALUATE.name_of(r): rule_instances(r[0], r[1], EVALUATE.name_of(r)).instances for r in EVALUATE.rules}


def test_evaluate_is_proved_by_the_interpretation_then_weights():
  # before: a path order oriented 5 of the 6 rules, and no component alu-stack (it copies x once a row, with f on top)
  t = _MEASURE
  assert t.proved and t.unoriented == [], t.rules
  first = t.measure.stages[0]
  assert isinstance(first, Interpretation) and first.removes == LOWERED
  verdicts = {r.name: ("interpretation 1" if r.name in LOWERED else "weights 2") for r in t.rules}
  assert {r.name: r.by for r in t.rules} == verdicts
  search = find_measure(EVALUATE, use_z3=False)   # no solver needed
  assert search.proved and {r.name: r.by for r in search.rules} == verdicts


def test_each_rule_of_evaluate_decreases_on_each_of_its_instances():
  for name, instances in _INSTANCES.items():
    assert instances, name
    want = 1 if name in LOWERED else 0   # index-empty, index-index: x*i*j on both sides, and the weights decide
    assert {compare(i.lhs, i.rhs) for i in instances} == {want}, name
    assert all(_MEASURE.measure.decreases(i.lhs, i.rhs) for i in instances), name


def test_alu_stack_with_every_kind_of_stack_source():
  a, b, c, d = (UOp.param(k) for k in range(4))
  x = UOp.param(4, shape=(2,))
  for lhs in (UOp.stack(a, b) + x, x + UOp.stack(a, b), UOp.stack(a, b) * UOp.stack(c, d), UOp.stack(a, b) < x,
              (UOp.stack(a, b) < x).where(x, UOp.stack(c, d))):
    rhs = EVALUATE.rewrite(lhs)
    assert rhs is not None and rhs.op is Ops.STACK and compare(lhs, rhs) == 1, lhs
  # 2(A + 1)X against 2AX + 1, A the rows' sum: above by 2X - 1, that is 2y + 1 over X = y + 1
  assert str(polynomial(UOp.stack(a, b) + x) - polynomial(EVALUATE.rewrite(UOp.stack(a, b) + x))) == "2*p4<i32x2> + 1"


def test_rules_that_loop_are_not_lowered():
  a, b = UOp.param(0, shape=(2,)), UOp.param(1, shape=(2,))
  wrap = UOp.stack(a)
  assert compare(a, wrap) == -1 and compare(wrap, UOp.stack(wrap)) == -1   # x -> STACK(x): above, not below
  assert compare(a + b, b + a) == 0                                       # a swap: the same value, not lower
  assert find_interpretation({"wrap": [(a, wrap)], "index-stack": [(wrap.index(0), a)]}) is None   # a rule raised: no stage
  assert find_interpretation({"swap": [(a + b, b + a)]}) is None                                   # kept, none lowered: no stage
  x = UPat.var("x")
  swap = PatternMatcher([(UPat(Ops.ADD, src=(UPat(Ops.STACK, name="s"), x)), lambda s, x: x + s, "swap-stack")], name="swap-stack")
  t = find_measure(EVALUATE + swap, use_z3=False)
  assert t.unoriented == ["swap-stack"] and not t.proved, t.rules   # the others still are


def test_absolute_positiveness():
  x = Polynomial.variable("x") + 1
  assert above(2 * x * x, x) and not above(x, x) and at_least(x, x)
  assert not at_least(x * x, 2 * x)     # false at x = 1: 1 < 2
  assert not above(x * x, x + 1)        # true for x >= 2, false at x = 1
  assert literal_value((2, 3)) == 9 and interpret(UOp.stack(UOp.stack(1, 2, 3), UOp.stack(4, 5, 6)), lambda p: 1) == 9


@settings(max_examples=40, deadline=None)
@given(graphs(max_ops=6), st.randoms(use_true_random=False))
def test_a_step_of_evaluate_lowers_the_value_of_a_ground_term(prog, rng):
  # every PARAM valued at random (>= 1): the term is ground; each step, in any context, at every use of its node
  values: dict[int, int] = {}

  def value(u: UOp) -> int:
    return interpret(u, lambda p: values.setdefault(p.arg.slot, rng.randint(1, 9)))
  for e in explore(prog, EVALUATE, max_states=60).run().edges:
    if e.target.error is not None: continue
    before, after = value(e.source.graph), value(e.target.graph)
    assert after < before if e.rule in LOWERED else after <= before, (e.rule, e.source.graph, e.target.graph)


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(sorted(_INSTANCES)), st.randoms(use_true_random=False))
def test_a_rule_instance_lowers_the_value_at_every_point(name, rng: random.Random):
  # what compare() decides for all values, checked at random ones: the polynomials and the numbers agree
  for i in _INSTANCES[name]:
    point: dict[UOp, int] = {}
    def at_point(p: UOp, point: dict[UOp, int] = point) -> int: return point.setdefault(p, rng.randint(1, 50))
    lhs, rhs = interpret(i.lhs, at_point), interpret(i.rhs, at_point)
    assert rhs < lhs if name in LOWERED else rhs <= lhs, (name, i.lhs, point)


def test_check_rules_terminates_evaluate_prints_the_interpretation(capsys):
  import json
  from uopc.cli.main import main
  assert main(["check-rules", "--terminates", "evaluate"]) == 0
  out = capsys.readouterr().out
  assert "1. interpretation (polynomials over values >= 1" in out and "lowers 4 rule(s): eval-movement, index-stack, alu-stack, inline-call" in out
  assert "oriented: 6 of 6 rules" in out and "verdict: terminates" in out
  assert main(["check-rules", "--terminates", "evaluate", "--format", "json"]) == 0
  first = json.loads(capsys.readouterr().out)["measure"]["components"][0]
  assert first["kind"] == "interpretation" and first["lowers"] == list(LOWERED) and "CALL(b, a1..an)" in first["definition"]


def test_no_recursion_on_20000_nested_calls():
  p0 = UOp.param(0)
  u = p0
  for _ in range(20_000): u = u.call(p0)   # each CALL's body is the one before: 20,000 scopes deep
  assert interpret(u, lambda p: 1) == 1 + 2 * 20_000   # each CALL adds its argument (1) and 1 to its body's value
  assert str(polynomial(u)) == "20001*p0 + 40001"       # p0 = y + 1: 20001*(y + 1) + 20000
