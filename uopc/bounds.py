"""Bounds analysis: a conservative ``[vmin, vmax]`` for every integer or bool scalar.

>>> from uopc.uop import UOp
>>> x = UOp.param(0)
>>> bounds(x % 8 + 3)
(3, 10)

Computed once per node (cached on the node) and without recursion.
"""
from __future__ import annotations

import math
from typing import Any

from uopc.dtype import BOOL, I32, dtypes
from uopc.ops import ADD, ALU, CAST, CMPLT, CMPNE, CONST, FLOORDIV, FLOORMOD, MAX, MUL, RANGE, WHERE, Ops
from uopc.uop import UOp

# each dtype's full range, made once
_FULL = {d: (dtypes.min(d), dtypes.max(d)) for d in dtypes.all}
_I32_MIN, _I32_MAX = _FULL[dtypes.i32]
_WITH_SOURCES = ALU | {Ops.RANGE}


def _needs_sources(u: UOp) -> bool:
  return not u.shape and not u.dtype.is_float and u.op in _WITH_SOURCES


def bounds(u: UOp) -> tuple[Any, Any]:
  """``(vmin, vmax)`` of ``u``; the dtype's full range when nothing better is known."""
  if (b := u._bounds) is not None: return b
  if _needs_sources(u):
    pending = [s for s in u.src if s._bounds is None]
    if any(_needs_sources(s) for s in pending):
      todo = [v for v in u.toposort(lambda v: v.src if v._bounds is None and _needs_sources(v) else ()) if v._bounds is None]
    else: todo = [*pending, u]   # the usual case in a bottom-up rewrite: sources done, or leaves
  else: todo = [u]
  for v in todo:
    b = _bounds(v)
    if v.dtype is I32 and (b[0] < _I32_MIN or b[1] > _I32_MAX): b = _FULL[I32]   # might wrap around: give up
    v._bounds = b
  return u._bounds


def vmin(u: UOp) -> Any: return bounds(u)[0]
def vmax(u: UOp) -> Any: return bounds(u)[1]


def _bounds(u: UOp) -> tuple[Any, Any]:
  """One node's bounds from its sources' (already computed) bounds."""
  op = u.op
  if op is CONST: return (u.arg, u.arg)
  if op is RANGE: return (0, max(0, u.src[0]._bounds[1] - 1))
  if not _needs_sources(u): return _FULL[u.dtype]
  if op is CAST and u.src[0].dtype is BOOL: return (int(u.src[0]._bounds[0]), int(u.src[0]._bounds[1]))
  if op is WHERE: return _where_bounds(*(s._bounds for s in u.src))
  if len(u.src) != 2: return _FULL[u.dtype]
  b = _binary_bounds(op, u.src[0]._bounds, u.src[1]._bounds)
  return _FULL[u.dtype] if b is None else b


def _where_bounds(c: tuple[Any, Any], a: tuple[Any, Any], b: tuple[Any, Any]) -> tuple[Any, Any]:
  """``where(c, a, b)``'s bounds: one side's where the condition is known, else the range covering both."""
  if c[0]: return a
  if not c[1]: return b
  return (min(a[0], b[0]), max(a[1], b[1]))


def _binary_bounds(op: Ops, a: tuple[Any, Any], b: tuple[Any, Any]) -> tuple[Any, Any] | None:
  """The bounds of ``op`` on sources of bounds ``a`` and ``b``; None where only the dtype's full range is known."""
  (a0, a1), (b0, b1) = a, b
  if op is ADD: return (a0 + b0, a1 + b1)
  if op is MUL: return _product_bounds(a0, a1, b0, b1)
  if op is MAX: return (max(a0, b0), max(a1, b1))
  if op is FLOORDIV and b0 == b1 and b0 > 0: return (a0 // b0, a1 // b0)
  if op is FLOORMOD and b0 == b1 and b0 > 0:
    return (a0, a1) if 0 <= a0 and a1 < b0 else (0, b0 - 1)   # floor mod by c > 0 is always in [0, c)
  if op is CMPLT: return (True, True) if a1 < b0 else (False, False) if a0 >= b1 else (False, True)
  if op is CMPNE:
    return (True, True) if a1 < b0 or b1 < a0 else (False, False) if a0 == a1 == b0 == b1 else (False, True)
  return None


def _product_bounds(a0: Any, a1: Any, b0: Any, b1: Any) -> tuple[Any, Any] | None:
  """The bounds of a product: the extremes of the corners' products; None if a bound is infinite (inf * 0 is nan)."""
  for v in (a0, a1, b0, b1):
    if isinstance(v, float) and math.isinf(v): return None
  ps = (a0 * b0, a0 * b1, a1 * b0, a1 * b1)
  return (min(ps), max(ps))
