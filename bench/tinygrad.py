"""tinygrad's own nodes and rules in the explorer: ``python bench/tinygrad.py``.

One table: the first 20,000 states of the same-shaped ~30-node index expression,
``sum_i (v_i + 0) * 1`` over 7 variables, explored as tinygrad nodes under tinygrad's
``symbolic`` and as uopc nodes under uopc's ``symbolic``: states per CPU second, best of 7
interleaved rounds, each round on fresh variables (hash consing would hand back last round's graphs) and a
fresh stepper. uopc's row runs in its native core (the default) and in the Python
core; tinygrad's runs in the Python core (its nodes are not the native core's).
The target: tinygrad's row at no less than half of uopc's Python core.

A second table: ``critical_pairs`` over tinygrad's ``symbolic_simple`` and ``symbolic``, one cold
run each (a fresh copy of the matcher, so no memo carries over); the target, ``symbolic`` (118
rules) in under 60 s. ``--pairs-only`` / ``--explore-only`` run one table.
"""
from __future__ import annotations

import gc
import itertools
import os
import sys
import time
from typing import Any, Callable

if __name__ == "__main__":   # run by path: the repository's root first, never bench/ (whose kanren.py shadows the package)
  _here = os.path.dirname(os.path.abspath(__file__))
  sys.path[:] = [os.path.dirname(_here), *(p for p in sys.path if os.path.abspath(p or ".") != _here)]

from uopc import PatternMatcher, UOp, symbolic
from uopc.relational import explore

TERMS, STATES, ROUNDS = 7, 20_000, 7
_fresh = itertools.count(1)


def uopc_program() -> tuple[UOp, Any]:
  base = next(_fresh) * 100
  terms = [(UOp.param(base + i) + 0) * 1 for i in range(TERMS)]
  prog = terms[0]
  for t in terms[1:]: prog = prog + t
  return prog, PatternMatcher(symbolic.rules)


def tinygrad_program() -> tuple[Any, Any]:
  from tinygrad.uop.ops import PatternMatcher as TPM
  from tinygrad.uop.ops import UOp as TUOp
  from tinygrad.uop.symbolic import symbolic as tsym
  k = next(_fresh)
  terms = [(TUOp.variable(f"v{k}_{i}", 0, 100) + 0) * 1 for i in range(TERMS)]
  prog = terms[0]
  for t in terms[1:]: prog = prog + t
  return prog, TPM(tsym.patterns)


def rate(make: Callable[[], tuple[Any, Any]], **kw: Any) -> tuple[int, int, float, bool]:
  """(nodes, states, states per CPU second, native) of one round: CPU time (``process_time``), not wall time, so another
  engineer's process sharing the core does not count against this one."""
  prog, pm = make()
  gc.collect()
  t0 = time.process_time()
  ex = explore(prog, pm, max_states=STATES, **kw).run()
  n = len(ex.states)
  return len(prog.toposort()), n, n / (time.process_time() - t0), ex.native


def pairs_rows() -> list[tuple[str, int, int, int, int, int, int, float, float]]:
  """(rule set, rules, skipped, pairs, instances, not joinable, errors, seconds, CPU seconds) of one cold run each."""
  from tinygrad.uop import symbolic as tsym
  from tinygrad.uop.ops import PatternMatcher as TPM

  from uopc.relational.analyses.pairs import critical_pairs
  out = []
  for name in ("symbolic_simple", "symbolic"):
    pm = TPM(getattr(tsym, name).patterns)   # a fresh matcher: its adapter, stepper and memos start empty
    gc.collect()
    t0, c0 = time.perf_counter(), time.process_time()
    r = critical_pairs(pm)
    out.append((name, r.rules, len(r.skipped), len(r.pairs), r.instances, r.count("not-joinable"), r.count("error"),
                time.perf_counter() - t0, time.process_time() - c0))
  return out


def pairs_main() -> None:
  print("critical pairs of tinygrad's rule sets (one cold run each; the target: symbolic under 60 s)")
  print(f"{'rule set':16s} {'rules':>5s} {'skipped':>7s} {'pairs':>6s} {'instances':>9s} {'not joinable':>12s} {'errors':>6s} "
        f"{'s':>6s} {'CPU s':>6s} {'s / 60 s':>8s}")
  for name, n, skipped, pairs, inst, bad, err, t, cpu in pairs_rows():
    print(f"{name:16s} {n:5d} {skipped:7d} {pairs:6d} {inst:9d} {bad:12d} {err:6d} {t:6.1f} {cpu:6.1f} {t / 60:8.2f}")


def main() -> None:
  if "--pairs-only" not in sys.argv: explore_main(); split_main()
  if "--explore-only" not in sys.argv: pairs_main()


def split_main() -> None:
  """Where one tinygrad exploration's CPU time goes: what only Python can do (tinygrad's own rule functions, called on
  tinygrad nodes, and making its nodes: its dtype rules and constructor, for each rebuilt node the stepper's lookup did
  not find), and the rest, the explorer's, which a native core could take."""
  from uopc.relational.ir.tinygrad import TINYGRAD, adapt
  prog, pm = tinygrad_program()
  rules, spent = adapt(pm), {"rules": 0.0, "make": 0.0}
  clock = time.process_time

  def timed(f: Callable, part: str) -> Callable:
    def run(*a: Any, **kw: Any) -> Any:
      t0 = clock()
      try: return f(*a, **kw)
      finally: spent[part] += clock() - t0
    return run
  rules._calls = [timed(f, "rules") for f in rules._calls]
  TINYGRAD.make = timed(TINYGRAD.make, "make")   # type: ignore[method-assign]  # one run, undone below
  shown = [0]
  every = rules.every_candidate

  def counted(u: Any) -> Any:
    shown[0] += 1
    return every(u)
  rules.every_candidate = counted   # type: ignore[method-assign]
  try:
    gc.collect()
    t0 = clock()
    ex = explore(prog, pm, max_states=STATES).run()
    total = clock() - t0
  finally: del TINYGRAD.make
  nodes = len(ex.stepper._maps)
  rest = total - spent["rules"] - spent["make"]
  print(f"where one tinygrad exploration's CPU time goes ({len(ex.states):,} states, {total:.2f} s, timers included)")
  for what, t in (("tinygrad's rule functions", spent["rules"]), ("making nodes (tinygrad's dtypes, constructor)", spent["make"]),
                  ("the explorer (states, step maps, matching)", rest)):
    print(f"  {what:46s} {t:6.2f} s {t / total:6.1%}")
  print(f"  nodes shown to the rules: {shown[0]:,} of the {nodes:,} nodes with a step map; a native core that did the "
        f"explorer's part in no time: at most {total / (total - rest):.1f}x")


def explore_main() -> None:
  print(f"tinygrad's symbolic vs uopc's symbolic: sum of {TERMS} (v + 0) * 1, first {STATES:,} states, best of {ROUNDS} "
        "interleaved rounds, states per CPU second")
  print(f"{'program':34s} {'nodes':>5s} {'states':>7s} {'states/s':>9s}")
  rows: dict[str, Callable[[], tuple[int, int, float, bool]]] = {
    "uopc UOp, uopc symbolic, native": lambda: rate(uopc_program),
    "uopc UOp, uopc symbolic, Python": lambda: rate(uopc_program, native=False),
    "tinygrad UOp, tinygrad symbolic": lambda: rate(tinygrad_program)}
  best: dict[str, tuple[int, int, float, bool]] = {}
  for _ in range(ROUNDS):   # interleaved, so a burst of load on the shared machine falls on every row alike
    for name, run in rows.items():
      r = run()
      if name not in best or r[2] > best[name][2]: best[name] = r
  for name, (nodes, n, r, native) in best.items():
    print(f"{name:34s} {nodes:5d} {n:7,d} {r:9,.0f}" + ("" if native or "native" not in name else "  (native core not used)"))
  ratio = best["tinygrad UOp, tinygrad symbolic"][2] / best["uopc UOp, uopc symbolic, Python"][2]
  print(f"tinygrad / uopc (Python core): {ratio:.2f}")


if __name__ == "__main__":
  main()
