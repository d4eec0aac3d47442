"""Conjunctions of relational goals against ``explore()``: ``python -m bench kanren``.

The program is a product of k terms ``(p_i + 0) + 0`` under the one rule ``x + 0 -> x``
(ordered sources): each term reaches 3 forms, so the program reaches 3**k graphs
(k = 11: 177,147). The kanren queries are written the way ``docs/relational.md`` shows
them; no reachable graph matches the pattern ``max(y, y)``, so every state is visited:

- ``reacho``:         ``run(0, q, reacho(pm, prog, q))``: every reachable graph (target: within 1.2x)
- ``reacho, eq``:     ``run(0, q, reacho(pm, prog, q), eq(q, pat.max(y, y)))``
- ``reacho, eq many``: ``run(0, q, reacho(pm, prog, q), eq(q, pat.mul(y, pat.add(z, w))))``: two graphs in three
  match (the last term's ``(p + 0) + 0`` and ``p + 0``), so the query answers with most of the space
- ``reacho, eq one``: ``run(0, q, reacho(pm, prog, q), eq(q, pattern))`` where ``pattern`` is the program with its last
  ``0`` a variable: one graph matches
- ``eq, reacho``:     ``run(0, q, eq(q, pat.max(y, y)), reacho(pm, prog, q))``
- ``reacho pattern``: ``run(0, y, reacho(pm, prog, pat.max(y, y)))``
- ``normalo, eq``:    ``run(0, q, normalo(pm, prog, q), eq(q, pat.max(y, y)))`` (one normal form)
- ``eq, normalo``:    ``run(0, q, eq(q, pat.max(y, y)), normalo(pm, prog, q))``
- ``member, reacho``: ``run(0, q, oneof(q, graphs), reacho(pm, prog, q))`` where ``graphs`` are
  all the reachable graphs and ``oneof`` binds ``q`` to each in turn (kanren's ``membero``
  recurses once per element): one membership question per graph, bound first.

The compositions' target is 1.5x. Times are CPU seconds (the machine is
shared), the best of ROUNDS rounds, a round running every query at every size once, each in a fresh interpreter (see
``in_fresh_process``), so that a change in the machine's load hits every query alike;
as ratios to ``explore(prog).states`` with every state's graph read (the native core makes a
graph's ``UOp`` only when read, and a goal answers with graphs; the bare ``explore()`` and
the pure-Python core's ratio are printed too), measured in the same run, each including the
collection its allocations left due (``settle_collector``). ``kanren's bind`` is
``reacho, eq`` with kanren's own ``bind`` (quadratic), at the small size only. Memory:
peak bytes per state under tracemalloc, at k = 9.
"""
from __future__ import annotations

import gc
import itertools
import os
import subprocess
import sys
import time
import tracemalloc
from typing import Any, Callable, Iterator, Mapping

import kanren.core
import toolz
from kanren import eq, run, var
from unification import unify

from uopc import Ops, PatternMatcher, UOp, UPat
from uopc.relational import explore, normalo, pat, reacho
from uopc.relational.logic.conjunction import fair_bind

_fresh = itertools.count(1)


def plus_zero() -> PatternMatcher:
  """x + 0 -> x with ordered sources; a new object each call (so no memo survives)."""
  x = UPat.var("x")
  return PatternMatcher([(UPat(Ops.ADD, src=(x, UPat(Ops.CONST, arg=0))), lambda x: x)])


def program(k: int) -> UOp:
  """The product over i < k of ``(p_i + 0) + 0``, with PARAM slots nobody used before: 3**k graphs."""
  base = next(_fresh) * 1000
  terms = [(UOp.param(base + i) + 0) + 0 for i in range(k)]
  prog = terms[0]
  for t in terms[1:]: prog = prog * t
  return prog


def _explore(prog: UOp, pm: PatternMatcher) -> int: return len(explore(prog, pm, max_states=None).states)


def _explore_graphs(prog: UOp, pm: PatternMatcher) -> int:
  """``explore()``, every state's graph read, the cheapest way (``iter_ahead``: made with each batch, the collector paused):
  the native core makes a graph's ``UOp`` only when it is read, and a goal answers with graphs."""
  return len([s.graph for s in explore(prog, pm, max_states=None).iter_ahead()])


def _reacho(prog: UOp, pm: PatternMatcher) -> int:
  q = var()
  return len(run(0, q, reacho(pm, prog, q)))


def _reacho_eq(prog: UOp, pm: PatternMatcher) -> int:
  q, y = var(), var()
  return len(run(0, q, reacho(pm, prog, q), eq(q, pat.max(y, y))))


def _reacho_eq_many(prog: UOp, pm: PatternMatcher) -> int:
  q, y, z, w = var(), var(), var(), var()
  return len(run(0, q, reacho(pm, prog, q), eq(q, pat.mul(y, pat.add(z, w)))))


def _reacho_eq_one(prog: UOp, pm: PatternMatcher) -> int:
  """The pattern is the program itself with its last ``0`` a variable: one graph matches."""
  q, y = var(), var()
  last = prog.src[1]   # the last term, (p + 0) + 0
  pattern = pat.mul(prog.src[0], pat.add(last.src[0], y))
  return len(run(0, q, reacho(pm, prog, q), eq(q, pattern)))


def _eq_reacho(prog: UOp, pm: PatternMatcher) -> int:
  q, y = var(), var()
  return len(run(0, q, eq(q, pat.max(y, y)), reacho(pm, prog, q)))


def _reacho_pattern(prog: UOp, pm: PatternMatcher) -> int:
  y = var()
  return len(run(0, y, reacho(pm, prog, pat.max(y, y))))


def _normalo_eq(prog: UOp, pm: PatternMatcher) -> int:
  q, y = var(), var()
  return len(run(0, q, normalo(pm, prog, q), eq(q, pat.max(y, y))))


def _eq_normalo(prog: UOp, pm: PatternMatcher) -> int:
  q, y = var(), var()
  return len(run(0, q, eq(q, pat.max(y, y)), normalo(pm, prog, q)))


def _membership(prog: UOp, pm: PatternMatcher) -> float:
  """The CPU seconds of the membership query alone (listing the graphs to ask about is not timed)."""
  graphs = [s.graph for s in explore(prog, plus_zero(), max_states=None).states]   # not timed: see measure()
  gc.collect()   # the candidates are the caller's long-lived data: settled, as measure() settles the heap before each query
  q = var()
  t0 = time.process_time()
  n = len(run(0, q, oneof(q, graphs), reacho(pm, prog, q)))
  settle_collector()
  assert n == len(graphs)
  return time.process_time() - t0


def oneof(q: Any, items: list[Any]) -> Callable[[Mapping], Iterator[Mapping]]:
  """A goal: ``q`` is one of ``items`` (a flat ``membero``)."""
  def oneof_goal(S: Mapping) -> Iterator[Mapping]:
    for item in items:
      if (S2 := unify(q, item, S)) is not False: yield S2
  return oneof_goal


def _kanren_bind(prog: UOp, pm: PatternMatcher) -> int:
  """The first query with kanren's own ``bind`` (``toolz.interleave`` of one stream per state)."""
  kanren.core.bind = lambda z, g: toolz.interleave(map(g, z))
  try: return _reacho_eq(prog, pm)
  finally: kanren.core.bind = fair_bind


QUERIES: dict[str, Callable[[UOp, PatternMatcher], Any]] = {
  "explore": _explore, "explore, graphs": _explore_graphs,
  "reacho": _reacho, "reacho, eq": _reacho_eq, "reacho, eq many": _reacho_eq_many, "reacho, eq one": _reacho_eq_one,
  "eq, reacho": _eq_reacho, "reacho pattern": _reacho_pattern,
  "normalo, eq": _normalo_eq, "eq, normalo": _eq_normalo, "member, reacho": _membership, "kanren's bind": _kanren_bind}
TARGETS = {name: 1.2 if name == "reacho" else 1.5 for name in QUERIES if name not in ("explore", "explore, graphs", "kanren's bind")}
SIZES = (7, 9, 11)


def replay_cost(k: int) -> tuple[float, float, float]:
  """Microseconds a state: exploring (a first ``reacho`` query), then kanren's own part (the same goal again, its
  exploration done and replayed) alone and with the ``eq``; the best of three replays."""
  prog, pm, q, y = program(k), plus_zero(), var(), var()
  goal, pattern = reacho(pm, prog, q), eq(q, pat.max(y, y))
  t0 = time.process_time()
  n = len(run(0, q, goal))
  first = time.process_time() - t0

  def best(*goals: Any) -> float:
    times = []
    for _ in range(3):
      t0 = time.process_time()
      run(0, q, *goals)
      times.append(time.process_time() - t0)
    return min(times)
  alone, with_eq = best(goal), best(goal, pattern)
  return (first - alone) / n * 1e6, alone / n * 1e6, with_eq / n * 1e6


def settle_collector() -> None:
  """Run the collection a query left due, inside its time: one allocation the cycle collector tracks.

  ``explore()`` pauses the collector while it explores and leaves every state it made
  for the next allocation to scan, which would otherwise land after the clock stops;
  a kanren goal explores in batches and its collections run between them, in its time.
  """
  [].append(None)


def measure(name: str, k: int, what: str) -> float:
  """CPU seconds (``what="time"``) or peak traced bytes (``"memory"``) of one query, in this process."""
  prog, pm = program(k), plus_zero()
  query = QUERIES[name]
  gc.collect()
  if what == "memory":
    tracemalloc.start()
    try: query(prog, pm)
    finally:
      peak = tracemalloc.get_traced_memory()[1]
      tracemalloc.stop()
    return peak
  t0 = time.process_time()
  r = query(prog, pm)
  settle_collector()
  return r if name == "member, reacho" else time.process_time() - t0


def in_fresh_process(name: str, k: int, what: str = "time", repeats: int = 5, native: bool = True) -> float:
  """The best of ``repeats`` measurements, each in a new interpreter: a rule set's memo outlives it in a
  process, and a bigger heap makes the cycle collector's passes dearer, which would favour whichever ran first.
  ``native=False`` runs the pure-Python core (``UOPC_NATIVE=0``)."""
  code = f"import bench.kanren as b; print(b.measure({name!r}, {k}, {what!r}))"
  env = {**os.environ, "UOPC_NATIVE": "1" if native else "0"}
  return min(float(subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True, env=env).stdout)
             for _ in range(repeats))


def interleaved(names: list[str], sizes: tuple[int, ...], rounds: int = 5) -> dict[tuple[str, int], float]:
  """(query, k) -> the fewest CPU seconds over ``rounds`` rounds, a round measuring every query at every size once, each
  in a fresh interpreter."""
  best: dict[tuple[str, int], float] = {}
  for _ in range(rounds):
    for k in sizes:
      for name in names:
        t = in_fresh_process(name, k, repeats=1)
        best[name, k] = min(best.get((name, k), t), t)
  return best


ROUNDS = 5


def main() -> None:
  print("kanren goals vs explore(): product of k terms (p_i + 0) + 0 under x + 0 -> x, 3**k graphs; CPU time / explore()'s")
  print(f"{'form':>15s} {'target':>7s}" + "".join(f" {f'{3 ** k:,} graphs':>15s}" for k in SIZES) + "  at every size")
  best = interleaved(["explore", "explore, graphs", *TARGETS], SIZES, ROUNDS)
  bare = {k: best["explore", k] for k in SIZES}
  base = {k: best["explore, graphs", k] for k in SIZES}
  print(f"{'explore':>15s} {'':>7s}" + "".join(f" {bare[k]:14.2f}s" for k in SIZES) + "  (no graph read)")
  print(f"{'explore, graphs':>15s} {'':>7s}" + "".join(f" {base[k]:14.2f}s" for k in SIZES) + "  (the ratios' base)")
  times: dict[str, list[float]] = {}
  for name, target in TARGETS.items():
    times[name] = [best[name, k] for k in SIZES]
    ratios = [t / base[k] for t, k in zip(times[name], SIZES)]
    print(f"{name:>15s} {target:6.1f}x" + "".join(f" {r:14.2f}x" for r in ratios) + f"  {'within' if max(ratios) <= target else 'OVER'}")
  k = SIZES[-1]
  python = in_fresh_process("reacho", k, native=False) / in_fresh_process("explore", k, native=False)
  print(f"at {3 ** k:,} graphs: reacho / explore() with no graph read {times['reacho'][-1] / bare[k]:.2f}x; "
        f"on the pure-Python core (UOPC_NATIVE=0, graphs are made as states are) {python:.2f}x")
  k, name = SIZES[0], "kanren's bind"
  print(f"{name:>15s} {'':>7s} {in_fresh_process(name, k) / base[k]:14.2f}x" + f" {'-':>15s}" * (len(SIZES) - 1))
  explored, alone, with_eq = replay_cost(10)
  print(f"kanren's own part at 59,049 graphs (the exploration done, replayed): {alone:.2f} us a state for reacho, "
        f"{with_eq:.2f} us with the eq; exploring: {explored:.2f} us a state")
  print()
  k = 9
  print(f"peak memory per state (tracemalloc, k = {k}, {3 ** k:,} graphs)")
  for name in ("explore", "reacho", "reacho, eq", "eq, reacho", "normalo, eq", "member, reacho"):
    print(f"{name:>15s} {in_fresh_process(name, k, 'memory', repeats=1) / 3 ** k:8,.0f} bytes")


if __name__ == "__main__":
  main()
