"""What a state costs to make and to move, the numbers the cluster's design rests on (``docs/scaling.md``):
``python -m bench distributed`` (or by path).

(a) generating a state: one whole exploration (``Exploration.run``), CPU time per state,
    and edges per state (every edge's target is built and looked up);
(b) moving a state to another process: encode, ``send_bytes`` on a multiprocessing pipe,
    receive, decode into the receiver's hash-consed nodes. Two encodings: the whole
    graph pickled, or a delta: only the nodes the receiver does not have yet (it has
    the program, and every node sent to it before), each naming its sources by a
    number both sides agree on. One state a message, or 256 a message. CPU time of
    both processes, per state.

The 2-process prototype that was (c) here is gone: the cluster (``uopc.relational.cluster``,
``python -m bench cluster``) measured at least as well against it (``docs/scaling.md``), and
measures what moving a state costs in a real run (its ``m``).

Workloads: the sum of 12 ``p_i + 0`` under ``x + 0`` (shape (i) of ``bench/maude.py``),
alone and beside 1,000 nodes no rule touches (whole-graph pickles grow with the graph,
deltas do not), and the sum of 4 ``(p_i + 0) * 1`` under ``symbolic`` (the real rule set:
more work a state). The receiver is forked before the states exist, so it really decodes.
"""
from __future__ import annotations

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


# ---- deltas

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
  for work in WORKLOADS[:2]:
    graphs = gens[work.name].graphs
    for mode in ("pickle", "delta"):
      for batch in (1, 256):
        s, r, nbytes = _best(lambda c: c[0] + c[1], send_cost, graphs, graphs[0], mode, batch)
        print(f"{work.name:24s} {mode:>9s} {batch:6d} {s:10.1f} {r:12.1f} {s + r:9.1f} {nbytes:6,d}")


if __name__ == "__main__":
  main()
