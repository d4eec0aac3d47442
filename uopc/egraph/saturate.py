"""Equality saturation: apply every rule in every way, record the equalities, extract the cheapest graph.

One iteration: bring each class's representative (its smallest graph as a tree) up to
date, e-match every rule that the scheduler lets run, semi-naively (only the matches new
since the rule last ran: ``uopc.egraph.seminaive``, compiled to loops by
``uopc.egraph.ecompile`` for most patterns), run the rule on each new match's bindings
(a template rule, ``uopc.egraph.template``, is not called: its result's nodes are added
over the bound classes), then add each result and merge it with the class it came from,
and rebuild once. Saturation stops when an iteration changes nothing (``saturated``:
the e-graph holds everything the rules prove), or at a bound: ``iterations``,
``enodes`` or ``timeout`` (seconds), and says which.

A rule that raises, or returns something that is not a graph of the same dtype and
shape, adds nothing (counted in ``rejected``). Rules are run once per distinct bindings
and class (they are pure). Rules are used in one direction, but an equality has two: the
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
from uopc.egraph.ecompile import compile_ematch
from uopc.egraph.ematch import MAX_INSTANCES
from uopc.egraph.extract import Representatives, extract_all
from uopc.egraph.native import LazyEGraph, NativeRun, unsupported
from uopc.egraph.schedule import BackoffScheduler
from uopc.egraph.seminaive import SemiNaive, height, names
from uopc.egraph.template import NO_RESULT, Template
from uopc.upat import UPat
from uopc.matcher import PatternMatcher
from uopc.uop import UOp
from uopc.bounded import Bounded

Stop = Literal["saturated", "iterations", "enodes", "timeout"]


@dataclass
class Saturation(Bounded):
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
  native: bool = False   # run by the C core (uopc.egraph.native)

  @property
  def bound(self) -> Stop | None:
    """The bound that cut saturation short (``"iterations"``, ``"enodes"``, ``"timeout"``), None if the rules saturated;
    ``complete`` is True then."""
    return None if self.stop == "saturated" else self.stop

  @property
  def enodes(self) -> int: return self.egraph.enode_count

  @property
  def eclasses(self) -> int: return len(self.egraph)


def saturate(prog: UOp, pm: PatternMatcher, cost: Cost | str | None = None, *, max_iterations: int = 30,
             max_enodes: int = 10_000, timeout: float | None = 10.0, scheduler: BackoffScheduler | None = None,
             ctx: Any = None, native: bool | None = None) -> Saturation:
  """Saturate ``prog``'s e-graph with ``pm``'s rules and extract its cheapest graph under ``cost`` (default: nodes).

  ``native``: None runs the C core where it applies (``uopc.egraph.native``), False never, True or a ValueError.
  """
  cost = as_cost(cost)
  scheduler = scheduler if scheduler is not None else BackoffScheduler()
  t0 = time.perf_counter()
  eg = EGraph()
  root = eg.add(prog)
  out = Saturation(eg, root, prog, cost.of(prog), "iterations")
  rules = pm.rules
  heights, rule_names = [height(pat) for pat, _ in rules], [names(pat) for pat, _ in rules]
  templates = [t if (t := Template.of(fn)) is not None and sorted(t.params) == list(rule_names[i]) else None
               for i, (_, fn) in enumerate(rules)]
  # a template rule whose pattern never reads a representative's arg sees only the classes, not their representatives
  rep_free = [t is not None and not _reads_reps(pat) for t, (pat, _) in zip(templates, rules)]
  compiled = [compile_ematch(pat, not rf) for (pat, _), rf in zip(rules, rep_free)]
  order = [[ns.index(p) for p in t.params] if t is not None else [] for t, ns in zip(templates, rule_names)]   # names -> params
  why = unsupported(prog, [pat for pat, _ in rules], templates, rep_free, compiled) if native is not False else "native=False"
  if native and why is not None: raise ValueError(f"the native core cannot run this saturation: {why}")
  if why is None:
    return _saturate_native(prog, [pat for pat, _ in rules], templates, heights, cost, scheduler, max_iterations, max_enodes, timeout, t0)
  since = [-1] * len(rules)   # the iteration each rule last ran in (its matches applied): older matches are not new to it
  fired: dict[tuple, int] = {}   # (rule, its bindings) -> the class it was applied to: rules are pure, once is enough
  reps = Representatives()   # each class's smallest graph as a tree: what a variable stands for
  nstamp: dict[tuple, int] = {}   # e-node -> the iteration it was made, moved or changed in
  rstamp: dict[int, int] = {}   # class -> the iteration its representative changed in
  changed_at: list[tuple[set[int], set[int]]] = []   # per iteration: the classes of its new e-nodes, of its new representatives
  stop: Stop | None = None
  while stop is None:
    if out.iterations >= max_iterations: stop = "iterations"; break
    it = out.iterations
    touched, unions, fresh = eg.take_touched()
    rep_changed, _ = reps.update(eg, touched, unions)
    find, memo = eg.find, eg.memo
    for n in fresh: nstamp[n] = it
    for c in rep_changed: rstamp[c] = it
    changed_at.append(({find(memo[n]) for n in fresh}, rep_changed))
    matchers: dict[tuple[int, bool], SemiNaive] = {}   # by (since, rep-free): one memo for the rules that last ran together
    roots: dict[tuple[int, bool, int], list[int]] = {}
    todo: list[tuple[int, int, tuple, Any]] = []   # (rule, class, key, bindings)
    for i, (pat, _) in enumerate(rules):
      if not scheduler.can_run(i, it): continue
      mk = (since[i], rep_free[i])
      if (m := matchers.get(mk)) is None: m = matchers[mk] = SemiNaive(eg, reps.graph, nstamp, None if rep_free[i] else rstamp, since[i])
      if (cands := roots.get(rk := (*mk, heights[i]))) is None:
        base: set[int] = set()
        for new_nodes, new_reps in changed_at[since[i] + 1:]: base |= new_nodes if rep_free[i] else new_nodes | new_reps
        cands = roots[rk] = sorted(m.roots(heights[i], base))   # in order: the C core visits them so, and makes the same ids
      found: dict[tuple, tuple[int, Any]] = {}   # (class, key) -> (class, bindings: class ids of the params, or graphs)
      ns, t = rule_names[i], templates[i]
      if (f := compiled[i]) is not None:   # tuples of class ids, in the order of the names
        s_, rg, classes = since[i], reps.graph, eg.classes
        for c in cands:
          for ids in f(c, classes, nstamp, rstamp, s_, rg)[:MAX_INSTANCES]:
            key: tuple = (i, ids if t is not None else tuple([rg[k] for k in ids]))
            if (prev := fired.get(key)) is not None and find(prev) == c: continue
            found[(c, key)] = (c, [ids[j] for j in order[i]] if t is not None else dict(zip(ns, key[1])))
      else:
        for c in cands:
          for env in m.matches(pat, c)[:MAX_INSTANCES]:
            b = {k: v if type(v) is int else v[0] for k, v in env.items()} if t is not None else m.bindings(env)
            key = (i, tuple([b[k] for k in ns]))
            if (prev := fired.get(key)) is not None and find(prev) == c: continue
            found[(c, key)] = (c, [b[k] for k in t.params] if t is not None else b)
      if scheduler.admit(i, it, len(found)):
        since[i] = it
        todo.extend((i, c, key, b) for (c, key), (_, b) in found.items())
    changed = False
    for n_done, (i, c, key, b) in enumerate(todo):
      if len(eg.memo) > max_enodes: stop = "enodes"; break   # memo: the e-nodes, and a few stale keys
      if timeout is not None and n_done % 64 == 0 and time.perf_counter() - t0 > timeout: stop = "timeout"; break
      fired[key] = c
      out.matches += 1
      before = len(eg.uf)
      if (t := templates[i]) is not None:   # the result's nodes straight over the bound classes
        if (made := t.add_ids(eg, b, c)) is None: out.rejected += 1; continue
        if made == NO_RESULT: continue
      else:
        fn = rules[i][1]
        try: r = fn(**b) if ctx is None else fn(**b, ctx=ctx)
        except Exception: out.rejected += 1; continue   # a rule that raises on this graph proves nothing
        if r is None: continue
        cls = eg.classes[find(c)]
        if type(r) is not UOp or r.dtype is not cls.dtype or r.shape != cls.shape:
          out.rejected += 1
          continue
        made = eg.add(r)
      if eg.union(c, made) or len(eg.uf) != before:
        changed = True
        out.applied += 1
        out.per_rule[i] = out.per_rule.get(i, 0) + 1
    eg.rebuild()
    out.iterations += 1
    if stop is not None: break
    stop = _after_iteration(changed, scheduler, it, eg.enode_count, max_enodes, timeout, t0)
  out.best, out.cost = _extract(eg, eg.find(root), cost, prog, out.cost)
  out.root, out.stop = eg.find(root), stop
  out.elapsed = time.perf_counter() - t0
  return out


def _after_iteration(changed: bool, scheduler: BackoffScheduler, it: int, enodes: int, max_enodes: int, timeout: float | None,
                     t0: float) -> Stop | None:
  """Why saturation stops after iteration ``it``, or None: nothing changed and no rule is banned (``saturated``; with
  bans, they are lifted and it goes on), or a bound. Both loops, Python's and the C core's, decide here."""
  if not changed:
    if not scheduler.any_banned(it): return "saturated"
    scheduler.lift_bans()
    return None
  if enodes > max_enodes: return "enodes"
  if timeout is not None and time.perf_counter() - t0 > timeout: return "timeout"
  return None


def _saturate_native(prog: UOp, pats: list[UPat], templates: list, heights: list[int], cost: Cost, scheduler: BackoffScheduler,
                     max_iterations: int, max_enodes: int, timeout: float | None, t0: float) -> Saturation:
  """``saturate``'s loop with the C core doing each iteration's matching, applying and rebuild."""
  run = NativeRun(prog, pats, templates, heights)
  out = Saturation(EGraph(), run.root, prog, cost.of(prog), "iterations", native=True)
  deadline = None if timeout is None else t0 + timeout
  stop: Stop | None = None
  while stop is None:
    if out.iterations >= max_iterations: stop = "iterations"; break
    it = out.iterations
    cut, changed, matches, applied, rejected = run.iteration(it, scheduler, max_enodes, deadline)
    out.matches, out.applied, out.rejected = out.matches + matches, out.applied + applied, out.rejected + rejected
    out.iterations += 1
    if cut: stop = "enodes" if cut == 1 else "timeout"; break
    stop = _after_iteration(changed, scheduler, it, run.core.enode_count(), max_enodes, timeout, t0)
  out.egraph, out.root, out.stop, out.per_rule = LazyEGraph(run), run.core.find(run.root), stop, run.per_rule()
  out.best, out.cost = _extract(out.egraph, out.root, cost, prog, out.cost, run)
  out.elapsed = time.perf_counter() - t0
  return out


def _extract(eg: EGraph, root: int, cost: Cost, prog: UOp, prog_cost: float, run: NativeRun | None = None) -> tuple[UOp, float]:
  """The cheapest of: the extracted graph with sharing, without (DAG costs), and the program (greedy can miss its sharing).

  With the C core (``run``), extracted there, the same way."""
  best, best_cost = prog, prog_cost
  for sharing in ((True, False) if cost.dag else (True,)):
    g = run.extract(cost, sharing)[root][0] if run is not None else extract_all(eg, cost, sharing=sharing)[root].graph
    if (gc := cost.of(g)) < best_cost: best, best_cost = g, gc
  return best, best_cost


def _reads_reps(p: UPat) -> bool:
  """Whether matching ``p`` reads a representative: a variable with an arg, or a named node (its graph is built)."""
  if p.op is None and p.src is None: return p.arg is not None
  return p.name is not None or any(_reads_reps(s) for s in p.src or ())
