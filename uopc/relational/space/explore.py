"""The explorer's entry points: ``explore`` (every reachable graph) and ``normal_forms``.

>>> from uopc import UOp, symbolic
>>> p0, p1 = UOp.param(0), UOp.param(1)
>>> nf = normal_forms((p0 + 0) * 1 + (p1 * 1 + 0), symbolic)
>>> [s.term() for s in nf.forms], nf.complete, show(nf.canonical)
(['add(p0, p1)', 'add(p1, p0)'], True, 'add(p0, p1)')
>>> nf.canonical_state is nf.forms[0]
True
>>> for e in nf.path(nf.forms[1]): print(e.rule, "@", show(e.node), "->", e.target.term())
const-outward @ add(mul(add(p0, 0), 1), add(mul(p1, 1), 0)) -> add(add(mul(p1, 1), mul(add(p0, 0), 1)), 0)
add-0 @ add(add(mul(p1, 1), mul(add(p0, 0), 1)), 0) -> add(mul(p1, 1), mul(add(p0, 0), 1))
mul-1 @ mul(p1, 1) -> add(p1, mul(add(p0, 0), 1))
mul-1 @ mul(add(p0, 0), 1) -> add(p1, add(p0, 0))
add-0 @ add(p0, 0) -> add(p1, p0)

(``add(p1, p0)`` comes from reassociating ``(x + 0) + y`` before removing the ``+ 0``.)
"""
from __future__ import annotations

from typing import Any, Literal

from uopc.matcher import PatternMatcher
from uopc.relational.ir import ir_of, rules_for
from uopc.relational.space.states import Edge, State
from uopc.relational.space.step import Semantics
from uopc.relational.space.stream import Exploration
from uopc.symbolic import symbolic
from uopc.term import show
from uopc.uop import UOp
from uopc.bounded import Bounded, StopReason
from uopc.limits import NO_LIMITS, Limits
from uopc.lengths import LENGTHS


def explore(prog: UOp, pm: PatternMatcher = symbolic, *, max_states: int | None = 100_000, max_depth: int | None = None,
            timeout: float | None = None, order: Literal["bfs", "dfs"] = "bfs", ctx: Any = None,
            reduce: bool = False, semantics: Semantics = "graph", native: bool | None = None, limits: Limits = NO_LIMITS) -> Exploration:
  """Every graph reachable from ``prog`` by any ordering of ``pm``'s rewrites, lazily.

  Nothing is computed until you iterate (states stream as they are found) or ask for
  a result (``.states``, ``.edges``, ``.normal_forms``, ``.complete``, ``.bound``,
  ``.path_to(state)``), which explores up to the bounds. ``max_states=None`` and
  ``max_depth=None`` lift those bounds; an infinite space then needs a ``timeout``.
  ``reduce=True`` explores a persistent set of steps where one is known: every normal
  form is still reached, but not every graph (``docs/reduction.md``).
  ``semantics="tree"`` rewrites one occurrence of a node per step (see ``docs/relational.md``;
  it explores every graph, without reduction). ``native``: the C core where it applies
  (default where it is built; ``False`` for the pure-Python core, the same results: ``docs/native.md``).
  ``limits``: the caller's bounds (``uopc.limits``), asked between states; none by default. On a Ray cluster:
  ``uopc.relational.explore(..., cluster=)`` (``uopc.relational.api``).

  >>> from uopc import UOp
  >>> ex = explore((UOp.param(0) + 0) * 1)
  >>> [s.term() for s in ex]
  ['mul(add(p0, 0), 1)', 'add(p0, 0)', 'add(mul(p0, 1), 0)', 'add(mul(p0, 1), mul(0, 1))', 'mul(p0, 1)', 'p0', 'add(p0, mul(0, 1))']
  >>> [s.term() for s in ex.normal_forms], ex.complete, ex.bound
  (['p0'], True, None)
  >>> [e.rule for e in ex.path_to(ex.normal_forms[0])]
  ['mul-1', 'add-0']
  """
  rules_for(prog, pm, "explore: pm")   # here, not at the first result: explore(u, 3) was an AttributeError later
  return Exploration(prog, pm, max_states=max_states, max_depth=max_depth, timeout=timeout, order=order, ctx=ctx, reduce=reduce,
                     semantics=semantics, native=native, limits=limits)


def canonical(prog: UOp, pm: PatternMatcher = symbolic, max_steps: int | None = None,
              ctx: Any = None) -> tuple[UOp | None, str | None]:
  """What the canonical engine makes of ``prog``: ``(graph_rewrite(prog, pm), None)`` or ``(None, error)``.

  The engine is that of ``prog``'s IR (``uopc.relational.ir``): uopc's, or tinygrad's own ``graph_rewrite``.
  ``max_steps`` (default: 200,000 plus 20 per node) keeps a looping rule set from
  spinning for long (uopc's engine).
  """
  return ir_of(prog).canonical(prog, pm, ctx, max_steps)


class NormalForms(Bounded):
  """The normal forms of a program, each with a shortest path, and the canonical engine's choice.

  ``forms``: the normal states in discovery order (breadth first: by path length).
  ``canonical``: ``graph_rewrite(prog, pm)`` (None if it failed: see ``canonical_error``);
  ``canonical_state``: the form it equals, if the exploration reached it.
  ``path(form)``: one shortest sequence of steps from the program to ``form``.
  ``variants``: the IR engine's other choices where they differ from ``canonical`` (tinygrad:
  ``graph_rewrite(bottom_up=True)``), as ``(label, result or None, error or None)``.
  """

  def __init__(self, exploration: Exploration, canonical: UOp | None, canonical_error: str | None,
               variants: list[tuple[str, Any, str | None]] | None = None) -> None:
    self.exploration = exploration
    self.forms: list[State] = exploration.normal_forms
    self.canonical, self.canonical_error = canonical, canonical_error
    self.canonical_state: State | None = None if canonical is None else exploration.state_of(canonical)
    self.variants = [v for v in variants or () if v[1] is not canonical or v[2] != canonical_error]

  @property
  def bound(self) -> StopReason | None:
    """Which bound stopped the exploration, or None: the whole space was explored (``complete``), so these are all the normal forms."""
    return self.exploration.bound

  @property
  def stuck(self) -> list[State]:
    """Steps that failed (their rule raised)."""
    return self.exploration.stuck

  def path(self, form: State) -> list[Edge]:
    """A shortest path from the program to ``form``."""
    return form.path()

  def __repr__(self) -> str:
    forms = ", ".join(show(s.graph, LENGTHS.label) for s in self.forms[:5]) + (", ..." if len(self.forms) > 5 else "")
    return f"NormalForms([{forms}], complete={self.complete})"

  def _repr_html_(self) -> str:   # Jupyter (uopc.relational.notebook)
    from uopc.relational.notebook import normal_forms_html
    return normal_forms_html(self)


def normal_forms(prog: UOp, pm: PatternMatcher = symbolic, *, max_states: int | None = 100_000, max_depth: int | None = None,
                 timeout: float | None = None, ctx: Any = None, reduce: bool = True,
                 semantics: Semantics = "graph") -> NormalForms:
  """Every normal form reachable from ``prog`` (breadth first, so each has a shortest path).

  ``reduce`` (default) skips orderings that cannot lead to another normal form
  (``docs/reduction.md``); ``reduce=False`` visits every reachable graph.

  >>> from uopc import UOp, symbolic
  >>> nf = normal_forms(UOp.const(-0.0) + UOp.const(0.0), symbolic)
  >>> [s.term() for s in nf.forms], show(nf.canonical)
  (['0.0', '-0.0'], '0.0')
  """
  ex = explore(prog, pm, max_states=max_states, max_depth=max_depth, timeout=timeout, order="bfs", ctx=ctx, reduce=reduce,
               semantics=semantics).run()
  return NormalForms(ex, *canonical(prog, pm, ctx=ctx), ir_of(prog).canonical_variants(prog, pm, ctx))
