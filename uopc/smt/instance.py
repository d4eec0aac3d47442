"""A rule's left side with symbolic leaves, for the prover: every hole of the pattern a PARAM (a z3 variable once
encoded), every constant hole a CONST taken from the dtype's edge values (``uopc.probe_values.EDGE_WIDE``).

Left side 0 takes the first option at every choice (the first op of a pattern's op set that can make the wanted
dtype, the first edge value); the others draw the choices from ``random.Random(k)``, so the list is the same on every
run. With ``forms``, an i32 hole may also become a small expression over fresh PARAMs (``p0 * 7 + p1``, ``p0 % 7``,
...): what a rule that looks into its leaves, or at their bounds, needs to fire. Scalars only; what the builder
cannot make (STACK, INDEX, movement ops, REDUCE, CALL, RANGE in the pattern) raises ``NoLeftSide`` with the reason.

>>> from uopc.upat import UPat
>>> from uopc.term import show
>>> x, c = UPat.var("x"), UPat.cvar("c")
>>> [show(u) for u in left_sides(x * c + x, dtypes.i32, limit=3)]
['add(mul(p0, 0), p0)', 'add(mul(p0, 1073741824), p0)', 'add(mul(p0, 4), p0)']
>>> from uopc.ops import Ops
>>> show(next(left_sides(UPat(Ops.INDEX, src=(UPat(Ops.STACK), UPat.cvar("i"))), dtypes.i32, shaped=True)))
'index(stack(p0, p1, p2), 0)'
"""
from __future__ import annotations

import random
from typing import Any, Callable, Iterator, Sequence

from uopc.dtype import DType, dtypes, truncate
from uopc.ops import (ALU, BINARY, CALL, CAST, COMPARISON, CONST, EXPAND, FLOORDIV, FLOORMOD, INDEX, MOVEMENT, PARAM, PERMUTE, REDUCE, RESHAPE,
                      SHRINK, STACK, UNARY, WHERE, Ops)
from uopc.probe_values import EDGE_WIDE
from uopc.upat import UPat
from uopc.uop import UOp, UOpError

from uopc.smt.concolic import Symbolic, Unfollowable, bounded_leaf, hole


class NoLeftSide(ValueError):
  """The pattern has no left side this builder can make (the message says why)."""


class Inapplicable(NoLeftSide):
  """The pattern's leaves cannot have the dtype asked for (``xi + xi`` at f32)."""


_MAKES = {**{op: dtypes.bool for op in COMPARISON}, **{op: dtypes.f32 for op in UNARY}, FLOORDIV: dtypes.i32, FLOORMOD: dtypes.i32}
FORM_CONSTANTS = (2, 3, 4, 7, 8, 16, -2, -4)
SHAPED_OPS = MOVEMENT | {REDUCE, STACK, INDEX, CALL}
# (source shape, arg) of each movement op and REDUCE the shaped builder makes: every kind of element map, small
MOVES: dict[Ops, list[tuple[tuple[int, ...], Any]]] = {
  RESHAPE: [((2, 3), (3, 2)), ((2, 3), (6,))], EXPAND: [((1, 3), (2, 3)), ((2, 1), (2, 2))], PERMUTE: [((2, 3), (1, 0))],
  SHRINK: [((2, 3), ((0, 2), (1, 3))), ((3,), ((1, 3),))],
  REDUCE: [((2, 3), (Ops.ADD, 1)), ((2, 3), (Ops.MUL, 1)), ((2, 2), (Ops.MAX, 1)), ((2, 2), (Ops.ADD, 2)), ((3,), (Ops.MAX, 1))]}
# CALL bodies over the body's PARAMs 0 and 1 (each used), then one with each op at its root: beta reduction brings that op up
# to where the CALL was (a termination measure must rank CALL above each); a body that does not type-check at a dtype is skipped
BODIES: tuple[Callable[[UOp, UOp], UOp], ...] = (
  lambda a, b: a * b + a, lambda a, b: a.max(b), lambda a, b: (a < b).where(b, a),
  *(lambda a, b, op=op: UOp(op, (a, b)) for op in sorted(BINARY, key=lambda o: o.value)),
  *(lambda a, b, op=op: UOp(op, (a * b,)) for op in sorted(UNARY, key=lambda o: o.value)),
  lambda a, b: a.max(b).cast(dtypes.i32 if a.dtype is dtypes.f32 else dtypes.f32), lambda a, b: UOp.stack(a, b),
  lambda a, b: UOp.stack(a, b).index(0), lambda a, b: a.max(b).reshape((1, *a.shape)),
  lambda a, b: a.max(b).reshape((1, *a.shape)).expand((2, *a.shape)), lambda a, b: UOp.stack(a, b).permute(tuple(range(len(a.shape) + 1))),
  lambda a, b: UOp.stack(a, b).shrink(((0, 1), *((0, n) for n in a.shape))), lambda a, b: UOp.stack(a, b).reduce(Ops.ADD, len(a.shape) + 1))


def _forms(b: _Builder) -> list[Callable[[int], UOp]]:
  """i32 leaves with structure (each given its constant): sums of multiples, bounded remainders, a cast bool."""
  return [lambda c: b.param(dtypes.i32), lambda c: b.param(dtypes.i32) * c + b.param(dtypes.i32), lambda c: b.param(dtypes.i32) % c,
          lambda c: b.param(dtypes.i32) // c, lambda c: b.param(dtypes.i32) * c, lambda c: b.param(dtypes.i32) + c,
          lambda c: b.param(dtypes.bool).cast(dtypes.i32), lambda c: b.param(dtypes.i32).max(0) % c]


class _Builder:
  """One left side; ``rng`` None takes the first option at every choice. ``symbolic``: constant holes are symbolic
  (``concolic.hole``), and with ``constant_leaves`` every free leaf is one too."""

  def __init__(self, dtype: DType, rng: random.Random | None, forms: bool, symbolic: bool = False, constant_leaves: bool = False,
               bounded: bool = False, shaped: bool = False):
    self.dtype, self.rng, self.forms = dtype, rng, forms
    self.symbolic, self.constant_leaves, self.bounded, self.shaped = symbolic, constant_leaves, bounded, shaped
    self.holes: list[DType] = []   # the dtype of each constant hole met, in order
    self.slot = 0
    self.env: dict[str, UOp] = {}
    self.theme = self.choose(FORM_CONSTANTS)   # structured leaves share one constant, and the rule's constants often meet it

  def choose(self, options: Sequence[Any]) -> Any: return options[0] if self.rng is None else self.rng.choice(options)

  def node(self, pat: UPat, want: DType | None, shape: tuple[int, ...] | None = None) -> UOp:
    """A node for ``pat`` of dtype ``want`` (None: any) and, in a shaped left side, of ``shape`` (None: any)."""
    if pat.name is not None and (u := self.env.get(pat.name)) is not None:
      if want is not None and u.dtype is not want: raise NoLeftSide(f"'{pat.name}' is used with two dtypes")
      if shape is not None and u.shape != shape: raise NoLeftSide(f"'{pat.name}' is used with two shapes")
      return u
    try: u = self.leaf(pat, want, shape) if pat.op is None and pat.src is None else self.build(pat, want, shape)
    except UOpError as e: raise NoLeftSide(str(e)) from None
    if pat.name is not None: self.env[pat.name] = u
    return u

  def pick(self, pat: UPat, want: DType | None, makes: DType | None = None) -> DType:
    d = want or makes or self.dtype
    if pat.dtype is not None and d not in pat.dtype:
      if want is not None or makes is not None: raise NoLeftSide(f"the pattern wants {'|'.join(sorted(x.name for x in pat.dtype))}, here {d.name}")
      d = sorted(pat.dtype, key=lambda x: x.name)[0]
    return d

  def param(self, d: DType, shape: tuple[int, ...] = ()) -> UOp:
    self.slot += 1
    return UOp.param(self.slot - 1, d, shape)

  def leaf(self, pat: UPat, want: DType | None, shape: tuple[int, ...] | None = None) -> UOp:
    d = self.pick(pat, want)
    if shape: return self.shaped_leaf(d, shape)
    if self.constant_leaves:
      self.holes.append(d)
      return hole(len(self.holes) - 1, d)
    if self.bounded and d is dtypes.i32:
      self.slot += 1
      return bounded_leaf(self.slot - 1)[0]
    if self.forms and d is dtypes.i32: return self.choose(_forms(self))(self.theme)
    return self.param(d)

  def constant(self, pat: UPat, d: DType) -> UOp:
    if pat.arg is not None:
      v = truncate(d, pat.arg)
      if v != pat.arg: raise NoLeftSide(f"no {d.name} constant equals {pat.arg!r}")
      return UOp.const(v, d)
    self.holes.append(d)
    if self.symbolic: return hole(len(self.holes) - 1, d)
    # with structured leaves, an i32 constant from theirs: (p0 * 7 + p1) // 7 needs the two 7s to meet
    return UOp.const(self.choose((self.theme, *FORM_CONSTANTS) if self.forms and d is dtypes.i32 else EDGE_WIDE[d]), d)

  def shaped_leaf(self, d: DType, shape: tuple[int, ...]) -> UOp:
    """A value of ``shape``: a STACK of rows (their leaves constants with ``constant_leaves``), or a shaped PARAM."""
    if not shape: return self.leaf(UPat(), d)
    if self.constant_leaves or self.choose((True, False)): return UOp(STACK, tuple(self.shaped_leaf(d, shape[1:]) for _ in range(shape[0])))
    return self.param(d, shape)

  def build(self, pat: UPat, want: DType | None, shape: tuple[int, ...] | None = None) -> UOp:
    ops = sorted(pat.op or ALU, key=lambda o: o.value)
    makes = ALU | {CONST} | (SHAPED_OPS if self.shaped else set())
    fits = [op for op in ops if op in makes and (want is None or op not in _MAKES or _MAKES[op] is want)]
    if not fits:
      what = "ALU ops, constants and shaped values" if self.shaped else "scalar ALU ops and constants"
      raise NoLeftSide(f"the builder makes {what} only, the pattern wants {', '.join(o.name for o in ops)}")
    op = self.choose(fits)
    d = self.pick(pat, want, _MAKES.get(op))
    if op is CAST and want is None and pat.dtype is None:   # a CAST to any dtype from the leaves' (left side 0: to theirs)
      d = self.choose((self.dtype, *[t for t in dtypes.all if t is not self.dtype]))
    if op is CONST: return self.constant(pat, d)
    if op in SHAPED_OPS: return self.shaped_op(op, pat, d, shape)
    if self.shaped and shape is None: shape = (2,)   # an ALU op of a shaped left side works on rows
    srcs = list(pat.src) if pat.src is not None else []
    n = 3 if op is WHERE else 1 if op in UNARY or op is CAST else 2
    srcs = (srcs + [UPat()] * n)[:n]
    wants: list[DType | None] = [dtypes.bool, d, d] if op is WHERE else [dtypes.f32] if op in UNARY else [None] if op is CAST else [d, d]
    src: tuple[UOp, ...]
    if op in COMPARISON:   # both operands one dtype: the first's decides
      a = self.node(srcs[0], None, shape)
      src = (a, self.node(srcs[1], a.dtype, shape))
    else: src = tuple(self.node(p, w, shape) for p, w in zip(srcs, wants))
    return UOp(op, src, None, d if op is CAST else None)

  def shaped_op(self, op: Ops, pat: UPat, d: DType, shape: tuple[int, ...] | None) -> UOp:
    """A STACK, INDEX, movement op, REDUCE or CALL of dtype ``d`` (and of ``shape``, where given)."""
    srcs = list(pat.src) if isinstance(pat.src, tuple) else []
    if op is STACK:
      rows, row = (shape[0], shape[1:]) if shape else (self.choose((2, 3)), ())
      pats = srcs if srcs else [UPat()] * rows
      return UOp(STACK, tuple(self.node(p, d, row) for p in pats))
    if op is INDEX:
      out = shape if shape is not None else self.choose(((), (2,)))
      extra = self.choose((0, 1)) if pat.allow_any_len or not srcs else 0
      dims = (3, 2, 2)[:len(srcs[1:]) + extra]
      idx = [self.node(p, dtypes.i32, ()) for p in srcs[1:]]
      idx += [self.choose((lambda n: self.param(dtypes.i32), lambda n: UOp.const(0), lambda n: UOp.const(n - 1)))(n) for n in dims[len(idx):]]
      return UOp(INDEX, (self.node(srcs[0] if srcs else UPat(), d, (*dims, *out)), *idx))
    if op is CALL:
      if srcs: raise NoLeftSide("the builder makes CALLs of its own bodies only")
      body = self.choose(BODIES)(UOp.param(0, d, shape or ()), UOp.param(1, d, shape or ()))
      args = [self.leaf(UPat(), d, shape) for _ in range(2)]
      return UOp(CALL, (body, args[1], args[0]))   # the outer p1 into the body's p0: scopes apart
    inner, arg = self.choose(MOVES[op])
    return UOp(op, (self.node(srcs[0] if srcs else UPat(), d, inner),), arg)


def _leaves_have(u: UOp, dtype: DType) -> bool:
  """Is ``dtype`` the dtype of a PARAM of ``u`` (of a CONST, if it has no PARAM)?"""
  nodes = u.toposort()
  leaves = [n for n in nodes if n.op is PARAM] or [n for n in nodes if n.op is CONST]
  return any(n.dtype is dtype for n in leaves)


def constant_holes(pattern: UPat, dtype: DType, shaped: bool = False) -> list[DType]:
  """The dtypes of the pattern's constant holes (CONSTs without a fixed arg) in left side 0 (shaped, with ``shaped``);
  ``Inapplicable`` if its leaves cannot be ``dtype``."""
  b = _Builder(dtype, None, False, shaped=shaped)
  try: u = b.node(pattern, None)
  except NoLeftSide:
    if any(_builds(pattern, d, shaped) for d in dtypes.all if d is not dtype):
      raise Inapplicable(f"the pattern's leaves cannot be {dtype.name}") from None
    raise
  if not _leaves_have(u, dtype): raise Inapplicable(f"the pattern's leaves cannot be {dtype.name}")
  return b.holes


def _builds(pattern: UPat, dtype: DType, shaped: bool = False) -> bool:
  try: _Builder(dtype, None, False, shaped=shaped).node(pattern, None)
  except NoLeftSide: return False
  return True


def left_sides(pattern: UPat, dtype: DType, limit: int = 64, forms: bool = False, symbolic: bool = False,
               constant_leaves: bool = False, bounded: bool = False, shaped: bool = False) -> Iterator[UOp]:
  """Up to ``limit`` distinct left sides of ``pattern`` whose leaves are ``dtype`` where the pattern leaves it free
  (see the module's docstring); ``NoLeftSide`` if the builder can make none. ``symbolic``: constant holes are
  symbolic constants (``concolic.hole``, named ``c0``, ``c1``, ... in order), and with ``constant_leaves`` every free
  leaf is one too (a rule that fires on constants only: ``fold-const``); with ``bounded``, every free i32 leaf is a
  PARAM with symbolic bounds (``concolic.bounded_leaf``: a rule that reads its leaves' bounds); with ``shaped``, leaves
  are shaped values and the builder makes shaped ops (the module's docstring)."""
  seen: set[Any] = set()
  for k in range(limit * 4):
    try: u = _Builder(dtype, None if k == 0 else random.Random(k), forms, symbolic, constant_leaves, bounded, shaped).node(pattern, None)
    except NoLeftSide:
      if k == 0: raise
      continue
    key = signature(u)
    try:
      if key in seen or not pattern.match(u, {}): continue
    except Unfollowable: continue   # it matches or not by a symbolic constant's value (a constant leaf against x + 1's 1)
    seen.add(key)
    yield u
    if len(seen) == limit: return


def signature(u: UOp) -> tuple[Any, ...]:
  """``u``'s structure, a symbolic constant by its name: two left sides with one signature are one left side."""
  index: dict[UOp, int] = {}
  out = []
  for n in u.toposort():
    index[n] = len(index)
    out.append((n.op, n.dtype, repr(n.arg) if isinstance(n.arg, Symbolic) else n.arg, tuple(index[s] for s in n.src)))
  return tuple(out)


def holes_of(u: UOp) -> list[UOp]:
  """The symbolic constants of ``u``, by name."""
  return sorted((n for n in u.toposort() if n.op is CONST and isinstance(n.arg, Symbolic)), key=lambda n: int(repr(n.arg)[1:]))
