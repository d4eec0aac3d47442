"""The numbers that decide a multi-machine explorer (``docs/scaling.md``): ``python -m bench distributed`` (or by path).

(a) generating a state: one whole exploration (``Exploration.run``), CPU time per state,
    and edges per state (every edge's target is built and looked up);
(b) moving a state to another process: encode, ``send_bytes`` on a multiprocessing pipe,
    receive, decode into the receiver's hash-consed nodes. Two encodings: the whole
    graph pickled, or a delta: only the nodes the receiver does not have yet (it has
    the program, and every node sent to it before), each naming its sources by a
    number both sides agree on. One state a message, or 256 a message. CPU time of
    both processes, per state;
(c) a 2-process prototype: states are owned by ``fingerprint(graph) % 2``, each process
    expands the states it owns, breadth first, level by level, and sends each successor
    it does not own to its owner (once: it remembers what it sent), as a delta, one
    message a level. Wall time against the one-process explorer, both from scratch.

Workloads: the sum of 12 ``p_i + 0`` under ``x + 0`` (shape (i) of ``bench/maude.py``),
alone and beside 1,000 nodes no rule touches (whole-graph pickles grow with the graph,
deltas do not), and the sum of 4 ``(p_i + 0) * 1`` under ``symbolic`` (the real rule set:
more work a state). The receiver is forked before the states exist, so it really decodes.
The break-even arithmetic at the end uses the numbers just measured.
"""
from __future__ import annotations

import gc
import multiprocessing as mp
import os
import pickle
import sys
import time
from multiprocessing.connection import Connection
from typing import Any, Callable, NamedTuple

if __package__ in (None, ""):   # run by its path, from any directory: the repository's root first, and
  _here = os.path.dirname(os.path.abspath(__file__))   # not bench/ itself, whose kanren.py would shadow the kanren package
  sys.path[:] = [os.path.dirname(_here), *(p for p in sys.path if os.path.abspath(p or ".") != _here)]

from bench.maude import big_sum, sum_of_add0
from bench.maude_gen import Term, matcher, uir_text
from uopc import PatternMatcher, UOp, symbolic
from uopc.relational import Exploration, Stepper
from uopc.uir import parse_uir

_slots = iter(range(500_000_000, 10**9, 200_000))   # fresh PARAM slots per program (hash consing would reuse nodes)


def add0_sum(k: int, beside: int) -> UOp:
  """The sum of k ``p_i + 0``, plus a balanced sum of ``beside`` nodes without a redex, parsed from its .uir text."""
  t: Term = sum_of_add0(k, next(_slots))
  if beside: t = ("add", t, big_sum(beside, next(_slots), redexes=0))
  return parse_uir(uir_text(t))


def unit_sum(k: int) -> UOp:
  """The sum of k ``(p_i + 0) * 1``: under ``symbolic`` its rules (folding, both orders of + 0 and * 1) all try every node."""
  base = next(_slots)
  return sum(((UOp.param(base + i) + 0) * 1 for i in range(1, k)), (UOp.param(base) + 0) * 1)


class Workload(NamedTuple):
  name: str
  program: Callable[[], UOp]     # a new program each call (fresh PARAM slots)
  rules: Callable[[], PatternMatcher]


WORKLOADS = [Workload("x + 0, 12 terms", lambda: add0_sum(12, 0), lambda: matcher(["add0"])),
             Workload("x + 0, 12 terms + 1,000", lambda: add0_sum(12, 1000), lambda: matcher(["add0"])),
             Workload("symbolic, 4 terms", lambda: unit_sum(4), lambda: symbolic)]


# ---- fingerprints and deltas

class Fingerprints:
  """A structural hash of each node, memoized: equal graphs get equal numbers in every process forked from one parent."""

  def __init__(self) -> None: self.memo: dict[UOp, int] = {}

  def of(self, g: UOp) -> int:
    memo, stack = self.memo, [g]
    while stack:   # iterative: only the nodes not seen before are visited
      u = stack[-1]
      if u in memo: stack.pop(); continue
      missing = [s for s in u.src if s not in memo]
      if missing: stack.extend(missing); continue
      memo[u] = hash((u.op, u.dtype, u.arg, tuple(memo[s] for s in u.src)))
      stack.pop()
    return memo[g]


class DeltaEncoder:
  """Encodes graphs for one receiver as the nodes it lacks: ``([(op, arg, dtype, source numbers)], root number)``."""

  def __init__(self, shared: UOp) -> None: self.ids: dict[UOp, int] = {u: i for i, u in enumerate(shared.toposort())}

  def encode(self, g: UOp) -> tuple[list[tuple], int]:
    ids, new, stack = self.ids, [], [g]
    while stack:
      u = stack[-1]
      if u in ids: stack.pop(); continue
      missing = [s for s in u.src if s not in ids]
      if missing: stack.extend(missing); continue
      ids[u] = len(ids)
      new.append((u.op, u.arg, u.dtype, tuple(ids[s] for s in u.src)))
      stack.pop()
    return new, ids[g]


class DeltaDecoder:
  """The receiving side of a ``DeltaEncoder``: the same numbering, rebuilt into this process's nodes."""

  def __init__(self, shared: UOp) -> None: self.nodes: list[UOp] = shared.toposort()

  def decode(self, delta: tuple[list[tuple], int]) -> UOp:
    nodes = self.nodes
    for op, arg, dtype, srcs in delta[0]: nodes.append(UOp(op, tuple(nodes[i] for i in srcs), arg, dtype))
    return nodes[delta[1]]


# ---- (a) generating

class Generation(NamedTuple):
  states: int
  edges: int
  seconds: float
  graphs: list[UOp]


def generate(work: Workload) -> Generation:
  root, pm = work.program(), work.rules()
  t0 = time.process_time()
  ex = Exploration(root, pm, max_states=None, stepper=Stepper(pm)).run()
  secs = time.process_time() - t0
  return Generation(len(ex.states), len(ex.edges), secs, [s.graph for s in ex.states])


# ---- (b) sending

def _receive(conn: Connection, shared: UOp, mode: str) -> None:
  """Decode every message until None; answer with (states decoded, CPU seconds)."""
  decoder, n, cpu = DeltaDecoder(shared), 0, 0.0
  while True:
    data = conn.recv_bytes()
    t0 = time.process_time()
    batch = pickle.loads(data)
    if batch is None: break
    for item in batch:
      decoder.decode(item) if mode == "delta" else item   # a whole pickle was decoded by loads
      n += 1
    cpu += time.process_time() - t0
  conn.send((n, cpu))


def send_cost(graphs: list[UOp], shared: UOp, mode: str, batch: int) -> tuple[float, float, int]:
  """(sender CPU µs, receiver CPU µs, bytes) per state, sending ``graphs`` to a process that has ``shared``."""
  ours, theirs = mp.Pipe()
  receiver = mp.get_context("fork").Process(target=_receive, args=(theirs, shared, mode))
  receiver.start()
  encoder, sent = DeltaEncoder(shared), 0
  t0 = time.process_time()
  for i in range(0, len(graphs), batch):
    chunk = graphs[i:i + batch]
    data = pickle.dumps([encoder.encode(g) for g in chunk] if mode == "delta" else chunk, pickle.HIGHEST_PROTOCOL)
    sent += len(data)
    ours.send_bytes(data)
  cpu = time.process_time() - t0
  ours.send_bytes(pickle.dumps(None))
  n, their_cpu = ours.recv()
  receiver.join()
  assert n == len(graphs)
  return cpu / n * 1e6, their_cpu / n * 1e6, sent // n


# ---- (c) two processes

def _owner_loop(rank: int, procs: int, root: UOp, pm: PatternMatcher, conn: Connection | None, start: Any, out: Connection) -> None:
  """Expand the states this rank owns, level by level; send each foreign successor to its owner once."""
  stepper, fps = Stepper(pm), Fingerprints()
  encoder, decoder = DeltaEncoder(root), DeltaDecoder(root)
  seen: set[UOp] = set()
  sent: set[UOp] = set()
  frontier = [root] if fps.of(root) % procs == rank else []
  seen.update(frontier)
  messages = expanded = 0
  start.wait()
  gc.disable()   # as Exploration.run does: the cycle collector would only rescan the long-lived states
  t0, c0 = time.perf_counter(), time.process_time()
  while True:
    mine, theirs = [], []
    for g in frontier:
      expanded += 1
      for _, h in stepper.successors(g):
        if not isinstance(h, UOp): continue
        if fps.of(h) % procs == rank:
          if h not in seen: seen.add(h); mine.append(h)
        elif h not in sent:
          sent.add(h)
          theirs.append(encoder.encode(h))
    if conn is not None:
      conn.send_bytes(pickle.dumps((theirs, len(mine)), pickle.HIGHEST_PROTOCOL))
      got, their_next = pickle.loads(conn.recv_bytes())
      messages += len(theirs)
      for d in got:
        h = decoder.decode(d)
        if h not in seen: seen.add(h); mine.append(h)
    else: got, their_next = [], 0
    # done when neither rank has a next frontier: ours (mine, with what we got) and theirs (their own, and what we
    # just sent them). Leaving while our own message still gives them states would leave them waiting for us forever.
    if not mine and not got and their_next == 0 and not theirs: break
    frontier = mine
  out.send((len(seen), expanded, messages, time.perf_counter() - t0, time.process_time() - c0))


RESULT_TIMEOUT = 300.0   # seconds the prototype's workers get (the bench's runs take well under one)


def partitioned(work: Workload, procs: int = 2) -> tuple[int, int, float, float]:
  """(states, states sent, wall seconds, CPU seconds of the busier process) of the hash-partitioned prototype with ``procs`` (1 or 2) processes."""
  root, pm = work.program(), work.rules()
  ctx = mp.get_context("fork")
  start = ctx.Barrier(procs + 1)   # every worker set up, and this process: process start-up is not part of the exploration
  pipes = ctx.Pipe() if procs == 2 else (None, None)
  results = [ctx.Pipe(duplex=False) for _ in range(procs)]
  workers = [ctx.Process(target=_owner_loop, args=(r, procs, root, pm, pipes[r], start, results[r][1])) for r in range(procs)]
  for w in workers: w.start()
  start.wait()
  got = []
  for r in range(procs):   # a worker that died sends nothing: fail, never wait forever
    if not results[r][0].poll(RESULT_TIMEOUT):
      for w in workers: w.kill()
      raise RuntimeError(f"rank {r} sent no result within {RESULT_TIMEOUT:.0f} s")
    got.append(results[r][0].recv())
  for w in workers: w.join()
  return sum(g[0] for g in got), sum(g[2] for g in got), max(g[3] for g in got), max(g[4] for g in got)


def serial(work: Workload) -> tuple[float, float]:
  """(wall, CPU) seconds of the one-process explorer."""
  root, pm = work.program(), work.rules()
  t0, c0 = time.perf_counter(), time.process_time()
  Exploration(root, pm, max_states=None, stepper=Stepper(pm)).run()
  return time.perf_counter() - t0, time.process_time() - c0


def _best(key: Callable[[Any], float], fn: Callable[..., Any], *args: Any, repeats: int = 3) -> Any:
  """The best of ``repeats`` calls of ``fn(*args)`` by ``key`` (smallest)."""
  return min((fn(*args) for _ in range(repeats)), key=key)


def main() -> None:
  print("(a) generating a state: one whole exploration, process CPU time, best of 3")
  print(f"{'workload':24s} {'states':>7s} {'edges/state':>11s} {'µs/state':>9s}")
  gens = {}
  for work in WORKLOADS:
    g = gens[work.name] = _best(lambda g: g.seconds, generate, work)
    print(f"{work.name:24s} {g.states:7,d} {g.edges / g.states:11.1f} {g.seconds / g.states * 1e6:9.1f}")
  print()
  print("(b) sending a state to another process (multiprocessing pipe): CPU µs per state, best of 3")
  print(f"{'workload':24s} {'encoding':>9s} {'batch':>6s} {'sender µs':>10s} {'receiver µs':>12s} {'total µs':>9s} {'bytes':>6s}")
  costs = {}
  for work in WORKLOADS[:2]:
    graphs = gens[work.name].graphs
    for mode in ("pickle", "delta"):
      for batch in (1, 256):
        s, r, nbytes = _best(lambda c: c[0] + c[1], send_cost, graphs, graphs[0], mode, batch)
        costs[work.name, mode, batch] = s + r
        print(f"{work.name:24s} {mode:>9s} {batch:6d} {s:10.1f} {r:12.1f} {s + r:9.1f} {nbytes:6,d}")
  print()
  print("(c) states partitioned by fingerprint % 2, level-synchronous, deltas, best of 3: wall ms / CPU ms of the busier process "
        "(what wall time would be on two idle cores, waits aside)")
  print(f"{'workload':24s} {'explorer':>15s} {'prototype, 1 proc':>18s} {'prototype, 2 procs':>19s} {'sent/state':>11s} "
        f"{'speed-up, wall':>15s} {'speed-up, CPU':>14s}")
  protos = {}
  for work in WORKLOADS:
    ser = _best(lambda t: t[1], serial, work)
    one = _best(lambda r: r[3], partitioned, work, 1)
    two = _best(lambda r: r[3], partitioned, work, 2)
    assert one[0] == two[0] == gens[work.name].states
    protos[work.name] = (ser, one, two)
    print(f"{work.name:24s} {ser[0] * 1e3:7.0f} / {ser[1] * 1e3:5.0f} {one[2] * 1e3:9.0f} / {one[3] * 1e3:6.0f} "
          f"{two[2] * 1e3:10.0f} / {two[3] * 1e3:6.0f} {two[1] / two[0]:11.2f} {ser[0] / two[2]:14.2f}x {ser[1] / two[3]:13.2f}x")
  print()
  s = costs[WORKLOADS[0].name, "delta", 256]
  print("break-even: each of two processes generates half the states (g µs each, the explorer's) and moves f of them "
        "(f <= 1: sent/state) at m µs each, sender and receiver together: speed-up = 2g / (g + f*m), above 1 when g > f*m.")
  print(f"m is measured in (c): (busier process's CPU - half the 1-process CPU) / states it sent; moving alone "
        f"(encode, pipe, decode: (b), delta, batched) is s = {s:.1f} µs of it,\nthe rest is the prototype's own "
        "(fingerprints; the receiver indexing nodes again)")
  print(f"{'workload':24s} {'g µs':>6s} {'m µs':>6s} {'f':>5s} {'f*m µs':>7s} {'model':>6s} {'measured':>9s}")
  for work in WORKLOADS:
    g = gens[work.name].seconds / gens[work.name].states * 1e6
    ser, one, two = protos[work.name]
    f = two[1] / two[0]
    m = (two[3] - one[3] / 2) / (two[1] / 2) * 1e6
    print(f"{work.name:24s} {g:6.1f} {m:6.1f} {f:5.2f} {f * m:7.1f} {2 * g / (g + f * m):5.2f}x {ser[1] / two[3]:8.2f}x")

if __name__ == "__main__":
  main()
