"""Left sides the scalar builder (``uopc.smt.instance``) does not make: STACKs, INDEXes, movement ops, REDUCE and CALLs,
as ``evaluate``'s rules match them; each run through a rule like the scalar ones (``instances``).

The builder makes scalar ALU trees, and refuses a pattern that wants another op. These left sides are a fixed
catalogue instead of being built from the pattern: an ALU op over STACKs (both sources STACKs, or one a shaped leaf
that the rule has to INDEX, copying it once a row), INDEX into a STACK and into an INDEX, movement ops and REDUCE on
constant data, and CALLs whose bodies use a PARAM twice or hold a CALL of their own. A leaf stands for any subterm
(a *variable*) when its slot is ``FREE`` or above; a CALL body's PARAMs (slots 0, 1) are the body's, bound by the
CALL, and stay symbols. So the check covers these shapes, not every left side: a verdict says "on N instances".

>>> from uopc.evaluate import evaluate
>>> from uopc.term import show
>>> lhs = next(u for u in catalogue() if u.op is Ops.INDEX and u.src[0].op is Ops.STACK)
>>> show(lhs), show(evaluate.rewrite(lhs))
('index(stack(p11, p12), 0)', 'p11')
"""
from __future__ import annotations

from uopc.dtype import DType, dtypes
from uopc.ops import BINARY, UNARY, Ops
from uopc.uop import UOp

__all__ = ["FREE", "catalogue", "variables_of"]

FREE = 10   # PARAMs from this slot on are variables; below it, a CALL body's own


def _leaf(k: int, dtype: DType = dtypes.i32, shape: tuple[int, ...] = ()) -> UOp:
  return UOp.param(FREE + k, dtype, shape)


def _alu_over_stacks() -> list[UOp]:
  """Every ALU op with STACK sources: both STACKs, or a STACK and a shaped leaf (INDEXed row by row, so copied once a
  row), a STACK of rows and a leaf of the same shape; each unary op and CAST on a STACK; WHERE with each kind of source."""
  a, b = UOp.stack(_leaf(0), _leaf(1)), UOp.stack(_leaf(2), _leaf(3))
  x = _leaf(4, shape=(2,))
  f = UOp.stack(_leaf(5, dtypes.f32), _leaf(6, dtypes.f32))
  cond = UOp.stack(_leaf(7, dtypes.bool), _leaf(8, dtypes.bool))
  rows = UOp.stack(UOp.stack(_leaf(0), _leaf(1)), UOp.stack(_leaf(2), _leaf(3)))
  binary = [UOp(op, src) for op in sorted(BINARY, key=lambda o: o.name) for src in ((a, b), (a, x), (x, a))]
  return [*binary, *(UOp(op, (f,)) for op in sorted(UNARY, key=lambda o: o.name)), a.cast(dtypes.f32),
          cond.where(a, x), cond.where(x, b), _leaf(9, dtypes.bool, (2,)).where(a, b), rows + _leaf(9, shape=(2, 2))]


def _indexes() -> list[UOp]:
  """INDEX with no index, into an INDEX, and into a STACK (of scalars and of rows), at each position."""
  m = _leaf(0, shape=(2, 2))
  s, rows = UOp.stack(_leaf(1), _leaf(2)), UOp.stack(_leaf(3, shape=(2,)), _leaf(4, shape=(2,)))
  return [UOp(Ops.INDEX, (m,)), m.index(0).index(1), UOp(Ops.INDEX, (m.index(1),)), s.index(0), s.index(1), rows.index(1),
          rows.index(0, 1), rows.index(_leaf(5))]


def _movements() -> list[UOp]:
  """Movement ops and REDUCE on constant data (the rule computes them), each to a shape unlike its source's: the result
  is then no copy of the source up to its constants."""
  flat, wide = UOp.stack(1, 2, 3, 4, 5, 6), UOp.stack(UOp.stack(1, 2, 3), UOp.stack(4, 5, 6))
  return [flat.reshape((2, 3)), wide.reshape((3, 2)), UOp.stack(5).expand((3,)), UOp.stack(UOp.stack(1, 2)).expand((3, 2)),
          wide.permute((1, 0)), flat.shrink(((1, 3),)), wide.shrink(((0, 1), (1, 3))), flat.reduce(Ops.ADD), wide.reduce(Ops.MAX)]


def _calls() -> list[UOp]:
  """CALLs: a body using its PARAM twice (the argument is copied), two PARAMs, a shaped one, a nested CALL in the body
  (its own PARAMs are not substituted) and a CALL as an argument."""
  p0, p1 = UOp.param(0), UOp.param(1)
  inner = (p0 + 1).call(p0 * p0)   # a CALL in the body: its body's p0 is its own
  row = UOp.param(0, shape=(2,))
  return [(p0 * p0).call(_leaf(0)), (p0 + p1).call(_leaf(0), _leaf(1)), (p1 * 2 + p0).call(_leaf(0), _leaf(1)), inner.call(_leaf(0)),
          (row + row).call(_leaf(1, shape=(2,))), (p0 * p0).call((p0 + 3).call(_leaf(0))), *_bodies_of_every_op()]


def _bodies_of_every_op() -> list[UOp]:
  """A CALL whose body has each op at its root: beta reduction brings that op up to where the CALL was."""
  p0, p1, f, row = UOp.param(0), UOp.param(1), UOp.param(0, dtypes.f32), UOp.param(0, shape=(2,))
  bodies = [UOp(op, (p0, p1)) for op in sorted(BINARY, key=lambda o: o.name)]
  floats = [UOp(op, (f,)) for op in sorted(UNARY, key=lambda o: o.name)]
  shaped = [UOp.stack(p0, p0), row.index(0), p0.reshape((1,)), p0.reshape((1,)).expand((2,)), row.permute((0,)), row.shrink(((0, 1),)),
            row.reduce(Ops.ADD), UOp(Ops.INDEX, (row,))]
  calls = [b.call(_leaf(0), _leaf(1)) for b in bodies] + [b.call(_leaf(0, dtypes.f32)) for b in floats]
  calls += [b.call(_leaf(0, shape=b_param.arg.shape)) for b in shaped for b_param in [next(n for n in b.toposort() if n.op is Ops.PARAM)]]
  return [*calls, p0.cast(dtypes.f32).call(_leaf(0)), (p0 < p1).where(p0, p1).call(_leaf(0), _leaf(1))]


def catalogue() -> list[UOp]:
  """Every left side of the catalogue (module doc), each once."""
  return list(dict.fromkeys([*_alu_over_stacks(), *_indexes(), *_movements(), *_calls()]))


def variables_of(u: UOp) -> frozenset[UOp]:
  """The PARAMs of ``u`` that stand for any subterm: those outside CALL bodies, from slot ``FREE`` on."""
  return frozenset(n for n in u.toposort() if n.op is Ops.PARAM and n.arg.slot >= FREE)
