"""The Aesara issue's two rewrites, and associativity standing in for Aesara's add fusion.

    uopc explore reachable examples/aesara.uir --rules examples/aesara_rules.py:rules --semantics tree

``log(exp(x)) -> x`` (``local_log_of_exp``, in base 2), ``x + x -> x * 2``
(``local_reduce_add`` on two equal operands), ``(a + b) + c -> a + (b + c)`` (Aesara
fuses nested adds into one n-ary add; uopc's adds are binary, so associativity brings
``x + x`` together instead), and ``(x * c1) * c2 -> x * (c1 * c2)`` (what
``local_reduce_add`` makes of four equal operands: ``4 * x``).
"""
from uopc import Ops, PatternMatcher, UOp, UPat

x, a, b, c = UPat.var("x"), UPat.var("a"), UPat.var("b"), UPat.var("c")
c1, c2 = UPat.cvar("c1"), UPat.cvar("c2")

rules = PatternMatcher([
  (UPat(Ops.LOG2, src=(UPat(Ops.EXP2, src=(x,)),)), lambda x: x, "log-of-exp"),
  (UPat(Ops.ADD, src=(x, x)), lambda x: x * 2, "reduce-add"),
  (UPat(Ops.ADD, src=(UPat(Ops.ADD, src=(a, b)), c)), lambda a, b, c: a + (b + c), "add-assoc"),
  (UPat(Ops.MUL, src=(UPat(Ops.MUL, src=(x, c1)), c2)), lambda x, c1, c2: x * UOp.const(c1.arg * c2.arg, x.dtype),
   "mul-consts"),
])
