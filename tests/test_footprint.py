"""Footprints (uopc/footprint.py, uopc/footprint_check.py): every built-in rule's declaration holds on random
programs, and a declaration that claims too little is caught."""
import pytest
from hypothesis import given, settings

from tests.strategies import arith_programs, graphs
from uopc import PatternMatcher, UOp, UPat, evaluate, fold, symbolic
from uopc.footprint import FOOTPRINTS, reads
from uopc.footprint_check import footprint_problem

BUILT_IN = {"fold": fold, "symbolic": symbolic, "evaluate": evaluate}
x = UPat.var("x")
p0, p1 = UOp.param(0), UOp.param(1)


def _problems(g: UOp) -> list[str]:
  return [p for u in g.toposort() for pm in BUILT_IN.values() for rule in pm.rules if (p := footprint_problem(rule, u))]


@settings(max_examples=150, deadline=None)
@given(arith_programs(max_ops=6, consts=(0, 1, 2, 3, -1, 4, 8)))
def test_built_in_declarations_hold_on_sums_and_products(g: UOp):
  assert _problems(g) == []


@settings(max_examples=150, deadline=None)
@given(graphs(max_ops=8))
def test_built_in_declarations_hold_on_random_graphs(g: UOp):
  assert _problems(g) == []


def test_built_in_rule_sets_declare_a_footprint_per_rule():
  # what each set reads, in rule order: p pattern, b bounds, s sources (its sources' heads), o opaque
  said = {name: "".join(r.footprint[0] for r in pm.rules) for name, pm in BUILT_IN.items()}
  assert said == {"fold": "s", "symbolic": "ss" + "p" * 21 + "s" + "p" * 5 + "oobbpppp" + "b", "evaluate": "opppoo"}


def _rule(fn, pat=x + 0, kind="pattern"):
  """A rule of ``fn`` declared ``kind`` (through a wrapper: a function's own declaration would win)."""
  def declared(**kw): return fn(**kw)
  return PatternMatcher([(pat, declared)], name="t", reads=kind).rules[0]


def test_reading_the_structure_of_a_variable_is_caught():
  assert footprint_problem(_rule(lambda x: x * 2), (p0 * 3) + 0) is None
  assert "reads more" in footprint_problem(_rule(lambda x: x.src[0] if x.src else None), (p0 * 3) + 0)
  reads_op = _rule(lambda x: x if x.op is UOp.param(0).op else None)
  assert "reads more" in footprint_problem(reads_op, (p1 * 2) + 0)
  assert footprint_problem(reads_op, p1 + 0) is None   # a stand-in is a PARAM: where the binding is one, nothing differs


def test_misdeclared_built_in_functions_are_caught():
  canonical, const_bounds, fold_rule = symbolic.rules[1], symbolic.rules[-1], fold.rules[0]
  # the canonical-order rule reads y's op ("sources"): declared "pattern", it is caught where y is a constant
  assert footprint_problem(canonical, UOp.const(1) + UOp.const(2)) is None
  assert "reads more" in footprint_problem(_rule(canonical[1], canonical[0]), UOp.const(1) + UOp.const(2))
  # folding reads its sources' heads: as "pattern" it sees stand-ins, not constants
  folded = UOp.const(1) + UOp.const(2)
  assert footprint_problem(fold_rule, folded) is None
  assert "reads more" in footprint_problem(_rule(fold_rule[1], fold_rule[0]), folded)
  # bounds are read where declared; declared "pattern", the recorder sees the call
  assert footprint_problem(const_bounds, (p0 % 4) // 8) is None
  assert "calls bounds" in footprint_problem(_rule(const_bounds[1], const_bounds[0]), (p0 % 4) // 8)
  # _div_sum walks the sum: declared "pattern", its stand-in sum has no terms to divide
  div_sum = symbolic.rules[29]
  assert div_sum.footprint == "opaque" and "reads more" in footprint_problem(_rule(div_sum[1], div_sum[0]), (p0 * 4 + p1) // 4)


def test_a_bounds_rule_must_not_read_more_than_bounds():
  narrow = (p0 % 4) + 1
  assert footprint_problem(_rule(lambda x: x.const_like(0) if x.src and x.src[0].op is narrow.src[0].op else None, kind="bounds"),
                           narrow + 0) is not None


def test_declarations_are_validated_and_survive_sums():
  with pytest.raises(ValueError, match="unknown footprint"): reads("everything")
  with pytest.raises(ValueError, match="reads="): PatternMatcher([], reads="nothing")
  assert FOOTPRINTS == ("pattern", "bounds", "sources", "opaque")
  both = symbolic + evaluate
  assert [r.footprint for r in both.rules] == [r.footprint for r in symbolic.rules + evaluate.rules]
  assert PatternMatcher([(x + 0, lambda x: x)]).rules[0].footprint == "opaque"   # a user rule says nothing: opaque


def test_a_bounds_stand_in_keeps_a_float_constant_s_bounds():
  # bounds(cmplt(0.0, 0.0)) is (False, False) from the float sources' bounds: a stand-in without them would say (False, True)
  const_bounds = symbolic.rules[-1]
  zero = UOp.const(0.0)
  assert footprint_problem(const_bounds, zero < zero) is None
  assert footprint_problem(const_bounds, zero < UOp.const(1.0)) is None
