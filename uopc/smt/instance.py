"""A rule's left side with symbolic leaves, for the prover: every hole of the pattern a PARAM (a z3 variable once
encoded), every constant hole a CONST taken from the dtype's edge values (``uopc.probe_values.EDGE_WIDE``), one
left side per choice of constants.

Deterministic, unlike ``uopc.backend.instances.Synth``: the first op of a pattern's op set that can make the wanted
dtype, the sources in the pattern's order, scalars only. What it cannot build (STACK, INDEX, movement ops, REDUCE,
CALL, RANGE in the pattern) raises ``NoLeftSide`` with the reason.

>>> from uopc.upat import UPat
>>> x, c = UPat.var("x"), UPat.cvar("c")
>>> from uopc.term import show
>>> [show(u) for u in left_sides(x * c + x, dtypes.i32, limit=2)]
['add(mul(p0, 0), p0)', 'add(mul(p0, 1), p0)']
"""
from __future__ import annotations

from itertools import islice, product
from typing import Iterator

from uopc.dtype import DType, dtypes, truncate
from uopc.ops import ALU, CAST, COMPARISON, CONST, FLOORDIV, FLOORMOD, UNARY, WHERE, Ops
from uopc.probe_values import EDGE_WIDE
from uopc.upat import UPat
from uopc.uop import UOp, UOpError


class NoLeftSide(ValueError):
  """The pattern has no left side this builder can make (the message says why)."""


_MAKES = {**{op: dtypes.bool for op in COMPARISON}, **{op: dtypes.f32 for op in UNARY}, FLOORDIV: dtypes.i32, FLOORMOD: dtypes.i32}


class _Builder:
  """One left side: ``choices[k]`` is the index into its dtype's edge values of the k-th constant hole."""

  def __init__(self, dtype: DType, choices: tuple[int, ...]):
    self.dtype, self.choices = dtype, choices
    self.holes: list[DType] = []   # the dtype of each constant hole met, in order
    self.slot = 0
    self.env: dict[str, UOp] = {}

  def node(self, pat: UPat, want: DType | None) -> UOp:
    if pat.name is not None and (u := self.env.get(pat.name)) is not None:
      if want is not None and u.dtype is not want: raise NoLeftSide(f"'{pat.name}' is used with two dtypes")
      return u
    u = self.leaf(pat, want) if pat.op is None and pat.src is None else self.build(pat, want)
    if pat.name is not None: self.env[pat.name] = u
    return u

  def pick(self, pat: UPat, want: DType | None, makes: DType | None = None) -> DType:
    d = want or makes or self.dtype
    if pat.dtype is not None and d not in pat.dtype:
      if want is not None or makes is not None: raise NoLeftSide(f"the pattern wants {'|'.join(sorted(x.name for x in pat.dtype))}, here {d.name}")
      d = sorted(pat.dtype, key=lambda x: x.name)[0]
    return d

  def leaf(self, pat: UPat, want: DType | None) -> UOp:
    self.slot += 1
    return UOp.param(self.slot - 1, self.pick(pat, want))

  def constant(self, pat: UPat, d: DType) -> UOp:
    if pat.arg is not None:
      v = truncate(d, pat.arg)
      if v != pat.arg: raise NoLeftSide(f"no {d.name} constant equals {pat.arg!r}")
      return UOp.const(v, d)
    k = len(self.holes)
    self.holes.append(d)
    pool = EDGE_WIDE[d]
    return UOp.const(pool[self.choices[k] % len(pool)] if k < len(self.choices) else pool[0], d)

  def build(self, pat: UPat, want: DType | None) -> UOp:
    ops = sorted(pat.op or ALU, key=lambda o: o.value)
    fits = [op for op in ops if op in ALU | {CONST} and (want is None or op not in _MAKES or _MAKES[op] is want)]
    if not fits: raise NoLeftSide(f"the builder makes scalar ALU ops and constants only, the pattern wants {', '.join(o.name for o in ops)}")
    op = fits[0]
    d = self.pick(pat, want, _MAKES.get(op))
    if op is CONST: return self.constant(pat, d)
    srcs = list(pat.src) if pat.src is not None else []
    n = 3 if op is WHERE else 1 if op in UNARY or op is CAST else 2
    srcs = (srcs + [UPat()] * n)[:n]
    wants: list[DType | None] = [dtypes.bool, d, d] if op is WHERE else [dtypes.f32] if op in UNARY else \
      [None] if op is CAST else [None, None] if op in COMPARISON else [d, d]
    if op in COMPARISON:   # both operands one dtype: the first's decides
      a = self.node(srcs[0], None)
      src = (a, self.node(srcs[1], a.dtype))
    else: src = tuple(self.node(p, w) for p, w in zip(srcs, wants))
    try: return UOp(op, src, None, d if op is CAST else None)
    except UOpError as e: raise NoLeftSide(str(e)) from None


def constant_holes(pattern: UPat, dtype: DType) -> list[DType]:
  """The dtypes of the pattern's constant holes (CONSTs without a fixed arg), in the order the builder meets them."""
  b = _Builder(dtype, ())
  b.node(pattern, None)
  return b.holes


def left_sides(pattern: UPat, dtype: DType, limit: int = 256) -> Iterator[UOp]:
  """Up to ``limit`` left sides of ``pattern`` whose leaves are ``dtype`` where the pattern leaves it free, one per
  choice of edge values for its constant holes (none: one left side). ``NoLeftSide`` if there is none."""
  holes = constant_holes(pattern, dtype)
  for choice in islice(product(*(range(len(EDGE_WIDE[d])) for d in holes)), limit):
    u = _Builder(dtype, choice).node(pattern, None)
    if pattern.match(u, {}): yield u
