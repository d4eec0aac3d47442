"""exec_alu: the reference semantics, including the cases it refuses to fold."""
import math

import pytest

from uopc import Ops, dtypes
from uopc.alu import exec_alu

I, F, B = dtypes.i32, dtypes.f32, dtypes.bool


@pytest.mark.parametrize("op, dtype, vals, expected", [
  (Ops.ADD, I, [2**31 - 1, 1], -2**31), (Ops.MUL, I, [65536, 65536], 0), (Ops.MUL, I, [-2**31, -1], -2**31),
  (Ops.FLOORDIV, I, [-7, 2], -4), (Ops.FLOORMOD, I, [-7, 2], 1), (Ops.FLOORMOD, I, [7, -2], -1),
  (Ops.FLOORMOD, I, [-2**31, -1], 0), (Ops.MAX, I, [3, -5], 3), (Ops.CMPLT, I, [1, 2], True), (Ops.CMPNE, I, [1, 1], False),
  (Ops.WHERE, I, [False, 1, 2], 2), (Ops.ADD, F, [0.1, 0.2], 0.30000001192092896), (Ops.ADD, F, [-0.0, 0.0], 0.0),
  (Ops.MUL, F, [math.inf, 0.0], math.nan), (Ops.RECIP, F, [-0.0], -math.inf), (Ops.RECIP, F, [3.0], 0.3333333432674408),
  (Ops.SQRT, F, [-1.0], math.nan), (Ops.SQRT, F, [-0.0], -0.0), (Ops.LOG2, F, [0.0], -math.inf), (Ops.LOG2, F, [-1.0], math.nan),
  (Ops.EXP2, F, [200.0], math.inf), (Ops.EXP2, F, [math.nan], math.nan), (Ops.EXP2, F, [-200.0], 0.0),
  (Ops.SIN, F, [math.inf], math.nan), (Ops.MUL, F, [1e30, 1e30], math.inf),
  (Ops.CAST, I, [-2.7], -2), (Ops.CAST, I, [True], 1), (Ops.CAST, F, [16777217], 16777216.0), (Ops.CAST, B, [math.nan], True),
  (Ops.CAST, B, [-0.0], False), (Ops.MAX, F, [-0.0, 0.0], 0.0), (Ops.MAX, F, [0.0, -0.0], 0.0), (Ops.MAX, F, [-0.0, -0.0], -0.0),
  (Ops.MAX, F, [math.nan, 1.0], math.nan), (Ops.MAX, F, [1.0, math.nan], math.nan), (Ops.MAX, F, [-1.0, -2.0], -1.0),
  (Ops.ADD, B, [True, True], True), (Ops.MUL, B, [True, False], False),
])
def test_values(op, dtype, vals, expected):
  r = exec_alu(op, dtype, vals)
  assert type(r) is type(expected) and (r == expected and math.copysign(1, r) == math.copysign(1, expected)
                                         if isinstance(r, float) and not math.isnan(expected) else r == expected or (r != r and expected != expected))


@pytest.mark.parametrize("op, dtype, vals", [
  (Ops.FLOORDIV, I, [1, 0]), (Ops.FLOORDIV, I, [-2**31, -1]), (Ops.FLOORMOD, I, [1, 0]),
  (Ops.CAST, I, [math.inf]), (Ops.CAST, I, [math.nan]), (Ops.CAST, I, [3e9]), (Ops.CAST, I, [-2147483904.0]),
])
def test_undefined_behaviour_is_not_folded(op, dtype, vals):
  assert exec_alu(op, dtype, vals) is None


def test_float_inputs_are_rounded_to_f32_first():
  # 16777217.0 is not an f32: C rounds the literal to 16777216 before adding
  assert exec_alu(Ops.ADD, F, [16777217.0, 0.0]) == 16777216.0
  assert exec_alu(Ops.CAST, I, [-2147483648.0]) == -2**31


def test_max_is_commutative_on_every_edge_value():
  edge = [0.0, -0.0, 1.0, -1.0, math.inf, -math.inf, math.nan]
  for a in edge:
    for b in edge:
      x, y = exec_alu(Ops.MAX, F, [a, b]), exec_alu(Ops.MAX, F, [b, a])
      assert (x != x and y != y) or (x == y and math.copysign(1, x) == math.copysign(1, y)), (a, b)
