"""The canonical engine against its own starting point, live: ``python -m bench start``.

``bench.engine``'s "start" column is a recorded number, taken on a busy machine, so
its ratio to a live number is only as good as that moment. This benchmark measures
the starting point again, now: the engine as it was at ``START_COMMIT`` (the commit
before the fast engine, extracted with ``git archive``) against the engine as it is.

Each engine runs in a worker process of its own (``bench.workers``), and the two
workers take turns, so that both see the machine in the same state: its speed drifts
by tens of percent from minute to minute. A turn is a few repeats, because the first run after the other worker's turn starts with cold caches.
A row's figure is each engine's best run. Both workers run the same code on the API
the two engines share: ``run()`` and ``graph_rewrite(.., symbolic)``, each with its
engine's defaults.
"""
from __future__ import annotations

import subprocess
import sys
import tarfile
import tempfile
import time
from io import BytesIO
from pathlib import Path
from typing import Callable

from bench.workers import REPO, Worker, serve

START_COMMIT = "ff4e37d14080720ba218518b723977fc32c6db9b"   # the last commit before the fast engine: what it is measured against
TURNS = 8   # turns of each engine per row
# (row, what to build, repeats in one turn: enough that the first, cold one does not decide)
ROWS = [("run() a*b + a, n = 10", ("run", 10), 100), ("run() a*b + a, n = 100", ("run", 100), 20),
        ("run() a*b + a, n = 1000", ("run", 1000), 4), ("symbolic, 200-term sum", ("sum", 200), 3),
        ("symbolic, 20,000-ADD chain", ("chain", 20_000), 1)]


def extract_start(into: Path) -> Path | None:
  """The starting point's ``uopc`` package under ``into``, or None if git or the commit is not there."""
  try: tar = subprocess.run(["git", "-C", str(REPO), "archive", START_COMMIT, "uopc"], capture_output=True, check=True).stdout
  except (OSError, subprocess.CalledProcessError): return None
  with tarfile.open(fileobj=BytesIO(tar)) as t:
    try: t.extractall(into, filter="data")
    except TypeError: t.extractall(into)   # a Python without extraction filters; the archive is our own history
  return into


def _work(kind: str, size: int, fresh: int) -> Callable[[], object]:
  """A fresh input (hash consing would hand back an earlier round's result) and the work on it."""
  from uopc import UOp, dtypes, graph_rewrite, run, symbolic, to_python
  if kind == "run":
    base = fresh * 1_000_003 % 2**30
    a, b = UOp.stack(*range(base, base + size)), UOp.stack(*range(base + 7, base + 7 + size))
    prog = a * b + a
    return lambda: to_python(run(prog))
  if kind == "sum":
    terms = [((UOp.param(fresh * 1000 + i, dtypes.i32) * 4 + 8) // 4) % 16 for i in range(size)]
    prog = terms[0]
    for t in terms[1:]: prog = prog + t
    return lambda: graph_rewrite(prog, symbolic)
  prog = UOp.param(fresh)
  for _ in range(size): prog = prog + 1
  return lambda: graph_rewrite(prog, symbolic)


def worker() -> None:
  """Serve turns with whichever ``uopc`` is first on the path: ``kind size repeats`` in, the best seconds out."""
  fresh = 1

  def turn(line: str) -> str:
    nonlocal fresh
    kind, size, repeats = line.split()
    best = float("inf")
    for _ in range(int(repeats)):
      fresh += 1
      work = _work(kind, int(size), fresh)
      t0 = time.perf_counter()
      work()
      best = min(best, time.perf_counter() - t0)
    return str(best)
  serve(["uopc"], turn)


def measure() -> dict[str, dict[str, float]] | None:
  """{row: {"start": s, "now": s}}: each engine's best run, the engines taking turns; None without the start."""
  with tempfile.TemporaryDirectory(prefix="uopc-start-") as tmp:
    if (start := extract_start(Path(tmp))) is None: return None
    workers = {"start": Worker("bench.start", start), "now": Worker("bench.start", REPO)}
    try:
      best = {}
      for name, (kind, size), repeats in ROWS:
        best[name] = {engine: float("inf") for engine in workers}
        for _ in range(TURNS):
          for engine, w in workers.items(): best[name][engine] = min(best[name][engine], float(w.ask(f"{kind} {size} {repeats}")))
      return best
    finally:
      for w in workers.values(): w.close()


def main() -> None:
  print(f"canonical engine against its starting point ({START_COMMIT[:7]}), live: best wall time (ms),")
  print(f"each engine in a worker process of its own, the two taking {TURNS} turns each")
  if (best := measure()) is None:
    print("  (skipped: git or the starting commit is not available in this checkout)")
    return
  print(f"{'benchmark':34s} {'start':>9s} {'now':>9s} {'start/now':>10s}")
  for name, t in best.items():
    print(f"{name:34s} {t['start'] * 1e3:9.2f} {t['now'] * 1e3:9.2f} {t['start'] / t['now']:9.2f}x")


if __name__ == "__main__":
  if sys.argv[1:] == ["--worker"]: worker()
  else: main()
