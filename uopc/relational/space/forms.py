"""What a node can become: a sound over-approximation of its reachable forms, read from the rules' patterns.

The reduction (``reduction.py``, ``docs/reduction.md``) needs to know which nodes are
*inert*: never a redex at their own position, whatever steps happen below them. Looking at
the op alone (``Stepper.can_match``) calls every ``+`` of a sum live under ``x + 0``; the
patterns say more. No ``+`` above the leaves of ``sum(pK + 0)`` can ever match ``x + 0``,
because nothing turns a sum, or a ``pK``, into the constant 0.

The abstraction (a cheap cousin of tree-automata completion): the forms of a node are a
union of *shapes*, each a node ``v`` whose sources range over the forms of ``v``'s sources,
or TOP (anything). Bottom up, for a node ``u`` whose sources have forms ``F1 .. Fn``:

- no rule's pattern can match a term of ``u``'s head with sources in ``F1 .. Fn``
  (ops, dtypes, args and source structure, patterns read to their full depth): ``u`` is
  *stable*, and its forms are its own shape;
- some pattern may match, but every source is *frozen* (its only form is itself): the only
  form a rule ever sees is ``u``, so its results are known (the rules are called on ``u``,
  as the explorer calls them anyway); the forms are ``u`` and the results' forms (each
  result read without looking at *its* results, so the analysis is a function of the node);
  with no result at all, ``u`` is stable;
- else TOP: an opaque function applied to an unknown form can return anything.

What it loses: what a rule's function returns on forms not seen (TOP), equalities between
pattern variables (``x + x`` is read as ``x + y``), and results of results. A ``CALL`` is never
inert: whether steps inside its body are steps at all depends on the ``CALL`` itself (``IR.opaque_ops``).

The patterns come through the node protocol (``IR.patterns``): uopc's ``UPat``s as they are, tinygrad's read as uopc's
are, a PyTensor rewriter as matching every node of an op it tracks (``uopc.relational.ir.patterns``).

>>> from uopc import UOp, UPat, PatternMatcher, symbolic
>>> from uopc.relational.space.step import Stepper
>>> x = UPat.var("x")
>>> forms = Forms(Stepper(PatternMatcher([(x + 0, lambda x: x)])))
>>> p0, p1 = UOp.param(0), UOp.param(1)
>>> forms.inert((p0 + 0) + (p1 + 0)), forms.inert(p0 + 0), forms.inert((p0 + 0) + 0)
(True, False, False)
>>> Forms(Stepper(symbolic)).inert((p0 + 0) + (p1 + 0))   # x=alu -> _const_bounds may match any sum
False
"""
from __future__ import annotations

from functools import partial
from typing import Any, Optional

from uopc.relational.space.step import Stepper
from uopc.upat import UPat
from uopc.uop import UOp

__all__ = ["Forms"]

# A node's forms: None (TOP), or shapes ``(v, (forms of v's sources, ...))``.
Shapes = Optional[tuple]

_MAX_SHAPES = 32   # past this many shapes a node's forms are TOP: the analysis stays linear in the graph


class Forms:
  """The forms analysis of one rule set (a ``Stepper``'s), memoized per node: ``inert(u)``, ``forms(u)``."""

  def __init__(self, stepper: Stepper) -> None:
    self.stepper = stepper
    # the patterns of the rules filed under each op, as the IR reads them (``IR.patterns``: uopc's UPats, or views of another
    # IR's that over-approximate them); ops whose nodes are never inert (uopc's CALL)
    self._patterns: dict[Any, tuple[UPat, ...]] = {}
    self._ir_patterns, self._opaque = partial(stepper.ir.patterns, stepper.pm), stepper.ir.opaque_ops
    self._info: dict[UOp, tuple[Shapes, bool, bool]] = {}      # node -> (forms, frozen, stable)
    self._shallow: dict[UOp, tuple[Shapes, bool, bool]] = {}   # the same, results of rules not expanded
    self._always: dict[tuple, bool] = {}   # (op, dtype, arg) -> some pattern matches every node with it

  def inert(self, u: UOp) -> bool:
    """True if no form of ``u`` is ever a redex at its own position (so no step is ever taken there)."""
    if not self._of_op(u.op): return u.op not in self._opaque
    if u.op in self._opaque or self.always_matched(u.op, u.dtype, u.arg, len(u.src)): return False
    return self._of(u, self._info, True)[2]

  def _of_op(self, op: Any) -> tuple[UPat, ...]:
    """The patterns of the rules filed under ``op`` (memoized)."""
    if (ps := self._patterns.get(op)) is None: ps = self._patterns[op] = tuple(self._ir_patterns(op))
    return ps

  def always_matched(self, op: Any, dtype: Any, arg: Any, n: int | None = None) -> bool:
    """True if some rule's pattern matches every node with this head, whatever its sources (``x=alu`` under
    ``symbolic``), or every node with this head and ``n`` sources (``x + y``; None: not known). Such a node is
    never inert, and ``inert`` answers without looking below it."""
    key = (op, dtype, arg, n)
    if (v := self._always.get(key)) is None:
      v = self._always[key] = any(_head(p, op, dtype, arg) and (p.src is None or n is not None and any(
        (len(order) == n or p.allow_any_len and len(order) <= n) and all(_trivial(q) for q in order) for order in p._orders))
        for p in self._of_op(op))
    return v

  def forms(self, u: UOp) -> Shapes:
    """``u``'s forms (None: TOP), as shapes ``(node, (forms of its sources, ...))``."""
    return self._of(u, self._info, True)[0]

  def _of(self, root: UOp, memo: dict, expand: bool) -> tuple[Shapes, bool, bool]:
    """(forms, frozen, stable) of ``root``, and of every node below it without them (post-order, iterative)."""
    if (got := memo.get(root)) is not None: return got
    stack = [root]
    while stack:
      u = stack[-1]
      if u in memo: stack.pop(); continue
      todo = [s for s in u.src if s not in memo]
      if todo: stack.extend(todo); continue
      stack.pop()
      memo[u] = self._node(u, [memo[s] for s in u.src], expand)
    return memo[root]

  def _node(self, u: UOp, srcs: list[tuple[Shapes, bool, bool]], expand: bool) -> tuple[Shapes, bool, bool]:
    """(forms, frozen, stable) of ``u`` from its sources'."""
    src_forms = tuple(f for f, _, _ in srcs)
    frozen_src = all(fr for _, fr, _ in srcs)
    own = ((u, src_forms),)
    opaque = u.op in self._opaque
    if not opaque:
      for p in self._of_op(u.op):
        if _may(p, own): break
      else: return own, frozen_src, True
    if not frozen_src: return None, False, False
    redexes = self.stepper.redexes_at(u)
    if not redexes: return own, True, not opaque   # the rules looked and returned nothing: u stays u
    if not expand: return None, False, False
    shapes, seen = list(own), {(id(u), id(src_forms))}
    for r in redexes:
      if r.error is not None: continue   # a step that fails makes no form (a stuck state)
      f = self._of(r.result, self._shallow, False)[0]  # type: ignore[arg-type]  # no error: a result
      if f is None: return None, False, False
      for sh in f:
        if (key := (id(sh[0]), id(sh[1]))) not in seen: seen.add(key); shapes.append(sh)
    return (tuple(shapes) if len(shapes) <= _MAX_SHAPES else None), False, False


def _head(p: UPat, op: Any, dtype: Any, arg: Any) -> bool:
  """Whether the pattern's own constraints (op, dtype, arg) accept this head, as ``UPat.match`` checks them."""
  if p.op is not None and op not in p.op: return False
  if p.dtype is not None and dtype not in p.dtype: return False
  if p.arg is not None:
    try: return not (arg != p.arg)
    except Exception: return True   # a comparison that raises: it may match, for all this knows
  return True


def _trivial(p: UPat) -> bool:
  """A pattern that matches every node (it may bind a name)."""
  return p.op is None and p.dtype is None and p.arg is None and p.src is None


def _may(p: UPat, forms: Shapes) -> bool:
  """Whether ``p`` may match some term of ``forms`` (equal names are not required to bind equal nodes)."""
  if forms is None: return True
  ops, dts, arg, src = p.op, p.dtype, p.arg, p.src
  for v, src_forms in forms:
    if (ops is not None and v.op not in ops) or (dts is not None and v.dtype not in dts): continue
    if arg is not None and not _head(p, v.op, v.dtype, v.arg): continue
    if src is None: return True
    n = len(src_forms)
    for order in p._orders:
      if len(order) != n and not (p.allow_any_len and len(order) <= n): continue
      for q, f in zip(order, src_forms):   # a source pattern without constraints matches anything: not called
        if f is not None and not _trivial(q) and not _may(q, f): break
      else: return True
  return False
