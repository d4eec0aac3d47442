"""Hunt for rule-order dependence in tinygrad's rule sets: small expressions, every normal form (docs/tinygrad.md).

Enumerates expressions of up to two operators over two variables (``UOp.variable`` bounds) and
the constants 0, 1, -1, 2, explores each under ``symbolic_simple``, ``symbolic`` and ``sym`` with
``diagnose_order`` and prints one line per (rule set, canonical rule, competing rule) fork found, with
the first witness, the two results and whether they differ in value; and the rules that raise.
Each exploration stops at ``max_states`` graphs (a bound on the work, not on the machine's speed).

  python explore/tinygrad_hunt.py                 # every 200th two-operator expression, 500 graphs each: seconds
  python explore/tinygrad_hunt.py [stride] [max_states]   # docs/tinygrad.md's hunts: stride 4 and 15, 2000 graphs
"""
from __future__ import annotations

import itertools
import sys
from typing import Any

from tinygrad.dtype import dtypes
from tinygrad.uop.ops import PatternMatcher, UOp, graph_rewrite
from tinygrad.uop.symbolic import sym, symbolic, symbolic_simple

from uopc import show
from uopc.relational import diagnose_order

a, b = UOp.variable("a", 0, 10), UOp.variable("b", -5, 5)
LEAVES = [a, b] + [UOp.const(c, dtypes.weakint) for c in (0, 1, -1, 2)]
OPS = [("+", lambda x, y: x + y), ("*", lambda x, y: x * y), ("//", lambda x, y: x // y), ("%", lambda x, y: x % y),
       ("max", lambda x, y: x.maximum(y)), ("<", lambda x, y: (x < y).where(x, y))]


def programs(stride: int = 15) -> list[UOp]:
  """Every one-operator expression, and every ``stride``-th two-operator one."""
  one = [f(x, y) for (_, f), x, y in itertools.product(OPS, LEAVES, LEAVES)]
  two = [f(x, y) for (_, f), x, y in itertools.product(OPS, one, LEAVES)] + [f(y, x) for (_, f), x, y in itertools.product(OPS, one, LEAVES)]
  return list(dict.fromkeys(one + two[::stride]))


def term(u: Any) -> str:
  """A tinygrad node in uopc's one-line term form (``show`` reads any IR's nodes; its signature names uopc's)."""
  return show(u)


def _rewrite(prog: UOp, pm: PatternMatcher, bottom_up: bool) -> UOp | None:
  try: return graph_rewrite(prog, pm, bottom_up=bottom_up)
  except Exception: return None


def main(limit: int | None = None, stride: int = 200, max_states: int = 500) -> None:
  found: dict[tuple[str | None, ...], str] = {}
  raised: dict[tuple, str] = {}
  progs: list[Any] = programs(stride)[:limit]   # Any, as the rule sets: the explorer's signatures name uopc's types
  rule_sets: list[tuple[str, Any]] = [("symbolic_simple", symbolic_simple), ("symbolic", symbolic), ("sym", sym)]
  for name, pm in rule_sets:
    for prog in progs:
      try: r = diagnose_order(prog, pm, max_states=max_states, timeout=None)
      except Exception as e:
        raised.setdefault((name, type(e).__name__), f"{term(prog)}: {e}")
        continue
      for s in r.exploration.stuck:
        raised.setdefault((name, s.rule_location, (s.error or "").split(":")[0]), term(prog))
      down, up = r.canonical, _rewrite(prog, pm, True)
      if down is not None and up is not None and up is not down:
        key: tuple[str | None, ...] = (name, "bottom_up")
        if key not in found:
          found[key] = f"{term(prog)}: graph_rewrite {term(down)}, bottom_up=True {term(up)}"
          print(*key, "|", found[key], flush=True)
      for f in r.forks:
        key = (name, f.canonical_step.rule_location if f.canonical_step else None, f.competing_step.rule_location)
        if key not in found:
          found[key] = f"{term(prog)}: canonical {term(r.canonical)}, other {f.normal_form.term()} ({f.kind})"
          print(*key, "|", found[key], flush=True)
  print(f"{len(progs)} programs, {len(found)} distinct forks")
  for key, witness in raised.items(): print("raises:", *key, "|", witness)


if __name__ == "__main__": main(None, *map(int, sys.argv[1:3]))
