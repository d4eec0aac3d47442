"""A rule's pattern as the partial-order reduction reads it, whatever the IR (``docs/reduction.md``, ``docs/ir-protocol.md``).

The reduction (``uopc/relational/space/forms.py``) asks of a pattern only what uopc's ``UPat`` has: the ops (``op``), dtypes
(``dtype``) and ``arg`` it accepts at its root (None: any), its sources (``src``, None: any; ``_orders``, each a tuple of
sub-patterns, in every order they are tried; ``allow_any_len``: more sources than an order's may follow) and ``name``.
uopc's ``UPat``s are read as they are. Another IR gives a ``PatternView`` per pattern (``IR.patterns``), which must
*over-approximate* it: accept every node the pattern matches, and maybe more. That is what keeps the reduction sound: a
node the view may match is never called inert, so a view that says less than its pattern only explores more graphs.

tinygrad's ``UPat``s are read by ``uopc.relational.adapters.tinygrad.patterns``; PyTensor's node rewriters (``TRACKED``)
say only which ops they track.

>>> sum30 = PatternView(("ADD",), orders=((PatternView(), PatternView(("CONST",), arg=0)),))
>>> union([sum30, PatternView(("MUL",), ("i32",))]).op, union([sum30, TRACKED]).op
(('ADD', 'MUL'), None)
"""
from __future__ import annotations

from typing import Any

__all__ = ["PatternView", "TRACKED", "union"]


class PatternView:
  """One pattern's constraints, as uopc's ``UPat`` holds them (the reduction reads nothing else)."""
  __slots__ = ("op", "dtype", "arg", "src", "_orders", "allow_any_len", "name")

  def __init__(self, op: Any = None, dtype: Any = None, arg: Any = None, orders: tuple[tuple[PatternView, ...], ...] | None = None,
               allow_any_len: bool = False, name: str | None = None) -> None:
    self.op, self.dtype, self.arg, self.allow_any_len, self.name = op, dtype, arg, allow_any_len, name
    self.src = orders   # None: any sources (not looked at)
    self._orders = orders or ()

  def __repr__(self) -> str:
    return f"PatternView(op={self.op}, dtype={self.dtype}, arg={self.arg!r}, orders={len(self._orders)}, name={self.name!r})"


TRACKED = PatternView()   # a rule offered every node of an op it tracks, read as matching any node of it (PyTensor's)


def union(views: list[PatternView]) -> PatternView:
  """One view accepting every node some of ``views`` accepts: the heads' union, any arg and sources (an alternative)."""
  ops = None if any(v.op is None for v in views) else tuple(dict.fromkeys(o for v in views for o in v.op))
  dts = None if any(v.dtype is None for v in views) else tuple(dict.fromkeys(d for v in views for d in v.dtype))
  return PatternView(ops, dts)
