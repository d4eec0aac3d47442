"""A cluster run as an ``Exploration``: the same states, edges, normal forms, paths and bounds, so every report reads it.

The shards keep fingerprints; the coordinator keeps each level's records (``shard.py``).
``ClusterExploration`` runs the search on the cluster when first asked (like any
``Exploration``) and then builds its states from the records: each state's graph (rows
decoded with the engine's constructor, so they are this process's nodes), its parent by
id and its first step from the parent's steps, the steps out of each expanded state,
and the cut a bound made, exactly where one process would have made it. A report that
prints every state needs them all here; the work of making them was the cluster's.
"""
from __future__ import annotations

from typing import Any

from uopc.budget import shielded
from uopc.relational.cluster.codec import Codec
from uopc.relational.cluster.coordinator import Coordinator, Outcome
from uopc.relational.cluster.fingerprint import SIZE
from uopc.relational.cluster.visited import fp_bytes
from uopc.relational.space.states import State, Stuck
from uopc.relational.space.step import Redex
from uopc.relational.space.stream import Exploration


class ClusterExploration(Exploration):
  """``Exploration(root, pm, ...)`` run on the Ray cluster ``cluster`` (``local:N`` or an address: ``session.py``).

  Breadth first, graph semantics, every graph (no reduction). ``target``: a search's
  ``Target``, checked by the shards on each new state; with ``stop_at_match`` the search
  ends with the level that made the first match (what a search reads of it is the same).
  ``outcome`` holds the run's records and statistics once it ran.
  """

  def __init__(self, root: Any, pm: Any, *, cluster: str, max_states: int | None = 100_000, max_depth: int | None = None,
               timeout: float | None = None, target: Any = None, stop_at_match: bool = False, measure: bool = False,
               kill: Any = None) -> None:
    super().__init__(root, pm, max_states=max_states, max_depth=max_depth, timeout=timeout, native=False)
    if not self.stepper.ir.reducible or type(root).__module__ != "uopc.uop":
      from uopc.relational.cluster.errors import ClusterError
      raise ClusterError("--cluster explores uopc programs under uopc rule sets only")
    self.cluster = cluster
    self._coordinator = Coordinator(root, pm, max_states=max_states, max_depth=max_depth, timeout=timeout, target=target,
                                    stop_at_match=stop_at_match, measure=measure, kill=kill)
    self.outcome: Outcome | None = None
    self._driver = self._cluster_drive()

  def _cluster_drive(self) -> Any:
    self.outcome = out = self._coordinator.run(self.cluster)
    self._bound = out.bound  # type: ignore[assignment]  # also "workers_lost": a bound of the cluster's own
    with shielded(): _materialize(self, out)   # whole, also after an interrupt
    yield


def _materialize(ex: ClusterExploration, out: Outcome) -> None:
  """Fill ``ex``'s states, seen graphs, stuck states and normal forms from the records (module doc)."""
  stepper, codec = ex.stepper, Codec(list(ex.root.toposort()))
  states: list[State | None] = [None] * out.count
  steps: dict[int, list[tuple[Redex, Any]]] = {}   # id -> its steps (redex, target fingerprint or stuck position)
  by_fp: dict[bytes, State] = {}
  stuck_at: dict[tuple[int, int], State] = {}
  for depth, recs in enumerate(out.levels):
    for rec in recs:
      nodes, st = codec.decode(rec["step_nodes"]), rec["steps"]
      table = [Redex(nodes[2 * i], rule_index, nodes[2 * i + 1], error) for i, (rule_index, error) in enumerate(st["rules"])]
      redex, stuck, targets = st["redex"].tolist(), st["stuck"].tolist(), st["target"].tobytes()
      k = 0
      for sid, n in zip(st["sids"].tolist(), st["counts"].tolist()):
        steps[sid] = [(table[redex[j]], stuck[j] if stuck[j] >= 0 else targets[SIZE * j:SIZE * (j + 1)]) for j in range(k, k + n)]
        k += n
    for rec in recs:
      graphs = codec.decode(rec["graphs"])
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
