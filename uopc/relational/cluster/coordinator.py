"""The coordinator: level-synchronous breadth-first search over S shard actors (``shard.py``).

Level by level: every shard expands its frontier and batches the successors by owner
(``expand``); each shard takes the batches sent to it and keeps the new graphs
(``absorb``, the batches moving worker to worker through Ray's object store: the
coordinator holds only their references); every shard ranks all shards' new states by
(parent id, position), which is one process's discovery order, numbers them, cuts them
at ``max_states``, and keeps its own (``commit``), and in the same call expands them
(``advance``). A level's calls, and the next level's ``absorb``, are sent at once: each
waits in Ray for the results it takes, and the coordinator reads only the summaries.
Between levels it checks ``max_depth``, ``timeout``, the caller's ``limits`` (``uopc.limits``: a command's
timeout, memory and interrupts) and every worker's memory against their ``max_memory``.
So the states, their ids, depths, first-discovery parents and steps, and the bounds are
one process's.

Each commit returns the shard's level record; the coordinator owns it (a task's return
value is its caller's), so it outlives the worker. A worker that dies mid-level is
replaced by a new one, rebuilt from its records (``Shard.restore``), and the level's
calls it missed are run again; a worker that cannot be replaced (``MAX_REVIVALS`` times,
or no room for it) ends the run with what the finished levels found
(bound ``"workers_lost"``: exit 3). An interrupt, or the caller's bound, mid-level asks the workers to leave the level
(``_stop``: a signal, which their native core looks for between states), and the run ends with the levels every shard
committed, the shards keeping them, as a bound between levels does; where a worker is out of the signal's reach (another
machine) it ends the same way as a lost one.

What the coordinator holds is small: each level's summaries (counts, the matches of a
search), the references of the records, and at the end each shard's ``report`` (its normal
forms, stuck states, edge count: ``Outcome.lean``); the records themselves stay in Ray's
object store, read only by a report that lists every state (``Outcome.levels``). The records are light ones
(``deferred.py``: what makes a shard's levels again); the full ones are written by its worker when a report asks, or
made again here from the light ones where the worker is gone (``replayed``). That needs
the cluster up after the run: a run in a Ray session it did not start (the command line's,
``session.py``; a test's) keeps it; one that starts its own cluster, or whose interrupt did
not reach every worker, or lost a worker (whose part of the result is gone: its records
remain), reads the records whole before it returns.
"""
from __future__ import annotations

import functools
import os
import socket
import sys
import time
import uuid
from dataclasses import dataclass, field
from typing import Any, Callable, NamedTuple

from uopc.bounded import StopReason
from uopc.limits import NO_LIMITS, BoundHit, Limits
from uopc.relational.cluster.codec import Codec, Encoded
from uopc.relational.cluster.deferred import is_light
from uopc.relational.cluster.errors import ClusterError, ClusterGone
from uopc.relational.cluster.session import ended_head, idle_workers, open_session
from uopc.relational.cluster.shard import STOP_SIGNAL, Shard, Stopped, unpack

MAX_REVIVALS = 3   # replacements of one shard in one run before its worker counts as lost for good
POLL = 0.05        # seconds between two looks at the caller's bounds while a level runs
SETTLE = 30.0      # seconds a call sent ahead of a dead shard's replacement gets to report its failure
LOST_SETTLE = 5.0  # the same once a shard is lost for good (a live shard's call may still run: its result is not needed)
STOP_WAIT = 1.0    # seconds to learn where an interrupted run's worker is (answered as it loaded: at once)
STOP_SETTLE = 5.0  # seconds the level's calls get to fail once the workers were asked to stop (Shard.Stopped: at once)
RUNS = [0]         # cluster runs ended in this process


class WorkersLost(Exception):
  """A shard's worker died and could not be replaced."""


class LevelLeft(BoundHit):
  """A bound stopped the run mid-level and the workers left the level (``Coordinator._stop``): each stands at the last
  level the coordinator saw committed, and reports from there."""


@dataclass
class Outcome:
  """What a cluster run found: how many states, why it stopped, where ``max_states`` cut a level (``cut``: (depth of the
  parents, id of the parent being expanded)), the search's matches ((id, fingerprint) each, in id order), and either
  ``lean`` (each shard's ``report``, the shards keeping their records: ``workers`` and ``run`` ask them) or the records
  read whole (``levels()``; ``levels()[d]`` holds each shard's record of level d)."""
  count: int
  bound: StopReason | None
  cut: tuple[int, int] | None
  matched: bool
  shards: int
  records: list[list[Any]]   # each shard's level records: references (or the records, once read)
  matches: list[tuple[int, bytes]] = field(default_factory=list)
  lean: list[dict[str, Any]] | None = None
  workers: list[Any] = field(default_factory=list)
  run: str = ""
  serial: int = 0   # ``RUNS`` when it ended: while it is the same, no later run here took its workers
  stats: list[dict[str, Any]] = field(default_factory=list)
  revived: int = 0
  elapsed: float = 0.0
  release: Callable[[], None] | None = None   # the session's lease (``session.open_session``), given back with the result
  limits: Limits = field(default=NO_LIMITS, repr=False)   # the run's caller's: reading the records is shielded by them
  replay: Callable[[int, list[bytes]], list[bytes]] | None = field(default=None, repr=False)   # ``replayed``, for this run
  _levels: list[list[dict[str, Any]]] | None = None

  def levels(self) -> list[list[dict[str, Any]]]:
    """The records of every finished level, read from the object store once (the cluster must still be up); a shard's
    light records (``deferred.py``) read as their full ones (``_full``)."""
    if self._levels is None:
      import ray
      with self.limits.shield():
        recs = []
        for j, refs in enumerate(self.records):
          got = list(map(unpack, blobs := ray.get(refs)))
          recs.append(list(map(unpack, self._full(j, 0, len(got), blobs))) if got and is_light(got[0]) else got)
      depth = min(len(r) for r in recs) if recs else 0
      self._levels = [[recs[j][d] for j in range(self.shards)] for d in range(depth)]
    return self._levels

  def level(self, d: int) -> list[dict[str, Any]]:
    """Each shard's record of level ``d`` (a light one read as its full one, ``_full``)."""
    import ray
    with self.limits.shield():
      recs = [unpack(b) for b in ray.get([r[d] for r in self.records])]
      return [unpack(self._full(j, d, d + 1)[0]) if is_light(rec) else rec for j, rec in enumerate(recs)]

  def _full(self, j: int, first: int, last: int, light: list[bytes] | None = None) -> list[bytes]:
    """Shard ``j``'s full records of levels ``first`` to ``last``, its records being light: written by its worker (which
    holds what they are written from: an interrupted run's waits for the call it runs), or where the worker is gone
    (lost, or serving a later run), made again here from the light records (``light``: read if None)."""
    import ray
    from ray.exceptions import RayActorError
    if j < len(self.workers):
      try: got = ray.get(self.workers[j].full_records.remote(self.run, first, last))
      except RayActorError: got = None
      if got is not None: return got
    assert self.replay is not None, "a run with light records says how to make them again"
    return self.replay(j, ray.get(self.records[j]) if light is None else light)[first:last]


def replayed(program: Encoded, pm_blob: bytes, target_blob: bytes | None, native: bool, run: str, count: int, index: int,
             light: list[bytes]) -> list[bytes]:
  """The full records of shard ``index`` of ``count`` made again in this process from its light records (its worker is
  gone): a shard loaded here, its levels made again (``Shard.restore``), its records written."""
  shard = Shard()
  if (err := shard.load(index, count, program, pm_blob, target_blob, run=run, native=native, worker=False)) is not None: raise ClusterError(err)
  shard.restore(*light)
  got = shard.full_records(run)
  assert got is not None, "a shard made here serves its run"
  return got


def ship(obj: Any, what: str) -> bytes:
  """``obj`` pickled for the workers, rules files' functions by value (a ``file.py:attr`` module is not importable there)."""
  from ray import cloudpickle
  for name, mod in list(sys.modules.items()):
    if name.startswith("uopc_rules.") and mod is not None: cloudpickle.register_pickle_by_value(mod)
  try: return cloudpickle.dumps(obj)
  except Exception as e: raise ClusterError(f"{what} cannot be sent to the workers: {type(e).__name__}: {e}") from None


def _settle(calls: list[list[Any]], timeout: float | None = None) -> None:
  """Read the results of calls sent ahead that a dead shard's missing input made fail (so Ray does not print each as an
  unhandled error when its reference goes); each failed already, or fails at once."""
  import ray
  for ref in (r for refs in calls for r in refs):
    try: ray.get(ref, timeout=SETTLE if timeout is None else timeout)
    except Exception: pass   # the failure it stands for was handled: the phase runs again


@dataclass
class _Found:
  """What a run's finished levels found, as its search goes (``Coordinator._search``)."""
  count: int = 1   # states made (the program's first)
  bound: StopReason | None = None
  cut: tuple[int, int] | None = None
  matched: bool = False
  depth: int = 0   # the next level's
  summaries: list[dict[str, Any]] = field(default_factory=list)   # the last level's commit summaries
  matches: list[tuple[int, bytes]] = field(default_factory=list)
  ahead: Ahead | None = None   # what the last level sent for the next one


class Ahead(NamedTuple):
  """What a level sent for the next one: its ``advance`` calls (their results from the fourth on: the next level's
  batches), the next level's ``absorb`` calls (None: to be sent), and the references of their keys."""
  calls: list[list[Any]]
  absorbs: list[list[Any]] | None
  keys: list[Any]


class Coordinator:
  """One run on the cluster (module doc). ``kill``: a test's hook, called as ``kill(depth, phase, actors)`` before each phase.
  ``progress(count)``: called with the states found so far as each level after the program's is committed."""

  def __init__(self, root: Any, pm: Any, *, max_states: int | None, max_depth: int | None, timeout: float | None,
               target: Any = None, stop_at_match: bool = False, measure: bool = False,
               kill: Callable[[int, str, list[Any]], None] | None = None, native: bool | None = None,
               limits: Limits = NO_LIMITS, progress: Callable[[int], None] | None = None) -> None:
    from uopc.relational import native as nat
    self.root, self.max_states, self.max_depth, self.timeout, self.limits = root, max_states, max_depth, timeout, limits
    # the workers' core, decided here (this process's UOPC_NATIVE): each uses it where it is built and applies
    self.native = nat.enabled() if native is None else native
    self.stop_at_match, self.measure, self.kill, self.progress = stop_at_match, measure, kill, progress
    self.program = Codec([]).encode([root])
    self.pm_blob = ship(pm, "the rule set")
    self.target_blob = ship(target, "the search target") if target is not None else None
    self.revived = 0
    self._stopped_at: float | None = None   # when a bound asked the workers to stop (_wait), and the bound
    self._why: StopReason = "interrupted"
    self.run_id = uuid.uuid4().hex   # the shards' records of this run: a worker that serves a later one says so

  def run(self, cluster: str) -> Outcome:
    """Explore on ``cluster`` (``session.parse_cluster``) to the end or a bound.

    It runs shielded (``limits.shield()``): a bound's handler raising inside Ray's C code would be a ``SystemError``, not
    a ``BoundHit`` (and one raised in a finalizer is lost). The waits poll (``POLL``) and stop at once when the caller's
    ``limits`` have a bound (``Limits.take``)."""
    with self.limits.shield():
      self.limits.phase("start-up")   # Ray's start and the shards' loading: not the search's time (uopc.limits)
      n, release = open_session(cluster, self.limits)
      try: out = self._run(n)
      except BaseException:
        if release is not None: release()
        raise
    if out.lean is None and release is not None: release()   # read whole: the cluster may go
    else: out.release = release
    return out

  def _wait(self, ref: Any) -> Any:
    """``ray.get(ref)``, looking at the caller's bounds every ``POLL`` seconds. A bound asks the workers to leave their
    level (``_stop``), and their calls end: one that left it raises ``LevelLeft`` here (one that had committed its level
    returns, and the run stops before the next: ``_stop_reason``). Where none could be asked, or the calls do not end
    within ``STOP_SETTLE`` seconds, the bound raises ``BoundHit``."""
    import ray
    while True:
      done, _ = ray.wait([ref], timeout=POLL)
      if self._stopped_at is None and (why := self.limits.take()) is not None:
        if not self._stop(): raise BoundHit(why)
        self._stopped_at, self._why = time.monotonic(), why
      if done:
        try: return ray.get(ref)
        except Stopped:
          if self._stopped_at is None: raise
          raise LevelLeft(self._why) from None
      if self._stopped_at is not None and time.monotonic() > self._stopped_at + STOP_SETTLE: raise BoundHit(self._why)

  def _new_shard(self, idle: bool = True) -> Any:
    """A worker for a shard: an idle one of this Ray session's (``idle``), else a new one; ``_load`` loads it."""
    import ray
    if idle and (pool := idle_workers()): return pool.pop()
    cpus = 1 if ray.cluster_resources().get("CPU", 0) >= self.n else 0   # more shards than CPUs (a bench): they share
    return ray.remote(num_cpus=cpus, max_restarts=0, scheduling_strategy="SPREAD")(Shard).remote()

  def _load(self, which: list[int]) -> None:
    """Load shards ``which`` for this run (an idle worker that died since is replaced by a new one)."""
    import ray
    from ray.exceptions import RayActorError
    def load(j: int) -> Any:
      return self.shards[j].load.remote(j, self.n, self.program, self.pm_blob, self.target_blob, self.measure, self.run_id, self.native)
    for j, ref in [(j, load(j)) for j in which]:
      try: err = ray.get(ref)
      except RayActorError:
        self.shards[j] = self._new_shard(idle=False)
        err = ray.get(load(j))
      if err is not None: raise ClusterError(err)
      self.places[j] = self.shards[j].where.remote()   # (answered before its first level's calls)

  def _run(self, n: int) -> Outcome:
    """The run in named phases: ``_prepare`` (the shards, loaded), ``_search`` (the levels, each after one check of the
    bounds: ``_stop_reason``), and ``_wind_up`` (the outcome, shielded). An interrupt, or a worker lost for good, ends
    the search with what the finished levels found."""
    t0 = time.perf_counter()
    self._prepare(n)
    self.limits.phase("search")
    found = _Found()
    interrupted = lost = False
    try: self._search(found, None if self.timeout is None else time.monotonic() + self.timeout)
    except LevelLeft as e: found.bound = e.reason   # the workers left their level (_wait): they report what the finished levels found
    except BoundHit as e: found.bound, interrupted = e.reason, True   # ... or they could not be asked: the records read whole
    except WorkersLost: found.bound, lost = "workers_lost", True
    except ClusterGone as e:   # what the finished levels found was the cluster's: their count is all that is left
      raise ClusterGone(f"{e}; the {found.count:,} states its finished levels found were held there and are lost") from None
    with self.limits.shield(): out = self._wind_up(found, interrupted, lost)   # from here on the run winds up
    out.elapsed = time.perf_counter() - t0
    return out

  def _stop(self) -> bool:
    """Ask every worker to leave its level (``shard.STOP_SIGNAL``), so a bound's report is out without waiting for the level
    to end (a one-worker run's level 8 of the sum of 8 PARAMs under commutativity and associativity: 13 s). True if
    each was asked; a worker on another machine is out of this signal's reach."""
    import ray
    here, asked = socket.gethostname(), 0
    for ref in self.places:
      try: host, pid = ray.get(ref, timeout=STOP_WAIT)
      except Exception: continue   # (a worker that died)
      if host != here: continue
      try: os.kill(pid, STOP_SIGNAL)
      except OSError: continue   # gone already
      asked += 1
    return asked == self.n

  def _prepare(self, n: int) -> None:
    """``n`` shards, loaded with this run's program and rules, and their (empty) records."""
    import ray
    self.n = n
    RUNS[0] += 1
    with self.limits.shield():
      self.shards = [self._new_shard() for _ in range(n)]
      self.places: list[Any] = [None] * n   # each shard's worker's (machine, process id): Shard.where, for _stop
      try: self._load(list(range(n)))
      except BaseException:   # a rule set the workers cannot load: they hold their CPUs until their handles go, so now
        for a in self.shards: ray.kill(a)
        raise
    self.records: list[list[Any]] = [[] for _ in range(n)]   # each shard's level records (references), oldest first
    self.revivals = [0] * n

  def _search(self, found: _Found, deadline: float | None) -> None:
    """The program's level, then level after level until none is left, a match ends a search that stops at one, or a
    bound (``found.bound``); ``found`` holds what the finished levels found, also when a level raises."""
    first: list[Any] = [None] * self.n
    self._phase("start", 0, lambda j: self.shards[j].start.options(num_returns=2).remote(), out=first)
    found.summaries = first
    found.matches.extend(m for s in first for m in s["matches"])
    while True:
      if self.stop_at_match and any(s["matches"] for s in found.summaries): found.matched = True; return
      if not any(s["frontier"] for s in found.summaries): return
      if (why := self._stop_reason(found.summaries, deadline)) is not None or (why := self._next_level(found)) is not None:
        found.bound = why
        return

  def _stop_reason(self, summaries: list[dict[str, Any]], deadline: float | None) -> StopReason | None:
    """The bound that stops the run before the next level, if any: its own timeout, the caller's ``limits`` (also a
    worker's memory past their ``max_memory``)."""
    if deadline is not None and time.monotonic() > deadline: return "timeout"
    if (why := self.limits.take()) is not None: return why
    if (most := self.limits.max_memory) is not None and any(s["rss"] > most for s in summaries): return "max_memory"
    return None

  def _next_level(self, found: _Found) -> StopReason | None:
    """Run level ``found.depth`` and add what it found; the bound that cut it (``max_states``, ``max_depth``), if any."""
    depth = found.depth
    last = self.max_depth is not None and depth >= self.max_depth
    self._last_expand, self._count = (depth, last), found.count
    # the next level's expansion goes with this level's commit, where the run goes on unless a bound stops it
    self._ahead = None if last or self.stop_at_match else (depth + 1, self.max_depth is not None and depth + 1 >= self.max_depth)
    summaries, found.ahead = self._level(depth, found.ahead)
    found.summaries = summaries
    bound: StopReason | None = None
    if (dropped_at := summaries[0]["dropped_at"]) is not None: found.cut, bound = (depth, dropped_at), "max_states"
    found.matches.extend(sorted(m for s in summaries for m in s["matches"]))   # a level's ids follow the last level's
    found.count += summaries[0]["made"]
    found.depth += 1
    if self.progress is not None: self.progress(found.count)
    if bound is None and last and summaries[0]["cut"]: bound = "max_depth"
    return bound

  def _wind_up(self, found: _Found, interrupted: bool, lost: bool) -> Outcome:
    """The run's ``Outcome``: lean (the shards keep their records and report) unless the run was interrupted or lost a
    worker (the records read whole: the shards' parts are gone); the workers stay for the next run unless interrupted."""
    import ray
    out = Outcome(found.count, found.bound, found.cut, found.matched, self.n, self.records, run=self.run_id, revived=self.revived,
                  limits=self.limits, workers=list(self.shards),
                  replay=functools.partial(replayed, self.program, self.pm_blob, self.target_blob, self.native, self.run_id, self.n))
    if interrupted or lost:
      levels = out.levels()
      if found.cut is not None and found.cut[0] + 1 >= len(levels): out.cut = None   # its level was not committed
      out.count = sum(len(r["ids"]) + len(r["stuck"]) for lv in levels for r in lv)
      out.matches = [m for m in found.matches if m[0] < out.count]
    else:
      out.matches, out.serial = found.matches, RUNS[0]
      out.lean = self._report(ray, found.cut, found.bound)
    if interrupted:   # their level's calls may still run: the workers go
      for a in self.shards: ray.kill(a)
    else:
      out.stats = self._stats(ray)
      if self._stopped_at is None:   # (a stopped worker goes with the result: the signal may yet reach it)
        idle_workers().extend(a for a, st in zip(self.shards, out.stats) if st)   # the next run's
    return out

  def _report(self, ray: Any, cut: tuple[int, int] | None, bound: str | None) -> list[dict[str, Any]]:
    """Each shard's ``report``. Where a bound cut the last level (``max_states``, ``max_depth``) some of its steps' targets
    were not made: each shard first asks their owners which were (the fingerprints moving worker to worker)."""
    shards, n = self.shards, self.n
    check = cut is not None or bound == "max_depth"
    found: list[list[Any]] = [[] for _ in range(n)]
    if check and n > 1:   # (one shard checks its own)
      targets = [a.last_targets.options(num_returns=n).remote(cut) for a in shards]
      made = [a.exists.options(num_returns=n).remote(*[targets[i][j] for i in range(n)]) for j, a in enumerate(shards)]
      found = [[targets[j][i] for i in range(n)] + [made[i][j] for i in range(n)] for j in range(n)]
    reports = ray.get([a.report.remote(self.run_id, cut, check, *found[j]) for j, a in enumerate(shards)])
    assert all(r is not None for r in reports), "a shard of this run serves another"
    return reports

  # ---- the phases of a level

  def _level(self, depth: int, ahead: Ahead | None) -> tuple[list[Any], Ahead | None]:
    """One level: every shard's ``expand`` and ``absorb`` (unless ``ahead``: they went with the last level, the expansion
    in its commit's call), and ``advance`` (its commit, and the next level's expansion: ``self._ahead``), with the next
    level's ``absorb`` after it, all sent at once (each call waits in Ray for the results it takes, not here), then read
    phase by phase. A shard that died is replaced and brought to the phase it missed (``_phase``); the later phases'
    calls, sent with what it would have given, go again. The commit summaries, and what was sent for the next level."""
    n = self.n
    sent: dict[str, list[list[Any]] | None] = {}
    if ahead is None:
      self.batches: list[Any] = [None] * n
      self._keys: list[Any] = [None] * n
      sent["expand"] = self._send("expand", depth, self._expand)
      sent["absorb"] = self._send("absorb", depth, self._absorb)
    else:
      self.batches, self._keys = [refs[3:] for refs in ahead.calls], ahead.keys
      sent["absorb"] = ahead.absorbs if ahead.absorbs is not None else self._send("absorb", depth, self._absorb)
    sent["commit"] = commits = self._send("commit", depth, self._advance)
    following: Ahead | None = None
    if self._ahead is not None:   # the next level's absorbs, waiting in Ray on this level's expansions
      following = Ahead(commits, None, [None] * n)
      def absorb_next(j: int, nxt: Ahead = following) -> list[Any]:
        refs = [self.shards[j].absorb.remote(*[nxt.calls[i][3 + j] for i in range(n)])]
        nxt.keys[j] = refs[0]
        return refs
      following = following._replace(absorbs=self._send("absorb", depth + 1, absorb_next))
    out: list[Any] = [None] * n
    try:
      again = self._phase("expand", depth, self._expand, refs=sent["expand"])[0] if ahead is None else False
      if again: _settle(sent.pop("absorb") or [])
      again, _ = self._phase("absorb", depth, self._absorb, refs=sent.pop("absorb", None))
      if again: _settle(sent.pop("commit") or [])
      again, done = self._phase("commit", depth, self._advance, refs=sent.get("commit"), out=out)
    except WorkersLost:   # the calls sent ahead that wait on the lost shard fail now
      for calls in [*sent.values(), following.absorbs if following is not None else None]: _settle(calls or [], LOST_SETTLE)
      raise
    if following is None: return out, None
    if again or following.calls is not done:   # a shard's commit went again: the absorbs sent ahead read what it did not give
      _settle(following.absorbs or [])
      return out, Ahead(done, None, [None] * n)
    return out, following

  def _send(self, phase: str, depth: int, call: Callable[[int], list[Any]]) -> list[list[Any]]:
    """Every shard's call of ``phase`` (the test hook ``kill`` first)."""
    if self.kill is not None: self.kill(depth, phase, self.shards)
    return [call(j) for j in range(self.n)]

  def _expand(self, j: int) -> list[Any]:
    """Shard ``j`` expands; its batches stay in the object store (``self.batches[j][i]``: for shard ``i``)."""
    depth, last = self._last_expand
    refs = self.shards[j].expand.options(num_returns=self.n + 1).remote(depth, last)
    self.batches[j] = refs[1:]
    return refs

  def _absorb(self, j: int) -> list[Any]:
    refs = [self.shards[j].absorb.remote(*[self.batches[i][j] for i in range(self.n)])]
    self._keys[j] = refs[0]
    return refs

  def _advance(self, j: int) -> list[Any]:
    return self.shards[j].advance.options(num_returns=self.n + 3).remote(self._count, self.max_states, self._ahead, *self._keys)

  def _phase(self, phase: str, depth: int, call: Callable[[int], list[Any]], refs: list[list[Any]] | None = None,
             out: list[Any] | None = None) -> tuple[bool, list[list[Any]]]:
    """Wait for every shard's call of ``phase`` (``refs``: sent already, else sent now), its first reference being what is
    read (into ``out``); for the start and the commit phases, its second is the level's record, kept. A dead shard is
    replaced and its missed calls of this level run again. True if one was (the later phases' calls must go again), and
    the calls read."""
    from ray.exceptions import RayActorError
    if refs is None: refs = self._send(phase, depth, call)
    commit = phase in ("start", "commit")
    again = False
    for j in range(self.n):
      while True:
        try:
          got = self._wait(refs[j][0])
          break
        except RayActorError:
          again = True
          self._revive(j, phase)
          refs[j] = call(j)
      if out is not None: out[j] = got
      if commit: self.records[j].append(refs[j][1])
    return again, refs

  def _revive(self, j: int, phase: str) -> None:
    """Replace shard ``j`` by a new worker rebuilt from its records, and bring it to ``phase`` of this level."""
    import ray
    if (ended := ended_head()):   # no worker can start, no record be read: Ray would retry for a minute, then abort
      raise ClusterGone(f"--cluster: the Ray cluster this run started ended under it ({' and '.join(ended)} gone: killed from outside?)")
    self.revivals[j] += 1
    if self.revivals[j] > MAX_REVIVALS: raise WorkersLost(j)
    try: ray.kill(self.shards[j])
    except Exception: pass   # dead already
    try:
      self.shards[j] = self._new_shard(idle=False)
      self._load([j])
      a = self.shards[j]
      ray.get(a.restore.remote(*self.records[j]))
    except ClusterError: raise
    except Exception as e: raise WorkersLost(j) from e
    self.revived += 1
    if phase in ("absorb", "commit"):   # its pending expansion again (the batches it sent the others stand: the same
      d, last = self._last_expand     # graphs; its streams to them start again, as these batches go unread)
      ray.get(a.expand.options(num_returns=self.n + 1).remote(d, last)[0])
      ray.get(a.restart_deltas.remote())
    if phase == "commit": ray.get(self._absorb(j)[0])   # (its keys the same: the other shards' commits stand)

  def _stats(self, ray: Any) -> list[dict[str, Any]]:
    out = []
    for a in self.shards:
      try: out.append(ray.get(a.stats.remote(), timeout=10))
      except Exception: out.append({})
    return out
