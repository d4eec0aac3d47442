"""PyTensor's own rewrite databases explored, bounded: where does the result depend on the order? (docs/pytensor.md)

The node rewriters of ``canonicalize``, ``stabilize`` and ``specialize`` (as PyTensor's FAST_RUN mode queries them)
on four graphs: a logistic regression's loss and its gradient, a softmax, and a normal log-density. For each
graph and database: the first ``STATES`` graphs any order of the rewriters reaches (breadth first; 30 unless the
environment says otherwise, a run of seconds: docs/pytensor.md's table took ``STATES=1500``), the normal
forms among them, PyTensor's own rewrite (an ``EquilibriumGraphRewriter`` of the same rewriters), and each fork
``diagnose_order`` finds: a state where two rewriters lead to different normal forms, with both paths and
whether the two results compute different values (PyTensor's Python perform on random inputs).

  python explore/pytensor_databases.py            # every graph and database
  python explore/pytensor_databases.py softmax    # one graph
  STATES=1500 python explore/pytensor_databases.py logreg_loss   # a larger bound
"""
from __future__ import annotations

import os
import sys
import time
from typing import Any

import numpy as np
import pytensor.tensor as pt

STATES = int(os.environ.get("STATES", "30"))   # the bound of each exploration: the work, whatever the machine's speed


def graphs() -> dict[str, Any]:
  X, y, w, b = pt.matrix("X"), pt.vector("y"), pt.vector("w"), pt.scalar("b")
  p = pt.sigmoid(X @ w + b)
  loss = -pt.mean(y * pt.log(p) + (1 - y) * pt.log(1 - p))
  v = pt.vector("v")
  e = pt.exp(v - pt.max(v))
  mu, sigma, x = pt.scalar("mu"), pt.scalar("sigma"), pt.vector("x")
  logp = -0.5 * ((x - mu) / sigma) ** 2 - pt.log(sigma) - 0.5 * np.log(2 * np.pi)
  return {"logreg_loss": loss, "logreg_grad": pt.grad(loss, w), "softmax": e / pt.sum(e), "normal_logp": pt.sum(logp)}


def main(names: list[str]) -> None:
  from uopc.relational import diagnose_order, explore
  from uopc.relational.adapters.pytensor.ir import DATABASES, PyTensorRules, from_pytensor, named_rules
  from uopc.relational.analyses.verdicts import kinds_text
  for name, z in graphs().items():
    if names and name not in names: continue
    g: Any = from_pytensor(z)   # Any: the explorer's signatures name uopc's types; PyTensor's nodes and rules go through
    print(f"== {name}: {len(g.toposort())} nodes: {g.term()[:150]}")
    for db in DATABASES:
      rules: Any = PyTensorRules(named_rules(db).rewriters, db)   # a fresh memo and fresh contexts per run
      t0 = time.perf_counter()
      ex = explore(g, rules, max_states=STATES).run()
      rep: Any = diagnose_order(g, rules, max_states=STATES, timeout=None)   # its graphs are PyTensor's nodes
      dt = time.perf_counter() - t0
      forms = rep.normal_forms
      print(f"-- {db}: {len(ex.states)} states{'' if ex.complete else ' (bounded)'}, {len(ex.stuck)} stuck, {len(forms)} normal forms "
            f"among them; {rules.calls} rewriter calls, {rules.contexts.built} contexts built ({dt:.1f} s)")
      for s in ex.stuck[:2]: print(f"   stuck: {s.rule}: {(s.error or '')[:160]}")
      canon = rep.canonical.term()[:150] if rep.canonical is not None else rep.canonical_error
      where = next((f"normal form [{k + 1}]" for k, f in enumerate(forms) if f.graph is rep.canonical), "not reached within the bound")
      print(f"   PyTensor's rewrite ({where}): {canon}")
      if rep.forks: print(f"   order dependence: {len(rep.forks)} forks ({kinds_text([f.kind for f in rep.forks])})")
      for f in rep.forks[:3]:
        print(f"   fork ({f.kind}) at {f.fork.term(120)}")
        print(f"     canonical: {f.canonical_step.rule if f.canonical_step else '(cut by the bound)'}, then {len(f.canonical_path)} steps")
        print(f"     competing: {f.competing_step.rule} @ {f.competing_step.node.term()[:80]}, {len(f.competing_path)} steps to "
              f"{f.normal_form.term(110)}")
        print(f"     {f.detail[:160]}")
      if len(rep.forks) > 3: print(f"   ... {len(rep.forks) - 3} more forks")


if __name__ == "__main__": main(sys.argv[1:])
