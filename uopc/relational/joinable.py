"""Joinability: do two graphs rewrite to a common graph?

First the canonical engine normalizes both (bounded by ``max_steps``): the same normal
form joins them. Otherwise both are explored breadth first, side by side, until a
graph reached from one is reached from the other (they *meet*), or both explorations
end without one (not joinable), or a bound stops them first (undecided).

>>> from uopc import UOp, symbolic
>>> p0 = UOp.param(0)
>>> join(symbolic, (p0 + 0) * 1, p0 * 1).how
'same normal form'
>>> j = join(symbolic, UOp.const(0.0), UOp.const(-0.0))
>>> j.status, j.normal_forms
('not-joinable', (UOp(Ops.CONST, arg=0.0), UOp(Ops.CONST, arg=-0.0)))
"""
from __future__ import annotations

import time
from typing import Iterator, Literal, NamedTuple

from uopc.matcher import PatternMatcher
from uopc.relational.step import Stepper, stepper_for
from uopc.relational.stream import Exploration
from uopc.rewrite import RewriteLoopError, graph_rewrite
from uopc.term import show
from uopc.uop import UOp

__all__ = ["Join", "JoinStatus", "join", "normalize"]

JoinStatus = Literal["joinable", "not-joinable", "undecided"]


class Join(NamedTuple):
  """How two graphs join: ``status``, ``how`` (in words), where they ``meet`` and after how many ``steps``
  from each side, and the ``normal_forms`` the canonical engine gives each (None where it failed)."""
  status: JoinStatus
  how: str
  meet: UOp | None
  steps: tuple[int, int]
  normal_forms: tuple[UOp | None, UOp | None]


def normalize(pm: PatternMatcher, u: UOp, max_steps: int = 10_000, memo: dict[UOp, UOp | None] | None = None) -> UOp | None:
  """``graph_rewrite(u, pm)``, or None if it loops past ``max_steps`` lookups or a rule raises.

  ``memo`` (a dict kept by the caller for one ``pm`` and ``max_steps``) saves normalizing a graph twice.

  >>> from uopc import UOp, symbolic
  >>> normalize(symbolic, UOp.param(0) * 1 + 0) is UOp.param(0)
  True
  """
  if memo is not None and u in memo: return memo[u]
  try: r = graph_rewrite(u, pm, max_steps=max_steps)
  except RewriteLoopError: r = None
  except Exception: r = None   # a rule raised: the explorer will show where
  if memo is not None: memo[u] = r
  return r


def join(pm: PatternMatcher, a: UOp, b: UOp, *, max_steps: int = 10_000, max_states: int = 2_000,
         timeout: float | None = 1.0, stepper: Stepper | None = None, memo: dict[UOp, UOp | None] | None = None) -> Join:
  """Whether ``a`` and ``b`` have a common reduct under ``pm`` (see the module doc).

  ``memo`` is passed to ``normalize``.
  """
  if a is b: return Join("joinable", "same result", a, (0, 0), (None, None))
  na, nb = normalize(pm, a, max_steps, memo), normalize(pm, b, max_steps, memo)
  if na is not None and na is nb: return Join("joinable", "same normal form", na, (-1, -1), (na, nb))
  stepper = stepper or stepper_for(pm)
  ea = Exploration(a, pm, max_states=max_states, timeout=timeout, stepper=stepper)
  eb = Exploration(b, pm, max_states=max_states, timeout=timeout, stepper=stepper)
  meet = _meet(ea, eb, timeout)
  if meet is not None:
    g, k, l = meet
    return Join("joinable", f"meet at {show(g, 200)} after {k}/{l} steps", g, (k, l), (na, nb))
  na = na if na is not None else _first_normal_form(ea)
  nb = nb if nb is not None else _first_normal_form(eb)
  if ea.complete and eb.complete: return Join("not-joinable", "no common reduct", None, (-1, -1), (na, nb))
  bound = ea.bound or eb.bound
  return Join("undecided", f"no common reduct found before the {bound} bound", None, (-1, -1), (na, nb))


def _first_normal_form(ex: Exploration) -> UOp | None:
  """The graph of the first normal state of a complete exploration (where the canonical engine failed), else None."""
  return next((s.graph for s in ex.normal_forms), None) if ex.complete else None


def _meet(ea: Exploration, eb: Exploration, timeout: float | None) -> tuple[UOp, int, int] | None:
  """A graph both explorations reach (fewest steps in total among the first found), alternating one state each."""
  depth_a: dict[UOp, int] = {}
  depth_b: dict[UOp, int] = {}
  ia: Iterator | None = iter(ea)
  ib: Iterator | None = iter(eb)
  deadline = None if timeout is None else time.perf_counter() + timeout
  while ia is not None or ib is not None:
    for side in (0, 1):
      it = ia if side == 0 else ib
      if it is None: continue
      s = next(it, None)
      if s is None:
        if side == 0: ia = None
        else: ib = None
        continue
      if s.error is not None: continue   # a stuck step reaches no graph
      mine, other = (depth_a, depth_b) if side == 0 else (depth_b, depth_a)
      if s.graph in mine: continue
      mine[s.graph] = s.depth
      if (d := other.get(s.graph)) is not None:
        return (s.graph, s.depth, d) if side == 0 else (s.graph, d, s.depth)
    if deadline is not None and time.perf_counter() > deadline: break
  return None
