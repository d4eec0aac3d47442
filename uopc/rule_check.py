"""A rule's result: whether it can replace the node it matched, and the errors naming a rule's bug.

Below both the engine (``uopc.rewrite``) and its tracer (``uopc.trace_matcher``), which check every result.
"""
from __future__ import annotations

import inspect
from typing import TYPE_CHECKING, Any, Callable

from uopc.upat import UPat
from uopc.uop import UOp, UOpError

if TYPE_CHECKING: from uopc.matcher import PatternMatcher   # which imports this module


class RuleError(Exception):
  """A rule raised, or returned something that cannot replace the node it matched: a bug in the rule.

  The message names the rule and where its function is (``Rule.describe``: ``add-0 (symbolic.py:97)``).
  """


class RuleNameClash(RuleError, ValueError):
  """Two rules of one rule set (or of a sum of rule sets) share a name: the reports, which name rules, could not tell
  them apart. Raised when the ``PatternMatcher`` is made; the message names both rules and where they are."""


class RewriteTypeError(RuleError, UOpError):
  """A rule replaced a node by something that is not a node, or a node of another dtype or shape."""


class RuleSignatureError(RuleError, TypeError):
  """A rule's function cannot be called with the names its pattern binds (and ``ctx=``): the call's ``TypeError``,
  naming the rule. ``PatternMatcher`` finds it when it is made; a ctx that does not fit, when rewriting."""


def bound_names(pat: UPat) -> list[str]:
  """The names every match of ``pat`` binds (every name in it: each match binds them all), first seen first.

  >>> bound_names(UPat.var("x") * UPat.cvar("c") + UPat.var("x"))
  ['x', 'c']
  """
  names: dict[str, None] = {}
  todo = [pat]
  while todo:
    p = todo.pop()
    if p.name is not None: names.setdefault(p.name)
    if p.src is not None: todo.extend(reversed(p.src))
  return list(names)


def signature_problem(pat: UPat, fn: Callable, ctx: bool | None = None) -> str | None:
  """Why ``fn`` cannot take the names ``pat`` binds as keyword arguments, or None if it can (or has no signature).

  ``ctx``: True for calls with ``ctx=``, False without, None for either (a rule may be meant for one or the other).

  >>> signature_problem(UPat.var("x") + 0, lambda y: y)
  'the pattern binds x, but its function takes (y)'
  >>> signature_problem(UPat.var("x") + 0, lambda x, ctx: x), signature_problem(UPat.var("x") + 0, lambda x, ctx: x, ctx=False)
  (None, 'the pattern binds x and graph_rewrite passes no ctx, but its function takes (x, ctx)')
  """
  try: sig = inspect.signature(fn)
  except (TypeError, ValueError): return None   # a builtin without one: its call says what is wrong
  names = bound_names(pat)
  kwargs: dict[str, Any] = dict.fromkeys(names)
  for with_ctx in ((False, True) if ctx is None else (ctx,)):
    try:
      if with_ctx: sig.bind(**kwargs, ctx=None)
      else: sig.bind(**kwargs)
      return None
    except TypeError: pass
  passes = "" if ctx is None else " and graph_rewrite passes ctx=" if ctx else " and graph_rewrite passes no ctx"
  plain = sig.replace(parameters=[p.replace(annotation=p.empty) for p in sig.parameters.values()], return_annotation=sig.empty)
  return f"the pattern binds {', '.join(names) or 'no name'}{passes}, but its function takes {plain}"


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
