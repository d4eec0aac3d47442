"""``symbolic`` with its rules declared as data, run in the native core, against the same rules called in Python: ``python -m bench folds``.

``symbolic``'s constant fold (``_fold``), its bounds rule (``_const_bounds``) and the guarded rules beside them are
declared as data (``uopc/rule_data.py``), so the explorer's C core applies them itself (``_space_folds.c``, docs/native.md).
``without_data(symbolic)`` is the same rules with that data removed: every ALU node then goes to Python for its redexes,
as before. Each shape is explored both ways, breadth first, in one process, rounds interleaved (data, without, data,
...), best of ``ROUNDS`` in CPU time (``time.process_time``: the machine is shared); a fresh matcher per run, so no step
map is reused. Columns: states (the same both ways, checked, as are the graphs in order), states per CPU second each
way and their ratio, and with the data, the nodes the core showed to Python and the fraction of redexes Python made
(a node shown to Python has all its redexes made there). Shapes: sums with constants (``p0 + 1 + p1 + 2 + ...``), the
ADD-bubble (``(a + b) + c -> (a + c) + b``) with ``symbolic`` over a sum with constants, and every ``examples/*.uir``
program (capped at ``MAX_STATES``).
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

from uopc import PatternMatcher, UOp, UPat, symbolic
from uopc.relational.native.space import NativeSpace
from uopc.relational.space.stream import Exploration
from uopc.rule_data import without_data
from uopc.uir import parse_uir

ROUNDS = 3
MAX_STATES = 100_000
EXAMPLES = sorted(Path(__file__).resolve().parent.parent.glob("examples/*.uir"))
a, b, c = UPat.var("a"), UPat.var("b"), UPat.var("c")
BUBBLE = PatternMatcher([((a + b) + c, lambda a, b, c: (a + c) + b, "bubble")], name="bubble")


def sum_with_constants(n: int) -> UOp:
  """``p0 + 1 + p1 + 2 + ... + p(n-1) + n``."""
  g = UOp.param(0) + 1
  for i in range(1, n): g = g + UOp.param(i) + (i + 1)
  return g


class PythonCalls:
  """Counts what the native core asks Python (``NativeSpace._match``): nodes, and the redexes they had."""

  def __init__(self) -> None:
    self.nodes = self.redexes = 0
    real = NativeSpace._match

    def counted(space: NativeSpace, i: int):
      r = real(space, i)
      self.nodes += 1
      self.redexes += len(r or ())
      return r
    NativeSpace._match = counted  # type: ignore[method-assign]


def run(prog: UOp, pm: PatternMatcher, calls: PythonCalls) -> tuple[list, float, int, int, int] | None:
  """One exploration: its graphs, CPU seconds, the nodes and redexes Python was asked for, and all redexes; None where
  the native core does not run it (a CALL in the program)."""
  calls.nodes = calls.redexes = 0
  ex = Exploration(prog, pm + PatternMatcher([]), max_states=MAX_STATES, timeout=60.0)
  t = time.process_time()
  ex.run()
  dt = time.process_time() - t
  if not ex.native: return None
  total = ex._native.core.n_redexes   # every redex, made in C or by Python, is numbered by the core
  return [s.graph for s in ex.states], dt, calls.nodes, calls.redexes, total


def shapes() -> list[tuple[str, UOp, PatternMatcher, PatternMatcher]]:
  out = [(f"sum with constants, n = {n}", sum_with_constants(n), symbolic, without_data(symbolic)) for n in (5, 6, 7, 8)]
  out += [(f"ADD-bubble + symbolic, n = {n}", sum_with_constants(n), BUBBLE + symbolic, BUBBLE + without_data(symbolic)) for n in (4, 5)]
  out += [(f"examples/{p.name}", parse_uir(p.read_text(), str(p)), symbolic, without_data(symbolic)) for p in EXAMPLES]
  return out


def main() -> None:
  calls = PythonCalls()
  print(f"symbolic's rules as data in the C core against the same rules in Python: best of {ROUNDS} interleaved rounds, CPU time, "
        f"at most {MAX_STATES:,} states")
  print(f"{'shape':<34} {'states':>7} {'data st/s':>10} {'Python st/s':>11} {'ratio':>6} {'nodes to Py':>11} {'redexes by Py':>14}")
  for name, prog, with_data, bare in shapes():
    best = {True: float("inf"), False: float("inf")}
    graphs: dict[bool, list] = {}
    asked = (0, 0, 0)
    if run(prog, with_data, calls) is None:
      print(f"{name:<34} (the Python core runs it: a CALL)")
      continue
    for _ in range(ROUNDS):
      for data in (True, False):
        made = run(prog, with_data if data else bare, calls)
        assert made is not None
        g, dt, nodes, redexes, total = made
        best[data] = min(best[data], dt)
        graphs[data] = g
        if data: asked = (nodes, redexes, total)
    assert graphs[True] == graphs[False], f"{name}: the two explorations differ"
    n = len(graphs[True])
    rate = {d: n / max(best[d], 1e-9) for d in best}
    nodes, redexes, total = asked
    share = f"{redexes:,}/{total:,} ({redexes / total:.0%})" if total else "0/0"
    print(f"{name:<34} {n:>7,} {rate[True]:>10,.0f} {rate[False]:>11,.0f} {rate[True] / rate[False]:>5.2f}x {nodes:>11,} {share:>14}")
    sys.stdout.flush()


if __name__ == "__main__":
  main()
