"""Search for rewrite sequences: the shortest path from a program to a graph matching a target.

``search(prog, target, pm)`` explores breadth first (``Exploration``) and stops at the
first graph that matches ``target``: a term with holes such as
``"add(mul(p0, 3), ?c)"`` (``?x`` binds, the same name twice binds one node, ``_``
matches anything), or a concrete graph. Breadth first means the path found is a
shortest one.

>>> from uopc import UOp, symbolic
>>> p0 = UOp.param(0)
>>> prog = (p0 + 2) * 3 + (UOp.const(1) + 4)
>>> r = search(prog, "add(mul(p0, 3), ?c)", symbolic)
>>> r.found, show(r.graph), {k: show(v) for k, v in r.bindings.items()}, r.length, r.searched
(True, 'add(mul(p0, 3), 11)', {'c': '11'}, 3, 25)
>>> for e in r.path: print(e.rule, "@", show(e.node), "->", e.target.term())
distribute-const @ mul(add(p0, 2), 3) -> add(add(mul(p0, 3), 6), add(1, 4))
fold-const @ add(1, 4) -> add(add(mul(p0, 3), 6), 5)
assoc-add-const @ add(add(mul(p0, 3), 6), 5) -> add(mul(p0, 3), 11)
>>> replay(prog, r.path, symbolic) is r.graph
True

**How this relates to kanren.** Whether a graph matches is decided by the kanren goal
``eq(graph, pattern)`` (``matcho``), where the pattern is the etuple with logic
variables that ``term_pattern`` makes of the target. The search and the query
``run(1, q, reacho(pm, prog, q), eq(q, pattern))`` are two thin layers over the same
breadth-first ``Exploration`` with that same match; the search walks the states
itself (so it knows each one's path and how many it looked at) and skips
unification on graphs a structural pre-check rules out. They agree:

>>> from kanren import eq, run, var
>>> from uopc.relational import reacho
>>> q = var()
>>> run(1, q, reacho(symbolic, prog, q), eq(q, target_pattern("add(mul(p0, 3), ?c)")))[0] is r.graph
True
>>> run(1, q, target_goal(prog, "add(mul(p0, 3), ?c)", q, symbolic))[0] is r.graph    # the same, linear in states
True

Bounds (``max_states``, ``max_depth``, ``timeout``) are those of ``explore``; a result
says which one stopped a search that found nothing (``bound``), and ``complete`` is
True when the answer is definitive. ``meet`` (two programs, one common graph) and
``replay`` (re-apply a printed path) live in ``uopc.relational.analyses.meet`` and
``uopc.relational.analyses.replay`` and are re-exported here.
"""
from __future__ import annotations

import time
from typing import Any, Callable, Iterator, Mapping, NamedTuple

from uopc.matcher import PatternMatcher
from uopc.relational.logic.goals import reacho
from uopc.relational.analyses.meet import MeetResult, meet
from uopc.relational.analyses.replay import ReplayError, replay
from uopc.relational.space.states import Edge, State
from uopc.limits import NO_LIMITS, Limits
from uopc.relational.space.stream import Exploration
from uopc.relational.logic.target import PartsTarget, Target, matcho, target_for, target_pattern
from uopc.symbolic import symbolic
from uopc.term import show
from uopc.uop import UOp
from uopc.bounded import Bounded, StopReason
from uopc.lengths import LENGTHS

Goal = Callable[[Mapping], Iterator[Mapping]]
Progress = Callable[[int], None]
Explorer = Callable[[Any, bool], Any]   # (target, first) -> the exploration to search, where it is not the default one


class Match(NamedTuple):
  """One graph that matches the target: its state (with the path to it) and the hole bindings.

  ``searched`` is how many graphs had been looked at when it was found (it included).
  """
  state: State
  bindings: dict[str, UOp]
  searched: int

  @property
  def graph(self) -> UOp:
    """The matching graph."""
    return self.state.graph

  @property
  def path(self) -> list[Edge]:
    """A shortest sequence of steps from the program to the graph."""
    return self.state.path()

  @property
  def length(self) -> int:
    """The number of steps of ``path``."""
    return self.state.depth


class SearchStream(Bounded):
  """Every graph reachable from ``prog`` that matches ``target``, lazily, in order of distance.

  Iterate it for ``Match``es. ``searched`` counts the graphs looked at so far; once the
  iteration is over, ``bound`` says which bound ended it (None if the whole space was
  searched) and ``complete`` is True if it was. ``exploration`` is the underlying
  ``Exploration``.
  """

  def __init__(self, prog: UOp, target: Any, pm: PatternMatcher = symbolic, *, max_states: int | None = 100_000,
               max_depth: int | None = None, timeout: float | None = None, ctx: Any = None,
               progress: Progress | None = None, explorer: Explorer | None = None, first: bool = False, limits: Limits = NO_LIMITS) -> None:
    self.prog, self.target, self.pm = prog, target_for(prog, target), pm   # another IR's nodes: a PartsTarget
    if explorer is None:
      self.exploration = Exploration(prog, pm, max_states=max_states, max_depth=max_depth, timeout=timeout, ctx=ctx, limits=limits)
    else: self.exploration = explorer(self.target, first)   # ``first``: it may stop at the level of the first match
    self.searched = 0
    self.elapsed = 0.0
    self.done = False
    self.stuck: list[State] = []   # the stuck states met so far (a rule raised)
    self._progress = progress
    self._states = iter(self.exploration)
    # on a cluster the shards matched every new state: its matches, with the counts from their ids (nothing else made here)
    matches = getattr(self.exploration, "matches", None)   # a ClusterExploration's shards match every new state themselves
    self._matches: Iterator[State] | None = matches() if matches is not None else None

  def __iter__(self) -> SearchStream: return self

  def _next_match(self) -> Match:
    assert self._matches is not None
    ex: Any = self.exploration
    for s in self._matches:
      self.stuck = ex.stuck_before(s.id)
      self.searched = s.id + 1 - len(self.stuck)   # every graph up to this one but the stuck states
      if self._progress is not None: self._progress(self.searched)
      bindings = self.target.match(s.graph)
      assert bindings is not None, "the shards matched it"
      return Match(s, bindings, self.searched)
    self.stuck = ex.stuck
    self.searched = ex.state_count - len(self.stuck)
    self.done = True
    raise StopIteration

  def __next__(self) -> Match:
    t0 = time.perf_counter()
    try:
      if self._matches is not None: return self._next_match()
      target, progress = self.target, self._progress
      for s in self._states:
        if s.error is not None:   # a stuck state repeats its parent's graph
          self.stuck.append(s)
          continue
        self.searched += 1
        if progress is not None: progress(self.searched)
        bindings = target.match(s.graph)
        if bindings is not None: return Match(s, bindings, self.searched)
      self.done = True
      raise StopIteration
    finally: self.elapsed += time.perf_counter() - t0

  @property
  def bound(self) -> StopReason | None:
    """Which bound ended the search (None while it runs, or if the whole space was searched)."""
    return self.exploration.bound if self.done else None

  @property
  def complete(self) -> bool:
    """True once every reachable graph has been looked at: no bound, and (unlike a finished result) the iteration over."""
    return self.done and self.exploration.bound is None


class SearchResult(Bounded):
  """The answer of ``search``.

  ``found``; ``graph`` (the matching graph), ``path`` (a shortest list of ``Edge``s to
  it), ``bindings`` (hole name to node) and ``length`` when found; ``searched`` (graphs
  looked at); ``bound`` (the bound that stopped a search that found nothing, else
  None); ``complete`` (the answer is definitive: found, or not found in the whole
  reachable space); ``elapsed`` seconds; ``stuck``, the stuck states met (a rule raised).
  """

  def __init__(self, target: Target | PartsTarget, match: Match | None, searched: int, bound: StopReason | None, elapsed: float,
               stuck: list[State] | None = None) -> None:
    self.target, self.match, self.searched, self.bound, self.elapsed = target, match, searched, bound, elapsed
    self.stuck: list[State] = stuck or []

  @property
  def found(self) -> bool: return self.match is not None

  @property
  def state(self) -> State | None: return None if self.match is None else self.match.state

  @property
  def graph(self) -> UOp | None: return None if self.match is None else self.match.graph

  @property
  def path(self) -> list[Edge]: return [] if self.match is None else self.match.path

  @property
  def bindings(self) -> dict[str, UOp]: return {} if self.match is None else self.match.bindings

  @property
  def length(self) -> int | None: return None if self.match is None else self.match.length

  def __repr__(self) -> str:
    if self.match is None:
      why = "the whole space" if self.bound is None else f"stopped by {self.bound}"
      return f"SearchResult(not found: {self.searched} graphs, {why})"
    return f"SearchResult(found {show(self.match.graph, LENGTHS.message)} in {self.length} steps, {self.searched} graphs)"

  def _repr_html_(self) -> str:   # Jupyter (uopc.relational.notebook)
    from uopc.relational.notebook import search_html
    return search_html(self)


def search_all(prog: UOp, target: Any, pm: PatternMatcher = symbolic, *, max_states: int | None = 100_000,
               max_depth: int | None = None, timeout: float | None = None, ctx: Any = None,
               progress: Progress | None = None, explorer: Explorer | None = None, limits: Limits = NO_LIMITS) -> SearchStream:
  """Every match, lazily, nearest first (each graph once, each with a shortest path). ``explorer(target, first)``, where
  given, makes the exploration searched (``uopc.relational.api``: on a Ray cluster).

  >>> from uopc import UOp, symbolic
  >>> p0, p1 = UOp.param(0), UOp.param(1)
  >>> [(m.length, show(m.graph)) for m in search_all((p0 + 0) + (p1 * 1), "add(_, _)", symbolic)]  # doctest: +NORMALIZE_WHITESPACE
  [(0, 'add(add(p0, 0), mul(p1, 1))'), (1, 'add(add(p0, mul(p1, 1)), 0)'), (1, 'add(p0, mul(p1, 1))'),
   (1, 'add(add(p0, 0), p1)'), (2, 'add(add(p0, p1), 0)'), (2, 'add(p0, p1)')]

  (``(x + 0) + y`` reassociates to ``(x + y) + 0``, hence the graphs ending in ``+ 0``.)
  """
  return SearchStream(prog, target, pm, max_states=max_states, max_depth=max_depth, timeout=timeout, ctx=ctx,
                      progress=progress, explorer=explorer, limits=limits)


def search(prog: UOp, target: Any, pm: PatternMatcher = symbolic, *, max_states: int | None = 100_000,
           max_depth: int | None = None, timeout: float | None = None, ctx: Any = None,
           progress: Progress | None = None, explorer: Explorer | None = None, limits: Limits = NO_LIMITS) -> SearchResult:
  """The shortest rewrite sequence from ``prog`` to a graph matching ``target`` (the first of ``search_all``).

  ``target`` is a term string (``"add(?x, ?x)"``), a parsed ``Term``, a node (that exact
  graph), an etuple pattern, or a ``Target``. ``progress(n)`` is called with the number
  of graphs searched so far, once per graph. ``explorer``: as ``search_all``'s.
  ``limits``: the caller's bounds (``uopc.limits``), asked between states.

  >>> from uopc import UOp, symbolic
  >>> p0 = UOp.param(0)
  >>> r = search(p0 * 2 + p0 * 2, "add(?x, ?x)", symbolic)    # ?x twice: one node
  >>> r.found, show(r.bindings["x"]), r.length
  (True, 'mul(p0, 2)', 0)
  >>> r = search(p0 + 1, "mul(_, _)", symbolic)                  # a finite space, searched to its end
  >>> r.found, r.complete, r.bound, r.searched
  (False, True, None, 1)
  """
  stream = SearchStream(prog, target, pm, max_states=max_states, max_depth=max_depth, timeout=timeout, ctx=ctx,
                        progress=progress, explorer=explorer, first=True, limits=limits)
  m = next(stream, None)
  return SearchResult(stream.target, m, stream.searched, None if m is not None else stream.bound, stream.elapsed,
                      stream.stuck)


def target_goal(prog: Any, target: Any, q: Any, pm: PatternMatcher = symbolic, **bounds: Any) -> Goal:
  """The search as one kanren goal: ``q`` is reachable from ``prog`` and matches ``target``.

  The conjunction of ``reacho(pm, prog, q, **bounds)`` and ``matcho(q, target)``:
  answers come breadth first, so ``run(1, q, ...)`` is the graph ``search`` finds; the
  holes are the logic variables ``var(name)``. It gives the same answers as
  ``lall(...)`` of the two goals, but conjoins them in sequence: kanren's ``lall``
  interleaves one stream per state and pays more for every state that fails to
  match (quadratic), while the match yields at most one answer per state, so a
  plain sequence is just as fair here and linear.

  >>> from kanren import run, var
  >>> from uopc import UOp, symbolic
  >>> p0, q, x = UOp.param(0), var(), var("x")
  >>> [(show(g), show(b)) for g, b in run(0, (q, x), target_goal((p0 + 0) * 1, "mul(?x, 1)", q, symbolic))]
  [('mul(add(p0, 0), 1)', 'add(p0, 0)'), ('mul(p0, 1)', 'p0')]
  """
  return _in_sequence(reacho(pm, prog, q, **bounds), matcho(q, target))


def _in_sequence(first: Callable[[Any], Iterator[Any]], then: Callable[[Any], Iterator[Any]]) -> Goal:   # ours or kanren's goals
  """A conjunction that runs ``then`` on each answer of ``first`` in turn (fair when ``then`` is finite)."""
  def in_sequence_goal(S: Mapping) -> Iterator[Mapping]:
    for S1 in first(S): yield from then(S1)
  return in_sequence_goal


__all__ = ["Match", "MeetResult", "ReplayError", "SearchResult", "SearchStream", "Target", "matcho", "meet", "replay",
           "search", "search_all", "target_goal", "target_pattern"]
