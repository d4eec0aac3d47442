"""A cluster run as an ``Exploration``: the same states, edges, normal forms, paths and bounds, so every report reads it.

The shards keep their records (``shard.py``); the coordinator keeps counts
(``coordinator.Outcome``). ``ClusterExploration`` runs the search on the cluster when
first asked (like any ``Exploration``), then answers what the counting reports read from
the shards, where the records are: the number of states and edges, the normal forms and
the stuck states with their paths (``paths.py``: parents walked back by fingerprint, steps
replayed), ``state_of`` a graph (its fingerprint asked of its owner), cycles
(``cycle_classes``: none where no step went back to a state no deeper than its own, only
such a step closes one; else the steps as ids from the shards, the components found here),
a search's matches (``matches``). Streaming every state (``iter_ahead``: ``reachable``'s
lines) reads the records a level at a time and keeps none. What needs every state at
once (``states``, ``edges``, the JSON and dot reports) builds them all here from the
records, exactly where one process would have made them, as before (``_materialize``); so
does every report of a run whose shards' parts are gone (an interrupt, a lost worker, a
later run that took the workers).
"""
from __future__ import annotations

import functools
import weakref
from typing import Any, Callable, Iterator

from uopc.relational.cluster.codec import Codec, Reader
from uopc.relational.cluster import coordinator
from uopc.relational.cluster.coordinator import Coordinator, Outcome
from uopc.relational.cluster.errors import ClusterError
from uopc.relational.space.fingerprint import SIZE, Fingerprints, owner
from uopc.relational.cluster.paths import Paths
from uopc.relational.cluster.shard import rules_of, step_targets
from uopc.relational.cluster.visited import FP, fp_bytes
from uopc.relational.space.states import State, Stuck
from uopc.relational.space.step import Redex
from uopc.relational.space.stream import Exploration
from uopc.limits import NO_LIMITS, Limits


class ClusterExploration(Exploration):
  """``Exploration(root, pm, ...)`` run on the Ray cluster ``cluster`` (``local:N`` or an address: ``session.py``).

  Breadth first, graph semantics, every graph (no reduction). ``target``: a search's
  ``Target``, checked by the shards on each new state; with ``stop_at_match`` the search
  ends with the level that made the first match (what a search reads of it is the same).
  ``progress(count)``: called with the states found so far after each level (a progress bar: the states come to this
  process only as the run ends). ``outcome`` holds the run's records and statistics once it ran.
  """

  def __init__(self, root: Any, pm: Any, *, cluster: str, max_states: int | None = 100_000, max_depth: int | None = None,
               timeout: float | None = None, target: Any = None, stop_at_match: bool = False, measure: bool = False,
               kill: Any = None, native: bool | None = None, limits: Limits = NO_LIMITS,
               progress: Callable[[int], None] | None = None) -> None:
    super().__init__(root, pm, max_states=max_states, max_depth=max_depth, timeout=timeout, native=False, limits=limits)
    if not self.stepper.ir.reducible or type(root).__module__ != "uopc.uop":
      from uopc.relational.cluster.errors import ClusterError
      raise ClusterError("--cluster explores uopc programs under uopc rule sets only")
    self.cluster = cluster
    self._coordinator = Coordinator(root, pm, max_states=max_states, max_depth=max_depth, timeout=timeout, target=target,
                                    stop_at_match=stop_at_match, measure=measure, kill=kill, native=native,
                                    limits=limits, progress=progress)
    self.outcome: Outcome | None = None
    self._materialized = False
    self._lean_normals: list[State] | None = None
    self._lean_stuck: list[State] | None = None
    self._driver = self._cluster_drive()

  def _cluster_drive(self) -> Any:
    self.outcome = out = self._coordinator.run(self.cluster)
    self._bound = out.bound   # also "workers_lost": a bound of the cluster's own
    if out.release is not None: weakref.finalize(self, out.release)   # the cluster this run started lives as long as this
    if out.lean is None: self._full()   # the shards' parts are gone: every state here, also after an interrupt
    else: self._paths = Paths(self.root, self.stepper, functools.partial(_lookup, out))
    del self   # Ray keeps the frames that started its session alive (ray.init's callers): this one lets the exploration go
    yield

  # ---- every state, built here (what a report listing them all reads)

  def _full(self) -> None:
    if self._materialized: return
    self._materialized = True
    assert self.outcome is not None, "the run comes first"
    with self.limits.shield(): _materialize(self, self.outcome)

  @property
  def states(self) -> list[State]:
    self.run()
    self._full()
    return self._states

  @property
  def edges(self) -> list[Any]:
    self.run()
    self._full()
    return super().edges

  def successor_ids(self, s: State) -> list[int]:
    self.run()
    self._full()
    return super().successor_ids(s)

  def edges_from(self, s: State) -> list[Any]:
    self.run()
    self._full()
    return super().edges_from(s)

  def may_cycle(self) -> bool:
    """False where the shards saw no step back to a state no deeper than its own (only such a step closes a cycle):
    ``space/cycles.py`` then needs no state here."""
    return (lean := self._lean()) is None or any(r["maybe_cycle"] for r in lean)

  def closed_components(self) -> list[list[int]]:
    if not self.may_cycle(): return []   # no step could close one
    self.run()
    self._full()
    return super().closed_components()

  # ---- what the shards answer where they are

  def _lean(self) -> list[dict[str, Any]] | None:
    """The shards' reports while their records are there and not all built here, else None (then every state is built
    here from the records: also when a later run took this one's workers)."""
    self.run()
    out = self.outcome
    if self._materialized or out is None or out.lean is None: return None
    if out.serial != coordinator.RUNS[0]:   # a later run may have taken the workers
      import ray
      with self.limits.shield(): serving = all(ray.get([w.serves.remote(out.run) for w in out.workers]))
      if not serving:
        out.lean = None
        return None
      out.serial = coordinator.RUNS[0]
    return out.lean

  @property
  def state_count(self) -> int:
    if self._lean() is None: return len(self.states)
    assert self.outcome is not None
    return self.outcome.count

  @property
  def edge_count(self) -> int:
    if (lean := self._lean()) is None: return super().edge_count
    return sum(r["edges"] for r in lean)

  @property
  def normal_forms(self) -> list[State]:
    if (lean := self._lean()) is None: return super().normal_forms
    if self._lean_normals is None:
      ids = [i for r in lean for i in r["normal"][0].tolist()]
      fps = [fp_bytes(f) for r in lean for f in r["normal"][1]]
      made = self._paths.states(fps)
      self._lean_normals = sorted((made[f] for f in fps), key=lambda s: s.id)
      assert [s.id for s in self._lean_normals] == sorted(ids), "a normal form's fingerprint names its state"
      for s in self._lean_normals: s.normal, s.out = True, ()
    return self._lean_normals

  @property
  def stuck(self) -> list[State]:
    if (lean := self._lean()) is None: return super().stuck
    if self._lean_stuck is None:
      rows = sorted((i, fp_bytes(p), pos, d) for r in lean for i, p, pos, d in zip(*(a.tolist() if k != 1 else list(a)
                                                                                    for k, a in enumerate(r["stuck"]))))
      self._paths.walk([p for _, p, _, _ in rows])
      self._lean_stuck = [self._paths.stuck(i, p, pos, d) for i, p, pos, d in rows]
    return self._lean_stuck

  def state_of(self, graph: Any) -> State | None:
    if self._lean() is None: return super().state_of(graph)
    for s in self.normal_forms:   # the state a report compares with its normal forms: that one
      if s.graph is graph: return s
    fp = Fingerprints().of(graph)
    return self._paths.states([fp])[fp] if self.outcome is not None and _lookup(self.outcome, {fp}) else None

  def cycle_classes(self) -> tuple[list[Any], bool] | None:
    """``cycles._classes`` from the shards (None where every state is here): the steps between made states as id arrays
    (``_steps_out``), their closed components found here (``_closed``), each one's states rebuilt with their paths
    (``paths.py``). Every state of a component of more than one was expanded (each has a step out), fully (no reduction
    here): none is unsure."""
    import numpy as np
    import ray

    from uopc.relational.space.cycles import Cycle
    if (lean := self._lean()) is None: return None
    if not any(r["maybe_cycle"] for r in lean): return [], False
    out = self.outcome
    assert out is not None
    if not (cycles := _closed(self.stepper, self._steps_out(out))): return [], False
    wanted = np.array(sorted({i for c, _ in cycles for i in c}), np.int64)
    with self.limits.shield(): got = ray.get([a.fingerprints.remote(out.run, wanted) for a in out.workers])
    fp_of = {i: fp_bytes(f) for g in got if g is not None for i, f in zip(g[0].tolist(), g[1])}
    made = self._paths.states(list(fp_of.values()))
    found_cycles = [Cycle([made[fp_of[i]] for i in c], names) for c, names in cycles]
    found_cycles.sort(key=lambda c: c.states[0].id)
    return found_cycles, False

  def _steps_out(self, out: Outcome) -> list[Any]:
    """Each shard's steps between made states (source ids, positions, target ids, rules: arrays), the targets' ids asked
    of their owners (the fingerprints moving worker to worker)."""
    import ray
    n, w = out.shards, out.workers
    with self.limits.shield():
      found: list[list[Any]] = [[] for _ in range(n)]
      if n > 1:
        targets = [a.all_targets.options(num_returns=n).remote(out.cut) for a in w]
        ids = [a.ids_of.options(num_returns=n).remote(*[targets[i][j] for i in range(n)]) for j, a in enumerate(w)]
        found = [[targets[j][i] for i in range(n)] + [ids[i][j] for i in range(n)] for j in range(n)]
      parts = ray.get([a.steps_out.remote(out.run, out.cut, *found[j]) for j, a in enumerate(w)])
    if any(p is None for p in parts): raise ClusterError("the cluster's workers serve another run now: this run's records are gone")
    return parts

  def matches(self) -> Iterator[State]:
    """The states the search's target matched (``target``), in id order, each with its path (``SearchStream`` reads them)."""
    self.run()
    assert self.outcome is not None
    if self._lean() is None:
      states = self.states
      yield from (states[i] for i, _ in self.outcome.matches)
      return
    self._paths.walk([fp for _, fp in self.outcome.matches])
    for _, fp in self.outcome.matches: yield self._paths.states([fp])[fp]

  def stuck_before(self, sid: int) -> list[State]:
    """The stuck states with ids below ``sid`` (a search met them before it)."""
    return [s for s in self.stuck if s.id < sid]

  def iter_ahead(self, most: int | None = None, graphs: bool = True) -> Iterator[State]:
    """Every state in id order, read from the records a level at a time where the shards keep them (nothing kept here:
    each state's parent is a stand-in with its id); ``graphs`` False (a progress bar): nothing to stream."""
    if self._lean() is None: return super().iter_ahead(most, graphs)
    assert self.outcome is not None
    return _streamed(self, self.outcome) if graphs else iter(())

  def __iter__(self) -> Iterator[State]:   # (a generator: the run starts at the first state asked for, as one process's)
    yield from (super().__iter__() if self._lean() is None else self.iter_ahead())


def _materialize(ex: ClusterExploration, out: Outcome) -> None:
  """Fill ``ex``'s states, seen graphs, stuck states and normal forms from the records (module doc)."""
  stepper, codec = ex.stepper, Codec(list(ex.root.toposort()))
  readers = [Reader(codec) for _ in range(out.shards)]   # each shard's records, read in order (codec.Records)
  states: list[State | None] = [None] * out.count
  steps: dict[int, list[tuple[Redex, Any]]] = {}   # id -> its steps (redex, target fingerprint or stuck position)
  by_fp: dict[bytes, State] = {}
  stuck_at: dict[tuple[int, int], State] = {}
  for depth, recs in enumerate(out.levels()):
    for j, rec in enumerate(recs):
      nodes, st = readers[j].decode(rec["step_nodes"]), rec["steps"]
      table = [Redex(nodes[2 * i], rule_index, nodes[2 * i + 1], error) for i, (rule_index, error) in enumerate(rules_of(st))]
      redex, stuck, targets = st["redex"].tolist(), st["stuck"].tolist(), step_targets(st).tobytes()
      k = 0
      for sid, n in zip(st["sids"].tolist(), st["counts"].tolist()):
        steps[sid] = [(table[redex[j]], stuck[j] if stuck[j] >= 0 else targets[SIZE * j:SIZE * (j + 1)]) for j in range(k, k + n)]
        k += n
    for j, rec in enumerate(recs):
      graphs = readers[j].decode(rec["graphs"])
      for i, sid in enumerate(rec["ids"].tolist()):
        if depth == 0: s = State(0, graphs[i], 0, None, None, stepper)
        else:
          parent = _made(states, int(rec["parents"][i]))
          s = State(sid, graphs[i], depth, parent, steps[parent.id][int(rec["pos"][i])][0], stepper)
        states[sid] = s
        by_fp[fp_bytes(rec["fps"][i])] = s
        ex._seen[s.graph] = s
      for sid, par, pos in rec["stuck"]:
        parent = _made(states, par)
        r = steps[par][pos][0]
        t = states[sid] = stuck_at[par, pos] = State(sid, parent.graph, depth, parent, r, stepper, error=r.error)
        t.normal, t.out = False, ()
  cut_depth, cut_parent = out.cut if out.cut is not None else (-1, -1)
  for sid, pairs in steps.items():
    if (st := states[sid]) is None: continue
    s = st
    if s.depth == cut_depth and sid > cut_parent: continue   # max_states stopped the level before this one was expanded
    got: list[tuple[Redex, Any]] = []
    for r, target in pairs:
      if isinstance(target, int):   # a failed step: the stuck state of its first step
        if (stuck := stuck_at.get((sid, target))) is None: continue
        h = Stuck(stuck.redex, stuck.error)  # type: ignore[arg-type]  # a stuck state has its redex and error
        ex._stuck[s.graph, h] = stuck
        got.append((r, h))
      elif (tgt := by_fp.get(target)) is not None: got.append((r, tgt.graph))
    s.out = got
    s.normal = False if sid == cut_parent and s.depth == cut_depth else not pairs
  made = [s for s in states if s is not None]
  assert len(made) == len(states), "a cluster run's records must number every state"
  ex._states.extend(made)
  ex._normals.extend(s for s in made if s.normal)


def _made(states: list[State | None], i: int) -> State:
  """State ``i``, made a level before the states that name it as their parent."""
  s = states[i]
  assert s is not None, f"state {i} is named before it is made"
  return s


def _streamed(ex: ClusterExploration, out: Outcome) -> Iterator[State]:
  """The states of each level in id order, built from that level's records and let go (``iter_ahead``): a state's parent
  is a stand-in (its id and graph, no parent of its own), so only two levels' graphs are held at a time
  (and each shard's record rows of an epoch: ``codec.Records``)."""
  stepper, codec = ex.stepper, Codec(list(ex.root.toposort()))
  readers = [Reader(codec) for _ in range(out.shards)]   # each shard's records, read in order (codec.Records)
  above: dict[int, Any] = {}   # the last level's graphs by id
  for d in range(min(len(r) for r in out.records)):
    recs = out.level(d)
    steps: dict[int, list[Redex]] = {}
    for j, rec in enumerate(recs):
      nodes, st = readers[j].decode(rec["step_nodes"]), rec["steps"]
      table = [Redex(nodes[2 * i], rule_index, nodes[2 * i + 1], error) for i, (rule_index, error) in enumerate(rules_of(st))]
      redex = st["redex"].tolist()
      k = 0
      for sid, n in zip(st["sids"].tolist(), st["counts"].tolist()):
        steps[sid] = [table[redex[j]] for j in range(k, k + n)]
        k += n
    parents: dict[int, State] = {}   # stand-ins by id
    level: list[State] = []
    for j, rec in enumerate(recs):
      graphs = readers[j].decode(rec["graphs"])
      for i, sid in enumerate(rec["ids"].tolist()):
        if d == 0: level.append(State(0, graphs[i], 0, None, None, stepper))
        else:
          par = int(rec["parents"][i])
          level.append(State(sid, graphs[i], d, _stand_in(parents, above, par, d - 1, stepper), steps[par][int(rec["pos"][i])], stepper))
      for sid, par, pos in rec["stuck"]:
        r = steps[par][pos]
        level.append(t := State(sid, above[par], d, _stand_in(parents, above, par, d - 1, stepper), r, stepper, error=r.error))
        t.normal, t.out = False, ()
    level.sort(key=lambda s: s.id)
    above = {s.id: s.graph for s in level if s.error is None}
    yield from level


def _closed(stepper: Any, parts: list[Any]) -> list[tuple[list[int], list[str]]]:
  """The closed components of more than one state of the steps in ``parts`` (``_steps_out``), each as its sorted ids and
  the names of the rules of its states' steps (in the steps' order: by state, then step)."""
  import numpy as np

  from uopc.relational.space.scc import components
  src, pos, dst, rule = (np.concatenate([p[k] for p in parts]) for k in range(4))
  order = np.lexsort((pos, src))   # the edges' order: by state, then step
  src, dst, rule = src[order], dst[order], rule[order]
  heads, starts = np.unique(src, return_index=True)
  succ = dict(zip(heads.tolist(), (a.tolist() for a in np.split(dst, starts[1:]))))
  cycles = []
  for comp in components(heads.tolist(), succ):
    members = set(comp)
    if len(comp) < 2 or not all(t in members for v in comp for t in succ[v]): continue
    names: list[str] = []
    for r in dict.fromkeys(rule[np.isin(src, comp)].tolist()):
      if (name := stepper.rule_name(r)) not in names: names.append(name)
    cycles.append((sorted(comp), names))
  return cycles


def _stand_in(made: dict[int, State], graphs: dict[int, Any], i: int, depth: int, stepper: Any) -> State:
  """State ``i`` as a streamed state's parent: its id and graph, no parent of its own (so nothing above it is kept)."""
  if (p := made.get(i)) is None: p = made[i] = State(i, graphs[i], depth, None, None, stepper)
  return p


def _lookup(out: Outcome, fps: set[bytes]) -> dict[bytes, tuple[int, bytes, int, int]]:
  """The records of ``fps`` from their owners, one call a shard (``Paths``; not a method: the exploration, whose end gives
  its cluster back, is in no reference cycle)."""
  import numpy as np
  import ray
  assert out.lean is not None, "the shards keep this run's records"
  by: list[list[bytes]] = [[] for _ in range(out.shards)]
  for f in fps: by[owner(f, out.shards)].append(f)
  asked = [(want, out.workers[j].lookup.remote(out.run, np.array(want, FP))) for j, want in enumerate(by) if want]
  got: dict[bytes, tuple[int, bytes, int, int]] = {}
  with out.limits.shield():
    for want, ref in asked:
      if (r := ray.get(ref)) is None: raise ClusterError("the cluster's workers serve another run now: this run's records are gone")
      for fp, i, par, pos, d in zip(want, *(a.tolist() for a in (r[0], r[1], r[2], r[3]))):
        if i >= 0: got[fp] = (i, fp_bytes(par), pos, d)
  return got
