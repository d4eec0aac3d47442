"""Does a program's result depend on rule order? Forks between the canonical path and other normal forms.

``diagnose_order`` explores every rewrite ordering of a program (bounded), takes the
canonical engine's own path through that exploration (``canonical_path``: its firings
replayed as explorer steps) and, for every normal form other than the canonical
result, finds the **fork**: the last state of the canonical path from which that normal
form is still reachable. There the canonical engine applied one rule and lost the other
normal form; the first step of a shortest path from the fork to it is the competing
step. Each fork is *semantic* if the two results compute different values at an input (bit for
bit, replayed), *syntactic* if they are proved equal for all inputs, else *no-difference-found* or
*unknown* (``uopc.relational.analyses.verdicts``, ``uopc.smt.classify``).

>>> from uopc import UOp, dtypes, show, symbolic
>>> prog = (UOp.const(-0.0) + UOp.const(0.0)) * UOp.param(0, dtypes.f32)
>>> report = diagnose_order(prog, symbolic)
>>> [s.term() for s in report.normal_forms], show(report.canonical)
(['mul(p0, 0.0)', 'mul(p0, -0.0)'], 'mul(p0, 0.0)')
>>> f = report.forks[0]
>>> f.fork.term(), show(f.node), f.canonical_step.rule, f.competing_step.rule, f.kind
('mul(add(-0.0, 0.0), p0)', 'add(-0.0, 0.0)', 'fold-const', 'add-0', 'semantic')

``permutation_trials`` runs the canonical engine with other rule orders (reversed,
pairwise swaps of rules that compete for a node, rotations) and says which change the
result:

>>> [(t.label, show(t.result)) for t in permutation_trials(prog, symbolic, report) if t.changed][:2]
[('reversed', 'mul(p0, -0.0)'), ('swap #0 and #2', 'mul(p0, -0.0)')]

Whether every order terminates is the other half of the verdict (``uopc.relational.space.termination``): a reachable
cycle means some order never ends, whatever the normal forms; ``report.termination.loop`` is one, with a shortest path
into it, and ``report.strategies`` says which of the IR engine's runs (tinygrad: top down and bottom up) went round one:

>>> from uopc import UPat, PatternMatcher
>>> from uopc.matcher import short_name
>>> a, b = UPat.var("a"), UPat.var("b")
>>> swap = PatternMatcher([(UPat.var("x") * 1, lambda x: x), (a * b, lambda a, b: b * a)])
>>> loop = diagnose_order(UOp.param(0) * 1 + UOp.param(1), swap)
>>> loop.verdict().text
'one normal form, but not every rule order terminates: some orders loop forever on a reachable cycle'
>>> [s.term() for s in loop.termination.loop.states], [short_name(r) for r in loop.termination.loop.rules]
(['add(mul(p0, 1), p1)', 'add(mul(1, p0), p1)'], ['a * b'])
>>> [(s.label, s.outcome, s.through_cycle) for s in loop.strategies]   # uopc's engine ends, though it starts on the cycle
[('graph_rewrite', 'terminates', True)]
>>> report.verdict().kind
'depends'
"""
from __future__ import annotations

from collections import deque
from typing import Any, Callable, NamedTuple

from uopc.matcher import PatternMatcher
from uopc.relational.ir import UOPC, ir_of, rules_for
from uopc.relational.space.engine_path import CanonicalPath, canonical_path
from uopc.relational.space.reduction import order_keep_full
from uopc.relational.space.states import Edge, State
from uopc.relational.space.step import stepper_for
from uopc.relational.space.termination import Strategy, Termination, strategies, termination
from uopc.limits import NO_LIMITS, Limits
from uopc.relational.space.stream import Exploration
from uopc.relational.analyses.sample import Sample
from uopc.relational.analyses.verdicts import OrderVerdict, compare_results, order_verdict
from uopc.rewrite import RewriteLoopError, failure_text, graph_rewrite
from uopc.uop import UOp
from uopc.bounded import Bounded, StopReason

__all__ = ["Fork", "OrderReport", "OrderTrial", "competing_rules", "diagnose_order", "order_exploration", "order_matters",
           "permutation_trials", "SampledWitness", "sampled_witness"]


class Fork(NamedTuple):
  """Where the canonical path and the path to another normal form part.

  ``fork`` is the last canonical state from which ``normal_form`` is reachable;
  ``canonical_step`` the canonical engine's step there (None if the canonical path is
  cut short by a bound), ``competing_step`` the first step towards ``normal_form``;
  ``canonical_path``/``competing_path`` the steps from the fork to each result.
  """
  normal_form: State
  fork: State
  canonical_step: Edge | None
  competing_step: Edge
  canonical_path: list[Edge]
  competing_path: list[Edge]
  kind: str
  detail: str

  @property
  def node(self) -> UOp:
    """The node the canonical engine rewrote at the fork (the competing step's node if there is no canonical step)."""
    return self.canonical_step.node if self.canonical_step is not None else self.competing_step.node


class _OrderFields(NamedTuple):
  program: UOp
  exploration: Exploration
  canonical: UOp | None
  canonical_error: str | None
  path: CanonicalPath
  normal_forms: list[State]
  canonical_state: State | None
  forks: list[Fork]
  basis: str
  termination: Termination = Termination(None, None)
  strategies: tuple[Strategy, ...] = ()


class OrderReport(_OrderFields, Bounded):
  """Everything ``uopc explore order`` prints: the exploration, the canonical result and path, the forks, whether every
  order terminates (``termination``: a reachable cycle if not) and how the IR engine's runs ended (``strategies``) (a
  tuple of its eleven fields); ``complete`` if every reachable graph was explored (so these are all the normal forms)."""
  __slots__ = ()

  @property
  def bound(self) -> StopReason | None:
    """Which bound stopped the exploration, or None."""
    return self.exploration.bound

  def verdict(self, forms: int | None = None, witness: bool = False, runs: int = 0) -> OrderVerdict:
    """``order_verdict`` of this report: one normal form, and every order terminates (``forms``: the normal forms found
    with sampled ones, default the explored ones; ``witness``, ``runs``: a sampled run's, as ``order_verdict``'s)."""
    return order_verdict(self.complete, len(self.normal_forms) if forms is None else forms, len(self.forks), witness, runs,
                         terminates=self.termination.terminates)

  def _repr_html_(self) -> str:   # Jupyter (uopc.relational.notebook)
    from uopc.relational.notebook import order_html
    return order_html(self, self.verdict().text)   # what the search established


def _last_reaching(ex: Exploration, on_path: list[State], progress: Callable[[int], object] | None = None) -> dict[int, int]:
  """For each state reachable from the canonical path, the index of the last path state that reaches it: one search over
  the state graph for the whole path (from the path's end backwards, each state labelled by the first search that finds
  it: a state found from ``on_path[k]`` and not from a later one), not one search per normal form over its predecessors.
  ``progress(n)``: n more states searched (every 4,096)."""
  if (core := ex.native_core) is not None:   # the same search in C, over the core's step maps
    found = core.last_reaching(tuple(s.id for s in on_path))
    if progress is not None: progress(len(found))
    return {i: k for i, k in enumerate(found) if k >= 0}
  label: dict[int, int] = {}
  done = 0
  for k in range(len(on_path) - 1, -1, -1):
    start = on_path[k].id
    if start in label: continue
    label[start] = k
    todo = [start]
    while todo:
      for t in ex.successor_ids(ex.states[todo.pop()]):
        if t not in label:
          label[t] = k
          todo.append(t)
      done += 1
      if progress is not None and done % 4096 == 0: progress(4096)
  return label


def _shortest(ex: Exploration, start: State, targets: set[int]) -> dict[int, list[Edge]]:
  """A shortest path of edges from ``start`` to each of ``targets`` (breadth first, the first edge to a state its parent,
  as the exploration's own search). Every state on a path to a target reaches it, so the search needs no restriction to
  those states: it finds the same paths."""
  states = ex.states
  parent: Any
  if (core := ex.native_core) is not None: parent = core.bfs(start.id, tuple(targets))   # the same search in C: a list
  else:
    parent = {start.id: -1}
    todo, left = deque([start.id]), set(targets) - {start.id}
    while todo and left:
      sid = todo.popleft()
      for t in ex.successor_ids(states[sid]):
        if t not in parent:
          parent[t] = sid
          todo.append(t)
          left.discard(t)
  paths: dict[int, list[Edge]] = {}
  for target in targets:
    path: list[Edge] = []
    t = target
    while (p := parent[t] if type(parent) is list else parent.get(t, -1)) >= 0:   # the first edge from the parent to it: the search's choice
      path.append(next(e for e in ex.edges_from(states[p]) if e.target.id == t and e.target.error is None))
      t = p
    paths[target] = path[::-1]
  return paths


def diagnose_order(prog: UOp, pm: PatternMatcher, *, max_states: int | None = 10_000, max_depth: int | None = 50,
                   timeout: float | None = 30.0, bindings: int = 8, seed: int = 0,
                   exploration: Exploration | None = None, max_steps: int | None = None,
                   recorded: tuple[UOp | None, str | None, list] | None = None, reduce: bool = True,
                   progress: Callable[[int], object] | None = None, limits: Limits = NO_LIMITS,
                   variants: list[tuple[str, Any, str | None]] | None = None, terminating: Termination | None = None) -> OrderReport:
  """Explore ``prog`` under ``pm`` and explain every normal form that is not the canonical result; say whether every
  order terminates (a reachable cycle if not) and which of the IR engine's runs end.

  ``exploration`` may be one already run (it must be of ``prog`` under ``pm``); else
  one is made with the bounds given (``order_exploration``; ``reduce``: with the reduction
  that keeps every normal form). ``bindings`` random bindings (``seed``) are what the witness
  search tries after the edge values, for programs with free PARAMs where z3 does not decide. ``max_steps`` bounds the
  canonical engine (see ``record``), unless ``recorded`` gives its outcome already
  (``(None, why, [])``: no canonical result, so no forks). ``progress(n)``: n more states searched for the forks (a
  command's progress bar: ``uopc explore order``). ``limits``: the caller's bounds on the exploration it makes (``uopc.limits``).
  ``variants``: the engine's other runs (``IR.canonical_variants``), run here unless given or ``recorded`` is.
  ``terminating``: whether every order terminates, if known (``Termination(None, None)``: not to be found here, as by a
  command whose bound cut this work short); else found here (``uopc.relational.space.termination``).
  """
  ir = ir_of(prog)
  pm = rules_for(prog, pm, "diagnose_order: pm")
  ex = exploration if exploration is not None else \
    order_exploration(prog, pm, max_states=max_states, max_depth=max_depth, timeout=timeout, reduce=reduce, limits=limits)
  ex.run()
  canonical, error, firings = recorded if recorded is not None else ir.record(prog, pm, max_steps)
  path = canonical_path(ex, pm, firings, canonical, error)
  canon_state = None if canonical is None else ex.state_of(canonical)
  forms = ex.normal_forms
  forks: list[Fork] = []
  others = [s for s in forms if s is not canon_state]
  if others and canonical is not None:
    on_path = path.states
    last = _last_reaching(ex, on_path, progress)   # on_path[0] is the program: every state has a label
    at: dict[int, set[int]] = {}
    for nf in others: at.setdefault(last[nf.id], set()).add(nf.id)
    paths = {nf: p for j, ids in at.items() for nf, p in _shortest(ex, on_path[j], ids).items()}   # one search per fork
    for nf in others:
      j = last[nf.id]
      fork = on_path[j]
      competing = paths[nf.id]
      kind, detail = compare_results(ir, canonical, nf.graph, prog, bindings, seed)
      forks.append(Fork(nf, fork, path.edges[j] if j < len(path.edges) else None, competing[0], path.edges[j:],
                        competing, kind, detail))
  if variants is None: variants = ir.canonical_variants(prog, pm) if recorded is None else []
  ends = termination(ex) if terminating is None else terminating
  runs = strategies(ir.engine, canonical, error, variants, path.states, ends, _term)
  return OrderReport(prog, ex, canonical, error, path, forms, canon_state, forks, ir.basis(prog, bindings), ends, tuple(runs))


def _term(u: Any) -> str:
  from uopc.term import show
  from uopc.lengths import LENGTHS
  return show(u, LENGTHS.label)


def order_exploration(prog: UOp, pm: PatternMatcher, *, max_states: int | None = 10_000, max_depth: int | None = 50,
                      timeout: float | None = 30.0, reduce: bool = True, limits: Limits = NO_LIMITS) -> Exploration:
  """The exploration ``diagnose_order`` needs: breadth first, reduced (if ``reduce``) everywhere but on
  the canonical engine's path, whose states are expanded fully so that every fork on it is found
  (``docs/reduction.md``); fully explored if that path cannot be replayed."""
  keep_full = None
  pm = rules_for(prog, pm, "order_exploration: pm")
  if reduce and ir_of(prog).reducible:
    stepper = stepper_for(pm)
    keep_full = order_keep_full(prog, pm, stepper)
  return Exploration(prog, pm, max_states=max_states, max_depth=max_depth, timeout=timeout, order="bfs",
                     reduce=keep_full is not None, keep_full=keep_full or (), limits=limits)


# ---- other rule orders

class OrderTrial(NamedTuple):
  """The canonical engine under another rule ``order`` (indices into ``pm.rules``).

  ``changed``: its result differs from the canonical one (bit for bit, as graphs);
  ``pairs``: the pairs of rules that compete for some node of the exploration and
  whose relative order this trial flips (for a swap, the swapped pair first).
  """
  label: str
  order: tuple[int, ...]
  result: UOp | None
  error: str | None
  changed: bool
  pairs: tuple[tuple[int, int], ...]


def competing_rules(ex: Exploration) -> set[tuple[int, int]]:
  """Pairs ``(i, j)``, ``i < j``, of rules that both rewrite one node of some explored graph.

  >>> from uopc import UOp, symbolic
  >>> from uopc.relational.space.stream import Exploration
  >>> [[symbolic.name_of(symbolic.rules[k]) for k in p] for p in competing_rules(Exploration(UOp.param(0) + 0, symbolic))]
  [['add-0', 'add-0.0']]
  """
  out: set[tuple[int, int]] = set()
  for s in ex.states:
    if not s.out: continue
    at: dict[UOp, set[int]] = {}
    for r, _ in (s.out.items() if type(s.out) is dict else s.out): at.setdefault(r.node, set()).add(r.rule_index)
    for rules in at.values():
      rs = sorted(rules)
      out.update((a, b) for k, a in enumerate(rs) for b in rs[k + 1:])
  return out


def _flipped(order: tuple[int, ...], pairs: set[tuple[int, int]]) -> tuple[tuple[int, int], ...]:
  pos = {r: k for k, r in enumerate(order)}
  return tuple(sorted((i, j) for i, j in pairs if pos[i] > pos[j]))


def permutation_trials(prog: UOp, pm: PatternMatcher, report: OrderReport, max_orders: int = 200,
                       max_steps: int | None = None, progress: Callable[[int], object] | None = None) -> list[OrderTrial]:
  """Run the canonical engine with the rules reversed, with each pair of competing rules swapped, and
  rotated by 1, 2, ... (at most ``max_orders`` orders in all, in that order of priority). ``progress(1)`` after each."""
  ir = ir_of(prog)
  pm = rules_for(prog, pm, "permutation_trials: pm")
  n = len(pm.rules)
  pairs = competing_rules(report.exploration)
  orders: list[tuple[str, tuple[int, ...], tuple[tuple[int, int], ...] | None]] = [("reversed", tuple(range(n - 1, -1, -1)), None)]
  for i, j in sorted(pairs):
    o = list(range(n))
    o[i], o[j] = j, i
    orders.append((f"swap #{i} and #{j}", tuple(o), ((i, j),)))
  orders += [(f"rotated by {k}", tuple(range(k, n)) + tuple(range(k)), None) for k in range(1, n)]
  if max_steps is None: max_steps = 200_000 + 20 * len(prog.toposort())
  out = []
  for label, order, first in orders[:max_orders]:
    if ir is not UOPC: result, error = ir.canonical(prog, ir.reordered(pm, order), max_steps=max_steps)
    else:   # uopc's engine, its errors worded as before
      try: result, error = graph_rewrite(prog, PatternMatcher([pm.rules[k] for k in order]), max_steps=max_steps), None
      except RewriteLoopError: result, error = None, f"no fixed point within {max_steps} rule lookups"
      except Exception as e: result, error = None, failure_text(e)
    flipped = _flipped(order, pairs)
    if first is not None: flipped = first + tuple(p for p in flipped if p != first[0])
    out.append(OrderTrial(label, order, result, error, result is not report.canonical, flipped))
    if progress is not None: progress(1)
  return out


def order_matters(trials: list[OrderTrial]) -> list[tuple[int, int]]:
  """The pairs of rules whose relative order changes the result: swapped pairs that did,
  else the competing pairs flipped by every order that did."""
  swaps = [t.pairs[0] for t in trials if t.changed and t.label.startswith("swap")]
  if swaps: return sorted(set(swaps))
  changed = [set(t.pairs) for t in trials if t.changed]
  return sorted(set.intersection(*changed)) if changed else []


# ---- evidence from sampled runs (uopc.relational.analyses.sample), where the exploration stopped at a bound

class SampledWitness(NamedTuple):
  """Two results that rule order decides between, found by sampled runs: ``form`` (a sampled normal state, its
  path its run's) and ``other``, the canonical result (``other_state`` None) or a second sampled normal state."""
  form: State
  other: UOp
  other_state: State | None
  kind: str
  detail: str


def sampled_witness(report: OrderReport, sample: Sample, bindings: int = 8, seed: int = 0) -> SampledWitness | None:
  """A sampled normal form other than the canonical result (or, without one, two different sampled normal forms), with
  the verdict on the difference (``verdicts.compare``); None if every run reached one result.

  >>> from uopc import UOp, show, symbolic
  >>> from uopc.relational.analyses.sample import sample_normal_forms
  >>> prog = UOp.const(-0.0) + UOp.const(0.0)
  >>> w = sampled_witness(diagnose_order(prog, symbolic), sample_normal_forms(prog, symbolic, max_runs=20))
  >>> w.form.term(), show(w.other), w.kind
  ('-0.0', '0.0', 'semantic')
  """
  ir = ir_of(report.program)
  if report.canonical is not None:
    for f in sample.forms:
      if f.graph is not report.canonical:
        return SampledWitness(f, report.canonical, None, *compare_results(ir, report.canonical, f.graph, report.program, bindings, seed))
    return None
  if len(sample.forms) < 2: return None
  a, b = sample.forms[:2]
  return SampledWitness(b, a.graph, a, *compare_results(ir, a.graph, b.graph, report.program, bindings, seed))
