"""The operations of the IR, and the groups rules refer to.

The member order is the order the chapter's per-op tables are printed in.
"""
from __future__ import annotations

from enum import Enum, auto


class Ops(Enum):
  """Every operation a ``UOp`` can have."""
  # hashing by identity keeps dict lookups keyed by op in C (Enum's own __hash__ is Python)
  __hash__ = object.__hash__

  CONST = auto(); PARAM = auto(); RANGE = auto(); STACK = auto(); CALL = auto(); INDEX = auto()  # noqa: E702
  CAST = auto(); RECIP = auto()                                                                # noqa: E702
  ADD = auto(); MUL = auto(); CMPLT = auto(); FLOORDIV = auto(); FLOORMOD = auto()              # noqa: E702
  WHERE = auto(); CMPNE = auto(); MAX = auto()                                                  # noqa: E702
  EXP2 = auto(); LOG2 = auto(); SQRT = auto(); SIN = auto()                                     # noqa: E702
  RESHAPE = auto(); EXPAND = auto(); PERMUTE = auto(); SHRINK = auto(); REDUCE = auto()         # noqa: E702

  def __repr__(self) -> str: return f"Ops.{self.name}"


UNARY = frozenset({Ops.RECIP, Ops.EXP2, Ops.LOG2, Ops.SQRT, Ops.SIN})
BINARY = frozenset({Ops.ADD, Ops.MUL, Ops.MAX, Ops.CMPLT, Ops.CMPNE, Ops.FLOORDIV, Ops.FLOORMOD})
ALU = frozenset(UNARY | BINARY | {Ops.WHERE, Ops.CAST})
COMMUTATIVE = frozenset({Ops.ADD, Ops.MUL, Ops.MAX, Ops.CMPNE})
COMPARISON = frozenset({Ops.CMPLT, Ops.CMPNE})
MOVEMENT = frozenset({Ops.RESHAPE, Ops.EXPAND, Ops.PERMUTE, Ops.SHRINK})
REDUCE_OPS = frozenset({Ops.ADD, Ops.MUL, Ops.MAX})
