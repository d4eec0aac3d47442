"""Check a rule's declared footprint (``uopc.footprint``) on one node: ``footprint_problem(rule, u)``.

The check is by *stand-ins*: every node at an unconstrained position of the pattern's match
(a ``UPat.var``, an unnamed ``UPat()``, a source of a pattern node without ``src``, or for
``"sources"`` the sources of such a node) is replaced by a fresh ``PARAM`` of its dtype and
shape (for ``"bounds"``, with its bounds), the function is called on the match of the rebuilt
node, and its result, with the stand-ins put back, must be what it returns on ``u``. A function
that reads a stand-in's op, arg or sources sees a ``PARAM``; one that reads its bounds where it
declared none sees the full range; and every call of ``bounds``/``vmin``/``vmax`` of
``uopc.bounds`` (and the names ``uopc.symbolic`` imports) is recorded, which a ``"pattern"``
or ``"sources"`` function must not make. This is exactly the property the reduction uses:
rewriting below an unconstrained position commutes with the rule.

>>> from uopc.matcher import PatternMatcher
>>> from uopc.upat import UPat
>>> from uopc.uop import UOp
>>> x = UPat.var("x")
>>> p0 = UOp.param(0)
>>> good = PatternMatcher([(x + 0, lambda x: x * 2)], name="demo", reads="pattern").rules[0]
>>> footprint_problem(good, (p0 * 3) + 0) is None
True
>>> peeks = PatternMatcher([(x + 0, lambda x: x.src[0] if x.src else None)], name="demo", reads="pattern").rules[0]
>>> footprint_problem(peeks, (p0 * 3) + 0)
'rule demo#0 x + 0 declares "pattern" but reads more: on add(mul(p0, 3), 0) with mul(p0, 3) stood in for it returns None, not p0'
"""
from __future__ import annotations

import importlib
from contextlib import contextmanager
from typing import Any, Iterator

from uopc.matcher import Rule
from uopc.upat import UPat
from uopc.uop import UOp, UOpError
from uopc.lengths import LENGTHS

__all__ = ["footprint_problem"]

bounds_module = importlib.import_module("uopc.bounds")   # the package binds uopc.bounds to the function

_FIRST_SLOT = 1 << 20   # stand-ins' PARAM slots: far from any program's


def _var_like(q: UPat) -> bool: return q.op is None and q.arg is None and q.src is None


class _Stand:
  """The stand-ins of one check: a fresh PARAM per distinct node, and the map back."""

  def __init__(self, with_bounds: bool) -> None:
    self.of: dict[UOp, UOp] = {}
    self.back: dict[UOp, UOp] = {}
    self.with_bounds = with_bounds

  def __call__(self, v: UOp) -> UOp:
    if (s := self.of.get(v)) is None:
      s = self.of[v] = UOp.param(_FIRST_SLOT + len(self.of), v.dtype, v.shape)
      self.back[s] = v
    s._bounds = bounds_module.bounds(v) if self.with_bounds and not v.shape else None   # floats too: a comparison reads a float constant's
    return s


def _rebuilds(q: UPat, v: UOp, stand: _Stand, deep: bool) -> list[UOp]:
  """``v`` matched by ``q``, unconstrained positions stood in for: one node per source order that matches."""
  if _var_like(q): return [_head_only(v, stand) if deep else stand(v)]
  if not q.match(v, {}): return []
  if q.src is None: return [v.replace(src=tuple(_head_only(s, stand) if deep else stand(s) for s in v.src)) if v.src else v]
  out: list[UOp] = []
  for order in q._orders:
    if len(order) != len(v.src) and not (q.allow_any_len and len(order) <= len(v.src)): continue
    rest = tuple(_head_only(s, stand) if deep else stand(s) for s in v.src[len(order):])
    srcs: list[tuple[UOp, ...]] = [()]
    for p, s in zip(order, v.src): srcs = [(*done, r) for done in srcs for r in _rebuilds(p, s, stand, deep)]
    out.extend(w for src in srcs if (w := v.replace(src=(*src, *rest))) not in out)
  return out


def _head_only(v: UOp, stand: _Stand) -> UOp:
  """``v`` with its sources stood in for: its head is read (``"sources"``), not below it."""
  return v.replace(src=tuple(stand(s) for s in v.src)) if v.src else v


@contextmanager
def _recording(calls: list) -> Iterator[None]:
  """Record every call of the bounds analysis made through ``uopc.bounds`` or the names ``uopc.symbolic`` imports."""
  symbolic_module = importlib.import_module("uopc.symbolic")
  saved = [(m, n, getattr(m, n)) for m in (bounds_module, symbolic_module) for n in ("bounds", "vmin", "vmax") if hasattr(m, n)]

  def watch(f: Any, name: str) -> Any:
    def watched(u: UOp) -> Any:
      calls.append((name, u))
      return f(u)
    return watched
  for m, n, f in saved: setattr(m, n, watch(f, n))
  try: yield
  finally:
    for m, n, f in saved: setattr(m, n, f)


def _outcome(fn: Any, binding: dict, u: UOp) -> Any:
  try: r = fn(**binding)
  except Exception as e: return ("raises", type(e).__name__)
  return None if r is None or r is u else r


def footprint_problem(rule: Rule, u: UOp) -> str | None:
  """Why ``rule``'s declared footprint does not hold on node ``u`` (every binding of its pattern), or None."""
  kind = rule.footprint
  if kind == "opaque": return None
  pattern, fn = rule[0], rule[1]
  if not (bindings := pattern.match(u, {})): return None
  stand = _Stand(with_bounds=kind == "bounds")
  try: rebuilt = _rebuilds(pattern, u, stand, deep=kind == "sources")
  except UOpError: return None   # the stand-ins do not type-check here (rare): nothing to compare
  back = stand.back
  with_stand: dict[tuple, tuple[dict, UOp]] = {}   # u's binding -> the same binding with stand-ins, and its node
  for v in rebuilt:
    for w in v.toposort():   # nodes above stand-ins may keep bounds from an earlier check's stand-ins
      if w not in back: w._bounds = None
    for bd in pattern.match(v, {}): with_stand.setdefault(tuple(sorted((k, b.substitute(back)) for k, b in bd.items())), (bd, v))
  name = f'rule {rule.name} declares "{kind}"'
  from uopc.term import show
  for bd in bindings:
    calls: list = []
    with _recording(calls): want = _outcome(fn, bd, u)
    if calls and kind != "bounds": return f"{name} but calls {calls[0][0]} (on {show(calls[0][1], limit=LENGTHS.label)})"
    if (found := with_stand.get(tuple(sorted(bd.items())))) is None:
      return f"{name} but its pattern does not match {show(u, limit=LENGTHS.label)} with stand-ins"
    got = _outcome(fn, *found)
    if isinstance(got, UOp): got = got.substitute(back)
    if got is not want and got != want:
      said = [show(g, limit=LENGTHS.label) if isinstance(g, UOp) else str(g) for g in (got, want)]
      stood = ", ".join(show(b, limit=LENGTHS.operand) for b in back.values())
      return f"{name} but reads more: on {show(u, limit=LENGTHS.label)} with {stood} stood in for it returns {said[0]}, not {said[1]}"
  return None


