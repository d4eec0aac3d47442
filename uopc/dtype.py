"""Scalar types: ``bool``, ``i32`` (wrapping two's complement) and ``f32`` (IEEE single).

Values are plain Python objects (bool, int, float); ``truncate`` brings any Python
number into a dtype's value set, which is how wrapping and f32 rounding happen.

>>> truncate(dtypes.i32, 2**31)
-2147483648
>>> truncate(dtypes.f32, 0.1)
0.10000000149011612
"""
from __future__ import annotations

import math
import struct
from dataclasses import dataclass
from typing import Any

_F32_BITS = struct.Struct("<f")


@dataclass(frozen=True, eq=False)
class DType:
  """A scalar type. Instances are singletons (``dtypes.i32``), compared with ``is``."""
  name: str
  is_float: bool
  is_int: bool
  is_bool: bool

  def __repr__(self) -> str: return f"dtypes.{self.name}"
  def __reduce__(self): return (getattr, (dtypes, self.name))


class dtypes:
  """The dtype namespace: ``dtypes.bool``, ``dtypes.i32``, ``dtypes.f32``."""
  bool = DType("bool", is_float=False, is_int=False, is_bool=True)
  i32 = DType("i32", is_float=False, is_int=True, is_bool=False)
  f32 = DType("f32", is_float=True, is_int=False, is_bool=False)
  all: tuple[DType, ...] = ()

  @staticmethod
  def min(d: DType) -> Any:
    """Smallest value of ``d``: ``False``, ``-2**31`` or ``-inf``."""
    return _MIN[d]

  @staticmethod
  def max(d: DType) -> Any:
    """Largest value of ``d``: ``True``, ``2**31 - 1`` or ``inf``."""
    return _MAX[d]

  @staticmethod
  def from_name(name: str) -> DType | None:
    """``dtypes.from_name("i32") is dtypes.i32``; None for an unknown name."""
    return _BY_NAME.get(name)

  @staticmethod
  def of(v: Any) -> DType:
    """The dtype a Python literal has: bool -> bool, int -> i32, float -> f32."""
    if isinstance(v, bool): return dtypes.bool
    if isinstance(v, int): return dtypes.i32
    if isinstance(v, float): return dtypes.f32
    raise TypeError(f"no dtype for a {type(v).__name__} value: {v!r}")


dtypes.all = (dtypes.bool, dtypes.i32, dtypes.f32)
# Each dtype as a module-level name, for hot paths (as ``uopc.ops`` does for ops): a class attribute is a lookup per use.
BOOL, I32, F32 = dtypes.bool, dtypes.i32, dtypes.f32
_BY_NAME = {d.name: d for d in dtypes.all}
_MIN = {dtypes.bool: False, dtypes.i32: -2**31, dtypes.f32: -math.inf}
_MAX = {dtypes.bool: True, dtypes.i32: 2**31 - 1, dtypes.f32: math.inf}


def f32_round(v: float) -> float:
  """Round a double to the nearest f32 (ties to even), overflowing to +-inf.

  Every NaN becomes the one canonical ``math.nan`` object, so that NaN constants
  hash-cons to one node and print as one literal.
  """
  if v != v: return math.nan
  try: return _F32_BITS.unpack(_F32_BITS.pack(v))[0]
  except OverflowError: return math.copysign(math.inf, v)   # rounds past FLT_MAX


def truncate(dtype: DType, v: Any) -> Any:
  """Bring ``v`` into ``dtype``'s value set: i32 wraps, f32 rounds, bool tests truth.

  >>> truncate(dtypes.i32, -2**31 - 1), truncate(dtypes.bool, 3), truncate(dtypes.f32, 1)
  (2147483647, True, 1.0)
  """
  if dtype is dtypes.i32:
    if type(v) is not int:
      if _symbolic(v): return v.__uopc_truncate__(dtype)
      v = int(v)   # bool, or a float that is already integral
    return ((v + 0x80000000) & 0xFFFFFFFF) - 0x80000000
  if dtype is dtypes.f32: return f32_round(float(v)) if type(v) is float or not _symbolic(v) else v.__uopc_truncate__(dtype)
  if dtype is dtypes.bool: return v.__uopc_truncate__(dtype) if _symbolic(v) else bool(v)
  raise TypeError(f"unknown dtype {dtype!r}")


def _symbolic(v: Any) -> bool:
  """Is ``v`` a symbolic constant of the prover (``uopc.smt.concolic.Symbolic``: a z3 term that truncates itself)?"""
  return type(v) not in (int, float, bool) and hasattr(v, "__uopc_truncate__")


_F64 = struct.Struct("<d")


def value_key(v: Any) -> Any:
  """A key equal for two values iff they are the same value bit for bit.

  The same type (``1`` is not ``True`` nor ``1.0``), floats by their bits (``0.0`` is not
  ``-0.0``) with every NaN one value (the engine keeps one NaN: f32 rounding makes it so),
  lists and tuples element by element. Hashable when the values are.

  >>> value_key(0.0) == value_key(-0.0), value_key(math.nan) == value_key(-math.nan), value_key(1) == value_key(True)
  (False, True, False)
  >>> value_key([1, (2.0, -0.0)]) == value_key([1, (2.0, 0.0)])
  False
  """
  t = type(v)
  if t is float: return (float, _F64.pack(v) if v == v else "nan")
  if t is list or t is tuple: return (t, tuple(value_key(x) for x in v))
  return (t, v)


def same_value(a: Any, b: Any) -> bool:
  """Bit-exact equality of two values (``value_key``): the one equality of values and constant args everywhere.

  >>> same_value([1.0, -0.0], [1.0, 0.0]), same_value(math.nan, -math.nan), same_value(1, True)
  (False, True, False)
  """
  if a is b: return True
  try: return bool(value_key(a) == value_key(b))
  except Exception: return False   # an arg whose == raises is equal to nothing else
