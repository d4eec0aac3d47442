"""``uopc.smt.classify``: a fork's or critical pair's two results are semantic (an input, confirmed by run()), syntactic
(proved), no-difference-found (searched, not proved) or unknown, and every report says which, in words."""
from __future__ import annotations

import math
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from uopc import UOp, dtypes, symbolic
from uopc.ops import Ops
from uopc.relational.analyses.pairs import critical_pairs
from uopc.rewrite import graph_rewrite
from uopc.smt import classify as classify_module
from uopc.smt.classify import KINDS, SEARCH_EDGES, basis_text, classify, differ, edge_bindings, outcome

p0, p1 = UOp.param(0), UOp.param(1)
f0 = UOp.param(0, dtypes.f32)


def _differ_in_values(a: UOp, b: UOp, binding: dict[int, Any]) -> bool:
  """Both sides have a value in run() at ``binding``, and the two differ (bit for bit)."""
  from uopc.dtype import same_value
  x, y = outcome(a, binding), outcome(b, binding)
  return x.status == y.status == "value" and not same_value(x.value, y.value)


def _replays_different(a: UOp, b: UOp, binding: dict[int, Any]) -> bool:
  """run() confirms a difference at ``binding``: different values, or a trap on one side only."""
  return bool(differ(outcome(a, binding), outcome(b, binding)))


# ---- the four kinds

def test_proved_equal_is_syntactic_and_a_difference_comes_with_an_input_run_confirms():
  assert classify(p0 + p0, p0 * 2) == ("syntactic", "equal for all inputs (proved by z3)", None)
  v = classify(p0 * 2 // 2, p0)   # wraps: 2**30 * 2 is negative in i32
  assert v.kind == "semantic" and v.detail.startswith("different values at p0=") and _replays_different(p0 * 2 // 2, p0, v.binding)
  v = classify(f0 + 0.0, f0)
  assert (v.kind, v.binding) == ("semantic", {0: -0.0}) and v.detail == "different values at p0=-0.0: 0.0 vs -0.0"


def test_a_trap_on_one_side_only_is_a_difference_and_on_both_sides_is_alike():
  assert classify(UOp.const(1) // 0, UOp.const(1)).detail == "different values: trap (division by zero: 1 // 0) vs 1"
  v = classify(p0 // p1, p0 // p1.max(1))
  assert v.kind == "semantic" and _replays_different(p0 // p1, p0 // p1.max(1), v.binding)
  assert classify(p0 // 0, p0 // 0 + 0).kind == "syntactic"
  # C traps on (p0 // p1) * 0 at p1 = 0, run() folds it to 0 first: z3's input is not confirmed, nothing is claimed
  assert classify(p0 // p1 * 0, UOp.const(0) * p1).kind == "no-difference-found"


def test_a_closed_program_is_evaluated_exactly():
  assert classify(UOp.const(7) // 2, UOp.const(3)).kind == "syntactic"
  assert classify(UOp.const(0.0), UOp.const(-0.0)) == ("semantic", "different values: 0.0 vs -0.0", {})


def test_when_z3_gives_up_the_witness_search_says_what_it_tried_and_that_nothing_is_proved():
  # the solver's limit is a count of its steps, not a time: the same verdict on any machine
  v = classify(p0 * p1 * p1, p1 * p0 * p1, rlimit=1)
  assert v.kind == "no-difference-found" and v.detail.startswith("no difference found on ") and "not proved: z3 gave up" in v.detail
  v = classify(p0 * 3, p0 * 3 + (p1 < 40).cast(dtypes.i32), rlimit=1)   # the edge value 40 (and the search's others) find it
  assert v.kind == "semantic" and _replays_different(p0 * 3, p0 * 3 + (p1 < 40).cast(dtypes.i32), v.binding)


def test_without_z3_the_search_only_and_the_basis_says_so_once(monkeypatch):
  monkeypatch.setattr(classify_module, "available", lambda: False)
  v = classify(p0 + p0, p0 * 2)
  assert v.kind == "no-difference-found" and v.detail.endswith("(not proved: z3 is not installed)")
  assert "nothing is proved" in basis_text([p0], 8) and "pip install" in basis_text([p0], 8)
  assert classify(f0 * 0.0, f0 * -0.0).kind == "semantic"   # the edge values find the sign of zero


def test_without_z3_explore_pairs_says_once_that_nothing_is_proved(monkeypatch, capsys):
  import io
  from uopc.cli.commands.pairs import write_text
  from uopc.matcher import PatternMatcher
  from uopc.upat import UPat
  x = UPat.var("x")
  rules = PatternMatcher([(x * 2, lambda x: x + x, "mul-2"), ((x + x) * 2, lambda x: x * 4, "quad")])
  monkeypatch.setattr(classify_module, "available", lambda: False)
  out = io.StringIO()
  write_text(critical_pairs(rules), "r", out)
  lines = out.getvalue().splitlines()
  assert any(line.endswith("(not proved: z3 is not installed)") for line in lines)
  assert [line for line in lines if "pip install" in line] == ["values: nothing is proved: " + classify_module.MISSING]


def test_nothing_evaluates_is_unknown():
  r = UOp(Ops.RANGE, (UOp.const(4),))   # run() has no value for a RANGE outside a loop; z3 takes it as any 0 <= r < 4
  v = classify(r + p0, p0 + r, rlimit=1)
  assert v.kind == "unknown" and v.detail.startswith("unknown: could not evaluate either side on ") and "z3 gave up" in v.detail
  assert classify(r + p0, p0 + r).kind == "syntactic"


def test_edge_bindings_try_each_edge_value_for_every_param_then_combinations():
  bindings = list(edge_bindings([p0, UOp.param(1, dtypes.f32, shape=(2,))]))
  assert bindings[0] == {0: 0, 1: [0.0, 0.0]} and bindings[3] == {0: 40, 1: [-1.0, -1.0]}
  assert {repr(b[1][0]) for b in bindings} >= {repr(x) for x in SEARCH_EDGES[dtypes.f32]}
  assert {b[0] for b in bindings} == set(SEARCH_EDGES[dtypes.i32]) and len(bindings) <= 64


# ---- properties

LEAVES = st.sampled_from([p0, p1, UOp.const(0), UOp.const(1), UOp.const(-1), UOp.const(2), UOp.const(40), UOp.const(2**31 - 1)])


def _combine(pair: tuple[str, UOp, UOp]) -> UOp:
  op, a, b = pair
  if op == "add": return a + b
  if op == "sub": return a - b
  if op == "mul": return a * b
  if op == "div": return a // b
  if op == "mod": return a % b
  if op == "max": return a.max(b)
  return (a < b).where(a, b)


PROGRAMS = st.recursive(LEAVES, lambda inner: st.tuples(st.sampled_from(["add", "sub", "mul", "div", "mod", "max", "where"]), inner, inner)
                        .map(_combine), max_leaves=6)
BINDINGS = st.fixed_dictionaries({0: st.integers(-2**31, 2**31 - 1), 1: st.integers(-50, 50)})


@settings(max_examples=40, deadline=None)
@given(PROGRAMS, PROGRAMS, st.lists(BINDINGS, min_size=1, max_size=6))
def test_a_verdict_holds_where_run_evaluates(a, b, bindings):
  """syntactic: no binding where run() gives both sides a value and they differ; semantic: its binding replays
  different through run()."""
  for x, y in ((a, b), (a, graph_rewrite(a, symbolic, max_steps=20_000))):
    v = classify(x, y, [p0, p1])
    assert v.kind in KINDS
    if v.kind == "semantic": assert _replays_different(x, y, v.binding), v
    if v.kind == "syntactic": assert not any(_differ_in_values(x, y, bnd) for bnd in bindings), (v, bindings)


F_LEAVES = st.sampled_from([f0, UOp.param(1, dtypes.f32), UOp.const(0.0), UOp.const(-0.0), UOp.const(1.0), UOp.const(40.0), UOp.const(math.inf)])
F_PROGRAMS = st.recursive(F_LEAVES, lambda inner: st.tuples(st.sampled_from(["add", "sub", "mul", "max", "where"]), inner, inner)
                          .map(_combine), max_leaves=4)
F_BINDINGS = st.fixed_dictionaries({0: st.floats(width=32), 1: st.floats(width=32)})


@settings(max_examples=12, deadline=None)
@given(F_PROGRAMS, F_PROGRAMS, st.lists(F_BINDINGS, min_size=1, max_size=4))
def test_a_verdict_holds_where_run_evaluates_on_floats(a, b, bindings):
  """The same on f32, where -0.0, inf and NaN are values of their own."""
  params = [f0, UOp.param(1, dtypes.f32)]
  for x, y in ((a, b), (a, graph_rewrite(a, symbolic, max_steps=20_000))):
    v = classify(x, y, params)
    if v.kind == "semantic": assert _replays_different(x, y, v.binding), v
    if v.kind == "syntactic": assert not any(_differ_in_values(x, y, bnd) for bnd in bindings), (v, bindings)


# ---- the numbers: symbolic's pairs are all decided

def test_every_not_joinable_pair_of_symbolic_is_proved_equal_or_shown_different():
  r = critical_pairs(symbolic)
  bad = [p for p in r.pairs if p.status == "not-joinable"]
  assert bad and {p.verdict for p in bad} == {"semantic", "syntactic"}
  # the pairs random bindings could not evaluate (a modulo by a PARAM that is 0 on one side): a trap on one side only
  traps = [p for p in bad if "trap (modulo by zero" in (p.verdict_detail or "")]
  assert traps and all(p.verdict == "semantic" and p.verdict_detail.startswith("different values at p0=0") for p in traps)
  lt = next(p for p in bad if p.rules == ("lt-mul-const", "distribute-sum"))   # 2 * (p0 + p1) wraps
  assert (lt.verdict, lt.verdict_detail) == ("semantic", "different values at p0=0, p1=2147483647: False vs True")
