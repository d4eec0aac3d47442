"""Shapes, per element: which source element each output element of a movement op, REDUCE or INDEX reads.

Values are flat lists of elements in row-major order, as the C backend's buffers hold them.

>>> from uopc.uop import UOp
>>> source_elements(UOp.param(0, shape=(2, 3)).permute((1, 0)))
[0, 3, 1, 4, 2, 5]
>>> source_elements(UOp.param(0, shape=(1, 2)).expand((2, 2)))
[0, 1, 0, 1]
>>> reduce_groups(UOp.param(0, shape=(2, 3)).reduce(Ops.ADD, 1))
[[0, 1, 2], [3, 4, 5]]
"""
from __future__ import annotations

from itertools import product

from uopc.ops import Ops
from uopc.uop import Shape, UOp, prod


def strides(shape: Shape) -> list[int]:
  """Row-major strides of ``shape`` (in elements)."""
  out, acc = [], 1
  for d in reversed(shape): out.append(acc); acc *= d
  return out[::-1]


def source_elements(u: UOp) -> list[int]:
  """For RESHAPE, EXPAND, PERMUTE or SHRINK ``u``: the flat source index of each output element, in order."""
  src_shape = u.src[0].shape
  if u.op is Ops.RESHAPE: return list(range(prod(u.shape)))
  st = strides(src_shape)
  if u.op is Ops.EXPAND: return [sum(0 if d == 1 else x * s for x, d, s in zip(at, src_shape, st)) for at in product(*map(range, u.shape))]
  if u.op is Ops.PERMUTE:
    axis_strides = [st[a] for a in u.arg]   # output axis k walks source axis u.arg[k]
    return [sum(x * s for x, s in zip(at, axis_strides)) for at in product(*map(range, u.shape))]
  if u.op is Ops.SHRINK: return [sum((x + b) * s for x, (b, _), s in zip(at, u.arg, st)) for at in product(*map(range, u.shape))]
  raise ValueError(f"{u.op.name} is not a movement op")


def reduce_groups(u: UOp) -> list[list[int]]:
  """For REDUCE ``u``: the flat source indices each output element folds, left to right."""
  k = u.arg[1]
  src_shape = u.src[0].shape
  inner = prod(src_shape[len(src_shape) - k:])
  return [list(range(o * inner, (o + 1) * inner)) for o in range(prod(u.shape))]


def index_rows(base_shape: Shape, n_indices: int) -> tuple[list[int], int]:
  """For INDEX with ``n_indices`` indices into ``base_shape``: the dims they select among and the elements per
  selected row (a row: the contiguous block left after fixing the leading indices)."""
  return list(base_shape[:n_indices]), prod(base_shape[n_indices:])
