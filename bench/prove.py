"""Proving the built-in rule sets: ``python -m bench prove``.

Table 1: ``uopc check-rules --prove RULES --format json`` run as a command for ``symbolic``, ``fold`` and ``evaluate``,
each rule's verdict and CPU seconds (what its proof cost in the process that proved it), and per command the wall
time and the CPU time summed over every process it ran (itself, its workers, the C compiler: ``RUSAGE_CHILDREN``).
The bar (issue 37): the three commands under 10 s in all. With ``BENCH_PROVE_BASELINE=/path/to/another/checkout``
the same commands run on that tree too, rounds interleaved, side by side.

Table 2: where the time goes, in one process (``prove_rules`` called directly, serially): z3's solving, making
z3 contexts and translating terms into them, encoding graphs as terms, the concolic runs of the rule functions,
building the left sides, the replays; each category's own (exclusive) CPU time.
"""
from __future__ import annotations

import functools
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parent.parent
RULE_SETS = ("symbolic", "fold", "evaluate")
ROUNDS = 1


def _children_cpu() -> float:
  r = resource.getrusage(resource.RUSAGE_CHILDREN)
  return r.ru_utime + r.ru_stime


def run_command(rules: str, tree: Path = ROOT) -> tuple[float, float, dict[str, Any]]:
  """(wall s, CPU s over every process, the JSON report) of ``check-rules --prove rules`` on ``tree``."""
  env = {**os.environ, "PYTHONPATH": str(tree)}
  cpu, t = _children_cpu(), time.perf_counter()
  out = subprocess.run([sys.executable, "-m", "uopc", "check-rules", "--prove", rules, "--format", "json"], cwd=tree, env=env,
                       capture_output=True, text=True, check=False)
  wall, cpu = time.perf_counter() - t, _children_cpu() - cpu
  if out.returncode not in (0, 1): raise RuntimeError(f"check-rules --prove {rules} on {tree} exited {out.returncode}: {out.stderr[-500:]}")
  return wall, cpu, json.loads(out.stdout)


def _rule_rows(report: dict[str, Any]) -> dict[str, tuple[str, float]]:
  return {r["rule"]: (r["verdict"], sum(d["seconds"] for d in r["dtypes"])) for r in report["rules"]}


def commands_table(trees: dict[str, Path]) -> list[str]:
  """Table 1: per tree, rule set and rule, the verdict and CPU seconds; per command wall and CPU (best of ``ROUNDS``)."""
  best: dict[tuple[str, str], tuple[float, float, dict[str, Any]]] = {}
  for _ in range(ROUNDS):   # rounds interleaved: every tree and rule set once per round
    for rules in RULE_SETS:
      for label, tree in trees.items():
        wall, cpu, report = run_command(rules, tree)
        if (label, rules) not in best or cpu < best[label, rules][1]: best[label, rules] = (wall, cpu, report)
  labels = list(trees)
  lines = [f"{'rule set':9} {'rule':22} " + " ".join(f"{label + ' verdict':>16} {'s':>6}" for label in labels)]
  totals = {label: [0.0, 0.0] for label in labels}
  for rules in RULE_SETS:
    per = {label: _rule_rows(best[label, rules][2]) for label in labels}
    for name in per[labels[0]]:
      cells = [f"{per[label].get(name, ('-', 0.0))[0]:>16} {per[label].get(name, ('-', 0.0))[1]:6.2f}" for label in labels]
      lines.append(f"{rules:9} {name:22} " + " ".join(cells))
    cells = []
    for label in labels:
      wall, cpu, report = best[label, rules]
      totals[label][0] += wall
      totals[label][1] += cpu
      counts = ", ".join(f"{n} {k}" for k, n in sorted(report["summary"].items()))
      cells.append(f"wall {wall:5.2f} s, cpu {cpu:5.2f} s ({counts})")
    lines.append(f"{rules:9} {'(command)':22} " + " | ".join(cells))
  lines.append(f"{'all three':32} " + " | ".join(f"{label}: wall {w:5.2f} s, cpu {c:5.2f} s (bar: 10 s)" for label, (w, c) in totals.items()))
  return lines


CATEGORIES = ("z3 check", "z3 context+translate", "encode", "concolic", "left sides", "run() replay", "C replay")


class _Clock:
  """Exclusive CPU time per category: entering one pauses the category it was called from."""

  def __init__(self) -> None:
    self.spent: dict[str, float] = {}
    self.stack: list[str] = []
    self.since = time.process_time()

  def switch(self, to: str | None) -> None:
    now = time.process_time()
    if self.stack: self.spent[self.stack[-1]] = self.spent.get(self.stack[-1], 0.0) + now - self.since
    if to is None: self.stack.pop()
    else: self.stack.append(to)
    self.since = now

  def wrap(self, owner: Any, name: str, category: str, generator: bool = False) -> Callable[[], None]:
    """Count ``owner.name`` to ``category``; returns the undo."""
    f = getattr(owner, name)
    clock = self
    if generator:
      def counted(*a: Any, **k: Any) -> Any:
        it = f(*a, **k)
        while True:
          clock.switch(category)
          try: x = next(it)
          except StopIteration: return
          finally: clock.switch(None)
          yield x
    else:
      @functools.wraps(f)
      def counted(*a: Any, **k: Any) -> Any:
        clock.switch(category)
        try: return f(*a, **k)
        finally: clock.switch(None)
    setattr(owner, name, counted)
    return lambda: setattr(owner, name, f)


def where_table() -> list[str]:
  """Table 2: each rule set proved in this process, its CPU time split by category."""
  import uopc.smt.prove as prove
  import uopc.smt.report as report
  import uopc.smt.solver as solver
  from uopc.rulesets import resolve_rules
  from uopc.smt.encode import Encoder
  lines = [f"{'rule set':9} {'cpu s':>6}  " + "  ".join(f"{c:>20}" for c in (*CATEGORIES, "other"))]
  for rules in RULE_SETS:
    clock = _Clock()
    undo = [clock.wrap(solver.Fresh, "check", "z3 check"), clock.wrap(solver.Fresh, "__init__", "z3 context+translate"),
            clock.wrap(solver.Fresh, "add", "z3 context+translate"), clock.wrap(Encoder, "encode", "encode"),
            clock.wrap(prove, "explore", "concolic"), clock.wrap(prove, "left_sides", "left sides", generator=True),
            clock.wrap(prove, "replay", "run() replay"), clock.wrap(report, "replay_in_c", "C replay")]
    try:
      t = time.process_time()
      clock.switch("other")
      report.prove_rules(resolve_rules(rules))
      clock.switch(None)
      total = time.process_time() - t
    finally:
      for u in undo: u()
    lines.append(f"{rules:9} {total:6.2f}  " + "  ".join(f"{clock.spent.get(c, 0.0):20.2f}" for c in (*CATEGORIES, "other")))
  lines.append("(the C compiler runs in processes of its own: its time is in table 1's command CPU, not here)")
  return lines


def main() -> None:
  trees = {"now": ROOT}
  if base := os.environ.get("BENCH_PROVE_BASELINE"): trees = {"base": Path(base).resolve(), **trees}
  print("check-rules --prove, per rule: verdict and seconds as the tree's report gives them (CPU since this bench; a tree "
        f"before it: wall); per command: wall and CPU over all its processes (best of {ROUNDS}; bar: the three under 10 s)")
  print("\n".join(commands_table(trees)))
  print()
  print("where the time goes, one process, serial (exclusive CPU s per category)")
  print("\n".join(where_table()))


if __name__ == "__main__":
  main()
