"""Bidirectional search for a common graph: a proof that two programs are equal under a rule set.

``meet(a, b, pm)`` explores forwards from both programs at once, a breadth-first layer
at a time, always growing the side whose frontier is smaller, and checks each newly
reached graph against everything the other side has reached. The first layer that
produces a common graph ends the search; of the common graphs found in it, the one
with the fewest steps in total is the meeting (the layer is cut short once no later
graph in it could have fewer). Each side's path to it is a shortest
one from that side; the total is the smallest among meetings found by then, which is
not always the global minimum (a meeting deep on one side and shallow on the other
can be found later than a balanced one).

>>> from uopc import UOp, symbolic
>>> p0, p1 = UOp.param(0), UOp.param(1)
>>> r = meet((p0 + 0) + p1, p0 + p1 * 1, symbolic)
>>> r.found, show(r.meeting), len(r.from_a), len(r.from_b)
(True, 'add(p0, p1)', 1, 1)
>>> [(e.rule, show(e.node), e.target.term()) for e in r.from_a + r.from_b]
[('add-0', 'add(p0, 0)', 'add(p0, p1)'), ('mul-1', 'mul(p1, 1)', 'add(p0, p1)')]
"""
from __future__ import annotations

import time
from typing import Any, Callable, Iterator

from uopc.matcher import PatternMatcher
from uopc.relational.ir import rules_for, type_name
from uopc.relational.space.states import Edge, State
from uopc.relational.space.step import Stepper, stepper_for
from uopc.limits import NO_LIMITS, Limits
from uopc.relational.space.stream import Exploration
from uopc.symbolic import symbolic
from uopc.term import show
from uopc.uop import UOp
from uopc.bounded import Bounded, StopReason
from uopc.lengths import LENGTHS

Progress = Callable[[int], None]


class MeetResult(Bounded):
  """The answer of ``meet``.

  ``found``; ``meeting`` (the common graph), ``from_a`` and ``from_b`` (each program's
  steps to it; ``path`` is ``from_a``); ``searched`` (graphs reached, both sides;
  ``searched_a``/``searched_b`` per side); ``bound`` (the bound that stopped a search
  that found nothing, else None); ``complete`` (the answer is definitive: a meeting,
  or both reachable spaces searched to their end and disjoint); ``elapsed`` seconds;
  ``stuck``, the stuck states met on either side (a rule raised).
  """

  def __init__(self, meeting: tuple[State, State] | None, searched_a: int, searched_b: int, bound: StopReason | None,
               elapsed: float, explorations: tuple[Exploration, Exploration] | None = None, stuck: list[State] | None = None) -> None:
    self._meeting, self.searched_a, self.searched_b, self.bound, self.elapsed = meeting, searched_a, searched_b, bound, elapsed
    self.explorations = explorations   # each side's, as far as the search read it (unbounded: do not run them on); None if none started
    self.stuck: list[State] = stuck or []

  @property
  def found(self) -> bool: return self._meeting is not None

  @property
  def searched(self) -> int: return self.searched_a + self.searched_b

  @property
  def meeting(self) -> UOp | None: return None if self._meeting is None else self._meeting[0].graph

  @property
  def states(self) -> tuple[State, State] | None:
    """The meeting's state on each side."""
    return self._meeting

  @property
  def from_a(self) -> list[Edge]: return [] if self._meeting is None else self._meeting[0].path()

  @property
  def from_b(self) -> list[Edge]: return [] if self._meeting is None else self._meeting[1].path()

  @property
  def path(self) -> list[Edge]: return self.from_a

  @property
  def length(self) -> int | None:
    """Steps in total (``len(from_a) + len(from_b)``)."""
    return None if self._meeting is None else self._meeting[0].depth + self._meeting[1].depth

  def __repr__(self) -> str:
    if self._meeting is None:
      why = "both spaces searched" if self.bound is None else f"stopped by {self.bound}"
      return f"MeetResult(no common graph: {self.searched} graphs, {why})"
    return f"MeetResult(meet at {show(self._meeting[0].graph, LENGTHS.message)} in {len(self.from_a)} + {len(self.from_b)} steps)"


class _Side:
  """One direction of the search: an exploration read a breadth-first layer at a time."""

  def __init__(self, ex: Exploration) -> None:
    self.ex = ex
    self.states: Iterator[State] = iter(ex)
    self.seen: dict[UOp, State] = {}
    self.depth = -1            # the deepest layer read so far
    self.complete = -1         # the deepest layer read to its end
    self.layer = 0             # graphs in that layer: the frontier the next layer grows from
    self.pending: State | None = None   # read ahead: the first state of the next layer
    self.pulled = 0            # states taken from the exploration (stuck ones too)
    self.searched = 0          # graphs among them
    self.done = False

  def next(self) -> State | None:
    s = self.pending
    if s is not None:
      self.pending = None
      return s
    s = next(self.states, None)
    if s is None: self.done = True
    else: self.pulled += 1
    return s


def _proven(meetings: list[tuple[State, State]], sides: list[_Side]) -> bool:
  """True once the best meeting found is a shortest one.

  Every graph at most ``complete`` steps from a side's root has been seen on that side
  (every graph, once the side is done), so a meeting not found yet is more than that
  many steps from one of the roots: it takes at least ``min(complete) + 1`` steps in
  all. Rewriting is directed, so a meeting found early can be longer than one found a
  layer later (the other root itself, reached from the first one).
  """
  if not meetings: return False
  best = min(m[0].depth + m[1].depth for m in meetings)
  return best <= min(s.complete if not s.done else float("inf") for s in sides) + 1


def meet(a: UOp, b: UOp, pm: PatternMatcher = symbolic, *, max_states: int | None = 100_000, max_depth: int | None = None,
         timeout: float | None = None, ctx: Any = None, progress: Progress | None = None,
         stepper: Stepper | None = None, limits: Limits = NO_LIMITS) -> MeetResult:
  """A graph that both ``a`` and ``b`` rewrite to under ``pm``, with each one's path to it.

  ``max_states`` bounds the states made on both sides together, ``max_depth`` the
  steps on each side, ``timeout`` the whole search, and the caller's ``limits`` (``uopc.limits``)
  too. ``progress(n)`` is called with the number of graphs reached so far. ``stepper`` (of ``pm``)
  lends its memo tables.

  >>> from uopc import UOp, symbolic
  >>> r = meet(UOp.param(0) + 1, UOp.param(0) + 2, symbolic)
  >>> r.found, r.complete, r.searched
  (False, True, 2)
  """
  if max_states is not None and max_states < 2: raise ValueError("max_states must be at least 2 (one graph per side)")
  if max_depth is not None and max_depth < 0: raise ValueError("max_depth must be at least 0")
  t0 = time.perf_counter()
  deadline = None if timeout is None else t0 + timeout
  if type(a) is not type(b): raise TypeError(f"meet: the programs are a {type_name(type(a))} and a {type_name(type(b))}: nodes of two IRs")
  stepper = stepper or stepper_for(rules_for(a, pm, "meet: pm"), ctx)   # one memo table serves both sides
  sides = [_Side(Exploration(root, pm, max_states=None, max_depth=max_depth, timeout=timeout, stepper=stepper, limits=limits))
           for root in (a, b)]
  limit = max_states if max_states is not None else float("inf")
  bound: StopReason | None = None
  meetings: list[tuple[State, State]] = []
  stuck: list[State] = []
  turn = 0
  while not _proven(meetings, sides):
    # grow the side with the smaller frontier (the shallower one on a tie, then alternating)
    live = [i for i in (turn, 1 - turn) if not sides[i].done]
    if not live: break
    i = min(live, key=lambda j: (sides[j].layer if sides[j].depth >= 0 else -1, sides[j].depth))
    turn = 1 - i
    if (bound := _grow(sides, i, limit, deadline, limits, meetings, stuck, progress)) is not None: break
  elapsed = time.perf_counter() - t0
  explorations = (sides[0].ex, sides[1].ex)
  if meetings:
    best = min(meetings, key=lambda m: m[0].depth + m[1].depth)   # min keeps discovery order on ties
    return MeetResult(best, sides[0].searched, sides[1].searched, None, elapsed, explorations, stuck)
  if bound is None: bound = next((s.ex.bound for s in sides if s.done and s.ex.bound is not None), None)
  return MeetResult(None, sides[0].searched, sides[1].searched, bound, elapsed, explorations, stuck)


__all__ = ["MeetResult", "meet"]


def _grow(sides: list[_Side], i: int, limit: float, deadline: float | None, limits: Limits, meetings: list[tuple[State, State]],
          stuck: list[State], progress: Progress | None) -> StopReason | None:
  """Read side ``i``'s next layer (up to a meeting that no later state of it can beat), adding where it meets the other
  side to ``meetings`` and its stuck states to ``stuck``; the bound that stopped it, if any."""
  side, other = sides[i], sides[1 - i]
  want = side.depth + 1
  count = 0
  full = True   # the layer was read to its end
  bound: StopReason | None = None
  while True:
    if deadline is not None and time.perf_counter() > deadline: bound = "timeout"; break
    if (bound := limits.should_stop()) is not None: break   # the caller's bound: the other side must not start a rule
    fresh = side.pending is None
    s = side.next()
    if s is None: break
    if fresh and side.pulled + other.pulled > limit: side.pending, bound = s, "max_states"; break
    if s.depth > want: side.pending = s; break
    if s.error is not None:
      stuck.append(s)
      continue
    side.seen[s.graph] = s
    side.searched += 1
    count += 1
    if progress is not None: progress(sides[0].searched + sides[1].searched)
    if (t := other.seen.get(s.graph)) is not None:
      meetings.append((s, t) if i == 0 else (t, s))
      if t.depth == 0: full = False; break   # nothing later in this layer can have fewer steps in total
  side.depth, side.layer = want, count
  side.complete = want if full else want - 1
  return bound
