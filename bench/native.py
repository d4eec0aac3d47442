"""Is a compiled hot core worth it? ``python -m bench native``.

The one adopted: **the C core** (``uopc/relational/native/_space*.c``, built at install), which
keeps nodes in arrays of its own; its column runs the repository as installed with
``native=True``, the pure column with ``native=False``. The others are not adopted: it also
compiles the explorer's hot core, the modules every state goes through: ``uopc/uop.py``
(hash consing), ``space/step.py`` (the per-node maps, spine rebuilding),
``space/states.py`` (states) and ``space/stream.py`` (the frontier loop), into a
temporary copy of ``uopc``, with each compiler that is installed:

- **mypyc** (ships with mypy, a test dependency). Two classes must stay Python classes
  (``@mypyc_attr(native_class=False)``, added to the copy only): ``UOp``, which is made
  with ``object.__new__`` (a mypyc class refuses that), and ``Stepper``, which
  ``stepper_for`` keeps in a ``WeakValueDictionary`` (mypyc classes take no weak
  references).
- **Cython** (PyPI ``cython``, if installed): the same ``.py`` files, unchanged.

Then it explores the same shapes with the pure modules and with each compiled copy,
each in a worker process of its own (``bench.workers``) taking turns (the machine's
speed drifts by tens of percent from minute to minute), and prints states per second
of CPU time (the best turn) and compiled/pure. A row also says whether the compiled exploration is the same
as the pure one: the same states in the same order, each with the same depth, parent,
rule and number of steps out. Shapes (each turn uses fresh PARAM slots and a fresh rule
set, so no memo carries over):

- ``bench explore, k = 8``: ``sum_i (p_i + 0) * 1`` under ``x+0, 0+x, x*1, 1*x``, 65,536 graphs
- ``bench explore, 10k beside``: the 5-term region (1,024 graphs) beside 10,000 other
  nodes, indexing them included
- ``(i) 16 pK + 0``: ``sum_k (p_k + 0)`` under ``x + 0``, 16 independent redexes, 65,536 graphs
- ``(ii) comm + x+0, 7 terms``: ``sum_k (p_k + 0)`` under ``x + 0`` and ``x + y -> y + x``, 139,968 graphs
- ``(i) 16 pK + 0, depth first`` and ``(ii) comm, 6 terms, tree``: (i) with ``order="dfs"``, and (ii) with 6 terms
  (23,328 graphs) under ``semantics="tree"``

Env ``NATIVE_SHAPES``: the rows to run, by the start of their names, comma-separated (``(i),(ii)``);
``NATIVE_COMPILERS``: the compilers to try (default ``mypyc,cython``; empty: the C core and the pure modules only).

docs/native.md has a run of it, and why the C core was adopted and mypyc and Cython were not.
"""
from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.workers import REPO, Worker, serve

CORE = ["uopc/uop.py", "uopc/relational/space/step.py", "uopc/relational/space/states.py", "uopc/relational/space/stream.py"]
PYTHON_CLASSES = {"uopc/uop.py": "class UOp:", "uopc/relational/space/step.py": "class Stepper:"}   # for mypyc: see above
SHAPES = {"bench explore, k = 8": ("unit_sum", 8, "bfs", "graph"), "bench explore, 10k beside": ("beside", 10_000, "bfs", "graph"),
          "(i) 16 pK + 0": ("plus_zero", 16, "bfs", "graph"), "(ii) comm + x+0, 7 terms": ("commute", 7, "bfs", "graph"),
          "(i) 16 pK + 0, depth first": ("plus_zero", 16, "dfs", "graph"), "(ii) comm, 6 terms, tree": ("commute", 6, "bfs", "tree")}
TURNS = 3   # turns of each build per shape


# ---- the worker: one exploration per request, with whichever uopc is first on the path

def _exploration(kind: str, size: int, fresh: int):   # -> (program, rules)
  from bench.explore import other_nodes, sharing_free_sum, unit_rules
  from uopc import Ops, PatternMatcher, UOp, UPat
  if kind == "unit_sum": return sharing_free_sum(size), unit_rules()
  if kind == "beside": return sharing_free_sum(5) + other_nodes(size), unit_rules()
  x, y = UPat.var("x"), UPat.var("y")
  rules = [(UPat(Ops.ADD, src=(x, UPat(Ops.CONST, arg=0))), lambda x: x)]
  if kind == "commute": rules.append((UPat(Ops.ADD, src=(x, y)), lambda x, y: y + x))
  terms = [UOp.param(fresh * 1000 + i) + 0 for i in range(size)]
  prog = terms[0]
  for t in terms[1:]: prog = prog + t
  return prog, PatternMatcher(rules)


def _fingerprint(states: list) -> str:
  """The exploration's shape, independent of PARAM slots: per state its depth, parent, rule and out-degree."""
  h = hashlib.sha256()
  for s in states:
    h.update(f"{s.depth},{-1 if s.parent is None else s.parent.id},{s.rule_index},{len(s.out)};".encode())
  return h.hexdigest()[:16]


def worker() -> None:
  """Serve explorations with whichever uopc is first on the path: ``kind size native order semantics`` in,
  ``{"cpu", "states", "fingerprint"}`` out."""
  from uopc.relational import explore
  fresh = 0

  def run(line: str) -> str:
    nonlocal fresh
    kind, size, native, order, semantics = line.split()
    fresh += 1
    prog, pm = _exploration(kind, int(size), fresh)
    t0 = time.process_time()
    ex = explore(prog, pm, max_states=None, native=native == "1", order=order, semantics=semantics).run()
    cpu = time.process_time() - t0
    assert ex.complete
    return json.dumps({"cpu": cpu, "states": len(ex.states), "fingerprint": _fingerprint(ex.states)})
  serve(["uopc.relational.space.step", "uopc.uop"], run)


def _worker(path: Path, compiled: bool) -> Worker:
  """A worker on the build at ``path``, checked to run its core compiled (or not)."""
  w = Worker("bench.native", path)
  if not all((f.suffix == ".so") == compiled for f in w.files):
    w.close()
    raise RuntimeError(f"the worker for {path} imported {w.files}")
  return w


# ---- the builds

def _copy(into: Path) -> Path:
  shutil.copytree(REPO / "uopc", into / "uopc", ignore=shutil.ignore_patterns("__pycache__", "*.so", "*.c"))
  shutil.copy(REPO / "pyproject.toml", into)   # mypy's settings for the imports it cannot type
  return into


def build_mypyc(into: Path) -> str | None:
  """Compile the core with mypyc into ``into``; None, or why it failed."""
  _copy(into)
  for name, cls in PYTHON_CLASSES.items():
    f = into / name
    text = f.read_text()
    if cls not in text: return f"{cls!r} not found in {name}"
    future = "from __future__ import annotations\n"   # the first statement: the import goes after it
    if future not in text: return f"{future.strip()!r} not found in {name}"
    text = text.replace(future, future + "from mypy_extensions import mypyc_attr\n", 1)
    f.write_text(text.replace(cls, f"@mypyc_attr(native_class=False)\n{cls}", 1))
  return _run([sys.executable, "-m", "mypyc", *CORE], into)


def build_cython(into: Path) -> str | None:
  """Compile the core with Cython into ``into``; None, or why it failed."""
  if importlib.util.find_spec("Cython") is None: return "Cython is not installed (pip install cython)"
  _copy(into)
  return _run([sys.executable, "-m", "Cython.Build.Cythonize", "-3", "-i", *CORE], into)


def _run(cmd: list[str], cwd: Path) -> str | None:
  done = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
  if done.returncode == 0 and all(next((cwd / name).parent.glob(f"{Path(name).stem}.*.so"), None) for name in CORE): return None
  lines = [line for line in (done.stdout + done.stderr).splitlines() if "error" in line.lower()] or ["no extension modules"]
  return lines[0].strip()


C_CORE = "C core"   # the repository as installed, exploring with native=True


def measure(builds: dict[str, Path]) -> dict[str, dict[str, dict]]:
  """{shape: {build: best reply}}: each build's best turn (least CPU time), the builds taking turns."""
  workers = {name: _worker(path, name not in ("pure", C_CORE)) for name, path in builds.items()}
  try:
    best: dict[str, dict[str, dict]] = {}
    wanted = [w for w in os.environ.get("NATIVE_SHAPES", "").split(",") if w]
    for shape, (kind, size, order, semantics) in SHAPES.items():
      if wanted and not any(shape.startswith(w) for w in wanted): continue
      best[shape] = {}
      for _ in range(TURNS):
        for name, w in list(workers.items()):
          if not (answer := w.ask(f"{kind} {size} {int(name == C_CORE)} {order} {semantics}")):   # the worker died (its traceback is above)
            print(f"  {name}: failed on {shape}: left out from here on")
            workers.pop(name).close()
            continue
          r = json.loads(answer)
          if name not in best[shape] or r["cpu"] < best[shape][name]["cpu"]: best[shape][name] = r
    return best
  finally:
    for w in workers.values(): w.close()


def main() -> None:
  print("compiled hot cores (the C core; uop, step, states, stream by mypyc and Cython) against the pure modules: states/s of CPU time, best of "
        f"{TURNS} turns")
  with tempfile.TemporaryDirectory(prefix="uopc-native-") as tmp:
    builds = {"pure": REPO}
    from uopc.relational.native import available, missing
    if available(): builds[C_CORE] = REPO
    else: print(f"  {C_CORE}: not built: {missing()}")
    compilers = os.environ.get("NATIVE_COMPILERS", "mypyc,cython").split(",")
    for name, build in (("mypyc", build_mypyc), ("cython", build_cython)):
      if name not in compilers: continue
      t0 = time.perf_counter()
      why = build(Path(tmp) / name)
      if why is None:
        builds[name] = Path(tmp) / name
        print(f"  {name}: built in {time.perf_counter() - t0:.0f} s")
      else: print(f"  {name}: not built: {why}")
    best = measure(builds)
  compiled = [b for b in builds if b != "pure"]
  print(f"{'shape':28s} {'states':>8s} {'pure/s':>8s}" + "".join(f" {b + '/s':>9s} {b + '/pure':>12s} {'same':>5s}" for b in compiled))
  for shape, rows in best.items():
    pure = rows["pure"]
    line = f"{shape:28s} {pure['states']:8,d} {pure['states'] / pure['cpu']:8,.0f}"
    for b in compiled:
      if (r := rows.get(b)) is None:
        line += f" {'failed':>9s} {'-':>12s} {'-':>5s}"
        continue
      same = r["states"] == pure["states"] and r["fingerprint"] == pure["fingerprint"]
      line += f" {r['states'] / r['cpu']:9,.0f} {pure['cpu'] / r['cpu']:11.2f}x {'yes' if same else 'NO':>5s}"
    print(line)


if __name__ == "__main__":
  if sys.argv[1:] == ["--worker"]: worker()
  else: main()
