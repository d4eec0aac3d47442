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
>>> >>> comm = PatternMatcher([(UPat(Ops.ADD, src=(x, y)), lambda x, y: y + x), (x + 0, lambda x: x)])
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
from uopc.egraph.ematch import MAX_INSTANCES
from uopc.egraph.extract import Representatives, extract_all
from uopc.egraph.schedule import BackoffScheduler
from uopc.egraph.seminaive import SemiNaive, height, names
from uopc.matcher import PatternMatcher
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
  rules = pm.rules
  heights, rule_names = [height(pat) for pat, _ in rules], [names(pat) for pat, _ in rules]
  since = [-1] * len(rules)   # the iteration each rule last ran in (its matches applied): older matches are not new to it
  fired: dict[tuple, int] = {}   # (rule, its bindings) -> the class it was applied to: rules are pure, once is enough
  reps = Representatives()   # each class's smallest graph as a tree: what a variable stands for
  stamp: dict[int, int] = {}   # class -> the iteration it last changed in
  stop: Stop | None = None
  while stop is None:
    if out.iterations >= max_iterations: stop = "iterations"; break  # noqa: E702
    it = out.iterations
    touched, unions = eg.take_touched()
    for c in touched | reps.update(eg, touched, unions): stamp[eg.find(c)] = it
    matchers: dict[int, SemiNaive] = {}   # by since: one memo for the rules that last ran together
    roots: dict[tuple[int, int], set[int]] = {}
    todo: list[tuple[int, int, dict[str, UOp]]] = []   # (rule, class, bindings)
    for i, (pat, _) in enumerate(rules):
      if not scheduler.can_run(i, it): continue
      if (m := matchers.get(since[i])) is None: m = matchers[since[i]] = SemiNaive(eg, reps.graph, stamp, since[i])
      if (cands := roots.get(rk := (since[i], heights[i]))) is None: cands = roots[rk] = m.roots(heights[i])
      found: dict[tuple, tuple[int, dict[str, UOp]]] = {}
      for c in cands:
        for env in m.matches(pat, c)[:MAX_INSTANCES]:
          b = m.bindings(env)
          key = (i, tuple([b[k] for k in rule_names[i]]))
          if (prev := fired.get(key)) is not None and eg.find(prev) == c: continue
          found[(c, key)] = (c, b)
      if scheduler.admit(i, it, len(found)):
        since[i] = it
        todo.extend((i, c, b) for c, b in found.values())
    changed = False
    for i, c, b in todo:
      if len(eg.memo) > max_enodes: stop = "enodes"; break  # noqa: E702   (memo: the e-nodes, and a few stale keys)
      if timeout is not None and time.perf_counter() - t0 > timeout: stop = "timeout"; break  # noqa: E702
      fired[(i, tuple([b[k] for k in rule_names[i]]))] = c
      out.matches += 1
      fn = rules[i][1]
      try: r = fn(**b) if ctx is None else fn(**b, ctx=ctx)
      except Exception: out.rejected += 1; continue  # noqa: E702   (a rule that raises on this graph proves nothing)
      if r is None: continue
      cls = eg.classes[eg.find(c)]
      if type(r) is not UOp or r.dtype is not cls.dtype or r.shape != cls.shape:
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
  out.best, out.cost = _extract(eg, eg.find(root), cost, prog, out.cost)
  out.root, out.stop = eg.find(root), stop
  out.elapsed = time.perf_counter() - t0
  return out


def _extract(eg: EGraph, root: int, cost: Cost, prog: UOp, prog_cost: float) -> tuple[UOp, float]:
  """The cheapest of: the extracted graph with sharing, without (DAG costs), and the program (greedy can miss its sharing)."""
  best, best_cost = prog, prog_cost
  for sharing in ((True, False) if cost.dag else (True,)):
    g = extract_all(eg, cost, sharing=sharing)[root].graph
    if (gc := cost.of(g)) < best_cost: best, best_cost = g, gc
  return best, best_cost
