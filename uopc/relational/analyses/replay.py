"""Replay a rewrite path: re-apply its steps one by one, without the explorer.

Each step names a node and a rule (by its index in ``pm.rules``). Replaying finds the
node in the current graph, calls the rule on it directly (``UPat.match`` and the
rule's function, as ``PatternMatcher`` does) and substitutes the result everywhere
the node is used. So a path printed by a search is checked by code that shares
nothing with the stepper that found it.

>>> from uopc import UOp, symbolic
>>> p0 = UOp.param(0)
>>> steps = [{"rule_index": 2, "node": "add(p0, 0)"}, {"rule_index": 4, "node": "mul(p0, 1)"}]
>>> show(replay((p0 + 0) * 1, steps, symbolic))
'p0'
"""
from __future__ import annotations

from typing import Any, Iterable, Mapping

from uopc.matcher import PatternMatcher
from uopc.relational.space.states import Edge
from uopc.rewrite import rebuild
from uopc.symbolic import symbolic
from uopc.term import ELLIPSIS, show
from uopc.upat_compile import rule_results
from uopc.uop import UOp
from uopc.lengths import LENGTHS


class ReplayError(ValueError):
  """A step of a path does not apply: its node is not in the graph, or its rule does not give its result."""


def _shows_as(u: UOp, text: str) -> bool:
  """``show(u) == text``, where ``text`` may be cut with an ellipsis; never builds more than ``text``."""
  if text.endswith(ELLIPSIS): return show(u, len(text) - 1) == text
  return show(u, len(text) + 1) == text


def _rule_results(pm: PatternMatcher, index: int, n: UOp, ctx: Any) -> list[UOp]:
  """What rule ``index`` rewrites ``n`` into, one entry per distinct result (bindings may differ)."""
  out: list[UOp] = []
  for m in rule_results(*pm.rules[index], n, ctx):
    if type(m) is UOp and m not in out: out.append(m)
  return out


def _fields(step: Any) -> tuple[int, Any, UOp | None, str | None]:
  """(rule index, node or its text, the expected result node, the expected graph's text) of a step."""
  if isinstance(step, Edge):
    if step.error is not None: raise ReplayError(f"the step failed when it was taken: {step.error}")
    return step.rule_index, step.node, step.result, None
  if isinstance(step, Mapping): return int(step["rule_index"]), step["node"], None, step.get("after")
  index, node = step
  return int(index), node, None, None


def replay(prog: UOp, path: Iterable[Any], pm: PatternMatcher = symbolic, *, ctx: Any = None) -> UOp:
  """The graph that applying ``path``'s steps to ``prog``, in order, gives.

  A step is an ``Edge``, a mapping with ``rule_index`` and ``node`` (a node, or its
  one-line term as a search prints it; then ``after``, if given, picks between
  results), or a pair ``(rule_index, node)``. Raises ``ReplayError`` naming the first
  step that does not apply.
  """
  g = prog
  for k, step in enumerate(path, 1):
    try: index, node, expect, after = _fields(step)
    except ReplayError as e: raise ReplayError(f"step {k}: {e}") from None
    if not 0 <= index < len(pm.rules): raise ReplayError(f"step {k}: no rule {index} (the matcher has {len(pm.rules)})")
    nodes = g.toposort()
    if type(node) is UOp: cands = [node] if node in set(nodes) else []
    else: cands = [n for n in nodes if _shows_as(n, str(node))]
    if not cands:
      raise ReplayError(f"step {k}: {show(node, LENGTHS.message) if type(node) is UOp else node!r} is not a node of {show(g, LENGTHS.message)}")
    options: list[UOp] = []
    for n in cands:
      try: results = _rule_results(pm, index, n, ctx)
      except Exception as e: raise ReplayError(f"step {k}: rule {index} raised {type(e).__name__}: {e}") from None
      for m in results:
        if expect is not None and m is not expect: continue
        h = g.substitute({n: m}, build=rebuild)   # as the stepper and the engine: a CALL whose body lost a PARAM keeps it
        if after is not None and not _shows_as(h, after): continue
        if h not in options: options.append(h)
    if not options:
      raise ReplayError(f"step {k}: rule {pm.name_of(pm.rules[index])} does not rewrite "
                        f"{show(cands[0], LENGTHS.message)} {'into the recorded result' if expect is not None or after else 'at all'}")
    if len(options) > 1: raise ReplayError(f"step {k}: ambiguous: {len(options)} different graphs fit; give the step's 'after'")
    g = options[0]
  return g


__all__ = ["ReplayError", "replay"]
