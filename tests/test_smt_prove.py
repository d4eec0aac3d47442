"""``uopc.smt.prove``: rules and rewrites proved for all inputs, or refuted with a counterexample that ``run()`` and the
compiled C backend both confirm, or "unknown" with the reason."""
from __future__ import annotations

import pytest

from uopc.backend.driver import Batch
from uopc.dtype import dtypes
from uopc.ops import Ops
from uopc.matcher import PatternMatcher
from uopc.smt.prove import Verdict, describe, prove_rewrite, prove_rule, prove_rules, rule_status
from uopc.symbolic import symbolic
from uopc.upat import UPat
from uopc.uop import UOp
from tests.backend_helpers import ACCEPTED, KNOWN_UNSOUND, same

RULES = {r.name: r for r in symbolic.rules}
x = UPat.var("x")


def prove(name: str, dtype=dtypes.i32, **kw) -> Verdict:
  return prove_rule(RULES[name][0], RULES[name][1], dtype, **kw)


def test_the_rules_check_rules_finds_unsound_are_refuted_and_c_confirms_each_counterexample():
  """check-rules' sampled findings (backend_helpers), each refuted for all inputs with an input both run() and C confirm."""
  verdicts = [prove(name) for name in KNOWN_UNSOUND] + [prove(name, dtypes.f32) for name in ACCEPTED]
  assert [v.status for v in verdicts] == ["refuted"] * len(verdicts), [describe(v) for v in verdicts]
  batch = Batch()
  queries = []
  for v in verdicts:
    assert v.lhs is not None and v.rhs is not None and v.counterexample is not None and v.replay is not None
    assert v.replay[0] != v.replay[1]
    queries += [(batch.add(v.lhs), v.counterexample), (batch.add(v.rhs), v.counterexample)]
  outs = batch.run(queries)
  for v, left, right in zip(verdicts, outs[::2], outs[1::2]): assert not same(left, right), describe(v)


def test_a_rule_set_is_proved_rule_by_rule_at_every_dtype_it_applies_to():
  pm = PatternMatcher([RULES[name] for name in ("add-0", "add-self", "lt-add-const", "assoc-add-const")])
  verdicts = prove_rules(pm)
  assert {name: sorted(d.name for d in by_dtype) for name, by_dtype in verdicts.items()} == {
    "add-0": ["bool", "f32", "i32"], "add-self": ["i32"], "lt-add-const": ["i32"], "assoc-add-const": ["i32"]}
  assert {name: rule_status(by_dtype) for name, by_dtype in verdicts.items()} == {
    "add-0": "refuted", "add-self": "proved", "lt-add-const": "refuted", "assoc-add-const": "unknown"}


def test_add_zero_on_f32_is_refuted_at_minus_zero():
  v = prove("add-0.0", dtypes.f32)
  assert (v.status, v.counterexample, v.replay) == ("refuted", {0: -0.0}, ("0.0", "-0.0"))


@pytest.mark.parametrize("name,dtype", [
  (name, d) for d, names in {
    dtypes.i32: ["add-0", "mul-1", "mul-0", "div-1", "mod-1", "max-self", "where-same", "where-nested-then", "where-nested-else",
                 "cast-same", "cmp-self", "add-self", "sub-self"],
    dtypes.f32: ["mul-1", "mul-1.0", "max-self", "where-same", "where-nested-else", "cast-same"],
    dtypes.bool: ["add-0", "mul-0", "max-self", "cmpne-false", "where-nested-then"]}.items() for name in names])
def test_the_rules_without_constant_holes_are_proved(name, dtype):
  assert prove(name, dtype).status == "proved"


def test_a_rule_with_constant_holes_is_unknown_until_constants_are_symbolic():
  v = prove("assoc-mul-const")
  assert v.status == "unknown" and "constants are not symbolic yet" in v.reason


def test_a_pattern_whose_leaves_cannot_have_the_dtype_is_inapplicable():
  assert [prove("add-self", d).status for d in (dtypes.bool, dtypes.i32, dtypes.f32)] == ["inapplicable", "proved", "inapplicable"]


def test_a_rule_that_fires_on_no_left_side_is_unknown_and_says_why():
  v = prove("bounds-const")
  assert v.status == "unknown" and "fired on no left side" in v.reason


def test_a_timeout_is_unknown_with_the_solvers_reason():
  v = prove_rewrite((UOp.param(0) // 3) // 3, UOp.param(0) // 9, timeout_ms=1)
  assert v.status == "unknown" and "the solver gave up" in v.reason


def test_a_wrong_rule_on_a_libm_op_is_refuted_by_its_replay():
  """exp2(x) -> x: the solver's candidate rests on exp2's uninterpreted value; run() confirms it (2**x > x)."""
  v = prove_rule(UPat(Ops.EXP2, src=(x,)), lambda x: x, dtypes.f32)
  assert v.status == "refuted" and v.replay is not None and v.replay[0] != v.replay[1]


def test_a_candidate_that_rests_on_a_libm_value_run_does_not_confirm_is_unknown():
  v = prove_rule(UPat(Ops.EXP2, src=(x,)) < 0.0, lambda x: UOp.const(False), dtypes.f32)
  assert v.status == "unknown" and "EXP2" in v.reason and v.replay == ("False", "False")


def test_a_rewrite_may_drop_a_trap_but_never_add_one():
  p0, p1 = UOp.param(0), UOp.param(1)
  assert prove_rewrite((p0 // p1) * 0, UOp.const(0)).status == "proved"
  v = prove_rewrite(p0, (p0 // p1) * 0 + p0)
  assert v.status == "refuted" and v.counterexample is not None
  assert v.counterexample[1] == 0 or (v.counterexample[0], v.counterexample[1]) == (-2**31, -1)   # where p0 // p1 traps
  c = Batch()
  left, right = c.run([(c.add(p0), v.counterexample), (c.add((p0 // p1) * 0 + p0), v.counterexample)])
  assert left.ok and not right.ok   # run() folds (p0 // 0) * 0 to 0 (mul-0), so only C shows the trap


def test_shaped_rewrites_are_proved_or_refuted_per_element():
  a = UOp.param(0, dtypes.f32, (2, 3))
  assert prove_rewrite(a.permute((1, 0)).permute((1, 0)), a).status == "proved"
  col = [a.shrink(((0, 2), (k, k + 1))).reshape((2,)) for k in range(3)]
  assert prove_rewrite(a.reduce(Ops.ADD, 1), (col[0] + col[1]) + col[2]).status == "proved"   # REDUCE folds left to right
  b = UOp.param(0, dtypes.i32, (2, 3))   # (an f32 reassociation is refuted too, but in a time that varies with the solver's luck)
  v = prove_rewrite(b.reduce(Ops.ADD, 1), b.shrink(((0, 2), (0, 1))).reshape((2,)) + b.shrink(((0, 2), (1, 2))).reshape((2,)))
  assert v.status == "refuted" and v.replay is not None and v.replay[0] != v.replay[1]   # the last column is left out
  values = v.counterexample[0] if v.counterexample else []
  assert len(values) == 2 and all(len(row) == 3 and all(type(e) is int for e in row) for row in values)
  assert any(row[2] != 0 for row in values)
