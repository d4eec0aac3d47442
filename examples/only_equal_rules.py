"""Three sound rules whose e-graph proves more than they reach: ``x * 1 -> x + 0``, ``max(x, x) -> x + 0``, ``max(x, x) -> x``.

    uopc saturate examples/only_equal.uir --rules examples/only_equal_rules.py:rules

In ``(p0 * 1) + max(p0, p0)`` both operands rewrite to ``p0 + 0``, so the e-graph
merges them, and with them ``p0`` (what ``max(p0, p0)`` also rewrites to): the
cheapest equal graph is ``p0 + p0``. But ``p0 * 1`` only ever rewrites to
``p0 + 0`` (no rule removes a ``+ 0``), so no rewrite sequence reaches ``p0 + p0``.
"""
from uopc import Ops, PatternMatcher, UPat

x = UPat.var("x")

rules = PatternMatcher([
  (UPat(Ops.MUL, src=(x, UPat(Ops.CONST, arg=1))), lambda x: x + 0, "mul-1-add-0"),
  (UPat(Ops.MAX, src=(x, x)), lambda x: x + 0, "max-self-add-0"),
  (UPat(Ops.MAX, src=(x, x)), lambda x: x, "max-self"),
])
