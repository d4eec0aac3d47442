"""tinygrad's ``UPat`` as the partial-order reduction reads a pattern (``uopc.relational.ir.patterns.PatternView``).

Read as uopc's is: its op, dtype and arg tests, its sources in every permutation it tries, ``allow_any_len``. What a view
cannot say it leaves out, so that it over-approximates the pattern (the reduction stays sound; it only explores more): an
alternative below the root (``UPat.any``) becomes one view accepting the union of its branches' heads, with any sources;
a repeated source pattern (``src=UPat``), any sources; a tag test, none. Equal names are not read as equal nodes (the
reduction reads ``x + x`` as ``x + y``), nor is ``custom_early_reject`` (a filter, never a match).

>>> from tinygrad.uop.ops import Ops, UPat
>>> [v] = views(UPat.var("x") + UPat.cvar("c"))
>>> v.op, [[q.op for q in order] for order in v._orders]
((Ops.ADD,), [[None, (Ops.CONST,)], [(Ops.CONST,), None]])
>>> mul, add = views(UPat.any(UPat(Ops.MUL), UPat(Ops.ADD, src=(UPat.any(UPat(Ops.CONST), UPat(Ops.PARAM)), UPat()))))
>>> mul.op, add.op, add._orders[0][0].op
((Ops.MUL,), (Ops.ADD,), (Ops.CONST, Ops.PARAM))
"""
from __future__ import annotations

import itertools
from typing import Any

from uopc.relational.ir.patterns import PatternView, union

__all__ = ["views"]


def views(p: Any) -> list[PatternView]:
  """tinygrad ``UPat`` ``p`` as views whose union over-approximates it: one per branch of a ``UPat.any`` at its root."""
  if p.is_any: return [v for q in p.src[0] for v in views(q)]
  return [view(p)]


def view(p: Any) -> PatternView:
  """tinygrad ``UPat`` ``p`` (not an alternative at its root) as one view (module docstring)."""
  if p.is_any: return union(views(p))
  orders: tuple[tuple[PatternView, ...], ...] | None = None
  any_len = not p.strict_length
  if p.src is not None:
    if any(isinstance(vp, itertools.repeat) for vp in p.src): orders, any_len = ((),), True   # each source one pattern: any
    else: orders = tuple(tuple(view(q) for q in vp) for vp in p.src)
  return PatternView(p.op, p.match_dtype, p.arg, orders, any_len, p.name)
