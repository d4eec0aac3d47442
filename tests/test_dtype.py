"""dtypes: wrapping, f32 rounding (ties to even, overflow to inf), NaN canonicalization."""
import math
import struct

from hypothesis import given, strategies as st

from uopc.dtype import dtypes, f32_round, same_value, truncate, value_key


def test_limits_and_names():
  assert (dtypes.min(dtypes.i32), dtypes.max(dtypes.i32)) == (-2**31, 2**31 - 1)
  assert (dtypes.min(dtypes.f32), dtypes.max(dtypes.f32)) == (-math.inf, math.inf)
  assert (dtypes.min(dtypes.bool), dtypes.max(dtypes.bool)) == (False, True)
  assert dtypes.from_name("i32") is dtypes.i32 and dtypes.from_name("f64") is None and repr(dtypes.f32) == "dtypes.f32"


def test_truncate():
  assert truncate(dtypes.i32, 2**31) == -2**31 and truncate(dtypes.i32, -2**31 - 1) == 2**31 - 1
  assert truncate(dtypes.i32, True) == 1 and type(truncate(dtypes.i32, True)) is int
  assert truncate(dtypes.bool, -3) is True and truncate(dtypes.f32, 1) == 1.0
  assert truncate(dtypes.f32, 1e39) == math.inf and truncate(dtypes.f32, -1e39) == -math.inf
  assert truncate(dtypes.f32, 16777217.0) == 16777216.0                   # ties to even
  assert math.copysign(1, truncate(dtypes.f32, -0.0)) == -1.0
  assert truncate(dtypes.f32, -math.nan) is math.nan


@given(st.floats(allow_nan=False, width=64))
def test_f32_round_matches_a_struct_round_trip(v):
  try: expected = struct.unpack("<f", struct.pack("<f", v))[0]
  except OverflowError: expected = math.copysign(math.inf, v)
  assert struct.pack("<d", f32_round(v)) == struct.pack("<d", expected)


@given(st.integers())
def test_i32_wraps_modulo_2_32(v):
  r = truncate(dtypes.i32, v)
  assert -2**31 <= r < 2**31 and (r - v) % 2**32 == 0


@given(st.floats(width=32) | st.integers(-2**31, 2**31 - 1) | st.booleans(), st.floats(width=32) | st.integers(-2**31, 2**31 - 1) | st.booleans())
def test_same_value_is_bit_exact_with_one_nan(a, b):
  """The one value equality (constants, results, args): same type, same bits, every NaN one value."""
  bits = lambda v: ("nan" if v != v else struct.pack("<d", v)) if type(v) is float else v
  expected = type(a) is type(b) and bits(a) == bits(b)
  assert same_value(a, b) == expected == (value_key(a) == value_key(b))
  assert same_value([a, (b,)], [a, (b,)]) and same_value([a], (a,)) is False   # lists and tuples element-wise, kinds apart
