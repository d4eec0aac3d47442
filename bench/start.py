"""The canonical engine against its own starting point, live: ``python -m bench start``.

``bench.engine``'s "start" column is a recorded number, taken on a busy machine, so
its ratio to a live number is only as good as that moment. This benchmark measures
the starting point again, now: the engine as it was at ``START_COMMIT`` (the commit
before the fast engine, extracted with ``git archive``) and the engine as it is, each
in a fresh worker process, alternating for a few rounds; a row's figure is the best
of every repeat in every worker of that engine.

Separate processes, because two engines in one process share one garbage collector
and one heap, and each one's collections would walk the other's nodes. Alternating
rounds, because this machine's speed drifts by tens of percent from minute to minute.

Both workers run the same code on the API the two engines share: ``run()`` and
``graph_rewrite(.., symbolic)`` with each engine's defaults.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tarfile
import tempfile
import time
from io import BytesIO
from pathlib import Path
from typing import Callable

START_COMMIT = "ff4e37d14080720ba218518b723977fc32c6db9b"   # the last commit before the fast engine (issue 6)
ROUNDS = 3
REPO = Path(__file__).resolve().parent.parent
# (row, what to build, repeats per worker)
ROWS = [("run() a*b + a, n = 10", ("run", 10), 200), ("run() a*b + a, n = 100", ("run", 100), 50),
        ("run() a*b + a, n = 1000", ("run", 1000), 15), ("symbolic, 200-term sum", ("sum", 200), 10),
        ("symbolic, 20,000-ADD chain", ("chain", 20_000), 2)]


def extract_start(into: Path) -> Path | None:
  """The starting point's ``uopc`` package under ``into``, or None if git or the commit is not there."""
  try: tar = subprocess.run(["git", "-C", str(REPO), "archive", START_COMMIT, "uopc"], capture_output=True, check=True).stdout
  except (OSError, subprocess.CalledProcessError): return None
  with tarfile.open(fileobj=BytesIO(tar)) as t: t.extractall(into, filter="data")
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
  """Measure every row with whichever ``uopc`` is first on the path; print {row: best seconds} as JSON."""
  import uopc
  best, fresh = {}, 1
  for name, (kind, size), repeats in ROWS:
    best[name] = float("inf")
    for _ in range(repeats):
      fresh += 1
      work = _work(kind, size, fresh)
      t0 = time.perf_counter()
      work()
      best[name] = min(best[name], time.perf_counter() - t0)
  print(json.dumps({"engine": uopc.__file__, "best": best}))


def _run_worker(path: Path) -> dict[str, float]:
  env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(path), str(REPO)])}
  out = subprocess.run([sys.executable, "-m", "bench.start", "--worker"], env=env, cwd=path,   # -m puts cwd first
                       capture_output=True, text=True, check=True).stdout
  reply = json.loads(out)
  if not Path(reply["engine"]).resolve().is_relative_to(path.resolve()):   # an installed uopc shadowed the one asked for
    raise RuntimeError(f"worker for {path} imported {reply['engine']}")
  return reply["best"]


def measure(rounds: int = ROUNDS) -> dict[str, dict[str, float]] | None:
  """{row: {"start": s, "now": s}}, best over ``rounds`` alternating pairs of workers; None without the start."""
  with tempfile.TemporaryDirectory(prefix="uopc-start-") as tmp:
    start = extract_start(Path(tmp))
    if start is None: return None
    best = {name: {"start": float("inf"), "now": float("inf")} for name, _, _ in ROWS}
    for _ in range(rounds):
      for engine, path in (("start", start), ("now", REPO)):
        for name, secs in _run_worker(path).items():
          best[name][engine] = min(best[name][engine], secs)
    return best


def main() -> None:
  print(f"canonical engine against its starting point ({START_COMMIT[:7]}), live: best wall time (ms),")
  print(f"each engine in its own worker processes, {ROUNDS} alternating rounds")
  if (best := measure()) is None:
    print("  (skipped: git or the starting commit is not available in this checkout)")
    return
  print(f"{'benchmark':34s} {'start':>9s} {'now':>9s} {'start/now':>10s}")
  for name, t in best.items():
    print(f"{name:34s} {t['start'] * 1e3:9.2f} {t['now'] * 1e3:9.2f} {t['start'] / t['now']:9.2f}x")


if __name__ == "__main__":
  if sys.argv[1:] == ["--worker"]: worker()
  else: main()
