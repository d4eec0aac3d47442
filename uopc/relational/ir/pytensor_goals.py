"""``stepo`` and ``reacho`` over PyTensor states: kanren goals whose graphs are ``PyTensorNode``s (or PyTensor variables).

They run forwards: the first graph must be ground (a node, a PyTensor variable, or a logic variable
bound to one by an earlier goal); the second unifies with each graph one step away (``stepo``) or
reachable (``reacho``, a lazy breadth-first exploration, each graph once). A PyTensor variable
given for either side is taken as its node (``from_pytensor``), so ``reacho(rules, z, 4 * x)``
asks whether ``4 * x`` is reachable from ``z``.

>>> import pytensor.tensor as pt
>>> from kanren import run, var
>>> from pytensor.tensor.rewriting.math import local_exp_log
>>> x, q = pt.vector("x"), var()
>>> [h.term() for h in run(0, q, stepo([local_exp_log], pt.log(pt.exp(x)) + x, q))]
['add(x, x)']
>>> len(run(0, q, reacho([local_exp_log], pt.log(pt.exp(x)) + x, x + x)))
1
"""
from __future__ import annotations

from typing import Any, Callable, Iterator, Literal, Mapping, cast

from kanren import eq
from pytensor.graph.basic import Variable
from unification import isvar, reify, unify

from uopc.relational.ir.pytensor import adapt
from uopc.relational.ir.pytensor_nodes import PyTensorNode, from_pytensor
from uopc.relational.logic.goals import NotGroundError
from uopc.relational.space.step import Stuck, stepper_for
from uopc.relational.space.stream import Exploration

Goal = Callable[[Mapping], Iterator[Mapping]]
__all__ = ["NotGroundError", "eq", "reacho", "stepo"]


def _ground(term: Any, S: Mapping) -> Any:
  """``term`` reified in ``S``, a PyTensor variable as its node; a logic variable stays one."""
  t = reify(term, S)
  return from_pytensor(t) if isinstance(t, Variable) else t


def _unify_each(term: Any, nodes: Iterator[Any], S: Mapping) -> Iterator[Mapping]:
  seen: set[int] = set()
  for n in nodes:
    if id(n) in seen: continue
    seen.add(id(n))
    if (S2 := unify(term, n, S)) is not False: yield S2


def stepo(rules: Any, g: Any, h: Any) -> Goal:
  """A goal: ``h`` is one rewrite step from ``g`` under PyTensor node rewriters ``rules`` (each such graph once)."""
  pm: Any = adapt(rules)   # the explorer's signatures name uopc's types; any IR's rule protocol and nodes go through
  stepper: Any = stepper_for(pm)   # held by the goal: its memo serves every state the goal sees

  def stepo_goal(S: Mapping) -> Iterator[Mapping]:
    gn: Any = _ground(g, S)
    ht: Any = _ground(h, S)
    if isvar(gn): raise NotGroundError("stepo: the first graph is not ground; ground it with an earlier goal")
    if type(gn) is not PyTensorNode: return iter(())
    return _unify_each(ht, (t for _, t in stepper.successors(gn) if type(t) is not Stuck), S)
  return stepo_goal


def reacho(rules: Any, g: Any, h: Any, *, max_states: int | None = 100_000, max_depth: int | None = None,
           timeout: float | None = None, order: Literal["bfs", "dfs"] = "bfs") -> Goal:
  """A goal: ``h`` is reachable from ``g`` in zero or more steps (each graph once; the bounds are ``explore``'s)."""
  pm: Any = adapt(rules)   # the explorer's signatures name uopc's types; any IR's rule protocol and nodes go through
  stepper: Any = stepper_for(pm)

  def reacho_goal(S: Mapping) -> Iterator[Mapping]:
    gn: Any = _ground(g, S)
    ht: Any = _ground(h, S)
    if isvar(gn): raise NotGroundError("reacho: the first graph is not ground; ground it with an earlier goal")
    if type(gn) is not PyTensorNode: return iter(())
    ex: Any = Exploration(cast(Any, gn), pm, max_states=max_states, max_depth=max_depth, timeout=timeout, order=order, stepper=stepper)
    if type(ht) is PyTensorNode: return iter((S,) if ex.reaches(cast(Any, ht)) else ())
    return _unify_each(ht, (s.graph for s in ex.iter_ahead() if s.error is None), S)
  return reacho_goal
