"""The chapter's exercise 9 rule set: identities, strength reduction, associativity, commutativity.

    uopc saturate examples/saturation.uir --rules examples/saturation_rules.py:rules

``x + 0 -> x``, ``x * 1 -> x``, ``x * 2 -> x + x``, ``(a + b) + c -> a + (b + c)``, and
``a + b -> b + a``, ``a * b -> b * a``. Commutativity makes ``graph_rewrite`` loop (each
rewrite undoes the last); in an e-graph it only records that both orders are equal.
All of them are exact on wrapping i32 arithmetic.
"""
from uopc import Ops, PatternMatcher, UPat, dtypes

x, a, b, c = UPat.var("x", dtype=dtypes.i32), UPat.var("a"), UPat.var("b"), UPat.var("c")

rules = PatternMatcher([
  (x + 0, lambda x: x, "add-0"),
  (x * 1, lambda x: x, "mul-1"),
  (x * 2, lambda x: x + x, "mul-2"),
  (UPat(Ops.ADD, src=(UPat(Ops.ADD, src=(a, b)), c), dtype=dtypes.i32), lambda a, b, c: a + (b + c), "add-assoc"),
  (UPat(Ops.ADD, src=(a, b), dtype=dtypes.i32), lambda a, b: b + a, "add-comm"),
  (UPat(Ops.MUL, src=(a, b), dtype=dtypes.i32), lambda a, b: b * a, "mul-comm"),
])
