"""Relational explorer benchmarks: ``python -m bench explore``.

Six tables, all through the public API (``uopc.relational.space.explore``):

1. throughput on the sharing-free sum ``sum_i (p_i + 0) * 1`` under ``x+0, 0+x, x*1, 1*x``
   (ordered sources): 4**k graphs, k = 4..8. Each state has about k out-edges, so
   time per *edge* is the figure that should stay flat; time per state grows with
   the out-degree (every edge's target must be built to be looked up).
2. the same rewrite region (5 terms: 1,024 graphs) hung beside 10, 1,000 and 10,000
   other nodes: bytes and microseconds per state must not grow with the graph.
   Bytes come from tracemalloc after the program's own nodes were indexed; the
   second column leaves out the growth of the two long-lived hash tables (the
   engine's hash-consing table and the stepper's node memo), whose resizes land at
   different moments when they start from different sizes.
3. shared states vs copied ones: the explorer against a naive BFS that rescans and
   rebuilds the whole graph for every state, on the region beside 1,000 nodes.
4. a chain of n ``+ 0`` nodes (shape iii' of ``bench/maude.py``): n states of 1 to n redexes,
   every redex of a state making the same graph. States/s must stay flat in n (the
   stepper groups a big node's steps by the graph they make); n(n+1)/2 edges. Under
   graph semantics and under tree semantics (a step per position: the same edges here).
5. a chain of n folds ``((1 + 1) + 1) + ...`` under ``fold`` (shape iii): one redex per
   state, at the bottom, so each state's new graph has a new spine of up to n nodes
   (hash consing cannot share it): quadratic in n by the model; the cost per spine node
   is the figure that should stay flat.
6. the real ``symbolic`` rules on a 5-term sum (20,000 states): the explorer with the
   engine's compiled matchers against the same matcher interpreting its patterns
   (``PatternMatcher(..., compiled=False)``), alternated in one run.

Every row uses fresh PARAM slots (hash consing would otherwise hand back last
round's graphs) and a fresh rule set object (so no memo survives), and reports the
best of a few repeats.
"""
from __future__ import annotations

import gc
import inspect
import itertools
import time
import tracemalloc
from typing import Callable

import uopc.uop
from uopc import Ops, PatternMatcher, UOp, UPat, fold, symbolic
from uopc.relational import Exploration, Stepper, explore
from uopc.relational.space.step import Semantics

_fresh = itertools.count(1)


def unit_rules() -> PatternMatcher:
  """x+0 -> x, 0+x -> x, x*1 -> x, 1*x -> x with ordered (tuple) sources; a new object each call."""
  x = UPat.var("x")
  zero, one = UPat(Ops.CONST, arg=0), UPat(Ops.CONST, arg=1)
  return PatternMatcher([(UPat(Ops.ADD, src=(x, zero)), lambda x: x), (UPat(Ops.ADD, src=(zero, x)), lambda x: x),
                         (UPat(Ops.MUL, src=(x, one)), lambda x: x), (UPat(Ops.MUL, src=(one, x)), lambda x: x)])


def sharing_free_sum(k: int) -> UOp:
  """sum over i < k of (p_i + 0) * 1, with PARAM slots nobody used before."""
  base = next(_fresh) * 1000
  terms = [(UOp.param(base + i) + 0) * 1 for i in range(k)]
  prog = terms[0]
  for t in terms[1:]: prog = prog + t
  return prog


def other_nodes(n: int) -> UOp:
  """A chain of ``n`` nodes that no unit rule rewrites."""
  u = UOp.param(next(_fresh) * 1000 + 999)
  for i in range(n // 2): u = u * 2 + (i + 3)
  return u


def _best(make: Callable[[], Callable[[], object]], repeats: int) -> tuple[float, object]:
  best, out = float("inf"), None
  for _ in range(repeats):
    work = make()
    gc.collect()
    t0 = time.perf_counter()
    out = work()
    best = min(best, time.perf_counter() - t0)
  return best, out


def throughput_rows(ks: range = range(4, 9)) -> list[tuple[int, int, int, float]]:
  """(k, states, edges, seconds) for the sharing-free sum."""
  rows = []
  for k in ks:
    def make(k: int = k) -> Callable[[], object]:
      prog, pm = sharing_free_sum(k), unit_rules()
      return lambda: explore(prog, pm, max_states=None).run()
    secs, ex = _best(make, 5 if k < 8 else 2)
    assert ex.complete and len(ex.states) == 4 ** k
    rows.append((k, len(ex.states), sum(len(s.out) for s in ex.states), secs))
  return rows


def _table_growth_lines() -> set[tuple[str, int]]:
  """Source lines where the two long-lived node tables grow (their resizes are attributed there)."""
  from uopc.relational.space import step
  out = set()
  for fn, needle in ((uopc.uop._intern, "table[src] = u"), (uopc.uop._intern, "_log.append(u)"),
                     (uopc.uop.make_uop, "table = _tables[key] = {}"),
                     (step.Stepper.map_of, "maps[x] = "), (step.Stepper.map_of, "m = maps[u] = ")):
    lines, first = inspect.getsourcelines(fn)
    out.update((inspect.getsourcefile(fn), first + i) for i, line in enumerate(lines) if needle in line)
  return out


def size_rows(sizes: tuple[int, ...] = (10, 1000, 10_000), region_terms: int = 5) -> list[tuple[int, int, float, float, float]]:
  """(other nodes, states, bytes/state, bytes/state without node-table growth, µs/state) per size."""
  rows = []
  skip = _table_growth_lines()
  for n in sizes:
    best_t, mem = float("inf"), (0.0, 0.0)
    for rep in range(8):   # the first measures memory, the others time
      pm = unit_rules()
      root = sharing_free_sum(region_terms) + other_nodes(n)
      stepper = Stepper(pm)
      stepper.map_of(root)                 # index the program once: that work is per program, not per state
      uopc.uop.live_nodes()                # let the hash-consing table drop garbage now, not mid-measurement
      gc.collect()
      ex = Exploration(root, pm, max_states=None, stepper=stepper)
      if rep == 0:
        tracemalloc.start()
        before = tracemalloc.take_snapshot()
        ex.run()
        after = tracemalloc.take_snapshot()
        tracemalloc.stop()
        diff = after.compare_to(before, "lineno")
        total = sum(d.size_diff for d in diff)
        tables = sum(d.size_diff for d in diff if (d.traceback[0].filename, d.traceback[0].lineno) in skip)
        mem = (total / len(ex.states), (total - tables) / len(ex.states))
      else:
        t0 = time.perf_counter()
        ex.run()
        best_t = min(best_t, time.perf_counter() - t0)
      assert ex.complete and len(ex.states) == 4 ** region_terms
    rows.append((n, len(ex.states), mem[0], mem[1], best_t / len(ex.states) * 1e6))
  return rows


def naive_explore(prog: UOp, pm: PatternMatcher) -> int:
  """BFS that copies: every state rescans its whole graph and rebuilds it per step (no memo, no sharing of work)."""
  seen, todo = {prog}, [prog]
  while todo:
    g = todo.pop()
    for n in g.toposort():
      for p, fn in pm.by_op.get(n.op, ()):
        for b in p.match(n, {}):
          m = fn(**b)
          if m is None or m is n: continue
          h = g.substitute({n: m})
          if h not in seen:
            seen.add(h)
            todo.append(h)
  return len(seen)


def ratio_row(n_other: int = 1000, region_terms: int = 4) -> tuple[int, float, float]:
  """(states, naive seconds, explorer seconds) on a region beside ``n_other`` nodes."""
  def make_naive() -> Callable[[], object]:
    prog, pm = sharing_free_sum(region_terms) + other_nodes(n_other), unit_rules()
    return lambda: naive_explore(prog, pm)

  def make_explorer() -> Callable[[], object]:
    prog, pm = sharing_free_sum(region_terms) + other_nodes(n_other), unit_rules()
    return lambda: len(explore(prog, pm, max_states=None).states)
  t_naive, n1 = _best(make_naive, 2)
  t_ours, n2 = _best(make_explorer, 3)
  assert n1 == n2
  return n1, t_naive, t_ours


def zero_chain(n: int) -> UOp:
  """add(add(...add(p, 0)..., 0), 0): n nodes, each a redex of x + 0, over a PARAM nobody used before."""
  g = UOp.param(next(_fresh) * 1000)
  for _ in range(n): g = g + 0
  return g


def fold_chain(n: int) -> UOp:
  """((1 + 1) + 1) + ... with n additions: one foldable node at a time, at the bottom."""
  g = UOp.const(1)
  for _ in range(n): g = g + 1
  return g


def chain_rows(make: Callable[[int], UOp], pm_of: Callable[[], PatternMatcher], sizes: tuple[int, ...],
               repeats: int = 3, semantics: Semantics = "graph") -> list[tuple[int, int, int, float]]:
  """(n, states, edges, seconds) of exploring ``make(n)`` completely under ``semantics``, best of ``repeats``."""
  rows = []
  for n in sizes:
    def work(n: int = n) -> Callable[[], object]:
      prog, pm = make(n), pm_of()
      return lambda: explore(prog, pm, max_states=None, semantics=semantics).run()
    secs, ex = _best(work, repeats)
    assert isinstance(ex, Exploration) and ex.complete and len(ex.states) == n + 1
    rows.append((n, len(ex.states), sum(len(s.out) for s in ex.states), secs))
  return rows


def matcher_rows(repeats: int = 3, terms: int = 5, states: int = 20_000) -> tuple[int, float, float]:
  """(states, seconds interpreted, seconds compiled): ``symbolic`` on a sum, alternating the two matchers."""
  best = {False: float("inf"), True: float("inf")}
  for _ in range(repeats):
    for compiled in (False, True):
      pm = PatternMatcher(symbolic.rules, compiled=compiled)
      prog = sharing_free_sum(terms)
      gc.collect()
      t0 = time.perf_counter()
      ex = explore(prog, pm, max_states=states).run()
      best[compiled] = min(best[compiled], time.perf_counter() - t0)
      assert len(ex.states) == states
  return states, best[False], best[True]


def main() -> None:
  print("relational explorer: sum_i (p_i + 0) * 1 under x+0, 0+x, x*1, 1*x (best of repeats)")
  print(f"{'k':>3s} {'graphs':>8s} {'edges':>9s} {'ms':>9s} {'graphs/s':>10s} {'µs/state':>9s} {'µs/edge':>8s}")
  for k, n, e, secs in throughput_rows():
    print(f"{k:3d} {n:8,d} {e:9,d} {secs * 1e3:9.1f} {n / secs:10,.0f} {secs / n * 1e6:9.1f} {secs / e * 1e6:8.2f}")
  print()
  print("the same region (1,024 graphs) beside other nodes: cost per state")
  print(f"{'other nodes':>11s} {'graphs':>7s} {'bytes/state':>12s} {'w/o tables':>11s} {'µs/state':>9s}")
  for n, states, b, b2, us in size_rows():
    print(f"{n:11,d} {states:7,d} {b:12,.0f} {b2:11,.0f} {us:9.1f}")
  print()
  states, t_naive, t_ours = ratio_row()
  print(f"shared states vs copied graphs (256 graphs beside 1,000 nodes): naive {t_naive * 1e3:.0f} ms, "
        f"explorer {t_ours * 1e3:.1f} ms: {t_naive / t_ours:.0f}x")
  print()
  print("a chain of n + 0 nodes under x+0 (iii'): n states, every redex of a state makes the same graph")
  print(f"{'semantics':>9s} {'n':>6s} {'states':>7s} {'edges':>11s} {'ms':>8s} {'states/s':>9s} {'vs n=256':>8s}")
  for semantics in ("graph", "tree"):   # tree: one edge per position, grouped the same way
    rows = chain_rows(zero_chain, unit_rules, (256, 1000, 4000, 10_000), semantics=semantics)
    first = rows[0][1] / rows[0][3]
    for n, states, edges, secs in rows:
      print(f"{semantics:>9s} {n:6,d} {states:7,d} {edges:11,d} {secs * 1e3:8.1f} {states / secs:9,.0f} "
            f"{states / secs / first:7.2f}x")
  print()
  print("a chain of n folds ((1 + 1) + 1) + ... under fold (iii): one redex per state, a new spine of up to n nodes each")
  print(f"{'n':>6s} {'states':>7s} {'ms':>8s} {'states/s':>9s} {'µs/spine node':>13s} {'vs n=250':>8s}")
  rows = chain_rows(fold_chain, lambda: PatternMatcher(fold.rules), (250, 500, 1000), repeats=2)
  per_node = [secs / (n * (n + 1) / 2) for n, _, _, secs in rows]   # state k rebuilds a spine of n - k nodes
  for (n, states, _, secs), c in zip(rows, per_node):
    print(f"{n:6,d} {states:7,d} {secs * 1e3:8.1f} {states / secs:9,.0f} {c * 1e6:13.2f} {per_node[0] / c:7.2f}x")
  print()
  states, interpreted, compiled = matcher_rows()
  print(f"symbolic on a 5-term sum, {states:,d} states: interpreted patterns {interpreted * 1e3:.0f} ms, "
        f"the engine's compiled matchers {compiled * 1e3:.0f} ms: {interpreted / compiled:.2f}x")


if __name__ == "__main__":
  main()
