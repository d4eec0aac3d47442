"""Canonical-engine benchmarks: ``python -m bench engine``.

Rows: ``run()`` on ``a*b + a`` (µs per element), ``symbolic`` on a sum of 200 terms
``((v_i*4 + 8)//4) % 16``, the 20,000-ADD chain, and the relational explorer's k = 7
throughput. Each row is measured live in both matching modes, interpreted
(``UPat.match``) and compiled (``uopc.upat_compile``), alternating repeat by repeat so
that a noisy machine hurts both alike; each reports the best wall time. Every repeat
builds fresh inputs (hash consing would otherwise hand back last round's results).

The "starting point" column is *recorded*, not live: the best of 10 runs of this
benchmark on 2026-11-30, before the compiled engine (interpreted patterns, slower
nodes), on the same 2-core machine under the same kind of load. Its ratio to a live
number is only as good as that: ``python -m bench start`` measures the starting point
again, live, beside the engine as it is.
"""
from __future__ import annotations

import itertools
import os
import time
from contextlib import contextmanager
from typing import Callable, Iterator

from uopc import PatternMatcher, UOp, dtypes, evaluate, graph_rewrite, symbolic, to_python

_fresh = itertools.count(1)
MODES = (False, True)   # interpreted, compiled
# recorded starting point (ms): best of 10 runs of `python -m bench engine`, 2026-11-30 01:23 UTC
STARTING_POINT = {"run() a*b + a, n = 10": 0.24, "run() a*b + a, n = 100": 1.46, "run() a*b + a, n = 1000": 17.96,
                  "symbolic, 200-term sum": 57.83, "symbolic, 20,000-ADD chain": 2493.63}
Work = Callable[[], object]


def _best_each(make: Callable[[bool], Work], repeats: int) -> dict[bool, float]:
  """Best wall time (s) of ``make(compiled)()`` per mode, the modes alternating."""
  best = {mode: float("inf") for mode in MODES}
  for _ in range(repeats):
    for mode in MODES:
      work = make(mode)
      t0 = time.perf_counter()
      work()
      best[mode] = min(best[mode], time.perf_counter() - t0)
  return best


_matchers: dict[tuple[str, bool], PatternMatcher] = {}


def matcher(name: str, compiled: bool) -> PatternMatcher:
  """``symbolic`` or ``run``'s ``symbolic + evaluate``, in one mode (made once, so patterns compile once)."""
  if (name, compiled) not in _matchers:
    rules = symbolic.rules if name == "symbolic" else (symbolic + evaluate).rules
    _matchers[name, compiled] = PatternMatcher(rules, compiled=compiled)
  return _matchers[name, compiled]


def run_vectors(n: int, compiled: bool = True) -> Work:
  """``to_python(run(a*b + a))`` on fresh vectors of ``n`` i32 (run() is graph_rewrite with symbolic + evaluate)."""
  base = next(_fresh) * 1_000_003 % 2**30
  a = UOp.stack(*range(base, base + n))
  b = UOp.stack(*range(base + 7, base + 7 + n))
  prog, pm = a * b + a, matcher("run", compiled)
  return lambda: to_python(graph_rewrite(prog, pm))


def sum_of_terms(k: int = 200, compiled: bool = True) -> Work:
  shift = next(_fresh) * 1000
  terms = [((UOp.param(shift + i, dtypes.i32) * 4 + 8) // 4) % 16 for i in range(k)]
  prog = terms[0]
  for t in terms[1:]: prog = prog + t
  pm = matcher("symbolic", compiled)
  return lambda: graph_rewrite(prog, pm)


def add_chain(n: int = 20_000, compiled: bool = True) -> Work:
  prog = UOp.param(next(_fresh))
  for _ in range(n): prog = prog + 1
  pm = matcher("symbolic", compiled)
  return lambda: graph_rewrite(prog, pm)


@contextmanager
def _compile_env(compiled: bool) -> Iterator[None]:
  """UOPC_COMPILE set for matchers made inside (the explorer benchmark makes its own)."""
  old = os.environ.get("UOPC_COMPILE")
  os.environ["UOPC_COMPILE"] = "1" if compiled else "0"
  try: yield
  finally:
    if old is None: del os.environ["UOPC_COMPILE"]
    else: os.environ["UOPC_COMPILE"] = old


def explorer_row(k: int = 7) -> tuple[str, dict[bool, float], str] | None:
  """bench.explore's throughput at ``k`` in both modes, or None if the explorer's benchmark is not there."""
  try: from bench.explore import throughput_rows
  except ImportError: return None
  throughput_rows(range(4, 5))   # warm up: first-use costs would land on whichever mode runs first
  best = {mode: float("inf") for mode in MODES}
  for _ in range(2):
    for mode in MODES:
      with _compile_env(mode): (_, states, _, secs), = throughput_rows(range(k, k + 1))
      best[mode] = min(best[mode], secs)
  return (f"explorer, k = {k} ({states:,} graphs)", best, f"{best[True] / states * 1e6:.1f} µs/graph")


def rows(explorer: bool = True) -> list[tuple[str, dict[bool, float], str]]:
  """(benchmark, {compiled: seconds}, note) for every row of the table."""
  out = []
  for n, reps in ((10, 200), (100, 50), (1000, 15)):
    t = _best_each(lambda mode, n=n: run_vectors(n, mode), reps)
    out.append((f"run() a*b + a, n = {n}", t, f"{t[True] / n * 1e6:.1f} µs/element"))
  out.append(("symbolic, 200-term sum", _best_each(lambda mode: sum_of_terms(compiled=mode), 15), "((v_i*4 + 8)//4) % 16"))
  out.append(("symbolic, 20,000-ADD chain", _best_each(lambda mode: add_chain(compiled=mode), 3), "p0 + 1 + 1 + ..."))
  if explorer and (row := explorer_row()) is not None: out.append(row)
  return out


def main() -> None:
  print("canonical engine: best wall time (ms); interpreted and compiled live in this run, the starting point recorded")
  print(f"{'benchmark':34s} {'start*':>9s} {'interp.':>9s} {'compiled':>9s} {'interp/comp':>11s} {'start/comp':>10s}  note")
  for name, t, note in rows():
    start = STARTING_POINT.get(name)
    interp, comp = t[False] * 1e3, t[True] * 1e3
    print(f"{name:34s} {start if start is not None else float('nan'):9.2f} {interp:9.2f} {comp:9.2f} {interp / comp:10.2f}x "
          f"{'' if start is None else f'{start / comp:9.2f}x':>10s}  {note}")
  print("* recorded 2026-11-30 before this work (best of 10 runs of the old benchmark), not measured now")
  print("  (python -m bench start measures it live);")
  print("  the explorer matches with UPat.match itself, so the compile switch does not reach it")


if __name__ == "__main__":
  main()
