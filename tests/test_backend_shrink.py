"""Shrinking counterexamples: uopc/backend/shrink.py, and check-rules' minimal counterexamples."""
import math

from hypothesis import given
from hypothesis import strategies as st

from uopc.backend.shrink import shrink, shrink_all, simpler_values, simplicity
from uopc.backend.soundness import check_rules
from uopc.dtype import dtypes, truncate
from uopc.matcher import PatternMatcher
from uopc.upat import UPat

I32 = st.integers(-2**31, 2**31 - 1)


@given(I32, I32)
def test_an_int_shrinks_to_the_edge_of_its_failing_range(edge, start):
  # fails on [edge, inf) (or (-inf, edge]): the simplest failing value is edge, or 0 if 0 fails
  lo, hi = (edge, 2**31) if start >= edge else (-2**31, edge)
  assert shrink({0: start}, lambda cands: [lo <= c[0] <= hi for c in cands]) == {0: 0 if lo <= 0 <= hi else edge}


@given(st.floats(allow_nan=True, allow_infinity=True) | I32 | st.booleans())
def test_simpler_values_are_simpler_distinct_and_of_the_same_type(v):
  cands = simpler_values(v)
  assert all(simplicity(c) < simplicity(v) and type(c) is type(v) for c in cands)
  assert len({repr(c) for c in cands}) == len(cands) and cands == sorted(cands, key=simplicity)


def test_every_scalar_of_every_input_shrinks_and_a_passing_input_stays():
  fails = lambda cands: [(i == 0 and c[0][1] >= 5 and c[1] is True) for i, c in cands]
  start = [{0: [123, 77, -9], 1: True}, {0: 3}]
  assert shrink_all(start, fails) == [{0: [0, 5, 0], 1: True}, {0: 3}]
  assert shrink({0: math.nan}, lambda cands: [True] * len(cands)) == {0: 0.0}


def test_check_rules_counterexamples_are_the_simplest_inputs():
  wrong = PatternMatcher([(UPat.var("x", dtype=dtypes.i32) + 1, lambda x: x),                  # wrong everywhere
                          ((UPat.var("x", dtype=dtypes.i32) * 4) < UPat.cvar("c"),
                           lambda x, c: x < c.arg // 4)])                                     # wrong where x * 4 wraps
  report = check_rules(wrong, samples=8, inputs=8, seed=1)
  add1, lt_mul = report.rules
  assert add1.verdict == "unsound" and all(v == 0 for v in add1.counterexample.inputs.values())
  cx = lt_mul.counterexample
  c, x = cx.before.src[1].arg, cx.inputs[0]
  def fails(v): return (truncate(dtypes.i32, 4 * v) < c) != (v < c // 4)
  assert lt_mul.verdict == "unsound" and fails(x) and not fails(x - (x > 0) + (x < 0)) and not fails(0)
