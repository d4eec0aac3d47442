"""A UOp graph as z3 terms: one term per element of the root, and the condition under which the program is defined.

Iterative (one pass over ``toposort``, no recursion), so graphs of any depth encode. PARAMs become z3 constants
(``p<slot>`` for a scalar, ``p<slot>_<i>`` for element ``i`` of a shaped one), RANGE a constant ``0 <= r < end``
(an assumption: a RANGE has no value of its own outside a loop), CALLs are inlined first as the C backend does.

Definedness is the C program's: the kernel computes every element of every node it keeps (both branches of a
WHERE, all of a buffer a SHRINK or INDEX reads part of), and fails if any of them is undefined, so ``defined`` is
the conjunction of every node's conditions (``ops.Elem.defined``, INDEX bounds). ``run()`` may drop a dead
undefined subterm (``where(True, x, 1 // 0)``); C, and this encoding, do not.

>>> from uopc.uop import UOp
>>> e = encode(UOp.param(0, shape=(2,)) // UOp.param(1).broadcast((2,)))
>>> e.variables, len(e.elements), e.dtype
({0: [p0_0, p0_1], 1: [p1]}, 2, dtypes.i32)
"""
from __future__ import annotations

from itertools import product
from typing import Any, NamedTuple

from uopc.dtype import DType, dtypes
from uopc.ops import ALU, CALL, CONST, INDEX, MOVEMENT, PARAM, RANGE, REDUCE, STACK, WHERE, Ops
from uopc.uop import Shape, UOp, prod

from uopc.backend.lower import inline_calls
from uopc.smt.layout import index_rows, reduce_groups, source_elements, strides
from uopc.smt.ops import ENCODED_ALU, UNINTERPRETED, alu, combine
from uopc.smt.solver import require
from uopc.smt.sorts import i32_val, in_range, value_term, variable


ENCODED = ENCODED_ALU | {CONST, PARAM, RANGE, STACK, CALL, INDEX, REDUCE} | MOVEMENT
"""Every op with an encoding (EXP2, LOG2 and SIN in part: ``ops.UNINTERPRETED``)."""
NOT_ENCODED: dict[Ops, str] = {}
"""The ops without one, and why: none."""


class NotEncodable(ValueError):
  """A graph this encoding has no term for (a REDUCE over an empty axis: no first element to start from)."""


class Encoding(NamedTuple):
  """The root's elements (row-major), its dtype and shape, and what the terms are over."""
  elements: list[Any]
  dtype: DType
  shape: Shape
  defined: Any                       # a z3 Bool: the program has a value (C does not fail)
  variables: dict[int, list[Any]]    # PARAM slot -> its element constants, row-major
  assumptions: list[Any]             # what the constants range over beyond their sorts (RANGE bounds)
  uninterpreted: frozenset[Ops]      # the ops whose values are in part an uninterpreted function (ops.UNINTERPRETED)


class _Node(NamedTuple):
  elements: list[Any]
  conditions: list[Any]   # this node's own definedness conditions (not its sources')


def param_names(p: UOp) -> list[str]:
  """The z3 names of a PARAM's elements."""
  slot = p.arg.slot
  return [f"p{slot}"] if p.shape == () else [f"p{slot}_{i}" for i in range(prod(p.shape))]


class Encoder:
  """Encodes graphs, sharing the terms of common nodes (and the RANGE constants) between calls: a rule's two sides
  encoded by one Encoder talk about the same variables. With ``ints``, i32 values are Ints (``sorts``: the same
  values, each in range by an assumption), which makes division by a constant linear."""

  def __init__(self, ints: bool = False) -> None:
    self.z3 = require()
    self.ints = ints
    self.memo: dict[UOp, _Node] = {}
    self.ranges: dict[UOp, Any] = {}
    self.i32 = variable("i32", dtypes.i32, ints)   # a term of the i32 sort, which i32 values and casts follow

  def encode(self, u: UOp) -> Encoding:
    """``u``'s elements and the condition that its C program succeeds."""
    if any(n.op is CALL for n in u.toposort()): u = inline_calls(u)
    order = u.toposort()
    for n in order:
      if n not in self.memo: self.memo[n] = self._node(n)
    z3 = self.z3
    conditions = [c for n in order for c in self.memo[n].conditions]
    variables = {n.arg.slot: self.memo[n].elements for n in order if n.op is PARAM}
    assumptions = [self._range_bounds(n) for n in order if n.op is RANGE]
    if self.ints: assumptions += [in_range(c) for n in order if n.op is PARAM and n.dtype is dtypes.i32 for c in self.memo[n].elements]
    defined = conditions[0] if len(conditions) == 1 else z3.And(conditions) if conditions else z3.BoolVal(True)
    return Encoding(self.memo[u].elements, u.dtype, u.shape, defined,
                    variables, assumptions, frozenset(n.op for n in order if n.op in UNINTERPRETED))

  def _range_bounds(self, n: UOp) -> Any:
    r, end = self.ranges[n], self.memo[n.src[0]].elements[0]
    return self.z3.And(r >= i32_val(0, r), r < end)

  def _node(self, n: UOp) -> _Node:
    op = n.op
    if op is CONST: return _Node([value_term(n.arg, n.dtype, self.ints)], [])
    if op is PARAM: return _Node([variable(name, n.dtype, self.ints) for name in param_names(n)], [])
    if op is RANGE:
      self.ranges[n] = r = variable(f"range{len(self.ranges)}", dtypes.i32, self.ints)
      return _Node([r], [])
    srcs = [self.memo[s].elements for s in n.src]
    if op in ALU: return self._alu(n, srcs)
    if op is STACK: return _Node([e for s in srcs for e in s], [])
    if op in MOVEMENT: return _Node([srcs[0][i] for i in source_elements(n)], [])
    if op is REDUCE: return self._reduce(n, srcs[0])
    if op is INDEX: return self._index(n, srcs[0], [s[0] for s in srcs[1:]])
    raise NotEncodable(f"no encoding for {op.name}")

  def _alu(self, n: UOp, srcs: list[list[Any]]) -> _Node:
    operand = n.src[1].dtype if n.op is WHERE else n.src[0].dtype
    elements, conditions = [], []
    for args in zip(*srcs):
      e = alu(n.op, list(args), operand, n.dtype, self.i32)
      elements.append(e.value)
      if not self.z3.is_true(e.defined): conditions.append(e.defined)
    return _Node(elements, conditions)

  def _reduce(self, n: UOp, src: list[Any]) -> _Node:
    rop = n.arg[0]
    out = []
    for group in reduce_groups(n):
      if not group: raise NotEncodable(f"REDUCE over an empty axis of {n.src[0].shape} has no value")
      acc = src[group[0]]
      for i in group[1:]: acc = combine(rop, acc, src[i], n.dtype)
      out.append(acc)
    return _Node(out, [])

  def _index(self, n: UOp, base: list[Any], idx: list[Any]) -> _Node:
    """Constant indices select a block; symbolic ones select among every block (an if-chain) and must be in bounds."""
    if not idx: return _Node(base, [])
    z3 = self.z3
    dims, row = index_rows(n.src[0].shape, len(idx))
    bounds = [z3.And(i >= i32_val(0, i), i < i32_val(d, i)) for i, d in zip(idx, dims)]
    conditions = [b for b in map(z3.simplify, bounds) if not z3.is_true(b)]
    idx = [z3.simplify(i) for i in idx]
    if all(z3.is_bv_value(i) or z3.is_int_value(i) for i in idx) and not conditions:
      at = sum((i.as_signed_long() if z3.is_bv_value(i) else i.as_long()) * s for i, s in zip(idx, strides(tuple(dims)))) * row
      return _Node(base[at:at + row], [])
    rows = list(product(*map(range, dims)))
    out = []
    for j in range(row):
      value = base[(prod(dims) - 1) * row + j]   # the last block where no earlier one matches (or out of bounds)
      for r in reversed(range(len(rows) - 1)):
        value = z3.If(z3.And([i == i32_val(x, i) for i, x in zip(idx, rows[r])]), base[r * row + j], value)
      out.append(value)
    return _Node(out, conditions)


def encode(u: UOp, ints: bool = False) -> Encoding:
  """``u`` as z3 terms (see the module's docstring); i32 as Ints with ``ints``."""
  return Encoder(ints).encode(u)
