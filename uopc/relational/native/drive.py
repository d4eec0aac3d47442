"""An exploration driven by the native core: states made in C, seen from Python as ``State``s.

The search itself is ``Exploration._drive``'s, breadth or depth first, under graph or tree semantics, run by
``_space.c`` in batches. The exploration hands ``native_search`` a ``SearchHost`` (uopc/relational/space/stream.py),
all this module reads or writes of it. After each batch the new states become ``NativeState``s whose graphs are made
as ``UOp``s only when asked for, and what the batch did to states (expanded, normal, given a shorter path) is applied
to them, in order (``Space.changes``). Where the core stops (a CALL, a failed step, a step map past ``map_limit``) the
Python search goes on from the core's frontier, with every state so far as it is: the same states, in the same order,
as the Python core alone.
"""
from __future__ import annotations

import time
import weakref
from typing import TYPE_CHECKING, Any, Iterator, NamedTuple

# what expand() returns (else ST_MORE: go on) and what changes() reports; built, or not imported
from uopc.relational.native._space import EV_AGAIN, EV_MOVED, EV_MOVED_AGAIN, EV_NORMAL, EV_REDUCED, ST_BAIL, ST_DONE, ST_MAX_STATES
from uopc.relational.native.space import CODES, TEXT_NAMES, NativeSpace, NotNative
from uopc.relational.space.states import Edge, State
from uopc.uop import UOp

if TYPE_CHECKING:
  from uopc.relational.space.stream import Exploration, SearchHost

_FIRST_BATCH, _LAST_BATCH = 16, 4096   # states expanded per call into C: doubling, so a short search stays lazy
_UNBOUNDED = 2**62
HAND_OVER_GRAPHS = 64   # NativeSeen.hand_over: at most this many states' graphs made to leave the core out of lookups


# State's own slots, which NativeState's properties fill on first read: what the core set there until then
_REDEX_SLOT: Any = State.__dict__["redex"]
_OUT_SLOT: Any = State.__dict__["out"]
_UNREAD = object()     # in the redex slot: the core's step key of the state, read on first read
_EXPANDED = object()   # in the out slot: the core expanded the state (its NativeOut made on first read)


class NativeState(State):
  """A state whose graph lives in the native core until read (``graph`` makes its ``UOp`` once), and so does the
  redex of its step (a redex a template made in the core is made a ``Redex`` on first read), and its steps out.

  The core makes them (``Space.take``), no ``__init__`` run (a state cost 1.5 us of Python, 312 bytes with its ``out``
  and step key; made in C, 0.25 us and 190 bytes): ``id``, ``depth``, ``parent``, ``error`` (None) and ``normal`` as
  ``State``'s, ``_node`` its graph's node, ``_space`` the ``NativeSpace``, ``_stepper`` the space's, the ``redex`` slot
  ``_UNREAD`` and the ``out`` slot None, then ``_EXPANDED`` once the core expanded it."""
  __slots__ = ("_node", "_space")
  _node: int
  _space: NativeSpace

  @property
  def graph(self) -> UOp: return self._space.uop(self._node)  # type: ignore[override]  # State's slot, read-only here: made on demand

  @property   # State's slot, filled on first read
  def redex(self) -> Any:
    if (r := _REDEX_SLOT.__get__(self)) is _UNREAD:
      space = self._space
      r = None if (k := space.core.step_key(self.id)) < 0 else space.keys[k]
      _REDEX_SLOT.__set__(self, r)
    return r

  @redex.setter
  def redex(self, r: Any) -> None: _REDEX_SLOT.__set__(self, r)

  @property   # State's slot, filled on first read
  def out(self) -> Any:
    if (o := _OUT_SLOT.__get__(self)) is _EXPANDED:
      o = NativeOut(self._space, self.id)
      _OUT_SLOT.__set__(self, o)
    return o

  @out.setter
  def out(self, o: Any) -> None: _OUT_SLOT.__set__(self, o)

  def term(self, limit: int | None = None) -> str:
    """``State.term``, made from the core's nodes where it can (``NativeSpace.text``): no ``UOp`` of the graph."""
    # core.text straight where it is set up (a frame less: reachable calls this and text_of for each of 488,511 states)
    if limit is not None and limit <= TEXT_NAMES and (texts := self._space.texts) is not None: return texts(self._node, limit)  # type: ignore[return-value]  # an id: a text
    if (text := self._space.text(self._node, limit)) is not None: return text
    return super().term(limit)

  def text_of(self, u: UOp, limit: int | None = None) -> str:
    """``State.text_of`` from the core's nodes where ``u`` is one of them."""
    texts = self._space.texts
    if (text := texts(u, limit) if texts is not None and limit is not None and limit <= TEXT_NAMES else self._space.text(u, limit)) is not None:
      return text
    return super().text_of(u, limit)


class NativeOut:
  """The steps out of an expanded native state: ``(redex, new root)`` pairs, as ``State.out`` iterates (roots made on demand)."""
  __slots__ = ("space", "state")

  def __init__(self, space: NativeSpace, state: int) -> None: self.space, self.state = space, state
  def _steps(self) -> list[tuple[int, int, int]]:
    steps = self.space.core.out(self.state)
    assert steps is not None, "an expanded state's steps"   # (None: a state not expanded, which has no NativeOut)
    return steps

  def __len__(self) -> int: return self.space.core.n_steps(self.state)   # a grouped graph's steps, counted per group
  def __bool__(self) -> bool: return len(self) > 0

  def __iter__(self) -> Iterator[tuple[Any, UOp]]:
    keys, uop = self.space.keys, self.space.uop
    for r, h, _ in self._steps(): yield keys[r], uop(h)

  def find(self, node: UOp, rule_index: int, result: UOp | None) -> tuple[Any, UOp] | None:
    """``(redex, new root)`` of the step that rewrites ``node`` by rule ``rule_index`` into ``result``, or None if the
    state has none (or, under tree semantics, whose keys are positions: looked for among all steps then): the redex's id
    looked up, the step found by it in C (``Space.step_to``), one root made (the canonical path's replay: a chain's
    states have 1,500 steps)."""
    space = self.space
    if space.stepper.semantics != "graph": return None
    keys = space.keys
    if len(self) <= _FEW_STEPS:   # (most states: an index of every redex of the space would cost more than it saves)
      return next(((keys[r], space.uop(h)) for r, h, _ in self._steps()
                   if (k := keys[r]).node is node and k.rule_index == rule_index and k.result is result), None)
    if (want := _redex_ids(space).get((node, rule_index, result))) is None: return None
    found = space.core.step_to(self.state, want)   # in C: the steps are not listed
    return None if found is None else (keys[want], space.uop(found[0]))


_FEW_STEPS = 64   # NativeOut.find: up to this many steps a state's are compared one by one


_REDEX_IDS: weakref.WeakKeyDictionary[NativeSpace, tuple[int, dict[tuple[Any, int, Any], int]]] = weakref.WeakKeyDictionary()


def _redex_ids(space: NativeSpace) -> dict[tuple[Any, int, Any], int]:
  """``(node, rule index, result) -> native redex id`` over the space's redexes, extended as it makes more."""
  made, ids = _REDEX_IDS.get(space, (0, {}))
  if made < len(space.redexes):
    for k in range(made, len(space.redexes)):
      r = space.redexes[k]
      ids.setdefault((r.node, r.rule_index, r.result), k)
    _REDEX_IDS[space] = (len(space.redexes), ids)
  return ids


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


class NativeSearch(NamedTuple):
  """A search the native core runs: its nodes and states, the exploration's graph -> state view, and the driver."""
  space: NativeSpace
  seen: NativeSeen
  driver: Iterator[None]


def native_search(host: SearchHost) -> NativeSearch | None:
  """The native core's search for this exploration, or None where the Python core must run it."""
  if (space := native_space(host)) is None: return None
  seen = NativeSeen(space, host.states)
  return NativeSearch(space, seen, drive(host, space, seen))


def native_space(host: SearchHost) -> NativeSpace | None:
  """A native core for this exploration's program (reducing as its ``IslandReduction`` would), or None where the
  Python core must run it (a CALL in it, a graph the reduction keeps expanded fully, or rules whose footprints the
  reduction reads under graph semantics: uopc/relational/space/invisible.py)."""
  reduction = host.reduction
  if reduction is not None and reduction.invisible.on and host.stepper.semantics == "graph": return None
  space = NativeSpace(host.stepper)
  try:
    space.to_id(host.root)
    if reduction is not None:
      inert = tuple(code for op, code in CODES.items() if not host.stepper.can_match(op))
      space.core.reduce(inert, tuple(space.to_id(g) for g in reduction.keep_full), space.inert_asker(reduction.forms))
  except NotNative: return None
  return space


def edges(ex: Exploration, space: NativeSpace) -> list[Edge]:
  """``Exploration.edges`` of a native search: from the core's step maps, no graph made."""
  states, keys, out = ex.states, space.keys, space.core.out
  found: list[Edge] = []
  for s in states:
    if s.out is None: continue
    for r, _, t in out(s.id) or ():   # (expanded: never None)
      if 0 <= t < len(states): found.append(Edge.of(s, states[t], keys[r]))
  return found


def edge_count(ex: Exploration, space: NativeSpace) -> int:
  """``len(Exploration.edges)`` of a native search, counted in C (a report's count: millions of edges took seconds)."""
  return cycles(space)[0]


def closed_components(ex: Exploration, space: NativeSpace) -> list[list[int]]:
  """``Exploration.closed_components`` of a native search: Tarjan over the core's step maps, in C."""
  return cycles(space)[1]


_CYCLES: weakref.WeakKeyDictionary[NativeSpace, dict[Any, Any]] = weakref.WeakKeyDictionary()


def cycles(space: NativeSpace, every: bool = False) -> tuple[int, list[list[int]]]:
  """``Space.cycles(every)``, each answer kept while the search stands still: a command asks for the steps' count, the
  closed components and the cyclic ones, a Tarjan pass over millions of steps each (five_params: 0.08 s). A closed
  component is a cyclic one of more than one state, so where the cyclic ones hold none, the closed ones need no pass."""
  core = space.core
  kept = _CYCLES.setdefault(space, {})
  if kept.get("at") != (at := (core.progress, core.counts["map_entries"])):   # the search moved on: asked again
    kept.clear()
    kept["at"] = at
  if every not in kept:
    if not every and True in kept and all(len(c) == 1 for c in kept[True][1]): kept[False] = (kept[True][0], [])
    else: kept[every] = core.cycles(every)
  count, components = kept[every]
  return count, [list(c) for c in components]   # (the caller's own lists)


def drive(host: SearchHost, space: NativeSpace, seen: NativeSeen) -> Iterator[None]:
  """``Exploration._drive`` with the native core doing the search; the Python one from where it cannot."""
  core = space.core
  max_states = host.max_states if host.max_states is not None else _UNBOUNDED
  max_depth = host.max_depth if host.max_depth is not None else _UNBOUNDED
  deadline = None if host.timeout is None else time.perf_counter() + host.timeout
  core.start(space.to_id(host.root), host.order == "dfs")
  _take(host, space)
  yield
  batch = _FIRST_BATCH
  while True:
    if deadline is not None and time.perf_counter() > deadline:
      host.stop("timeout")
      return
    if (why := host.limits.should_stop()) is not None:
      host.stop(why)
      return
    want = host.want()   # how many states the consumer asked for (None: all)
    try: status = core.expand(batch, max_states, max_depth, _UNBOUNDED if want is None else want)
    finally: _take(host, space)   # an interrupt inside a rule keeps what the batch reached
    if status == ST_MAX_STATES:
      host.stop("max_states")
      return
    if status == ST_BAIL:   # the Python search goes on from the core's frontier; seen stays the view (reaches() holds it)
      seen.hand_over()
      states = host.states
      yield from host.python([states[i] for i in core.frontier()], [states[i] for i in core.cut_states()])
      return
    if status == ST_DONE:
      if core.progress[2]: host.stop("max_depth")
      return
    batch = min(batch * 2, _LAST_BATCH)
    yield


def _take(host: SearchHost, space: NativeSpace) -> None:
  """Make the core's new states ``NativeState``s, and apply what happened to states since the last call, in order."""
  core, states, start = space.core, host.states, len(host.states)
  # made in C, each with its parent; there too what happened, unless depth first moved a state (below, in order)
  applied = core.take(states, (NativeState, _UNREAD, _EXPANDED, space, space.stepper, host.normals, host.reduced))
  if host.graphs_ahead():   # here the collector is paused (Exploration._advance): cheaper than as the consumer reads them
    for k in range(start, len(states)): space.uop(states[k]._node)  # type: ignore[attr-defined]  # a NativeState
  if applied: return
  ids, events, moves = core.changes()
  keys, normals, reduced, moved = space.keys, host.normals, host.reduced, iter(moves)
  for i, ev in zip(ids, events):
    s = states[i]
    if ev == EV_MOVED or ev == EV_MOVED_AGAIN:   # depth first found a shorter way to s
      parent, depth, r = next(moved)
      s.parent, s.depth, s.redex = states[parent], depth, keys[r]
      if ev == EV_MOVED_AGAIN: s.out = None   # cut by max_depth before: to be expanded again
      continue
    s.out = NativeOut(space, i)
    if ev & EV_REDUCED:
      reduced.add(s)
      ev ^= EV_REDUCED
    if ev != EV_AGAIN:
      s.normal = ev == EV_NORMAL
      if s.normal: normals.append(s)
