"""Joinability: do two graphs rewrite to a common graph?

First the canonical engine normalizes both (bounded by ``max_steps``): the same normal
form joins them. Otherwise ``meet`` searches from both, breadth first, until a graph
reached from one is reached from the other (they *meet*), or both explorations end
without one (not joinable), or a bound stops them first (undecided).

>>> from uopc import UOp, symbolic
>>> p0 = UOp.param(0)
>>> join(symbolic, (p0 + 0) * 1, p0 * 1).how
'same normal form'
>>> j = join(symbolic, UOp.const(0.0), UOp.const(-0.0))
>>> j.status, j.normal_forms
('not-joinable', (UOp(Ops.CONST, arg=0.0), UOp(Ops.CONST, arg=-0.0)))
"""
from __future__ import annotations

from typing import Any, Literal, NamedTuple

from uopc.limits import NO_LIMITS, Limits
from uopc.relational.analyses.meet import meet
from uopc.relational.ir import UOPC
from uopc.relational.space.step import Stepper
from uopc.term import show
from uopc.lengths import LENGTHS

__all__ = ["Join", "JoinStatus", "join", "normalize"]

JoinStatus = Literal["joinable", "not-joinable", "undecided"]


class Join(NamedTuple):
  """How two graphs join: ``status``, ``how`` (in words), where they ``meet`` and after how many ``steps``
  from each side, and the ``normal_forms`` the canonical engine gives each (None where it failed)."""
  status: JoinStatus
  how: str
  meet: Any   # a node of the rule set's IR, or None
  steps: tuple[int, int]
  normal_forms: tuple[Any, Any]


def normalize(pm: Any, u: Any, max_steps: int = 10_000, memo: dict[Any, Any] | None = None) -> Any:
  """The canonical engine's result for ``u`` (uopc's ``graph_rewrite``; another IR's own, ``IR.canonical``), or None if
  it loops past ``max_steps`` lookups or a rule raises.

  ``memo`` (a dict kept by the caller for one ``pm`` and ``max_steps``) saves normalizing a graph twice.

  >>> from uopc import UOp, symbolic
  >>> normalize(symbolic, UOp.param(0) * 1 + 0) is UOp.param(0)
  True
  """
  if memo is not None and u in memo: return memo[u]
  r, _ = getattr(pm, "ir", UOPC).canonical(u, pm, max_steps=max_steps)   # None when a rule raised: the explorer shows where
  if memo is not None: memo[u] = r
  return r


def join(pm: Any, a: Any, b: Any, *, max_steps: int = 10_000, max_states: int = 2_000,
         timeout: float | None = None, stepper: Stepper | None = None, memo: dict[Any, Any] | None = None,
         limits: Limits = NO_LIMITS) -> Join:
  """Whether ``a`` and ``b`` have a common reduct under ``pm`` (see the module doc).

  ``memo`` is passed to ``normalize``; ``limits`` (the caller's bounds, ``uopc.limits``) to the search.
  """
  if a is b: return Join("joinable", "same result", a, (0, 0), (None, None))
  na, nb = normalize(pm, a, max_steps, memo), normalize(pm, b, max_steps, memo)
  if na is not None and na is nb: return Join("joinable", "same normal form", na, (-1, -1), (na, nb))
  r = meet(a, b, pm, max_states=2 * max_states, timeout=timeout, stepper=stepper, limits=limits)   # max_states is per side here
  if r.states is not None:   # found
    sa, sb = r.states
    g = sa.graph
    return Join("joinable", f"meet at {show(g, LENGTHS.repr)} after {sa.depth}/{sb.depth} steps", g, (sa.depth, sb.depth), (na, nb))
  # both spaces searched to their end: the canonical engine failed on a side whose space has a normal form
  if r.complete and r.explorations is not None:
    ea, eb = r.explorations
    na = na if na is not None else next((s.graph for s in ea.normal_forms), None)
    nb = nb if nb is not None else next((s.graph for s in eb.normal_forms), None)
    return Join("not-joinable", "no common reduct", None, (-1, -1), (na, nb))
  return Join("undecided", f"no common reduct found before the {r.bound} bound", None, (-1, -1), (na, nb))
