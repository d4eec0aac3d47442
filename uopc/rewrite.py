"""graph_rewrite: the memoized, iterative, bottom-up rewriter.

Every source is rewritten to normal form before its user is looked at; when a rule
fires, its result is normalized again (stage 2). ``done`` maps each node to its normal
form, so each distinct node is processed once (term graph rewriting), and an explicit
stack replaces recursion, so deep graphs are fine.

>>> from uopc.uop import UOp
>>> from uopc.upat import UPat
>>> x = UPat.var("x")
>>> pm = PatternMatcher([(x + 0, lambda x: x), (x * 1, lambda x: x)])
>>> p0 = UOp.param(0)
>>> graph_rewrite((p0 * 1 + 0) * 1, pm) is p0
True
"""
from __future__ import annotations

import os
from typing import Any

from uopc.matcher import PatternMatcher
from uopc.uop import UOp, UOpError, make_uop


class RewriteLoopError(RuntimeError):
  """The rules did not reach a fixed point within ``max_steps``."""


class RewriteTypeError(UOpError):
  """A rule replaced a node by one of another dtype or shape (checked mode)."""


def check_preserves_type(pm: PatternMatcher, n: UOp, m: UOp, ctx: Any = None) -> None:
  """Raise ``RewriteTypeError`` naming the rule if ``m`` cannot stand in for ``n``."""
  if not isinstance(m, UOp):
    raise RewriteTypeError(f"{_culprit(pm, n, ctx)} returned a {type(m).__name__}, not a UOp")
  if m.dtype is not n.dtype or m.shape != n.shape:
    raise RewriteTypeError(f"{_culprit(pm, n, ctx)} changed {n.op.name} {n.dtype.name}{list(n.shape)} "
                           f"into {m.op.name} {m.dtype.name}{list(m.shape)}")


def _culprit(pm: PatternMatcher, n: UOp, ctx: Any) -> str:
  fired = pm.fire(n, ctx)   # rules are pure, so firing again finds the same rule
  return f"rule {pm.name_of(fired[0])}" if fired is not None else "a rule"


def graph_rewrite(root: UOp, pm: PatternMatcher, ctx: Any = None, max_steps: int = 10_000_000,
                  check: bool | None = None) -> UOp:
  """Rewrite ``root`` bottom-up with ``pm`` to a fixed point.

  ``ctx`` is passed to every rule as a keyword argument. More than ``max_steps`` rule
  lookups raise ``RewriteLoopError``. ``check`` (default: env ``UOPC_CHECK=1``) makes
  every rewrite prove it preserves dtype and shape. Env ``UOPC_TRACE=1`` prints each
  rule that fires on stderr.

  Stage 0 schedules a node's sources, stage 1 rebuilds it from their normal forms and
  tries the rules, stage 2 records the normal form of what a rule returned.
  """
  if check is None: check = os.environ.get("UOPC_CHECK", "") not in ("", "0")
  if os.environ.get("UOPC_TRACE", "") not in ("", "0"):
    from uopc.trace import TracingMatcher   # deferred: the hot path never needs it
    pm = TracingMatcher(pm, firings_only=True)
  rewrite = pm.rewrite
  # nodes whose op has no candidate rule need no lookup, unless a subclass watches every visit
  watched = type(pm).rewrite is not PatternMatcher.rewrite or type(pm).fire is not PatternMatcher.fire
  by_op = None if watched else pm.by_op
  done: dict[UOp, UOp] = {}
  stack: list[tuple[UOp, int, UOp | None]] = [(root, 0, None)]
  steps = 0
  while stack:
    u, stage, aux = stack.pop()
    if stage == 2:
      done[u] = done[aux]
      continue
    if u in done: continue
    if stage == 0 and u.src:
      stack.append((u, 1, None))
      stack.extend([(s, 0, None) for s in reversed(u.src) if s not in done])
      continue
    # stage 1 (or a leaf): sources are done, rebuild from their normal forms and try the rules
    if u.src:
      src = tuple([done[s] for s in u.src])
      n = u if src == u.src else make_uop(u.op, src, u.arg, u.dtype)
    else: n = u
    steps += 1
    if steps > max_steps: raise RewriteLoopError("graph_rewrite did not converge (a rule loops?)")
    if (by_op is not None and n.op not in by_op) or (m := rewrite(n, ctx)) is None: done[u] = n
    else:
      if check: check_preserves_type(pm, n, m, ctx)
      if m in done: done[u] = done[m]
      else: stack.extend(((u, 2, m), (m, 0, None)))
  return done[root]
