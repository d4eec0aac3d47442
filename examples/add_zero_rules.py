"""One rule, ``x + 0 -> x``: the smallest rule set whose independence the reduction reads from the pattern.

    uopc explore normal-forms examples/add_zero_sum30.uir --rules examples/add_zero_rules.py:rules

No ``+`` above a leaf can become ``x + 0``: nothing turns a sum into the constant 0. So
only the leaves ``pK + 0`` are redexes, and they are independent (docs/reduction.md).
"""
from uopc import PatternMatcher, UPat

x = UPat.var("x")

rules = PatternMatcher([(x + 0, lambda x: x, "add-0")], name="add_zero")
