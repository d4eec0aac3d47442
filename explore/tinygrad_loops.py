"""Programs on which tinygrad 0.14's `symbolic` and `sym` loop, reproduced with tinygrad alone (docs/termination.md).

`uopc check-rules --terminates tinygrad:symbolic --on PROGRAM` finds each loop with the explorer: a cycle of two
rules, `symbolic.py:267` (two-stage ALU folding: `(x + c1) + c2 -> x + (c1 + c2)`, which leaves `c1 + c2` unfolded)
and `symbolic.py:281` (`(x + c1) + y -> (x + y) + c1` unless y is a constant: it takes `c1 + c2` apart again, the
constant `c1` as its x), or their MUL twins (267 and 282). tinygrad's own `graph_rewrite(..., bottom_up=True)` stays
on that cycle and raises; top down, constant folding comes first and ends it. The two rules alone loop in either direction (top down until
tinygrad's rewrite stack is full, which takes seconds, so the script runs them bottom up only).

Run: python explore/tinygrad_loops.py
"""
from __future__ import annotations

from tinygrad.uop.ops import PatternMatcher, UOp, graph_rewrite
from tinygrad.uop.symbolic import sym, symbolic

v = UOp.variable("v", 0, 2)
# each program, and the symbolic.py lines of the rules on its cycle (found by the explorer)
PROGRAMS = {
  "((10 + v*81) + 233) % 243": (((10 + v * 81) + 233) % 243, (267, 281)),   # from tinygrad's conv2d codegen (issue 38)
  "(10 + v*81) + 233": ((10 + v * 81) + 233, (267, 281)),
  "(1 + v) + 2": ((1 + v) + 2, (267, 281)),
  "(2 * v) * 3": ((2 * v) * 3, (267, 282)),   # the same with MUL: symbolic.py:282 is 281's twin
}


def rules_at(pm: PatternMatcher, lines: tuple[int, ...]) -> PatternMatcher:
  """The rules of ``pm`` whose UPat is at one of ``lines`` of tinygrad/uop/symbolic.py."""
  return PatternMatcher([(p, f) for p, f in pm.patterns if p.location[0].endswith("symbolic.py") and p.location[1] in lines])


def outcome(prog: UOp, pm: PatternMatcher, bottom_up: bool) -> str:
  """What tinygrad's graph_rewrite gives, or the error it raises."""
  try: return graph_rewrite(prog, pm, bottom_up=bottom_up).render()
  except RuntimeError as e: return f"RuntimeError: {e}"


def main() -> None:
  for name, (prog, lines) in PROGRAMS.items():
    print(f"{name}, v in [0, 2]:")
    alone = f"symbolic.py:{lines[0]} + :{lines[1]} alone"
    # the two rules alone top down loop too, until tinygrad's rewrite stack (250,000) is full: 10 s a program
    for label, pm, directions in (("symbolic", symbolic, (False, True)), ("sym", sym, (False, True)),
                                  (alone, rules_at(symbolic, lines), (True,))):
      for bottom_up in directions:
        print(f"  {label}{' bottom up' if bottom_up else ''}: {outcome(prog, pm, bottom_up)}")


if __name__ == "__main__":
  main()
