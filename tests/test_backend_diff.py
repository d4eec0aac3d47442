"""Differential tests: random closed programs, compiled C against ``run()`` and the strict oracle.

Compiling is the slow part (~0.1-1 s a file), so every hypothesis example is a *list*
of programs compiled into one C file (one kernel each), and the example counts are a
fraction of the profile's (60 by default, 2000 with ``--slow``).
"""
from __future__ import annotations

import math
from typing import Any

import pytest
from hypothesis import assume, event, given, note, settings
from hypothesis import strategies as st

from uopc.dtype import DType, dtypes
from uopc.ops import Ops
from uopc.rewrite import graph_rewrite
from uopc.symbolic import simplify, symbolic
from uopc.term import show
from uopc.uop import Shape, UOp, call_params, prod

from uopc.backend.driver import Batch
from tests.backend_helpers import EXCUSES, Recorder, has_zero_dim, run_outcome, same, show_outcome, strict_outcome

EXAMPLES = max(4, settings().max_examples // 6)
I32_EDGE = [0, 1, -1, 2, -2, 3, -3, 7, -7, 2**31 - 1, -2**31, 2**30, -2**30, 65536, 46341]
F32_EDGE = [0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 3.0, math.inf, -math.inf, math.nan, 3.4028234663852886e38, 1e-45,
            1e30, -1e30, 16777216.0, 2147483648.0, -2147483648.0, 2147483520.0]
SHAPES: list[Shape] = [(), (), (), (2,), (3,), (2, 3), (1, 2)]


def scalars(dtype: DType) -> st.SearchStrategy:
  """Values of ``dtype``, biased to edges: -0.0, NaN, inf, INT_MIN, overflowing products."""
  if dtype is dtypes.bool: return st.booleans()
  if dtype is dtypes.i32: return st.one_of(st.sampled_from(I32_EDGE), st.integers(-10, 10), st.integers(-2**31, 2**31 - 1))
  return st.one_of(st.sampled_from(F32_EDGE), st.floats(-10, 10, width=32), st.floats(width=32))


class _Gen:
  """Builds one random closed program (PARAMs with drawn values) with hypothesis draws."""

  def __init__(self, draw: st.DrawFn):
    self.draw, self.values, self.slot = draw, {}, 0

  def pick(self, options: list) -> Any: return self.draw(st.sampled_from(options))

  def value(self, dtype: DType, shape: Shape) -> Any:
    if not shape: return self.draw(scalars(dtype))
    return [self.value(dtype, shape[1:]) for _ in range(shape[0])]

  def leaf(self, dtype: DType, shape: Shape) -> UOp:
    kind = self.pick(["const", "param", "param"])
    if kind == "param":
      p = UOp.param(self.slot, dtype, shape)
      self.values[self.slot] = self.value(dtype, shape)
      self.slot += 1
      return p
    if shape == () or self.draw(st.booleans()): return UOp.const(self.draw(scalars(dtype)), dtype).broadcast(shape)
    return UOp(Ops.STACK, tuple(self.leaf(dtype, shape[1:]) for _ in range(shape[0])))

  def expr(self, dtype: DType, shape: Shape, depth: int) -> UOp:
    if depth <= 0 or self.draw(st.integers(0, 4)) == 0: return self.leaf(dtype, shape)
    builders = [self.binary, self.binary, self.where, self.cast, self.reduce, self.reshape, self.expand, self.index, self.call]
    if dtype is dtypes.bool: builders += [self.compare, self.compare]
    if dtype is dtypes.f32: builders += [self.unary, self.unary]
    if shape: builders += [self.stack, self.permute, self.shrink]
    return self.pick(builders)(dtype, shape, depth - 1)

  def binary(self, dtype: DType, shape: Shape, depth: int) -> UOp:
    op = self.pick([Ops.ADD, Ops.MUL, Ops.MAX] + ([Ops.FLOORDIV, Ops.FLOORMOD] * 2 if dtype is dtypes.i32 else []))
    a = self.expr(dtype, shape, depth)
    return UOp(op, (a, a if self.draw(st.integers(0, 5)) == 0 else self.expr(dtype, shape, depth)))   # x op x too

  def compare(self, dtype: DType, shape: Shape, depth: int) -> UOp:
    d = self.pick(list(dtypes.all))
    a = self.expr(d, shape, depth)
    return UOp(self.pick([Ops.CMPLT, Ops.CMPNE]), (a, self.expr(d, shape, depth)))

  def unary(self, dtype: DType, shape: Shape, depth: int) -> UOp:
    return UOp(self.pick([Ops.RECIP, Ops.EXP2, Ops.LOG2, Ops.SQRT, Ops.SIN]), (self.expr(dtypes.f32, shape, depth),))

  def where(self, dtype: DType, shape: Shape, depth: int) -> UOp:
    return self.expr(dtypes.bool, shape, depth).where(self.expr(dtype, shape, depth), self.expr(dtype, shape, depth))

  def cast(self, dtype: DType, shape: Shape, depth: int) -> UOp:
    return self.expr(self.pick(list(dtypes.all)), shape, depth).cast(dtype)

  def reduce(self, dtype: DType, shape: Shape, depth: int) -> UOp:
    k = self.pick([1, 1, 2])
    extra = tuple(self.draw(st.integers(1, 3)) for _ in range(k))
    return self.expr(dtype, shape + extra, depth).reduce(self.pick([Ops.ADD, Ops.MUL, Ops.MAX]), k)

  def reshape(self, dtype: DType, shape: Shape, depth: int) -> UOp:
    n = prod(shape)
    return self.expr(dtype, self.pick([(n,), (1, n), (n, 1)] + ([(2, n // 2)] if n % 2 == 0 else [])), depth).reshape(shape)

  def expand(self, dtype: DType, shape: Shape, depth: int) -> UOp:
    small = tuple(1 if self.draw(st.booleans()) else d for d in shape)
    return self.expr(dtype, small, depth).expand(shape)

  def permute(self, dtype: DType, shape: Shape, depth: int) -> UOp:
    order = self.draw(st.permutations(range(len(shape))))
    ishape = [0] * len(shape)
    for k, a in enumerate(order): ishape[a] = shape[k]
    return self.expr(dtype, tuple(ishape), depth).permute(tuple(order))

  def shrink(self, dtype: DType, shape: Shape, depth: int) -> UOp:
    extra = [self.draw(st.integers(0, 2)) for _ in shape]
    begin = [self.draw(st.integers(0, e)) for e in extra]
    src = self.expr(dtype, tuple(d + e for d, e in zip(shape, extra)), depth)
    return src.shrink(tuple((b, b + d) for b, d in zip(begin, shape)))

  def stack(self, dtype: DType, shape: Shape, depth: int) -> UOp:
    return UOp(Ops.STACK, tuple(self.expr(dtype, shape[1:], depth) for _ in range(shape[0])))

  def index(self, dtype: DType, shape: Shape, depth: int) -> UOp:
    dims = tuple(self.draw(st.integers(1, 3)) for _ in range(self.pick([1, 1, 2])))
    base = self.expr(dtype, dims + shape, depth)
    idx = []
    for d in dims:
      kind = self.pick(["const", "const", "param", "expr"])
      if kind == "const": idx.append(UOp.const(self.draw(st.integers(0, d - 1)) if self.draw(st.integers(0, 9)) else d, dtypes.i32))
      else:
        p = UOp.param(self.slot, dtypes.i32)
        self.values[self.slot] = self.draw(st.integers(0, d - 1)) if self.draw(st.integers(0, 9)) else self.pick([-1, d])
        self.slot += 1
        idx.append(p if kind == "param" else (p + UOp.const(self.draw(st.integers(0, 5)))) % d)
    return base.index(*idx)

  def call(self, dtype: DType, shape: Shape, depth: int) -> UOp:
    n = self.pick([1, 2])
    qs = [UOp.param(i, dtype, shape) for i in range(n)]   # the body's own slots 0..n-1
    body = qs[0]
    for q in qs[1:]: body = UOp(self.pick([Ops.ADD, Ops.MUL, Ops.MAX]), (body, q))
    if self.draw(st.booleans()):   # a nested call whose argument mentions the outer PARAM: scoping
      inner = UOp(self.pick([Ops.ADD, Ops.MUL, Ops.MAX]), (qs[0], qs[0])).call(body, name="sq")
      body = UOp(self.pick([Ops.ADD, Ops.MAX]), (inner, qs[0]))
    return body.call(*(self.expr(dtype, shape, depth) for _ in range(n)), name=self.pick([None, "f"]))


@st.composite
def closed_programs(draw: st.DrawFn, depth: int = 4) -> tuple[UOp, dict[int, Any]]:
  """A random program and values for all its PARAMs."""
  g = _Gen(draw)
  prog = g.expr(draw(st.sampled_from(list(dtypes.all))), draw(st.sampled_from(SHAPES)), depth)
  return prog, {p.arg.slot: g.values[p.arg.slot] for p in call_params(prog)}


def _check(cases: list[tuple[UOp, dict[int, Any]]], committed: bool = False) -> None:
  """Compile every case into one batch and check it against the oracles (see ``backend_helpers``)."""
  batch = Batch()
  progs = [simplify(p) if committed else p for p, _ in cases]
  outs = batch.run([(batch.add(p), v) for p, (_, v) in zip(progs, cases)])
  for (prog, values), compiled, c in zip(cases, progs, outs):
    note(f"program:  {show(prog, 300)}\ncompiled: {show(compiled, 300)}\nvalues:   {values}\nC:        {show_outcome(c)}")
    strict = strict_outcome(compiled, values)
    note(f"strict:   {show_outcome(strict)}")
    assert same(c, strict), "the C program disagrees with the eager evaluation of what it compiled"
    reference = strict_outcome(prog, values)   # the program's value, if it is defined
    fired: set[str] = set()
    r = run_outcome(prog, values, fired)
    note(f"run():    {show_outcome(r)}")
    if reference.ok and not same(r, reference): _excuse("run()", fired)
    if committed and reference.ok and not same(c, reference): _excuse("the committed program", _fired_in_simplify(prog))


def _excuse(what: str, fired: set[str]) -> None:
  """A disagreement with the program's value must come from a rule check-rules reports unsound."""
  known = sorted(fired & EXCUSES)
  assert known, f"{what} disagrees with the program's value, and no known-unsound rule fired ({sorted(fired)})"
  event(f"{what} differs, explained by {known[0]}")


def _fired_in_simplify(prog: UOp) -> set[str]:
  pm = Recorder(symbolic)
  graph_rewrite(prog, pm)
  return pm.fired


@settings(max_examples=EXAMPLES)
@given(st.lists(closed_programs(), min_size=1, max_size=15))
def test_raw_programs_match_strict_and_run(cases: list[tuple[UOp, dict[int, Any]]]) -> None:
  """The program as written: C == eager exec_alu, and == run() wherever the value is defined."""
  _check(cases)


@settings(max_examples=EXAMPLES)
@given(st.lists(closed_programs(), min_size=1, max_size=15))
def test_committed_programs_match(cases: list[tuple[UOp, dict[int, Any]]]) -> None:
  """``uopc run --backend c``'s pipeline: C of simplify(program), against run() of the program."""
  _check(cases, committed=True)


try: from tests.strategies import graphs, values as graph_values
except ImportError: graphs = None   # the shared strategy is another engineer's file


@st.composite
def shared_graphs(draw: st.DrawFn) -> tuple[UOp, dict[int, Any]]:
  """``tests.strategies.graphs()`` (DAGs with sharing), closed by drawing values for their PARAMs."""
  g = draw(graphs())
  assume(not any(n.op is Ops.RANGE for n in g.toposort()) and not has_zero_dim(g))
  values = {}
  def fill(dtype: DType, shape: Shape) -> Any: return draw(graph_values(dtype)) if not shape else [fill(dtype, shape[1:]) for _ in range(shape[0])]
  for p in call_params(g): values[p.arg.slot] = fill(p.dtype, p.shape)
  return g, values


@pytest.mark.skipif(graphs is None, reason="tests/strategies.py has no graphs()")
@settings(max_examples=EXAMPLES)
@given(st.lists(shared_graphs(), min_size=1, max_size=15))
def test_shared_strategy_graphs(cases: list[tuple[UOp, dict[int, Any]]]) -> None:
  _check(cases)
