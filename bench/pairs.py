"""Critical-pair benchmarks: ``python -m bench pairs``.

One cold run per rule set (a fresh copy of the matcher, so the explorer's per-matcher
memo tables start empty): how long unifying every pair of patterns takes (the
overlaps alone), and the whole ``critical_pairs`` run (overlaps, instances, both
one-step results, joinability). The bar: all pairs of ``symbolic + evaluate`` in
under 10 s.
"""
from __future__ import annotations

import os
import time

from uopc import PatternMatcher
from uopc.relational.analyses.overlaps import overlaps
from uopc.relational.analyses.pairs import critical_pairs
from uopc.rulesets import resolve_rules

_EXAMPLE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "examples", "my_rules.py")


def _example_rules() -> PatternMatcher:
  import importlib.util
  spec = importlib.util.spec_from_file_location("bench_my_rules", _EXAMPLE)
  mod = importlib.util.module_from_spec(spec)
  spec.loader.exec_module(mod)
  return mod.rules


def rows() -> list[tuple[str, int, int, int, int, float, float]]:
  """(rule set, rules, pairs, instances, not joinable, overlaps s, total s) per rule set."""
  out = []
  for name, pm in [("symbolic", resolve_rules("symbolic")), ("symbolic+evaluate", resolve_rules("symbolic+evaluate")),
                   ("examples/my_rules.py", _example_rules())]:
    fresh = PatternMatcher(pm.rules)
    t0 = time.perf_counter()
    for _ in overlaps(fresh): pass
    t_overlaps = time.perf_counter() - t0
    report = critical_pairs(PatternMatcher(pm.rules))
    out.append((name, report.rules, len(report.pairs), report.instances, report.count("not-joinable"), t_overlaps,
                report.elapsed))
  return out


def main() -> None:
  print("critical pairs (one cold run per rule set; the bar: symbolic+evaluate under 10 s)")
  print(f"{'rule set':22s} {'rules':>5s} {'pairs':>6s} {'instances':>9s} {'not joinable':>12s} {'overlaps s':>10s} {'total s':>8s}")
  for name, n, pairs, inst, bad, t_ov, t_all in rows():
    print(f"{name:22s} {n:5d} {pairs:6d} {inst:9d} {bad:12d} {t_ov:10.2f} {t_all:8.2f}")


if __name__ == "__main__":
  main()
