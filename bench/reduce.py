"""The reduction against full exploration: ``python -m bench reduce``.

For each program of the issue (``examples/``), ``normal_forms`` with the reduction
(the default) and with ``reduce=False``, under ``symbolic``, capped at 200,000 states
and 20 s each: states visited, normal forms, complete or which bound stopped it,
seconds, and the time ratio full / reduced where both finish. The single-root sums
have no island, so the reduction cannot apply (docs/reduction.md says why); the
STACK programs are the same redexes side by side.
"""
from __future__ import annotations

from uopc import PatternMatcher, symbolic
from uopc.relational import normal_forms
from uopc.uir import parse_uir

PROGRAMS = ["stack30", "stack_five_params", "sum30", "five_params", "doubling"]
MAX_STATES, TIMEOUT = 200_000, 20.0


def _run(prog, reduce: bool):
  fresh = symbolic + PatternMatcher([])   # a new matcher object: no memoized step maps from the other run
  nf = normal_forms(prog, fresh, max_states=MAX_STATES, timeout=TIMEOUT, reduce=reduce)
  ex = nf.exploration
  return len(ex.states), len(nf.forms), ex.bound or "complete", ex.elapsed, ex.reduced


def main() -> None:
  print(f"reduced vs full exploration (normal_forms, symbolic; caps {MAX_STATES:,} states, {TIMEOUT:g} s)")
  head = (f"{'program':<18} {'reduced: states':>15} {'nf':>4} {'status':>10} {'s':>7}  "
          f"{'full: states':>12} {'nf':>4} {'status':>10} {'s':>7}  {'full/red':>8}")
  print(head)
  print("-" * len(head))
  for name in PROGRAMS:
    path = f"examples/{name}.uir"
    prog = parse_uir(open(path).read(), path)
    rs, rn, rb, rt, used = _run(prog, True)
    fs, fn, fb, ft, _ = _run(prog, False)
    ratio = f"{ft / rt:8.1f}" if rb == fb == "complete" and rt > 0 else "       -"
    print(f"{name:<18} {rs:>15,} {rn:>4} {rb:>10} {rt:>7.2f}  {fs:>12,} {fn:>4} {fb:>10} {ft:>7.2f}  {ratio}"
          + ("" if used else "   (no island: not reduced)"))


if __name__ == "__main__":
  main()
