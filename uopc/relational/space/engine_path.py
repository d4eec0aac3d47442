"""The canonical engine's path through an exploration: ``graph_rewrite``'s firings as explorer steps.

How it is exact. ``graph_rewrite`` is recorded by a ``PatternMatcher`` subclass whose
``fire`` notes every firing ``(node, rule, result)``. The engine visits nodes in
post-order (sources left to right, then their user, each node once), rebuilding each
from its sources' normal forms, so when it fires on node ``n`` the graph so far (the
program with every earlier firing applied, every use of a node seeing its result:
the explorer's step) contains ``n``. Each firing is therefore an edge of the
exploration: the redex of ``n`` with the same rule and the same result.

One case breaks that: the engine's memo table. If a rule returns (or builds) a node the
engine already rewrote earlier, the engine reuses that node's normal form without
firing again, while in the graph the node is back. The replay then finds a firing
whose node is not in the current graph, and *catches up*: it takes the step the
engine would take from the current graph if it started afresh (the first node in
post-order that ``pm.fire`` rewrites, with the rule ``fire`` picks), which repeats
the engine's own earlier steps on that node, until the recorded firing applies again.

>>> from uopc import UOp, dtypes, symbolic
>>> from uopc.relational.space.stream import Exploration
>>> prog = (UOp.const(-0.0) + UOp.const(0.0)) * UOp.param(0, dtypes.f32)
>>> ex = Exploration(prog, symbolic).run()
>>> path = canonical_path(ex, symbolic)
>>> [e.rule for e in path.edges], path.complete
(['fold-const', 'comm-const-right'], True)
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal, NamedTuple

from uopc.matcher import PatternMatcher
from uopc.relational.space.states import Edge, State, Stuck
from uopc.relational.space.step import GroupedSteps, Redex
from uopc.trace import Firing, RecordingMatcher, record
from uopc.uop import UOp

if TYPE_CHECKING: from uopc.relational.space.stream import Exploration   # annotations only: the stream's reduction imports this module

__all__ = ["CanonicalPath", "Firing", "RecordingMatcher", "canonical_path", "record"]

MAX_CATCH_UP = 10_000   # restart-strategy steps allowed in one replay


class CanonicalPath(NamedTuple):
  """The canonical engine's steps as exploration edges: ``states[0]`` is the program.

  ``complete`` is True if the path reaches the canonical result; otherwise ``note``
  says why it stops (a bound of the exploration, or the engine failed).
  """
  states: list[State]
  edges: list[Edge]
  complete: bool
  note: str | None
  catch_up: int


def _edge(ex: Exploration, s: State, node: UOp, rule_index: int, result: UOp) -> Edge | None | Literal[False]:
  """The edge of ``s`` for this firing; None if ``s`` has no such step, False if its target was never made."""
  if s.out is None: return False
  found = _target_of(s, node, rule_index, result) or _scan(s, node, rule_index, result)
  if found is None: return None
  r, h = found
  t = ex.state_of(h) if type(h) is not Stuck else None   # a node of the exploration's IR, or a rule that raised
  return Edge.of(s, t, r) if t is not None else False


def _scan(s: State, node: UOp, rule_index: int, result: UOp) -> tuple[Any, Any] | None:
  """The step of ``s`` for this firing found by looking through every one: for the keys the stepper's own redex is not
  (tree semantics' positions, a redex made again after its tables were dropped) and for steps listed as they came."""
  for r, h in (s.out.items() if type(s.out) is dict else s.out):
    if r.node is node and r.rule_index == rule_index and r.result is result: return r, h
  return None


def _target_of(s: State, node: UOp, rule_index: int, result: UOp) -> tuple[Redex, Any] | None:
  """``(redex, what s becomes by it)`` for the stepper's redex of this firing, looked up (a dict, or the grouped
  steps' ``target_of``) rather than found among every step of ``s``: a chain's states have thousands, and the engine's
  firing is the deepest. None if the stepper has no such redex or ``s`` has no step by it."""
  out = s.out
  if (find := getattr(out, "find", None)) is not None: return find(node, rule_index, result)   # the native core's steps
  redexes_at = getattr(s._stepper, "redexes_at", None)
  if redexes_at is None: return None
  key = next((r for r in redexes_at(node) if r.rule_index == rule_index and r.result is result), None)
  if key is None: return None
  h = out.get(key) if type(out) is dict else out.target_of(key) if type(out) is GroupedSteps else None
  return None if h is None else (key, h)


def _first_firing(g: UOp, pm: PatternMatcher, cache: dict[UOp, Any]) -> Firing | None:
  """What ``graph_rewrite`` would fire first on ``g``: the first node in its visiting order that a rule rewrites."""
  for n in g.toposort():
    if n not in cache:
      try: cache[n] = pm.fire(n)
      except Exception: return None   # the engine would raise here too: nothing to replay
    fired = cache[n]
    if fired is not None:
      index = next(i for i, rule in enumerate(pm.rules) if rule is fired[0])
      return Firing(n, index, fired[1])
  return None


def canonical_path(ex: Exploration, pm: PatternMatcher, firings: list[Firing] | None = None,
                   canonical: UOp | None = None, error: str | None = None) -> CanonicalPath:
  """Replay the canonical engine's firings on ``ex`` (recorded afresh when ``firings`` is None)."""
  if firings is None: canonical, error, firings = record(ex.root, pm)
  ex.run()
  s = ex.states[0]
  states: list[State] = [s]
  seen = {s.id}   # the states on the path (a looping engine's replay stops once it comes back to one)
  edges: list[Edge] = []
  cache: dict[UOp, Any] = {}
  i = catch_up = 0
  note = None
  while True:
    e: Edge | None | Literal[False] = None
    if i < len(firings):
      f = firings[i]
      e = _edge(ex, s, f.node, f.rule_index, f.result)
      if e is not None: i += 1
    if e is None:
      if i >= len(firings) and (canonical is None or s.graph is canonical): break   # every firing replayed
      if not ex.complete: e = False   # a bound may have cut this state's steps short
      else:   # the engine reused a memoized normal form: take the engine's fresh choice instead
        nxt = _first_firing(s.graph, pm, cache) if catch_up < MAX_CATCH_UP else None
        e = None if nxt is None else _edge(ex, s, nxt.node, nxt.rule_index, nxt.result)
        if e is None:
          note = "the recorded firings could not be replayed as explorer steps"
          break
        catch_up += 1
    if e is False:
      note = f"the canonical path leaves the explored states after {len(edges)} steps ({ex.bound} bound)"
      break
    if canonical is None and e.target.id in seen: break   # an engine that failed by looping: the rest goes round this cycle again
    edges.append(e)
    s = e.target
    seen.add(s.id)
    states.append(s)
  complete = canonical is not None and s.graph is canonical
  if note is None and not complete: note = error or "the replay did not reach the canonical result"
  return CanonicalPath(states, edges, complete, note, catch_up)
