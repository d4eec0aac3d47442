"""A rule's instances for the termination proof: its left sides with symbolic leaves (``uopc.smt.instance.left_sides``),
each with the right side the rule's Python function computes, and what the check of one instance says of all.

The leaves of a left side are PARAMs, and each stands for an arbitrary subterm (a *variable*). A rule that needs
constants where the pattern has variables (constant folding: ``UPat(ALU)`` over CONSTs) fires only when some leaves
are constants, so each left side is also tried with its leaves made constants, all at once and one at a time. A leaf
where a constant stops the rule from firing is *non-constant*: the rule refused a constant there (``c + y -> y + c``
only if ``y`` is not a constant), and a measure may count on it.

The verdict's scope: "every instance" when, at every dtype, the rule fired on its left side with only variable leaves
(no constant holes, no structured leaves) and the right side keeps them as variables; else "on N instances". Left
sides are also tried with the sources of their commutative nodes in every order: a pattern with list sources
matches each, and its function may rewrite each differently.

A rule whose pattern wants a STACK, an INDEX, a movement op, a REDUCE or a CALL (``evaluate``'s) has no scalar left
side: its left sides are the builder's shaped ones (``left_sides(..., shaped=True)``: STACKs of rows, shaped PARAMs,
each movement op and REDUCE, CALLs of the builder's bodies), each as it is and with all its leaves made constants at
once (a shaped leaf a literal of its shape: the constant data a movement op is computed on). Their free leaves are
renamed from slot ``FREE`` on, apart from a CALL body's own PARAMs, which the CALL binds and which are no variables.
They are a sample of shapes: the verdict says "on N instances".

>>> from uopc.upat import UPat
>>> x = UPat.var("x")
>>> r = rule_instances(x * 1, lambda x: x, "mul-1", at=(dtypes.i32,))
>>> [(show(i.lhs), show(i.rhs)) for i in r.instances], r.scope
([('mul(p0, 1)', 'p0'), ('mul(3, 1)', '3'), ('mul(1, p0)', 'p0'), ('mul(1, 3)', '3')], 'every instance')
"""
from __future__ import annotations

from typing import Any, Callable, NamedTuple

from uopc.dtype import DType, dtypes
from uopc.evaluate import from_flat, substitute_scoped
from uopc.matcher import PatternMatcher
from uopc.ops import COMMUTATIVE, PARAM
from uopc.smt.instance import Inapplicable, NoLeftSide, constant_holes, left_sides
from uopc.term import show
from uopc.uop import UOp, call_body_scope, prod

__all__ = ["Instance", "RuleInstances", "rule_instances", "show"]

LEFT_SIDES = 8   # per dtype: the builder draws constants at random after the first
SHAPED_LEFT_SIDES = 32   # per dtype: the shaped builder draws shapes and CALL bodies at random; 32 meet a body with each op at its root
FREE = 10        # a shaped left side's free leaves are renamed from this slot on, apart from a CALL body's own PARAMs (0, 1)
ORDERS = 16      # source orders of a left side's commutative nodes tried (a pattern with list sources matches each)


class Instance(NamedTuple):
  """One rewrite of the rule: ``lhs -> rhs``; ``variables``: the PARAMs of ``lhs`` that stand for any subterm;
  ``nonconstant``: those of them where the rule refused a constant."""
  lhs: UOp
  rhs: UOp
  variables: frozenset[UOp]
  nonconstant: frozenset[UOp]


class RuleInstances(NamedTuple):
  """The instances of one rule, and what checking them proves (``scope``), or why there are none (``missing``)."""
  name: str
  instances: list[Instance]
  every: bool           # the instances stand for every instance (see the module's docstring)
  missing: str = ""     # why no instance was made
  observed: int = 0     # how many of them are steps observed on programs (``with_observed``)

  @property
  def scope(self) -> str:
    """"every instance", or "on N instances" (and how many were observed)."""
    if self.every: return "every instance"
    return f"on {len(self.instances)} instances" + (f" ({self.observed} observed on programs)" if self.observed else "")

  def with_observed(self, steps: list[tuple[UOp, UOp]]) -> RuleInstances:
    """These instances and the rule's steps observed on programs (node, result: concrete, every PARAM a symbol)."""
    seen = {(i.lhs, i.rhs) for i in self.instances}
    new = [Instance(a, b, frozenset(), frozenset()) for a, b in dict.fromkeys(steps) if (a, b) not in seen and a is not b]
    if not new: return self
    return self._replace(instances=self.instances + new, observed=self.observed + len(new), missing="")


_SAMPLE_VALUE = {dtypes.bool: True}


def _constant(p: UOp) -> UOp:
  """A constant a PARAM leaf may become: 3 (3.0; True for a bool), away from 0 and 1, which rules treat apart; a shaped
  leaf becomes a literal of its shape holding it."""
  v = _SAMPLE_VALUE.get(p.dtype, 3)
  return from_flat([v] * prod(p.shape), p.shape, p.dtype) if p.shape else UOp.const(v, p.dtype)


def _fire(rule: PatternMatcher, lhs: UOp) -> UOp | None:
  try: return rule.rewrite(lhs)
  except Exception:   # a rule that raises on an instance rewrites nothing there (check-rules reports raising rules)
    return None


def _params(u: UOp) -> list[UOp]:
  """The free leaves of ``u`` (not a CALL body's own PARAMs), by slot."""
  return sorted({n for n in u.toposort(call_body_scope) if n.op is PARAM}, key=lambda p: p.arg.slot)


def _apart(u: UOp) -> UOp:
  """``u`` with its free leaves renamed from slot ``FREE`` on: the builder numbers them from 0, as a CALL body's own."""
  return substitute_scoped(u, {p: UOp.param(FREE + p.arg.slot, p.dtype, p.shape) for p in _params(u)})


def _orders(lhs: UOp) -> list[UOp]:
  """``lhs`` with the sources of its commutative nodes in every order (up to ``ORDERS``): the builder makes one order,
  a pattern with list sources matches all of them, and a rule may rewrite each differently."""
  out: dict[UOp, None] = {lhs: None}
  for n in lhs.toposort():
    if n.op not in COMMUTATIVE or len(n.src) != 2 or n.src[0] is n.src[1]: continue
    for u in list(out):
      if len(out) >= ORDERS: break
      swapped = n.replace(src=n.src[::-1])
      out[substitute_scoped(u, {n: swapped})] = None
  return list(out)


def _variants(rule: PatternMatcher, lhs: UOp, rhs: UOp | None) -> tuple[list[Instance], bool]:
  """The instances one left side gives: itself (if the rule fires), its leaves made constants all at once and one at
  a time; and whether the rule fired on the symbolic left side itself."""
  params = _params(lhs)
  made = {p: substitute_scoped(lhs, {p: _constant(p)}) for p in params}   # one leaf constant: does the rule still fire?
  fired = {p: _fire(rule, u) for p, u in made.items()}
  refused = frozenset(p for p in params if fired[p] is None) if rhs is not None else frozenset()
  out = [Instance(made[p], r, frozenset(params) - {p}, refused - {p}) for p in params if (r := fired[p]) is not None]
  if rhs is not None: out.insert(0, Instance(lhs, rhs, frozenset(params), refused))
  if len(params) > 1:
    ground = substitute_scoped(lhs, {p: _constant(p) for p in params})
    if (rhs0 := _fire(rule, ground)) is not None: out.append(Instance(ground, rhs0, frozenset(), frozenset()))
  return [i for i in out if i.lhs is not i.rhs], rhs is not None


def _shaped(rule: PatternMatcher, pattern: Any, at: tuple[DType, ...]) -> list[Instance]:
  """The rule's instances on the builder's shaped left sides (module doc), at every dtype of ``at``."""
  found: dict[tuple[UOp, UOp], Instance] = {}
  for d in at:
    try: built = list(left_sides(pattern, d, SHAPED_LEFT_SIDES, shaped=True))
    except NoLeftSide: continue
    for lhs in (u for b in built for u in _orders(_apart(b))):
      variables = frozenset(_params(lhs))
      ground = substitute_scoped(lhs, {p: _constant(p) for p in variables})   # all leaves at once: a row of constants is no rarer
      for u, free in ((lhs, variables), (ground, frozenset[UOp]())):
        if (rhs := _fire(rule, u)) is not None and rhs is not u: found.setdefault((u, rhs), Instance(u, rhs, free, frozenset()))
  return list(found.values())


def rule_instances(pattern: Any, fn: Callable[..., UOp | None], name: str, at: tuple[DType, ...] = dtypes.all,
                   limit: int = LEFT_SIDES) -> RuleInstances:
  """The instances of the rule ``pattern -> fn`` at every dtype of ``at`` where its leaves can be one (module doc)."""
  rule = PatternMatcher([(pattern, fn, "rule")], name="termination")
  found: list[Instance] = []
  seen: set[tuple[UOp, UOp]] = set()
  every, why = True, ""
  for d in at:
    try: holes = constant_holes(pattern, d)
    except Inapplicable: continue
    except NoLeftSide as e:
      why = str(e)
      continue
    fired_plain = False
    for forms in (False, True):
      for built in left_sides(pattern, d, limit, forms):
        for k, lhs in enumerate(_orders(built)):
          made, fired = _variants(rule, lhs, _fire(rule, lhs))
          fired_plain |= fired and not forms and k == 0
          for inst in made:
            if (inst.lhs, inst.rhs) not in seen:
              seen.add((inst.lhs, inst.rhs))
              found.append(inst)
      if fired_plain: break
    # every instance: at each dtype the symbolic left side fired with variable leaves only, and no constant hole was drawn
    every = every and fired_plain and not holes
  if not found and (found := _shaped(rule, pattern, at)):   # a rule over STACK, INDEX, movement ops or CALL: no scalar left side
    return RuleInstances(name, found, False)
  if not found:
    return RuleInstances(name, [], False, why or "the rule fired on no left side the builder made (it may look at its leaves' "
                                                 "structure or bounds beyond the shapes tried)")
  return RuleInstances(name, found, every)
