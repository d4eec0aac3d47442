"""Values across the process boundary: PARAM values to tokens, raw output tokens to values.

Floats go in as ``repr`` of their f32 value (a decimal that ``strtod`` turns back into
exactly that value) and come out as bit patterns, so nothing is lost either way; every
NaN comes back as ``math.nan``, like Python's own f32 rounding.

>>> from uopc.dtype import dtypes
>>> input_tokens(dtypes.f32, (2,), [0.1, -0.0])
['0.10000000149011612', '-0.0']
>>> decode(["3f800000", "80000000", "7fc00001"], dtypes.f32, (3,))
[1.0, -0.0, nan]
"""
from __future__ import annotations

import math
import struct
from typing import Any

from uopc.dtype import DType, dtypes, same_value, truncate   # noqa: F401 (same_value: re-exported, the backend's name for it)
from uopc.evaluate import from_python
from uopc.ops import Ops
from uopc.uop import Shape, UOp, prod

from uopc.backend.errors import CInputError


_SCALAR = {dtypes.bool: (bool,), dtypes.i32: (int, bool), dtypes.f32: (float, int, bool)}


def flatten(u: UOp) -> list[Any]:
  """The values of a CONST/STACK tree in row-major order.

  >>> flatten(UOp.stack(UOp.stack(1, 2), UOp.stack(3, 4)))
  [1, 2, 3, 4]
  """
  out, stack = [], [u]
  while stack:
    n = stack.pop()
    if n.op is Ops.CONST: out.append(n.arg)
    else: stack.extend(reversed(n.src))
  return out


def token(v: Any, dtype: DType) -> str:
  """One value (already of ``dtype``'s value set) as an input token.

  >>> token(True, dtypes.bool), token(-0.0, dtypes.f32), token(-7, dtypes.i32)
  ('1', '-0.0', '-7')
  """
  if dtype is dtypes.bool: return "1" if v else "0"
  return repr(v) if dtype is dtypes.f32 else str(v)


def input_tokens(dtype: DType, shape: Shape, value: Any) -> list[str]:
  """A PARAM value (a number or nested lists) as tokens, converted like ``bind_params`` does."""
  if not shape and type(value) in _SCALAR[dtype]: return [token(truncate(dtype, value), dtype)]   # the common case, quickly
  try: tree = from_python(value, dtype, shape)
  except (ValueError, TypeError) as e: raise CInputError(str(e)) from None
  return [token(v, dtype) for v in flatten(tree)]


def params_tokens(params: tuple[UOp, ...] | list[UOp], values: dict[int, Any]) -> list[str]:
  """The tokens of every PARAM of a kernel, in argument order.

  >>> params_tokens([UOp.param(0, dtypes.f32), UOp.param(1, dtypes.i32, (2,))], {0: 1, 1: [7, True]})
  ['1.0', '7', '1']
  """
  out: list[str] = []
  for p in params:
    if p.arg.slot not in values: raise CInputError(f"PARAM slot {p.arg.slot} is not bound")
    out += input_tokens(p.dtype, p.shape, values[p.arg.slot])
  return out


def decode_scalar(tok: str, dtype: DType) -> Any:
  """One raw output token as the Python value ``run`` would give.

  >>> decode_scalar("ff800000", dtypes.f32), decode_scalar("1", dtypes.bool), decode_scalar("-3", dtypes.i32)
  (-inf, True, -3)
  """
  if dtype is dtypes.i32: return int(tok)
  if dtype is dtypes.bool: return tok == "1"
  v = struct.unpack("<f", bytes.fromhex(tok)[::-1])[0]
  return math.nan if v != v else v


def decode(tokens: list[str], dtype: DType, shape: Shape) -> Any:
  """Raw output tokens as a Python value: a scalar, or nested lists of ``shape``."""
  flat = [decode_scalar(t, dtype) for t in tokens]
  if len(flat) != prod(shape): raise ValueError(f"expected {prod(shape)} values, got {len(flat)}")
  if not shape: return flat[0]

  def nest(at: int, dims: Shape) -> list[Any]:
    if len(dims) == 1: return flat[at:at + dims[0]]
    step = prod(dims[1:])
    return [nest(at + i * step, dims[1:]) for i in range(dims[0])]
  return nest(0, shape)
