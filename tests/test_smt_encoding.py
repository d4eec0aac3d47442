"""Differential tests of the SMT encoding (``uopc/smt``): its terms, with values substituted and simplified by z3,
against ``exec_alu`` (``uopc/alu.py``), ``run()`` and the compiled C backend, for every ALU op and dtype the IR
accepts, on edge values (0, -1, INT_MIN, INT_MAX, -0.0, NaN, +-inf, denormals, the limits of casts) and random ones;
then whole shaped programs (movement ops, REDUCE, INDEX, STACK, CALL) against the C program and its strict oracle.

Compiling is the slow part, so each C test compiles one batch: one kernel per op and dtype, every value a line of
its input (``uopc.backend.driver.Batch``).
"""
from __future__ import annotations

import math
import subprocess
import sys
from itertools import product
from typing import Any

import pytest
from hypothesis import event, given, note, settings
from hypothesis import strategies as st

from uopc.alu import exec_alu
from uopc.backend.driver import Batch, Outcome
from uopc.dtype import DType, dtypes, f32_round, same_value
from uopc.ops import ALU, Ops
from uopc.smt.encode import ENCODED, NOT_ENCODED, Encoding, encode
from uopc.smt.model import evaluate
from uopc.smt.ops import UNINTERPRETED
from uopc.uop import UOp, UOpError, call_params
from tests.backend_helpers import EXCUSES, run_outcome, same, show_outcome, strict_outcome
from tests.test_backend_diff import closed_programs

EXAMPLES = max(4, settings().max_examples // 6)
FLT_MAX, FLT_TRUE_MIN, FLT_MIN = 3.4028234663852886e38, 1e-45, 1.1754943508222875e-38
I32_EDGE = [0, 1, -1, 2, -2, 3, -3, 7, -7, 2**31 - 1, -2**31, -2**31 + 1, 2**30, -2**30, 65536, 46341,
            2**24, 2**24 + 1, -(2**24 + 3), 2147483520, 2147483584]
F32_EDGE = [f32_round(v) for v in (
  0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.5, -2.5, 3.0, 0.1, math.inf, -math.inf, math.nan, FLT_MAX, -FLT_MAX,
  FLT_TRUE_MIN, -FLT_TRUE_MIN, FLT_MIN, FLT_MIN - FLT_TRUE_MIN, -FLT_MIN, 1e30, -1e30, 16777216.0, 16777217.0,
  2147483648.0, -2147483648.0, 2147483520.0, -2147483904.0, -2147483520.0, 128.0, -150.0, 1e-30)]
EDGE: dict[DType, list[Any]] = {dtypes.bool: [False, True], dtypes.i32: I32_EDGE, dtypes.f32: F32_EDGE}

# Where the encoding of a libm op is exact (ops.UNINTERPRETED); elsewhere it is an uninterpreted function
FIXED_POINTS = {
  Ops.EXP2: lambda x: x != x or x == 0 or math.isinf(x),
  Ops.LOG2: lambda x: x != x or x <= 0 or x == 1.0 or x == math.inf,
  Ops.SIN: lambda x: x != x or x == 0 or math.isinf(x),
}


def _try(build: Any) -> UOp | None:
  try: return build()
  except UOpError: return None


def alu_cases() -> list[UOp]:
  """One scalar program per ALU op and operand dtype the IR accepts (the constructor decides), over PARAM slots 0..2."""
  out: list[UOp | None] = []
  for op, d in product(sorted(ALU, key=lambda o: o.value), dtypes.all):
    p = [UOp.param(i, d) for i in range(3)]
    if op is Ops.CAST: out += [p[0].cast(to) for to in dtypes.all]
    elif op is Ops.WHERE: out.append(UOp.param(0, dtypes.bool).where(UOp.param(1, d), UOp.param(2, d)))
    elif op in (Ops.RECIP, Ops.EXP2, Ops.LOG2, Ops.SQRT, Ops.SIN): out.append(_try(lambda op=op, p=p: UOp(op, (p[0],))))
    else: out.append(_try(lambda op=op, p=p: UOp(op, (p[0], p[1]))))
  return [u for u in out if u is not None]


CASES = alu_cases()
ENCODINGS = {u: encode(u) for u in CASES}
INT_ENCODINGS = {u: encode(u, ints=True) for u in CASES}   # i32 as Ints: the theory the prover uses for division


def _params(u: UOp) -> list[UOp]: return sorted(call_params(u), key=lambda p: p.arg.slot)


def edge_rows(u: UOp) -> list[tuple[Any, ...]]:
  """Every combination of edge values for ``u``'s PARAMs (a WHERE's branches from a shorter list)."""
  ps = _params(u)
  if u.op is Ops.WHERE: return list(product([False, True], *[EDGE[p.dtype][::3] for p in ps[1:]]))
  return list(product(*[EDGE[p.dtype] for p in ps]))


def reference(u: UOp, row: tuple[Any, ...]) -> Outcome:
  """``exec_alu`` of the case: undefined where it returns None."""
  r = exec_alu(u.op, u.dtype, list(row))
  return Outcome(False, error="undefined") if r is None else Outcome(True, r)


def encoded(enc: Encoding, row: tuple[Any, ...]) -> Outcome | None:
  """The encoding's outcome at ``row``; None where it depends on an uninterpreted function."""
  try: ok, value = evaluate(enc, dict(enumerate(row)))
  except ValueError: return None
  return Outcome(ok, value, "" if ok else "undefined")


def check_row(u: UOp, row: tuple[Any, ...], other: Outcome, what: str) -> bool:
  """Both encodings (i32 as bit-vectors, as Ints) agree with ``other`` at ``row`` (True), or are an uninterpreted
  value off the fixed points (False)."""
  for encodings in (ENCODINGS, INT_ENCODINGS):
    got = encoded(encodings[u], row)
    if u.op in UNINTERPRETED:
      assert (got is not None) == FIXED_POINTS[u.op](row[0]), f"{u.op.name}({row[0]!r}): exact where it should not be, or not where it should"
    if got is None: return False
    assert same(got, other), f"{show_case(u)} at {row}: the encoding gives {show_outcome(got)}, {what} {show_outcome(other)}"
  return True


def show_case(u: UOp) -> str:
  return f"{u.op.name}({', '.join(s.dtype.name for s in u.src)}) -> {u.dtype.name}"


def test_every_op_is_encoded_or_listed_with_a_reason():
  """A new op fails here until it is encoded or listed in NOT_ENCODED; the libm ops are the partial ones."""
  assert set(Ops) == ENCODED | set(NOT_ENCODED) and not ENCODED & set(NOT_ENCODED)
  assert NOT_ENCODED == {}
  assert set(UNINTERPRETED) == {Ops.EXP2, Ops.LOG2, Ops.SIN} == set(FIXED_POINTS)


def test_every_alu_op_and_dtype_has_a_case():
  """Every ALU op, with every operand dtype its constructor accepts: 34 op x dtype combinations."""
  assert {u.op for u in CASES} == set(ALU)
  by_op = {op: sorted(show_case(u) for u in CASES if u.op is op) for op in ALU}
  assert len(by_op[Ops.CAST]) == 9 and len(by_op[Ops.ADD]) == len(by_op[Ops.CMPLT]) == len(by_op[Ops.WHERE]) == 3
  assert by_op[Ops.FLOORDIV] == ["FLOORDIV(i32, i32) -> i32"] and by_op[Ops.SIN] == ["SIN(f32) -> f32"]
  assert len(CASES) == 34


def test_encoding_matches_exec_alu_and_run_on_edge_values():
  exact = 0
  for u in CASES:
    for k, row in enumerate(edge_rows(u)):
      exact += check_row(u, row, reference(u, row), "exec_alu")
      if k % 4 == 0: assert same(run_outcome(u, dict(enumerate(row))), reference(u, row))   # a rewrite per row: a quarter of them
  assert exact > 8_000


def test_encoding_matches_the_c_backend_on_edge_values():
  batch = Batch()
  queries = [(u, row) for u in CASES for row in edge_rows(u)]
  outs = batch.run([(batch.add(u), dict(enumerate(row))) for u, row in queries])
  compared = sum(check_row(u, row, c, "the C backend") for (u, row), c in zip(queries, outs))
  assert compared > 8_000


def scalars(dtype: DType) -> st.SearchStrategy:
  if dtype is dtypes.bool: return st.booleans()
  if dtype is dtypes.i32: return st.one_of(st.sampled_from(I32_EDGE), st.integers(-2**31, 2**31 - 1), st.integers(-300, 300))
  return st.one_of(st.sampled_from(F32_EDGE), st.floats(width=32), st.floats(-1e6, 1e6, width=32),
                   st.floats(-f32_round(1e-37), f32_round(1e-37), width=32))   # denormals and small normals


@st.composite
def rows(draw: st.DrawFn) -> list[tuple[UOp, tuple[Any, ...]]]:
  """A few random value rows for every case."""
  return [(u, tuple(draw(scalars(p.dtype)) for p in _params(u))) for u in CASES for _ in range(3)]


@settings(max_examples=EXAMPLES * 3)
@given(rows())
def test_encoding_matches_exec_alu_on_random_values(cases: list[tuple[UOp, tuple[Any, ...]]]) -> None:
  for u, row in cases: check_row(u, row, reference(u, row), "exec_alu")


@settings(max_examples=max(2, EXAMPLES // 5))
@given(st.lists(rows(), min_size=4, max_size=4))
def test_encoding_matches_the_c_backend_on_random_values(batches: list[list[tuple[UOp, tuple[Any, ...]]]]) -> None:
  """Many random rows per compiled batch (one compilation per example)."""
  batch = Batch()
  queries = [q for b in batches for q in b]
  outs = batch.run([(batch.add(u), dict(enumerate(row))) for u, row in queries])
  for (u, row), c in zip(queries, outs): check_row(u, row, c, "the C backend")


@settings(max_examples=max(2, EXAMPLES // 3))
@given(st.lists(closed_programs(), min_size=10, max_size=20))
def test_shaped_programs_match_c_strict_and_run(cases: list[tuple[UOp, dict[int, Any]]]) -> None:
  """Whole programs (movement ops, REDUCE, INDEX with PARAM indices, STACK, CALL): the encoding's outcome is the C
  program's and the strict oracle's, and run()'s wherever that is defined (unless a known-unsound rule fired)."""
  batch = Batch()
  outs = batch.run([(batch.add(p), v) for p, v in cases])
  for (prog, values), c in zip(cases, outs):
    try: ok, value = evaluate(encode(prog), values)
    except ValueError: event("a libm op off its fixed points"); continue
    got = Outcome(ok, value, "" if ok else "undefined")
    note(f"program: {prog}\nvalues: {values}\nencoding: {show_outcome(got)}\nC: {show_outcome(c)}")
    assert same(got, c) and same(got, strict_outcome(prog, values))
    iok, ivalue = evaluate(encode(prog, ints=True), values)   # i32 as Ints: the same outcome
    assert same(Outcome(iok, ivalue, "" if iok else "undefined"), got)
    fired: set[str] = set()
    r = run_outcome(prog, values, fired)
    if ok and not same(r, got): assert fired & EXCUSES, f"run() gives {show_outcome(r)}"


def test_undefined_where_c_traps():
  """The conditions themselves, by name: x // 0, INT_MIN // -1, x % 0, a cast of NaN/inf/2**31 to i32, an index out of bounds."""
  p0, p1 = UOp.param(0), UOp.param(1)
  assert evaluate(encode(p0 // p1), {0: -2**31, 1: -1}) == (False, None)
  assert evaluate(encode(p0 % p1), {0: -2**31, 1: -1}) == (True, 0)
  assert evaluate(encode(p0 % p1), {0: 5, 1: 0}) == (False, None)
  f = UOp.param(0, dtypes.f32).cast(dtypes.i32)
  assert [evaluate(encode(f), {0: v})[0] for v in (math.nan, math.inf, 2.0**31, -2.0**31, -2147483904.0, 2147483520.0)] == \
    [False, False, False, True, False, True]
  stacked = UOp.stack(10, 20, 30).index(p0)
  assert [evaluate(encode(stacked), {0: i}) for i in (-1, 0, 2, 3)] == [(False, None), (True, 10), (True, 30), (False, None)]


def test_range_is_a_bounded_variable():
  r = UOp(Ops.RANGE, (UOp.param(0),))
  e = encode(r * 2)
  assert len(e.assumptions) == 1 and e.variables == {0: [e.assumptions[0].children()[1].children()[1]]}


def test_a_deep_graph_encodes_without_recursion():
  """A chain of 20,000 nodes (a recursive encoder would pass Python's recursion limit of 1,000 long before)."""
  u, expected = UOp.param(0), 5
  for i in range(6_700):
    if i % 100: u, expected = u * 3 + i, exec_alu(Ops.ADD, dtypes.i32, [exec_alu(Ops.MUL, dtypes.i32, [expected, 3]), i])
    else: u, expected = (u + i) // 7, exec_alu(Ops.FLOORDIV, dtypes.i32, [exec_alu(Ops.ADD, dtypes.i32, [expected, i]), 7])
  assert len(u.toposort()) > 20_000
  assert evaluate(encode(u), {0: 5}) == (True, expected)


def test_without_z3_every_other_module_works_and_proving_says_why_in_one_line():
  code = ("import sys; sys.modules['z3'] = None\n"
          "import uopc, uopc.smt, uopc.smt.encode, uopc.smt.model\n"
          "from uopc import UOp, simplify; assert simplify(UOp.param(0) + 0) is UOp.param(0) and not uopc.smt.available()\n"
          "for call in (lambda: uopc.smt.encode.encode(UOp.param(0)), lambda: uopc.smt.prove_rewrite(UOp.param(0), UOp.param(0))):\n"
          "  try: call()\n"
          "  except uopc.smt.SMTUnavailable as e: print(e)\n")
  out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
  assert out == "proving needs the z3 SMT solver, which is not installed: pip install -e '.[prove]'\n" * 2


@pytest.mark.parametrize("dtype", dtypes.all)
def test_values_round_trip_through_terms(dtype: DType) -> None:
  from uopc.smt.sorts import python_value, value_term
  for v in EDGE[dtype]: assert same_value(python_value(value_term(v, dtype), dtype), v)
