"""Which small tinygrad expressions have a rule order that never ends: termination in the order verdict (docs/cli-explore.md).

For the conv2d index ``((10 + v*81) + 233) % 243`` (``v`` in [0, 2]) and ``tinygrad_hunt.py``'s expressions, under
``symbolic_simple``, ``symbolic`` and ``sym``: ``diagnose_order``'s verdict before termination was part of it (one normal
form and a complete search: "independent") and after (``loops`` where a reachable cycle exists), the states on
cycles, the rules of each shortest cycle, and whether tinygrad's ``graph_rewrite`` (top down, bottom up) loops.
Each exploration stops at ``max_states`` graphs (a bound on the work, not on the machine's speed).

  python explore/tinygrad_loop_hunt.py                  # every 200th two-operator expression, 500 graphs each
  python explore/tinygrad_loop_hunt.py [stride] [max_states]
"""
from __future__ import annotations

import collections
import sys
from typing import Any

from tinygrad.uop.ops import UOp
from tinygrad.uop.symbolic import sym, symbolic, symbolic_simple

from uopc.relational import diagnose_order
from uopc.relational.analyses.verdicts import order_verdict

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from tinygrad_hunt import programs  # a script beside this one


def conv_index() -> Any:
  v = UOp.variable("v", 0, 2)
  return ((10 + v * 81) + 233) % 243


def main(stride: int = 200, max_states: int = 500) -> None:
  progs: list[Any] = [conv_index(), *programs(stride)]
  rule_sets: list[tuple[str, Any]] = [("symbolic_simple", symbolic_simple), ("symbolic", symbolic), ("sym", sym)]
  for name, pm in rule_sets:
    before: collections.Counter = collections.Counter()
    after: collections.Counter = collections.Counter()
    cycle_rules: collections.Counter = collections.Counter()
    engine_loops = engine_loops_with_cycle = on_cycles = states = 0
    for k, prog in enumerate(progs):
      try: r = diagnose_order(prog, pm, max_states=max_states, timeout=None)
      except Exception: continue
      old = order_verdict(r.complete, len(r.normal_forms), len(r.forks), terminates=True)   # termination assumed: the verdict as it was
      new = r.verdict()
      before[old.kind] += 1
      after[new.kind] += 1
      loop = r.termination.loop
      states += len(r.exploration.states)
      if loop is not None:
        on_cycles += loop.on_cycles
        cycle_rules[" + ".join(loop.rules)] += 1
      looped = [s.label for s in r.strategies if s.outcome == "loops"]
      if looped:
        engine_loops += 1
        engine_loops_with_cycle += loop is not None
      if k == 0:
        print(f"  {name}, conv index {r.exploration.states[0].term()}: {len(r.exploration.states)} states, "
              f"{0 if loop is None else loop.on_cycles} on cycles; verdict before {old.kind!r}, after {new.kind!r}; "
              f"engine runs that loop: {looped or 'none'}")
    print(f"{name}: {len(progs)} programs, {states:,} states, {on_cycles:,} on cycles; verdicts before {dict(before)}, after {dict(after)}")
    print(f"  an engine run loops on {engine_loops} programs, a reachable cycle found on {engine_loops_with_cycle} of them")
    for rules, n in cycle_rules.most_common(8): print(f"  {n:4} programs loop on {rules}")


if __name__ == "__main__": main(*map(int, sys.argv[1:3]))
