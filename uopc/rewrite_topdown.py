"""graph_rewrite_topdown: rules on a node before its sources, and again after.

``graph_rewrite`` normalizes every source before it looks at a node (innermost
first). Top-down (outermost first) tries the rules on a node as it meets it; only if
none applies does it normalize the sources, rebuild the node from their normal forms
and, if that changed it, start on the rebuilt node again. A rule that discards a
subtree (``where(True, x, y) -> x``) never visits the discarded part, and on a rule
set that is not confluent the two strategies can reach different normal forms.

>>> from uopc.uop import UOp
>>> from uopc.upat import UPat
>>> from uopc.matcher import PatternMatcher
>>> x = UPat.var("x")
>>> pm = PatternMatcher([(x + 0, lambda x: x), (x * 1, lambda x: x)])
>>> p0 = UOp.param(0)
>>> graph_rewrite_topdown((p0 * 1 + 0) * 1, pm) is p0
True

It is memoized (``done`` maps each node to its normal form, every normal form to
itself) and iterative, like ``graph_rewrite``.
"""
from __future__ import annotations

from typing import Any

from uopc.matcher import PatternMatcher
from uopc.rewrite import RewriteLoopError, check_preserves_type, rebuild
from uopc.uop import UOp

_TRY, _REBUILD, _RESULT = 0, 1, 2   # stages of a node on the work stack


def graph_rewrite_topdown(root: UOp, pm: PatternMatcher, ctx: Any = None, max_steps: int = 10_000_000) -> UOp:
  """Rewrite ``root`` outermost first with ``pm`` to a fixed point.

  ``ctx`` and ``max_steps`` (rule lookups, ``pm.rewrite`` calls) mean what they mean for
  ``graph_rewrite``; as there, a rule's result that cannot replace its node is a ``RuleError``.

  Stage ``_TRY`` tries the rules on a node (if one fires, its result is normalized
  and becomes the node's normal form), else schedules its sources; ``_REBUILD``
  rebuilds it from their normal forms and, if that is a new node, normalizes that
  node (rules again, on the rebuilt node); ``_RESULT`` records the normal form.
  """
  rewrite = pm.rewrite
  done: dict[UOp, UOp] = {}
  stack: list[tuple[UOp, int, UOp | None]] = [(root, _TRY, None)]
  steps = 0
  while stack:
    u, stage, aux = stack.pop()
    if stage == _RESULT:
      done[u] = done[aux]  # type: ignore[index]  # stage 2's aux is the node whose result this is
      continue
    if u in done: continue
    if stage == _TRY:
      steps += 1
      if steps > max_steps: raise RewriteLoopError("graph_rewrite_topdown did not converge (a rule loops?)")
      if (m := rewrite(u, ctx)) is not None:
        check_preserves_type(pm, u, m, ctx)
        _normalize_into(u, m, done, stack)
        continue
      stack.append((u, _REBUILD, None))
      stack.extend([(s, _TRY, None) for s in reversed(u.src) if s not in done])
      continue
    # _REBUILD: no rule applied to u; its sources are normal now
    src = tuple([done[s] for s in u.src])
    if src == u.src: done[u] = u   # unchanged: the rules already failed on u
    else: _normalize_into(u, rebuild(u, src), done, stack)
  return done[root]


def _normalize_into(u: UOp, m: UOp, done: dict[UOp, UOp], stack: list) -> None:
  """Make ``u``'s normal form that of ``m``: at once if ``m``'s is known, else after normalizing ``m``."""
  if m in done: done[u] = done[m]
  else: stack.extend(((u, _RESULT, m), (m, _TRY, None)))
