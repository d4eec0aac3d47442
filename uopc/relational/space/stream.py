"""Exploration: the lazy, deduplicated, bounded stream of every graph reachable from a program.

Breadth first by default (so each state's first-discovery path is a shortest one),
depth first on request. Every graph is one state: hash consing makes "seen this
graph?" a dictionary lookup on its root. Bounds: ``max_states`` (states made, stuck
ones included), ``max_depth`` (steps from the program; states at that depth are
still expanded to learn whether they are normal, but nothing deeper is made) and
``timeout`` (seconds of exploring, checked between states); and the caller's ``limits``
(``uopc.limits``: a command passes its ``--timeout``, ``--max-memory`` and interrupts, which
stop even a rule call that never returns). Whatever was reached before a bound stays
available, and ``bound`` says which one stopped the search.

>>> from uopc import UOp, UPat, PatternMatcher
>>> x = UPat.var("x")
>>> pm = PatternMatcher([(x + 0, lambda x: x), (x * 1, lambda x: x)])
>>> p0 = UOp.param(0)
>>> ex = Exploration((p0 + 0) * 1, pm)
>>> [s.term() for s in ex]
['mul(add(p0, 0), 1)', 'add(p0, 0)', 'mul(p0, 1)', 'p0']
>>> ex.complete, ex.bound, [s.term() for s in ex.normal_forms], len(ex.edges)
(True, None, ['p0'], 4)
"""
from __future__ import annotations

import time
from collections import deque
from typing import Any, Callable, Collection, Generator, Iterable, Iterator, Literal, Mapping, NamedTuple

from uopc import collector
from uopc.matcher import PatternMatcher
from uopc.relational.ir import rules_for
from uopc.relational.space.reduction import IslandReduction
from uopc.relational.space.states import Edge, State, StuckState
from uopc.relational.space.stuck import error_type
from uopc.relational.space.step import GroupedSteps, Redex, Semantics, Stepper, Stuck, stepper_for
from uopc.uop import UOp
from uopc.bounded import Bounded, StopReason
from uopc.limits import NO_LIMITS, BoundHit, Limits
from uopc.lengths import LENGTHS
from uopc.term import show

class Exploration(Bounded):
  """Every graph reachable from ``root`` under ``pm``, discovered lazily.

  Iterating yields states as they are discovered (a second iteration replays them and
  goes on where the first stopped). The other accessors finish the exploration first,
  up to the bounds: ``states``, ``edges``, ``normal_forms``, ``stuck``, ``complete``,
  ``bound``, ``state_of(graph)``, ``path_to(state)``.

  The search runs in the native core where it applies (``native``: None where it is
  built, False never; ``uopc.relational.native``), else in the Python one below: the
  same states in the same order either way.
  """

  def __init__(self, root: UOp, pm: PatternMatcher, *, max_states: int | None = 100_000, max_depth: int | None = None,
               timeout: float | None = None, order: Literal["bfs", "dfs"] = "bfs", ctx: Any = None,
               stepper: Stepper | None = None, reduce: bool = False, keep_full: Collection[UOp] = (),
               semantics: Semantics = "graph", native: bool | None = None, limits: Limits = NO_LIMITS) -> None:
    if order not in ("bfs", "dfs"): raise ValueError(f"order must be 'bfs' or 'dfs', got {order!r}")
    if max_states is not None and max_states < 1: raise ValueError("max_states must be at least 1")
    if max_depth is not None and max_depth < 0: raise ValueError("max_depth must be at least 0")
    self.root, self.pm = root, pm
    self.max_states, self.max_depth, self.timeout, self.order = max_states, max_depth, timeout, order
    self.limits = limits   # the caller's bounds, asked between states (``_stop_reason``)
    # the IR is chosen once, from the root's type: uopc's PatternMatcher is its own rule protocol, another IR's is adapted
    self.stepper = stepper if stepper is not None else stepper_for(rules_for(root, pm, "pm"), ctx, semantics)
    # ``reduce``: explore one persistent set of steps per state where one is known (docs/reduction.md); the
    # reduction reads uopc's patterns, so another IR's rules explore every graph
    self.reduction = IslandReduction(self.stepper, keep_full) if reduce and self.stepper.ir.reducible else None
    self._reduced: set[State] = set()   # states expanded by a persistent set, not fully
    self._states: list[State] = []
    self._normals: list[State] = []
    self._seen: Any = {}   # graph -> state: a dict, or a native search's view of its states
    self._stuck: dict[tuple[UOp, Stuck], State] = {}
    # another IR's failing steps: one stuck state per rule and exception type (``_stuck_state``), the rest counted on it;
    # uopc's keep one per graph and failing redex, as the native core makes them (the two cores agree state for state)
    self._stuck_groups: dict[tuple[int, str], StuckState] | None = None if self.stepper.ir.native else {}
    self._bound: StopReason | None = None
    self._want: int | None = None   # states the consumer wants now (None: all): a batch-wise driver stops there
    self._graphs_ahead = False      # the consumer reads every state's graph (iter_ahead): make them with each batch
    self._native: Any = None        # the native core's NativeSpace while it runs the search
    self._driver: Iterator[None] | None
    if (search := self._native_search(native)) is not None: self._native, self._seen, self._driver = search
    else: self._driver = self._drive()
    self.elapsed = 0.0   # seconds spent exploring so far

  def _native_search(self, native: bool | None) -> Any:
    """The native core's search of this exploration where it applies (uopc's IR, no CALL), else None.

    ``native``: None uses it where it is built (``uopc.relational.native.enabled``), False never, True where it
    applies (an error if it is not built).
    """
    from uopc.relational import native as nat
    if native is None: native = nat.enabled()
    elif native and not nat.available(): raise RuntimeError(f"native=True, but {nat.missing()}")
    if not native or not self.stepper.ir.native: return None
    from uopc.relational.native.drive import native_search
    return native_search(SearchHost(self))

  def prepare(self) -> Exploration:
    """Index the program now (its step maps, which the first state's expansion would make); returns self.

    For timing what follows per state (``bench/maude.py``), and for paying a big program's
    indexing up front. The states found do not change.
    """
    if self._native is not None: self._native.core.prepare(self._native.to_id(self.root))
    else: self.stepper.map_of(self.root)
    return self

  @property
  def native(self) -> bool:
    """True while the native core runs this search (``docs/native.md``); False for the Python core, or once it took over."""
    return self._native is not None

  # ---- streaming

  def __iter__(self) -> Iterator[State]:
    i = 0
    while True:
      while i < len(self._states):
        yield self._states[i]
        i += 1
      if self._driver is None: return
      self._step()

  def _step(self) -> None:
    """Advance until one more state exists, or the exploration is over."""
    assert self._driver is not None   # callers step only a running exploration
    t0 = time.perf_counter()
    self._want = len(self._states) + 1
    try: next(self._driver)
    except StopIteration: self._driver = None
    except BoundHit as e: self._stop(e)
    finally: self.elapsed += time.perf_counter() - t0

  def reaches(self, graph: UOp) -> bool:
    """True if ``graph`` is reachable (within the bounds), exploring only until it is found."""
    seen = self._seen
    while graph not in seen:
      if self._driver is None: return False
      self._advance_batch()
    return True

  def iter_ahead(self, most: int | None = None, graphs: bool = True) -> Iterator[State]:
    """The states, like iterating, but explored ahead in batches (as many states again as exist, at least 16).

    For consumers that will most likely take many states (the kanren goals): each batch
    is explored the way ``run`` explores, with the cycle collector paused, so the
    collector's passes over the exploration's long-lived objects stay rare. It explores
    at most about twice the states taken, plus 16. Such a consumer reads every state's
    graph, so the native core makes them with the batch, the collector still paused. ``most``: at most that many states
    a batch (a command that prints each state as found keeps a stop within one batch's states of its bound); ``graphs``
    False: a consumer that reads few graphs (a progress bar) does without.
    """
    if graphs: self._graphs_ahead = True
    return self._batched(self._states, most)

  def iter_normal_forms(self) -> Iterator[State]:
    """Normal forms as soon as they are known (a state is known normal once expanded), explored ahead in batches."""
    return self._batched(self._normals)

  def _batched(self, items: list[State], most: int | None = None) -> Iterator[State]:
    i = 0
    while True:
      while i < len(items):
        yield items[i]
        i += 1
      if self._driver is None: return
      self._advance_batch(most)

  def _advance_batch(self, most: int | None = None) -> None:
    """Explore one batch ahead: as many states again as exist, at least 16.

    Doubling, not a fixed size: the collector scans young objects once per batch (and
    again every tenth), so the batches must be few (a log of the states) for a
    consumer's stream to cost what ``run`` costs; capped at 4,096 they cost 15% at 177,147 states.
    """
    n = len(self._states)
    self._advance(n + min(max(n, 16), most or n + 16))

  def run(self) -> Exploration:
    """Explore until done or a bound is hit; returns self."""
    self._advance(None)
    return self

  def _advance(self, until: int | None) -> None:
    """Explore until there are ``until`` states (None: to the end), with the cycle collector paused."""
    if self._driver is None: return
    # An exploration makes many small long-lived containers and no reference cycles: the
    # collector would only rescan them (~15% of the time, more in a big process), so it
    # pauses while no user code runs (uopc.collector), and what it made settles in the oldest generation after: the young
    # passes over it that enabling the collector again starts free nothing (the first pass after 362,880 states, every
    # state young, was 5% of the run; 0.07-0.08 s of a cold ~1 s tinygrad exploration, timed by gc.callbacks).
    t0 = time.perf_counter()
    states, driver = self._states, self._driver
    self._want = until
    try:
      with collector.paused(settle=True):
        if until is None:
          for _ in driver: pass
        else:
          while len(states) < until: next(driver)
          return
    except StopIteration: pass
    except BoundHit as e: self._stop(e)
    finally: self.elapsed += time.perf_counter() - t0
    self._driver = None

  def _stop(self, e: BoundHit) -> None:
    """The caller's bound (a ``BoundHit``) interrupted a step (maybe inside a rule): keep what was reached, as for any bound."""
    self._driver, self._bound = None, e.reason

  # ---- results (each finishes the exploration first)

  @property
  def states(self) -> list[State]:
    """Every state, in discovery order; ``states[0]`` is the program."""
    return self.run()._states

  @property
  def state_count(self) -> int:
    """``len(self.states)``: what a summary line prints (a cluster run counts its states where they are)."""
    return len(self.states)

  @property
  def normal_forms(self) -> list[State]:
    """The normal states (no step leaves them; stuck states are not normal), in discovery order."""
    return self.run()._normals

  @property
  def stuck(self) -> list[State]:
    """The stuck states: steps whose rule raised, with the error."""
    return [s for s in self.states if s.error is not None]

  @property
  def bound(self) -> StopReason | None:
    """Which bound stopped the exploration: ``"max_states"``, ``"max_depth"``, ``"timeout"``, or None; ``complete``
    (``Bounded``) is True then: every reachable graph was found."""
    return self.run()._bound

  @property
  def edges(self) -> list[Edge]:
    """Every step between two reached states (several per pair when rules or nodes differ)."""
    if self.run()._native is not None:   # the native core ran the whole search: its step maps, no graph made
      from uopc.relational.native.drive import edges
      return edges(self, self._native)
    return [e for s in self.states for e in self.edges_from(s)]

  @property
  def edge_count(self) -> int:
    """``len(self.edges)``, without making them where the native core ran the search (what a summary line prints)."""
    if self.run()._native is not None:
      from uopc.relational.native.drive import edge_count
      return edge_count(self, self._native)
    return sum(n for s in self.states for t, n in self._targets(s) if t is not None)

  @property
  def native_steps(self) -> tuple[Callable[[int], list[tuple[int, int, int]] | None], Any] | None:
    """Where the native core ran the whole search: its ``out`` (a state id -> (step key, result node, target state id or -1)
    of each step, None for a state not expanded) and ``keys`` (a step key -> its ``Redex``, or ``At`` under tree
    semantics), what ``edges_from`` makes its ``Edge``s of; None elsewhere. A report of millions of steps reads these
    instead (``uopc.cli.reports.stream``): no ``Edge`` made per step."""
    if self.run()._native is None: return None
    return self._native.core.out, self._native.keys

  @property
  def native_space(self) -> Any:
    """The ``NativeSpace`` (``uopc.relational.native.space``) whose core ran the whole search (its nodes, their pieces),
    or None where the Python core ran it or took over."""
    return None if self.run()._native is None else self._native

  @property
  def native_core(self) -> Any:
    """The native core's ``Space`` that ran the whole search (its state graph searched in C: ``Space.last_reaching``,
    ``Space.bfs``), or None where the Python core ran it or took over."""
    return None if self.run()._native is None else self._native.core

  def successor_ids(self, s: State) -> list[int]:
    """The ids of the states the explored steps out of ``s`` reach (failing steps, and graphs a bound left unmade, left
    out), in the order of ``edges`` (a target reached by several steps may be listed more than once): for searches over
    the state graph that need no ``Edge`` per step (millions of them: ``uopc.relational.analyses.order``)."""
    if self.run()._native is not None:
      n = len(self._states)
      return [t for _, _, t in self._native.core.out(s.id) or () if 0 <= t < n] if s.out is not None else []
    return [t.id for t, _ in self._targets(s) if t is not None and t.error is None]

  def edges_from(self, s: State) -> list[Edge]:
    """The edges out of ``s``, as ``edges`` lists them."""
    if self.run()._native is not None:
      if s.out is None: return []
      states, keys = self._states, self._native.keys
      return [Edge.of(s, states[t], keys[r]) for r, _, t in self._native.core.out(s.id) or () if 0 <= t < len(states)]
    out: list[Edge] = []
    if s.out is None: return out
    for r, h in (s.out.items() if type(s.out) is dict else s.out):
      t = self._seen.get(h) if type(h) is not Stuck else self._stuck.get((s.graph, h))
      if t is not None: out.append(Edge.of(s, t, r))
    return out

  def _targets(self, s: State) -> Iterator[tuple[State | None, int]]:
    """The states the steps out of ``s`` reach (None where a bound left one unmade), each with how many steps reach it
    in a row: once per group of a big graph's grouped steps (``GroupedSteps``: a chain's 1.5M steps are 1,000 groups)."""
    out, seen, stuck = s.out, self._seen, self._stuck
    if out is None: return
    if type(out) is GroupedSteps: pairs: Iterable[tuple[Any, int]] = out.counts()
    else: pairs = ((h, 1) for h in (out.values() if type(out) is dict else (h for _, h in out)))
    for h, n in pairs: yield (seen.get(h) if type(h) is not Stuck else stuck.get((s.graph, h))), n

  def closed_components(self) -> list[list[int]]:
    """The ids of each strongly connected component of more than one state that no explored step leaves (failing
    steps left out), each in no particular order: the candidates for ``space/cycles.py``'s normal-form classes.
    Found in C where the native core ran the search (millions of steps: a twentieth of a second)."""
    if self.run()._native is not None:
      from uopc.relational.native.drive import closed_components
      return closed_components(self, self._native)
    from uopc.relational.space.scc import components
    # the same successors in the same first-seen order as the edges', fewer repeats: no Edge made
    succ = {s.id: ids for s in self.states if (ids := self.successor_ids(s))}
    closed = []
    for c in components((s.id for s in self.states), succ):
      members = set(c)
      if len(c) > 1 and all(t in members for v in c for t in succ.get(v, ())): closed.append(c)
    return closed

  @property
  def reduced(self) -> bool:
    """True if some state was expanded by a persistent set only (so ``states`` is not every reachable graph)."""
    return bool(self.run()._reduced)

  def fully_expanded(self, s: State) -> bool:
    """True if every step out of ``s`` was explored (False for a state expanded by a persistent set, or never expanded)."""
    return s.out is not None and s not in self._reduced

  def state_of(self, graph: UOp) -> State | None:
    """The state of a graph, if it was reached."""
    self.run()
    return self._seen.get(graph)

  def path_to(self, state: State | UOp) -> list[Edge]:
    """The steps from the program to ``state`` (a state or a reached graph); shortest in BFS order."""
    if not isinstance(state, State):
      s = self.state_of(state)
      if s is None: raise KeyError("that graph was not reached")
      state = s
    return state.path()

  @property
  def running(self) -> bool:
    """True until the exploration is over (explored to the end or stopped by a bound); asking explores nothing."""
    return self._driver is not None

  @property
  def found(self) -> list[State]:
    """The states found so far, without exploring further (``states`` explores to the end first)."""
    return self._states

  def __repr__(self) -> str:   # the facts the notebook's HTML gives (uopc.relational.notebook); never explores
    from uopc.relational.notebook import exploration_summary
    return f"Exploration({show(self.root, LENGTHS.label)}: {exploration_summary(self)})"

  def _repr_html_(self) -> str:   # Jupyter (uopc.relational.notebook)
    from uopc.relational.notebook import exploration_html
    return exploration_html(self)

  # ---- the search

  def _counted(self, s: State, r: Any, h: Stuck) -> bool:
    """True if the failed step ``r`` from ``s`` needs no state of its own: made already (one per graph and failing redex),
    or, for another IR (``_stuck_groups``), counted on the stuck state of its rule and exception type, the first found,
    whose ``steps`` counts the failing steps it stands for. (A rule that raises on a node raises in every state that holds
    the node: a state per step made half of the states of tinygrad's ``symbolic`` on ``(gidx*4 + lidx) // 4 % 8``, 5,390
    of 11,097, and took their room under ``max_states``.)"""
    key = (s.graph, h)
    if key in self._stuck: return True
    if (groups := self._stuck_groups) is None or (first := groups.get((r.rule_index, error_type(h.error)))) is None: return False
    first.steps += 1
    self._stuck[key] = first   # its edge leads to the group's state (this rule, an exception of this type)
    return True

  def _stuck_state(self, s: State, r: Any, h: UOp | Stuck) -> State | None:
    """The stuck state of a failed step from ``s``, or None where it needs none (``_counted``)."""
    assert isinstance(h, Stuck)   # called for the steps that are not a root
    if self._counted(s, r, h): return None
    t = self._stuck[(s.graph, h)] = StuckState(len(self._states), s.graph, s.depth + 1, s, r, self.stepper, error=h.error)
    t.normal, t.out = False, ()
    if self._stuck_groups is not None: self._stuck_groups[(r.rule_index, error_type(h.error))] = t
    return t

  def _drive(self, resume: tuple[deque[State], set[State]] | None = None) -> Iterator[None]:
    """The search, one state at a time through three named phases: ``_stop_reason`` (a bound?),
    ``_steps_of`` (the steps to take: a persistent set, grouped by graph, or one by one) and
    ``_admit`` (their successors, within the bounds); then the state is normal or not. It yields once a
    state made. ``resume``: go on from this frontier, with these states cut by max_depth (``SearchHost.python``)."""
    limits = _Limits.of(self)
    cut: set[State] = set()   # states at max_depth with a successor that was not made
    if resume is None:
      start = State(0, self.root, 0, None, None, self.stepper)
      self._seen[self.root] = start
      self._states.append(start)
      yield
      frontier = deque([start])
    else: frontier, cut = resume
    while frontier:
      if (why := self._stop_reason(limits)) is not None:
        self._bound = why
        return
      s = frontier.pop() if limits.dfs else frontier.popleft()
      if s.out is not None: continue   # stuck states, and states queued twice by depth first
      out, items, made, lazy = self._steps_of(s)   # out: s.out, read below through this name (mypyc keeps the narrowing above)
      fresh: list[State] = []   # depth first: the successors to push, in order
      if (why := (yield from self._admit(s, items, made, lazy, limits, frontier, fresh, cut))) is not None:
        s.normal = False   # a successor was not made: not known to be normal
        self._bound = why
        return
      if s.normal is None:
        s.normal = not out
        if s.normal: self._normals.append(s)
      if limits.dfs: frontier.extend(t for t in reversed(fresh) if t.error is None)
    if cut: self._bound = "max_depth"

  def _stop_reason(self, limits: _Limits) -> StopReason | None:
    """The bound that stops the search before the next state, if any: its own timeout, or the caller's ``limits``."""
    if limits.deadline is not None and time.perf_counter() > limits.deadline: return "timeout"
    return self.limits.should_stop()   # the caller's bound: stop at this clean point

  def _steps_of(self, s: State) -> tuple[Any, Iterable[tuple[Redex, UOp | Stuck]], int | None, bool]:
    """The steps out of ``s`` (stored as ``s.out``, and returned first), the pairs to go through, how many graphs
    they make at most (None: not known before enumerating them), and whether they are enumerated lazily (a big
    graph, one redex at a time, appended to the steps as they come)."""
    stepper, reduction = self.stepper, self.reduction
    m: Mapping[Redex, UOp | Stuck] | None = (full := stepper.step_map(s.graph))
    if reduction is not None and full:
      # a persistent set, unless one of its successors was expanded already: the cycle proviso, so
      # that every cycle of the reduced graph has a fully expanded state (the one expanded last)
      if (p := reduction.persistent(s.graph, full)) is not None and \
         not any((t := self._seen.get(h)) is not None and t.out is not None for h in p.values()):
        m = p
        self._reduced.add(s)
    if m is not None:
      s.out = m
      return m, m.items(), len(m), False
    # a big graph: its steps grouped by the graph they make (each graph looked up once, with its first
    # redex), or else enumerated one by one into s.out as they come
    if (grouped := stepper.grouped_steps(s.graph)) is not None:
      s.out = grouped
      return grouped, grouped.firsts(), len(grouped.groups), False
    big: list[tuple[Redex, UOp | Stuck]] = []
    s.out = big
    return big, stepper.iter_big(s.graph), None, True

  def _admit(self, s: State, items: Iterable[tuple[Redex, UOp | Stuck]], made: int | None, lazy: bool, limits: _Limits,
             frontier: deque[State], fresh: list[State], cut: set[State]) -> Generator[None, None, StopReason | None]:
    """Make the successors of ``s`` not seen before, yielding once each; returns the bound that stopped it, if any."""
    states, seen, child_depth = self._states, self._seen, s.depth + 1
    last = s.depth >= limits.max_depth
    t: State | None
    if made is not None and not limits.dfs and not last and len(states) + made < limits.max_states:
      # the common case, without the checks below: breadth first, far from every bound
      for r, h in items:
        if h.__class__ is not Stuck:
          if h in seen: continue
          t = seen[h] = State(len(states), h, child_depth, s, r, self.stepper)  # type: ignore[arg-type]  # not a Stuck: a node
        elif (t := self._stuck_state(s, r, h)) is None: continue
        states.append(t)
        frontier.append(t)
        yield
      return None
    for r, h in items:
      if lazy:
        s.out.append((r, h))   # a list: see _steps_of
        if limits.deadline is not None and time.perf_counter() > limits.deadline: return "timeout"
      if type(h) is not Stuck:
        t = seen.get(h)
        if t is not None:
          if limits.dfs and t.depth > child_depth:
            # depth first found a shorter way: keep it, and expand again a state the depth bound had cut
            t.parent, t.redex, t.depth = s, r, child_depth
            if t in cut: cut.discard(t); t.out = None; fresh.append(t)
          continue
        if last: cut.add(s); continue
        if len(states) >= limits.max_states: return "max_states"
        t = seen[h] = State(len(states), h, child_depth, s, r, self.stepper)  # type: ignore[arg-type]  # not a Stuck: a node
      else:
        if self._counted(s, r, h): continue
        if len(states) >= limits.max_states: return "max_states"
        t = self._stuck_state(s, r, h)
        assert t is not None   # not made yet: checked above
      states.append(t)
      if limits.dfs: fresh.append(t)
      else: frontier.append(t)
      yield
    return None


class SearchHost:
  """What a search driver other than ``Exploration._drive`` (the native core's, ``uopc.relational.native.drive``) is
  given of its exploration, and all it touches of it.

  It reads the search's settings: ``root``, ``stepper``, ``reduction``, ``order``, ``max_states``, ``max_depth``,
  ``timeout``, ``limits``; and what the consumer asks for now: ``want()`` (how many states, None: all) and ``graphs_ahead()``
  (whether every state's graph will be read). It writes the results: it appends to ``states`` (ids in order),
  ``normals`` and ``reduced`` (the exploration's own containers) and mutates those states; ``stop(bound)`` says which
  bound stopped it. Where it cannot go on, ``python(frontier, cut)`` is the Python search going on from that
  frontier (its order's: a queue breadth first, a stack depth first, its top last), with these states cut by
  ``max_depth``; the driver yields from it, and the exploration no longer counts as native.

  >>> from uopc import UOp, symbolic
  >>> host = SearchHost(Exploration(UOp.param(0) + 0, symbolic, native=False))
  >>> host.order, host.max_states, host.states, host.want()
  ('bfs', 100000, [], None)
  """
  __slots__ = ("_ex", "root", "stepper", "reduction", "order", "max_states", "max_depth", "timeout", "limits", "states", "normals",
               "reduced")

  def __init__(self, ex: Exploration) -> None:
    self._ex = ex
    self.root, self.stepper, self.reduction, self.order = ex.root, ex.stepper, ex.reduction, ex.order
    self.max_states, self.max_depth, self.timeout, self.limits = ex.max_states, ex.max_depth, ex.timeout, ex.limits
    self.states, self.normals, self.reduced = ex._states, ex._normals, ex._reduced

  def want(self) -> int | None:
    """How many states the consumer wants now (None: all): a batch-wise driver may stop there."""
    return self._ex._want

  def graphs_ahead(self) -> bool:
    """True if the consumer reads every state's graph (``iter_ahead``): cheaper made with each batch."""
    return self._ex._graphs_ahead

  def stop(self, bound: StopReason) -> None:
    """The search stopped at ``bound``."""
    self._ex._bound = bound

  def python(self, frontier: Iterable[State], cut: Iterable[State]) -> Iterator[None]:
    """The Python search, going on from ``frontier`` with the states of ``cut`` cut by ``max_depth``."""
    self._ex._native = None
    return self._ex._drive(resume=(deque(frontier), set(cut)))


class _Limits(NamedTuple):
  """The search's own bounds, read once as it starts (infinite where unset)."""
  max_states: float
  max_depth: float
  deadline: float | None
  dfs: bool

  @classmethod
  def of(cls, ex: Exploration) -> _Limits:
    inf = float("inf")
    return cls(inf if ex.max_states is None else ex.max_states, inf if ex.max_depth is None else ex.max_depth,
               None if ex.timeout is None else time.perf_counter() + ex.timeout, ex.order == "dfs")
