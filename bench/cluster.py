"""The explorer on a local Ray cluster of 1 and 2 workers against one process (``docs/scaling.md``): ``python -m bench cluster``.

The first table (issue 41): each workload explored by one process (``Exploration.run``, the native core) and on a local
cluster of one worker and of two (``ClusterExploration.run``, native workers), in one Ray session of 2 CPUs, the three
interleaved round after round (ROUNDS, 3 by default), each on a program of its own (fresh PARAM slots); the best round of
each. CPU seconds: this process's for one process, each worker's own for the cluster (``Shard.stats``: from its
``load``, so a run's whole work on it, the coordinator's apart). "1 worker / one" is what a cluster of one costs against
one process; "speed-up" is one process's CPU over the busiest of two workers' (what wall time would be on two idle cores,
waits aside), and by wall time; "rounds" the least and the most of the rounds' own speed-ups by CPU (one process
over the busiest worker of the same round: on a shared machine a column's best rounds may be minutes apart), and
"medians" the median of the rounds' own ratios, one worker over one process and the speed-up (less moved by one lucky
round than a column's best);
"balance" is the states the busier of the two owns over half of them (1.00: even). The rule
set: commutativity and associativity of ``+`` (``x + y -> y + x``, ``(x + y) + z -> x + (y + z)``) on the sum of n
PARAMs, some of them the same one (``terms``: "7, p0 x3" is p0 + p0 + p0 + p1 + ... + p4), n! / (the repeats' factorials)
* Catalan(n - 1) states: 120, 1,680, 30,240, 110,880 and 332,640. The same two rules behind a guard no template takes
(``guarded c + a``: ``y + x if x.op is not Ops.SIN else None``, true of every node here), so that the native core calls
Python for every node's redexes and a state costs one process about 30 µs, not 3: the states the cluster is for
(docs/scaling.md), at 1,680 to 332,640 states. The small sizes find the crossover: the states a worker
must have for two workers to beat one process (the first size whose speed-up by CPU passes 1). ``RULES=guarded`` (a
prefix of the rules' name) runs only those rows. ``ZERO=1`` adds ``x + 0``
and commutativity on the sum of n ``p_i + 0`` (3^n * 2^(n-1): 648 to 139,968 states); ``BIG=1`` the sum of 7 distinct
under commutativity and associativity (665,280 states). The machine's load average is printed before and after.
``AGAINST=tree`` measures another checkout's code beside this one's: each round in a process of its own (a copy of this
file run with that tree's code on the path), the two trees' rounds in turn, the first of each pair alternating; each
size is printed twice, "before" (the other tree) and "after".

The second table counts instead of timing (``shard_work``): the sizes of 30,240 and 110,880 states explored by one
shard and by two in this process, level by level as the coordinator drives them, and what each shard's core made:
nodes, step-map entries (a node's steps: the maps' work), nodes whose rules ran in Python, nodes bound to a UOp, and
candidates sent (no clock: a count moves only with the programs' PARAM slots, by about 1%). Each of two makes nearly every
node (its states' successors are nearly every state) and 57% of the map entries (the inner nodes below both shards'
states: each makes their maps), so while the maps are the work two workers gain at most one shard's entries over the
busier one's ("maps bound", about 1.77x), before fingerprints and moves. Where the rules run in Python, each of two
matches half the nodes but makes a UOp of 93% of them (a match needs the UOps of everything below its node). Two shards
in this process share uopc's hash-consing tables, so the second finds most of those UOps made: the count is each core's,
but only a worker of its own process pays for every one of them, which is why this table counts and does not time.

``FULL=1`` runs the older tables after it:

For each worker count P a local cluster is started (``ray.init(num_cpus=P)``, not timed), its workers by a tiny run
(not timed), and each workload explored once timed (``ClusterExploration.run`` and its state count: the levels, and
each shard's report read) and once more counting the bytes of every batch the workers send each other (pickling each
again: that run is not timed). Columns: wall seconds and states a second of the timed run; the CPU seconds of the
busiest worker (what wall time would be on P idle cores, waits aside) and of this process (the coordinator: ranking
each level); states sent to another worker per state (f); bytes sent per state; each worker's peak memory. One process
is the explorer on the shards' own core, the Python one
(``native=False``); the native core's time is beside it for reference.

The model is ``docs/scaling.md``'s: P workers each make 1/P of the states and move f of them at m µs each, so
speed-up(P) = P*g / (g + f*m), g being one process's CPU a state; "design" is that with the design's m = 28 µs. A
worker costs more than one process a state even alone (fingerprints, the level's records): o µs more, measured at
P = 1; "here" is P*g / (g + o + f*m) with m this run's, (all workers' CPU at P, less one worker's at P = 1) / states
sent. Break-even is the g (a rule set's cost a state) past which P workers beat one: (o + f*m) / (P - 1).

Workloads: the sum of 12 ``p_i + 0`` under ``x + 0`` (4,096 states: cheap) and the sum of 4 ``(p_i + 0) * 1`` under
``symbolic`` (26,685 states: expensive), then the largest run here, the sum of 16 ``p_i + 0`` under ``x + 0`` on 2
workers (65,536 states).

Last, the coordinator's memory: ``uopc explore normal-forms --no-reduce --cluster local:2`` on the sums of 14 and 16
``p_i + 0`` (16,384 and 65,536 states), each in a fresh process, its peak resident set (``memory.peak_memory``: Ray's client
alone is about 100 MB of it); beside it the same with ``--format json``, which lists every state and so builds them all
in the coordinator, and one process without ``--cluster``. ``BIG=18`` adds the sum of 18 (262,144 states).
"""
from __future__ import annotations

import os
import statistics
import sys
import time
from typing import Any, Callable, NamedTuple

if __package__ in (None, ""):   # run by its path, from any directory: the repository's root first, and
  _here = os.path.dirname(os.path.abspath(__file__))   # not bench/ itself, whose kanren.py would shadow the kanren package
  sys.path[:] = [os.path.dirname(_here), *(p for p in sys.path if os.path.abspath(p or ".") != _here)]

from uopc import PatternMatcher, UOp, UPat, symbolic
from uopc.ops import Ops
from uopc.relational import Exploration

DESIGN_M = 28.0   # µs to move a state, both ends: docs/scaling.md's measure of the multiprocessing prototype
WORKERS = (1, 2, 4)
x = UPat.var("x")


class Workload(NamedTuple):
  name: str
  program: Callable[[], UOp]
  rules: Callable[[], PatternMatcher]


_slots = iter(range(600_000_000, 10**9, 100_000))   # fresh PARAM slots per program: hash consing would hand a later run the
                                                   # nodes an earlier one made (a worker serves run after run)


def add0_sum(k: int, first: int | None = None) -> UOp:
  """(p0 + 0) + (p1 + 0) + ... + (p{k-1} + 0) from slot ``first`` (fresh slots if None): 2^k states under ``x + 0``."""
  base = next(_slots) if first is None else first
  g = UOp.param(base) + 0
  for i in range(1, k): g = g + (UOp.param(base + i) + 0)
  return g


def unit_sum(k: int) -> UOp:
  """The sum of k ``(p_i + 0) * 1`` (fresh slots): under ``symbolic`` every rule tries every node."""
  base = next(_slots)
  return sum(((UOp.param(base + i) + 0) * 1 for i in range(1, k)), (UOp.param(base) + 0) * 1)


def zero() -> PatternMatcher: return PatternMatcher([(x + 0, lambda x: x)], name="add0")


WORKLOADS = [Workload("x + 0, 12 terms", lambda: add0_sum(12), zero), Workload("symbolic, 4 terms", lambda: unit_sum(4), lambda: symbolic)]
LARGEST = Workload("x + 0, 16 terms", lambda: add0_sum(16), zero)


class One(NamedTuple):
  states: int
  cpu: float    # seconds, the Python core
  native: float


def one_process(work: Workload) -> One:
  """Both cores' CPU seconds, each on a program of its own (fresh nodes, as a worker makes them)."""
  root, pm = work.program(), work.rules()
  c0 = time.process_time()
  n = len(Exploration(root, pm, max_states=None, native=False).run().states)
  c1 = time.process_time()
  Exploration(work.program(), pm, max_states=None).run()
  return One(n, c1 - c0, time.process_time() - c1)


class Run(NamedTuple):
  states: int
  wall: float
  busiest: float          # CPU seconds of the busiest worker
  workers_cpu: float      # CPU seconds of all workers
  coordinator: float      # CPU seconds of this process
  sent: int
  moved: int              # bytes (the measuring run's)
  peaks: list[int]


CORES = ("python", "native")   # the workers' core: the Python Stepper and fingerprints, or the native core's (native_steps.py)


def on_cluster(work: Workload, workers: int, core: str) -> Run:
  from uopc.relational.cluster import ClusterExploration
  root, pm, native = work.program(), work.rules(), core == "native"
  ClusterExploration(add0_sum(2), pm, cluster=f"local:{workers}", native=native).run()   # the workers start (not timed): a tiny run
  t0, c0 = time.perf_counter(), time.process_time()
  ex = ClusterExploration(root, pm, cluster=f"local:{workers}", max_states=None, native=native).run()
  wall, coord = time.perf_counter() - t0, time.process_time() - c0
  stats = ex.outcome.stats
  moved = ClusterExploration(root, pm, cluster=f"local:{workers}", max_states=None, measure=True, native=native).run().outcome.stats
  return Run(ex.state_count, wall, max(s["cpu"] for s in stats), sum(s["cpu"] for s in stats), coord,
             sum(s["sent"] for s in stats), sum(s["moved"] for s in moved), [s["peak"] for s in stats])


def _cluster(workers: int) -> Any:
  import logging
  import ray
  os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
  ray.init(num_cpus=workers, include_dashboard=False, log_to_driver=False, logging_level=logging.ERROR)
  return ray


def main() -> None:
  try: import ray  # noqa: F401  # the extra
  except ImportError:
    print("bench cluster: Ray is not installed (pip install -e '.[cluster]')")
    return
  against_one()
  shard_work()
  if os.environ.get("FULL"): older()


def older() -> None:
  """The tables before issue 41 (module doc): 1, 2 and 4 workers, on each core, the model, the coordinator's memory."""
  print("the explorer on a local Ray cluster (this machine: 2 cores, shared): one timed run each")
  ones = {w.name: one_process(w) for w in WORKLOADS}
  runs: dict[tuple[str, str, int], Run] = {}
  for p in WORKERS:
    ray = _cluster(p)
    try:
      for core in CORES:
        for w in WORKLOADS: runs[w.name, core, p] = on_cluster(w, p, core)
      if p == 2: runs[LARGEST.name, "native", p] = on_cluster(LARGEST, p, "native")
    finally: ray.shutdown()
  print(f"{'workload':20s} {'core':>6s} {'P':>2s} {'states':>7s} {'wall s':>7s} {'st/s wall':>10s} {'busiest CPU s':>14s} {'st/s CPU':>9s} "
        f"{'coord CPU s':>12s} {'f':>5s} {'B/state':>8s} {'peak MB a worker':>17s}")
  for w in [*WORKLOADS, LARGEST]:
    for core in CORES:
      if w.name in ones:
        o = ones[w.name]
        cpu = o.cpu if core == "python" else o.native
        print(f"{w.name:20s} {core:>6s} {'1p':>2s} {o.states:7,d} {'':>7s} {'':>10s} {cpu:14.2f} {o.states / cpu:9,.0f}   (one process)")
      for p in WORKERS:
        if (r := runs.get((w.name, core, p))) is None: continue
        if w.name in ones: assert r.states == ones[w.name].states, (w.name, p, r.states)
        peaks = "/".join(f"{b / 2**20:.0f}" for b in r.peaks)
        print(f"{'':20s} {core:>6s} {p:2d} {r.states:7,d} {r.wall:7.2f} {r.states / r.wall:10,.0f} {r.busiest:14.2f} {r.states / r.busiest:9,.0f} "
              f"{r.coordinator:12.2f} {r.sent / r.states:5.2f} {r.moved / r.states:8.0f} {peaks:>17s}")
  print()
  print("speed-up against one process on the same core, by the busiest worker's CPU and by wall time, and the model")
  print("g: one process's CPU a state; o: what a worker adds to it alone (P = 1: fingerprints, records); m: the CPU a state sent adds, "
        "(all workers' CPU at P, less one worker's at P = 1) / states sent; f: states sent a state")
  print("model: P*g / (g + o + f*m) (the design's: o = 0, m = 28 µs); break-even: the g above which P workers beat one, (o + f*m) / (P - 1)")
  print(f"{'workload':20s} {'core':>6s} {'P':>2s} {'g µs':>6s} {'o µs':>6s} {'m µs':>6s} {'f':>5s} {'break-even: design':>19s} {'here':>6s} "
        f"{'model: design':>14s} {'here':>6s} {'measured: CPU':>14s} {'wall':>6s}")
  for w in WORKLOADS:
    for core in CORES:
      o1 = ones[w.name]
      one = o1.cpu if core == "python" else o1.native
      g = one / o1.states * 1e6
      o = runs[w.name, core, 1].workers_cpu / o1.states * 1e6 - g
      for p in WORKERS:
        r = runs[w.name, core, p]
        f = r.sent / r.states
        m = (r.workers_cpu - runs[w.name, core, 1].workers_cpu) / r.sent * 1e6 if r.sent else 0.0
        even = (f"{f * DESIGN_M / (p - 1):17.1f} µs {(o + f * m) / (p - 1):6.1f}" if p > 1 else f"{'-':>20s} {'-':>6s}")
        print(f"{w.name:20s} {core:>6s} {p:2d} {g:6.1f} {o:6.1f} {m:6.1f} {f:5.2f} {even} {p * g / (g + f * DESIGN_M):13.2f}x "
              f"{p * g / (g + o + f * m):5.2f}x {one / r.busiest:13.2f}x {one / r.wall:5.2f}x")

  coordinator_memory()


def comm_assoc() -> PatternMatcher:
  y, z = UPat.var("y"), UPat.var("z")
  return PatternMatcher([(x + y, lambda x, y: y + x), ((x + y) + z, lambda x, y, z: x + (y + z))], name="comm_assoc")


def guarded() -> PatternMatcher:
  """``comm_assoc``'s two rules behind a guard (``x.op is not Ops.SIN``, true of every node here) that makes them no template
  the native core runs in C: it calls Python for every node's redexes, and a state costs one process about 30 µs, ten
  times the templates' (docs/scaling.md: the states the cluster is for)."""
  y, z = UPat.var("y"), UPat.var("z")
  def comm(x: UOp, y: UOp) -> UOp | None: return y + x if x.op is not Ops.SIN else None
  def assoc(x: UOp, y: UOp, z: UOp) -> UOp | None: return x + (y + z) if x.op is not Ops.SIN else None
  return PatternMatcher([(x + y, comm), ((x + y) + z, assoc)], name="guarded")


def zero_comm() -> PatternMatcher:
  y = UPat.var("y")
  return PatternMatcher([(x + 0, lambda x: x), (x + y, lambda x, y: y + x)], name="add0_comm")


def param_sum(n: int, repeats: int = 1) -> UOp:
  """p0 + p1 + ... (fresh slots), left-nested, n terms of which the first ``repeats`` are the same PARAM."""
  base = next(_slots)
  terms = [UOp.param(base + max(0, i - repeats + 1)) for i in range(n)]
  return sum(terms[1:], terms[0])


class Size(NamedTuple):
  rules: str
  n: int
  program: Callable[[], UOp]
  pm: Callable[[], PatternMatcher]
  repeats: int = 1

  @property
  def terms(self) -> str: return f"{self.n}" + (f", p0 x{self.repeats}" if self.repeats > 1 else "")


def sizes() -> list[Size]:
  """The table's rows (module doc): each rule set at growing sizes, the largest 100,000 states and more."""
  ca = [Size("comm + assoc", n, lambda n=n, k=k: param_sum(n, k), comm_assoc, k)
        for n, k in ((4, 1), (5, 1), (6, 1), (7, 3), (7, 2), *(((7, 1),) if os.environ.get("BIG") else ()))]
  gd = [Size("guarded c + a", n, lambda n=n, k=k: param_sum(n, k), guarded, k) for n, k in ((5, 1), (6, 1), (7, 3), (7, 2))]
  zc = [Size("x + 0, comm", n, lambda n=n: add0_sum(n), zero_comm) for n in (4, 5, 6, 7)] if os.environ.get("ZERO") else []
  every = ca + gd + zc
  return [s for s in every if s.rules.startswith(os.environ.get("RULES", ""))]


class Round(NamedTuple):
  states: int
  one: float          # one process: CPU seconds
  one_wall: float
  solo: float         # a cluster of one worker: its CPU seconds
  pair: list[float]   # a cluster of two: each worker's CPU seconds
  pair_wall: float
  coordinator: float  # CPU seconds of this process during the two workers' run
  balance: float      # the states the busier of the two owns, over half of them


def one_round(size: Size) -> Round:
  """One process, one worker, two workers, each on a program of its own; the same state count from each (checked)."""
  from uopc.relational.cluster import ClusterExploration
  pm = size.pm()
  t0, c0 = time.perf_counter(), time.process_time()
  n = len(Exploration(size.program(), pm, max_states=None).run().states)
  one, one_wall = time.process_time() - c0, time.perf_counter() - t0
  solo = ClusterExploration(size.program(), pm, cluster="local:1", max_states=None)
  assert solo.run().state_count == n, size
  t0, c0 = time.perf_counter(), time.process_time()
  pair = ClusterExploration(size.program(), pm, cluster="local:2", max_states=None)
  count = pair.run().state_count
  pair_wall, coord = time.perf_counter() - t0, time.process_time() - c0
  assert count == n, size
  owned = [s["states"] for s in pair.outcome.stats]
  return Round(n, one, one_wall, solo.outcome.stats[0]["cpu"], [s["cpu"] for s in pair.outcome.stats], pair_wall, coord,
               max(owned) / (sum(owned) / 2))


def best(rounds: list[Round]) -> Round:
  """Each column's best round (the least time: the machine is shared, and a column's worst rounds are other work's)."""
  pairs = min(rounds, key=lambda r: max(r.pair))
  return Round(rounds[0].states, min(r.one for r in rounds), min(r.one_wall for r in rounds), min(r.solo for r in rounds), pairs.pair,
               min(r.pair_wall for r in rounds), min(r.coordinator for r in rounds), pairs.balance)


def _rounds(rounds: int) -> dict[tuple[str, str], list[Round]]:
  """``rounds`` interleaved rounds of every size (one process, one worker, two), in one Ray session of 2 CPUs."""
  import logging
  import ray
  os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
  ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, logging_level=logging.ERROR)
  try:
    from uopc.relational.cluster import ClusterExploration
    for p in (1, 2): ClusterExploration(add0_sum(2), zero(), cluster=f"local:{p}").run()   # the workers start (not timed)
    Exploration(param_sum(4), comm_assoc(), max_states=None).run()   # and this process's first exploration
    got: dict[tuple[str, str], list[Round]] = {(s.rules, s.terms): [] for s in sizes()}
    for _ in range(rounds):
      for s in sizes(): got[s.rules, s.terms].append(one_round(s))
  finally: ray.shutdown()
  return got


HEADER = (f"{'rules':14s} {'terms':>9s} {'states':>8s} {'st/worker':>9s} {'one s':>7s} {'1 worker s':>10s} {'1 worker/one':>12s} "
          f"{'2 workers s (each)':>19s} {'balance':>7s} {'coord s':>7s} {'speed-up: CPU':>13s} {'wall':>6s} {'rounds: CPU':>15s} "
          f"{'medians: 1 w/one, speed-up':>26s}")


def _row(s: Size, rounds: list[Round], code: str = "") -> str:
  """A size's line: each column's best round, then the least and the most of the rounds' own speed-ups by CPU (one
  process over the busiest worker in the same round: under a shared machine's load a column's best rounds may be
  far apart)."""
  r = best(rounds)
  each = "/".join(f"{c:.2f}" for c in r.pair)
  own = sorted(x.one / max(x.pair) for x in rounds)
  solo = statistics.median(x.solo / x.one for x in rounds)
  return (f"{s.rules:14s} {s.terms:>9s} {r.states:8,d} {r.states // 2:9,d} {r.one:7.2f} {r.solo:10.2f} {r.solo / r.one:11.2f}x "
          f"{each:>19s} {r.balance:7.3f} {r.coordinator:7.2f} {r.one / max(r.pair):12.2f}x {r.one_wall / r.pair_wall:5.2f}x "
          f"{own[0]:6.2f}x-{own[-1]:.2f}x {solo:14.2f}x {statistics.median(own):10.2f}x" + (f"  {code}" if code else ""))


def crossovers(table: list[Size], got: dict[tuple[str, str], list[Round]]) -> dict[str, int | None]:
  """Per rule set, the states a worker from which every larger size's speed-up by CPU passes 1 (None: not reached)."""
  crossing: dict[str, int | None] = {}
  for s in table:
    r = best(got[s.rules, s.terms])
    if r.one / max(r.pair) <= 1: crossing[s.rules] = None
    elif crossing.get(s.rules) is None: crossing[s.rules] = r.states // 2
  return crossing


def _crossover_line(rules: str, at: int | None, code: str = "") -> str:
  said = f"two workers beat one process by CPU from about {at:,d} states a worker" if at else "not reached here"
  return f"crossover, {rules}{f' ({code})' if code else ''}: {said}"


def against_one() -> None:
  """The first table (module doc); ``AGAINST=tree`` measures that tree's code too, round by round (``against_tree``)."""
  rounds = int(os.environ.get("ROUNDS", "3"))
  if os.environ.get("ONE_ROUND"):   # (a round of against_tree's, in its process: the rounds as JSON)
    import json
    print(json.dumps({"/".join(k): [r._asdict() for r in v] for k, v in _rounds(1).items()}))
    return
  load = os.getloadavg()
  other = os.environ.get("AGAINST")
  print(f"one worker and two against one process, native core, CPU seconds, best of {rounds} interleaved rounds "
        f"(load average {load[0]:.1f} {load[1]:.1f} {load[2]:.1f} on {os.cpu_count()} cores)" + (f", {other} against this tree" if other else ""))
  table = sizes()
  codes = {"": _rounds(rounds)} if other is None else against_tree(other, rounds)
  print(HEADER + ("  code" if other else ""))
  for s in table:
    for code, got in codes.items(): print(_row(s, got[s.rules, s.terms], code))
  for code, got in codes.items():
    for rules, at in crossovers(table, got).items(): print(_crossover_line(rules, at, code))
  load = os.getloadavg()
  print(f"(load average after: {load[0]:.1f} {load[1]:.1f} {load[2]:.1f})")


class Work(NamedTuple):
  nodes: int      # nodes its core made
  entries: int    # step-map entries its core made (a node's steps: the maps' work)
  calls: int      # nodes whose rules ran in Python (the guarded rules' work)
  uops: int       # nodes bound to a UOp in its core: made for those calls, with every node below them (a UOp a node)
  sent: int       # candidates it sent the other shard


def shards_work(size: Size, count: int) -> tuple[list[Work], int]:
  """``size`` explored by ``count`` shards in this process, level by level as the coordinator drives them (no Ray, no
  clock): what each one's core made, and the states."""
  from uopc.relational.cluster.codec import Codec
  from uopc.relational.cluster.coordinator import ship
  from uopc.relational.cluster.shard import Shard
  pm, g = size.pm(), size.program()
  program, blob = Codec([]).encode([g]), ship(pm, "the rule set")
  run, calls = [Shard() for _ in range(count)], [0] * count
  for j, s in enumerate(run):
    s.load(j, count, program, blob, None, run="work", native=True, worker=False)
    def counted(u: UOp, j: int = j, match: Any = s.stepper._match) -> Any:   # (the native core's Python calls go through it)
      calls[j] += 1
      return match(u)
    s.stepper._match = counted
  summaries, total, depth = [s.start()[0] for s in run], 1, 0
  while any(m["frontier"] for m in summaries):
    batches = [s.expand(depth, False)[1:] for s in run]
    keys = [s.absorb(*[batches[i][j] for i in range(count)]) for j, s in enumerate(run)]
    summaries = [s.commit(total, None, *keys)[0] for s in run]
    total, depth = total + summaries[0]["made"], depth + 1
  return [Work(c["nodes"], c["map_entries"], calls[j], c["bound"], s.sent)
          for j, s in enumerate(run) for c in [s.native.core.counts]], total  # type: ignore[union-attr]


def shard_work() -> None:
  """The second table: what one shard makes and what each of two makes, counted (no clock), and
  from them the most two workers can gain by CPU while each makes the maps of its own states' nodes ("maps bound": one
  shard's map entries over the busier of two's; the guarded rules' Python calls are shared, native_steps.py)."""
  print("the work of one shard and of each of two, counted in one process (no Ray, no clock): nodes made, step-map entries, "
        "nodes matched in Python, nodes made UOps (for those calls), candidates sent")
  print(f"{'rules':14s} {'terms':>9s} {'nodes: one':>10s} {'each of two':>15s} {'map entries: one':>16s} {'each of two':>19s} "
        f"{'python: one':>11s} {'each of two':>13s} {'uops: one':>9s} {'each of two':>15s} {'sent/state':>10s} {'maps bound':>10s}")
  for s in sizes():
    if s.n < 6 or s.repeats == 2: continue   # (30,240 and 110,880 states: 332,640 gives the same shares, in a minute)
    ((one,), states), (two, _) = shards_work(s, 1), shards_work(s, 2)
    print(f"{s.rules:14s} {s.terms:>9s} {one.nodes:10,d} {'/'.join(f'{w.nodes:,d}' for w in two):>15s} {one.entries:16,d} "
          f"{'/'.join(f'{w.entries:,d}' for w in two):>19s} {one.calls:11,d} {'/'.join(f'{w.calls:,d}' for w in two):>13s} "
          f"{one.uops:9,d} {'/'.join(f'{w.uops:,d}' for w in two):>15s} "
          f"{sum(w.sent for w in two) / states:10.2f} {one.entries / max(w.entries for w in two):9.2f}x")


def against_tree(other: str, rounds: int) -> dict[str, dict[tuple[str, str], list[Round]]]:
  """Each round in a process of its own, this tree's and ``other``'s (a checkout of uopc: its code on the path, this bench
  run from a copy outside both), in turn, the first of each pair alternating; their rounds by code ("before": other's)."""
  import json
  import shutil
  import subprocess
  import tempfile
  here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
  got: dict[str, dict[tuple[str, str], list[Round]]] = {"before": {}, "after": {}}
  with tempfile.TemporaryDirectory() as tmp:
    os.mkdir(os.path.join(tmp, "bench"))   # (the copy puts its directory's parent, this empty one, first on the path)
    script = shutil.copy(os.path.abspath(__file__), os.path.join(tmp, "bench", "cluster_round.py"))
    for r in range(rounds):
      for code, tree in (("before", other), ("after", here))[::1 if r % 2 == 0 else -1]:
        env = {**os.environ, "PYTHONPATH": tree, "ONE_ROUND": "1", "ROUNDS": "1", "FULL": ""}
        out = subprocess.run([sys.executable, script], cwd=tree, env=env, capture_output=True, text=True, check=True).stdout
        for key, rs in json.loads(out.strip().splitlines()[-1]).items():
          rules, terms = key.split("/")
          got[code].setdefault((rules, terms), []).extend(Round(**x) for x in rs)
  return got


RSS_RUN = """
import contextlib, io, sys
from uopc.memory import peak_memory
from uopc.cli.main import main
with contextlib.redirect_stdout(io.StringIO()) as out: code = main(sys.argv[1:])
assert code == 0, (code, out.getvalue()[-2000:])
print(peak_memory())
"""   # the kernel's high-water mark (VmHWM): ru_maxrss would keep the forking parent's across exec


def coordinator_memory() -> None:
  """The coordinator's peak memory at two sizes (module doc): flat where the report counts, growing where it lists."""
  import subprocess
  import tempfile
  from uopc.uir import to_uir
  sizes = [14, 16] + ([int(os.environ["BIG"])] if os.environ.get("BIG") else [])
  print()
  print("the coordinator's peak memory (VmHWM, a fresh process each): explore normal-forms --no-reduce, x + 0, sums of k terms")
  print(f"{'k':>3s} {'states':>8s} {'--cluster local:2':>18s} {'.. --format json':>17s} {'one process':>12s}   (MB)")
  with tempfile.TemporaryDirectory() as tmp:
    rules = os.path.join(tmp, "add0.py")
    with open(rules, "w") as f:
      f.write("from uopc import PatternMatcher, UPat\nrules = PatternMatcher([(UPat.var('x') + 0, lambda x: x)], name='add0')\n")
    for k in sizes:
      prog = os.path.join(tmp, f"sum{k}.uir")
      with open(prog, "w") as f: f.write(to_uir(add0_sum(k, 0)))
      base = ["explore", "normal-forms", prog, "--no-reduce", "--rules", f"{rules}:rules", "--timeout", "3600", "--max-depth", "100"]
      def peak(*extra: str, base: list[str] = base) -> float:
        r = subprocess.run([sys.executable, "-c", RSS_RUN, *base, *extra], capture_output=True, text=True, check=True)
        return int(r.stdout.split()[-1]) / 2**20
      print(f"{k:3d} {2 ** k:8,d} {peak('--cluster', 'local:2'):18.0f} {peak('--cluster', 'local:2', '--format', 'json'):17.0f} "
            f"{peak():12.0f}", flush=True)


if __name__ == "__main__":
  main()
