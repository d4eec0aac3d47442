"""``fold`` (constant folding) and ``symbolic`` (algebraic simplification), and ``simplify``.

The order of ``symbolic``'s rules is part of its meaning (rule order is priority):

>>> from uopc.uop import UOp
>>> e = UOp.const(-0.0) + UOp.const(0.0)
>>> graph_rewrite(e, symbolic).arg                      # folding is listed first
0.0
>>> graph_rewrite(e, PatternMatcher(symbolic.rules[1:] + symbolic.rules[:1])).arg
-0.0

The package binds the name ``uopc.symbolic`` to the rule set, not to this module
(``uopc/__init__.py`` does ``from uopc.symbolic import symbolic``), so ``from uopc import symbolic``,
``from uopc.symbolic import symbolic`` and ``import uopc.symbolic as m`` all give the
``PatternMatcher`` (``import a.b as m`` reads the attribute ``b`` of ``a``). The module
itself is ``sys.modules["uopc.symbolic"]`` (``importlib.import_module``, as ``--rules
uopc.symbolic:symbolic`` loads it). This is kept on purpose: the rule set is what every caller
wants, and renaming the module would break the chapter's ``from uopc.symbolic import ...``
and every ``module:attr`` rule spec that names it. ``tests/test_symbolic.py`` pins it down.
"""
from __future__ import annotations

import importlib
from typing import Any

from uopc.alu import exec_alu, exec_binary
from uopc.bounds import bounds, vmax, vmin
from uopc.dtype import dtypes, truncate
from uopc.footprint import reads
from uopc.matcher import PatternMatcher
from uopc.ops import ALU, CONST, Ops
from uopc.rewrite import graph_rewrite
from uopc.rule_data import Fold, Guarded, Pinned, Rebuild, as_data, declare_data
from uopc.upat import UPat
from uopc.uop import UOp, make_const, node_memo




@as_data(Fold("x"))   # declared as data too: the explorer's C core folds ints and bools itself (rule_data.py)
@reads("sources")   # whether its sources are constants, and their values
def _fold(x: UOp) -> UOp | None:
  """A scalar ALU op of constants is its value (unless the value is undefined).

  An ALU op's sources have its shape, so constant sources make it a scalar.
  """
  src = x.src
  if len(src) == 2:   # binary: the common case, without a list
    a, b = src
    if a.op is not CONST or b.op is not CONST: return None
    r = exec_binary(x.op, x.dtype, a.arg, b.arg)
  else:
    for s in src:
      if s.op is not CONST: return None
    r = exec_alu(x.op, x.dtype, [s.arg for s in src])
  return None if r is None else make_const(r, x.dtype)


fold = PatternMatcher([(UPat(ALU, name="x"), _fold, "fold-const")], name="fold")


def _wrap_i32(v: int) -> int: return truncate(dtypes.i32, v)   # int32 arithmetic wraps, so folded constants must too


def _divides(u: UOp, c: int) -> UOp | None:
  """``u / c`` if ``u`` (a constant or ``x * const``) is a multiple of ``c``, else None."""
  if u.op is Ops.CONST: return u.const_like(u.arg // c) if u.arg % c == 0 else None
  if u.op is Ops.MUL and u.src[1].op is Ops.CONST:
    return u.src[0] * (u.src[1].arg // c) if u.src[1].arg % c == 0 else None
  return None


def _split_terms(u: UOp) -> list[UOp]:
  """The summands of a tree of ADDs, left to right (iteratively: sums can be long)."""
  terms, stack = [], [u]
  while stack:
    t = stack.pop()
    if t.op is Ops.ADD: stack.extend(reversed(t.src))
    else: terms.append(t)
  return terms


@reads("opaque")   # walks the whole sum
def _div_sum(x: UOp, c: UOp, mod: bool) -> UOp | None:
  """(a*c + b) // c == a + b//c  and  (a*c + b) % c == b % c: always true for *floor* division."""
  if c.arg <= 0: return None
  quot: list[UOp] = []   # the terms c divides, divided
  rest: list[UOp] = []
  for t in _split_terms(x):
    if (d := _divides(t, c.arg)) is not None: quot.append(d)
    else: rest.append(t)
  if not quot: return None
  r = sum(rest[1:], rest[0]) if rest else x.const_like(0)
  if mod: return r % c
  return sum(quot[1:], quot[0]) + r // c


@as_data(Pinned("x"))
@reads("bounds")
def _const_bounds(x: UOp) -> UOp | None:
  """An int or bool expression whose bounds pin it to one value *is* that value."""
  # bounds are exact integers (a bool ADD of two Trues is 2): the node's value is their wrap, as folding makes it
  if x.shape == () and not x.dtype.is_float and (b := bounds(x))[0] == b[1]: return make_const(truncate(x.dtype, b[0]), x.dtype)
  return None


# What a rule's function computes, declared as data beside it (rule_data.py): the explorer's C core applies the data
# instead of calling the function; tests/test_relational_native_folds.py holds each form to its function.
C, C1, C2 = ("value", "c"), ("value", "c1"), ("value", "c2")


def _and(*es: Any) -> Any: return es[0] if len(es) == 1 else ("and", es[0], _and(*es[1:]))


def _with_k(then: Any, e: Any, guard: Any = 1) -> Guarded:
  """``then(..., k)`` where ``guard`` holds, ``k`` the constant of value ``e`` in x's dtype."""
  return Guarded(guard, then, consts=(("k", "x", e),))


_ZERO = _with_k(lambda k: k, 0)   # x.const_like(0), for a scalar x
_SMALL = _and(("<=", 0, ("lo", "x")), ("<", ("hi", "x"), C))   # 0 <= vmin(x) and vmax(x) < c.arg


@as_data(_with_k(lambda x, k: x < k, ("-", 0, ("//", ("-", 0, C2), C1)), guard=(">", C1, 0)))
def _lt_mul(x: UOp, c1: UOp, c2: UOp) -> UOp | None:
  """x*c1 < c2  <=>  x < ceil(c2/c1), for c1 > 0."""
  return x < -(-c2.arg // c1.arg) if c1.arg > 0 else None


x, y, z = UPat.var("x"), UPat.var("y"), UPat.var("z")
c1, c2 = UPat.cvar("c1"), UPat.cvar("c2")
xi = UPat.var("x", dtype=dtypes.i32)
ints = (dtypes.i32, dtypes.bool)

# x + 0.0 -> x is not exact for x = -0.0 (-0.0 + 0.0 is 0.0); we accept that. These two rules (x + 0's 0 matches
# the f32 constant 0.0 too) are the ones check-rules excuses for it, known by identity: the same rule elsewhere is unsound.
ADD_ZERO = (
  (x + 0, lambda x: x, "add-0"),
  (x + 0.0, lambda x: x, "add-0.0"),
)

symbolic = PatternMatcher(fold.rules + [
  # canonical form: constants on the right of commutative ops
  (UPat((Ops.ADD, Ops.MUL, Ops.MAX, Ops.CMPNE), src=(UPat(Ops.CONST, name="c"), UPat(name="y")), name="u"),
   reads("sources")(lambda u, c, y: u.replace(src=(y, c)) if y.op is not Ops.CONST else None), "comm-const-right"),
  # identities
  *ADD_ZERO,
  (x * 1, lambda x: x, "mul-1"),
  (x * 1.0, lambda x: x, "mul-1.0"),
  (UPat.var("x", dtype=ints) * 0, lambda x: x.const_like(0), "mul-0"),   # ints only: inf * 0 and nan * 0 are nan
  (x // 1, lambda x: x, "div-1"),
  (x % 1, lambda x: x.const_like(0), "mod-1"),
  (UPat(Ops.MAX, src=(x, x)), lambda x: x, "max-self"),
  (UPat(Ops.WHERE, src=(UPat(), x, x)), lambda x: x, "where-same"),
  (UPat(Ops.WHERE, src=(UPat.cvar("c"), x, y)), lambda c, x, y: x if c.arg else y, "where-const"),
  (UPat(Ops.WHERE, src=(z, UPat(Ops.WHERE, src=(z, x, UPat())), y)), lambda z, x, y: z.where(x, y), "where-nested-then"),
  (UPat(Ops.WHERE, src=(z, x, UPat(Ops.WHERE, src=(z, UPat(), y)))), lambda z, x, y: z.where(x, y), "where-nested-else"),
  (UPat(Ops.CAST, src=(x,), name="c"), lambda c, x: x if c.dtype is x.dtype else None, "cast-same"),
  (UPat(Ops.CMPNE, src=(UPat.var("x", dtype=dtypes.bool), UPat(Ops.CONST, arg=False))), lambda x: x, "cmpne-false"),
  (UPat((Ops.CMPLT, Ops.CMPNE), src=(xi, xi)), lambda x: UOp.const(False).broadcast(x.shape), "cmp-self"),   # keep x's shape
  (xi + xi, lambda x: x * 2, "add-self"),
  (xi + xi * -1, lambda x: x.const_like(0), "sub-self"),
  # reassociate constants outward, so that they meet and fold (ints only: float + isn't associative)
  ((xi + c1) + c2, lambda x, c1, c2: x + _wrap_i32(c1.arg + c2.arg), "assoc-add-const"),
  ((xi * c1) * c2, lambda x, c1, c2: x * _wrap_i32(c1.arg * c2.arg), "assoc-mul-const"),
  ((xi + c1) * c2, lambda x, c1, c2: x * c2 + _wrap_i32(c1.arg * c2.arg), "distribute-const"),
  # distribute constants over sums so that div/mod see every term: (a + b) * c -> a*c + b*c
  (UPat(Ops.MUL, src=(UPat(Ops.ADD, src=(xi, y), name="s"), UPat.cvar("c"))), lambda x, y, s, c: x * c + y * c, "distribute-sum"),
  (UPat(Ops.ADD, src=[xi + c1, y]), reads("sources")(lambda x, c1, y: (x + y) + c1 if y.op is not Ops.CONST else None), "const-outward"),
  (xi * c1 + xi * c2, lambda x, c1, c2: x * _wrap_i32(c1.arg + c2.arg), "factor-consts"),
  (xi * c1 + xi, lambda x, c1: x * _wrap_i32(c1.arg + 1), "factor-const-1"),
  # division and modulo (floor semantics make these unconditional)
  ((xi // c1) // c2, lambda x, c1, c2: x // (c1.arg * c2.arg) if c1.arg > 0 and c2.arg > 0 and c1.arg * c2.arg < 2**31 else None, "div-div"),
  ((xi % c1) % c2, lambda x, c1, c2: x % c2 if c2.arg > 0 and c1.arg % c2.arg == 0 else None, "mod-mod"),
  # c1 > 0 too: for c1 < 0, x % c1 lies in (c1, 0] and the identity fails ((1 % -4) // 2 is -2, not 0)
  ((xi % c1) // c2, lambda x, c1, c2: (x // c2) % (c1.arg // c2.arg) if c1.arg > 0 and c2.arg > 0 and c1.arg % c2.arg == 0 else None, "mod-div"),
  (UPat(Ops.FLOORDIV, src=(xi, UPat.cvar("c"))), reads("opaque")(lambda x, c: _div_sum(x, c, mod=False)), "div-sum"),
  (UPat(Ops.FLOORMOD, src=(xi, UPat.cvar("c"))), reads("opaque")(lambda x, c: _div_sum(x, c, mod=True)), "mod-sum"),
  (UPat(Ops.FLOORDIV, src=(xi, UPat.cvar("c"))), reads("bounds")(lambda x, c: x.const_like(0) if 0 <= vmin(x) and vmax(x) < c.arg else None),
   "div-small"),
  (UPat(Ops.FLOORMOD, src=(xi, UPat.cvar("c"))), reads("bounds")(lambda x, c: x if 0 <= vmin(x) and vmax(x) < c.arg else None), "mod-small"),
  # recombine: (x//c)*c + x%c == x
  (UPat(Ops.ADD, src=[(xi // c1) * c1, xi % c1]), lambda x, c1: x, "div-mod-recombine"),
  (UPat(Ops.ADD, src=[(xi // c1) * c1 + y, xi % c1]), lambda x, c1, y: x + y, "div-mod-recombine-sum"),
  # comparisons
  ((xi + c1) < c2, lambda x, c1, c2: x < (c2.arg - c1.arg) if -2**31 <= c2.arg - c1.arg < 2**31 else None, "lt-add-const"),
  ((xi * c1) < c2, _lt_mul, "lt-mul-const"),
  # bounds say this int expression is a constant
  (UPat(ALU, name="x"), _const_bounds, "bounds-const"),
], name="symbolic", reads="pattern")   # a function that reads more says so (@reads; checked by tests/test_footprint.py)


# What most of the rules above compute, as data (rule_data.py), kept beside the list so the list reads as the math:
# the explorer's C core applies these forms instead of calling the functions per match, and
# tests/test_relational_native_folds.py holds each form to its function. div-sum, mod-sum and the nested wheres stay Python.
declare_data(symbolic, {
  "comm-const-right": Guarded(("not", ("const?", "y")), Rebuild("u", ("y", "c"))),
  "mul-0": _ZERO, "mod-1": _ZERO, "sub-self": _ZERO,
  "where-const": Guarded(C, lambda x: x, lambda y: y),
  "cast-same": Guarded(("==", ("dtype", "c"), ("dtype", "x")), lambda x: x),
  "cmp-self": Guarded(1, lambda k: k, consts=(("k", dtypes.bool, 0),)),   # a scalar x's; a shaped one's in Python
  "assoc-add-const": _with_k(lambda x, k: x + k, ("wrap_i32", ("+", C1, C2))),
  "assoc-mul-const": _with_k(lambda x, k: x * k, ("wrap_i32", ("*", C1, C2))),
  "distribute-const": _with_k(lambda x, c2, k: x * c2 + k, ("wrap_i32", ("*", C1, C2))),
  "const-outward": Guarded(("not", ("const?", "y")), lambda x, y, c1: (x + y) + c1),
  "factor-consts": _with_k(lambda x, k: x * k, ("wrap_i32", ("+", C1, C2))),
  "factor-const-1": _with_k(lambda x, k: x * k, ("wrap_i32", ("+", C1, 1))),
  "div-div": _with_k(lambda x, k: x // k, ("*", C1, C2), guard=_and((">", C1, 0), (">", C2, 0), ("<", ("*", C1, C2), 2**31))),
  "mod-mod": Guarded(_and((">", C2, 0), ("==", ("%", C1, C2), 0)), lambda x, c2: x % c2),
  "mod-div": _with_k(lambda x, c2, k: (x // c2) % k, ("//", C1, C2), guard=_and((">", C1, 0), (">", C2, 0), ("==", ("%", C1, C2), 0))),
  "div-small": _with_k(lambda k: k, 0, guard=_SMALL),
  "mod-small": Guarded(_SMALL, lambda x: x),
  "lt-add-const": _with_k(lambda x, k: x < k, ("-", C2, C1), guard=_and(("<=", -2**31, ("-", C2, C1)), ("<", ("-", C2, C1), 2**31))),
})


_simplified: dict[UOp, UOp] = node_memo()   # emptied when the node tables are collected


def simplify(u: UOp) -> UOp:
  """``graph_rewrite(u, symbolic)``, memoized: rewriting is a pure function of a hash-consed node.

  >>> p0 = UOp.param(0)
  >>> simplify((p0 + 2) * 3 + (UOp.const(1) + UOp.const(4))) is p0 * 3 + 11
  True
  """
  if (r := _simplified.get(u)) is not None: return r
  if len(_simplified) > 200_000: _simplified.clear()
  r = _simplified[u] = graph_rewrite(u, symbolic)
  _simplified[r] = r
  return r


_FROM_EVALUATE = ("evaluate", "inline_call", "run", "to_python")


def __getattr__(name: str) -> Any:
  """The chapter's symbolic.py also holds ``evaluate``, ``inline_call``, ``run`` and ``to_python``; here they live in
  ``uopc.evaluate`` (which builds on this module, hence the deferred import), and ``from uopc.symbolic import run`` works."""
  if name in _FROM_EVALUATE:
    return getattr(importlib.import_module("uopc.evaluate"), name)   # not ``import``: the package's ``evaluate`` is the rule set
  raise AttributeError(f"module 'uopc.symbolic' has no attribute {name!r}")
