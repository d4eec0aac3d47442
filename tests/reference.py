"""Random scalar programs and an independent reference evaluator for them.

A program is a small tree: ``("const", dtype, v)``, ``("param", slot, dtype)`` or
``(op, *children)``. The evaluator computes with Python numbers and ctypes' C
conversions (``c_int32`` wraps, ``c_float`` rounds), independently of ``uopc.alu``,
and records the events that make rewriting rules legitimately disagree: an i32
overflow, a negative zero, or an undefined operation (a trap).
"""
from __future__ import annotations

import ctypes
import functools
import math
from typing import Any

from hypothesis import strategies as st

from uopc import Ops, UOp, dtypes

I32, F32, BOOL = dtypes.i32, dtypes.f32, dtypes.bool
EDGE_I32 = [0, 1, -1, 2, 3, 4, 7, 8, 16, 2**31 - 1, -2**31, 100, -100]
EDGE_F32 = [0.0, -0.0, 1.0, -1.0, 0.5, 2.0, 3.0, 1e30, -1e30, math.inf, -math.inf, math.nan, 1e-45]


def f32(v: float) -> float:
  return math.nan if v != v else ctypes.c_float(v).value if abs(v) < 3.4028235677973366e38 else math.copysign(math.inf, v)


@functools.lru_cache(maxsize=None)
def consts(dtype):
  if dtype is I32: return st.one_of(st.sampled_from(EDGE_I32), st.integers(-2**31, 2**31 - 1)).map(lambda v: ("const", I32, v))
  if dtype is F32: return st.one_of(st.sampled_from(EDGE_F32), st.floats(width=32)).map(lambda v: ("const", F32, f32(v)))
  return st.booleans().map(lambda v: ("const", BOOL, v))


@functools.lru_cache(maxsize=None)   # strategies are built once: building them is what costs
def programs(dtype=None, depth: int = 4, params: int = 0):
  """A strategy for program trees of ``dtype`` (any, if None), with PARAM slots ``< params``."""
  if dtype is None: return st.sampled_from([I32, F32, BOOL]).flatmap(lambda d: programs(d, depth, params))
  leaves = [consts(dtype)]
  if params: leaves.append(st.integers(0, params - 1).map(lambda s: ("param", s, dtype)))
  leaf = st.one_of(*leaves)
  if depth == 0: return leaf
  sub = lambda d: programs(d, depth - 1, params)
  same2 = lambda ops: st.tuples(st.sampled_from(ops), sub(dtype), sub(dtype))
  if dtype is I32:
    nodes = [same2([Ops.ADD, Ops.MUL, Ops.MAX, Ops.FLOORDIV, Ops.FLOORMOD]),
             st.tuples(st.just(Ops.WHERE), sub(BOOL), sub(I32), sub(I32)),
             st.tuples(st.just(Ops.CAST), st.sampled_from([F32, BOOL]).flatmap(sub)).map(lambda t: (Ops.CAST, t[1], I32))]
  elif dtype is F32:
    nodes = [same2([Ops.ADD, Ops.MUL, Ops.MAX]),
             st.tuples(st.sampled_from([Ops.RECIP, Ops.SQRT, Ops.EXP2, Ops.LOG2, Ops.SIN]), sub(F32)),
             st.tuples(st.just(Ops.WHERE), sub(BOOL), sub(F32), sub(F32)),
             st.tuples(st.just(Ops.CAST), st.sampled_from([I32, BOOL]).flatmap(sub)).map(lambda t: (Ops.CAST, t[1], F32))]
  else:
    nodes = [st.tuples(st.sampled_from([Ops.CMPLT, Ops.CMPNE]), st.sampled_from([I32, F32]).flatmap(
               lambda d: st.tuples(sub(d), sub(d)))).map(lambda t: (t[0], *t[1])),
             st.tuples(st.just(Ops.CAST), st.sampled_from([I32, F32]).flatmap(sub)).map(lambda t: (Ops.CAST, t[1], BOOL))]
  return st.one_of(leaf, *nodes)


def build(tree) -> UOp:
  """The UOp of a program tree."""
  kind = tree[0]
  if kind == "const": return UOp.const(tree[2], tree[1])
  if kind == "param": return UOp.param(tree[1], tree[2])
  if kind is Ops.CAST: return build(tree[1]).cast(tree[2])
  return UOp(kind, tuple(build(t) for t in tree[1:]))


class Undefined(Exception):
  """The program traps (division by zero, INT_MIN // -1, a float cast out of int range)."""


def evaluate(tree, env: dict[int, Any] | None = None, events: set | None = None) -> Any:
  """The value of a program tree; ``events`` collects 'overflow' and 'negzero'. Raises Undefined."""
  env, events = env or {}, events if events is not None else set()

  def i32(v: int) -> int:
    r = ctypes.c_int32(v).value
    if r != v: events.add("overflow")
    return r

  def fl(v: float) -> float:
    r = f32(v)
    if r == 0 and math.copysign(1, r) < 0: events.add("negzero")
    return r

  def go(t):
    kind = t[0]
    if kind == "const":
      if t[1] is F32: fl(t[2])
      return t[2]
    if kind == "param":
      return env[t[1]]
    if kind is Ops.CAST:
      v, d = go(t[1]), t[2]
      if d is BOOL: return bool(v)
      if d is F32: return fl(float(v))
      if isinstance(v, float):
        if not math.isfinite(v) or not -2**31 <= math.trunc(v) < 2**31: raise Undefined("cast")
        return math.trunc(v)
      return int(v)
    vals = [go(s) for s in t[1:]]
    d = dtype_of(t)
    if kind is Ops.WHERE: return vals[1] if vals[0] else vals[2]
    if kind is Ops.CMPLT: return vals[0] < vals[1]
    if kind is Ops.CMPNE: return vals[0] != vals[1]
    if kind is Ops.MAX:   # IEEE 754-2019 maximum for floats: NaN wins, +0.0 > -0.0
      a, b = vals
      if isinstance(a, float) and (math.isnan(a) or math.isnan(b)): return math.nan
      if isinstance(a, float) and a == b == 0: return 0.0 if math.copysign(1, a) > 0 or math.copysign(1, b) > 0 else -0.0
      return a if a >= b else b
    a = vals[0]
    if d is I32:
      b = vals[1]
      if kind is Ops.ADD: return i32(a + b)
      if kind is Ops.MUL: return i32(a * b)
      if b == 0 or (a == -2**31 and b == -1 and kind is Ops.FLOORDIV): raise Undefined(kind.name)
      return i32(a // b) if kind is Ops.FLOORDIV else i32(a % b)
    if kind is Ops.ADD: return fl(a + vals[1])
    if kind is Ops.MUL: return fl(a * vals[1])
    if kind is Ops.RECIP: return fl(1.0 / a) if a != 0 else math.copysign(math.inf, a)
    if kind is Ops.SQRT: return fl(math.sqrt(a)) if a >= 0 else math.nan
    if kind is Ops.EXP2:
      if a != a: return math.nan
      try: return fl(2.0 ** a)
      except OverflowError: return math.inf
    if kind is Ops.LOG2: return fl(math.log2(a)) if a > 0 else -math.inf if a == 0 else math.nan
    if kind is Ops.SIN: return fl(math.sin(a)) if math.isfinite(a) else math.nan
    raise AssertionError(kind)

  return go(tree)


def dtype_of(tree):
  kind = tree[0]
  if kind == "const": return tree[1]
  if kind == "param": return tree[2]
  if kind is Ops.CAST: return tree[2]
  if kind in (Ops.CMPLT, Ops.CMPNE): return BOOL
  return dtype_of(tree[2] if kind is Ops.WHERE else tree[1])


def same_value(a: Any, b: Any) -> bool:
  """Bit-exact equality: -0.0 differs from 0.0, NaN equals NaN, 1 differs from True."""
  if type(a) is not type(b): return False
  if isinstance(a, float): return (a != a and b != b) or (a == b and math.copysign(1, a) == math.copysign(1, b))
  return a == b
