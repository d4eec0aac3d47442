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

import sys
import time
from dataclasses import dataclass
from functools import partial
from typing import Any, Callable, TextIO

from uopc.matcher import PatternMatcher, Rule
from uopc.rewrite import check_preserves_type
from uopc.term import show
from uopc.upat import Bindings, UPat
from uopc.upat_compile import call_rule, compile_match
from uopc.uop import UOp

TERM_LIMIT = 2000   # a term expands sharing; keep trace lines readable on big graphs


def visit_line(u: UOp, result: UOp | None, rule: str | None = None) -> str:
  """One line of a trace: ``  visit add(1, 4)                    -> 5``, plus the rule's name."""
  line = f"  visit {show(u, TERM_LIMIT):28s} -> {show(result, TERM_LIMIT) if result is not None else '.'}"
  return line if rule is None else f"{line}   [{rule}]"


class TracingMatcher(PatternMatcher):
  """``pm``, printing every lookup (or, with ``firings_only``, every firing) to ``out``."""

  def __init__(self, pm: PatternMatcher, out: TextIO | None = None, names: bool = True, firings_only: bool = False):
    super().__init__(pm.rules)
    self.inner, self.out, self.names, self.firings_only = pm, out, names, firings_only

  def fire(self, u: UOp, ctx: Any = None) -> tuple[Rule, UOp] | None:
    fired = self.inner.fire(u, ctx)
    if fired is not None: check_preserves_type(self.inner, u, fired[1], ctx)   # before printing what cannot be printed
    out = self.out if self.out is not None else sys.stderr
    if fired is None:
      if not self.firings_only: print(visit_line(u, None), file=out)
    elif self.firings_only: print(f"{self.inner.name_of(fired[0])}: {show(u, TERM_LIMIT)} -> {show(fired[1], TERM_LIMIT)}", file=out)
    else: print(visit_line(u, fired[1], self.inner.name_of(fired[0]) if self.names else None), file=out)
    return fired


@dataclass
class RuleStats:
  """How often one rule was tried, matched and fired, and the time spent in it."""
  name: str
  location: str
  tries: int = 0
  matches: int = 0
  fires: int = 0
  seconds: float = 0.0


def _interpret(pat: UPat, u: UOp) -> list[Bindings]: return pat.match(u, {})


class StatsMatcher(PatternMatcher):
  """``pm``, counting per rule: tries (pattern attempted), matches (bindings found),
  fires (returned a new node), and time spent matching and in the rule's function."""

  def __init__(self, pm: PatternMatcher):
    super().__init__(pm.rules, compiled=pm.compiled)
    self.stats: dict[int, RuleStats] = {id(r): RuleStats(pm.name_of(r), r.location) for r in self.rules}
    # the same matching as pm's: compiled patterns (uopc.upat_compile), or the interpreter
    self._match: dict[int, Callable[[UOp], list]] = {
      id(r): compile_match(r[0]) if self.compiled else partial(_interpret, r[0]) for r in self.rules}

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
