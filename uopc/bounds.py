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

from uopc.dtype import dtypes
from uopc.ops import ALU, Ops
from uopc.uop import UOp


def _needs_sources(u: UOp) -> bool:
  return u.shape == () and not u.dtype.is_float and (u.op in ALU or u.op is Ops.RANGE)


def bounds(u: UOp) -> tuple[Any, Any]:
  """``(vmin, vmax)`` of ``u``; the dtype's full range when nothing better is known."""
  if (b := u._bounds) is not None: return b
  pending = [s for s in u.src if s._bounds is None] if _needs_sources(u) else []
  if any(_needs_sources(s) for s in pending):
    todo = [v for v in u.toposort(lambda v: v.src if v._bounds is None and _needs_sources(v) else ()) if v._bounds is None]
  else: todo = [*pending, u]   # the usual case in a bottom-up rewrite: sources done, or leaves
  for v in todo:
    b = _bounds(v)
    if v.dtype is dtypes.i32 and (b[0] < dtypes.min(v.dtype) or b[1] > dtypes.max(v.dtype)):
      b = (dtypes.min(v.dtype), dtypes.max(v.dtype))   # might wrap around: give up
    v._bounds = b
  return u._bounds


def vmin(u: UOp) -> Any: return bounds(u)[0]
def vmax(u: UOp) -> Any: return bounds(u)[1]


def _bounds(u: UOp) -> tuple[Any, Any]:
  """One node's bounds from its sources' (already computed) bounds."""
  full = (dtypes.min(u.dtype), dtypes.max(u.dtype))
  if u.op is Ops.CONST: return (u.arg, u.arg)
  if u.op is Ops.RANGE: return (0, max(0, u.src[0]._bounds[1] - 1))
  if not _needs_sources(u): return full
  if u.op is Ops.CAST and u.src[0].dtype is dtypes.bool: return (int(u.src[0]._bounds[0]), int(u.src[0]._bounds[1]))
  if u.op is Ops.WHERE:
    (c0, c1), (a0, a1), (b0, b1) = (s._bounds for s in u.src)
    if c0: return (a0, a1)
    if not c1: return (b0, b1)
    return (min(a0, b0), max(a1, b1))
  if len(u.src) != 2: return full
  (a0, a1), (b0, b1) = u.src[0]._bounds, u.src[1]._bounds
  op = u.op
  if op is Ops.ADD: return (a0 + b0, a1 + b1)
  if op is Ops.MUL:
    if any(isinstance(v, float) and math.isinf(v) for v in (a0, a1, b0, b1)): return full
    ps = (a0 * b0, a0 * b1, a1 * b0, a1 * b1)
    return (min(ps), max(ps))
  if op is Ops.MAX: return (max(a0, b0), max(a1, b1))
  if op is Ops.FLOORDIV and b0 == b1 and b0 > 0: return (a0 // b0, a1 // b0)
  if op is Ops.FLOORMOD and b0 == b1 and b0 > 0:
    return (a0, a1) if 0 <= a0 and a1 < b0 else (0, b0 - 1)   # floor mod by c > 0 is always in [0, c)
  if op is Ops.CMPLT: return (True, True) if a1 < b0 else (False, False) if a0 >= b1 else (False, True)
  if op is Ops.CMPNE:
    return (True, True) if a1 < b0 or b1 < a0 else (False, False) if a0 == a1 == b0 == b1 else (False, True)
  return full
