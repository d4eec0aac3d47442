"""A dtype as a z3 sort, and values both ways.

i32 is a 32-bit vector (two's complement: signed comparisons and divisions are chosen by the ops, the bits wrap),
bool is z3's Bool, f32 is IEEE 754 single (``Float32``: -0.0 is its own value, every NaN is the one NaN, as the
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


def sort_of(dtype: DType) -> Any:
  """The z3 sort of ``dtype``'s values."""
  z3 = require()
  if dtype is dtypes.bool: return z3.BoolSort()
  if dtype is dtypes.i32: return z3.BitVecSort(I32_BITS)
  if dtype is dtypes.f32: return z3.Float32()
  raise TypeError(f"no SMT sort for {dtype!r}")


def value_term(v: Any, dtype: DType) -> Any:
  """The z3 value of a Python value of ``dtype`` (brought into its value set first, as ``truncate`` does: an f32
  CONST may hold a double, which C rounds when it parses the literal)."""
  z3 = require()
  v = truncate(dtype, v)
  if dtype is dtypes.bool: return z3.BoolVal(v)
  if dtype is dtypes.i32: return z3.BitVecVal(v, I32_BITS)
  return z3.FPVal(v, z3.Float32())


def variable(name: str, dtype: DType) -> Any:
  """A z3 constant named ``name`` ranging over every value of ``dtype``."""
  return require().Const(name, sort_of(dtype))


def python_value(term: Any, dtype: DType) -> Any:
  """The Python value (as ``run`` gives it) of a z3 term that simplifies to a value; ``ValueError`` if it does not."""
  z3 = require()
  t = z3.simplify(term)
  if dtype is dtypes.bool:
    if z3.is_true(t) or z3.is_false(t): return z3.is_true(t)
  elif dtype is dtypes.i32:
    if z3.is_bv_value(t): return t.as_signed_long()
  elif z3.is_fp_value(t):
    if t.isNaN(): return math.nan
    bits = z3.simplify(z3.fpToIEEEBV(t)).as_long()
    return struct.unpack("<f", struct.pack("<I", bits))[0]
  raise ValueError(f"the term does not reduce to a {dtype.name} value: {str(t)[:200]}")
