"""An exploration driven by the native core: states made in C, seen from Python as ``State``s.

The search itself is ``Exploration._drive``'s breadth-first search, run by ``_space.c`` in
batches; after each batch the new states become ``NativeState``s whose graphs are made as
``UOp``s only when asked for. Where the core stops (a CALL, a failed step, a step map past
``map_limit``) the Python search goes on from the first state the core did not expand, with
every state so far as it is: the same states, in the same order, as the Python core alone.
"""
from __future__ import annotations

import time
from collections import deque
from typing import TYPE_CHECKING, Any, Iterator

from uopc.budget import stopped
from uopc.relational.native._space import ST_BAIL, ST_DONE, ST_MAX_STATES   # what expand() returns (else ST_MORE: go on); built, or not imported
from uopc.relational.native.space import CODES, NativeSpace, NotNative
from uopc.relational.space.states import Edge, State
from uopc.uop import UOp

if TYPE_CHECKING:
  from uopc.relational.space.stream import Exploration

_FIRST_BATCH, _LAST_BATCH = 16, 4096   # states expanded per call into C: doubling, so a short search stays lazy
_UNBOUNDED = 2**62
HAND_OVER_GRAPHS = 64   # NativeSeen.hand_over: at most this many states' graphs made to leave the core out of lookups


class NativeState(State):
  """A state whose graph lives in the native core until read (``graph`` makes its ``UOp`` once)."""
  __slots__ = ("_node", "_space")

  def __init__(self, id: int, node: int, space: NativeSpace, depth: int, parent: State | None, redex: Any) -> None:
    self.id, self._node, self._space, self.depth, self.parent, self.redex = id, node, space, depth, parent, redex
    self.error, self.normal, self.out, self._stepper = None, None, None, space.stepper

  @property
  def graph(self) -> UOp: return self._space.uop(self._node)  # type: ignore[override]  # State's slot, read-only here: made on demand


class NativeOut:
  """The steps out of an expanded native state: ``(redex, new root)`` pairs, as ``State.out`` iterates (roots made on demand)."""
  __slots__ = ("space", "state")

  def __init__(self, space: NativeSpace, state: int) -> None: self.space, self.state = space, state
  def _steps(self) -> list[tuple[int, int, int]]: return self.space.core.out(self.state)
  def __len__(self) -> int: return len(self._steps())
  def __bool__(self) -> bool: return bool(self._steps())

  def __iter__(self) -> Iterator[tuple[Any, UOp]]:
    redexes, uop = self.space.redexes, self.space.uop
    for r, h, _ in self._steps(): yield redexes[r], uop(h)


class NativeSeen:
  """``Exploration._seen`` for a native search: graph -> state, without making the graphs of the states.

  Once the Python core has taken over, the states it makes are added here (``more``), so handing
  over costs nothing per state already found. If the core had made only a few states by then
  (``hand_over``), their graphs go into ``more`` too and the core is not asked again: the Python
  search then looks its graphs up in a dict, as it does on its own (a core that stopped at its
  first state, on a step map past ``map_limit``, made the Python search 1.4x slower without it).
  """

  def __init__(self, space: NativeSpace, states: list[State]) -> None:
    self.space: NativeSpace | None = space
    self.states = states
    self.more: dict[UOp, State] = {}

  def hand_over(self) -> None:
    """The Python core goes on from here: with at most ``HAND_OVER_GRAPHS`` states so far, they move into the dict."""
    if len(self.states) > HAND_OVER_GRAPHS: return
    for s in self.states: self.more.setdefault(s.graph, s)
    self.space = None

  def get(self, graph: UOp, default: Any = None) -> Any:
    if (s := self.more.get(graph)) is not None: return s
    if (space := self.space) is None or (i := space.find(graph)) < 0 or (k := space.core.state_of(i)) < 0 or k >= len(self.states):
      return default
    return self.states[k]

  def __setitem__(self, graph: UOp, state: State) -> None: self.more[graph] = state

  def __contains__(self, graph: object) -> bool:
    if graph in self.more: return True
    return self.space is not None and type(graph) is UOp and self.get(graph) is not None

  def __getitem__(self, graph: UOp) -> State:
    if (s := self.get(graph)) is None: raise KeyError(graph)
    return s


def native_space(ex: Exploration) -> NativeSpace | None:
  """A native core for this exploration's program (reducing as its ``IslandReduction`` would), or None where the
  Python core must run it (a CALL in it, a graph the reduction keeps expanded fully, or rules whose footprints the
  reduction reads: uopc/relational/space/invisible.py)."""
  space = NativeSpace(ex.stepper)
  try:
    space.to_id(ex.root)
    if (reduction := ex.reduction) is not None:
      if reduction.invisible.on: return None   # footprint-invisible steps: the Python core's reduction alone
      inert = tuple(code for op, code in CODES.items() if not ex.stepper.can_match(op))
      space.core.reduce(inert, tuple(space.to_id(g) for g in reduction.keep_full), space.inert_asker(reduction.forms))
  except NotNative: return None
  return space


def edges(ex: Exploration, space: NativeSpace) -> list[Edge]:
  """``Exploration.edges`` of a native search: from the core's step maps, no graph made."""
  states, redexes, out = ex.states, space.redexes, space.core.out
  found: list[Edge] = []
  for s in states:
    if s.out is None: continue
    for r, _, t in out(s.id):
      if 0 <= t < len(states): found.append(Edge.of(s, states[t], redexes[r]))
  return found


def edge_count(ex: Exploration, space: NativeSpace) -> int:
  """``len(Exploration.edges)`` of a native search, counted in C (a report's count: millions of edges took seconds)."""
  return space.core.cycles()[0]


def closed_components(ex: Exploration, space: NativeSpace) -> list[list[int]]:
  """``Exploration.closed_components`` of a native search: Tarjan over the core's step maps, in C."""
  return space.core.cycles()[1]


def drive(ex: Exploration, space: NativeSpace) -> Iterator[None]:
  """``Exploration._drive`` (breadth first) with the native core doing the search; the Python one where it cannot."""
  core = space.core
  max_states = ex.max_states if ex.max_states is not None else _UNBOUNDED
  max_depth = ex.max_depth if ex.max_depth is not None else _UNBOUNDED
  deadline = None if ex.timeout is None else time.perf_counter() + ex.timeout
  core.start(space.to_id(ex.root))
  _take(ex, space, 0)
  yield
  batch = _FIRST_BATCH
  while True:
    if deadline is not None and time.perf_counter() > deadline:
      ex._bound = "timeout"
      return
    if (why := stopped()) is not None:
      ex._bound = why
      return
    done_before = core.progress[1]
    want = ex._want   # how many states the consumer asked for (None: all)
    try: status = core.expand(batch, max_states, max_depth, _UNBOUNDED if want is None else want)
    finally: _take(ex, space, done_before)   # an interrupt inside a rule keeps what the batch reached
    if status == ST_MAX_STATES:
      ex._bound = "max_states"
      return
    if status == ST_BAIL:
      yield from _python_from_here(ex, *core.progress[1:])
      return
    if status == ST_DONE:
      if core.progress[2]: ex._bound = "max_depth"
      return
    batch = min(batch * 2, _LAST_BATCH)
    yield


def _take(ex: Exploration, space: NativeSpace, expanded_before: int) -> None:
  """Make the core's new states ``NativeState``s, and mark the ones it expanded since ``expanded_before``."""
  core, states, normals, redexes = space.core, ex._states, ex._normals, space.redexes
  made, expanded, _ = core.progress
  if made > (start := len(states)):
    roots, parents, depths, rs, _, _ = core.states(start, made)
    for k, (node, parent, depth, r) in enumerate(zip(roots, parents, depths, rs)):
      states.append(NativeState(start + k, node, space, depth, states[parent] if parent >= 0 else None, redexes[r] if r >= 0 else None))
    if ex._graphs_ahead:   # here the collector is paused (Exploration._advance): cheaper than as the consumer reads them
      for node in roots: space.uop(node)
  if expanded > expanded_before:
    _, _, _, _, normal_flags, reduced_flags = core.states(expanded_before, expanded)
    for i, (normal, reduced) in enumerate(zip(normal_flags, reduced_flags), expanded_before):
      s = states[i]
      s.out, s.normal = NativeOut(space, i), bool(normal)
      if normal: normals.append(s)
      if reduced: ex._reduced.add(s)


def _python_from_here(ex: Exploration, expanded: int, cut: int) -> Iterator[None]:
  """The core stopped before expanding state ``expanded``: the Python search goes on from there."""
  ex._native = None   # ex._seen stays the native view (the same object: reaches() holds it), and takes the Python core's states too
  ex._seen.hand_over()
  yield from ex._drive(resume=(deque(ex._states[expanded:]), bool(cut)))
