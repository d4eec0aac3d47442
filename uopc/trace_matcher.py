"""``TracingMatcher``: a matcher that prints each rule lookup or firing (``uopc trace``, and ``UOPC_TRACE=1``).

Apart from ``uopc.trace`` because ``graph_rewrite`` wraps its matcher in one when tracing: this module
needs nothing of the engine, so the engine and ``uopc.trace`` (which runs it) do not import each other.
"""
from __future__ import annotations

import sys
from typing import Any, TextIO

from uopc.matcher import PatternMatcher, Rule
from uopc.rule_check import check_preserves_type
from uopc.term import show
from uopc.uop import UOp
from uopc.lengths import LENGTHS

TERM_LIMIT = LENGTHS.line   # a trace line is read whole (uopc.lengths)


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
