"""C backend benchmarks: ``python -m bench backend``.

For ``a * b + a`` on i32 vectors of n = 10, 100, 1000 (the chapter's interpreter
example), in milliseconds, best of a few repeats with fresh inputs:

- ``run()``: the rewriting interpreter;
- ``render``: ``simplify`` + inline + C source;
- ``compile``: the system C compiler on that source (uncached);
- ``first``: ``run_c`` with an empty cache (render + compile + run the binary);
- ``cached``: ``run_c`` again (render + cache hit + process start + I/O);
- ``ratio``: ``run()`` time over ``cached`` time, measured in the same run.

Closed rows compile the constants into the program; ``param`` rows pass a and b as
PARAMs, so one binary serves every input (what ``uopc run --backend c`` caches).
"""
from __future__ import annotations

import itertools
import os
import tempfile
import time
from pathlib import Path
from typing import Callable

from uopc import UOp, dtypes, run, to_python
from uopc.evaluate import bind_params

from uopc.backend import program_source, run_c
from uopc.backend.toolchain import compile_to

_fresh = itertools.count(1)


def _best(work: Callable[[], object], repeats: int = 3) -> float:
  best = float("inf")
  for _ in range(repeats):
    t0 = time.perf_counter()
    work()
    best = min(best, time.perf_counter() - t0)
  return best


def _vectors(n: int) -> tuple[list[int], list[int]]:
  base = next(_fresh) * 1_000_003 % 2**30
  return list(range(base, base + n)), list(range(base + 7, base + 7 + n))


def row(n: int, params: bool) -> tuple[str, dict[str, float]]:
  """One row: times in ms of run(), render, compile, first and cached run_c."""
  a_vals, b_vals = _vectors(n)
  if params:
    a, b = UOp.param(0, dtypes.i32, (n,)), UOp.param(1, dtypes.i32, (n,))
    values = {0: a_vals, 1: b_vals}
  else: a, b, values = UOp.stack(*a_vals), UOp.stack(*b_vals), {}
  prog = a * b + a
  want = to_python(run(bind_params(prog, values)))
  t: dict[str, float] = {}
  # run() memoizes through hash consing: time fresh programs (new constants) each repeat
  def fresh_run() -> None:
    x, y = _vectors(n)
    fresh = bind_params(prog, {0: x, 1: y}) if params else UOp.stack(*x) * UOp.stack(*y) + UOp.stack(*x)
    to_python(run(fresh))
  t["run()"] = _best(fresh_run)
  t["render"] = _best(lambda: program_source(prog))
  source, _ = program_source(prog)
  with tempfile.TemporaryDirectory(prefix="uopc-bench-") as tmp:
    t["compile"] = _best(lambda: compile_to(source, Path(tmp) / "exe"))
    old = os.environ.get("UOPC_CACHE_DIR")
    os.environ["UOPC_CACHE_DIR"] = str(Path(tmp) / "cache")
    try:
      t0 = time.perf_counter()
      got = run_c(prog, values)
      t["first"] = time.perf_counter() - t0
      t["cached"] = _best(lambda: run_c(prog, values), repeats=5)
    finally:
      if old is None: del os.environ["UOPC_CACHE_DIR"]
      else: os.environ["UOPC_CACHE_DIR"] = old
  assert got == want, "the C backend disagrees with run()"
  return f"a*b + a, n = {n}{', param' if params else ''}", {k: v * 1e3 for k, v in t.items()}


def main() -> None:
  """Print the table."""
  cols = ["run()", "render", "compile", "first", "cached"]
  rows = [row(n, params) for params in (False, True) for n in (10, 100, 1000)]
  w = max(len(name) for name, _ in rows)
  print("C backend (ms, best of 3; ratio = run() / cached run_c, measured in this run)")
  print(f"{'program':{w}}  " + "  ".join(f"{c:>8}" for c in cols) + f"  {'ratio':>7}")
  for name, t in rows:
    print(f"{name:{w}}  " + "  ".join(f"{t[c]:8.2f}" for c in cols) + f"  {t['run()'] / t['cached']:6.1f}x")


if __name__ == "__main__":
  main()
