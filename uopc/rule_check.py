"""A rule's result: whether it can replace the node it matched, and the errors naming a rule's bug.

Below both the engine (``uopc.rewrite``) and its tracer (``uopc.trace_matcher``), which check every result.
"""
from __future__ import annotations

from typing import Any

from uopc.matcher import PatternMatcher
from uopc.uop import UOp, UOpError


class RuleError(Exception):
  """A rule raised, or returned something that cannot replace the node it matched: a bug in the rule.

  The message names the rule and where its function is (``Rule.describe``: ``symbolic#2 x + 0 (symbolic.py:97)``).
  """


class RewriteTypeError(RuleError, UOpError):
  """A rule replaced a node by something that is not a node, or a node of another dtype or shape."""


def rewrite_problem(n: UOp, m: Any) -> str | None:
  """Why ``m`` cannot replace ``n`` (not a UOp, another dtype or shape), or None if it can.

  The one check of a rule's result, shared by the engine, the explorer and ``check-rules``.

  >>> p0 = UOp.param(0)
  >>> rewrite_problem(p0 + 0, p0), rewrite_problem(p0 + 0, 5), rewrite_problem(p0 + 0, UOp.const(1.0))
  (None, 'returned int 5, not a UOp', 'changed ADD i32[] into CONST f32[]')
  """
  if type(m) is not UOp: return f"returned {type(m).__name__} {_clip(repr(m))}, not a UOp"
  if m.dtype is not n.dtype or m.shape != n.shape:
    return f"changed {n.op.name} {n.dtype.name}{list(n.shape)} into {m.op.name} {m.dtype.name}{list(m.shape)}"
  return None


def _clip(text: str, n: int = 60) -> str: return text if len(text) <= n else text[:n] + "..."


def check_preserves_type(pm: PatternMatcher, n: UOp, m: Any, ctx: Any = None) -> None:
  """Raise ``RewriteTypeError`` naming the rule if ``m`` cannot stand in for ``n``."""
  if (problem := rewrite_problem(n, m)) is not None: raise RewriteTypeError(f"{_culprit(pm, n, ctx)} {problem}")


def _culprit(pm: PatternMatcher, n: UOp, ctx: Any) -> str:
  fired = pm.fire(n, ctx)   # rules are pure, so firing again finds the same rule
  return f"rule {fired[0].describe()}" if fired is not None else "a rule"
