"""fold and symbolic: the chapter's printed values, rule counts, and soundness on random programs."""
import math

import pytest
from hypothesis import assume, given, strategies as st

from tests.helpers import param
from uopc import Ops, PatternMatcher, UOp, UPat, dtypes, evaluate, fold, graph_rewrite, simplify, symbolic, to_uir
from uopc.evaluate import bind

p0, p1 = param(0), param(1)


def test_negative_zero_plus_zero_depends_on_rule_order():
  e = UOp.const(-0.0) + UOp.const(0.0)
  r = graph_rewrite(e, symbolic)
  assert r.op is Ops.CONST and r.arg == 0.0 and math.copysign(1, r.arg) == 1.0      # folding is listed first
  rev = PatternMatcher(symbolic.rules[1:] + symbolic.rules[:1])
  r = graph_rewrite(e, rev)
  assert r.op is Ops.CONST and r.arg == 0.0 and math.copysign(1, r.arg) == -1.0     # identity first


def test_rule_counts_and_per_op_candidates():
  pm = symbolic + evaluate
  assert len(pm.rules) == 44
  assert len(fold.rules) == 1 and len(symbolic.rules) == 38 and len(evaluate.rules) == 6
  table = {op.name: len(pm.by_op.get(op, [])) for op in Ops if pm.by_op.get(op)}
  assert list(table.items()) == [
    ("CALL", 1), ("INDEX", 3), ("CAST", 4), ("RECIP", 3), ("ADD", 14), ("MUL", 10), ("CMPLT", 6), ("FLOORDIV", 8),
    ("FLOORMOD", 7), ("WHERE", 7), ("CMPNE", 6), ("MAX", 5), ("EXP2", 3), ("LOG2", 3), ("SQRT", 3), ("SIN", 3),
    ("RESHAPE", 1), ("EXPAND", 1), ("PERMUTE", 1), ("SHRINK", 1), ("REDUCE", 1)]
  assert all(not pm.by_op.get(op) for op in (Ops.CONST, Ops.PARAM, Ops.STACK))


def test_composition_puts_left_rules_first():
  assert (fold + evaluate).rules == fold.rules + evaluate.rules


BIND = PatternMatcher([(UPat(Ops.PARAM, name="p"),
                        lambda p, ctx: UOp.const(ctx[p.arg.slot], p.dtype) if p.arg.slot in ctx else None)])


def test_bind_with_ctx_then_simplify():
  e = (p0 + 2) * p1 + p0 * 0
  bound = graph_rewrite(e, BIND, ctx={0: 5})
  assert to_uir(bound) == "%0 = add 5, 2\n%1 = param : slot=1 dtype=i32\n%2 = mul %0, %1\n%3 = mul 5, 0\n%4 = add %2, %3\n"
  assert to_uir(simplify(bound)) == "%0 = param : slot=1 dtype=i32\n%1 = mul %0, 7\n"
  assert graph_rewrite(e, bind, ctx={0: 5}) is bound   # the library's bind does the same


def test_ctx_rules_cannot_mix_with_symbolic():
  with pytest.raises(TypeError, match=r"^_fold\(\) got an unexpected keyword argument 'ctx'$"):
    graph_rewrite((p0 + 2) * p1, BIND + symbolic, ctx={0: 5})


def test_simplify_is_memoized_and_idempotent():
  e = ((p0 * 4) + 8) // 4
  s = simplify(e)
  assert s is p0 + 2
  assert simplify(s) is s and simplify(e) is s


@pytest.mark.parametrize("build, expected", [
  (lambda: p0 + 0, p0), (lambda: p0 * 1, p0), (lambda: p0 * 0, UOp.const(0)), (lambda: p0 // 1, p0),
  (lambda: p0 % 1, UOp.const(0)), (lambda: p0.max(p0), p0), (lambda: (p0 < p1).where(p0, p0), p0),
  (lambda: p0 + p0, p0 * 2), (lambda: p0 + p0 * -1, UOp.const(0)), (lambda: (p0 + 3) + 4, p0 + 7),
  (lambda: (p0 * 3) * 4, p0 * 12), (lambda: (p0 % 8) % 4, p0 % 4), (lambda: (p0 % 8) // 4, (p0 // 4) % 2),
  (lambda: ((p0 // 4) * 4) + p0 % 4, p0), (lambda: (p0 + 3) < 10, p0 < 7), (lambda: (p0 * 4) < 10, p0 < 3),
  (lambda: (p0 % 4) // 4, UOp.const(0)), (lambda: (p0 % 4) < 4, UOp.const(True)), (lambda: p0 < p0, UOp.const(False)),
  (lambda: UOp.const(3) + p0, p0 + 3), (lambda: (p0 * 2 + p1) * 3, p0 * 6 + p1 * 3),
  (lambda: (p0 * 4 + p1 * 8 + 6) // 2, p0 * 2 + p1 * 4 + 3),
])
def test_symbolic_rules_by_example(build, expected):
  assert simplify(build()) is expected


def test_wrapping_constants_fold_like_int32():
  assert simplify((p0 + (2**31 - 1)) + 1) is p0 + (-2**31)
  assert simplify(UOp.const(2**31 - 1) + 1) is UOp.const(-2**31)


def test_float_rules_are_not_reassociated():
  f = param(0, dtypes.f32)
  e = (f + 1.0) + 2.0
  assert simplify(e) is e   # float addition isn't associative
  assert simplify(f * 0.0) is f * 0.0   # inf * 0 and nan * 0 are nan


def test_sum_of_200_terms_simplifies():
  terms = [((param(i) * 4 + 8) // 4) % 16 for i in range(200)]
  prog = terms[0]
  for t in terms[1:]: prog = prog + t
  out = simplify(prog)
  assert out.op is Ops.ADD and ((param(0) + 2) % 16).toposort()[-1] in out.toposort()
