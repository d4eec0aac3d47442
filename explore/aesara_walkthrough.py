"""The Aesara issue's example, on PyTensor: every graph any order of PyTensor's own rewriters reaches (docs/pytensor.md).

``log(exp(x + x)) + x + x`` for a vector ``x``, rewritten by ``local_exp_log`` (PyTensor's name for the issue's
``local_log_of_exp``), the issue's ``local_reduce_add`` as written there, and ``flatten_nested_add_mul`` (PyTensor's
add fusion: ``add(add(a, b), c) -> add(a, b, c)``, the issue's ``local_add_mul_fusion``):

  python explore/aesara_walkthrough.py

From the command line, ``z`` is the program and ``rules`` the rule set:

  uopc explore normal-forms explore/aesara_walkthrough.py:z --rules explore/aesara_walkthrough.py:rules
"""
from __future__ import annotations

from collections import Counter
from typing import Any

import pytensor.tensor as pt
from kanren import run, var
from pytensor.graph.rewriting.basic import node_rewriter
from pytensor.tensor.rewriting.elemwise import flatten_nested_add_mul
from pytensor.tensor.rewriting.math import local_exp_log


@node_rewriter([pt.add])
def local_reduce_add(fgraph, node):
  """Rewrite ``x + x`` to ``2 * x`` (the issue's own rewriter, unchanged but for PyTensor's decorator name)."""
  unique_inputs = Counter(node.inputs)
  if all(v == 1 for v in unique_inputs.values()): return None
  if len(unique_inputs) > 1: res = [pt.add(*(v * k if v > 1 else k for k, v in unique_inputs.items()))]
  else: res = [v * k for k, v in unique_inputs.items()]
  return res


x = pt.vector("x")
z = pt.log(pt.exp(x + x)) + x + x
rules: Any = [local_reduce_add, local_exp_log, flatten_nested_add_mul]   # Any: the explorer's signatures name uopc's types


def main() -> None:
  from uopc.relational import diagnose_order, explore, normal_forms, reacho, search, stepo
  from uopc.relational.adapters.pytensor.ir import adapt, from_pytensor

  g: Any = from_pytensor(z)   # the graph as hash-consed states: nothing is cloned (Any, as rules above)
  # The space has 19 graphs; max_states only guards against a rule set that turns out larger.
  ex = explore(g, rules, max_states=1000)
  print(f"{len(ex.states)} graphs reached from {g.term()}:")
  for s in ex.states: print(f"  depth {s.depth}: {s.term()}")
  nf: Any = normal_forms(g, rules, max_states=1000)   # its canonical graph is a PyTensor node
  print("normal forms:", ", ".join(s.term() for s in nf.forms))
  print("PyTensor's own rewrite (EquilibriumGraphRewriter):", nf.canonical.term())
  rep = diagnose_order(g, rules, max_states=1000, timeout=None)
  print(f"canonical path: {len(rep.path.edges)} steps; {len(rep.forks)} forks, of kinds {sorted({f.kind for f in rep.forks})}")
  r = search(g, "mul(_, x)", rules, max_states=1000)
  print(f"shortest path to mul(_, x), {r.length} steps:", " -> ".join(e.rule for e in r.path))
  q = var()
  one_step: Any = stepo(rules, z, q)   # kanren goals over PyTensor graphs (Any: kanren's stubs name their own goal type)
  print("one step (stepo):", sorted(h.term() for h in run(0, q, one_step)))
  reaches_4x: Any = reacho(rules, z, 4 * x)
  print("4x reachable (reacho):", bool(run(1, q, reaches_4x)))
  contexts = adapt(rules).contexts
  print(f"contexts: {contexts.built} FunctionGraphs built for {len(ex.states)} states; rewriters reading clients: {contexts.reads}")


if __name__ == "__main__": main()
