"""Canonical-engine benchmarks: ``python -m bench engine``.

Rows: ``run()`` on ``a*b + a`` (µs per element), ``symbolic`` on a sum of 200 terms
``((v_i*4 + 8)//4) % 16``, and the 20,000-ADD chain. Every row builds fresh inputs
(hash consing would otherwise hand back last round's results) and reports the best of
a few repeats, in milliseconds.
"""
from __future__ import annotations

import itertools
import time
from typing import Callable

from uopc import UOp, dtypes, graph_rewrite, run, symbolic, to_python

_fresh = itertools.count(1)


def _best(make: Callable[[], Callable[[], object]], repeats: int = 5) -> float:
  """Best wall time (s) of ``make()()`` over ``repeats`` fresh inputs."""
  best = float("inf")
  for _ in range(repeats):
    work = make()
    t0 = time.perf_counter()
    work()
    best = min(best, time.perf_counter() - t0)
  return best


def run_vectors(n: int) -> Callable[[], object]:
  base = next(_fresh) * 1_000_003 % 2**30
  a = UOp.stack(*range(base, base + n))
  b = UOp.stack(*range(base + 7, base + 7 + n))
  prog = a * b + a
  return lambda: to_python(run(prog))


def sum_of_terms(k: int = 200) -> Callable[[], object]:
  shift = next(_fresh) * 1000
  terms = [((UOp.param(shift + i, dtypes.i32) * 4 + 8) // 4) % 16 for i in range(k)]
  prog = terms[0]
  for t in terms[1:]: prog = prog + t
  return lambda: graph_rewrite(prog, symbolic)


def add_chain(n: int = 20_000) -> Callable[[], object]:
  prog = UOp.param(next(_fresh))
  for _ in range(n): prog = prog + 1
  return lambda: graph_rewrite(prog, symbolic)


def rows() -> list[tuple[str, float, str]]:
  """(benchmark, milliseconds, note) for every row of the table."""
  out = []
  for n in (10, 100, 1000):
    t = _best(lambda: run_vectors(n))
    out.append((f"run() a*b + a, n = {n}", t * 1e3, f"{t / n * 1e6:.1f} µs/element"))
  out.append(("symbolic, 200-term sum", _best(sum_of_terms) * 1e3, "((v_i*4 + 8)//4) % 16"))
  out.append(("symbolic, 20,000-ADD chain", _best(add_chain, repeats=3) * 1e3, "p0 + 1 + 1 + ..."))
  return out


def main() -> None:
  print("canonical engine (best of repeats)")
  print(f"{'benchmark':32s} {'ms':>10s}  note")
  for name, ms, note in rows(): print(f"{name:32s} {ms:10.2f}  {note}")


if __name__ == "__main__":
  main()
