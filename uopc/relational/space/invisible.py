"""Steps no rule can see, from the rules' declared footprints (``uopc.footprint``; ``docs/reduction.md``, "Footprints").

When every rule of a set declares ``"pattern"`` or ``"bounds"`` and no pattern binds a name
twice, a step that rewrites node ``n`` into ``m`` is *invisible* when no constrained position
below a pattern's root accepts the head (op, dtype, arg) of ``n`` or of ``m``, nothing below
``n`` is a redex, and (with a ``"bounds"`` rule) ``n`` and ``m`` have the same bounds. Then
every rule match anywhere, in any state, sees ``n`` only at an unconstrained position, and
rewriting it commutes with every other step: the steps at ``n`` are a persistent set.

>>> from uopc import UOp, UPat, PatternMatcher
>>> from uopc.relational.space.stream import Exploration
>>> x = UPat.var("x")
>>> unit = PatternMatcher([(x + 0, lambda x: x), (x * 1, lambda x: x)], reads="pattern")
>>> terms = [UOp.param(k) * 1 + 0 for k in range(5)]   # each term: two redexes, one inside the other
>>> total = sum(terms[1:], terms[0])
>>> len(Exploration(total, unit).run().states), len(Exploration(total, unit, reduce=True).run().states)
(1024, 11)
>>> opaque = PatternMatcher([(x + 0, lambda x: x), (x * 1, lambda x: x)])   # declares nothing
>>> len(Exploration(total, opaque, reduce=True).run().states)
1024
"""
from __future__ import annotations

from typing import Any

from uopc.bounds import bounds
from uopc.matcher import PatternMatcher
from uopc.ops import Ops
from uopc.relational.space.forms import _head
from uopc.relational.space.step import Stuck
from uopc.upat import UPat
from uopc.uop import UOp

__all__ = ["Invisible"]


def _inner(p: UPat, root: bool = True) -> list[UPat]:
  """The constrained sub-patterns of ``p`` below its root."""
  out = [] if root or (p.op is None and p.arg is None and p.src is None) else [p]
  for order in p._orders[:1]:   # every order has the same sub-patterns
    for q in order: out.extend(_inner(q, False))
  return out


def _names(p: UPat, out: list[str]) -> list[str]:
  if p.name is not None: out.append(p.name)
  for order in p._orders[:1]:
    for q in order: _names(q, out)
  return out


class Invisible:
  """The footprint policy of one rule set: ``persistent(g, steps)``, the steps at one invisible node, or None."""

  def __init__(self, pm: PatternMatcher) -> None:
    rules = pm.rules   # another IR's rules declare no footprint (opaque): the policy is off
    self.on = bool(rules) and all(getattr(r, "footprint", "opaque") in ("pattern", "bounds") for r in rules) and \
      all(len(set(ns)) == len(ns) for r in rules for ns in [_names(r[0], [])])
    self.with_bounds = any(getattr(r, "footprint", None) == "bounds" for r in rules)
    self._inner = [q for r in rules for q in _inner(r[0])] if self.on else []
    self._seen: dict[tuple, bool] = {}

  def seen(self, u: UOp) -> bool:
    """Whether a constrained position below some pattern's root accepts ``u``'s head."""
    key = (u.op, u.dtype, u.arg) if u.op is Ops.CONST else (u.op, u.dtype)
    if (v := self._seen.get(key)) is None:
      v = self._seen[key] = any(_head(q, u.op, u.dtype, u.arg) for q in self._inner)
    return v

  def persistent(self, g: UOp, steps: dict[Any, UOp | Stuck]) -> dict[Any, UOp] | None:
    if not self.on or not steps: return None
    by_node: dict[UOp, list] = {}
    for k in steps: by_node.setdefault(k.node, []).append(k)
    if len(by_node) < 2: return None
    nodes = g.toposort()
    if any(u.op is Ops.CALL for u in nodes): return None   # a step inside a CALL's body depends on the CALL
    for n in nodes:   # sources first: the first invisible node has no redex below it unless another is
      if (keys := by_node.get(n)) is None: continue
      if self._invisible(n, keys, steps) and not any(s in by_node for s in n.toposort() if s is not n):
        return {k: steps[k] for k in keys}  # type: ignore[misc]  # checked: each a UOp
    return None

  def _invisible(self, n: UOp, keys: list, steps: dict[Any, UOp | Stuck]) -> bool:
    if self.seen(n): return False
    for k in keys:
      m = k.result
      if steps[k].__class__ is not UOp or m is None or self.seen(m): return False
      if self.with_bounds and not n.shape and not n.dtype.is_float and bounds(n) != bounds(m): return False
    return True
