"""A dtype as a z3 sort, and values both ways.

i32 is a 32-bit vector (two's complement: signed comparisons and divisions are chosen by the ops, the bits wrap), or,
with ``ints=True``, a mathematical integer in [-2**31, 2**31) whose sums and products the ops wrap explicitly (``wrap``):
the same values, in the theory where division by a constant is linear (z3 decides it at once, where bit-blasting a
32-bit divider times out). bool is z3's Bool, f32 is IEEE 754 single (``Float32``: -0.0 is its own value, every NaN is the one NaN, as the
engine keeps one: ``uopc.dtype.f32_round``).

>>> z3 = require()
>>> [str(sort_of(d)) for d in (dtypes.bool, dtypes.i32, dtypes.f32)]
['Bool', 'BitVec(32)', 'FPSort(8, 24)']
>>> python_value(value_term(-0.0, dtypes.f32), dtypes.f32), python_value(value_term(-5, dtypes.i32), dtypes.i32)
(-0.0, -5)
"""
from __future__ import annotations

import math
import struct
from typing import Any

from uopc.dtype import DType, dtypes, truncate

from uopc.smt.solver import require

I32_BITS = 32


I32_MIN, I32_END = -2**31, 2**31


def sort_of(dtype: DType, ints: bool = False) -> Any:
  """The z3 sort of ``dtype``'s values (i32 an Int with ``ints``)."""
  z3 = require()
  if dtype is dtypes.bool: return z3.BoolSort()
  if dtype is dtypes.i32: return z3.IntSort() if ints else z3.BitVecSort(I32_BITS)
  if dtype is dtypes.f32: return z3.Float32()
  raise TypeError(f"no SMT sort for {dtype!r}")


def value_term(v: Any, dtype: DType, ints: bool = False) -> Any:
  """The z3 value of a Python value of ``dtype`` (brought into its value set first, as ``truncate`` does: an f32
  CONST may hold a double, which C rounds when it parses the literal). A symbolic constant (``uopc.smt.concolic``:
  it has ``smt_term``) is its term."""
  z3 = require()
  if hasattr(v, "smt_term"): return v.smt_term(dtype, ints)
  v = truncate(dtype, v)
  if dtype is dtypes.bool: return z3.BoolVal(v)
  if dtype is dtypes.i32: return z3.IntVal(v) if ints else z3.BitVecVal(v, I32_BITS)
  return z3.FPVal(v, z3.Float32())


def variable(name: str, dtype: DType, ints: bool = False) -> Any:
  """A z3 constant named ``name`` ranging over ``dtype``'s sort (an Int with ``ints``: ``in_range`` says where)."""
  return require().Const(name, sort_of(dtype, ints))


def in_range(term: Any) -> Any:
  """An i32 Int's range, -2**31 <= term < 2**31 (a bit-vector's is its sort's: True)."""
  z3 = require()
  return z3.And(term >= I32_MIN, term < I32_END) if z3.is_int(term) else z3.BoolVal(True)


def wrap(term: Any) -> Any:
  """An integer term brought into i32 as the bits wrap (a bit-vector already is)."""
  z3 = require()
  if not z3.is_int(term): return term
  t = z3.simplify(term)
  if z3.is_int_value(t) and I32_MIN <= t.as_long() < I32_END: return t
  return (term - I32_MIN) % 2**32 + I32_MIN


def i32_val(v: int, like: Any) -> Any:
  """The i32 value ``v`` in the sort of the term ``like`` (an Int or a 32-bit vector)."""
  z3 = require()
  return z3.IntVal(v) if z3.is_int(like) else z3.BitVecVal(v, I32_BITS)


def python_value(term: Any, dtype: DType) -> Any:
  """The Python value (as ``run`` gives it) of a z3 term that simplifies to a value; ``ValueError`` if it does not."""
  z3 = require()
  t = z3.simplify(term)
  if dtype is dtypes.bool:
    if z3.is_true(t) or z3.is_false(t): return z3.is_true(t)
  elif dtype is dtypes.i32:
    if z3.is_bv_value(t): return t.as_signed_long()
    if z3.is_int_value(t): return t.as_long()
  elif z3.is_fp_value(t):
    if t.isNaN(): return math.nan
    bits = z3.simplify(z3.fpToIEEEBV(t)).as_long()
    return struct.unpack("<f", struct.pack("<I", bits))[0]
  raise ValueError(f"the term does not reduce to a {dtype.name} value: {str(t)[:200]}")
