"""States, edges and paths of an exploration.

A ``State`` is a graph (its root node) plus how it was first reached: the parent
state, the redex (rule, node, result) of that step, and the depth. States hold no
copy of anything: the graph is the hash-consed root, sharing every unchanged
subgraph with its parent. A *stuck* state records a step that failed (its rule
raised, or rebuilding a user of the node did); it has no successors and is not a
normal form. An ``Edge`` is one step between two states; a path is a list of edges.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, NamedTuple

from uopc.term import show
from uopc.uop import UOp
from uopc.lengths import LENGTHS

if TYPE_CHECKING:
  from uopc.relational.space.step import Redex, Stepper


def step_text(rule: str | None, node: UOp, result: UOp | None, error: str | None = None, limit: int | None = None,
              term: Callable[[UOp, int | None], str] = show) -> str:
  """``rule: node -> result``: one step as the node it rewrote and its replacement, each term at its DAG size
  (or a label of ``limit`` characters, ``uopc.term.show``, or ``term``: a state's ``text_of``).

  >>> from uopc import UOp
  >>> step_text("add-0", UOp.param(0) + 0, UOp.param(0))
  'add-0: add(p0, 0) -> p0'
  """
  return f"{rule}: {term(node, limit)} -> {term(result, limit) if error is None else f'error: {error}'}"  # type: ignore[arg-type]  # no error: a result



class Stuck:
  """What a graph becomes when a step cannot be taken: the rule raised, or rebuilding a user failed. (Here, beside
  the states that hold it, so that what reads a step's target needs nothing of the Stepper that makes it.)"""
  __slots__ = ("redex", "error")

  def __init__(self, redex: Redex, error: str) -> None: self.redex, self.error = redex, error
  def __repr__(self) -> str: return f"Stuck({self.error!r})"

class State:
  """One reached graph. ``id`` counts from 0 (the program) in discovery order.

  ``normal`` is True if no step leaves the graph, False if one does, None if the state
  was never expanded (a bound stopped the exploration first). ``error`` is set on
  stuck states only; their ``graph`` is the graph where the step failed.
  """
  __slots__ = ("id", "graph", "depth", "parent", "redex", "error", "normal", "out", "_stepper")

  def __init__(self, id: int, graph: UOp, depth: int, parent: State | None, redex: Redex | None,
               stepper: Stepper, error: str | None = None) -> None:
    self.id, self.graph, self.depth, self.parent, self.redex, self.error = id, graph, depth, parent, redex, error
    self.normal: bool | None = None
    self.out: Any = None   # the steps out once expanded: {redex: root | Stuck}, a list of pairs, or GroupedSteps (iterates pairs)
    self._stepper = stepper

  @property
  def stuck(self) -> bool:
    """True for a state that records a failed step."""
    return self.error is not None

  @property
  def rule(self) -> str | None:
    """The readable name of the rule of the step that first reached this state (None for the program)."""
    return None if self.redex is None else self._stepper.rule_name(self.redex.rule_index)

  @property
  def rule_location(self) -> str | None:
    """``file:line`` of that rule's function (None for the program)."""
    return None if self.redex is None else self._stepper.pm.rules[self.redex.rule_index].location

  @property
  def rule_index(self) -> int | None:
    """The index in ``pm.rules`` of that rule."""
    return None if self.redex is None else self.redex.rule_index

  @property
  def node(self) -> UOp | None:
    """The node of the parent's graph that the step rewrote."""
    return None if self.redex is None else self.redex.node

  def term(self, limit: int | None = None) -> str:
    """The graph in the one-line term form (``uopc.term.show``: whole, or a label of at most ``limit`` characters)."""
    return show(self.graph, limit)

  def text_of(self, u: UOp, limit: int | None = None) -> str:
    """``show(u, limit)`` of a graph of this state's exploration (its step's node or result): a native state makes it from
    the core's nodes."""
    return show(u, limit)

  def path(self) -> list[Edge]:
    """The steps from the program to this state, along first-discovery parents."""
    edges: list[Edge] = []
    s = self
    while s.parent is not None:
      edges.append(Edge.of(s.parent, s, s.redex))  # type: ignore[arg-type]  # a state with a parent has its redex
      s = s.parent
    return edges[::-1]

  def __repr__(self) -> str:
    tag = " stuck" if self.error else " normal" if self.normal else ""
    return f"State(#{self.id} depth {self.depth}{tag}: {show(self.graph, LENGTHS.message)})"

  def _repr_html_(self) -> str:   # Jupyter: its graph drawn (uopc.relational.notebook)
    from uopc.relational.notebook import state_html
    return state_html(self)


class StuckState(State):
  """A stuck state, and how many failing steps it stands for (``steps``): 1, or, where an exploration records one stuck
  state per rule and exception type (another IR's: ``Exploration._counted``), every step of that rule that raised so."""
  __slots__ = ("steps",)

  def __init__(self, *args: Any, **kw: Any) -> None:
    super().__init__(*args, **kw)
    self.steps = 1


class Edge(NamedTuple):
  """One step: ``source`` to ``target`` by rule ``rule`` rewriting ``node`` into ``result``.

  ``result`` is None (and ``error`` set) for a step that failed; its target is a stuck state.
  """
  source: State
  target: State
  rule: str
  rule_index: int
  node: UOp
  result: UOp | None
  error: str | None

  @staticmethod
  def of(source: State, target: State, redex: Redex) -> Edge:
    return Edge(source, target, source._stepper.rule_name(redex.rule_index), redex.rule_index, redex.node,
                redex.result, target.error)

  @property
  def rule_location(self) -> str:
    """``file:line`` of the rule's function."""
    return self.source._stepper.pm.rules[self.rule_index].location

  def describe(self, limit: int | None = None) -> str:
    """``rule: node -> result``: the rule, the node it rewrote and its replacement (``step_text``), not the whole graph."""
    return step_text(self.rule, self.node, self.result, self.error, limit)
