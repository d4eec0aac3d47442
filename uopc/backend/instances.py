"""Random instances of a ``UPat``: nodes the pattern matches, for testing rules.

``Synth(rng).instance(pat)`` builds a node top-down from the pattern: the op is chosen
from the pattern's op set, the dtype from what the pattern allows *and* what the op's
typing rules leave possible, sources follow the pattern's sources (a list in a random
order, since a list matches in any order; ``allow_any_len`` may add extra ones), a
repeated name reuses its node, and a CONST hole takes an edge constant (``uopc.probe_values.EDGE_WIDE``: 0, 1, -1, 2,
2**31-1, -2**31, 0.0, -0.0, 1.0, inf, -inf, nan, True, False, ...) or a random one.
A hole (a pattern with no op) becomes a fresh PARAM, a constant, or a small bounded
expression such as ``p3 % 7`` (what bounds-based rules need to fire), depending on a
per-instance leaf mode; shapes are used where the pattern does not force scalars.

>>> import random
>>> from uopc.upat import UPat
>>> from uopc.term import show
>>> s = Synth(random.Random(1))
>>> u = s.instance(UPat.var("x", dtype=dtypes.i32) + UPat.var("x", dtype=dtypes.i32))
>>> u.op, u.src[0] is u.src[1], u.dtype
(Ops.ADD, True, dtypes.i32)

A pattern nothing can match raises ``NoInstance`` with the reason:

>>> s.instance(UPat(Ops.FLOORDIV, dtype=dtypes.f32))
Traceback (most recent call last):
  ...
uopc.backend.instances.NoInstance: no dtype fits: the pattern wants f32, FLOORDIV makes i32
"""
from __future__ import annotations

import collections
import random
from typing import Any

from uopc.dtype import DType, dtypes, truncate
from uopc.probe_values import EDGE_WIDE, random_value
from uopc.ops import ALU, BINARY, COMPARISON, MOVEMENT, REDUCE_OPS, UNARY, Ops, arity
from uopc.upat import UPat
from uopc.uop import Shape, UOp, UOpError, prod

ALL: tuple[DType, ...] = (dtypes.i32, dtypes.f32, dtypes.bool)

_MAKES = {**{op: (dtypes.bool,) for op in COMPARISON}, **{op: (dtypes.f32,) for op in UNARY},
          Ops.FLOORDIV: (dtypes.i32,), Ops.FLOORMOD: (dtypes.i32,), Ops.RANGE: (dtypes.i32,)}
_SHAPES: list[Shape] = [(2,), (3,), (2, 2), (1, 3), (2, 1, 2)]


class NoInstance(Exception):
  """The pattern could not be instantiated (the message says why)."""


class _Retry(Exception):
  """This attempt hit an inconsistency; another random attempt may not."""


def random_input(rng: random.Random, p: UOp, edge: int | None = None) -> Any:
  """A random value for PARAM ``p``: a scalar, or nested lists of its shape.

  ``edge``: take edge value number ``edge`` (cyclically) for a scalar, so that a series
  of inputs walks through all of them instead of hitting each by chance.
  """
  if edge is not None and not p.shape: return EDGE_WIDE[p.dtype][edge % len(EDGE_WIDE[p.dtype])]
  def fill(shape: Shape) -> Any:
    return random_value(rng, p.dtype) if not shape else [fill(shape[1:]) for _ in range(shape[0])]
  return fill(p.shape)


def _dt(d: frozenset[DType] | None) -> str: return "any" if d is None else "|".join(sorted(x.name for x in d))


class Synth:
  """Builds random instances of patterns; one ``Synth`` per stream of instances (it owns the rng)."""

  def __init__(self, rng: random.Random, tries: int = 60):
    self.rng, self.tries = rng, tries
    self._possible: dict[int, frozenset[DType]] = {}

  # ---- the entry point
  def instance(self, pat: UPat) -> UOp:
    """A random node that ``pat`` matches; ``NoInstance`` if none could be built."""
    self._static_check(pat)
    reasons: collections.Counter[str] = collections.Counter()
    for _ in range(self.tries):
      mode = self.rng.choice(("params", "consts", "mixed"))
      self.const_p, self.expr_p = {"params": (0.0, 0.25), "consts": (1.0, 0.0), "mixed": (0.4, 0.2)}[mode]
      self.slot = 0
      self.env: dict[str, Any] = {}
      try:
        u = self.node(pat, None, None)
        if not pat.match(u, {}): raise _Retry("built a node the pattern does not match")
        return u
      except _Retry as e: reasons[str(e)] += 1
      except UOpError as e: reasons[f"UOpError: {e}"] += 1
    raise NoInstance(reasons.most_common(1)[0][0])

  def _static_check(self, pat: UPat) -> None:
    """Fail fast, with a clear reason, on patterns whose root no dtype or op can satisfy."""
    ops = pat.op or frozenset()
    for op in ops:
      if op in _MAKES and pat.dtype is not None and not set(_MAKES[op]) & pat.dtype and len(ops) == 1:
        raise NoInstance(f"no dtype fits: the pattern wants {_dt(pat.dtype)}, {op.name} makes {_dt(frozenset(_MAKES[op]))}")
    if pat.op is not None and pat.op <= {Ops.RANGE}: raise NoInstance("RANGE has no value outside a loop: nothing to compare")

  # ---- dtype reasoning: what dtypes can a node matching this pattern have?
  def possible(self, pat: UPat | None) -> frozenset[DType]:
    if pat is None: return frozenset(ALL)
    if (r := self._possible.get(id(pat))) is not None: return r
    self._possible[id(pat)] = frozenset(ALL)   # provisional: patterns are trees, but be safe
    out: set[DType] = set()
    for op in (pat.op or [None]):
      out |= self._op_possible(op, pat)
    if pat.dtype is not None: out &= pat.dtype
    r = self._possible[id(pat)] = frozenset(out)
    return r

  def _op_possible(self, op: Ops | None, pat: UPat) -> set[DType]:
    if op in _MAKES: return set(_MAKES[op])
    if op is Ops.CONST and pat.arg is not None: return {d for d in ALL if self._const_candidates(pat.arg, d)}
    src = pat.src if pat.src is not None else ()
    if not src: return set(ALL)
    if op in (Ops.ADD, Ops.MUL, Ops.MAX, Ops.STACK): return set.intersection(*(set(self.possible(s)) for s in src))
    if op is Ops.WHERE and len(src) == 3: return set(self.possible(src[1])) & set(self.possible(src[2]))
    if op in MOVEMENT or op in (Ops.REDUCE, Ops.INDEX, Ops.CALL): return set(self.possible(src[0]))
    return set(ALL)

  def _const_candidates(self, arg: Any, d: DType) -> list[Any]:
    """Values of dtype ``d`` that a pattern's ``arg`` (compared with ==) matches."""
    pool = list(EDGE_WIDE[d])
    try: pool.append(truncate(d, arg))
    except (TypeError, ValueError, OverflowError): pass
    return [v for v in pool if not (v != arg)]

  def pick_dtype(self, pat: UPat | None, want: DType | None, op: Ops | None) -> DType:
    allowed = self.possible(pat)
    cands = [d for d in ALL if d in allowed and (want is None or d is want) and (op not in _MAKES or d in _MAKES[op])]
    if not cands:
      raise _Retry(f"no dtype fits: wanted {want.name if want else 'any'}, the pattern allows {_dt(pat.dtype if pat else None)}")
    return self.rng.choice(cands)

  # ---- shapes
  def scalar_only(self, pat: UPat | None) -> bool:
    """Does the pattern force a scalar (a CONST in an elementwise position)?"""
    if pat is None or pat.op is None: return False
    if pat.op <= {Ops.CONST}: return True
    return pat.op <= ALU and pat.src is not None and any(self.scalar_only(s) for s in pat.src)

  def pick_shape(self, pat: UPat | None) -> Shape:
    if self.scalar_only(pat) or self.rng.random() < 0.7: return ()
    return self.rng.choice(_SHAPES)

  # ---- nodes
  def node(self, pat: UPat | None, want: DType | None, shape: Shape | None) -> UOp:
    """A node matching ``pat`` (None: anything) of dtype ``want`` and ``shape`` (None: free)."""
    if pat is not None and pat.name is not None and (u := self.env.get(pat.name)) is not None:
      if (want is not None and u.dtype is not want) or (shape is not None and u.shape != shape):
        raise _Retry(f"'{pat.name}' is used with two types")
      return u
    if pat is None or (pat.op is None and pat.src is None): u = self.hole(pat, want, shape)
    else: u = self.build(pat, want, shape)
    if pat is not None and pat.name is not None: self.env[pat.name] = u
    return u

  def param(self, dtype: DType, shape: Shape) -> UOp:
    self.slot += 1
    return UOp.param(self.slot - 1, dtype, shape)

  def const(self, dtype: DType, shape: Shape) -> UOp:
    """A constant: a CONST, broadcast to ``shape``, or a STACK tree of constants."""
    if shape == () or self.rng.random() < 0.5: return UOp.const(random_value(self.rng, dtype), dtype).broadcast(shape)
    def tree(s: Shape) -> UOp:
      if not s: return UOp.const(random_value(self.rng, dtype), dtype)
      return UOp(Ops.STACK, tuple(tree(s[1:]) for _ in range(s[0])))
    return tree(shape)

  def hole(self, pat: UPat | None, want: DType | None, shape: Shape | None) -> UOp:
    dtype = self.pick_dtype(pat, want, None)
    shape = shape if shape is not None else self.pick_shape(None)
    r = self.rng.random()
    if r < self.const_p: return self.const(dtype, shape)
    if r < self.const_p + self.expr_p: return self.small_expr(dtype, shape)
    return self.param(dtype, shape)

  def small_expr(self, dtype: DType, shape: Shape) -> UOp:
    """A small expression with interesting bounds (``p % 7``, ``cast(p < 3)``, ...)."""
    rng, c = self.rng, self.rng.randint(1, 16)
    if dtype is dtypes.i32:
      p = self.param(dtypes.i32, shape)
      return rng.choice([lambda: p % c, lambda: p // c, lambda: p.max(0) % c + rng.randint(-3, 3), lambda: p * c,
                         lambda: p * c + self.param(dtypes.i32, shape), lambda: p * c + rng.randint(-9, 9),
                         lambda: self.param(dtypes.bool, shape).cast(dtypes.i32), lambda: p.max(-c), lambda: p + c,
                         lambda: self.param(dtypes.bool, shape).where(UOp.const(c).broadcast(shape), UOp.const(-c).broadcast(shape))])()
    if dtype is dtypes.bool:
      p = self.param(dtypes.i32, shape)
      return rng.choice([lambda: p < c, lambda: p.ne(c), lambda: (p % c) < c, lambda: p.cast(dtypes.bool)])()
    p = self.param(dtypes.f32, shape)
    return rng.choice([lambda: self.param(dtypes.i32, shape).cast(dtypes.f32), lambda: p * 0.5, lambda: p.sqrt(), lambda: p + 1.0])()

  def _ops(self, pat: UPat, want: DType | None, shape: Shape | None) -> list[Ops]:
    """The ops the pattern allows that can make a node of this dtype, shape and source count."""
    ops = sorted(pat.op if pat.op is not None else (BINARY | UNARY | {Ops.WHERE, Ops.CAST}), key=lambda o: o.value)
    n = None if pat.src is None else len(pat.src)
    out = []
    for op in ops:
      lo, hi = arity(op)
      # the pattern's sources are all of the node's, or (allow_any_len) a prefix of them
      if n is not None and ((hi is not None and n > hi) or (n < lo and not pat.allow_any_len)): continue
      if want is not None and op in _MAKES and want not in _MAKES[op]: continue
      if op is Ops.CONST and shape not in (None, ()): continue
      if op is Ops.RANGE: continue
      out.append(op)
    if not out: raise _Retry(f"no op of {{{', '.join(o.name for o in ops)}}} fits here")
    return out

  def build(self, pat: UPat, want: DType | None, shape: Shape | None) -> UOp:
    op = self.rng.choice(self._ops(pat, want, shape))
    dtype = self.pick_dtype(pat, want, op)
    if op is Ops.CONST:
      if pat.arg is not None:
        if not (cands := self._const_candidates(pat.arg, dtype)): raise _Retry(f"no {dtype.name} constant equals {pat.arg!r}")
        return UOp.const(self.rng.choice(cands), dtype)
      return UOp.const(random_value(self.rng, dtype), dtype)
    if pat.arg is not None and op not in (Ops.REDUCE, Ops.CALL):
      raise _Retry(f"cannot synthesize {op.name} with a fixed arg {pat.arg!r}")
    if op is Ops.PARAM: return self.param(dtype, shape if shape is not None else self.pick_shape(pat))
    srcs: list[UPat | None] = list(pat.src) if pat.src is not None else []
    if isinstance(pat.src, list): self.rng.shuffle(srcs)
    if op in ALU: return self.alu(op, dtype, srcs, shape if shape is not None else self.pick_shape(pat))
    out_shape = shape if shape is not None else self.pick_shape(pat)
    if op is Ops.STACK: return self.stack(pat, dtype, srcs, shape)
    if op is Ops.INDEX: return self.index(pat, dtype, srcs, out_shape)
    if op is Ops.CALL: return self.call(pat, dtype, srcs, out_shape)
    return self.movement(op, pat, dtype, srcs, out_shape)

  def alu(self, op: Ops, dtype: DType, srcs: list[UPat | None], shape: Shape) -> UOp:
    n = arity(op)[0]
    srcs = (srcs + [None] * n)[:n]
    want: list[DType | None]   # None: any dtype (a CAST whose source no dtype fits)
    if op in COMPARISON:
      common = self.possible(srcs[0]) & self.possible(srcs[1])
      if not common: raise _Retry("the compared sources can have no dtype in common")
      want = [self.rng.choice(sorted(common, key=lambda d: d.name))] * 2
    elif op is Ops.WHERE: want = [dtypes.bool, dtype, dtype]
    elif op is Ops.CAST:
      fits = sorted(self.possible(srcs[0]), key=lambda d: d.name)
      want = [self.rng.choice(fits or [None])]
    elif op in UNARY: want = [dtypes.f32]
    else: want = [dtype, dtype]
    src = tuple(self.node(p, d, shape) for p, d in zip(srcs, want))
    return UOp(op, src, None, dtype if op is Ops.CAST else None)

  def stack(self, pat: UPat, dtype: DType, srcs: list[UPat | None], shape: Shape | None) -> UOp:
    n = shape[0] if shape else max(len(srcs), self.rng.randint(1, 3))
    if len(srcs) > n or (len(srcs) < n and pat.src is not None and not pat.allow_any_len): raise _Retry("STACK size does not fit")
    elem = tuple(shape[1:]) if shape else self.pick_shape(None)
    return UOp(Ops.STACK, tuple(self.node(p, dtype, elem) for p in (srcs + [None] * n)[:n]))

  def index(self, pat: UPat, dtype: DType, srcs: list[UPat | None], shape: Shape) -> UOp:
    base_pat, idx_pats = (srcs[0] if srcs else None), srcs[1:]
    k = len(idx_pats) + (self.rng.randint(0, 2) if pat.allow_any_len or pat.src is None else 0)
    if base_pat is not None and base_pat.op is not None and base_pat.op <= {Ops.STACK} and k == 0: k = 1
    dims = tuple(self.rng.randint(1, 3) for _ in range(k))
    base = self.node(base_pat, dtype, dims + shape)
    dims = base.shape[:k]
    idx = []
    for axis, p in enumerate((idx_pats + [None] * k)[:k]):
      if p is None or (p.op is not None and p.op <= {Ops.CONST} and p.arg is None):
        # mostly in bounds (out of bounds is a runtime error on both sides: little to compare)
        v = self.rng.randrange(dims[axis]) if self.rng.random() < 0.9 else self.rng.choice([dims[axis], -1])
        i = UOp.const(v, dtypes.i32)
        if p is not None and p.name is not None: self.env[p.name] = i
      else: i = self.node(p, dtypes.i32, ())
      idx.append(i)
    return base.index(*idx)

  def call(self, pat: UPat, dtype: DType, srcs: list[UPat | None], shape: Shape) -> UOp:
    n = max(1, len(srcs) - 1) if srcs else self.rng.randint(1, 2)
    ps = [UOp.param(i, dtype, shape) for i in range(n)]   # the body's own scope: slots 0..n-1
    body = ps[0]
    for p in ps[1:]: body = UOp(self.rng.choice([Ops.ADD, Ops.MUL, Ops.MAX]), (body, p))
    if self.rng.random() < 0.5: body = UOp(self.rng.choice([Ops.ADD, Ops.MUL]), (body, body))
    if srcs and srcs[0] is not None and not srcs[0].match(body, {}): raise _Retry("cannot synthesize that CALL body")
    args = [self.node(p, dtype, shape) for p in (srcs[1:] + [None] * n)[:n]]
    return body.call(*args, name=pat.arg if isinstance(pat.arg, str) else None)

  def movement(self, op: Ops, pat: UPat, dtype: DType, srcs: list[UPat | None], shape: Shape) -> UOp:
    rng, sp = self.rng, (srcs[0] if srcs else None)
    if op is Ops.RESHAPE:
      n = prod(shape)
      ins = [s for s in [(n,), (1, n), (n, 1)] + ([(2, n // 2)] if n % 2 == 0 and n else []) if s != shape] or [(n,)]
      ishape = rng.choice(ins) if n else shape
      return self.node(sp, dtype, ishape).reshape(shape)
    if op is Ops.EXPAND:
      ishape = tuple(1 if rng.random() < 0.5 else d for d in shape)
      return self.node(sp, dtype, ishape).expand(shape)
    if op is Ops.PERMUTE:
      order = list(range(len(shape)))
      rng.shuffle(order)
      inner = [0] * len(shape)
      for k, a in enumerate(order): inner[a] = shape[k]
      return self.node(sp, dtype, tuple(inner)).permute(tuple(order))
    if op is Ops.SHRINK:
      extra = [rng.randint(0, 2) for _ in shape]
      begin = [rng.randint(0, e) for e in extra]
      src = self.node(sp, dtype, tuple(d + e for d, e in zip(shape, extra)))
      return src.shrink(tuple((b, b + d) for b, d in zip(begin, shape)))
    # REDUCE
    rop, k = pat.arg if pat.arg is not None else (rng.choice(sorted(REDUCE_OPS, key=lambda o: o.value)), rng.randint(1, 2))
    return self.node(sp, dtype, shape + tuple(rng.randint(1, 3) for _ in range(k))).reduce(rop, k)
