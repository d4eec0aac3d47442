"""A cluster worker's two biggest costs a state, Python against the native core: ``python -m bench worker_core``.

A worker (``uopc/relational/cluster/shard.py``) expands each state of its frontier, ``list(stepper.successors(g))``, and
fingerprints the state and every graph its steps make (``Fingerprints.of``). The native core does both in C:
``Space.successors(node)`` and ``Space.fingerprint(s)`` (``docs/native.md``). Each workload of ``bench/cluster.py`` is
explored once (not timed) for its states; then, from cold (a new ``Stepper`` and ``Fingerprints``, a new
``NativeSpace``), every state is stepped and its graph and targets fingerprinted, each way, with the cycle collector
paused as a worker's level pauses it (``shard.py``'s ``_paused``; else its passes over the explored graphs are most of
both times). The native states are node ids, as a worker keeping the core's nodes holds them; what indexing the states'
``UOp``s costs (``to_id``) and what making the targets' ``UOp``s costs (``uop``, for a worker that sends graphs as
``UOp``s) are columns of their own. Best of TURNS turns, CPU time; steps alone is a turn without fingerprints.

The second table is the worker's next cost, writing graphs as the codec's rows (``cluster/codec.py``): every graph the
states' steps make, each once, in the order they are made, batched BATCH at a time as a worker sends its candidates,
``Codec.encode`` on their ``UOp``s (made first, not timed: a Python worker holds them) against ``Codec.encode_native``
on their nodes (``Space.rows``, stream 0), and the same batches as one records stream (``Records.encode`` against
``Records.encode_native``, stream 1). Both give the same rows (checked); µs a graph, best of TURNS turns.

The third table is the receiving end: the same batches (written once, pickled and read back before each turn, untimed, as
they cross to a worker: fields are new objects) made nodes of a new space holding the program, ``Codec.decode`` then
``to_id`` of each root against ``Codec.decode_native`` (``Space.intern_rows``); the same ids (checked).
"""
from __future__ import annotations

import os
import pickle
import sys
import time
from typing import Any, Callable

if __package__ in (None, ""):   # run by its path: the repository's root first (bench/kanren.py would shadow the kanren package)
  _here = os.path.dirname(os.path.abspath(__file__))
  sys.path[:] = [os.path.dirname(_here), *(p for p in sys.path if os.path.abspath(p or ".") != _here)]

from bench.cluster import WORKLOADS
from uopc import collector
from uopc.relational import Exploration
from uopc.relational.cluster.codec import Codec, Records
from uopc.relational.space.fingerprint import Fingerprints
from uopc.relational.native import available
from uopc.relational.native.space import NativeSpace
from uopc.relational.space.step import Stepper

TURNS = 5
BATCH = 256   # graphs a batch, as a worker's candidates for one shard


def best(run: Callable[[], Any]) -> tuple[float, Any]:
  """The least CPU seconds of TURNS calls of ``run`` (each from cold: it makes its own state), and its last result."""
  times, out = [], None
  for _ in range(TURNS):
    with collector.paused(settle=True):
      c0 = time.process_time()
      out = run()
      times.append(time.process_time() - c0)
  return min(times), out


def python_turn(states: list, pm: Any, fingerprints: bool = True) -> int:
  """Every state stepped and (``fingerprints``) fingerprinted with its targets, as shard.py does it in Python: steps counted."""
  stepper, fps, n = Stepper(pm), Fingerprints(), 0
  for g in states:
    pairs = list(stepper.successors(g))
    if fingerprints:
      fps.of(g)
      for _, h in pairs: fps.of(h)
    n += len(pairs)
  return n


def native_turn(states: list, pm: Any, uops: bool = False, fingerprints: bool = True) -> tuple[int, float]:
  """The same in the core, on node ids (``uops``: and each target's UOp made): steps counted, and the CPU seconds of the
  loop alone (the states indexed first, not timed)."""
  space = NativeSpace(Stepper(pm))
  ids = [space.to_id(g) for g in states]
  space.fingerprint(ids[0])   # sets the core up
  core, n = space.core, 0
  c0 = time.process_time()
  for i in ids:
    keys, targets = core.successors(i)
    if fingerprints:
      core.fingerprint(i)
      core.fingerprints(targets)
    if uops:
      for t in targets: space.uop(t)
    n += len(keys)
  return n, time.process_time() - c0


def indexing(states: list, pm: Any) -> float:
  """CPU seconds to index every state's UOp in a new space (what a worker holding UOps pays first)."""
  space = NativeSpace(Stepper(pm))
  c0 = time.process_time()
  for g in states: space.to_id(g)
  return time.process_time() - c0


def main() -> None:
  if not available():
    print("worker_core: the native core is not built")
    return
  print("a cluster worker's steps and fingerprints a state: Stepper.successors + Fingerprints.of against Space.successors + fingerprint(s);"
        f" CPU seconds, best of {TURNS} turns")
  print(f"{'workload':<20} {'states':>7} {'steps':>8} {'Python s':>9} {'(steps':>7} {'fps)':>6} {'C s':>6} {'(steps':>7} {'fps)':>6} "
        f"{'Py/C':>6} {'+uop() s':>9} {'Py/(C+uop)':>10} {'to_id s':>8}")
  explored = [(work.name, work.rules(), work.program()) for work in WORKLOADS]
  for name, pm, program in explored: row(name, pm, program)
  print(f"\nwriting graphs as codec rows, {BATCH} a batch: Codec.encode / Records.encode on UOps against encode_native on nodes;"
        f" µs a graph, CPU time, best of {TURNS} turns")
  print(f"{'workload':<20} {'graphs':>8} {'rows/graph':>10} {'batch Py':>9} {'C':>6} {'Py/C':>6} {'rows/graph':>10} {'stream Py':>10} {'C':>6} "
        f"{'Py/C':>6}")
  for name, pm, program in explored: encode_row(name, pm, program)
  print(f"\nreading codec rows as nodes, {BATCH} graphs a batch: Codec.decode + to_id against Codec.decode_native; µs a graph, CPU time,"
        f" best of {TURNS} turns")
  print(f"{'workload':<20} {'graphs':>8} {'rows/graph':>10} {'Py':>6} {'C':>6} {'Py/C':>6}")
  for name, pm, program in explored: decode_row(name, pm, program)


def row(name: str, pm: Any, program: Any) -> None:
  """One workload's line of the table."""
  states = [s.graph for s in Exploration(program, pm, max_states=None).run().states]
  py, n_py = best(lambda: python_turn(states, pm))
  py_steps, _ = best(lambda: python_turn(states, pm, fingerprints=False))
  loops = []
  for kw in ({}, {"fingerprints": False}, {"uops": True}):
    with collector.paused(settle=True): turns = [native_turn(states, pm, **kw) for _ in range(TURNS)]
    assert all(n == n_py for n, _ in turns), (name, turns, n_py)
    loops.append(min(t for _, t in turns))
  c, c_steps, c_uops = loops
  ix = min(indexing(states, pm) for _ in range(TURNS))
  print(f"{name:<20} {len(states):>7,} {n_py:>8,} {py:>9.3f} {py_steps:>7.3f} {py - py_steps:>6.3f} {c:>6.3f} {c_steps:>7.3f} "
        f"{c - c_steps:>6.3f} {py / c:>6.1f} {c_uops:>9.3f} {py / c_uops:>10.1f} {ix:>8.3f}")


def made_graphs(states: list, pm: Any) -> tuple[NativeSpace, list[int]]:
  """A new space, and the nodes of every graph the states' steps make, each once, in the order they are made."""
  space = NativeSpace(Stepper(pm))
  seen: dict[int, None] = {}
  for g in states:
    for t in space.core.successors(space.to_id(g))[1]: seen.setdefault(t)
  return space, list(seen)


def encode_turn(batches: list, encode: Callable[[list], Any]) -> tuple[float, int]:
  """CPU seconds to encode every batch, and the rows written."""
  with collector.paused(settle=True):
    c0 = time.process_time()
    rows = sum(len(encode(b).rows) for b in batches)
    return time.process_time() - c0, rows


def encoders(space: NativeSpace, base: list, uops: list, ids: list) -> dict[str, tuple[list, Callable[[list], Any]]]:
  """Each way of writing the batches, with the batches it takes: a new Codec or Records each."""
  codec, py, c = Codec(base), Records(base), Records(base)
  return {"batch py": (uops, codec.encode), "batch c": (ids, lambda b: codec.encode_native(space, b)),
          "stream py": (uops, lambda b: py.encode(b)[0]), "stream c": (ids, lambda b: c.encode_native(space, b)[0])}


def encode_row(name: str, pm: Any, program: Any) -> None:
  """One workload's line of the codec table: each way from cold (a new space, rows set up on first use)."""
  states = [s.graph for s in Exploration(program, pm, max_states=None).run().states]
  base = program.toposort()
  times: dict[str, list[float]] = {"batch py": [], "batch c": [], "stream py": [], "stream c": []}
  rows: dict[str, int] = {}
  for _ in range(TURNS):
    space, nodes = made_graphs(states, pm)
    ids = [nodes[k:k + BATCH] for k in range(0, len(nodes), BATCH)]
    uops = [[space.uop(i) for i in b] for b in ids]
    for key, (batches, encode) in encoders(space, base, uops, ids).items():
      t, rows[key] = encode_turn(batches, encode)
      times[key].append(t)
  assert rows["batch py"] == rows["batch c"] and rows["stream py"] == rows["stream c"], (name, rows)
  us = {k: 1e6 * min(v) / len(nodes) for k, v in times.items()}
  print(f"{name:<20} {len(nodes):>8,} {rows['batch py'] / len(nodes):>10.2f} {us['batch py']:>9.2f} {us['batch c']:>6.2f} "
        f"{us['batch py'] / us['batch c']:>6.1f} {rows['stream py'] / len(nodes):>10.2f} "
        f"{us['stream py']:>10.2f} {us['stream c']:>6.2f} {us['stream py'] / us['stream c']:>6.1f}")


def decode_turn(program: Any, pm: Any, codec: Codec, wire: bytes, native: bool) -> tuple[float, list]:
  """CPU seconds to read every batch of ``wire`` (unpickled first, untimed) into a new space holding the program, and the ids."""
  space, batches = NativeSpace(Stepper(pm)), pickle.loads(wire)
  space.to_id(program)
  with collector.paused(settle=True):
    c0 = time.process_time()
    if native: out = [codec.decode_native(space, enc) for enc in batches]
    else: out = [[None if u is None else space.to_id(u) for u in codec.decode(enc)] for enc in batches]
    return time.process_time() - c0, out


def decode_row(name: str, pm: Any, program: Any) -> None:
  """One workload's line of the decoding table: the batches ``encode_row`` writes, read each way from cold."""
  states = [s.graph for s in Exploration(program, pm, max_states=None).run().states]
  space, nodes = made_graphs(states, pm)
  codec = Codec(program.toposort())
  batches = [codec.encode_native(space, nodes[k:k + BATCH]) for k in range(0, len(nodes), BATCH)]
  wire = pickle.dumps(batches)
  times: dict[bool, list[float]] = {False: [], True: []}
  got: dict[bool, list] = {}
  for _ in range(TURNS):
    for native in (False, True):
      t, got[native] = decode_turn(program, pm, codec, wire, native)
      times[native].append(t)
  assert got[False] == got[True], name
  us = {k: 1e6 * min(v) / len(nodes) for k, v in times.items()}
  print(f"{name:<20} {len(nodes):>8,} {sum(len(b.rows) for b in batches) / len(nodes):>10.2f} {us[False]:>6.2f} {us[True]:>6.2f} "
        f"{us[False] / us[True]:>6.1f}")


if __name__ == "__main__":
  main()
