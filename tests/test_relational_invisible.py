"""Footprint-invisible steps (uopc/relational/space/invisible.py): the reduced search keeps every normal form."""
from hypothesis import given, settings

from tests.strategies import arith_programs
from uopc import PatternMatcher, UOp, UPat, symbolic
from uopc.relational.space.invisible import Invisible
from uopc.relational.space.stream import Exploration

x, y = UPat.var("x"), UPat.var("y")
c1, c2 = UPat.cvar("c1"), UPat.cvar("c2")
UNIT = PatternMatcher([(x + 0, lambda x: x), (x * 1, lambda x: x)], name="unit", reads="pattern")
# results that make new redexes above them, constants that patterns see, a reassociation, and a rule whose
# pattern sees a MUL below its root, so that x * 1 -> x below it decides between two normal forms
MIXED = PatternMatcher([(x + 0, lambda x: x), (x * 1, lambda x: x), (x * 0, lambda x: x.const_like(0)),
                        ((x + c1) + c2, lambda x, c1, c2: x + (c1.arg + c2.arg)), (x * 2, lambda x: (x + 0) + x),
                        ((x * c1) + c2, lambda x, c1, c2: x)], name="mixed", reads="pattern")


def _forms(g: UOp, pm: PatternMatcher, reduce: bool) -> tuple[set[UOp], int]:
  ex = Exploration(g, pm, reduce=reduce, max_states=20_000)
  ex.run()
  assert ex.complete
  return {s.graph for s in ex.normal_forms}, len(ex.states)


@settings(max_examples=60, deadline=None)
@given(arith_programs(max_ops=6, consts=(0, 1, 2, 3)))
def test_invisible_steps_keep_every_normal_form(g: UOp):
  for pm in (UNIT, MIXED):
    full, n_full = _forms(g, pm, False)
    reduced, n_reduced = _forms(g, pm, True)
    assert reduced == full and n_reduced <= n_full


def test_a_sum_of_nested_redexes_is_a_line():
  terms = [UOp.param(k) * 1 + 0 for k in range(6)]
  total = sum(terms[1:], terms[0])
  full, n_full = _forms(total, UNIT, False)
  reduced, n_reduced = _forms(total, UNIT, True)
  assert reduced == full == {sum((UOp.param(k) for k in range(1, 6)), UOp.param(0))}
  assert (n_full, n_reduced) == (4 ** 6, 13)


def test_a_step_a_pattern_sees_is_not_taken_alone():
  g = UOp.param(0) * 1 + 2   # x * 1 first: p0 + 2; (x * c1) + c2 first: p0
  assert _forms(g, MIXED, True)[0] == _forms(g, MIXED, False)[0] == {UOp.param(0), UOp.param(0) + 2}


def test_which_rule_sets_and_steps_qualify():
  assert Invisible(UNIT).on and Invisible(MIXED).on
  assert not Invisible(PatternMatcher([(x + 0, lambda x: x)])).on              # declares nothing: opaque
  assert not Invisible(PatternMatcher([(x + x, lambda x: x * 2)], reads="pattern")).on   # x twice: equality is read
  assert not Invisible(symbolic).on   # _div_sum is opaque, _fold and two more read their sources' heads, x + x
  mixed = Invisible(MIXED)
  p0 = UOp.param(0)
  assert [mixed.seen(u) for u in (p0 + 0, p0 * 1, UOp.const(0), UOp.const(5), p0)] == [True, True, True, True, False]
