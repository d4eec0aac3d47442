"""Orient a rule set: find a measure every rule lowers on its instances, or name the rules none was found for.

Rule removal: a weight stage (``weights``) keeps every remaining rule's weight and lowers some, which are removed;
where no weights do, the polynomial interpretation (``interpretation``) may: it keeps every remaining rule's value
and lowers some. Stages repeat while they remove rules; a path order (``path_order``) then has to orient what is left. Each rule is
checked on its instances (``instances``): "every instance" or "on N instances" says what that proves.

>>> from uopc.matcher import PatternMatcher
>>> from uopc.upat import UPat
>>> x, y = UPat.var("x"), UPat.var("y")
>>> t = find_measure(PatternMatcher([(x + 0, lambda x: x, "add-0"), (x * 1, lambda x: x, "mul-1")], name="ids"))
>>> t.proved, [(r.name, r.status, r.scope) for r in t.rules]
(True, [('add-0', 'oriented', 'every instance'), ('mul-1', 'oriented', 'every instance')])
>>> swap = find_measure(PatternMatcher([(x + y, lambda x, y: y + x, "swap")], name="swap"))
>>> swap.proved, swap.unoriented
(False, ['swap'])
"""
from __future__ import annotations

import random
from typing import Any, Callable, Iterable, NamedTuple

from uopc.bounded import StopReason
from uopc.limits import NO_LIMITS, Limits
from uopc.matcher import PatternMatcher
from uopc.smt.solver import available
from uopc.term import show
from uopc.uop import UOp

from uopc.termination.instances import Instance, RuleInstances, rule_instances
from uopc.termination.interpretation import Interpretation, find_interpretation
from uopc.termination.logic import Concrete, Symbolic
from uopc.termination.measure import Measure, PathOrder
from uopc.termination.path_order import Comparisons, greater, symbol
from uopc.termination.weights import Z3_RLIMIT, Stage, stage_score, difference, find_stage

ORDERS_PAIRED = 12     # instances of a rule not oriented tried in pairs for two that no path order orients together
PATH_TRIES = 300       # precedences the search tries without z3 (each checks every remaining rule's instances)


class RuleVerdict(NamedTuple):
  """One rule: "oriented" (by which component), "not oriented", or "not checked" (no instance: ``why``)."""
  name: str
  status: str
  by: str      # "weights 1", "path order", or why it is not oriented
  scope: str   # "every instance", "on N instances", or ""


class Termination(NamedTuple):
  """The measure found, each rule's verdict, and the bound that stopped the search (None: it ran to the end)."""
  measure: Measure
  rules: list[RuleVerdict]
  stopped: StopReason | None = None
  solver: str = "z3"

  @property
  def proved(self) -> bool:
    """Every rule lowers the measure on its instances."""
    return self.stopped is None and all(r.status == "oriented" for r in self.rules)

  @property
  def unoriented(self) -> list[str]:
    """The rules the measure does not lower (or that were not checked)."""
    return [r.name for r in self.rules if r.status != "oriented"]


def _instances(pm: PatternMatcher, observed: dict[str, list[tuple[UOp, UOp]]], limits: Limits,
               progress: Callable[[str], None] | None) -> tuple[list[RuleInstances], StopReason | None]:
  out: list[RuleInstances] = []
  for rule in pm.rules:
    if (stop := limits.should_stop()) is not None: return out, stop
    name = pm.name_of(rule)
    if progress is not None: progress(name)
    out.append(rule_instances(rule[0], rule[1], name).with_observed(observed.get(name, [])))
  return out, None


def _path_z3(rules: dict[str, RuleInstances], symbols: set[str]) -> Concrete | None:
  logic = Symbolic()
  z3 = logic.z3
  opt = z3.Optimize(ctx=logic.ctx)
  opt.set(rlimit=Z3_RLIMIT)
  shared: Comparisons = {}
  for ri in rules.values():
    opt.add_soft(logic.all(greater(i.lhs, i.rhs, logic, i.variables, i.nonconstant, symbols, shared) for i in ri.instances), 1, "oriented")
  ranks = [logic.rank(f) for f in sorted(symbols)]
  opt.add(*[r >= 0 for r in ranks])
  opt.minimize(z3.Sum(ranks))   # after the rules oriented: the flattest precedence, to read
  if opt.check() != z3.sat: return None
  return logic.concrete(opt.model())


def _orients(order: Concrete, ri: RuleInstances, symbols: set[str]) -> bool:
  return all(greater(i.lhs, i.rhs, order, i.variables, i.nonconstant, symbols) for i in ri.instances)


def _path_search(rules: dict[str, RuleInstances], symbols: set[str], seed: int, limits: Limits) -> Concrete | None:
  rng = random.Random(seed)
  ops = sorted(symbols)
  best: tuple[int, Concrete] | None = None
  for k in range(PATH_TRIES):
    if k % 64 == 0 and limits.should_stop() is not None: break
    perm = ops[:]
    rng.shuffle(perm)
    if k % 2 == 0 and "CONST" in perm: perm.remove("CONST"); perm.insert(0, "CONST")   # constants least: often what is wanted
    order = Concrete({f: i for i, f in enumerate(perm)}, frozenset(f for f in ops if rng.random() < 0.5))
    n = sum(_orients(order, ri, symbols) for ri in rules.values())
    if best is None or n > best[0]: best = (n, order)
    if n == len(rules): break
  return None if best is None else best[1]


def find_measure(pm: PatternMatcher, *, observed: Iterable[tuple[str, UOp, UOp]] = (), limits: Limits = NO_LIMITS,
                 use_z3: bool | None = None, seed: int = 0, progress: Callable[[str], None] | None = None) -> Termination:
  """A measure every rule of ``pm`` lowers (module doc); ``observed``: steps seen on programs (rule name, node, result),
  checked as instances too (the only ones of a rule whose left sides the builder cannot make: STACK, INDEX, CALL, ...);
  ``use_z3`` None: z3 where it is installed, else the search; ``progress(what)`` is called at each rule and stage.

  If some rule is not oriented, the search runs again letting weight stages drop rules (a rule that loops keeps no
  weight stage from lowering the others), and the measure that orients more rules is the answer."""
  z3 = available() if use_z3 is None else use_z3
  steps: dict[str, list[tuple[UOp, UOp]]] = {}
  for name, node, result in observed: steps.setdefault(name, []).append((node, result))
  made, stop = _instances(pm, steps, limits, progress)
  t = _orient(pm, made, stop, limits, z3, seed, progress, drops=False)
  if t.stopped is None and any(r.status == "not oriented" for r in t.rules):
    again = _orient(pm, made, None, limits, z3, seed, progress, drops=True)
    if again.stopped is None and len(again.unoriented) < len(t.unoriented): t = again
  return _cores(t, made) if z3 and t.stopped is None else t


def _cores(t: Termination, made: list[RuleInstances]) -> Termination:
  """The answer with each rule the path order left unoriented shown by instances no path order orients together
  (where z3 finds them): looked for once, on the measure kept."""
  by_name = {ri.name: ri for ri in made}
  symbols = {symbol(n) for ri in made for i in ri.instances for n in (*i.lhs.toposort(), *i.rhs.toposort())}
  rules = []
  for r in t.rules:
    if r.status == "not oriented" and not r.by.startswith(("weights", "interpretation")) and (core := _unorientable(by_name[r.name], symbols)):
      r = r._replace(by="no path order orients together: " + "; ".join(f"{show(c.lhs)} -> {show(c.rhs)}" for c in core))
    rules.append(r)
  return t._replace(rules=rules)


def _orient(pm: PatternMatcher, made: list[RuleInstances], stop: StopReason | None, limits: Limits, z3: bool, seed: int,
            progress: Callable[[str], None] | None, drops: bool) -> Termination:
  """Stages while they lower rules (weights, else the interpretation), then a path order for the rest (module doc)."""
  checked = {ri.name: ri for ri in made if ri.instances}
  verdicts: dict[str, RuleVerdict] = {ri.name: RuleVerdict(ri.name, "not checked", f"no instance: {ri.missing}", "")
                                      for ri in made if not ri.instances}
  symbols = {symbol(n) for ri in checked.values() for i in ri.instances for n in (*i.lhs.toposort(), *i.rhs.toposort())}
  remaining = dict(checked)
  stages: list[Stage | Interpretation] = []
  while remaining and stop is None:
    if progress is not None: progress(f"stage {len(stages) + 1}")
    stage = _next_stage(remaining, symbols, seed, limits, z3, drops)
    if stage is None: break
    stages.append(stage)
    kind = f"{'interpretation' if isinstance(stage, Interpretation) else 'weights'} {len(stages)}"
    for name in stage.removes:
      verdicts[name] = RuleVerdict(name, "oriented", kind, remaining.pop(name).scope)
    for name in stage.drops:
      verdicts[name] = RuleVerdict(name, "not oriented", f"{kind} {'raises' if isinstance(stage, Interpretation) else 'raise'} it, "
                                   f"to lower others; {_why_not(remaining[name], None, symbols)}", remaining.pop(name).scope)
    stop = limits.should_stop()
  path, order = None, None
  if remaining and stop is None:
    if progress is not None: progress("path order")
    order = _path_z3(remaining, symbols) if z3 else _path_search(remaining, symbols, seed, limits)
    if order is not None:
      orients = tuple(name for name, ri in remaining.items() if _orients(order, ri, symbols))   # checked again, concretely
      if orients: path = PathOrder(order, orients)
      for name in orients: verdicts[name] = RuleVerdict(name, "oriented", "path order", remaining.pop(name).scope)
    stop = stop or limits.should_stop()
  for name, ri in remaining.items():
    verdicts[name] = RuleVerdict(name, "not oriented", _why_not(ri, order, symbols), ri.scope)
  ordered = [verdicts[pm.name_of(r)] for r in pm.rules if pm.name_of(r) in verdicts]
  return Termination(Measure(tuple(stages), path), ordered, stop, "z3" if z3 else "search")


def _next_stage(remaining: dict[str, RuleInstances], symbols: set[str], seed: int, limits: Limits, z3: bool,
                drops: bool) -> Stage | Interpretation | None:
  """Weights or the interpretation, whichever scores more (``weights.stage_score``: a rule lowered counts twice, kept
  once, dropped not at all); weights on a tie; None if neither lowers a rule."""
  weights = find_stage({name: [(i.lhs, i.rhs, i.variables) for i in ri.instances] for name, ri in remaining.items()}, symbols, seed,
                       limits, z3, drops)
  interpretation = find_interpretation({name: [(i.lhs, i.rhs) for i in ri.instances] for name, ri in remaining.items()}, drops)
  if weights is None or interpretation is None: return weights or interpretation
  better = stage_score(interpretation.removes, interpretation.drops, len(remaining)) > stage_score(weights.removes, weights.drops, len(remaining))
  return interpretation if better else weights


def _why_not(ri: RuleInstances, order: Concrete | None, symbols: set[str]) -> str:
  """An instance the path order found (if any) does not orient, as text."""
  failing = [i for i in ri.instances if order is None or not greater(i.lhs, i.rhs, order, i.variables, i.nonconstant, symbols)]
  i = (failing or ri.instances)[0]
  copies = "" if difference(i.lhs, i.rhs, i.variables).variables_ok else " (its right side copies a variable)"
  return f"e.g. {show(i.lhs)} -> {show(i.rhs)}{copies}"


def _unorientable(ri: RuleInstances, symbols: set[str]) -> list[Instance]:
  """One or two of the rule's instances no path order orients together (none: some pair, or every instance, is)."""
  logic = Symbolic()
  z3 = logic.z3
  conditions = [logic.all([greater(i.lhs, i.rhs, logic, i.variables, i.nonconstant, symbols)]) for i in ri.instances]

  def orientable(cs: list[Any]) -> bool:
    solver = z3.Solver(ctx=logic.ctx)
    solver.set(rlimit=Z3_RLIMIT)
    solver.add(*cs)
    return bool(solver.check() != z3.unsat)
  for k, c in enumerate(conditions):
    if not orientable([c]): return [ri.instances[k]]
  for k, c in enumerate(conditions[:ORDERS_PAIRED]):
    for m in range(k + 1, min(len(conditions), ORDERS_PAIRED)):
      if not orientable([c, conditions[m]]): return [ri.instances[k], ri.instances[m]]
  return []
