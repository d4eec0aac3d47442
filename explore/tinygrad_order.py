"""Rule-order dependence in tinygrad 0.14's rule sets, with tinygrad alone (no uopc): docs/tinygrad.md.

Each case moves one rule of ``symbolic`` (or runs ``sym`` bottom up) and prints what tinygrad's own
``graph_rewrite`` makes of a small program: the rule set as written, then the other order. The cases
after the first five are critical pairs ``uopc explore pairs tinygrad:symbolic`` found: each
witness with each of its two rules moved first.

  python explore/tinygrad_order.py
"""
from __future__ import annotations

import os

from tinygrad.dtype import dtypes
from tinygrad.uop.ops import PatternMatcher, UOp, graph_rewrite
from tinygrad.uop.symbolic import sym, symbolic


def rule_at(pm: PatternMatcher, where: str) -> int:
  """The index of the rule whose UPat is written at ``file.py:line``."""
  return next(i for i, (p, _) in enumerate(pm.patterns) if f"{os.path.basename(p.location[0])}:{p.location[1]}" == where)


def moved_first(pm: PatternMatcher, where: str) -> PatternMatcher:
  i = rule_at(pm, where)
  return PatternMatcher([pm.patterns[i]] + pm.patterns[:i] + pm.patterns[i + 1:])


def result(prog: UOp, pm: PatternMatcher, bottom_up: bool = False) -> str:
  try: return str(graph_rewrite(prog, pm, bottom_up=bottom_up).render(simplify=False))
  except Exception as e: return f"raises {type(e).__name__}: {str(e).splitlines()[0].split(' trying to rewrite')[0]}"


def main() -> None:
  zero = UOp.const(0, dtypes.weakint)
  a, b = UOp.variable("a", 0, 10), UOp.variable("b", -5, 5)
  cases = [
    ("0 // 0 under symbolic", zero // zero, symbolic, ["symbolic.py:150", "divandmod.py:108"], False),
    ("a // 0 under symbolic, a in [0, 10]", a // 0, symbolic, [], False),
    ("(b % b) // 1 under symbolic bottom up, b in [-5, 5]", (b % b) // 1, symbolic, ["divandmod.py:108"], True),
  ]
  for title, prog, pm, moves, bottom_up in cases:
    print(f"{title}:")
    print(f"  as written: {result(prog, pm, bottom_up)}")
    for where in moves: print(f"  {where} moved first: {result(prog, moved_first(pm, where), bottom_up)}")
  prog = (a + b) * -1 + (a + b) * 1
  print("(a+b)*-1 + (a+b)*1 under sym, a in [0, 10], b in [-5, 5]:")
  print(f"  graph_rewrite: {result(prog, sym)}")
  print(f"  graph_rewrite(bottom_up=True): {result(prog, sym, True)}")
  prog = (-1 * a) // a
  print("(-1 * a) // a under symbolic, a in [0, 10]:")
  print(f"  graph_rewrite: {result(prog, symbolic)}")
  print(f"  graph_rewrite(bottom_up=True): {result(prog, symbolic, True)}")
  pairs_found()


def pairs_found() -> None:
  """The critical pairs of docs/tinygrad.md's section 6, with tinygrad alone."""
  a = UOp.variable("a", 0, 10)
  t = UOp.variable("t", False, True, dtypes.bool)
  f = UOp.variable("f", 1.0, 2.0, dtypes.float32)
  two_a = UOp.const(2) ** a
  print(f"2 ** a under symbolic, a in [0, 10] (a {two_a.dtype}):")
  r = graph_rewrite(two_a, symbolic)   # render() has no form for EXP2: its op and dtype, and its source's
  print(f"  as written: {r.op} {r.dtype} of {r.src[0].op} {r.src[0].dtype} of a")
  cases = [
    ("2 ** 0 under symbolic", UOp.const(2) ** UOp.const(0), ["symbolic.py:178"]),
    ("f * -0.0 under symbolic, f in [1.0, 2.0] (float32)", f * UOp.const(-0.0, dtypes.float32), []),
    ("1.0 * -0.0 under symbolic (float32)", UOp.const(1.0, dtypes.float32) * UOp.const(-0.0, dtypes.float32), ["symbolic.py:165"]),
    ("(a & -1) >> 0 under symbolic, a in [0, 10]", (a & -1) >> 0, ["symbolic.py:138"]),
    ("(a & -1) // 1 under symbolic, a in [0, 10]", (a & -1) // 1, ["symbolic.py:140"]),
    ("t + t under symbolic, t a bool", t + t, ["symbolic.py:238"]),
  ]
  for title, prog, moves in cases:
    print(f"{title}:")
    print(f"  as written: {result(prog, symbolic)}")
    for where in moves: print(f"  {where} moved first: {result(prog, moved_first(symbolic, where))}")


if __name__ == "__main__": main()
