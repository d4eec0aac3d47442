"""Every graph a program reaches, and its normal forms: the explorer's first use (docs/relational.md).

The canonical engine (``graph_rewrite``) commits to one order of rewrites; the explorer follows every order.
Here the chapter's program ``(p0 + 2) * 3 + (1 + 4)`` (examples/affine.uir) under uopc's own ``symbolic``:
each graph some sequence of rewrites reaches, with the rule that first reached it, then the normal forms
(graphs no rule rewrites) and which of them ``graph_rewrite`` gives.

  python explore/every_graph.py
"""
from pathlib import Path

from uopc.uir import read_uir
from uopc import symbolic
from uopc.relational import explore, normal_forms

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"   # the input files the docs use


def main() -> None:
  program = read_uir(EXAMPLES / "affine.uir")

  # A lazy stream of states; .run() explores up to the bound. max_states keeps an unexpectedly large space from
  # running away: the exploration then says which bound cut it short (ex.bound) instead of running for hours.
  ex = explore(program, symbolic, max_states=1000).run()
  print(f"{len(ex.states)} graphs reached from {ex.states[0].term()} ({len(ex.edges)} steps between them), "
        f"{'the whole space' if ex.complete else f'cut short by {ex.bound}'}:")
  for state in ex.states:
    how = f"by {state.rule}" if state.parent is not None else "(the program)"
    print(f"  [{state.id}] depth {state.depth}: {state.term()}   {how}")

  # normal_forms() explores again, with the partial-order reduction that keeps every normal form (docs/reduction.md),
  # and runs the canonical engine to say which normal form graph_rewrite gives.
  nf = normal_forms(program, symbolic, max_states=1000)
  print(f"{len(nf.forms)} normal form{'s' if len(nf.forms) != 1 else ''}:")
  for form in nf.forms:
    mark = "   <- graph_rewrite gives this one" if form is nf.canonical_state else ""
    print(f"  {form.term()}{mark}")


if __name__ == "__main__": main()
