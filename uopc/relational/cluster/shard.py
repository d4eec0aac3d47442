"""One shard of a cluster exploration: the states whose fingerprint is its index mod S.

A level is the same three steps on every shard, each shard's work run on its own worker,
sent by the coordinator (``coordinator.py``) as two calls a shard, all at once:

1. ``expand(depth, last)``: every state of its frontier (the states at ``depth`` it
   owns) is expanded, on the native core where it applies (``native_steps.py``: the whole
   level in one C call), else with the explorer's own ``Stepper``; each distinct successor
   goes, with its parent's id and the step's position among the parent's steps, into the
   batch of the successor's owner (``Codec`` rows). It returns one batch per shard (its
   own is kept in memory) and keeps the steps for the level's record.
2. ``absorb(*batches)``: the candidates sent to it, less the visited ones; a graph
   reached from several parents keeps the first in breadth-first order, the smallest
   (parent id, position), as one process would. It returns those keys.
3. ``commit(count, max_states, *keys)``: every shard's keys ranked into state ids (one
   process's discovery order: ``rank``, the same in every shard, so no call waits on the
   coordinator) and cut at ``max_states``; the kept states join the visited table and the
   next frontier. It returns a summary and the level's record, which the coordinator
   keeps as the checkpoint and builds the result from: a light one (``deferred.py``), the
   full one (the new states' graphs as rows, the expanded ones' steps) written when asked.

``advance`` is a commit and the next level's expansion in one call (the first level's
expansion is a call of its own), so a level is ``absorb`` then ``advance``. Batches and
records cross as one pickle each (``pack``).

A failed step (a rule raised) makes a stuck state, which never leaves its parent's shard.
``restore(*records)`` rebuilds a shard from its records: a new worker replaces a dead one. The records are light ones
(``deferred.py``): its levels are made again, and its full records written when a report asks (``full_records``).

After the run the shard keeps its part of the result, for the reports to read where it
is (``paths.py``, ``result.py``): the visited table (each state's parent fingerprint and
step position: ``lookup`` walks paths back), and per expanded state how many steps it has
and where they go, from which ``report`` gives the normal forms, the stuck states and the
edge count, and whether a cycle is possible. ``lookup`` and ``report`` name the run they
ask about: a worker that serves a later run by then says so (None).
Nothing here imports Ray: ``coordinator.py`` runs this class as an actor.
"""
from __future__ import annotations

import contextlib
import functools
import os
import pickle
import signal
import socket
import time
from typing import TYPE_CHECKING, Any, Callable, Iterator, NamedTuple, TypeVar

import numpy as np

from uopc import collector
from uopc.memory import peak_memory, reset_peak_memory, resident_memory
from uopc.relational.cluster.codec import Codec, Deltas, Encoded, Reader, Records
from uopc.relational.cluster.deferred import LIGHT, DeferredRecords, is_light
from uopc.relational.space.fingerprint import Fingerprints, owner
from uopc.relational.cluster.visited import FP, Visited, fp_bytes
from uopc.relational.space.states import Stuck

if TYPE_CHECKING:
  from uopc.relational.cluster.native_steps import Matched, NativeSteps

F = TypeVar("F", bound=Callable[..., Any])


def _paused(fn: F) -> F:
  """``fn`` with the cycle collector paused (``uopc.collector``): a level makes many lasting acyclic objects, as an
  exploration does, and a worker's collector passes over them doubled what the steps cost."""
  @functools.wraps(fn)
  def run(*args: Any, **kwargs: Any) -> Any:
    with collector.paused(settle=True): return fn(*args, **kwargs)
  return run  # type: ignore[return-value]  # the same signature


def _left_by_a_stop(fn: F) -> F:
  """``fn``, a call a stop leaves where it is (``Stopped``, ``Shard._on_stop``): nothing it changes outlives its level."""
  @functools.wraps(fn)
  def run(self: Shard, *args: Any, **kwargs: Any) -> Any:
    with self._stoppable(): return fn(self, *args, **kwargs)
  return run  # type: ignore[return-value]  # the same signature


STOP_SIGNAL = signal.SIGUSR2   # the coordinator's word to a worker of an interrupted run (``Shard.where``): leave the level


class Stopped(BaseException):
  """The run was interrupted (``STOP_SIGNAL``): the expansion running is left where it is, and the run's later expansions
  and absorbs fail with it. A commit is never stopped: each takes every shard's absorb, so every shard commits a level
  or none, and the shards stand at the same last committed level, which the coordinator reports from. A
  ``BaseException``, as ``BoundHit`` is: what catches a rule's errors lets it by (Ray fails the call; the worker lives on)."""


DELTA_STREAMS = 30            # the native core's streams for batches (``Space.rows``' 2 to 31): past 31 shards, each batch its own
CANDIDATES_KEPT = 1_000_000   # fingerprints a shard remembers having sent (about 100 bytes each); past it, it forgets them
FINGERPRINTS_KEPT = 500_000   # nodes whose fingerprints a shard remembers (each keeps its node alive); past half of it at a level's
                              # end, all but the program's go, and the stepper's memo with them (expand)
NATIVE_NODES_KEPT = 2_000_000   # a native worker's core starts again past this many nodes (NativeSteps.full; about 420 bytes a
                                # node with its maps, 0.8 GB): its new core makes every map and fingerprint again, and the level's
                                # graphs are made UOps, so a start too soon costs more memory than it frees (665,280 states, 916,909
                                # nodes, one shard: a new core past 500,000 took 2.8 times the CPU and 2.9 times the memory)


def pack(obj: Any) -> bytes:
  """A batch or a record as one pickle: Ray would write its rows field by field (msgpack, every op and dtype pickled
  apart), a fifth of a worker's time; ``unpack`` reads it."""
  return pickle.dumps(obj, protocol=5)


def unpack(blob: bytes) -> Any:
  """What ``pack`` made."""
  return pickle.loads(blob)


def step_order(par: np.ndarray, pos: np.ndarray) -> np.ndarray:
  """(parent id, position) pairs as one int64 each, in their order: one sort of ints, not a lexsort of two arrays."""
  return (par.astype(np.int64) << 32) | pos.astype(np.int64)


def rank(keys: tuple[tuple[np.ndarray, np.ndarray, np.ndarray], ...], count: int, max_states: int | None) -> tuple[list[np.ndarray], int, int | None]:
  """Number every shard's new states (``Shard.absorb``'s keys, shard by shard) from ``count`` in one process's order (by
  parent id, then position), cut at ``max_states``: each shard's ids (-1 for a state not made), how many were made, and
  the parent whose expansion the cut stopped (None if none was cut).

  >>> import numpy as np
  >>> k0, k1 = (np.array([0, 0]), np.array([1, 0]), np.array([False])), (np.array([0]), np.array([2]), np.array([False]))
  >>> [a.tolist() for a in rank((k0, k1), 1, None)[0]], rank((k0, k1), 1, 3)
  ([[2, 1], [3]], ([array([2, 1]), array([-1])], 2, 0))
  """
  par = np.concatenate([k[0] for k in keys])
  order = np.argsort(step_order(par, np.concatenate([k[1] for k in keys])), kind="stable")
  ids = np.empty(len(par), np.int64)
  ids[order] = count + np.arange(len(par))
  room = len(par) if max_states is None else max(0, max_states - count)
  dropped_at = None
  if len(par) > room:
    ids[order[room:]] = -1
    dropped_at = int(par[order[room]])
  return list(np.split(ids, np.cumsum([len(k[0]) for k in keys])[:-1])), min(room, len(par)), dropped_at


def _ranked(rec: dict[str, Any], keys: tuple[np.ndarray, np.ndarray, np.ndarray]) -> np.ndarray:
  """The ids ``rank`` gave the ``absorb`` keys of a light record's level (-1: not made), read from the record (each step's
  (parent id, position) names one state): the other shards' keys, which ``rank`` needs, are not in it.

  >>> rec = {"ids": np.array([5, 4]), "parents": np.array([1, 0]), "pos": np.array([0, 2]), "stuck": [(6, 1, 3)]}
  >>> _ranked(rec, (np.array([0, 1, 2, 1]), np.array([2, 0, 0, 3]), np.array([False]))).tolist()
  [4, 5, -1, 6]
  """
  made = step_order(np.concatenate([rec["parents"], np.array([s[1] for s in rec["stuck"]], np.int64)]),
                    np.concatenate([rec["pos"], np.array([s[2] for s in rec["stuck"]], np.int32)]))
  ids = np.concatenate([rec["ids"], np.array([s[0] for s in rec["stuck"]], np.int64)])
  order = np.argsort(made)
  made, ids = made[order], ids[order]
  want = step_order(keys[0], keys[1])
  at = np.minimum(np.searchsorted(made, want), max(len(made) - 1, 0))
  return np.where(made[at] == want, ids[at], -1) if len(made) else np.full(len(want), -1, np.int64)


def _native_steps(stepper: Any, root: Any, limit: int) -> NativeSteps | None:
  """The native core's steps for this worker (``native_steps.py``), or None where it does not apply (not built, not
  uopc's IR, a CALL in the program): the Python core's then."""
  from uopc.relational import native as nat
  if not nat.available() or not getattr(stepper.ir, "native", False): return None
  from uopc.relational.cluster.native_steps import NativeSteps
  from uopc.relational.native.space import NotNative
  try: return NativeSteps(stepper, root, limit)
  except NotNative: return None


def _kept_steps(steps: dict[str, Any]) -> dict[str, Any]:
  """What a shard keeps of a level's steps (``expand``'s arrays) for its reports; each step's rule index (``rule``) is
  set once they are asked for (``Shard._rules``) or the level's record is written."""
  return {k: v for k, v in steps.items() if isinstance(v, np.ndarray)}


def _step_rules(steps: dict[str, Any], rules: np.ndarray) -> np.ndarray:
  """Each step's rule index, of its redex's (``rules``: each redex's)."""
  return rules[steps["redex"]] if len(steps["redex"]) else np.empty(0, np.int32)


def step_targets(steps: dict[str, Any]) -> np.ndarray:
  """Each step's target fingerprint, of a level's steps (``target``: an index into ``targets``, the distinct ones)."""
  return steps["targets"][steps["target"]]


def target_table(nodes: np.ndarray, fingerprints: Callable[[list[int]], list[bytes]]) -> tuple[np.ndarray, np.ndarray]:
  """Steps' targets as nodes (a level keyed by node) as ``expand``'s: each step's index into the table of the distinct
  ones' fingerprints, in the order of their first steps (``Space.expand_level``'s table).

  >>> target, targets = target_table(np.array([7, 3, 7, 5]), lambda nodes: [str(n).encode() * 16 for n in nodes])
  >>> target.tolist(), [bytes(t[:1]) for t in targets]
  ([0, 1, 0, 2], [b'7', b'3', b'5'])
  """
  uniq, first, inv = np.unique(nodes, return_index=True, return_inverse=True)
  order = np.argsort(first, kind="stable")
  rank = np.empty(len(uniq), np.int32)
  rank[order] = np.arange(len(uniq), dtype=np.int32)
  return rank[inv.reshape(-1)], np.array(fingerprints(uniq[order].tolist()), FP).reshape(-1)


def rules_of(steps: dict[str, Any]) -> list[tuple[int, Any]]:
  """Each redex's (rule index, error) of a level record's steps (``rules``: the indices, ``errors``: the failed ones')."""
  errors = steps["errors"]
  return [(r, errors.get(i)) for i, r in enumerate(steps["rules"].tolist())]


def as_nodes(graphs: list[Any]) -> np.ndarray | None:
  """``graphs`` as an array of a native core's nodes, or None where one is a ``UOp`` (one C pass, no Python a graph).

  >>> as_nodes([3, 1]).tolist(), as_nodes([3, "g"])
  ([3, 1], None)
  """
  try: return np.fromiter(graphs, np.int64, len(graphs))
  except (TypeError, ValueError): return None


def first_discoveries(new: np.ndarray, par: np.ndarray, pos: np.ndarray, fps: np.ndarray, graphs: list[Any]) -> np.ndarray:
  """Of the candidates ``new`` (several parts' candidates, a graph maybe in more than one), each graph's first in
  (parent id, position) order, in that order. A graph is its node where every one is a native core's (hash consing: one
  graph, one node), else its fingerprint.

  >>> fps = np.array([b"a", b"b", b"a"], "S16")
  >>> first_discoveries(np.arange(3), np.array([4, 1, 2]), np.array([0, 0, 5]), fps, [7, 8, 7]).tolist()
  [1, 2]
  """
  sorted_new = new[np.argsort(step_order(par[new], pos[new]), kind="stable")]
  nodes = as_nodes(graphs)
  same = nodes[sorted_new] if nodes is not None else fps[sorted_new]
  _, first = np.unique(same, return_index=True)
  return sorted_new[np.sort(first)]


class NativeRedexes:
  """A native level's distinct redexes, as their keys (``Space.expand_level``'s): read as the list of ``Redex``es they
  stand for where one is needed, and as arrays where the record is written (``arrays``: no ``Redex`` read, each key's
  rule and nodes looked up once a run, ``NativeSteps.redex_arrays``)."""
  __slots__ = ("steps", "keys")

  def __init__(self, steps: NativeSteps, keys: np.ndarray) -> None: self.steps, self.keys = steps, keys
  def __len__(self) -> int: return len(self.keys)

  def __iter__(self) -> Any:
    table = self.steps.keys
    return (table[k] for k in self.keys.tolist())

  def arrays(self) -> tuple[np.ndarray, np.ndarray] | None:
    """Each redex's rule index, and its node's and its result's native nodes (interleaved); None under tree semantics."""
    return self.steps.redex_arrays(self.keys)


class CoreKeys(NamedTuple):
  """The redexes of a native level while the run goes: each step's redex (``Level.redex``) is its core key,
  not its index among the level's distinct ones, which ``resolved`` finds when they are read (``deferred.py``)."""
  steps: NativeSteps


def resolved(redexes: Any, redex: np.ndarray) -> tuple[Any, np.ndarray]:
  """A level's redexes and each step's index among them (``CoreKeys``' as ``NativeRedexes``: ``distinct``); else as they are."""
  if isinstance(redexes, CoreKeys):
    uniq, idx = distinct(redex)
    return NativeRedexes(redexes.steps, uniq), idx
  return redexes, redex


def _redex_rules(redexes: Any) -> np.ndarray:
  """Each of a level's redexes' rule index (``_redex_table``'s first part, with no node read)."""
  if isinstance(redexes, NativeRedexes) and (arrays := redexes.arrays()) is not None: return arrays[0]
  return np.fromiter((r.rule_index for r in redexes), np.int32, len(redexes))


def _redex_table(redexes: Any) -> tuple[np.ndarray, dict[int, Any], list[Any]]:
  """A level's redexes as the record holds them: each one's rule index, the failed ones' errors, and the nodes to write
  (each one's node and result: native nodes where the level's redexes are a native core's)."""
  if isinstance(redexes, NativeRedexes) and (arrays := redexes.arrays()) is not None:
    return arrays[0], {}, arrays[1].tolist()   # (a native redex never failed: the core stops at a failed step)
  redexes = list(redexes)
  rules = np.fromiter((r.rule_index for r in redexes), np.int32, len(redexes))
  return rules, {i: r.error for i, r in enumerate(redexes) if r.error is not None}, [x for r in redexes for x in (r.node, r.result)]


class Frontier(NamedTuple):
  """The states a shard expands next, in id order: their ids, and their graphs (a native worker's core nodes, or ``UOp``s)."""
  ids: np.ndarray
  graphs: list[Any]

  @staticmethod
  def of(ids: np.ndarray, graphs: list[Any]) -> Frontier:
    """``ids`` and ``graphs`` in id order (as they are where one shard ranked its own)."""
    if len(ids) > 1 and not bool((ids[1:] > ids[:-1]).all()):
      order = np.argsort(ids, kind="stable")
      ids, graphs = ids[order], [graphs[i] for i in order.tolist()]
    return Frontier(np.asarray(ids, np.int64), graphs)

  def pairs(self) -> list[tuple[int, Any]]:
    """(id, graph) each."""
    return list(zip(self.ids.tolist(), self.graphs))


NO_FRONTIER = Frontier(np.empty(0, np.int64), [])


def distinct(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
  """``np.unique(keys, return_inverse=True)`` for small non-negative ints (a core's redex keys), in linear time: a mark
  per key, not a sort of every step.

  >>> [a.tolist() for a in distinct(np.array([5, 2, 5, 0], np.int32))]
  [[0, 2, 5], [2, 1, 2, 0]]
  """
  if not len(keys): return np.empty(0, keys.dtype), np.empty(0, np.int32)
  seen = np.zeros(int(keys.max()) + 1, np.int32)
  seen[keys] = 1
  uniq = np.flatnonzero(seen).astype(keys.dtype)
  seen[uniq] = np.arange(len(uniq), dtype=np.int32)
  return uniq, seen[keys]


# fingerprints, parent ids, positions, parents' fingerprints, graphs (a keyed level's: nodes for fingerprints, None for parents')
Candidates = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray | None, list[Any]]


class Level(NamedTuple):
  """What expanding some of a frontier's states made: per state its id and step count; per step its redex (an index into
  ``redexes``), its target (an index into ``targets``, the level's distinct targets' fingerprints: a target is reached by
  many steps) and, for a failed one, its stuck state's first step's position (else -1); the
  stuck states made ((parent id, position) each); the candidates for each shard (``Candidates``: a graph is a ``UOp``, or
  a native worker's node); whether a step reached a graph made a candidate at an earlier level; whether it is keyed by node."""
  sids: np.ndarray
  counts: np.ndarray
  redexes: Any   # a list of Redexes, NativeRedexes, or CoreKeys (until the record is written: ``resolved``)
  redex: np.ndarray
  target: np.ndarray
  targets: np.ndarray
  stuck: np.ndarray
  stuck_states: list[tuple[int, int]]
  cands: list[Candidates]
  maybe_cycle: bool
  keyed: bool = False   # the only shard's level by node (``Shard._expand_native``): targets and candidates nodes, no parent fingerprints

  @staticmethod
  def joined(parts: list[Level], count: int) -> Level:
    """The parts as one level (the states of each in turn), for ``count`` shards."""
    if len(parts) == 1: return parts[0]
    parts = [p._replace(**dict(zip(("redexes", "redex"), resolved(p.redexes, p.redex)))) for p in parts]
    if not parts: return Level(np.empty(0, np.int64), np.empty(0, np.int32), [], np.empty(0, np.int32), np.empty(0, np.int32),
                               np.empty(0, FP), np.empty(0, np.int32), [], [(np.empty(0, FP), np.empty(0, np.int64), np.empty(0, np.int32),
                                                            np.empty(0, FP), [])] * count, False)
    offsets = np.cumsum([0] + [len(p.redexes) for p in parts[:-1]])
    t_offsets = np.cumsum([0] + [len(p.targets) for p in parts[:-1]])
    cands: list[Candidates] = []
    for j in range(count):
      cols = [p.cands[j] for p in parts]
      cands.append((np.concatenate([c[0] for c in cols]), np.concatenate([c[1] for c in cols]), np.concatenate([c[2] for c in cols]),
                    np.concatenate([c[3] for c in cols]), [g for c in cols for g in c[4]]))
    return Level(np.concatenate([p.sids for p in parts]), np.concatenate([p.counts for p in parts]), [r for p in parts for r in p.redexes],
                 np.concatenate([p.redex + o for p, o in zip(parts, offsets)]).astype(np.int32),
                 np.concatenate([p.target + o for p, o in zip(parts, t_offsets)]).astype(np.int32), np.concatenate([p.targets for p in parts]),
                 np.concatenate([p.stuck for p in parts]), [x for p in parts for x in p.stuck_states], cands, any(p.maybe_cycle for p in parts))


class Shard:
  """The states one worker owns, and its part of each level (module doc)."""

  def load(self, index: int, count: int, program: Encoded, pm_blob: bytes, target_blob: bytes | None, measure: bool = False,
           run: str = "", native: bool = False, worker: bool = True) -> str | None:
    """Become shard ``index`` of ``count`` for run ``run``: load the rules, the program and the target here (a worker
    serves one run after another); the error in one line if they do not load. ``measure``: count the bytes of every
    batch sent (pickled again: the bench's ``moved``). ``native``: step and fingerprint with the native core where it
    applies (``native_steps.py``; the same states either way). ``worker``: False for a shard made in the coordinator
    (``coordinator.replayed``), whose peak memory is the command's, not the run's."""
    from uopc.relational.space.step import stepper_for
    self.index, self.count, self.measure, self.run = index, count, measure, run
    self.visited = Visited()
    self.expanded: list[dict[str, Any]] = []   # each committed level's steps (arrays, ``expand``'s), oldest first
    self.stuck_kept: list[tuple[int, int, int, int]] = []   # (id, parent id, position, depth) of each stuck state made here
    self.maybe_cycle = False   # a step reached a state of its own depth or less: only such a step can close a cycle
    self.frontier = NO_FRONTIER   # the states at the current depth
    self._pending: dict[str, Any] = {}           # what a level's calls hand to each other
    self.moved = 0   # bytes of the batches this shard sent
    self.sent = 0    # candidates sent to other shards
    self.candidates: set[bytes] = set()   # every graph this shard made a candidate at an earlier level
    self.cpu0 = time.process_time()
    self.stopping = self._in_level = False
    if worker:
      reset_peak_memory()   # a worker serves run after run: its peak is this run's
      try: signal.signal(STOP_SIGNAL, self._on_stop)   # (a worker's calls run in its main thread)
      except ValueError: pass   # (a shard outside one, which nothing stops)
    try: self.pm = pickle.loads(pm_blob)
    except Exception as e: return f"the rule set does not load on the worker (pid {os.getpid()}): {type(e).__name__}: {e}"
    try: self.target = pickle.loads(target_blob) if target_blob is not None else None
    except Exception as e: return f"the search target does not load on the worker: {type(e).__name__}: {e}"
    self.stepper: Any = stepper_for(self.pm)
    root = Codec([]).decode(program)[0]
    self.base = root.toposort() if hasattr(root, "toposort") else [root]
    self.codec = Codec(list(self.base))
    self.written = Records(list(self.base))   # the level records' rows: each node once (an epoch's)
    self.fps = Fingerprints(FINGERPRINTS_KEPT)
    self.root, self.root_fp = root, self.fps.keep(root)
    self.native: NativeSteps | None = _native_steps(self.stepper, root, NATIVE_NODES_KEPT) if native else None
    self.in_python = 0   # states a native worker stepped in Python (its core stopped at their graph)
    # a native worker's batches to each other shard as a stream (codec.Deltas: the nodes sent to it before go as
    # references), and a reader of each other shard's (a Python worker's batches carry their rows' fingerprints, each its own)
    others = [j for j in range(count) if j != index]
    self.deltas = ({j: Deltas(list(self.base), 2 + k) for k, j in enumerate(others)}
                   if self.native is not None and len(others) <= DELTA_STREAMS else {})
    self.readers = {j: Reader(self.codec) for j in others}
    # the only shard, on a core that stamped every candidate it made since the program (no Python part, no new core, no
    # restore): a candidate is then a state only if it is the program (absorb looks nothing up)
    self.stamped = self.native is not None and count == 1
    # while it is, its levels are keyed by node, no fingerprint made until one is read (visited.py; _settle): this is the
    # core's fingerprints of a list of nodes while some are not made yet
    self._keyed: Callable[[list[int]], list[bytes]] | None = None
    # the full records are written when a report asks (deferred.py): the commits give light ones
    self.deferred = DeferredRecords()
    return None

  # ---- a level

  @_paused
  def start(self) -> tuple[dict[str, Any], bytes]:
    """Level 0: the program, owned by one shard."""
    mine = owner(self.root_fp, self.count) == self.index
    graphs = [self.root] if mine else []
    level = {"depth": 0, "ids": np.zeros(len(graphs), np.int64), "fps": np.array([self.root_fp] if mine else [], FP),
             "parents": np.full(len(graphs), -1, np.int64), "pos": np.zeros(len(graphs), np.int32), "graphs": graphs, "stuck": [],
             "steps": None, "parent_fps": np.array([b""] * len(graphs), FP)}
    rec = self._level_record(level, None, [])
    if mine:
      self.visited.add(np.array([self.root_fp], FP), np.zeros(1, np.int64), np.array([b""], FP), np.full(1, -1, np.int32), 0)
      self.frontier = Frontier(np.zeros(1, np.int64), [self.root])
    return self._summary(graphs, np.zeros(len(graphs), np.int64)), pack(rec)

  @_paused
  def expand(self, depth: int, last: bool) -> list[Any]:
    """Expand the frontier (states at ``depth``): a summary, then one batch of candidates per shard (None for this one: kept here).

    Each graph is a candidate once a level, from its first step in breadth-first order (the frontier is in id order), and
    never again once it was one at an earlier level (its owner has it by now): ``f``, the states sent a state, stays near 1.
    A native worker expands its frontier in one call of its core (``Space.expand_level``); the graphs the core stops at,
    and every graph of a worker without one, are stepped in Python (``_expand_python``). The two keep apart which graphs
    they made candidates: a graph sent twice is only sent twice (its owner keeps the first discovery)."""
    native = self.native
    parts: list[Level] = []
    rest = self.frontier.pairs() if native is None else []
    shared: Matched | None = None   # a native level's Python matches, for the batches to the others (native_steps.py)
    with self._stoppable():   # (a stop raises Stopped in here: _on_stop; the native core looks for it between states)
      if native is not None:
        part, rest, shared = self._expand_native(native, self.frontier)
        parts.append(part)
        self.in_python += len(rest)
      if rest:
        if parts and parts[0].keyed: parts[0] = self._fingerprinted(parts[0])   # (the Python part's candidates are by fingerprint)
        parts.append(self._expand_python(rest))
        self.stamped = False
    level = Level.joined(parts, self.count)
    # (the stepper keeps its memo until it is cleared whole: forgetting one node's map would make it again with new
    # redexes under the old ones its ancestors' maps hold, and a step to a graph would count twice)
    stepper, fps = self.stepper, self.fps
    # the nodes of many levels' states are kept alive by what is remembered of them: past a bound they go, at the end of
    # the level (after the batches are written: a native worker's candidates are its core's nodes until then)
    forget = fps.full or (native is not None and native.full)
    if forget and level.keyed: level = self._fingerprinted(level)   # (its nodes mean nothing past the level)
    steps = {"sids": level.sids, "counts": level.counts, "redex": level.redex, "target": level.target, "targets": level.targets,
             "stuck": level.stuck,
             "redexes": level.redexes}
    own = level.cands[self.index]
    if forget and native is not None:   # what names the core's nodes or keys, as UOps and Redexes while the core is there
      with self._stoppable():   # (seconds past a million states, and nothing kept yet: a stop leaves it too)
        own = (*own[:4], [self._graph(h) for h in own[4]])
        redexes, steps["redex"] = resolved(level.redexes, level.redex)
        steps["redexes"] = list(redexes)
    # (its maybe_cycle counts once the level is committed: an expansion sent ahead may go unused, advance)
    # (a part lists each graph once: one part's candidates need no search for a graph twice, when no shard sends any)
    self._pending = {"steps": steps, "stuck": level.stuck_states, "depth": depth, "last": last, "own": own, "maybe_cycle": level.maybe_cycle,
                     "once": len(parts) <= 1 and self.count == 1, "keyed": level.keyed}
    batches: list[Any] = []
    for j, (c_fps, c_par, c_pos, c_pfp, graphs) in enumerate(level.cands):
      if j == self.index: batches.append(None); continue
      self.sent += len(c_fps)
      # rows without their fingerprints from a native worker (made in C: Space.rows), only those not sent to j before
      # (Deltas): a receiver's core makes their fingerprints
      if native is not None and shared is not None and (stream := self.deltas.get(j)) is not None:   # (and the nodes its core matched in Python)
        b = pack((c_fps, c_par, c_pos, c_pfp, *stream.send(native.space, graphs + shared.nodes), *shared[:2]))
      elif native is None: b = pack((c_fps, c_par, c_pos, c_pfp, self.codec.encode(graphs, fps)))
      else: b = pack((c_fps, c_par, c_pos, c_pfp, self.codec.encode_native(native.space, graphs)))
      if self.measure: self.moved += len(b)
      batches.append(b)
    if forget:
      self.stamped = False
      self._settle()
      self.deferred.written(len(self.expanded) + 1, self._write)   # (while what they name is here)
      fps.forget()
      if native is not None:
        for reader in self.readers.values(): reader.rebind(native.uop)   # (the nodes it read are the old core's)
        native.forget()
      stepper.clear()
    return [{"expanded": len(level.sids)}, *batches]

  def _expand_native(self, native: NativeSteps, frontier: Frontier) -> tuple[Level, list[tuple[int, Any]], Matched]:
    """The frontier's level from the native core, the states it left to Python (a CALL in the graph, or a graph the
    core stops at), and the nodes the core matched in Python meanwhile, for the other shards (``NativeSteps.level``)."""
    rest: list[tuple[int, Any]] = []
    sids, nodes = frontier.ids, frontier.graphs
    if as_nodes(nodes) is None:   # (a native worker's graphs are its core's nodes, or UOps: those sent
      kept, nodes = [], []                           # before its core was new; a CALL stays a UOp)
      for sid, g in frontier.pairs():
        if (i := native.node_or_none(g)) is None: rest.append((sid, g))
        else: kept.append(sid); nodes.append(i)
      sids = np.array(kept, np.int64)
    keyed = self.stamped   # the only shard, its core's candidate stamps whole: by node (visited.py)
    r, shared = native.level(nodes, self.count, bool(self.deltas), keyed)
    counts = np.frombuffer(r[0], np.int32)
    ok = counts >= 0
    if not ok.all():
      rest.extend((int(sids[k]), nodes[k]) for k in np.flatnonzero(~ok).tolist())
    rest = [(sid, self._graph(g)) for sid, g in rest]   # stepped in Python: UOps
    # each step's redex among the level's distinct ones: the core's keys until its record is written (deferred.py)
    redexes, redex = CoreKeys(native), np.frombuffer(r[1], np.int32)
    state_fps, c_state, c_pos = np.frombuffer(r[3], FP), np.frombuffer(r[4], np.int32), np.frombuffer(r[5], np.int32)
    c_node, c_fp, c_owner = np.frombuffer(r[6], np.int32), np.frombuffer(r[7], FP), np.frombuffer(r[8], np.int32)
    cands: list[Candidates] = []
    for j in range(self.count):
      m = c_owner == j if self.count > 1 else slice(None)   # (the only shard owns every one)
      at = c_state[m]
      # keyed: the candidates' nodes for their fingerprints, and no parent's (each the state of its parent id)
      cands.append((c_node, sids[at], c_pos, None, c_node.tolist()) if keyed else (c_fp[m], sids[at], c_pos[m], state_fps[at], c_node[m].tolist()))
    if r[10] > CANDIDATES_KEPT:   # only a saving, as Python's set of them
      native.core.forget_candidates()
      self.stamped = False
    if keyed: self._keyed = native.fingerprints
    part = Level(sids[ok], counts[ok], redexes, redex, np.frombuffer(r[2], np.int32), np.frombuffer(r[11], np.int32 if keyed else FP),
                 np.full(len(redex), -1, np.int32), [], cands, bool(r[9]), keyed)
    return part, rest, shared

  def _fingerprinted(self, level: Level) -> Level:
    """A level keyed by node (the only shard's) by fingerprint: its targets', its candidates' and their parents'."""
    fp = self._keyed
    assert fp is not None, "a keyed level's core"
    c_nodes, par, pos, _, graphs = level.cands[0]
    cands: list[Candidates] = [(np.array(fp(c_nodes.tolist()), FP).reshape(-1), par, pos, self.visited.fps_of(par), graphs)]
    target, targets = target_table(level.target, fp)
    return level._replace(target=target, targets=targets, cands=cands, keyed=False)

  def _settle(self, *writing: dict[str, Any]) -> None:
    """The fingerprints of what the only shard keyed by node (``_expand_native``) made now, while its nodes mean what
    they did: its visited states' (``Visited.settle``), its levels' targets', the levels' records not written yet (and
    ``writing``'s)."""
    self.visited.settle()
    if (fp := self._keyed) is None: return
    made: dict[int, tuple[np.ndarray, np.ndarray]] = {}   # (a level's steps are in its kept steps and in its record's)
    levels = [*self.deferred.pending(), *writing]
    for steps in [*self.expanded, *(lv["steps"] for lv in levels if lv["steps"] is not None)]:
      if steps["targets"].dtype != np.int32: continue
      if (key := id(steps["target"])) not in made: made[key] = target_table(steps["target"], fp)
      steps["target"], steps["targets"] = made[key]
    for lv in levels:
      if lv["fps"] is None: lv["fps"], lv["parent_fps"] = self.visited.fps_of(lv["ids"]), self.visited.fps_of(lv["parents"])
    self._keyed = None

  def _expand_python(self, frontier: list[tuple[int, Any]]) -> Level:
    """The level of these states from the Python core's steps."""
    stepper, fps, count, maybe_cycle = self.stepper, self.fps, self.count, False
    out: list[list[tuple[bytes, int, int, Any, bytes]]] = [[] for _ in range(count)]
    stuck: list[tuple[int, int]] = []   # (parent id, position) of each failed step: a stuck state made here
    # the expanded states' steps for the record, a few C-level passes a state (not Python a step): every step's redex
    # (each distinct one in the record once: a node's redexes are in many states) and target fingerprint
    sids: list[int] = []
    counts: list[int] = []
    redexes: list[Any] = []
    p_target: list[bytes] = []   # each step's target fingerprint (b"" for a failed one)
    failed: list[tuple[int, int]] = []   # (step index in the level, position of its stuck state's first step)
    before, now = self.candidates, set()
    if len(before) > CANDIDATES_KEPT: before.clear()   # only a saving: the owners still drop what they have
    for sid, g in frontier:
      pairs = list(stepper.successors(g))
      n = len(pairs)
      sids.append(sid)
      counts.append(n)
      if not n: continue
      rs, hs = zip(*pairs)
      first = {h: pos for pos, h in zip(range(n - 1, -1, -1), reversed(hs))}   # each target's first step
      gfp = fps.of(g)
      tfp: dict[Any, bytes] = {}
      for h, pos in first.items():
        if h.__class__ is Stuck:
          tfp[h] = b""
          stuck.append((sid, pos))
          at = len(p_target)
          failed.extend((at + j, pos) for j, x in enumerate(hs) if x is h)
          continue
        t = tfp[h] = fps.of(h)   # sent even at the last depth: its owner says whether it is new (then max_depth cut it)
        if t in now: continue
        if t in before: maybe_cycle = True   # a state of an earlier level (or one a cut dropped)
        else:
          now.add(t)
          out[owner(t, count)].append((t, sid, pos, h, gfp))
      redexes.extend(rs)
      p_target.extend(map(tfp.__getitem__, hs))
    before |= now
    table = {r: i for i, r in enumerate(dict.fromkeys(redexes))}
    p_stuck = np.full(len(p_target), -1, np.int32)
    for at, pos in failed: p_stuck[at] = pos
    cands: list[Candidates] = [(np.array([c[0] for c in cs], FP), np.array([c[1] for c in cs], np.int64), np.array([c[2] for c in cs], np.int32),
              np.array([c[4] for c in cs], FP), [c[3] for c in cs]) for cs in out]
    targets = {t: i for i, t in enumerate(dict.fromkeys(p_target))}
    return Level(np.array(sids, np.int64), np.array(counts, np.int32), list(table),
                 np.fromiter(map(table.__getitem__, redexes), np.int32, len(redexes)),
                 np.fromiter(map(targets.__getitem__, p_target), np.int32, len(p_target)), np.array(list(targets), FP), p_stuck, stuck,
                 cands, maybe_cycle)

  def _read(self, batches: tuple[Any, ...]) -> tuple[list[np.ndarray], list[np.ndarray], list[np.ndarray], list[Any], list[Any]]:
    """``absorb``'s candidates, batch by batch (this shard's own where its batch is None): their fingerprints, parent
    ids, positions and parents' fingerprints, a list each, and their graphs."""
    fps_l, par_l, pos_l, pfp_l = [], [], [], []
    graphs: list[Any] = []
    for j, b in enumerate(batches):
      if j == self.index or b is None:
        o_fps, o_par, o_pos, o_pfp, own = self._pending["own"]
        fps_l.append(o_fps); par_l.append(o_par); pos_l.append(o_pos); pfp_l.append(o_pfp)
        graphs.extend(own)
      else:
        b = unpack(b)
        fps_l.append(b[0]); par_l.append(b[1]); pos_l.append(b[2]); pfp_l.append(b[3])
        # a native worker reads the rows straight into its core's nodes (Space.intern_rows): no UOp made
        if len(b) > 5:   # a Deltas batch, and the nodes its sender's core matched in Python (native_steps.py)
          got = self.readers[j].take(None if self.native is None else self.native.space, b[4:7])
          graphs.extend(got[:len(b[0])])
          if self.native is not None and len(b[7]): self.native.give(b[7], b[8], got[len(b[0]):])
        else: graphs.extend(self.codec.decode(b[4], self.fps) if self.native is None else self.codec.decode_native(self.native.space, b[4]))
    return fps_l, par_l, pos_l, pfp_l, graphs

  @_paused
  @_left_by_a_stop
  def absorb(self, *batches: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The new candidates among those sent here, each graph once: their (parent id, position) keys, stuck ones flagged.
    Nothing where this shard made no expansion to absorb (``advance`` skipped it: ``max_states`` cut the level, and the
    coordinator, which sent this call ahead, ends the run there)."""
    p = self._pending
    if "own" not in p: return np.empty(0, np.int64), np.empty(0, np.int32), np.array([False])
    p["batches"] = [(j, b) for j, b in enumerate(batches) if j != self.index and b is not None]   # as sent: the light record's
    fps_l, par_l, pos_l, pfp_l, graphs = self._read(batches)
    fps = np.concatenate(fps_l) if fps_l else np.empty(0, FP)
    par = np.concatenate(par_l) if par_l else np.empty(0, np.int64)
    pos = np.concatenate(pos_l) if pos_l else np.empty(0, np.int32)
    pfp = np.concatenate(pfp_l) if pfp_l and pfp_l[0] is not None else None   # (None: keyed, each parent its id's state)
    if p["keyed"]: new = np.flatnonzero(fps != self.native.node_or_none(self.root))   # type: ignore[union-attr]  # (a keyed level's core)
    else: new = np.flatnonzero(fps != np.array(self.root_fp, FP) if p["once"] and self.stamped else self.visited.find(fps) < 0)
    if len(new) < len(fps): p["maybe_cycle"] = True   # a step back to a visited state (it counts at the commit)
    # the first discovery of each graph: smallest (parent id, position), as one process's breadth-first order (one part
    # lists each graph once, in that order)
    order = new if p["once"] else first_discoveries(new, par, pos, fps, graphs)
    self._pending["cut"] = bool(len(order)) and p["last"]
    if p["last"]: order = order[:0]   # nothing deeper than max_depth is made; the coordinator notes the cut
    every = len(order) == len(graphs) and p["once"]   # (one part's candidates, none visited: all, in order)
    self._pending["new"] = (fps[order], par[order], pos[order], None if pfp is None else pfp[order],
                            graphs if every else [graphs[i] for i in order.tolist()])
    st = p["stuck"]
    k_par = np.concatenate([par[order], np.array([s[0] for s in st], np.int64)])
    k_pos = np.concatenate([pos[order], np.array([s[1] for s in st], np.int32)])
    return k_par, k_pos, np.array([self._pending["cut"]])

  @_paused
  def commit(self, count: int, max_states: int | None, *keys: tuple[np.ndarray, np.ndarray, np.ndarray]) -> tuple[dict[str, Any], bytes]:
    """Keep this shard's new states, numbered from ``count`` in one process's order over every shard's ``absorb`` keys
    (``rank``: each shard ranks them all the same way, so no call waits on the coordinator's), the ones past ``max_states``
    left out; a summary (with the level's ``made``, ``dropped_at`` and ``cut``: ``rank``'s, and whether ``max_depth`` cut a
    step) and the level's record."""
    ids, made, dropped_at = rank(keys, count, max_states)
    summary, rec = self._commit(ids[self.index], (count, max_states))
    summary.update(made=made, dropped_at=dropped_at, cut=any(bool(k[2][0]) for k in keys))
    return summary, pack(rec)

  def advance(self, count: int, max_states: int | None, ahead: tuple[int, bool] | None,
              *keys: tuple[np.ndarray, np.ndarray, np.ndarray]) -> list[Any]:
    """``commit``, then the next level's ``expand(*ahead)`` in the same call (one call a level less), unless ``ahead`` is
    None or ``max_states`` cut this level: [summary, record, the expansion's summary (``expanded`` -1: none), a batch
    per shard]. An expansion the coordinator does not use (it stops there) changes nothing a report reads."""
    summary, rec = self.commit(count, max_states, *keys)
    if ahead is not None and summary["dropped_at"] is None:
      try: return [summary, rec, *self.expand(*ahead)]
      except Stopped: pass   # (the commit stands, on every shard)
    return [summary, rec, {"expanded": -1}, *[None] * self.count]

  def where(self) -> tuple[str, int]:
    """This worker's machine and process id: where the coordinator sends ``STOP_SIGNAL``."""
    return socket.gethostname(), os.getpid()

  def _on_stop(self, signum: int, frame: Any) -> None:
    """``STOP_SIGNAL``'s handler: the run's expansions and absorbs stop (``Stopped``), the one running at once."""
    self.stopping = True
    if self._in_level: raise Stopped

  def _stopped(self) -> None:
    if self.stopping: raise Stopped

  @contextlib.contextmanager
  def _stoppable(self) -> Iterator[None]:
    """A part of a level a stop leaves where it is (``Stopped``: ``_on_stop`` raises it inside); a stop before it, or
    one a rule caught inside it, raises at its edges."""
    self._stopped()
    self._in_level = True
    try: yield
    finally: self._in_level = False
    self._stopped()

  def _commit(self, ids: np.ndarray, args: tuple[int, int | None]) -> tuple[dict[str, Any], dict[str, Any]]:
    """Keep the candidates numbered ``ids`` (-1: cut by max_states), in ``absorb``'s order; the level's record (``args``:
    the commit's count and max_states, which a light one keeps)."""
    p = self._pending
    self.maybe_cycle = self.maybe_cycle or p["maybe_cycle"]
    fps, par, pos, pfp, graphs = p["new"]
    n = len(fps)
    ids_new, ids_stuck = ids[:n], ids[n:]
    kept = np.flatnonzero(ids_new >= 0)
    depth = p["depth"] + 1
    if p["keyed"]:   # fps are nodes: their fingerprints made when read (visited.py)
      par_fps = None
      self.visited.add_nodes(fps[kept], ids_new[kept], par[kept], pos[kept], depth, self._keyed)  # type: ignore[arg-type]
    else:
      par_fps = pfp[kept]
      self.visited.add(fps[kept], ids_new[kept], par_fps, pos[kept], depth)
    st = [(int(i), *p["stuck"][k]) for k, i in enumerate(ids_stuck) if i >= 0]
    new_graphs = graphs if len(kept) == n else [graphs[i] for i in kept.tolist()]
    self.expanded.append(_kept_steps(p["steps"]))   # (each step's rule: _level_record, or _rules)
    self.stuck_kept.extend((i, par_id, at, depth) for i, par_id, at in st)
    level = {"depth": depth, "ids": ids_new[kept], "fps": None if p["keyed"] else fps[kept],   # (keyed: _settle sets them)
             "parents": par[kept], "pos": pos[kept], "graphs": new_graphs,
             "stuck": st, "steps": p["steps"], "parent_fps": par_fps, "maybe_cycle": self.maybe_cycle}
    rec = self._level_record(level, (*args, p["last"]), p["batches"])
    self.frontier = Frontier.of(ids_new[kept], new_graphs)
    self._pending = {}
    return self._summary(new_graphs, ids_new[kept]), rec

  def _graph(self, h: Any) -> Any:
    """A candidate's graph as a ``UOp`` (a native worker's are its core's nodes until they leave ``expand``)."""
    return self.native.uop(h) if h.__class__ is int and self.native is not None else h

  def _summary(self, graphs: list[Any], ids: np.ndarray) -> dict[str, Any]:
    """What the coordinator reads after a level: the memory, and the new states that match the search's target."""
    target, graph, native = self.target, self._graph, self.native
    matches = [] if target is None else [(i, native.fingerprint(g) if native is not None and g.__class__ is int else self.fps.of(g))
                                         for i, g in zip(np.asarray(ids).tolist(), graphs) if target.match(graph(g)) is not None]
    return {"rss": resident_memory(), "peak": peak_memory(), "matches": matches, "visited": len(self.visited), "moved": self.moved,
            "frontier": len(self.frontier.ids),
            "table_bytes": self.visited.nbytes()}

  def _level_record(self, level: dict[str, Any], replay: tuple[int, int | None, bool] | None,
                    batches: list[tuple[int, bytes]]) -> dict[str, Any]:
    """A committed level's light record, its full one kept to be written when asked (``deferred.py``; ``replay``: the
    level's commit's count and max_states, and its expansion's ``last``; ``batches``: the other shards' batches its
    ``absorb`` read, as they were sent, with which ``restore`` makes it again)."""
    self.deferred.add(level)
    return {**{k: level[k] for k in ("depth", "ids", "parents", "pos", "stuck")}, "maybe_cycle": level.get("maybe_cycle", False),
            LIGHT: replay, "batches": batches}

  def _full_record(self, level: dict[str, Any]) -> dict[str, Any]:
    """The record of a level (``_commit``'s, ``start``'s), its rows written now; its steps' rules kept (``expanded``)."""
    steps = level["steps"]
    if steps is not None:
      redexes, steps["redex"] = resolved(steps.pop("redexes"), steps["redex"])
      rules, errors, nodes = _redex_table(redexes)
      steps.update(rules=rules, errors=errors, redex_nodes=nodes)
      self.expanded[level["depth"] - 1]["rule"] = _step_rules(steps, rules)
    rec = self._record(level["depth"], level["ids"], level["fps"], level["parents"], level["pos"], level["graphs"], level["stuck"], steps)
    rec["parent_fps"] = level["parent_fps"]
    if level["depth"] > 0: rec["maybe_cycle"] = level["maybe_cycle"]
    return rec

  def _write(self, level: dict[str, Any]) -> bytes:
    self._settle(level)   # (a keyed level's fingerprints; ``written`` took it from the pending ones)
    return pack(self._full_record(level))

  @_paused
  def full_records(self, run: str, first: int = 0, last: int | None = None) -> list[bytes] | None:
    """The full records of levels ``first`` to ``last`` (all where None) of this shard of run ``run``, those not written
    yet written now (``deferred.py``); None if this worker serves another run now."""
    if run != self.run: return None
    return self.deferred.written(len(self.expanded) + 1 if last is None else last, self._write)[first:]

  def _rules(self) -> None:
    """Each kept level's steps' rules, where the level's record is not written yet (``_full_record`` sets them)."""
    for level in self.deferred.pending():
      if level["depth"] > 0 and "rule" not in (kept := self.expanded[level["depth"] - 1]):
        steps = level["steps"]
        steps["redexes"], steps["redex"] = resolved(steps["redexes"], steps["redex"])
        kept["rule"] = _step_rules(steps, _redex_rules(steps["redexes"]))

  def _record(self, depth: int, ids: np.ndarray, fps: np.ndarray, parents: np.ndarray, pos: np.ndarray, graphs: list[Any],
              stuck: list[tuple[int, int, int]], steps: dict[str, Any] | None) -> dict[str, Any]:
    """A level's record (the checkpoint): new states with their graphs, stuck states, and the expanded states' steps
    (arrays a step: its redex in the record's table, its target's fingerprint, a failed one's stuck state; each redex
    once, its rule and error, its node and result as rows)."""
    if steps is None: steps = {"sids": np.empty(0, np.int64), "counts": np.empty(0, np.int32), "redex": np.empty(0, np.int32),
                               "target": np.empty(0, np.int32), "targets": np.empty(0, FP), "stuck": np.empty(0, np.int32),
                               "rules": np.empty(0, np.int32), "errors": {},
                               "redex_nodes": []}
    nodes = steps.pop("redex_nodes")
    # read in this order (codec.Records): the steps', then the new states' graphs; a native worker's rows made in C
    write = self.written.encode if self.native is None else functools.partial(self.written.encode_native, self.native.space)
    step_nodes = write(nodes)
    return {"depth": depth, "ids": ids, "fps": fps, "parents": parents, "pos": pos, "step_nodes": step_nodes,
            "graphs": write(graphs), "stuck": stuck, "steps": steps}

  # ---- recovery

  @_paused
  def restore(self, *records: bytes) -> None:
    """Become the shard these light records describe (its states, its frontier), as it was at the end of the last one:
    their levels made again from the program, with the arguments the run gave their calls and the batches the shard read
    (the same states, ids and steps), their full records kept to be written (``deferred.py``)."""
    recs = list(map(unpack, records))
    assert all(map(is_light, recs)), "a shard's records are light ones"
    self.start()
    for rec in recs[1:]:
      count, max_states, last = rec[LIGHT]
      self.expand(rec["depth"] - 1, last)   # (its batches to the others go unread: they read the ones the run sent)
      batches: list[Any] = [None] * self.count
      for j, b in rec["batches"]: batches[j] = b
      self._commit(_ranked(rec, self.absorb(*batches)), (count, max_states))
    self.restart_deltas()   # (the receivers read the streams of the batches the run sent, not of these)

  def restart_deltas(self) -> None:
    """Each stream to another shard starts a new epoch: the batches of this shard's last expansion were not read (it ran
    again after a restore, and the others had read the ones it made before)."""
    for stream in self.deltas.values(): stream.restart()

  # ---- the result, read where it is (after the run)

  def serves(self, run: str) -> bool:
    """True while this worker holds run ``run``'s records (no later run took it)."""
    return run == self.run

  def lookup(self, run: str, fps: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None:
    """``Visited.lookup`` of run ``run``'s states (``paths.py`` walks parents with it); None if this worker serves another run now."""
    return self.visited.lookup(fps) if run == self.run else None

  def _steps_kept(self, cut: tuple[int, int] | None) -> list[tuple[dict[str, Any], np.ndarray, np.ndarray]]:
    """Each committed level's steps, with a mask of the states the run expanded and one of their steps (``cut``: the
    states of its depth after its parent id were not, as in one process: ``max_states`` stopped the level first)."""
    out = []
    for d, st in enumerate(self.expanded):
      per_state = np.ones(len(st["sids"]), bool)
      if cut is not None and cut[0] == d: per_state = st["sids"] <= cut[1]
      out.append((st, per_state, np.repeat(per_state, st["counts"])))
    return out

  def last_targets(self, cut: tuple[int, int] | None) -> list[np.ndarray]:
    """The distinct targets of the last level's expanded steps, by owner: a bound may have left some unmade (``exists``)."""
    if not self.expanded: return [np.empty(0, FP)] * self.count
    self._settle()   # (their targets' fingerprints)
    st, _, on = self._steps_kept(cut)[-1]
    t = np.unique(st["targets"][np.unique(st["target"][on & (st["stuck"] < 0)])])
    own = np.array([owner(fp_bytes(x), self.count) for x in t], np.int64) if len(t) else np.empty(0, np.int64)
    return [t[own == j] for j in range(self.count)]

  def exists(self, *batches: np.ndarray) -> list[np.ndarray]:
    """For each shard's batch of fingerprints (``last_targets``), which are states here."""
    return [self.visited.find(b) >= 0 for b in batches]

  def all_targets(self, cut: tuple[int, int] | None) -> list[np.ndarray]:
    """The distinct targets of every expanded state's steps (failed ones left out), by owner (``ids_of``: a cycle's search)."""
    self._settle()   # (their targets' fingerprints)
    t = [st["targets"][np.unique(st["target"][on & (st["stuck"] < 0)])] for st, _, on in self._steps_kept(cut)]
    u = np.unique(np.concatenate(t)) if t else np.empty(0, FP)
    own = np.array([owner(fp_bytes(x), self.count) for x in u], np.int64) if len(u) else np.empty(0, np.int64)
    return [u[own == j] for j in range(self.count)]

  def ids_of(self, *batches: np.ndarray) -> list[np.ndarray]:
    """For each shard's batch of fingerprints (``all_targets``), the ids of the states here (-1: not made)."""
    return [self.visited.find(b) for b in batches]

  def steps_out(self, run: str, cut: tuple[int, int] | None, *found: np.ndarray) -> tuple[np.ndarray, ...] | None:
    """Every step out of the states this shard expanded to a state the run made (failed steps left out), in each state's
    order: (source ids, positions, target ids, rule indices). ``found``: this shard's ``all_targets`` by owner, then each
    owner's ``ids_of`` (nothing for a shard that is the only one)."""
    if run != self.run: return None
    self._rules()
    if not found:   # the only shard: its own
      mine = self.all_targets(cut)
      found = (*mine, *self.ids_of(*mine))
    n = len(found) // 2
    t = np.concatenate(found[:n]) if n else np.empty(0, FP)
    ids = np.concatenate(found[n:]) if n else np.empty(0, np.int64)
    order = np.argsort(t)
    t, ids = t[order], ids[order]
    out: list[list[np.ndarray]] = [[], [], [], []]
    for st, _, on in self._steps_kept(cut):
      live = on & (st["stuck"] < 0)
      src = np.repeat(st["sids"], st["counts"])
      pos = np.arange(len(src)) - np.repeat(np.cumsum(st["counts"]) - st["counts"], st["counts"])
      # each distinct target looked up once, then read a step
      dst = ids[np.minimum(np.searchsorted(t, st["targets"]), max(len(t) - 1, 0))][st["target"][live]] if len(t) else np.empty(0, np.int64)
      keep = dst >= 0
      for k, a in enumerate((src[live][keep], pos[live][keep], dst[keep], st["rule"][live][keep])): out[k].append(a)
    return tuple(np.concatenate(a) if a else np.empty(0, np.int64) for a in out)

  def fingerprints(self, run: str, ids: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """Of ``ids``, those this shard owns and their fingerprints."""
    if run != self.run: return None
    at = np.searchsorted(self.visited.ids, ids)
    ok = at < len(self.visited.ids)
    ok[ok] = self.visited.ids[at[ok]] == ids[ok]
    return ids[ok], self.visited.fps_of(ids[ok])

  def report(self, run: str, cut: tuple[int, int] | None, check: bool, *found: np.ndarray) -> dict[str, Any] | None:
    """This shard's part of the result: its normal states (ids, fingerprints), its stuck states (ids, parent fingerprints,
    positions, depths), the edges out of the states it expanded, and whether a step could close a cycle. ``check``: a
    bound may have left some of the last level's targets unmade; ``found``: this shard's ``last_targets`` by owner, then
    each owner's answer (``exists``), or nothing for a shard that is the only one (it checks its own)."""
    if run != self.run: return None
    if check and not found:
      mine = self.last_targets(cut)
      found = (*mine, *self.exists(*mine))
    pairs = list(zip(found[:len(found) // 2], found[len(found) // 2:]))
    edges = 0
    normal: list[np.ndarray] = []
    stuck_ok = {(par, at) for _, par, at, _ in self.stuck_kept}
    levels = self._steps_kept(cut)
    for k, (st, made_out, on) in enumerate(levels):
      counts = st["counts"]
      normal.append(st["sids"][made_out & (counts == 0)])
      is_stuck = st["stuck"] >= 0
      if is_stuck.any():
        owners = np.repeat(st["sids"], counts)
        edges += sum((int(s), int(a)) in stuck_ok for s, a in zip(owners[on & is_stuck], st["stuck"][on & is_stuck]))
      live = on & ~is_stuck
      if check and k == len(levels) - 1:
        t = np.concatenate([f[0] for f in pairs])
        made = np.concatenate([f[1] for f in pairs])
        order = np.argsort(t)
        t, made = t[order], made[order]
        at = np.searchsorted(t, st["targets"])
        edges += int(made[np.minimum(at, len(t) - 1)][st["target"][live]].sum()) if len(t) else 0
      else: edges += int(live.sum())
    ids = np.concatenate(normal) if normal else np.empty(0, np.int64)
    sk = sorted(self.stuck_kept)
    return {"normal": (ids, self.visited.fps_of(ids)), "edges": edges, "maybe_cycle": self.maybe_cycle,
            "stuck": (np.array([x[0] for x in sk], np.int64), self.visited.fps_of(np.array([x[1] for x in sk], np.int64)),
                      np.array([x[2] for x in sk], np.int32), np.array([x[3] for x in sk], np.int32))}

  def stats(self) -> dict[str, Any]:
    """The run's peak memory, bytes and candidates sent, CPU seconds (since ``load``), the states it owns, whether it stepped on the native core
    and how many states it stepped in Python all the same, for the bench and the tests; the run's rules and frontier go (its
    records stay, for the reports: ``lookup``, ``report``, until the worker's next run)."""
    native = self.native is not None
    self.pm = self.stepper = self.target = None   # the run is over: its rules and memo tables go, and its core unless records
    if not self.deferred.pending(): self.native = None   # not written yet name its nodes
    self.deltas, self.readers = {}, {}   # (and its streams' tables)
    self.frontier, self._pending = NO_FRONTIER, {}
    return {"peak": peak_memory(), "rss": resident_memory(), "moved": self.moved, "sent": self.sent, "cpu": time.process_time() - self.cpu0,
            "states": len(self.visited),
            "native": native, "in_python": self.in_python}
