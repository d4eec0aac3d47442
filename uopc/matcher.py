"""PatternMatcher: an ordered list of rules, indexed by the op of each pattern's root.

A rule is a pair ``(pattern, function)``. When the pattern matches, the function gets
the bindings as keyword arguments and returns a replacement, or None for "does not
apply". Order is priority: the first rule that returns a new node wins.

>>> from uopc.uop import UOp
>>> from uopc.ops import Ops
>>> x = UPat.var("x")
>>> pm = PatternMatcher([(x + 0, lambda x: x), (x * 1, lambda x: x)])
>>> p0 = UOp.param(0)
>>> pm.rewrite(p0 + 0) is p0, pm.rewrite(p0 + 1)
(True, None)
>>> [len(pm.by_op.get(op, [])) for op in (Ops.ADD, Ops.MUL, Ops.CONST)]
[1, 1, 0]
"""
from __future__ import annotations

import os
from typing import Any, Callable

from uopc.ops import Ops
from uopc.upat import UPat
from uopc.uop import UOp

RuleFn = Callable[..., "UOp | None"]
Rule = tuple[UPat, RuleFn]


def rule_name(rule: Rule) -> str:
  """A rule's readable name: where its function is defined, and its pattern.

  Lambdas are named by their pattern, functions also by their own name.
  """
  pat, fn = rule
  code = getattr(fn, "__code__", None)
  site = f"{os.path.basename(code.co_filename)}:{code.co_firstlineno}" if code is not None else type(fn).__name__
  fname = getattr(fn, "__name__", "<lambda>")
  return f"{site} {pat.pretty()}" + ("" if fname == "<lambda>" else f" -> {fname}")


class PatternMatcher:
  """Ordered rules; ``pm1 + pm2`` has ``pm1``'s rules first."""

  def __init__(self, rules: list[Rule]):
    self.rules: list[Rule] = list(rules)
    # index by root op so a node only tries rules that could match it
    self.by_op: dict[Ops, list[Rule]] = {}
    for rule in self.rules:
      pat = rule[0]
      for op in (pat.op if pat.op is not None else Ops):
        self.by_op.setdefault(op, []).append(rule)
    self._names: dict[int, str] = {}

  def __add__(self, other: PatternMatcher) -> PatternMatcher: return PatternMatcher(self.rules + other.rules)
  def __len__(self) -> int: return len(self.rules)

  def name_of(self, rule: Rule) -> str:
    """The readable name of one of this matcher's rules (cached)."""
    key = id(rule)
    if (name := self._names.get(key)) is None: name = self._names[key] = rule_name(rule)
    return name

  def fire(self, u: UOp, ctx: Any = None) -> tuple[Rule, UOp] | None:
    """The first rule that rewrites ``u``, and what it returns; None if no rule does."""
    for rule in self.by_op.get(u.op, ()):
      pat, fn = rule
      for binding in pat.match(u, {}):
        ret = fn(**binding, ctx=ctx) if ctx is not None else fn(**binding)
        if ret is not None and ret is not u: return rule, ret
    return None

  def rewrite(self, u: UOp, ctx: Any = None) -> UOp | None:
    """What the first applicable rule rewrites ``u`` to, or None."""
    fired = self.fire(u, ctx)
    return None if fired is None else fired[1]
