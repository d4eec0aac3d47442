"""Rewriting as miniKanren relations: ``stepo``, ``reacho``, ``normalo`` and one relation per rule.

Each is a real kanren goal (a function from a substitution to a stream of
substitutions), so it composes with ``run``, ``eq``, ``conde``, ``lall`` and your own
goals. "Every graph reachable from ``g`` of the form ``add(?x, 11)``":

>>> from kanren import run, eq, var
>>> from uopc import UOp, show, symbolic
>>> from uopc.relational import pat
>>> p0 = UOp.param(0)
>>> g = (p0 + 2) * 3 + 5
>>> q, x = var(), var()
>>> [show(h) for h in run(0, q, reacho(symbolic, g, q), eq(q, pat.add(x, 11)))]
['add(mul(p0, 3), 11)']

Modes. When the first graph argument is ground (a node, or an etuple pattern whose
holes are bound by then), successors come from Python (``Stepper``), fast; the other
argument may be anything that unifies (a variable, a node, a pattern with holes).
When only the second one is ground, ``stepo``/``reacho``/``normalo`` and rule
relations run backwards: candidates come from unifying the rule patterns (as
etuples) with the target's nodes, and are checked by stepping forwards (see
``uopc.relational.logic.patterns`` for what that can and cannot find). When neither is
ground the goal raises ``NotGroundError``: put a goal that grounds one side first. A
ground argument that is not a graph (``5``, a ``Head``, a tuple) makes the goal fail.

``semantics="tree"`` makes a step rewrite one occurrence of a node (see ``Stepper``).

A step whose rule raises is not a step of these relations (it reaches no graph);
``Exploration`` reports those as stuck states.

Another IR's nodes and rule sets work forwards (the first graph argument ground): tinygrad's
``UOp`` with tinygrad's own ``PatternMatcher``, or PyTensor variables with a list of PyTensor's node rewriters, say
(``docs/ir-protocol.md``); an object of the IR's library that stands for a graph is taken as its node (``IR.host_node``). Their nodes unify
by identity (hash consing); running backwards needs uopc's ``UPat``s and raises
``NotGroundError`` for another IR's rule set.
"""
from __future__ import annotations

from collections import deque
from typing import Any, Callable, Iterator, Literal, Mapping, NamedTuple

from unification import isvar, reify
from unification.variable import Var

from uopc.matcher import PatternMatcher
from uopc.relational.logic import conjunction  # noqa: F401  (installs the linear conjunction these goals rely on)
from uopc.relational.logic.answers import GraphAnswers
from uopc.relational.logic.bridge import as_node, isground_term, unify_nodes
from uopc.relational.ir import host_node, ir_of_rules
from uopc.relational.logic.patterns import predecessors, redexes_producing, rule_patterns
from uopc.relational.space.states import State
from uopc.relational.space.step import Semantics, Stepper, Stuck, stepper_for
from uopc.relational.space.stream import Exploration
from uopc.uop import UOp

Substitution = Mapping   # a kanren state: logic variables to values (not space.states.State, a graph in a space)
Goal = Callable[[Substitution], Iterator[Substitution]]


class NotGroundError(ValueError):
  """A relation was asked to enumerate with neither graph known."""


class _Sides(NamedTuple):
  """The two graph arguments of a relation, reified: ``gt``/``ht`` the terms, ``gn``/``hn`` their nodes (or None): uopc's
  ``UOp``s, or another IR's nodes."""
  gt: Any
  gn: Any
  ht: Any
  hn: Any

  @property
  def h_node(self) -> Any:
    """``hn``, where ``gn`` is None: ``_sides`` makes sure one of the two is a node."""
    assert self.hn is not None
    return self.hn


def _resolve(term: Any, S: Substitution) -> Any:
  """``reify(term, S)``, with the usual cases (a node, a variable bound to one) first: goals run once per state."""
  while type(term) is Var and (w := S.get(term, term)) is not term: term = w
  return term if type(term) is UOp else reify(term, S)


def _rules(pm: Any) -> tuple[Any, type]:
  """``pm`` as its IR's rule protocol (uopc's ``PatternMatcher`` as it is, tinygrad's adapted) and the IR's node type."""
  ir, rules = ir_of_rules(pm)
  return rules, ir.node_type


def _sides(who: str, g: Any, h: Any, S: Substitution, node_type: type = UOp) -> _Sides | None:
  """The mode switch of every relation here: the reified sides, or None when the relation fails.

  A ground argument that is not a graph (``5``, a ``Head``, a tuple, an ill-typed
  etuple) relates to nothing: the relation fails (an empty stream). With neither side
  ground there is nothing to enumerate from: ``NotGroundError``. ``node_type`` is the rule set's IR's: another IR's
  nodes are ground as they are (uopc's etuple patterns never build one).
  """
  gt = _resolve(g, S)
  gn = gt if type(gt) is UOp else as_node(gt) if node_type is UOp else _foreign_node(gt, node_type)   # nodes without a call
  if gn is None and isground_term(gt): return None
  ht = _resolve(h, S)
  hn = ht if type(ht) is UOp else as_node(ht) if node_type is UOp else _foreign_node(ht, node_type)
  if hn is None and isground_term(ht): return None
  if gn is None and hn is None: raise NotGroundError(f"{who}: neither graph is ground; ground one with an earlier goal")
  if gn is not None and type(gn) is not node_type or hn is not None and type(hn) is not node_type: return None   # another IR's node
  if gn is None and node_type is not UOp:
    raise NotGroundError(f"{who}: running backwards (the first graph unknown) needs uopc's UPats; ground it with an earlier goal")
  return _Sides(gt, gn, ht, hn)


def _foreign_node(term: Any, node_type: type) -> Any:
  """``term`` as a node of another IR: a node as it is, an object of its library that stands for one (a PyTensor variable:
  ``IR.host_node``) as that node, else None."""
  if type(term) is node_type: return term
  if isvar(term): return None
  return node if (node := host_node(term)) is not None and type(node) is node_type else None


def _unify_each(term: Any, nodes: Iterator[UOp], S: Substitution, distinct: bool = False) -> Iterator[Substitution]:
  """``S`` with ``term`` unified with each node in turn, each node once (``distinct``: the nodes already are)."""
  seen: set[UOp] = set()
  fresh = isvar(term)   # the usual case: binding a fresh variable is a copy, not a unification
  for n in nodes:
    if not distinct:
      if n in seen: continue   # a relation between graphs: each answer once, however many edges lead there
      seen.add(n)
    if fresh:
      S2 = dict(S)
      S2[term] = n
      yield S2
    elif (S2 := unify_nodes(term, n, S)) is not False: yield S2


def _unify_states(term: Any, states: Iterator[State], S: Substitution) -> Iterator[Substitution]:
  """``S`` with ``term`` unified with the graph of each state that is not stuck: ``_unify_each`` in one loop.

  The states of one exploration are distinct graphs, so nothing is deduplicated; this
  loop runs once per reachable graph, so the fresh variable's case is a stream of its own (``GraphAnswers``).
  """
  if isvar(term): return GraphAnswers(term, states, S)   # a following eq(term, pattern) filters the graphs first
  return (S2 for s in states if s.error is None and (S2 := unify_nodes(term, s.graph, S)) is not False)


def _once(S: Substitution, holds: bool) -> Iterator[Substitution]:
  """The stream of a yes/no question: ``S`` or nothing. A tuple iterator, so ``fair_bind`` drops it once answered."""
  return iter((S,) if holds else ())


def stepo(pm: PatternMatcher, g: Any, h: Any, *, ctx: Any = None, semantics: Semantics = "graph") -> Goal:
  """A goal: ``h`` is one rewrite step from ``g`` under ``pm`` (each such graph once).

  >>> from kanren import run, var
  >>> from uopc import UOp, UPat, PatternMatcher, show
  >>> x = UPat.var("x")
  >>> pm = PatternMatcher([(x + 0, lambda x: x), (x * 1, lambda x: x)])
  >>> p0, q = UOp.param(0), var()
  >>> sorted(show(h) for h in run(0, q, stepo(pm, (p0 + 0) * 1, q)))
  ['add(p0, 0)', 'mul(p0, 1)']
  >>> sorted(show(g) for g in run(0, q, stepo(pm, q, p0 * 1)))    # backwards  # doctest: +NORMALIZE_WHITESPACE
  ['add(0, mul(p0, 1))', 'add(mul(p0, 1), 0)', 'mul(1, mul(p0, 1))', 'mul(add(0, p0), 1)', 'mul(add(p0, 0), 1)',
   'mul(mul(1, p0), 1)', 'mul(mul(p0, 1), 1)', 'mul(p0, add(0, 1))', 'mul(p0, add(1, 0))', 'mul(p0, mul(1, 1))']

  (``x + 0`` has list sources, so it matches ``0 + x`` too.)
  """
  pm, node_type = _rules(pm)
  stepper = stepper_for(pm, ctx, semantics)   # held by the goal: its memo serves every state the goal sees

  def stepo_goal(S: Substitution) -> Iterator[Substitution]:
    if (sides := _sides("stepo", g, h, S, node_type)) is None: return iter(())
    if sides.gn is not None:
      return _unify_each(sides.ht, (t for _, t in stepper.successors(sides.gn) if type(t) is not Stuck), S)  # type: ignore[misc]
    return _unify_each(sides.gt, (p for p, _ in predecessors(pm, sides.h_node, stepper)), S)
  return stepo_goal


def _backward_reach(pm: PatternMatcher, h: UOp, stepper: Stepper) -> Iterator[UOp]:
  """``h`` and every graph that reaches it, breadth first (usually infinite: lazy)."""
  seen = {h}
  frontier = deque([h])
  while frontier:
    u = frontier.popleft()
    yield u
    for p, _ in predecessors(pm, u, stepper):
      if p not in seen:
        seen.add(p)
        frontier.append(p)


def reacho(pm: PatternMatcher, g: Any, h: Any, *, max_states: int | None = None, max_depth: int | None = None,
           timeout: float | None = None, order: Literal["bfs", "dfs"] = "bfs", ctx: Any = None,
           semantics: Semantics = "graph") -> Goal:
  """A goal: ``h`` is reachable from ``g`` in zero or more steps (each graph once).

  Forwards it streams an ``Exploration`` (breadth first: fair; it ends when the space
  is finite, cycles included; the bounds are those of ``explore``). Backwards (``g``
  unknown) it streams ``h``'s ancestors, which are usually infinitely many: take
  ``run(n, ...)``.

  >>> from kanren import run, var
  >>> from uopc import Ops, UOp, UPat, PatternMatcher, show
  >>> x, y = UPat.var("x"), UPat.var("y")
  >>> comm = PatternMatcher([(UPat(Ops.ADD, src=(x, y)), lambda x, y: y + x)])   # loops
  >>> p0, p1, q = UOp.param(0), UOp.param(1), var()
  >>> [show(h) for h in run(0, q, reacho(comm, p0 + p1, q))]
  ['add(p0, p1)', 'add(p1, p0)']
  """
  pm, node_type = _rules(pm)
  stepper = stepper_for(pm, ctx, semantics)
  # Every call of this goal from the same program shares one lazy exploration (replayed, then continued), so a
  # conjunction that binds h first and asks "is h reachable?" once per candidate explores once, not once per candidate.
  shared: dict[UOp, Exploration] = {}

  def reacho_goal(S: Substitution) -> Iterator[Substitution]:
    if (sides := _sides("reacho", g, h, S, node_type)) is None: return iter(())
    gn, hn = sides.gn, sides.hn
    if gn is None: return _unify_each(sides.gt, _backward_reach(pm, sides.h_node, stepper), S)
    ex = shared.get(gn)
    if ex is None:
      shared.clear()   # one exploration at a time: memory stays that of the states of one program
      ex = shared[gn] = Exploration(gn, pm, max_states=max_states, max_depth=max_depth, timeout=timeout, order=order,
                                    ctx=ctx, stepper=stepper)
    # a membership question, asked of the one exploration: it goes on only until hn is found
    if hn is not None: return _once(S, ex.reaches(hn))
    return _unify_states(sides.ht, ex.iter_ahead(), S)
  return reacho_goal


def normalo(pm: PatternMatcher, g: Any, h: Any, *, max_states: int | None = None, max_depth: int | None = None,
            timeout: float | None = None, ctx: Any = None, semantics: Semantics = "graph") -> Goal:
  """A goal: ``h`` is a normal form reachable from ``g`` (no rule rewrites any node of ``h``).

  >>> from kanren import run, var
  >>> from uopc import UOp, symbolic
  >>> e, q = UOp.const(-0.0) + UOp.const(0.0), var()
  >>> [h.arg for h in run(0, q, normalo(symbolic, e, q))]      # fold first, or x + 0.0 -> x
  [0.0, -0.0]
  """
  pm, node_type = _rules(pm)
  stepper = stepper_for(pm, ctx, semantics)

  def normalo_goal(S: Substitution) -> Iterator[Substitution]:
    if (sides := _sides("normalo", g, h, S, node_type)) is None: return iter(())
    if sides.gn is not None:
      ex = Exploration(sides.gn, pm, max_states=max_states, max_depth=max_depth, timeout=timeout, ctx=ctx, stepper=stepper)
      return _unify_states(sides.ht, ex.iter_normal_forms(), S)
    if stepper.is_normal(sides.h_node): return _unify_each(sides.gt, _backward_reach(pm, sides.h_node, stepper), S)
    return iter(())
  return normalo_goal


def rule_relation(pm: PatternMatcher, index: int, ctx: Any = None) -> Callable[[Any, Any], Goal]:
  """Rule ``index`` of ``pm`` as a relation ``rule(n, m)``: the rule rewrites node ``n`` into ``m``.

  >>> from kanren import run, var
  >>> from uopc import UOp, show, symbolic
  >>> plus0 = rule_relation(symbolic, 2)          # symbolic.py: x + 0 -> x
  >>> q, p0 = var(), UOp.param(0)
  >>> [show(m) for m in run(0, q, plus0(p0 + 0, q))]
  ['p0']
  >>> [show(n) for n in run(0, q, plus0(q, p0))]
  ['add(p0, 0)', 'add(0, p0)']
  """
  pm, node_type = _rules(pm)
  if not 0 <= index < len(pm.rules): raise IndexError(f"rule {index} out of range: the matcher has {len(pm.rules)} rules")

  def relation(n: Any, m: Any) -> Goal:
    stepper = stepper_for(pm, ctx)

    def rule_goal(S: Substitution) -> Iterator[Substitution]:
      if (sides := _sides(f"rule {index}", n, m, S, node_type)) is None: return iter(())
      nn = sides.gn
      if nn is not None:
        return _unify_each(sides.ht, (r.result for r in stepper.redexes_at(nn)  # type: ignore[misc]
                                      if r.rule_index == index and r.error is None), S)   # a step without an error has a result
      mn = sides.h_node
      return _unify_each(sides.gt, (r.node for r in redexes_producing(pm, mn, mn.toposort(), stepper, index)), S)
    return rule_goal
  relation.__name__ = f"rule{index}o"
  relation.__doc__ = f"rule {pm.name_of(pm.rules[index])} as a relation (n, m)"
  return relation


def rule_relations(pm: PatternMatcher, ctx: Any = None) -> list[Callable[[Any, Any], Goal]]:
  """Every rule of ``pm`` as a relation, in rule order."""
  return [rule_relation(pm, i, ctx) for i in range(len(_rules(pm)[0].rules))]


__all__ = ["NotGroundError", "normalo", "reacho", "rule_patterns", "rule_relation", "rule_relations", "stepo"]
