"""Each ALU op as data: ``ALU_TERMS[op](args, operand dtype, result dtype) -> Elem(value, defined)``.

Every function mirrors one case of ``uopc/alu.py`` (``exec_alu``) and of the C runtime (``uopc/backend/runtime.py``):

- i32 wraps (bit-vector arithmetic, or an Int's sum and product brought back into range: ``sorts.wrap``; each op
  follows its operands' sort), compares signed; FLOORDIV and FLOORMOD are *floor* division and modulo
  (Python's ``//`` and ``%``, what exec_alu computes and ``uopc_floordiv_i32`` emulates on C's truncating ``/``);
- f32 is IEEE single with round-to-nearest-even: the C runtime computes ``+ * 1/x sqrt`` in double and rounds once to
  float, which for these operations is exactly the single-precision operation (53 >= 2*24 + 2 bits); MAX is IEEE
  754-2019 ``maximum`` (NaN if either is NaN, +0.0 above -0.0); comparisons are IEEE (NaN unordered, -0.0 == 0.0);
- bool: ADD is OR, MUL is AND, MAX is OR, False < True (``truncate`` of the integer result);
- CAST between every pair: to bool is ``!= 0`` (NaN is true), bool to a number is 0 or 1, i32 to f32 rounds to
  nearest even, f32 to i32 truncates toward zero.

``defined`` is False exactly where exec_alu returns None and the C program fails (``uopc_fail``): x // 0, x % 0,
INT_MIN // -1, and an f32 -> i32 cast of NaN, an infinity or a value whose truncation is outside i32. Where it is
False the value is meaningless (0 where a choice is needed).

EXP2, LOG2 and SIN are libm's double functions rounded to f32: no SMT theory has them, so each is exact on the
inputs its C helper or C's Annex F fixes (NaN, infinities, zeros, the domain's edge) and an uninterpreted function
elsewhere (``UNINTERPRETED``): a proof over it holds for every function, so for libm's; a counterexample that needs
its value is not one until replayed.
"""
from __future__ import annotations

from functools import lru_cache
from typing import Any, Callable, NamedTuple

from uopc.dtype import DType, dtypes
from uopc.ops import ADD, CAST, CMPLT, CMPNE, EXP2, FLOORDIV, FLOORMOD, LOG2, MAX, MUL, RECIP, SIN, SQRT, WHERE, Ops

from uopc.smt.solver import require
from uopc.smt.sorts import I32_BITS, i32_val, sort_of, wrap

I32_MIN = -2**31


class Elem(NamedTuple):
  """One element of a node: its value and the condition under which it is defined (both z3 terms)."""
  value: Any
  defined: Any


@lru_cache(maxsize=None)
def _rne() -> Any: return require().RNE()


@lru_cache(maxsize=None)
def _true() -> Any: return require().BoolVal(True)


def _f32(v: float) -> Any:
  z3 = require()
  return z3.FPVal(v, z3.Float32())


def _add(a: Any, b: Any, dtype: DType) -> Any:
  z3 = require()
  if dtype is dtypes.bool: return z3.Or(a, b)
  return wrap(a + b) if dtype is dtypes.i32 else z3.fpAdd(_rne(), a, b)


def _mul(a: Any, b: Any, dtype: DType) -> Any:
  z3 = require()
  if dtype is dtypes.bool: return z3.And(a, b)
  return wrap(a * b) if dtype is dtypes.i32 else z3.fpMul(_rne(), a, b)


def _max(a: Any, b: Any, dtype: DType) -> Any:
  z3 = require()
  if dtype is dtypes.bool: return z3.Or(a, b)
  if dtype is dtypes.i32: return z3.If(b > a, b, a)   # z3's > on bit-vectors is signed
  return z3.If(z3.Or(z3.fpIsNaN(a), z3.fpIsNaN(b)), z3.fpNaN(z3.Float32()),
               z3.If(z3.fpEQ(a, b), z3.If(z3.fpIsNegative(a), b, a), z3.If(z3.fpGT(b, a), b, a)))


def _cmplt(a: Any, b: Any, dtype: DType) -> Any:
  z3 = require()
  if dtype is dtypes.bool: return z3.And(z3.Not(a), b)
  return a < b if dtype is dtypes.i32 else z3.fpLT(a, b)


def _cmpne(a: Any, b: Any, dtype: DType) -> Any:
  z3 = require()
  if dtype is dtypes.f32: return z3.Not(z3.fpEQ(a, b))   # NaN != NaN, and -0.0 == 0.0
  return a != b


def combine(op: Ops, a: Any, b: Any, dtype: DType) -> Any:
  """ADD, MUL or MAX of two values of ``dtype`` (always defined): REDUCE folds with it too."""
  return _BINARY_VALUES[op](a, b, dtype)


_BINARY_VALUES: dict[Ops, Callable[[Any, Any, DType], Any]] = {ADD: _add, MUL: _mul, MAX: _max}


def _floordiv(a: Any, b: Any) -> Elem:
  z3 = require()
  zero, minus_one = i32_val(0, a), i32_val(-1, a)
  defined = z3.And(b != zero, z3.Not(z3.And(a == i32_val(I32_MIN, a), b == minus_one)))
  # Int division is Euclidean (the remainder >= 0): floor division for b > 0, and a // b == (-a) // (-b) for b < 0
  if z3.is_int(a): return Elem(z3.If(b > zero, a / b, (-a) / (-b)), defined)
  q, r = a / b, z3.SRem(a, b)   # C's / and %: truncation toward zero
  return Elem(z3.If(z3.And(r != zero, (r < zero) != (b < zero)), q - 1, q), defined)


def _floormod(a: Any, b: Any) -> Elem:
  z3 = require()
  zero = i32_val(0, a)
  if z3.is_int(a): return Elem(a - b * _floordiv(a, b).value, b != zero)   # a - b * (a // b): what z3 relates to the division
  return Elem(a % b, b != zero)   # z3py % is bvsmod: the sign of the divisor, INT_MIN % -1 == 0


def _where(c: Any, a: Any, b: Any) -> Any: return require().If(c, a, b)


def _recip(a: Any) -> Any:
  z3 = require()
  return z3.fpDiv(_rne(), _f32(1.0), a)   # 1/(+-0) is +-inf, as the helper's copysign(INFINITY, d)


def _sqrt(a: Any) -> Any: return require().fpSqrt(_rne(), a)   # sqrt(-0.0) is -0.0, of a negative NaN


def _libm(name: str) -> Any:
  z3 = require()
  return z3.Function(f"{name}_f32", z3.Float32(), z3.Float32())


def _exp2(a: Any) -> Any:
  z3 = require()
  F = z3.Float32()
  return z3.If(z3.fpIsNaN(a), z3.fpNaN(F), z3.If(z3.fpIsZero(a), _f32(1.0),                       # pow(2, +-0) is 1
               z3.If(z3.fpIsInf(a), z3.If(z3.fpIsPositive(a), z3.fpPlusInfinity(F), z3.fpPlusZero(F)),   # pow(2, -inf) = +0
                     _libm("exp2")(a))))


def _log2(a: Any) -> Any:
  z3 = require()
  F = z3.Float32()
  return z3.If(z3.fpIsZero(a), z3.fpMinusInfinity(F), z3.If(z3.Not(z3.fpGT(a, z3.fpPlusZero(F))), z3.fpNaN(F),   # d == 0, !(d > 0)
               z3.If(z3.fpIsInf(a), z3.fpPlusInfinity(F), z3.If(z3.fpEQ(a, _f32(1.0)), z3.fpPlusZero(F), _libm("log2")(a)))))


def _sin(a: Any) -> Any:
  z3 = require()
  F = z3.Float32()
  return z3.If(z3.Or(z3.fpIsNaN(a), z3.fpIsInf(a)), z3.fpNaN(F), z3.If(z3.fpIsZero(a), a, _libm("sin")(a)))   # sin(+-0) = +-0


def cast(a: Any, src: DType, dtype: DType, like: Any = None) -> Elem:
  """CAST of one value from ``src`` to ``dtype``, and where it is defined; an i32 result has the sort of ``like`` (an
  i32 term of the encoding: a bit-vector or an Int), a bit-vector without one."""
  z3 = require()
  yes = _true()
  if src is dtype: return Elem(a, yes)
  if dtype is dtypes.bool:
    return Elem(z3.Not(z3.fpIsZero(a)) if src is dtypes.f32 else a != i32_val(0, a), yes)
  if src is dtypes.bool:
    one, zero = (i32_val(1, like), i32_val(0, like)) if dtype is dtypes.i32 else (_f32(1.0), _f32(0.0))
    return Elem(z3.If(a, one, zero), yes)
  if dtype is dtypes.f32: return Elem(z3.fpSignedToFP(_rne(), z3.Int2BV(a, I32_BITS) if z3.is_int(a) else a, z3.Float32()), yes)
  # f32 -> i32: C's (int32_t)d for -2**31 - 1 < d < 2**31 (for an f32, -2**31 <= d < 2**31), else the runtime traps
  ok = z3.And(z3.fpGEQ(a, _f32(float(I32_MIN))), z3.fpLT(a, _f32(2.0**31)))
  bits = z3.If(ok, z3.fpToSBV(z3.RTZ(), a, sort_of(dtypes.i32)), z3.BitVecVal(0, I32_BITS))
  return Elem(z3.BV2Int(bits, is_signed=True) if z3.is_int(like) else bits, ok)


def alu(op: Ops, args: list[Any], src: DType, dtype: DType, like: Any = None) -> Elem:
  """The value of ALU ``op`` (result ``dtype``) on one element of each operand (``src``: the operands' dtype; a
  WHERE's is its branches'), and the op's own definedness (not its operands'); ``like``: an i32 term of the encoding,
  whose sort a CAST to i32 makes (a bit-vector without one)."""
  yes = _true()
  if op in _BINARY_VALUES: return Elem(_BINARY_VALUES[op](args[0], args[1], dtype), yes)
  if op is CMPLT: return Elem(_cmplt(args[0], args[1], src), yes)
  if op is CMPNE: return Elem(_cmpne(args[0], args[1], src), yes)
  if op is FLOORDIV: return _floordiv(args[0], args[1])
  if op is FLOORMOD: return _floormod(args[0], args[1])
  if op is WHERE: return Elem(_where(*args), yes)
  if op is CAST: return cast(args[0], src, dtype, like)
  return Elem(_UNARY[op](args[0]), yes)


_UNARY: dict[Ops, Callable[[Any], Any]] = {RECIP: _recip, SQRT: _sqrt, EXP2: _exp2, LOG2: _log2, SIN: _sin}


def libm_f32(name: str, a: Any) -> Any:
  """libm's ``exp2``, ``log2`` or ``sin`` of the f32 term ``a``, rounded to f32, as EXP2, LOG2 and SIN encode it."""
  return {"exp2": _exp2, "log2": _log2, "sin": _sin}[name](a)

ENCODED_ALU = frozenset(_BINARY_VALUES) | {CMPLT, CMPNE, FLOORDIV, FLOORMOD, WHERE, CAST} | frozenset(_UNARY)

UNINTERPRETED: dict[Ops, str] = {
  EXP2: "libm's pow(2, x) rounded to f32 has no SMT theory: exact at NaN, +-0 and +-inf, an uninterpreted function elsewhere",
  LOG2: "libm's log2 rounded to f32 has no SMT theory: exact at x <= 0, NaN, 1 and +inf, an uninterpreted function elsewhere",
  SIN: "libm's sin rounded to f32 has no SMT theory: exact at NaN, +-inf and +-0, an uninterpreted function elsewhere",
}
"""The ops encoded only in part, and why: their values outside the fixed points are not known to the solver."""
