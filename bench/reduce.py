"""The reduction against full exploration: ``python -m bench reduce``.

For each program of the issue (``examples/``), ``normal_forms`` with the reduction
(the default) and with ``reduce=False``, under ``symbolic``, capped at 200,000 states
and 20 s each: states visited, normal forms, complete or which bound stopped it,
seconds, and the time ratio full / reduced where both finish. The single-root sums
have no island, so the reduction cannot apply (docs/reduction.md says why); the
STACK programs are the same redexes side by side.

The second table is the reduction that reads independence from the patterns
(``uopc/relational/space/forms.py``): the issue's one-rule sum and balanced tree under
``x + 0 -> x`` (``examples/add_zero_rules.py``), whose spines no rule can ever match, against
full exploration; the issue's target is the normal form in under 1 s.

The third table is why the issue's targets for those three programs are out of reach
for any reduction that treats rule functions as black boxes (docs/reduction.md, "A lower
bound"): such a reduction must call every rule whose pattern matches at every reachable
root, since one changed function on one unvisited root could add a normal form. It
prints that work: reachable roots (all of them where the count is known, else the
states counted before the cap: a lower bound), rule-function calls per root and the cost
of one call (measured on the explored roots, calls alone, range caches warm), and a new
node's construction, and so the least time any black-box-sound exploration can take.
"""
from __future__ import annotations

import gc
import time

from uopc import PatternMatcher, UOp, symbolic
from uopc.relational import normal_forms
from uopc.relational.space.stream import Exploration
from uopc.rulesets import resolve_rules
from uopc.uir import parse_uir

PROGRAMS = ["stack30", "stack_five_params", "sum30", "five_params", "doubling"]
MAX_STATES, TIMEOUT = 200_000, 20.0
TARGETS = {"sum30": 2.0, "five_params": 1.0, "doubling": 5.0}   # the issue's targets, seconds
ROOTS_KNOWN = {"sum30": 2 ** 30}   # each of the 30 `add(pK, 0)` rewritten or not (one root each); the others are counted
ROOTS_AT_LEAST = {"doubling": 3_000_000}   # a 3-minute run passed 3,000,000 graphs without completing
LOWER_BOUND_CAP = 600_000          # five_params completes under it (488,511 graphs); doubling does not
PATTERN_PROGRAMS = [("add_zero_sum30", "examples/add_zero_rules.py:rules"), ("add_zero_tree24", "examples/add_zero_rules.py:rules")]


def _run(prog, reduce: bool, pm: PatternMatcher = symbolic):
  fresh = pm + PatternMatcher([])   # a new matcher object: no memoized step maps from the other run
  nf = normal_forms(prog, fresh, max_states=MAX_STATES, timeout=TIMEOUT, reduce=reduce)
  ex = nf.exploration
  return len(ex.states), len(nf.forms), ex.bound or "complete", ex.elapsed, ex.reduced


def _both(path: str, pm: PatternMatcher = symbolic) -> tuple[tuple, tuple]:
  """The reduced and the full run of the program in ``path``."""
  prog = parse_uir(open(path).read(), path)
  return _run(prog, True, pm), _run(prog, False, pm)


def _cells(reduced: tuple, full: tuple) -> str:
  """States, normal forms, status and seconds of both runs: the columns the two tables share."""
  (rs, rn, rb, rt, _), (fs, fn, fb, ft, _) = reduced, full
  return f"{rs:>15,} {rn:>4} {rb:>10} {rt:>7.2f}  {fs:>12,} {fn:>4} {fb:>10} {ft:>7.2f}"


def main() -> None:
  print(f"reduced vs full exploration (normal_forms, symbolic; caps {MAX_STATES:,} states, {TIMEOUT:g} s)")
  head = (f"{'program':<18} {'reduced: states':>15} {'nf':>4} {'status':>10} {'s':>7}  "
          f"{'full: states':>12} {'nf':>4} {'status':>10} {'s':>7}  {'full/red':>8}")
  print(head)
  print("-" * len(head))
  for name in PROGRAMS:
    reduced, full = _both(f"examples/{name}.uir")
    (_, _, rb, rt, used), (_, _, fb, ft, _) = reduced, full
    ratio = f"{ft / rt:8.1f}" if rb == fb == "complete" and rt > 0 else "       -"
    print(f"{name:<18} {_cells(reduced, full)}  {ratio}" + ("" if used else "   (no island: not reduced)"))
  print()
  pattern_independence()
  print()
  lower_bounds()


def pattern_independence() -> None:
  print(f"independence read from the patterns (normal_forms; caps {MAX_STATES:,} states, {TIMEOUT:g} s; target: the normal form in 1 s)")
  head = (f"{'program':<18} {'rules':<14} {'reduced: states':>15} {'nf':>4} {'status':>10} {'s':>7}  "
          f"{'full: states':>12} {'nf':>4} {'status':>10} {'s':>7}")
  print(head)
  print("-" * len(head))
  for name, rules in PATTERN_PROGRAMS:
    short = rules.rpartition("/")[2].partition(".")[0]
    print(f"{name:<18} {short:<14} {_cells(*_both(f'examples/{name}.uir', resolve_rules(rules)))}")


def _calls_per_root(roots: list[UOp]) -> tuple[float, float]:
  """(rule-function calls per root, seconds per call): the pattern matching is done first and not timed."""
  pm = symbolic + PatternMatcher([])
  calls = [(fn, b) for r in roots for _, match, fn in pm.every_candidate(r) for b in match(r)]
  spent = min(_time_calls(calls) for _ in range(3))   # a shared machine: the least of three runs
  return len(calls) / len(roots), spent / len(calls)


def _time_calls(calls: list) -> float:
  gc.disable()
  try:
    t = time.process_time()
    for fn, b in calls:
      try: fn(**b)
      except Exception: pass   # a rule that raises was still called: its cost counts
    return time.process_time() - t
  finally: gc.enable()


def _node_cost(n: int = 100_000) -> float:
  """Seconds to build one new node (a hash-consing miss: ADDs of a fresh constant), the least of three runs."""
  p0, best = UOp.param(0), float("inf")
  for run in range(3):
    t = time.process_time()
    kept = [p0 + k for k in range(10**9 + run * n, 10**9 + (run + 1) * n)]
    best = min(best, time.process_time() - t)
    del kept
  return best / n


def lower_bounds() -> None:
  print(f"the least work of a black-box-sound exploration (symbolic; roots counted up to {LOWER_BOUND_CAP:,})")
  head = f"{'program':<12} {'roots':>15} {'calls/root':>10} {'us/call':>8} {'us/node':>8} {'least s':>9} {'target s':>8}"
  print(head)
  print("-" * len(head))
  node = _node_cost()
  for name, target in TARGETS.items():
    path = f"examples/{name}.uir"
    ex = Exploration(parse_uir(open(path).read(), path), symbolic + PatternMatcher([]), max_states=LOWER_BOUND_CAP, timeout=120).run()
    roots = [s.graph for s in ex.states]
    per_root, per_call = _calls_per_root(roots)
    count = ROOTS_KNOWN.get(name, max(len(roots), ROOTS_AT_LEAST.get(name, 0)))
    at_least = "" if name in ROOTS_KNOWN or ex.bound is None else ">="
    least = count * (per_root * per_call + node)
    print(f"{name:<12} {at_least + f'{count:,}':>15} {per_root:>10.1f} {per_call * 1e6:>8.2f} {node * 1e6:>8.2f} "
          f"{at_least + f'{least:.1f}':>9} {target:>8g}")


if __name__ == "__main__":
  main()
