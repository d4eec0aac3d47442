"""Stuck steps grouped: one group per rule and exception type, with a count and the first step as the example.

A rule that raises on a node raises in every state that holds the node: an exploration of tinygrad's ``symbolic`` over
a corpus graph had 5,390 stuck steps, all one rule's ``ZeroDivisionError``. Reports print the groups, not the steps.

>>> from uopc import UOp, UPat, PatternMatcher
>>> from uopc.relational.space.stream import Exploration
>>> x = UPat.var("x")
>>> boom = PatternMatcher([(x + 0, lambda x: 1 // 0)])
>>> ex = Exploration((UOp.param(0) + 0) * (UOp.param(1) + 0), boom).run()
>>> [(g.location.startswith("<doctest"), g.error_type, g.steps) for g in group_stuck(ex.stuck)]
[(True, 'ZeroDivisionError', 2)]
"""
from __future__ import annotations

import re
from typing import Any, NamedTuple

__all__ = ["StuckGroup", "error_type", "group_stuck"]


class StuckGroup(NamedTuple):
  """The stuck steps of one rule that raised one exception type: how many (``steps``), and the first (``example``, a
  stuck State)."""
  rule: str | None
  location: str | None
  error_type: str
  steps: int
  example: Any


_TYPE = re.compile(r"(?:^|raised )([A-Za-z_][\w.]*): ")


def error_type(error: str | None) -> str:
  """The exception type a stuck step's error names (``ZeroDivisionError: ...``, ``matching raised ValueError: ...``),
  else the error's first words (a result that is not a node: ``returned int, not a ...``).

  >>> error_type("ZeroDivisionError: integer modulo by zero"), error_type("matching raised ValueError: bad"), error_type("returned int, not a UOp")
  ('ZeroDivisionError', 'ValueError', 'returned int')
  """
  if not error: return "?"
  if (m := _TYPE.search(error)) is not None: return m.group(1)
  return " ".join(error.split(",")[0].split()[:3])


def group_stuck(stuck: list[Any]) -> list[StuckGroup]:
  """The stuck states ``stuck`` grouped by (rule, exception type), in the order each group's first step was found."""
  groups: dict[tuple, list[Any]] = {}
  for s in stuck:
    key = (s.rule, s.rule_location, error_type(s.error))
    n = getattr(s, "steps", 1)   # a stuck state may stand for several steps (``StuckState``)
    if (g := groups.get(key)) is None: groups[key] = [s, n]
    else: g[1] += n
  return [StuckGroup(rule, loc, kind, n, first) for (rule, loc, kind), (first, n) in groups.items()]
