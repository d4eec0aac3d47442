"""Does every order of the rewrites terminate? A reachable cycle, and which of the IR engine's strategies loop.

``termination(ex)`` says what an exploration established: every order terminates (the search was complete and no
explored state lies on a cycle), some order loops forever (``loop``: a reachable cycle, ``space/cycles.py``, which
needs no complete search: its steps are steps), or not established (a bound stopped the search first).
``strategies`` says, for the IR's own engine and its variants (tinygrad: ``graph_rewrite`` top down and bottom up),
which ended and which went round a cycle.

>>> from uopc import UOp, UPat, PatternMatcher
>>> from uopc.matcher import short_name
>>> from uopc.relational.space.stream import Exploration
>>> x = UPat.var("x")
>>> swap = PatternMatcher([(x + 0, lambda x: x), (UPat.var("a") * UPat.var("b"), lambda a, b: b * a)])
>>> t = termination(Exploration(UOp.param(0) * 2 + 0, swap))
>>> t.terminates, [s.term() for s in t.loop.states], [short_name(r) for r in t.loop.rules]
(False, ['add(mul(p0, 2), 0)', 'add(mul(2, p0), 0)'], ['a * b'])
>>> termination(Exploration(UOp.param(0) + 0, swap)).terminates
True

``program_termination(prog, rules)`` explores and answers in one call (a rule set's termination check looks for a
program its rules loop on this way: ``check-rules --terminates``):

>>> t = program_termination(UOp.param(0) * UOp.param(1), swap, max_states=100)
>>> t.terminates, len(t.loop.path), len(t.loop.cycle)
(False, 0, 2)
"""
from __future__ import annotations

from typing import Any, NamedTuple

from uopc.limits import NO_LIMITS, Limits
from uopc.relational.space.cycles import Loop, reachable_cycle
from uopc.relational.space.states import State
from uopc.relational.space.stream import Exploration

__all__ = ["Strategy", "Termination", "loop_error", "program_termination", "strategies", "termination"]


class Termination(NamedTuple):
  """Whether every order of the rewrites terminates: ``terminates`` True (the search was complete and found no cycle),
  False (``loop`` is a reachable cycle: established whatever the bounds) or None (the search stopped before exhausting
  the space and found no cycle: not established)."""
  terminates: bool | None
  loop: Loop | None

  @property
  def text(self) -> str:
    """One line: ``every rule order terminates``, ``some rule orders never terminate: ...``, or what is not known."""
    if self.terminates: return "every rule order terminates: no explored state lies on a cycle"
    if self.loop is None:
      return "not established whether every rule order terminates: the search stopped before exhausting the space, and no cycle was found"
    n, k = self.loop.on_cycles, self.loop.components
    return (f"some rule orders never terminate: {n} explored state{'s' * (n != 1)} lie on cycles ({k} strongly connected "
            f"component{'s' * (k != 1)}); a shortest cycle has {len(self.loop.cycle)} step{'s' * (len(self.loop.cycle) != 1)}")


def termination(ex: Exploration) -> Termination:
  """``Termination`` of ``ex``'s program under its rules, as far as the exploration established it.

  A reduced exploration (``docs/reduction.md``) keeps it: a persistent set keeps an infinite sequence of steps (one of
  its steps is in the set, or commutes with every step of it), so a cycle of the full space leaves one in the reduced
  space; and a cycle of the reduced space is one of the full space (its steps are steps).
  """
  loop = reachable_cycle(ex)
  return Termination(False if loop is not None else (True if ex.complete else None), loop)


def program_termination(prog: Any, pm: Any, *, max_states: int | None = 10_000, max_depth: int | None = None,
                        timeout: float | None = None, limits: Limits = NO_LIMITS) -> Termination:
  """``termination`` of a breadth-first exploration of ``prog`` under ``pm`` (any IR's program and rules), bounded as
  ``Exploration``; reduced where the IR allows it (a persistent set keeps every cycle that matters, see ``termination``)."""
  from uopc.relational.ir import ir_of
  return termination(Exploration(prog, pm, max_states=max_states, max_depth=max_depth, timeout=timeout, reduce=ir_of(prog).reducible,
                                 limits=limits).run())


class Strategy(NamedTuple):
  """One run of the IR's own engine: ``label`` (the canonical engine's name, or a variant's: tinygrad's
  ``graph_rewrite(bottom_up=True)``); ``outcome`` ``terminates`` (``detail`` its result), ``loops`` (it stopped with no
  fixed point: ``detail`` its error) or ``fails`` (another error); ``through_cycle``: its replayed path passes through
  a state on a cycle (None where no path is known: a variant's)."""
  label: str
  outcome: str
  detail: str
  through_cycle: bool | None = None


def loop_error(error: str) -> bool:
  """Whether an engine's error says it found no fixed point: uopc's ``RewriteLoopError`` ("did not reach a fixed
  point"), tinygrad's "infinite loop in fixed_point_rewrite" and "infinite loop in graph_rewrite (stack too big)"."""
  return "infinite loop" in error or "fixed point" in error


def strategies(engine: str, canonical: Any, error: str | None, variants: list[tuple[str, Any, str | None]],
               path: list[State] | None, ends: Termination, show: Any) -> list[Strategy]:
  """The canonical engine (``engine``: its name; ``canonical``/``error`` its outcome, ``path`` its replayed states, None
  if unknown) and each variant ``(label, result, error)``, as ``Strategy``s; ``ends``: the exploration's ``termination``,
  whose states on cycles the path may pass through (not known where that is not established); ``show`` prints a result."""
  loop = ends.loop
  def one(label: str, result: Any, err: str | None, states: list[State] | None) -> Strategy:
    through = None if not states or (loop is None and ends.terminates is None) else \
      loop is not None and any(s.id in loop.cyclic for s in states)
    if err is None: return Strategy(label, "terminates", show(result), through)
    return Strategy(label, "loops" if loop_error(err) else "fails", err, through)
  return [one(engine, canonical, error, path), *(one(label, r, e, None) for label, r, e in variants)]
