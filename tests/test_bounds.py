"""bounds: conservative value ranges, cached, computed without recursion."""
from tests.helpers import param
from uopc import UOp, dtypes
from uopc.bounds import bounds, vmax, vmin

x = param(0)


def test_bounds_of_common_index_expressions():
  assert bounds(UOp.const(5)) == (5, 5)
  assert bounds(x) == (-2**31, 2**31 - 1)
  assert bounds(x % 8) == (0, 7) and bounds(x % 8 + 3) == (3, 10) and bounds((x % 8) * -2) == (-14, 0)
  assert bounds((x % 8) // 4) == (0, 1) and bounds((x % 8).max(UOp.const(5))) == (5, 7)
  assert bounds(UOp(x.op, (), x.arg)) == bounds(x)
  r = UOp(UOp.const(10).op, (), 10)
  assert bounds(UOp(__import__("uopc").Ops.RANGE, (r,))) == (0, 9)


def test_comparisons_and_casts():
  assert bounds((x % 4) < 4) == (True, True) and bounds((x % 4) < 0) == (False, False) and bounds(x < 3) == (False, True)
  assert bounds(((x % 2) < 1).cast(dtypes.i32)) == (0, 1)
  c = (x < 3)
  assert bounds(c.where(x % 4, UOp.const(9))) == (0, 9)


def test_possible_overflow_gives_the_full_range():
  assert bounds(x % 8 + (2**31 - 1)) == (-2**31, 2**31 - 1)
  assert vmin(param(0, dtypes.f32) + 1.0) == float("-inf") and vmax(UOp.stack(1, 2)) == 2**31 - 1


def test_deep_uncached_chain_has_no_recursion_error():
  e = x % 4
  for _ in range(20_000): e = e + 1
  assert bounds(e) == (20_000, 20_003)
