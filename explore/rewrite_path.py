"""A shortest rewrite sequence to a target, and a proof that two programs are equal (docs/search.md).

``search`` walks the reachable graphs breadth first and stops at the first that matches the target, a term in
the one-line form the explorer prints, where ``?c`` is a hole (it matches any node and says which) and ``_``
matches anything. Breadth first, so no shorter sequence exists. ``meet`` searches from two programs at once
for a graph both reach: a proof that the rule set makes them equal.

  python explore/rewrite_path.py
"""
from pathlib import Path

from uopc.uir import read_uir
from uopc import show, symbolic
from uopc.relational import meet, search

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"   # the input files the docs use



def main() -> None:
  # 1. The chapter's (p0 + 2) * 3 + (1 + 4) reaches p0 * 3 + c for which c? max_states bounds the search.
  program = read_uir(EXAMPLES / "affine.uir")
  found = search(program, "add(mul(p0, 3), ?c)", symbolic, max_states=1000)
  print(f"{show(program)} -> add(mul(p0, 3), ?c): {found.length} steps ({found.searched} graphs searched), "
        f"?c = {show(found.bindings['c'])}")
  for step, edge in enumerate(found.path, 1):
    print(f"  {step}. {edge.describe()}")

  # 2. A target no order reaches: the answer says whether the whole space was searched, or a bound cut it short.
  missing = search(program, "add(?x, ?x)", symbolic, max_states=1000)
  print(f"{show(program)} -> add(?x, ?x): {'found' if missing.found else 'not found'}, "
        f"{'the whole space searched' if missing.complete else f'cut short by {missing.bound}'} ({missing.searched} graphs)")

  # 3. Two programs (examples/equal_a.uir and equal_b.uir) and a graph both rewrite to.
  a, b = read_uir(EXAMPLES / "equal_a.uir"), read_uir(EXAMPLES / "equal_b.uir")
  both = meet(a, b, symbolic, max_states=1000)
  assert both.meeting is not None, f"no meeting: {both.bound or 'the two spaces are disjoint'}"
  print(f"{show(a)} and {show(b)} meet at {show(both.meeting)}: {len(both.from_a)} and {len(both.from_b)} steps")
  for side, path in (("a", both.from_a), ("b", both.from_b)):
    for edge in path: print(f"  {side}: {edge.describe()}")


if __name__ == "__main__": main()
