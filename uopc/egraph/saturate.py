"""Equality saturation: apply every rule in every way, record the equalities, extract the cheapest graph.

One iteration: pick each class's representative (its smallest graph as a tree),
e-match every rule that the scheduler lets run against every class, run the rule on
each matched graph, then add each result and merge it with the class it came from,
and rebuild once. Saturation stops when an iteration changes nothing (``saturated``:
the e-graph holds everything the rules prove), or at a bound: ``iterations``,
``enodes`` or ``timeout`` (seconds), and says which.

A rule that raises, or returns something that is not a graph of the same dtype and
shape, adds nothing (counted in ``rejected``). Rules are run once per matched graph
(they are pure). Rules are used in one direction, but an equality has two: the
e-graph can prove equal what no directed rewriting reaches.

>>> from uopc.uop import UOp
>>> from uopc.upat import UPat
>>> from uopc.matcher import PatternMatcher
>>> x, y = UPat.var("x"), UPat.var("y")
>>> from uopc.ops import Ops
>>> comm = PatternMatcher([(UPat(Ops.ADD, src=(x, y)), lambda x, y: y + x), (x + 0, lambda x: x)])
>>> p0, p1 = UOp.param(0), UOp.param(1)
>>> from uopc.term import show
>>> r = saturate((p0 + 0) + p1, comm)     # graph_rewrite loops on commutativity; saturation does not
>>> show(r.best), r.cost, r.stop, r.complete
('add(p0, p1)', 3, 'saturated', True)
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Literal

from uopc.cost import Cost, as_cost
from uopc.egraph.egraph import EGraph
from uopc.egraph.ematch import instances, results
from uopc.egraph.extract import extract_all
from uopc.egraph.schedule import BackoffScheduler
from uopc.matcher import PatternMatcher
from uopc.ops import Ops
from uopc.uop import UOp

Stop = Literal["saturated", "iterations", "enodes", "timeout"]


@dataclass
class Saturation:
  """The result: the e-graph, the program's class, the best graph and its cost, and the statistics."""
  egraph: EGraph
  root: int
  best: UOp
  cost: float
  stop: Stop
  iterations: int = 0
  applied: int = 0    # rule results that changed the e-graph (a new class or a merge)
  matches: int = 0    # graphs rules were run on
  rejected: int = 0   # rule results that were dropped (raised, not a graph, another type)
  elapsed: float = 0.0
  per_rule: dict[int, int] = field(default_factory=dict)   # rule index -> results that changed the e-graph

  @property
  def complete(self) -> bool:
    """True if the rules were applied to saturation (no bound cut it short)."""
    return self.stop == "saturated"

  @property
  def enodes(self) -> int: return self.egraph.enode_count

  @property
  def eclasses(self) -> int: return len(self.egraph)


def saturate(prog: UOp, pm: PatternMatcher, cost: Cost | str | None = None, *, max_iterations: int = 30,
             max_enodes: int = 10_000, timeout: float | None = 10.0, scheduler: BackoffScheduler | None = None,
             ctx: Any = None) -> Saturation:
  """Saturate ``prog``'s e-graph with ``pm``'s rules and extract its cheapest graph under ``cost`` (default: nodes)."""
  cost = as_cost(cost)
  scheduler = scheduler if scheduler is not None else BackoffScheduler()
  t0 = time.perf_counter()
  eg = EGraph()
  root = eg.add(prog)
  out = Saturation(eg, root, prog, cost.of(prog), "iterations")
  fired: set[tuple[int, UOp]] = set()
  by_root_op = _rules_by_op(pm)
  tree_size = Cost.nodes()   # representatives: the smallest graph as a tree (linear to extract)
  stop: Stop | None = None
  while stop is None:
    if out.iterations >= max_iterations: stop = "iterations"; break  # noqa: E702
    it = out.iterations
    reps = {c: b.graph for c, b in extract_all(eg, tree_size, sharing=False).items()}
    classes_of = _classes_by_op(eg)
    todo: list[tuple[int, int, UOp]] = []   # (rule, class, matched graph)
    memo: dict = {}   # sub-pattern matches per class, for this iteration
    for i, (pat, _) in enumerate(pm.rules):
      if not scheduler.can_run(i, it): continue
      found = [(c, u) for op in by_root_op[i] for c in classes_of.get(op, ()) for u in instances(eg, pat, c, reps, memo)]
      found = [(c, u) for c, u in found if (i, u) not in fired]
      if scheduler.admit(i, it, len(found)): todo.extend((i, c, u) for c, u in found)
    changed = False
    for i, c, u in todo:
      if len(eg.memo) > max_enodes: stop = "enodes"; break  # noqa: E702   (memo: the e-nodes, and a few stale keys)
      if timeout is not None and time.perf_counter() - t0 > timeout: stop = "timeout"; break  # noqa: E702
      fired.add((i, u))
      out.matches += 1
      pat, fn = pm.rules[i]
      try: made = results(pat, fn, u, ctx)
      except Exception: made = None   # a rule that raises on this graph proves nothing
      if made is None: out.rejected += 1; continue  # noqa: E702
      for r in made:
        if type(r) is not UOp or r.dtype is not u.dtype or r.shape != u.shape:
          out.rejected += 1
          continue
        before = len(eg.uf)
        if eg.union(c, eg.add(r)) or len(eg.uf) != before:
          changed = True
          out.applied += 1
          out.per_rule[i] = out.per_rule.get(i, 0) + 1
    eg.rebuild()
    out.iterations += 1
    if stop is not None: break
    if not changed:
      if not scheduler.any_banned(it): stop = "saturated"
      else: scheduler.lift_bans()
    elif eg.enode_count > max_enodes: stop = "enodes"
    elif timeout is not None and time.perf_counter() - t0 > timeout: stop = "timeout"
  best = extract_all(eg, cost)[eg.find(root)].graph
  if (best_cost := cost.of(best)) < out.cost: out.best, out.cost = best, best_cost   # greedy extraction can miss the program's sharing
  out.root, out.stop = eg.find(root), stop
  out.elapsed = time.perf_counter() - t0
  return out


def _rules_by_op(pm: PatternMatcher) -> list[tuple[Ops, ...]]:
  return [tuple(pat.op) if pat.op is not None else tuple(Ops) for pat, _ in pm.rules]


def _classes_by_op(eg: EGraph) -> dict[Ops, list[int]]:
  out: dict[Ops, list[int]] = {}
  for c, cls in eg.classes.items():
    for op in {n[0] for n in cls.nodes}: out.setdefault(op, []).append(c)
  return out


