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
from collections import deque
from functools import partial
from typing import Any, Callable

from uopc import collector
from uopc.matcher import PatternMatcher, Rule, require_matcher, signature  # noqa: F401  (Rule, and UPat below: the chapter's rewrite.py has them)
from uopc.ops import Ops
from uopc.upat import UPat  # noqa: F401
from uopc.rule_check import (RewriteTypeError, RuleError, RuleSignatureError, check_preserves_type, rewrite_problem,  # noqa: F401  (importers find them here)
                             signature_problem)
from uopc.upat_compile import PlainFire, call_rule
from uopc.uop import UOp, UOpError, make_uop
from uopc.lengths import LENGTHS


_REBUILD, _RESULT = object(), object()   # stage markers on graph_rewrite's work stack


def env_flag(name: str) -> bool:
  """Whether environment variable ``name`` is set to something other than empty or ``0``."""
  return os.environ.get(name, "") not in ("", "0")


# read once, when uopc is imported (a lookup in os.environ costs a microsecond: more than
# a small rewrite's rule calls); tests and callers may set this module attribute instead
TRACE = env_flag("UOPC_TRACE")


def rebuild(u: UOp, src: tuple[UOp, ...]) -> UOp:
  """``u`` on the normal forms ``src`` of its sources.

  A CALL's body is rewritten like any source, and its normal form can lose a PARAM
  (``where(False, p0, 0)`` is ``0``); that CALL would no longer type-check, so it keeps
  the body as written (inlining it later still sees every argument).
  """
  try: return make_uop(u.op, src, u.arg, u.dtype)
  except UOpError:
    if u.op is not Ops.CALL: raise
    return make_uop(u.op, (u.src[0], *src[1:]), u.arg, u.dtype)


class RewriteLoopError(RuntimeError):
  """The rules did not reach a fixed point within ``max_steps``."""


class ProgramError(Exception):
  """The program itself fails (an index out of bounds): a rule that finds so raises this (or a subclass).

  ``graph_rewrite`` passes it through; any other exception out of a rule is the rule's bug (``RuleError``).
  """


def failure_text(e: BaseException) -> str:
  """One line for a failed ``graph_rewrite``: a ``RuleError`` names its rule already, others get their type."""
  return str(e) if isinstance(e, RuleError) else f"{type(e).__name__}: {e}"


def _raising_rule(pm: PatternMatcher, e: BaseException) -> Any:
  """The rule of ``pm`` whose function is on ``e``'s traceback (the outermost one), or None."""
  codes = {code: rule for rule in pm.rules if (code := getattr(rule[1], "__code__", None)) is not None}
  tb = e.__traceback__
  while tb is not None:
    if (rule := codes.get(tb.tb_frame.f_code)) is not None: return rule
    tb = tb.tb_next
  return None


def graph_rewrite(root: UOp, pm: PatternMatcher, ctx: Any = None, max_steps: int = 10_000_000) -> UOp:
  """Rewrite ``root`` bottom-up with ``pm`` to a fixed point.

  ``ctx`` is passed to every rule as a keyword argument. More than ``max_steps`` rule
  lookups raise ``RewriteLoopError``. A rule that raises, or returns something that
  cannot replace its node (``rewrite_problem``), raises ``RuleError`` naming the rule;
  a ``ProgramError`` (the program fails) passes through. Env ``UOPC_TRACE=1`` prints
  each rule that fires on stderr. Python's cycle collector is paused while it runs.

  Stage 0 schedules a node's sources, stage 1 rebuilds it from their normal forms and
  tries the rules, stage 2 records the normal form of what a rule returned.
  """
  if not isinstance(pm, PatternMatcher): require_matcher(pm, "graph_rewrite: pm")   # a list of rules: a TypeError naming it
  if TRACE:
    from uopc.trace_matcher import TracingMatcher   # deferred: the hot path never needs it
    pm = TracingMatcher(pm, firings_only=True)
  # a subclass that overrides rewrite or fire watches every visit: it gets the reference loop
  watched = type(pm).rewrite is not PatternMatcher.rewrite or type(pm).fire is not PatternMatcher.fire
  try:
    with collector.paused():   # thousands of lasting nodes, no cycle (uopc.collector)
      return (_visit_all if watched else _rewrite)(root, pm, ctx, max_steps)
  except RewriteLoopError:
    if isinstance(pm, _LoopRecorder): raise
    raise RewriteLoopError(f"graph_rewrite did not converge: {_loop_text(root, pm, ctx)}") from None
  except (RuleError, ProgramError): raise
  except Exception as e:   # a rule raised: found on the traceback, so the loops need no try block
    if (rule := _raising_rule(pm, e)) is None:
      if (misfit := _misfit_call(pm, e, ctx)) is not None: raise misfit from e
      raise
    raise RuleError(f"rule {rule.describe()} raised {type(e).__name__}: {e}") from e


def _misfit_call(pm: PatternMatcher, e: BaseException, ctx: Any) -> RuleSignatureError | None:
  """The ``RuleSignatureError`` of a rule whose call raised ``e``: a function that takes no ``ctx`` given one, or
  needs one given none (``PatternMatcher`` checked the pattern's names already). None if ``e`` is something else."""
  if not isinstance(e, TypeError): return None
  tb = e.__traceback__
  while tb is not None and tb.tb_next is not None: tb = tb.tb_next
  if tb is None or not (tb.tb_frame.f_code.co_filename.startswith("<upat_compile") or tb.tb_frame.f_code is call_rule.__code__):
    return None   # not raised by the call of a rule's function
  for rule in pm.rules:
    if (problem := signature_problem(rule[0], rule[1], ctx is not None)) is not None:
      return RuleSignatureError(rule.signature_error(problem, e))
  return None


class _LoopRecorder(PatternMatcher):
  """``pm``'s rules, keeping the last firings (rule, node): what a loop goes round."""

  def __init__(self, pm: PatternMatcher) -> None:
    super().__init__(pm.rules, compiled=pm.compiled)
    self.firings: deque[tuple[Any, UOp]] = deque(maxlen=LOOP_WINDOW)

  def fire(self, u: UOp, ctx: Any = None) -> tuple[Any, UOp] | None:
    fired = super().fire(u, ctx)
    if fired is not None: self.firings.append((fired[0], u))
    return fired


LOOP_WINDOW = 64        # firings kept to find the loop in
LOOP_REPLAY = 20_000    # rule lookups of the replay that finds it


def _loop_text(root: UOp, pm: PatternMatcher, ctx: Any) -> str:
  """The rules (and nodes) a looping rewrite goes round, found by replaying it with a recorder.

  Run only once a loop was detected: the fast loop records nothing. A cycle is the
  shortest period with which the last firings repeat; without one (a rule that grows
  the graph) the rules of the last firings are named instead.
  """
  from uopc.term import show   # deferred: only the error message needs it
  rec = _LoopRecorder(pm)
  try: _visit_all(root, rec, ctx, LOOP_REPLAY)
  except RewriteLoopError: pass
  except Exception: return "a rule loops (it could not be replayed)"
  f = list(rec.firings)
  for period in range(1, len(f) // 2 + 1):
    if all(f[-1 - k][0] is f[-1 - k - period][0] and f[-1 - k][1] is f[-1 - k - period][1] for k in range(period)):
      steps = " -> ".join(f"{pm.name_of(rule)} @ {show(node, LENGTHS.label)}" for rule, node in f[-period:])
      return f"a cycle of {period} rewrite{'s' * (period != 1)}: {steps}"
  names = list(dict.fromkeys(pm.name_of(rule) for rule, _ in f))
  return f"no cycle, the graph keeps changing; the last {len(f)} rewrites use: {'; '.join(names)}" if f else "a rule loops?"


def _visit_all(root: UOp, pm: PatternMatcher, ctx: Any, max_steps: int) -> UOp:
  """The reference loop: every node, leaves included, goes through ``pm.rewrite``."""
  rewrite = pm.rewrite
  done: dict[UOp, UOp] = {}
  stack: list[tuple[UOp, int, UOp | None]] = [(root, 0, None)]
  steps = 0
  while stack:
    u, stage, aux = stack.pop()
    if stage == 2:
      done[u] = done[aux]  # type: ignore[index]  # stage 2's aux is the node whose result this is
      continue
    if u in done: continue
    if stage == 0 and u.src:
      stack.append((u, 1, None))
      stack.extend([(s, 0, None) for s in reversed(u.src) if s not in done])
      continue
    # stage 1 (or a leaf): sources are done, rebuild from their normal forms and try the rules
    if u.src:
      src = tuple([done[s] for s in u.src])
      n = u if src == u.src else rebuild(u, src)
    else: n = u
    steps += 1
    if steps > max_steps: raise RewriteLoopError("graph_rewrite did not converge (a rule loops?)")
    if (m := rewrite(n, ctx)) is None: done[u] = n
    else:
      if type(m) is not UOp or m.dtype is not n.dtype or m.shape != n.shape: check_preserves_type(pm, n, m, ctx)
      if m in done: done[u] = done[m]
      else: stack.extend(((u, 2, m), (m, 0, None)))
  return done[root]


def _firing_functions(pm: PatternMatcher, ctx: Any) -> tuple[dict[tuple, tuple[PlainFire, ...]], Callable[[UOp], tuple[PlainFire, ...]]]:
  """``_rewrite``'s table of firing functions by signature, and the function that fills it for a node not in it.

  Without a ctx, the matcher's own (``PatternMatcher.plain_candidates``, kept across calls); with one, each rule's
  function with the ctx bound, in a table of this call's own.
  """
  if ctx is None: return pm._plain, pm.plain_candidates
  known: dict[tuple, tuple[PlainFire, ...]] = {}
  def firing(u: UOp) -> tuple[PlainFire, ...]:
    fires = known[signature(u)] = tuple([partial(f, ctx=ctx) for _, f in pm.candidates(u)])
    return fires
  return known, firing


def _rewrite(root: UOp, pm: PatternMatcher, ctx: Any, max_steps: int) -> UOp:
  """The fast loop: the same rule calls in the same order as ``_visit_all``, less work around them.

  A leaf that no rule is filed under is normal as it is: it is marked done where it is
  met, not visited. Other nodes go straight to their candidate rules' one-argument
  firing functions (``PatternMatcher.plain_candidates``; with a ctx, ``candidates``
  with the ctx bound). The work stack holds nodes (stage 0) and, above a node, a marker
  for stage 1 or 2: no tuple per entry.

  Simpler than the version that also visited a ready binary source inside its user's
  scan: under callgrind that one ran ``run()`` n = 1000 in 4% fewer instructions and a
  2,000-ADD chain in 3% more, too little to pay for a second copy of the firing block.
  """
  by_op = pm.by_op
  known, firing = _firing_functions(pm, ctx)
  done: dict[UOp, UOp] = {}
  normal_form, done_get = done.__getitem__, done.get
  stack: list[Any] = [root]
  pop, push = stack.pop, stack.append
  steps = 0
  while stack:
    u = pop()
    if u is _RESULT:   # stage 2: u's normal form is that of what its rule returned
      u = pop()
      done[u] = done[pop()]
      continue
    if u is _REBUILD: u = pop()   # stage 1: u's sources are done now, so stage 0's reading of them rebuilds it
    if u in done: continue
    # stage 0: schedule the sources that are not done yet; if none, rebuild from their normal forms and try the rules
    n, usrc = u, u.src
    if len(usrc) == 2 and done_get(a := usrc[0]) is a and done_get(b := usrc[1]) is b:
      key = (u.op, a.op, b.op)  # type: ignore[union-attr]  # (`is` narrowed a, b to UOp | None) the common case: binary, sources normal; signature(u), spelled out
    else:
      if usrc:
        todo, same = None, True
        for s in usrc:
          if (r := done_get(s)) is None:
            if s.src or s.op in by_op:
              if todo is None: todo = [s]
              else: todo.append(s)
              continue
            done[s] = r = s   # a plain leaf is normal as it is
            steps += 1
          if r is not s: same = False
        if todo is not None:   # (never in stage 1: what was scheduled is done)
          push(u); push(_REBUILD)
          stack.extend(reversed(todo))
          continue
        if not same: n = rebuild(u, tuple(map(normal_form, usrc)))
      key = None
    steps += 1
    if steps > max_steps: raise RewriteLoopError("graph_rewrite did not converge (a rule loops?)")
    if (cands := known.get(signature(n) if key is None else key)) is None: cands = firing(n)
    for f in cands:
      if (m := f(n)) is not None and m is not n: break
    else:   # no rule applies (or none is filed under n.op): n is normal
      done[u] = n
      continue
    if type(m) is not UOp or m.dtype is not n.dtype or m.shape != n.shape: check_preserves_type(pm, n, m, ctx)
    if not m.src and m.op not in by_op:   # a plain leaf is normal already
      steps += 1
      done[u] = done[m] = m
    elif m in done: done[u] = done[m]
    else: push(m); push(u); push(_RESULT); push(m)   # normalize m, then stage 2 for u
  return done[root]
