"""tinygrad's own rules on its own index expressions: what other orders of ``symbolic`` reach (docs/tinygrad.md).

tinygrad turns a buffer's shape into integer index arithmetic over loop variables and simplifies it with its
``symbolic`` rules (``tinygrad/uop/symbolic.py``, ``divandmod.py``). A 4x3 buffer read through its flat index
``r0 * 3 + r1`` (``r0`` in [0, 3], ``r1`` in [0, 2], as tinygrad's own symbolic tests write loop variables) gives
the row ``(r0 * 3 + r1) // 3`` and the column ``(r0 * 3 + r1) % 3``; rebuilt from both, the flat index again.
For each: tinygrad's own ``graph_rewrite`` answer, the shortest rewrite sequence to it in the explorer (tinygrad's
nodes and rules, unchanged), and the normal forms a depth-first exploration reaches. The spaces are large
(``fold_divmod_general`` expands a division into a sum of products, each of whose terms other rules rewrite in
any order), so every search stops at ``STATES`` graphs.

  python explore/tinygrad_index.py
"""
from typing import Any

from tinygrad.uop.ops import UOp, graph_rewrite
from tinygrad.uop.symbolic import symbolic as tinygrad_symbolic

from uopc.relational import explore, search

symbolic: Any = tinygrad_symbolic   # Any: the explorer's signatures name uopc's types; tinygrad's rules go through
STATES = 2000   # graphs per search: a bound on the work, so the script takes the same steps on any machine


def main() -> None:
  r0, r1 = UOp.variable("r0", 0, 3), UOp.variable("r1", 0, 2)
  flat = r0 * 3 + r1
  expressions = {"row": flat // 3, "column": flat % 3, "flat index rebuilt from row and column": (flat // 3) * 3 + flat % 3}

  for name, index in expressions.items():
    answer = graph_rewrite(index, symbolic)   # tinygrad's own result: bottom up, first matching rule wins
    print(f"{name}: {index.render(simplify=False)}; tinygrad's graph_rewrite gives {answer.render()}")
    path = search(index, answer, symbolic, max_states=STATES)
    if path.found:
      print(f"  shortest rewrite sequence to it: {path.length} steps ({path.searched} graphs searched)")
      for step, edge in enumerate(path.path, 1): print(f"    {step}. {edge.describe()}")
    else:
      print(f"  no rewrite sequence to it among the first {path.searched} graphs (cut short by {path.bound})")
    # Breadth first finds shortest paths; depth first reaches the ends of paths (normal forms) within the same bound.
    deep = explore(index, symbolic, max_states=STATES, order="dfs").run()
    forms = [s.term() + (" (tinygrad's answer)" if s.graph is answer else "") for s in deep.normal_forms]
    print(f"  normal forms among the first {len(deep.states)} graphs depth first{'' if deep.complete else ' (bounded)'}: "
          f"{', '.join(forms) or 'none'}")


if __name__ == "__main__": main()
