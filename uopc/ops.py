"""The operations of the IR, and the groups rules refer to.

``Ops`` behaves like an enum (``Ops.ADD``, ``Ops["ADD"]``, ``list(Ops)``, ``.name``) but
its members are plain class attributes: ``enum.Enum`` member lookup goes through a
Python-level ``__getattr__`` hook that costs ~200 ns, and ``Ops.X`` is on every hot path.

>>> Ops.ADD, Ops["ADD"] is Ops.ADD, list(Ops)[:2]
(Ops.ADD, True, [Ops.CONST, Ops.PARAM])
"""
from __future__ import annotations

from typing import Iterator

# member order is the order the chapter's per-op tables print in
_NAMES = ("CONST PARAM RANGE STACK CALL INDEX CAST RECIP ADD MUL CMPLT FLOORDIV FLOORMOD WHERE CMPNE MAX "
          "EXP2 LOG2 SQRT SIN RESHAPE EXPAND PERMUTE SHRINK REDUCE").split()


class _OpsMeta(type):
  _members: list[Ops]         # set on Ops below: the members in order
  _by_name: dict[str, Ops]
  def __iter__(cls) -> Iterator[Ops]: return iter(cls._members)
  def __len__(cls) -> int: return len(cls._members)
  def __getitem__(cls, name: str) -> Ops: return cls._by_name[name]


class Ops(metaclass=_OpsMeta):
  """Every operation a ``UOp`` can have; members compare and hash by identity."""
  __slots__ = ("name", "value")
  _members: list[Ops] = []
  _by_name: dict[str, Ops] = {}
  CONST: Ops; PARAM: Ops; RANGE: Ops; STACK: Ops; CALL: Ops; INDEX: Ops; CAST: Ops; RECIP: Ops
  ADD: Ops; MUL: Ops; CMPLT: Ops; FLOORDIV: Ops; FLOORMOD: Ops; WHERE: Ops; CMPNE: Ops; MAX: Ops
  EXP2: Ops; LOG2: Ops; SQRT: Ops; SIN: Ops; RESHAPE: Ops; EXPAND: Ops; PERMUTE: Ops; SHRINK: Ops; REDUCE: Ops

  def __init__(self, name: str, value: int):
    self.name, self.value = name, value

  def __repr__(self) -> str: return f"Ops.{self.name}"
  def __reduce__(self): return (Ops.__getitem__, (self.name,))   # unpickles to the same member
  def __copy__(self) -> Ops: return self
  def __deepcopy__(self, memo: dict) -> Ops: return self


for _value, _name in enumerate(_NAMES, 1):
  _member = Ops(_name, _value)
  setattr(Ops, _name, _member)
  Ops._members.append(_member)
  Ops._by_name[_name] = _member
del _value, _name, _member

# Every op as a module-level name: ``from uopc.ops import ADD`` binds a global of the importing
# module, one cached load on a hot path, where ``Ops.ADD`` is a class attribute lookup (a
# dictionary walk on every use in CPython 3.11). The one spelling for every module.
CONST, PARAM, RANGE, STACK, CALL, INDEX, CAST, RECIP = Ops.CONST, Ops.PARAM, Ops.RANGE, Ops.STACK, Ops.CALL, Ops.INDEX, Ops.CAST, Ops.RECIP
ADD, MUL, CMPLT, FLOORDIV, FLOORMOD, WHERE, CMPNE, MAX = Ops.ADD, Ops.MUL, Ops.CMPLT, Ops.FLOORDIV, Ops.FLOORMOD, Ops.WHERE, Ops.CMPNE, Ops.MAX
EXP2, LOG2, SQRT, SIN, RESHAPE, EXPAND, PERMUTE, SHRINK, REDUCE = (Ops.EXP2, Ops.LOG2, Ops.SQRT, Ops.SIN, Ops.RESHAPE, Ops.EXPAND, Ops.PERMUTE,
                                                                   Ops.SHRINK, Ops.REDUCE)

UNARY = frozenset({Ops.RECIP, Ops.EXP2, Ops.LOG2, Ops.SQRT, Ops.SIN})
BINARY = frozenset({Ops.ADD, Ops.MUL, Ops.MAX, Ops.CMPLT, Ops.CMPNE, Ops.FLOORDIV, Ops.FLOORMOD})
ALU = frozenset(UNARY | BINARY | {Ops.WHERE, Ops.CAST})
ARGLESS = frozenset(ALU | {Ops.STACK, Ops.INDEX, Ops.RANGE})   # ops whose arg is always None (a CAST's dtype is its dtype)
COMMUTATIVE = frozenset({Ops.ADD, Ops.MUL, Ops.MAX, Ops.CMPNE})
COMPARISON = frozenset({Ops.CMPLT, Ops.CMPNE})
MOVEMENT = frozenset({Ops.RESHAPE, Ops.EXPAND, Ops.PERMUTE, Ops.SHRINK})
REDUCE_OPS = frozenset({Ops.ADD, Ops.MUL, Ops.MAX})


def arity(op: Ops) -> tuple[int, int | None]:
  """How many sources ``op`` takes, as (min, max); max None is unbounded. Movement ops count their source only.

  >>> arity(Ops.WHERE), arity(Ops.STACK)
  ((3, 3), (1, None))
  """
  if op in (Ops.CONST, Ops.PARAM): return (0, 0)
  if op in (Ops.STACK, Ops.INDEX, Ops.CALL): return (1, None)
  if op is Ops.WHERE: return (3, 3)
  if op in BINARY: return (2, 2)
  return (1, 1)   # unary, CAST, RANGE, movement, REDUCE
