"""Hypothesis strategies for random well-typed UOp graphs, shared by the tests.

``graphs()`` builds a graph a node at a time from a pool of earlier nodes, so graphs
share subterms (DAGs, not just trees). Every op of the IR appears: PARAMs of each
dtype and a few shapes, edge constants (``-0.0``, ``nan``, ``inf``, ``-2**31``),
ALU ops, STACK/INDEX/RANGE, movement ops, REDUCE and CALLs (nested ones too).
"""
from __future__ import annotations

import math
import random
from typing import Callable

from hypothesis import strategies as st

from uopc.dtype import DType, dtypes
from uopc.ops import Ops
from uopc.uop import UOp, call_params, prod

Shape = tuple[int, ...]
SHAPES: list[Shape] = [(), (), (2,), (3,), (2, 3), (1, 3)]
RESHAPES: list[Shape] = [(), (1,), (2,), (3,), (6,), (1, 1), (2, 3), (3, 2), (1, 3), (3, 1), (1, 2, 3), (2, 1, 3), (1, 6)]
I32_EDGES = [0, 1, -1, 2, 3, 7, 2**31 - 1, -2**31]
F32_EDGES = [0.0, -0.0, 1.0, -1.5, 0.5, 0.1, 2.0, math.inf, -math.inf, math.nan, 1e30, 1e-45]
CALL_NAMES = st.sampled_from([None, None, "sq", "f", "g"])
ADDRSPACES = st.sampled_from([None, None, None, "global", "local"])
ARITH = [Ops.ADD, Ops.MUL, Ops.MAX, Ops.CMPLT, Ops.CMPNE]


def values(dtype: DType) -> st.SearchStrategy:
  """Python values of ``dtype``, biased to edge cases."""
  if dtype is dtypes.bool: return st.booleans()
  if dtype is dtypes.i32: return st.one_of(st.sampled_from(I32_EDGES), st.integers(-2**31, 2**31 - 1))
  return st.one_of(st.sampled_from(F32_EDGES), st.floats(width=32))


def scalar_consts(dtype: DType | None = None) -> st.SearchStrategy[UOp]:
  """Scalar CONSTs of ``dtype`` (any dtype if None)."""
  ds = st.just(dtype) if dtype is not None else st.sampled_from(dtypes.all)
  return ds.flatmap(lambda d: values(d).map(lambda v: UOp.const(v, d)))


@st.composite
def graphs(draw: st.DrawFn, max_ops: int = 10, max_params: int = 3, names: st.SearchStrategy = CALL_NAMES,
           addrspaces: st.SearchStrategy = ADDRSPACES, shapes: list[Shape] = SHAPES) -> UOp:
  """A random well-typed graph; its root is the last node built.

  Each PARAM slot has one type per graph. ``names`` draws CALL names (None for an
  unnamed call), ``addrspaces`` PARAM address spaces, ``shapes`` PARAM shapes.
  """
  sig = [draw(st.tuples(st.sampled_from(dtypes.all), st.sampled_from(shapes), addrspaces))
         for _ in range(draw(st.integers(1, max_params)))]
  pool: list[UOp] = []

  def pick(pred: Callable[[UOp], bool] = lambda u: True) -> UOp | None:
    cands = [u for u in pool if pred(u)]
    # counting back from the newest node keeps graphs connected (and shrinks to chains)
    return cands[-1 - draw(st.integers(0, len(cands) - 1))] if cands else None

  def operand(dtype: DType, shape: Shape) -> UOp:
    """A node of this type from the pool, or a fresh (broadcast) constant."""
    u = pick(lambda u: u.dtype is dtype and u.shape == shape) if draw(st.booleans()) else None
    return u if u is not None else UOp.const(draw(values(dtype)), dtype).broadcast(shape)

  def shaped() -> UOp:
    """A pool node with at least one dim, or a STACK made from a scalar one."""
    a = pick(lambda u: u.shape != ())
    if a is None: a = UOp.stack((b := pick()), operand(b.dtype, b.shape))
    return a

  def leaf() -> UOp:
    if draw(st.booleans()): return draw(scalar_consts())
    slot = draw(st.integers(0, len(sig) - 1))
    d, s, a = sig[slot]
    return UOp.param(slot, d, s, a)

  def binary() -> UOp | None:
    op = draw(st.sampled_from(ARITH + [Ops.FLOORDIV, Ops.FLOORMOD]))
    num = (dtypes.i32,) if op in (Ops.FLOORDIV, Ops.FLOORMOD) else (dtypes.i32, dtypes.f32, dtypes.bool) if op is Ops.CMPNE \
      else (dtypes.i32, dtypes.f32)
    a = pick(lambda u: u.dtype in num)
    if a is None: return None
    b = operand(a.dtype, a.shape)
    return UOp(op, (a, b) if draw(st.booleans()) else (b, a))

  def where() -> UOp | None:
    a = pick()
    c = operand(dtypes.bool, a.shape) if a.dtype is not dtypes.bool or draw(st.booleans()) else a
    return c.where(a, operand(a.dtype, a.shape))

  def unary() -> UOp | None:
    a = pick(lambda u: u.dtype is dtypes.f32) or pick().cast(dtypes.f32)
    return UOp(draw(st.sampled_from([Ops.RECIP, Ops.EXP2, Ops.LOG2, Ops.SQRT, Ops.SIN])), (a,))

  def stack() -> UOp | None:
    a = pick()
    return UOp.stack(a, *(operand(a.dtype, a.shape) for _ in range(draw(st.integers(0, 2)))))

  def index() -> UOp | None:
    a = shaped()
    k = draw(st.integers(1, len(a.shape)))
    idx = [operand(dtypes.i32, ()) if draw(st.booleans()) else UOp.const(draw(st.integers(0, max(d - 1, 0))), dtypes.i32)
           for d in a.shape[:k]]
    return a.index(*idx)

  def reshape() -> UOp | None:
    a = pick()
    return a.reshape(draw(st.sampled_from([s for s in RESHAPES if prod(s) == prod(a.shape)] or [a.shape])))

  def expand() -> UOp | None:
    a = pick(lambda u: 1 in u.shape) or pick()
    if 1 not in a.shape: a = a.reshape((1, *a.shape))
    return a.expand(tuple(draw(st.integers(1, 3)) if d == 1 else d for d in a.shape))

  def permute() -> UOp | None:
    a = shaped()
    return a.permute(tuple(draw(st.permutations(range(len(a.shape))))))

  def shrink() -> UOp | None:
    a = shaped()
    bounds = []
    for d in a.shape:
      b = draw(st.integers(0, d - 1))
      bounds.append((b, draw(st.integers(b + 1, d))))   # shapes are never empty
    return a.shrink(tuple(bounds))

  def reduce() -> UOp | None:
    a = shaped()
    return a.reduce(draw(st.sampled_from([Ops.ADD, Ops.MUL, Ops.MAX])), draw(st.integers(1, len(a.shape))))

  def cast() -> UOp | None: return pick().cast(draw(st.sampled_from(dtypes.all)))
  def range_() -> UOp | None: return UOp(Ops.RANGE, (operand(dtypes.i32, ()),))

  def call() -> UOp | None:
    # a body's PARAMs must be slots 0..n-1: pick one that is, and pass arguments of their types
    def closed_form(u: UOp) -> bool: return sorted({p.arg.slot for p in call_params(u)}) == list(range(len({p.arg.slot for p in call_params(u)})))
    body = pick(closed_form)
    if body is None: return None
    params = {p.arg.slot: p for p in call_params(body)}
    return body.call(*(operand(params[i].dtype, params[i].shape) for i in range(len(params))), name=draw(names))

  builders = [binary, binary, where, unary, stack, index, reshape, expand, permute, shrink, reduce, cast, range_, call, call, leaf]
  for _ in range(draw(st.integers(1, 3))): pool.append(leaf())
  root = pool[-1]
  for _ in range(draw(st.integers(1, max_ops))):
    u = draw(st.sampled_from(builders))()
    if u is not None: pool.append(u)
    if u is not None and u.src: root = u   # the newest op, so a late leaf does not make a tiny graph
  return root


@st.composite
def arith_programs(draw: st.DrawFn, max_ops: int = 5, consts: tuple[int, ...] = (0, 1, 2, 3, -1)) -> UOp:
  """A small i32 DAG of ADD and MUL over PARAMs 0 and 1 and a few constants (exercise 9's world)."""
  pool = [UOp.param(0), UOp.param(1)]
  def operand() -> UOp:
    return pool[-1 - draw(st.integers(0, len(pool) - 1))] if draw(st.booleans()) else UOp.const(draw(st.sampled_from(consts)))
  for _ in range(draw(st.integers(1, max_ops))):
    a = pool[-1 - draw(st.integers(0, len(pool) - 1))]
    b = operand()
    pool.append(UOp(draw(st.sampled_from([Ops.ADD, Ops.MUL])), (a, b) if draw(st.booleans()) else (b, a)))
  return pool[-1]


def mutated(rng: random.Random, text: str, alphabet: list[str], most: int = 3, inserted: list[str] | None = None) -> str:
  """``text`` after 1 to ``most`` random edits: a character deleted, a piece of ``inserted`` (default ``alphabet``)
  inserted, or a character replaced by a piece of ``alphabet`` (the parsers' fuzz tests: a mutant is mostly valid text
  with one thing wrong)."""
  inserted = alphabet if inserted is None else inserted
  chars = list(text)
  for _ in range(rng.randint(1, most)):
    pos = rng.randrange(len(chars) + 1)
    kind = rng.random()
    if kind < 0.4 and chars: del chars[min(pos, len(chars) - 1)]
    elif kind < 0.8: chars.insert(pos, rng.choice(inserted))
    elif chars: chars[min(pos, len(chars) - 1)] = rng.choice(alphabet)
  return "".join(chars)
