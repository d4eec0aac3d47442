"""Equality saturation: apply every rule in every way, record the equalities, extract the cheapest graph.

One iteration: bring each class's representative (its smallest graph as a tree) up to
date, e-match every rule that the scheduler lets run, semi-naively (only the matches new
since the rule last ran: ``uopc.egraph.seminaive``, compiled to loops by
``uopc.egraph.ecompile`` for most patterns), run the rule on each new match's bindings
(a template rule, ``uopc.egraph.template``, is not called: its result's nodes are added
over the bound classes), then add each result and merge it with the class it came from,
and rebuild once. Saturation stops when an iteration changes nothing (``saturated``:
the e-graph holds everything the rules prove), or at a bound: ``iterations``,
``enodes``, ``timeout`` (seconds) or the caller's ``limits`` (``uopc.limits``), and says which.

``saturate`` runs in named phases, the same for the Python loop and the C core's: ``_Rules.of`` (prepare: each
rule's pattern compiled, its template read), then per iteration the loop's ``iteration`` (search: every rule the
scheduler lets run e-matched; apply: the results added and merged, the bounds checked as it goes; rebuild), then one
check of the bounds (``_Bounds.after``).

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
from typing import Any, Callable, NamedTuple, cast

from uopc.bounded import Bounded, StopReason
from uopc.cost import Cost, as_cost
from uopc.egraph.egraph import EGraph
from uopc.egraph.ecompile import compile_ematch
from uopc.egraph.ematch import MAX_INSTANCES
from uopc.egraph.extract import Representatives, extract_all
from uopc.egraph.native import LazyEGraph, NativeRun, unsupported
from uopc.egraph.schedule import BackoffScheduler
from uopc.egraph.seminaive import SemiNaive, height, names
from uopc.egraph.template import NO_RESULT, Template
from uopc.limits import NO_LIMITS, Limits
from uopc.matcher import PatternMatcher
from uopc.upat import UPat
from uopc.uop import UOp


@dataclass
class Saturation(Bounded):
  """The result: the e-graph, the program's class, the best graph and its cost, and the statistics."""
  egraph: EGraph
  root: int
  best: UOp
  cost: float
  stop: StopReason   # ``"saturated"``, or the bound that stopped it
  iterations: int = 0
  applied: int = 0    # rule results that changed the e-graph (a new class or a merge)
  matches: int = 0    # graphs rules were run on
  rejected: int = 0   # rule results that were dropped (raised, not a graph, another type)
  elapsed: float = 0.0
  per_rule: dict[int, int] = field(default_factory=dict)   # rule index -> results that changed the e-graph
  native: bool = False   # run by the C core (uopc.egraph.native)

  @property
  def bound(self) -> StopReason | None:
    """The bound that cut saturation short (``"iterations"``, ``"enodes"``, ``"timeout"``, or the caller's), None if the
    rules saturated; ``complete`` is True then."""
    return None if self.stop == "saturated" else self.stop

  @property
  def enodes(self) -> int: return self.egraph.enode_count

  @property
  def eclasses(self) -> int: return len(self.egraph)


def saturate(prog: UOp, pm: PatternMatcher, cost: Cost | str | None = None, *, max_iterations: int = 30,
             max_enodes: int = 10_000, timeout: float | None = 10.0, scheduler: BackoffScheduler | None = None,
             ctx: Any = None, native: bool | None = None, limits: Limits = NO_LIMITS) -> Saturation:
  """Saturate ``prog``'s e-graph with ``pm``'s rules and extract its cheapest graph under ``cost`` (default: nodes).

  ``native``: None runs the C core where it applies (``uopc.egraph.native``), False never, True or a ValueError.
  ``limits``: the caller's bounds (``uopc.limits``), asked as the timeout is.
  """
  cost = as_cost(cost)
  scheduler = scheduler if scheduler is not None else BackoffScheduler()
  t0 = time.perf_counter()
  bounds = _Bounds(max_iterations, max_enodes, None if timeout is None else t0 + timeout, limits)
  rules = _Rules.of(pm)
  why = unsupported(prog, rules.pats, rules.templates, rules.rep_free, rules.compiled) if native is not False else "native=False"
  if native and why is not None: raise ValueError(f"the native core cannot run this saturation: {why}")
  loop: _Loop = _NativeLoop(prog, rules) if why is None else _PythonLoop(prog, rules, ctx)
  out = Saturation(loop.egraph, loop.root, prog, cost.of(prog), "iterations", native=loop.native)
  stop: StopReason | None = None
  while stop is None:
    if out.iterations >= max_iterations: stop = "iterations"; break
    it = out.iterations
    changed, cut = loop.iteration(it, scheduler, bounds, out)
    out.iterations += 1
    stop = cut or bounds.after(changed, scheduler, it, loop.enode_count())
  loop.finish(out, cost, prog)
  out.stop = stop
  out.elapsed = time.perf_counter() - t0
  return out


class _Bounds(NamedTuple):
  """Saturation's bounds, read once as it starts; ``reached`` is the one check of them, ``after`` the check after an
  iteration (both loops', Python's and the C core's)."""
  max_iterations: int
  max_enodes: int
  deadline: float | None
  limits: Limits

  def reached(self, enodes: int, clock: bool = True) -> StopReason | None:
    """The bound reached with ``enodes`` e-nodes made, if any; ``clock``: also the timeout and the caller's limits (a
    loop that checks often reads the clock every so many checks)."""
    if enodes > self.max_enodes: return "enodes"
    if not clock: return None
    if self.deadline is not None and time.perf_counter() > self.deadline: return "timeout"
    return self.limits.should_stop()

  def after(self, changed: bool, scheduler: BackoffScheduler, it: int, enodes: int) -> StopReason | None:
    """Why saturation stops after iteration ``it``, or None: nothing changed and no rule is banned (``saturated``; with
    bans, they are lifted and it goes on), or a bound."""
    if not changed:
      if not scheduler.any_banned(it): return "saturated"
      scheduler.lift_bans()
      return None
    return self.reached(enodes)


class _Rules(NamedTuple):
  """The rules, prepared once (the prepare phase): per rule its pattern and function, the height and the variable names
  of its pattern, its template (None: it is called), whether it reads no representative, its compiled matcher (None:
  the generic one), and where each template parameter is among the names."""
  pats: list[UPat]
  fns: list[Callable[..., Any]]
  heights: list[int]
  names: list[tuple[str, ...]]
  templates: list[Template | None]
  rep_free: list[bool]
  compiled: list[Any]
  order: list[list[int]]

  @staticmethod
  def of(pm: PatternMatcher) -> _Rules:
    pats, fns = [pat for pat, _ in pm.rules], [fn for _, fn in pm.rules]
    heights, rule_names = [height(pat) for pat in pats], [names(pat) for pat in pats]
    templates = [t if (t := Template.of(fn)) is not None and sorted(t.params) == list(rule_names[i]) else None for i, fn in enumerate(fns)]
    # a template rule whose pattern never reads a representative's arg sees only the classes, not their representatives
    rep_free = [t is not None and not _reads_reps(pat) for t, pat in zip(templates, pats)]
    compiled = [compile_ematch(pat, not rf) for pat, rf in zip(pats, rep_free)]
    order = [[ns.index(p) for p in t.params] if t is not None else [] for t, ns in zip(templates, rule_names)]   # names -> params
    return _Rules(pats, fns, heights, rule_names, templates, rep_free, compiled, order)


class _Loop:
  """One iteration at a time, of one of the two loops (``_PythonLoop``, ``_NativeLoop``)."""
  native: bool
  egraph: EGraph
  root: int

  def iteration(self, it: int, scheduler: BackoffScheduler, bounds: _Bounds, out: Saturation) -> tuple[bool, StopReason | None]:
    """Iteration ``it``, its counts added to ``out``: whether it changed the e-graph, and the bound that cut it short."""
    raise NotImplementedError

  def enode_count(self) -> int:
    raise NotImplementedError

  def finish(self, out: Saturation, cost: Cost, prog: UOp) -> None:
    """The e-graph's final class of the program, and the cheapest graph extracted from it, into ``out``."""
    raise NotImplementedError


class _PythonLoop(_Loop):
  """``saturate``'s iterations in Python: the e-graph, and what semi-naive matching keeps between iterations."""
  native = False

  def __init__(self, prog: UOp, rules: _Rules, ctx: Any) -> None:
    self.rules, self.ctx = rules, ctx
    self.egraph = EGraph()
    self.root = self.egraph.add(prog)
    self.since = [-1] * len(rules.pats)   # the iteration each rule last ran in (its matches applied): older matches are not new to it
    self.fired: dict[tuple, int] = {}   # (rule, its bindings) -> the class it was applied to: rules are pure, once is enough
    self.reps = Representatives()   # each class's smallest graph as a tree: what a variable stands for
    self.nstamp: dict[tuple, int] = {}   # e-node -> the iteration it was made, moved or changed in
    self.rstamp: dict[int, int] = {}   # class -> the iteration its representative changed in
    self.changed_at: list[tuple[set[int], set[int]]] = []   # per iteration: the classes of its new e-nodes, of its new representatives

  def enode_count(self) -> int: return self.egraph.enode_count

  def iteration(self, it: int, scheduler: BackoffScheduler, bounds: _Bounds, out: Saturation) -> tuple[bool, StopReason | None]:
    self._refresh(it)
    changed, cut = self._apply(self._search(it, scheduler), bounds, out)
    self.egraph.rebuild()
    return changed, cut

  def _refresh(self, it: int) -> None:
    """Bring each class's representative up to date, and stamp what changed since the last iteration with ``it``."""
    eg = self.egraph
    touched, unions, fresh = eg.take_touched()
    rep_changed, _ = self.reps.update(eg, touched, unions)
    find, memo = eg.find, eg.memo
    for n in fresh: self.nstamp[n] = it
    for c in rep_changed: self.rstamp[c] = it
    self.changed_at.append(({find(memo[n]) for n in fresh}, rep_changed))

  def _search(self, it: int, scheduler: BackoffScheduler) -> list[tuple[int, int, tuple, Any]]:
    """The search phase: every rule the scheduler lets run, e-matched on the classes that changed since it last ran;
    the new matches of the rules it admits, as (rule, class, key, bindings)."""
    rules, eg = self.rules, self.egraph
    matchers: dict[tuple[int, bool], SemiNaive] = {}   # by (since, rep-free): one memo for the rules that last ran together
    roots: dict[tuple[int, bool, int], list[int]] = {}
    todo: list[tuple[int, int, tuple, Any]] = []
    for i in range(len(rules.pats)):
      if not scheduler.can_run(i, it): continue
      mk = (self.since[i], rules.rep_free[i])
      if (m := matchers.get(mk)) is None:
        m = matchers[mk] = SemiNaive(eg, self.reps.graph, self.nstamp, None if rules.rep_free[i] else self.rstamp, self.since[i])
      if (cands := roots.get(rk := (*mk, rules.heights[i]))) is None: cands = roots[rk] = self._candidates(i, m)
      found = self._compiled_matches(i, cands) if rules.compiled[i] is not None else self._generic_matches(i, m, cands)
      if scheduler.admit(i, it, len(found)):
        self.since[i] = it
        todo.extend((i, c, key, b) for (c, key), (_, b) in found.items())
    return todo

  def _candidates(self, i: int, m: SemiNaive) -> list[int]:
    """The classes rule ``i``'s matches since it last ran may be rooted at, in order: the C core visits them so, and
    makes the same ids."""
    rep_free = self.rules.rep_free[i]
    base: set[int] = set()
    for new_nodes, new_reps in self.changed_at[self.since[i] + 1:]: base |= new_nodes if rep_free else new_nodes | new_reps
    return sorted(m.roots(self.rules.heights[i], base))

  def _compiled_matches(self, i: int, cands: list[int]) -> dict[tuple, tuple[int, Any]]:
    """Rule ``i``'s new matches by its compiled matcher (tuples of class ids, in the order of the names): (class, key) ->
    (class, bindings: the class ids of a template's params, or the names' graphs)."""
    rules, eg = self.rules, self.egraph
    f, t, ns, order = rules.compiled[i], rules.templates[i], rules.names[i], rules.order[i]
    s_, rg, classes, nstamp, rstamp, fired, find = self.since[i], self.reps.graph, eg.classes, self.nstamp, self.rstamp, self.fired, eg.find
    found: dict[tuple, tuple[int, Any]] = {}
    for c in cands:
      for ids in f(c, classes, nstamp, rstamp, s_, rg)[:MAX_INSTANCES]:
        key: tuple = (i, ids if t is not None else tuple([rg[k] for k in ids]))
        if (prev := fired.get(key)) is not None and find(prev) == c: continue
        found[(c, key)] = (c, [ids[j] for j in order] if t is not None else dict(zip(ns, key[1])))
    return found

  def _generic_matches(self, i: int, m: SemiNaive, cands: list[int]) -> dict[tuple, tuple[int, Any]]:
    """``_compiled_matches`` by the generic semi-naive matcher."""
    pat, t, ns, fired, find = self.rules.pats[i], self.rules.templates[i], self.rules.names[i], self.fired, self.egraph.find
    found: dict[tuple, tuple[int, Any]] = {}
    for c in cands:
      for env in m.matches(pat, c)[:MAX_INSTANCES]:
        b = {k: v if type(v) is int else v[0] for k, v in env.items()} if t is not None else m.bindings(env)
        key = (i, tuple([b[k] for k in ns]))
        if (prev := fired.get(key)) is not None and find(prev) == c: continue
        found[(c, key)] = (c, [b[k] for k in t.params] if t is not None else b)
    return found

  def _apply(self, todo: list[tuple[int, int, tuple, Any]], bounds: _Bounds, out: Saturation) -> tuple[bool, StopReason | None]:
    """The apply phase: each match's result added and merged with its class, the bounds checked before each (the clock
    every 64); whether the e-graph changed, and the bound that cut the phase short."""
    eg, rules, fired, ctx = self.egraph, self.rules, self.fired, self.ctx
    changed = False
    for n_done, (i, c, key, b) in enumerate(todo):
      if (cut := bounds.reached(len(eg.memo), n_done % 64 == 0)) is not None: return changed, cut   # memo: the e-nodes, and a few stale keys
      fired[key] = c
      out.matches += 1
      before = len(eg.uf)
      if (t := rules.templates[i]) is not None:   # the result's nodes straight over the bound classes
        if (made := t.add_ids(eg, b, c)) is None: out.rejected += 1; continue
        if made == NO_RESULT: continue
      else:
        fn = rules.fns[i]
        try: r = fn(**b) if ctx is None else fn(**b, ctx=ctx)
        except Exception: out.rejected += 1; continue   # a rule that raises on this graph proves nothing
        if r is None: continue
        cls = eg.classes[eg.find(c)]
        if type(r) is not UOp or r.dtype is not cls.dtype or r.shape != cls.shape:
          out.rejected += 1
          continue
        made = eg.add(r)
      if eg.union(c, made) or len(eg.uf) != before:
        changed = True
        out.applied += 1
        out.per_rule[i] = out.per_rule.get(i, 0) + 1
    return changed, None

  def finish(self, out: Saturation, cost: Cost, prog: UOp) -> None:
    eg = self.egraph
    out.best, out.cost = _extract(eg, eg.find(self.root), cost, prog, out.cost)
    out.root = eg.find(self.root)


class _NativeLoop(_Loop):
  """``saturate``'s iterations with the C core doing each one's matching, applying and rebuild."""
  native = True

  def __init__(self, prog: UOp, rules: _Rules) -> None:
    templates = cast("list[Template]", rules.templates)   # every rule is a template rule where the core runs (``unsupported``)
    self.run = NativeRun(prog, rules.pats, templates, rules.heights)
    self.egraph, self.root = EGraph(), self.run.root   # the e-graph: the core's, read lazily once it is done (``finish``)

  def enode_count(self) -> int: return self.run.core.enode_count()

  def iteration(self, it: int, scheduler: BackoffScheduler, bounds: _Bounds, out: Saturation) -> tuple[bool, StopReason | None]:
    cut, changed, matches, applied, rejected = self.run.iteration(it, scheduler, bounds.max_enodes, bounds.deadline)
    out.matches, out.applied, out.rejected = out.matches + matches, out.applied + applied, out.rejected + rejected
    return changed, None if not cut else "enodes" if cut == 1 else "timeout"

  def finish(self, out: Saturation, cost: Cost, prog: UOp) -> None:
    run = self.run
    out.egraph, out.root, out.per_rule = LazyEGraph(run), run.core.find(run.root), run.per_rule()
    out.best, out.cost = _extract(out.egraph, out.root, cost, prog, out.cost, run)


def _extract(eg: EGraph, root: int, cost: Cost, prog: UOp, prog_cost: float, run: NativeRun | None = None) -> tuple[UOp, float]:
  """The cheapest of: the extracted graph with sharing, without (DAG costs), and the program (greedy can miss its sharing).

  With the C core (``run``), extracted there, the same way."""
  best, best_cost = prog, prog_cost
  for sharing in ((True, False) if cost.dag else (True,)):
    g = run.extract(root, cost, sharing)[0] if run is not None else extract_all(eg, cost, sharing=sharing)[root].graph
    if (gc := cost.of(g)) < best_cost: best, best_cost = g, gc
  return best, best_cost


def _reads_reps(p: UPat) -> bool:
  """Whether matching ``p`` reads a representative: a variable with an arg, or a named node (its graph is built)."""
  if p.op is None and p.src is None: return p.arg is not None
  return p.name is not None or any(_reads_reps(s) for s in p.src or ())
