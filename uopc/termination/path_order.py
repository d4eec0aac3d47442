"""A lexicographic path order (LPO) over UOps: the tie-break when weights cannot tell a rule's sides apart.

Symbols are ops: every CONST is one symbol whatever its value, every PARAM of a concrete term one symbol, and a
node's arg (a CAST's dtype, a REDUCE's op) is not looked at: the order is on the terms' shapes, so it holds for every
value of their constants. ``s > t`` when (1) a source of ``s`` is ``t`` or greater than ``t``, or (2) ``s``'s op is
above ``t``'s in the precedence and ``s > `` each source of ``t``, or (3) the same op, ``s >`` each source of ``t``, and
the sources compare greater lexicographically, from the first or (the op's *status*) from the last (as multisets for
an op with any number of sources: ``VARIADIC``). A variable is
below every term it occurs in; a non-constant variable (the rule refused a constant there) is above every constant
when CONST is the least op. An LPO is a reduction order: well-founded, closed under contexts and substitutions.

>>> from uopc.uop import UOp
>>> from uopc.termination.logic import Concrete
>>> x, y = UOp.param(0), UOp.param(1)
>>> order = Concrete(rank={"MUL": 2, "ADD": 1})
>>> greater((x + y) * 3, x * 3 + y * 3, order, frozenset({x, y}))
True
"""
from __future__ import annotations

from typing import Any

from uopc.ops import CALL, CONST, INDEX, STACK
from uopc.uop import UOp

__all__ = ["greater", "symbol"]

VARIADIC = frozenset({STACK, INDEX, CALL})
"""Ops with any number of sources. Their sources compare as multisets (a CALL's body first): the lexicographic
comparison of sequences of any length has infinite descents (``[b] > [a, b] > [a, a, b] > ...`` for ``b > a``), so an
LPO is well-founded only with a status that has none, as the multiset order (a CALL: its body, then its arguments)."""


def symbol(u: UOp) -> str:
  """The precedence's name for ``u``'s op."""
  return u.op.name


def _same(a: UOp, b: UOp, memo: dict[tuple[UOp, UOp], bool]) -> bool:
  """Equal up to the values of constants (and args)."""
  if a is b: return True
  if a.op is not b.op or len(a.src) != len(b.src): return False
  if a.op is CONST: return True
  key = (a, b)
  if (r := memo.get(key)) is None: r = memo[key] = all(_same(x, y, memo) for x, y in zip(a.src, b.src)) and (a.src != () or a.arg == b.arg)
  return r


class _Compare:
  def __init__(self, logic: Any, variables: frozenset[UOp], nonconstant: frozenset[UOp], const_least: Any):
    self.logic, self.vars, self.nonconst, self.const_least = logic, variables, nonconstant, const_least
    self.memo: dict[tuple[UOp, UOp], Any] = {}
    self.same_memo: dict[tuple[UOp, UOp], bool] = {}
    self.occurs: dict[UOp, frozenset[UOp]] = {}

  def variables_in(self, u: UOp) -> frozenset[UOp]:
    if (r := self.occurs.get(u)) is None:
      r = self.occurs[u] = frozenset(u.toposort()) & self.vars if self.vars else frozenset()
    return r

  def ge(self, s: UOp, t: UOp) -> Any:
    return self.logic.true if _same(s, t, self.same_memo) else self.gt(s, t)

  def gt(self, s: UOp, t: UOp) -> Any:
    key = (s, t)
    if (r := self.memo.get(key)) is None:
      self.memo[key] = self.logic.false   # a pair met again below itself is not greater there (cannot happen on trees)
      r = self.memo[key] = self._gt(s, t)
    return r

  def _gt(self, s: UOp, t: UOp) -> Any:
    lg = self.logic
    if s in self.vars:
      return self.const_least if s in self.nonconst and t.op is CONST else lg.false
    if t in self.vars: return lg.true if t in self.variables_in(s) else lg.false
    if _same(s, t, self.same_memo): return lg.false
    through_source = lg.any(self.ge(si, t) for si in s.src)
    if through_source is lg.true: return lg.true
    f, g = symbol(s), symbol(t)
    dominates = lg.all(self.gt(s, tj) for tj in t.src)
    if f != g: head = lg.all([lg.above(f, g), dominates])
    elif s.op in VARIADIC: head = lg.all([dominates, self.variadic(s, t)])
    else:
      left, right = self.lex(s.src, t.src), self.lex(s.src[::-1], t.src[::-1])
      rtl = lg.from_right(f)
      by_status = lg.any([lg.all([rtl, right]), lg.all([_not(lg, rtl), left])]) if left is not right else left
      head = lg.all([dominates, by_status])
    return lg.any([through_source, head])

  def variadic(self, s: UOp, t: UOp) -> Any:
    """Same variadic op: a CALL's bodies first, then (or a STACK's, an INDEX's sources) the multisets of sources."""
    if s.op is CALL and not _same(s.src[0], t.src[0], self.same_memo): return self.gt(s.src[0], t.src[0])
    return self.multiset(s.src[1:] if s.op is CALL else s.src, t.src[1:] if s.op is CALL else t.src)

  def multiset(self, a: tuple[UOp, ...], b: tuple[UOp, ...]) -> Any:
    """``a > b`` in the multiset extension: equal sources taken out of both, what is left of ``b`` each below one of ``a``'s."""
    left, right = list(a), []
    for y in b:
      k = next((i for i, x in enumerate(left) if _same(x, y, self.same_memo)), None)
      if k is None: right.append(y)
      else: left.pop(k)
    if not left: return self.logic.false
    return self.logic.all(self.logic.any(self.gt(x, y) for x in left) for y in right)

  def lex(self, a: tuple[UOp, ...], b: tuple[UOp, ...]) -> Any:
    for x, y in zip(a, b):
      if not _same(x, y, self.same_memo): return self.gt(x, y)
    return self.logic.true if len(a) > len(b) else self.logic.false


def _not(logic: Any, x: Any) -> Any:
  if x is True or x is False: return not x
  return logic.z3.Not(x)


def const_least(logic: Any, symbols: set[str]) -> Any:
  """CONST below every other op of ``symbols`` (ops not among them can be put above it too)."""
  return logic.all(logic.above(f, "CONST") for f in sorted(symbols) if f != "CONST")


Comparisons = dict[tuple[frozenset[UOp], frozenset[UOp]], _Compare]


def greater(s: UOp, t: UOp, logic: Any, variables: frozenset[UOp] = frozenset(), nonconstant: frozenset[UOp] = frozenset(),
            symbols: set[str] | None = None, shared: Comparisons | None = None) -> Any:
  """``s > t`` in the LPO that ``logic`` fixes (or as a z3 formula over the precedence); ``variables``: the PARAMs of ``s``
  that stand for any subterm, ``nonconstant`` those the rule refused a constant at; ``symbols``: every op of the rule set
  (for "CONST is the least op"). ``shared`` (with ``symbols``): the pairs compared before in ``logic`` under the same
  ``variables`` and ``nonconstant`` (the instances observed on a program share most of their nodes: each pair once)."""
  key = (variables, nonconstant)
  if shared is not None and symbols is not None and (known := shared.get(key)) is not None: return known.gt(s, t)
  ops = symbols if symbols is not None else {symbol(n) for n in (*s.toposort(), *t.toposort())}
  compare = _Compare(logic, variables, nonconstant, const_least(logic, ops) if nonconstant else logic.true)
  if shared is not None and symbols is not None: shared[key] = compare
  return compare.gt(s, t)
