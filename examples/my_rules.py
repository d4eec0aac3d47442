"""A small user rule set with deliberate flaws, for ``docs/confluence.md``.

    uopc explore pairs examples/my_rules.py:rules
    uopc explore order examples/fork.uir --rules examples/my_rules.py:rules

Two of its critical pairs do not join:

Each rule has a name of its own (egg style), which every report uses.

- ``fold`` and ``mul-0.0`` (``x:f32 * 0.0 -> 0.0``) on ``mul(-0.0, 0.0)``: folding gives ``-0.0``, the
  identity ``0.0``. A semantic bug: ``x * 0.0`` is ``-0.0`` for negative ``x`` and NaN for
  ``inf`` and NaN, so the identity is unsound for floats.
- ``distribute`` and ``mul-2`` (``x * 2 -> x + x``) on ``mul(add(p0, p1), 2)``: ``(p0 + p0) + (p1 + p1)``
  or ``(p0 + p1) + (p0 + p1)``. Both are right; without associativity and commutativity
  rules they never meet, so rule order decides which one you get (see ``fork.uir``).

And one joins, the book's example: ``mul-0`` and ``distribute`` on ``mul(add(a, b), 0)``.
"""
from uopc import Ops, PatternMatcher, UOp, UPat, dtypes
from uopc.alu import exec_alu

x, y = UPat.var("x"), UPat.var("y")
xi, xf = UPat.var("x", dtype=dtypes.i32), UPat.var("x", dtype=dtypes.f32)


def fold(e: UOp, c1: UOp, c2: UOp) -> UOp | None:
  """Constant folding of + and *, in the reference semantics (wrapping i32, IEEE f32)."""
  v = exec_alu(e.op, e.dtype, [c1.arg, c2.arg])
  return None if v is None else UOp.const(v, e.dtype)


def distribute(x: UOp, y: UOp, c: UOp) -> UOp:
  """(x + y) * c -> x*c + y*c, so that constants meet the terms of a sum."""
  return x * c + y * c


rules = PatternMatcher([
  (UPat((Ops.ADD, Ops.MUL), src=(UPat.cvar("c1"), UPat.cvar("c2")), name="e"), fold, "fold"),
  (x * 1, lambda x: x, "mul-1"),
  (xi * 0, lambda x: x.const_like(0), "mul-0"),                 # right: ints only
  (xf * 0.0, lambda x: x.const_like(0.0), "mul-0.0"),           # wrong: -0.0, inf and nan times 0.0 are not 0.0
  (UPat(Ops.MUL, src=(UPat(Ops.ADD, src=(xi, y)), UPat.cvar("c"))), distribute, "distribute"),
  (x * 2, lambda x: x + x, "mul-2"),                            # strength reduction: fine alone, but see distribute
])
