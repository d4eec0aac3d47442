"""PyTensor graphs in the explorer against cloning a FunctionGraph per state: ``python bench/pytensor.py``.

Three graphs: the Aesara issue's ``log(exp(x + x)) + x + x`` under its three rewriters (19 states, the whole
space, explored 50 times), the same times a 400-node chain no rule rewrites inside (much the same steps on a
graph 60 times the size; the mul fuses with the issue's 2 * 2 * x), and a logistic regression's loss gradient
(47 nodes) under PyTensor's ``canonicalize`` node rewriters (the first 150 states). Two ways to explore each, breadth first, each graph once:

- **states**: the explorer's (hash-consed nodes shared by every state, rewriters called with the state's
  context, a ``FunctionGraph`` built only when a rewriter reads it);
- **clone**: the issue's starting point: every state is a ``FunctionGraph``; each rewriter is tried on each
  node of it, and each replacement clones the ``FunctionGraph`` (``clone_get_equiv``), replaces in the copy,
  gives it its own features (the rewriters' requirements and ``ShapeFeature``: a ``Feature`` keeps state per
  graph) and merges it (``MergeOptimizer``: the explorer's states are merged graphs, so both explore the same
  space). States are told apart by their structure
  (the explorer's node of the copy's output, not kept).

Columns: states/s (best of 3), and memory per state (``tracemalloc``: what the exploration holds at its end, less
what an exploration of the first state alone holds, over the other states: the first state's cost is the whole
program's, its nodes and their step maps, or a first ``FunctionGraph``). The ratio is states over clone, measured
in the same run.
"""
from __future__ import annotations

import gc
import os
import sys
import time
import tracemalloc
from collections import deque
from typing import Any, Callable

if __name__ == "__main__":   # run by path: the repository's root first, never bench/ (whose kanren.py shadows the package)
  _here = os.path.dirname(os.path.abspath(__file__))
  sys.path[:] = [os.path.dirname(_here), *(p for p in sys.path if os.path.abspath(p or ".") != _here)]

import pytensor.tensor as pt
from pytensor.graph.fg import FunctionGraph
from pytensor.graph.replace import clone_replace
from pytensor.graph.rewriting.basic import MergeOptimizer
from pytensor.tensor.rewriting.elemwise import flatten_nested_add_mul
from pytensor.tensor.rewriting.math import local_exp_log
from pytensor.tensor.rewriting.shape import ShapeFeature

from uopc.relational import explore
from uopc.relational.adapters.pytensor.ir import PyTensorRules, from_pytensor, named_rules


def _issue_rewriter() -> Any:
  """The Aesara issue's ``local_reduce_add`` (``x + x -> 2 * x``), from explore/aesara_walkthrough.py where it is written."""
  import importlib.util
  path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "explore", "aesara_walkthrough.py")
  spec = importlib.util.spec_from_file_location("aesara_walkthrough", path)
  assert spec is not None and spec.loader is not None
  module = importlib.util.module_from_spec(spec)
  spec.loader.exec_module(module)
  return module.local_reduce_add


def issue() -> tuple[Any, list, int, int]:
  x = pt.vector("x")
  return pt.log(pt.exp(x + x)) + x + x, [_issue_rewriter(), local_exp_log, flatten_nested_add_mul], 100, 50


def issue_in_a_big_graph() -> tuple[Any, list, int, int]:
  """The issue's graph times a 400-node chain no rule rewrites inside: much the same steps on a graph 60 times the size."""
  z, rules, max_states, rounds = issue()
  v = pt.vector("v")
  chain = v
  for _ in range(200): chain = pt.exp(pt.sin(chain))
  return z * chain, rules, max_states, 1


def logistic_gradient() -> tuple[Any, list, int, int]:
  X, y, w, b = pt.matrix("X"), pt.vector("y"), pt.vector("w"), pt.scalar("b")
  p = pt.sigmoid(X @ w + b)
  loss = -pt.mean(y * pt.log(p) + (1 - y) * pt.log(1 - p))
  return pt.grad(loss, w), named_rules("canonicalize").rewriters, 150, 1


def with_states(z: Any, rewriters: list, max_states: int) -> Any:
  return explore(from_pytensor(z), PyTensorRules(rewriters), max_states=max_states).run()   # a fresh memo each time


def with_clones(z: Any, rewriters: list, max_states: int) -> list:
  """Breadth first over FunctionGraphs, each successor a clone of its state with one replacement made."""
  from pytensor.graph.rewriting.basic import OpToRewriterTracker
  tracker = OpToRewriterTracker()
  for rw in rewriters: tracker.add_tracker(rw)
  start = FunctionGraph(outputs=[z], clone=True, copy_inputs=False, copy_orphans=False)   # its inputs shared, as the states share them
  merge = MergeOptimizer()

  def equip(fg: FunctionGraph) -> None:   # each FunctionGraph its own features (a Feature keeps state per graph)
    for rw in rewriters: rw.add_requirements(fg)   # as PyTensor's rewrite does
    fg.attach_feature(ShapeFeature())
    merge.rewrite(fg)   # a merged graph, as the explorer's states are: the same space
  equip(start)
  seen = {from_pytensor(start.outputs[0], adopt=False)}
  states, todo = [start], deque([start])
  while todo and len(states) < max_states:
    fg = todo.popleft()
    for node in fg.toposort():
      for rw in tracker.get_trackers(node.op):
        try: ret = rw.transform(fg, node)
        except Exception: continue
        if not ret or isinstance(ret, dict): continue
        for old, new in zip(node.outputs, ret):
          if new is None or new is old: continue
          fg2, memo = fg.clone_get_equiv(check_integrity=False, attach_feature=False, copy_inputs=False, copy_orphans=False)
          new2 = clone_replace(new, replace={v: memo[v] for v in memo if v in fg.variables})
          try: fg2.replace(memo[old], old.type.filter_variable(new2, allow_convert=True), import_missing=True)
          except Exception: continue
          equip(fg2)
          if (key := from_pytensor(fg2.outputs[0], adopt=False)) not in seen:
            seen.add(key)
            states.append(fg2)
            todo.append(fg2)
            if len(states) >= max_states: return states
  return states


def held(run: Callable[[], Any]) -> int:
  """Bytes ``run()``'s result holds (``tracemalloc``), every state made."""
  gc.collect()
  tracemalloc.start()
  before = tracemalloc.get_traced_memory()[0]
  kept = run()
  if hasattr(kept, "states"): kept.states   # noqa: B018  (every state made)
  size = tracemalloc.get_traced_memory()[0] - before
  tracemalloc.stop()
  return size


def measure(run: Callable[[int], Any], max_states: int, rounds: int) -> tuple[int, float, float]:
  """(states, best states/s over 3 tries of ``rounds`` runs, bytes per state after the first: what all the states
  hold less what the first one does, over the others; the first state's includes the program's whole graph)."""
  best, n = float("inf"), 0
  for _ in range(3):
    gc.collect()
    t0 = time.perf_counter()
    for _ in range(rounds): out = run(max_states)
    best = min(best, time.perf_counter() - t0)
    n = len(out.states) if hasattr(out, "states") else len(out)
  return n, n * rounds / best, (held(lambda: run(max_states)) - held(lambda: run(1))) / max(n - 1, 1)


def main() -> None:
  print("PyTensor graphs: the explorer's states against a FunctionGraph cloned per state (one run; the machine is shared)")
  print(f"{'graph':<22} {'nodes':>5} {'states':>6} {'states/s':>10} {'clone/s':>10} {'ratio':>6} {'B/state':>9} {'clone B/state':>13}")
  for name, make in (("issue (3 rewriters)", issue), ("issue + 400-node chain", issue_in_a_big_graph),
                     ("logreg grad (canon.)", logistic_gradient)):
    z, rewriters, max_states, rounds = make()
    program = from_pytensor(z)   # held throughout: the program's own nodes are not a cost of its states
    nodes = len(program.toposort())
    n, rate, mem = measure(lambda m, z=z, r=rewriters: with_states(z, r, m), max_states, rounds)
    cn, crate, cmem = measure(lambda m, z=z, r=rewriters: with_clones(z, r, m), max_states, rounds)
    print(f"{name:<22} {nodes:>5} {n:>6} {rate:>10,.0f} {crate:>10,.0f} {rate / crate:>5.1f}x {mem:>9,.0f} {cmem:>13,.0f}"
          + ("" if n == cn else f"   (clone reached {cn} states)"))


if __name__ == "__main__": main()
