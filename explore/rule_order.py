"""Where does the result depend on rule order? Forks in one program, and critical pairs of a rule set (docs/confluence.md).

Two questions about the same flawed rule set, examples/my_rules.py (six named rules, two deliberate flaws):

1. ``diagnose_order`` on a program: every normal form, the canonical engine's path, and each *fork*, the state
   where another order of the rules leaves that path for another normal form. examples/fork.uir is ``(p0 + p1) * 2``:
   ``distribute`` and ``mul-2`` both rewrite the root, and the two results never meet.
2. ``critical_pairs`` on the rule set alone: every way two rules' patterns overlap, each tried on small instances;
   a pair that does not join is a fork waiting for a program that reaches it. "semantic" means the two results
   compute different values at an input shown (a bug), "syntactic" the same values for all inputs, proved, as two
   different programs (uopc.smt.classify; "no difference found" and "unknown" when neither is established).

  python explore/rule_order.py
"""
import runpy
from pathlib import Path

from uopc.uir import read_uir
from uopc import show
from uopc.relational import critical_pairs, diagnose_order

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"   # the input files the docs use


def main() -> None:
  rules = runpy.run_path(str(EXAMPLES / "my_rules.py"))["rules"]   # a rule file, as `--rules examples/my_rules.py:rules` reads it
  program = read_uir(EXAMPLES / "fork.uir")

  # Bounds on the work, never on the clock (timeout=None): this space has a handful of graphs.
  report = diagnose_order(program, rules, max_states=1000, max_depth=20, timeout=None)
  print(f"{show(program)}: {len(report.exploration.states)} graphs, {len(report.normal_forms)} normal forms"
        f"{'' if report.complete else ' (bounded)'}")
  assert report.canonical is not None, report.canonical_error   # graph_rewrite finished (else the error says why)
  print(f"  graph_rewrite gives {show(report.canonical)} in {len(report.path.edges)} steps")
  for fork in report.forks:
    canonical_rule = fork.canonical_step.rule if fork.canonical_step else "(a step past the bound)"
    print(f"  fork at {fork.fork.term()}: graph_rewrite applies {canonical_rule}, "
          f"but {fork.competing_step.rule} leads to {fork.normal_form.term()} ({fork.kind}: {fork.detail})")

  # max_states bounds each search for a common reduct of a pair's two results; the generous join_timeout is never reached.
  pairs = critical_pairs(rules, max_states=500, join_timeout=60.0)
  print(f"examples/my_rules.py: {pairs.rules} rules, {len(pairs.pairs)} overlapping pairs, {pairs.count('joinable')} joinable, "
        f"{pairs.count('not-joinable')} not joinable:")
  for pair in pairs.pairs:
    if pair.status == "joinable": continue
    first, second = pair.results
    print(f"  {pair.rules[0]} and {pair.rules[1]} on {show(pair.witness)}: {show(first)} or {show(second)}, "
          f"{pair.status} ({pair.verdict})")


if __name__ == "__main__": main()
