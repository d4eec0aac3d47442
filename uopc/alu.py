"""``exec_alu``: the reference semantics of every ALU op on scalar values.

The C backend must agree with it bit for bit. It returns None where C would have
undefined behaviour (division by zero, ``INT_MIN // -1``, casting a non-finite or
out-of-range float to i32), so that nothing folds a trap into a value.

>>> exec_alu(Ops.ADD, dtypes.i32, [2**31 - 1, 1])
-2147483648
>>> exec_alu(Ops.FLOORDIV, dtypes.i32, [-7, 2]), exec_alu(Ops.FLOORMOD, dtypes.i32, [-7, 2])
(-4, 1)
>>> exec_alu(Ops.FLOORDIV, dtypes.i32, [1, 0]) is None
True
"""
from __future__ import annotations

import math
from typing import Any

from uopc.dtype import F32, I32, DType, dtypes, f32_round, truncate
from uopc.ops import ADD, BINARY, CMPLT, CMPNE, FLOORDIV, FLOORMOD, MAX, MUL, Ops

_I32_MIN, _I32_END = -2**31, 2**31


def _exp2(v: float) -> float:
  if v != v: return math.nan
  if not isinstance(v, float): return v.libm("exp2")   # the prover's symbolic f32 (see _negative)
  try: return math.pow(2.0, v)
  except OverflowError: return math.inf


def _max(a: Any, b: Any) -> Any:
  """MAX is commutative (rules reorder its sources), so for floats it is IEEE 754-2019
  ``maximum``: NaN if either is NaN, and +0.0 above -0.0. Python's ``max`` (and C's
  ``b > a ? b : a``) is not: max(nan, 1.0) is nan but max(1.0, nan) is 1.0."""
  if isinstance(a, float) or (type(a) is not int and getattr(a, "is_float", False)):   # a float, or the prover's symbolic one
    if a != a or b != b: return math.nan
    if a == b: return b if _negative(a) else a
  return b if b > a else a


# The prover (uopc.smt.concolic) runs exec_alu on symbolic constants: where Python's math would need a real float,
# these ask the symbolic value itself (the same function of its value, as a term).
def _negative(a: Any) -> Any:
  """Is the sign bit of the float ``a`` set (``-0.0`` too)?"""
  return math.copysign(1.0, a) < 0 if isinstance(a, float) else a.sign_bit()


def _sqrt(a: Any) -> Any: return math.sqrt(a) if isinstance(a, (float, int)) else a.sqrt()


def _log2(a: Any) -> Any: return math.log2(a) if isinstance(a, (float, int)) else a.libm("log2")


def _sin(a: Any) -> Any:
  if isinstance(a, (float, int)): return math.sin(a) if math.isfinite(a) else math.nan
  return a.libm("sin") if a.is_finite() else math.nan


def _cast(dtype: DType, v: Any) -> Any:
  if type(v) not in (int, float, bool) and hasattr(v, "convert"): return v.convert(dtype)   # the prover's: float(), math.trunc of it
  if dtype is dtypes.bool: return bool(v)
  if dtype is dtypes.f32: return float(v)
  if isinstance(v, float):
    if not math.isfinite(v) or not _I32_MIN <= math.trunc(v) < _I32_END: return None   # UB in C
    return math.trunc(v)                                                             # C truncates toward zero
  return int(v)


def exec_binary(op: Ops, dtype: DType, a: Any, b: Any) -> Any:
  """``exec_alu(op, dtype, [a, b])`` for a binary op, without the list: constant folding's hot path.

  >>> exec_binary(Ops.MUL, dtypes.i32, 2**16, 2**16), exec_binary(Ops.CMPLT, dtypes.bool, 1.5, 2.0)
  (0, True)
  """
  if dtype is F32:   # an f32 CONST may hold a double that C would round when it parses the literal
    if isinstance(a, float): a = f32_round(a)
    if isinstance(b, float): b = f32_round(b)
  if op is ADD: r = a + b
  elif op is MUL: r = a * b
  elif op is CMPLT: return a < b
  elif op is CMPNE: return a != b
  elif op is MAX: r = _max(a, b)
  elif op is FLOORDIV:
    if b == 0 or (a == _I32_MIN and b == -1): return None   # C traps here
    r = a // b
  elif op is FLOORMOD:
    if b == 0: return None
    r = a % b
  else: return None
  if dtype is I32 and type(r) is int:   # truncate, inlined: i32 wraps
    return r if -0x80000000 <= r <= 0x7FFFFFFF else ((r + 0x80000000) & 0xFFFFFFFF) - 0x80000000
  return truncate(dtype, r)


def exec_alu(op: Ops, dtype: DType, vals: list[Any]) -> Any:
  """The value of ``op`` with result dtype ``dtype`` on scalar ``vals``, or None if undefined."""
  if op in BINARY: return exec_binary(op, dtype, vals[0], vals[1])
  if dtype is F32 and op is not Ops.CAST:
    vals = [f32_round(v) if isinstance(v, float) else v for v in vals]
  a = vals[0]
  if op is Ops.WHERE: r = vals[1] if a else vals[2]
  elif op is Ops.RECIP: r = 1.0 / a if a != 0 else -math.inf if _negative(a) else math.inf
  elif op is Ops.EXP2: r = _exp2(a)
  elif op is Ops.LOG2: r = _log2(a) if a > 0 else -math.inf if a == 0 else math.nan
  elif op is Ops.SQRT: r = _sqrt(a) if a >= 0 else math.nan
  elif op is Ops.SIN: r = _sin(a)
  elif op is Ops.CAST: r = _cast(dtype, a)
  else: return None
  return None if r is None else truncate(dtype, r)


def undefined_message(op: Ops, vals: list[Any]) -> str | None:
  """Why ``op`` on ``vals`` has no value, in the words the C runtime uses (``uopc_fail``), or None.

  >>> undefined_message(Ops.FLOORDIV, [7, 0]), undefined_message(Ops.CAST, [float("nan")])
  ('division by zero: 7 // 0', 'cast of nan to i32 is undefined')
  """
  if op is FLOORDIV and vals[1] == 0: return f"division by zero: {vals[0]} // 0"
  if op is FLOORDIV and vals == [_I32_MIN, -1]: return f"overflow: {_I32_MIN} // -1"
  if op is FLOORMOD and vals[1] == 0: return f"modulo by zero: {vals[0]} % 0"
  if op is Ops.CAST and isinstance(vals[0], float) and _cast(I32, vals[0]) is None: return f"cast of {vals[0]!r} to i32 is undefined"
  return None


