"""Watching the canonical engine: a trace of every rule lookup, and per-rule statistics.

``TracingMatcher`` prints each visit in the chapter's format, with the rule that fired:

>>> import io
>>> from uopc.uop import UOp
>>> from uopc.rewrite import graph_rewrite
>>> from uopc.symbolic import symbolic
>>> out = io.StringIO()
>>> _ = graph_rewrite(UOp.const(1) + UOp.const(4), TracingMatcher(symbolic, out=out, names=False))
>>> print(out.getvalue(), end="")
  visit 1                            -> .
  visit 4                            -> .
  visit add(1, 4)                    -> 5
  visit 5                            -> .
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Callable, NamedTuple

from uopc.matcher import PatternMatcher, Rule
from uopc.rewrite import ProgramError, RewriteLoopError, failure_text, graph_rewrite
from uopc.term import show
from uopc.trace_matcher import TERM_LIMIT, TracingMatcher, visit_line  # noqa: F401  (the CLI and the doctest find them here)
from uopc.upat_compile import call_rule
from uopc.uop import UOp

MAX_GRAPH_STEPS = 1000   # firings whose whole graph before and after is recorded (each costs a walk of the graph)


@dataclass
class RuleStats:
  """How often one rule was tried, matched and fired, and the time spent in it."""
  name: str
  location: str
  tries: int = 0
  matches: int = 0
  fires: int = 0
  seconds: float = 0.0


class StatsMatcher(PatternMatcher):
  """``pm``, counting per rule: tries (pattern attempted), matches (bindings found),
  fires (returned a new node), and time spent matching and in the rule's function."""

  def __init__(self, pm: PatternMatcher):
    super().__init__(pm.rules, compiled=pm.compiled)
    self.stats: dict[int, RuleStats] = {id(r): RuleStats(pm.name_of(r), r.location) for r in self.rules}
    # the same matching as pm's: compiled patterns (uopc.upat_compile), or the interpreter
    self._match: dict[int, Callable[[UOp], list]] = {id(r): self.match_fn(r[0]) for r in self.rules}

  def fire(self, u: UOp, ctx: Any = None) -> tuple[Rule, UOp] | None:
    # every rule filed under u's op counts as tried (early rejection is part of the time)
    for rule in self.by_op.get(u.op, ()):
      st = self.stats[id(rule)]
      st.tries += 1
      t0 = time.perf_counter()
      try:
        fn = rule[1]
        for binding in self._match[id(rule)](u):
          st.matches += 1
          ret = call_rule(fn, binding, ctx)
          if ret is not None and ret is not u:
            st.fires += 1
            return rule, ret
      finally: st.seconds += time.perf_counter() - t0
    return None

  def table(self) -> str:
    """The statistics as an aligned text table, busiest rules first (untried rules left out)."""
    rows = sorted((s for s in self.stats.values() if s.tries), key=lambda s: (-s.seconds, s.name))
    w = max([len(s.location) for s in rows] + [5])
    lines = [f"{'tries':>8} {'matches':>8} {'fires':>8} {'time ms':>9}  {'where':{w}}  rule"]
    lines += [f"{s.tries:8d} {s.matches:8d} {s.fires:8d} {s.seconds * 1e3:9.3f}  {s.location:{w}}  {s.name}" for s in rows]
    return "\n".join(lines)


class Firing(NamedTuple):
  """One rule firing of the canonical engine: rule ``rule_index`` rewrote ``node`` into ``result``."""
  node: UOp
  rule_index: int
  result: UOp


class RecordingMatcher(PatternMatcher):
  """``pm``'s rules, recording every firing of ``graph_rewrite`` in ``firings``."""

  def __init__(self, pm: PatternMatcher) -> None:
    super().__init__(pm.rules, compiled=pm.compiled)
    self.firings: list[Firing] = []
    self.index: dict[int, int] = {}
    for i, rule in enumerate(pm.rules): self.index.setdefault(id(rule), i)   # the first copy is the one fire() finds

  def fire(self, u: UOp, ctx: Any = None) -> tuple[Rule, UOp] | None:
    fired = super().fire(u, ctx)
    if fired is not None: self.firings.append(Firing(u, self.index[id(fired[0])], fired[1]))
    return fired


def record(prog: UOp, pm: PatternMatcher, max_steps: int | None = None) -> tuple[UOp | None, str | None, list[Firing]]:
  """``graph_rewrite(prog, pm)`` with its firings: ``(result or None, error or None, firings)``.

  >>> from uopc import UOp, symbolic
  >>> result, error, firings = record(UOp.param(0) * 1 + 0, symbolic)
  >>> result is UOp.param(0), error, [symbolic.name_of(symbolic.rules[f.rule_index]) for f in firings]
  (True, None, ['mul-1', 'add-0'])
  """
  rec = RecordingMatcher(pm)
  if max_steps is None: max_steps = 200_000 + 20 * len(prog.toposort())
  try: return graph_rewrite(prog, rec, max_steps=max_steps), None, rec.firings
  except RewriteLoopError: return None, f"the canonical engine did not reach a fixed point within {max_steps} rule lookups", rec.firings
  except Exception as e: return None, failure_text(e), rec.firings


def rewrite_json(prog: UOp, pm: PatternMatcher, max_steps: int, rules: str | None = None) -> dict[str, Any]:
  """``graph_rewrite(prog, pm)`` step by step, as a JSON-ready dict (what ``uopc trace --format json`` prints).

  Each firing has the whole graph before and after it: the program with every earlier
  firing applied (``after`` is ``before`` when the engine rewrote a node it had already
  replaced, reusing its memo). The first ``MAX_GRAPH_STEPS`` firings carry graphs.

  >>> from uopc.symbolic import symbolic
  >>> d = rewrite_json(UOp.param(0) * 1 + 0, symbolic, 1000)
  >>> d["result"], [(s["node"], s["before"], s["after"]) for s in d["steps"]]
  ('p0', [('mul(p0, 1)', 'add(mul(p0, 1), 0)', 'add(p0, 0)'), ('add(p0, 0)', 'add(p0, 0)', 'p0')])
  """
  rec = RecordingMatcher(pm)
  result, error = None, None
  try: result = graph_rewrite(prog, rec, max_steps=max_steps)
  except (ProgramError, RewriteLoopError) as e: error = f"{type(e).__name__}: {e}"
  steps: list[dict[str, Any]] = []
  graph = prog
  for k, f in enumerate(rec.firings):
    step = {"rule": pm.name_of(pm.rules[f.rule_index]), "node": show(f.node, TERM_LIMIT), "result": show(f.result, TERM_LIMIT)}
    if k < MAX_GRAPH_STEPS:
      before = graph
      if f.node in set(graph.toposort()): graph = graph.substitute({f.node: f.result})
      step.update(before=show(before, TERM_LIMIT), after=show(graph, TERM_LIMIT))
    steps.append(step)
  return {"program": show(prog, TERM_LIMIT), "rules": rules or pm.set_label(), "result": None if result is None else show(result, TERM_LIMIT),
          "error": error, "steps": steps}
