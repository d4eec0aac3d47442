"""A uopc program (a ``.uir`` file, a ``uopc.UOp``) as tinygrad nodes, over the ops the two IRs share.

The scalar ALU ops have the same names and meaning in both (``add``, ``mul``, ``max``, ``cmplt``,
``cmpne``, ``floordiv``, ``floormod``, ``where``, ``exp2``, ``log2``, ``sqrt``, ``sin``; uopc's
``recip`` is tinygrad's ``RECIPROCAL``), and ``cast``. uopc's dtypes become tinygrad's ``bool``,
``int32`` and ``float32`` (uopc's i32 wraps as tinygrad's ``int32`` does; ``ints=dtypes.weakint``
builds index arithmetic instead, which does not wrap, as tinygrad's own index expressions are). A
scalar ``PARAM`` of slot k becomes ``UOp.variable("pk", ...)`` bounded by its dtype's range (or
``bounds``); a constant, ``UOp.const``. Anything else (shaped values, ``STACK``, ``INDEX``, ``CALL``,
``REDUCE``...) is a ``ValueError`` naming the op.

>>> from uopc import UOp
>>> from uopc.term import show
>>> from tinygrad.dtype import dtypes
>>> p0, p1 = UOp.param(0), UOp.param(1)
>>> t = from_uopc((p0 + p1) * 2, ints=dtypes.weakint, bounds=(0, 10))
>>> show(t), t.dtype, t.src[0].src[0].vmax
('mul(add(p0, p1), 2)', dtypes.weakint, 10)
"""
from __future__ import annotations

from typing import Any

from tinygrad.dtype import dtypes
from tinygrad.uop.ops import Ops, UOp

from uopc.dtype import dtypes as udtypes
from uopc.ops import Ops as UOps
from uopc.relational.ir import ir_of   # tinygrad's IR by its node type (tinygrad.py imports this module: no import back)
from uopc.uop import UOp as UUOp

_OPS = {getattr(UOps, n): getattr(Ops, n) for n in ("ADD", "MUL", "MAX", "CMPLT", "CMPNE", "FLOORDIV", "FLOORMOD", "WHERE", "EXP2",
                                                     "LOG2", "SQRT", "SIN", "CAST")} | {UOps.RECIP: Ops.RECIPROCAL}


def from_uopc(u: UUOp, ints: Any = dtypes.int32, bounds: tuple[Any, Any] | None = None) -> UOp:
  """``u`` as tinygrad nodes (see the module doc): ``ints`` is the dtype of uopc's i32, ``bounds`` every int variable's."""
  dts = {udtypes.bool: dtypes.bool, udtypes.i32: ints, udtypes.f32: dtypes.float32}
  make = ir_of(UOp.const(0, dtypes.int32)).make   # tinygrad's constructor with its dtype rules checked
  out: dict[UUOp, UOp] = {}
  for n in u.toposort():   # sources first, no recursion
    if n.shape: raise ValueError(f"{n.op.name.lower()} of shape {n.shape}: tinygrad nodes are built of scalar programs only")
    dt = dts[n.dtype]
    if n.op is UOps.CONST: out[n] = UOp.const(n.arg, dt)
    elif n.op is UOps.PARAM: out[n] = _variable(f"p{n.arg.slot}", dt, bounds)
    elif (op := _OPS.get(n.op)) is not None:
      src = tuple(out[s] for s in n.src)
      out[n] = make(op, src, dt if op is Ops.CAST else None, dt)
    else: raise ValueError(f"{n.op.name.lower()} is not an op tinygrad's nodes share with uopc's (the scalar ALU ops, cast, const, param)")
  return out[u]


def _variable(name: str, dt: Any, bounds: tuple[Any, Any] | None) -> UOp:
  if dt is dtypes.bool: return UOp.variable(name, False, True, dt)
  if dtypes.is_float(dt): return UOp.variable(name, float("-inf"), float("inf"), dt)
  lo, hi = bounds if bounds is not None else (-2**31, 2**31 - 1)
  return UOp.variable(name, lo, hi, dt)
