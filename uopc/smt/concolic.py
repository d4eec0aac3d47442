"""Symbolic constants: a rule's Python function run on constants whose values are z3 terms, each branch explored.

A constant hole of a left side is a CONST whose arg is a ``Symbolic``: a Python int (or bool, or f32) that is a z3
term. The rule's own arithmetic on it (``c1.arg * c2.arg``, ``truncate``) builds terms; each ``bool()`` of a
symbolic condition (an ``if``, ``and``, ``min``) is a fork. ``explore`` runs the function once per path, as
CrossHair and concolic testers do: a run takes its decisions from a prefix, and at each new fork the side the path
condition allows (True first), queueing the other side's prefix when it is feasible too. Each path ends with what
the function returned (or raised) and the condition under which it does.

A value has two terms, one per theory of ``sorts`` (an Int, exact for Python's unbounded ints, and a 64-bit vector,
exact while the value's magnitude fits: ``None`` past that), so a path's condition and its right side's constants
are stated in the theory its proof uses. What a run cannot follow (``int()``, ``float()``, an index, ``math.*``,
float arithmetic) raises ``Unfollowable``: the prover then falls back to edge values for the constants.

A symbolic value is meaningful only inside its run: ``bool()`` of one outside it raises ``Unfollowable``, so a value
that escaped into the engine cannot decide anything there. Its CONST nodes are made outside the hash-consing
tables (``hole``), and the nodes made over them are dropped from the tables afterwards (``forget``).

>>> from uopc.dtype import dtypes
>>> c = hole(0, dtypes.i32)
>>> paths = explore(lambda: "positive" if c.arg > 0 else "not", [c])
>>> sorted((str(p.condition(ints=True)), p.outcome) for p in paths)
[('0 < c0', 'positive'), ('Not(0 < c0)', 'not')]
"""
from __future__ import annotations

import random
from typing import Any, Callable, NamedTuple

from uopc.dtype import DType, dtypes, f32_round
from uopc.ops import CONST, PARAM, Ops
from uopc.uop import ParamArg, UOp, existing_nodes, forget_since

from uopc.smt.ops import libm_f32
from uopc.smt.solver import Fresh, require
from uopc.smt.sorts import I32_BITS, I32_END, I32_MIN

WIDE = 64                 # the bit-vector width of a Python int's second term
FEASIBLE_MS = 2000        # one feasibility query of a fork (past it the side counts as feasible: its proof decides)
NLSAT_MS = 200            # the same query first asked of nlsat (polynomial arithmetic), which decides most at once
MAX_PATHS = 64            # paths explored per left side
MAX_INDEX_VALUES = 8      # the values a symbolic int used as an index may take on one path (each a path of its own)


class Unfollowable(Exception):
  """The rule did something with a symbolic value that the symbolic run cannot follow (the message says what)."""


class _Run:
  """One run: its decision prefix, the decisions it took and the path condition so far; ``witnesses``: the sample
  constants (substitutions) that take this path so far, which show a side of a fork feasible without a solver."""

  def __init__(self, prefix: list[bool], assumptions: list[Any], pending: list[list[bool]], witnesses: list[list[tuple[Any, Any]]],
               seen: dict[tuple[int, int], tuple[bool, Any]]) -> None:
    self.prefix, self.assumptions, self.pending, self.witnesses, self.seen = prefix, assumptions, pending, witnesses, seen
    self.taken: list[bool] = []
    self.conditions: list[Symbolic] = []

  def _feasible(self, cond: Any) -> bool:
    formulas = [*self.assumptions, *[c.i for c in self.conditions], cond]
    # nlsat first: the conditions of a rule that multiplies its constants or bounds are polynomial, which it decides
    # at once where the default solver runs out of budget; it says "unknown" on what it does not cover (a quotient)
    s = Fresh(ms=NLSAT_MS, tactic="qfnra-nlsat")
    s.add(*formulas)
    if (answer := s.check()) != "unknown": return answer == "sat"
    s = Fresh(ms=FEASIBLE_MS)
    s.add(*formulas)
    return s.check() != "unsat"   # unknown counts as feasible: the path's own proof then decides

  def value(self, v: Symbolic) -> int | None:
    """A value the int ``v`` takes on this path so far (a witness's, else a model's), None if none is found."""
    z3 = require()
    for w in self.witnesses:
      if z3.is_int_value(t := z3.simplify(z3.substitute(v.i, *w))): return t.as_long()
    s = Fresh(ms=FEASIBLE_MS)
    s.add(*self.assumptions, *[c.i for c in self.conditions])
    if s.check() != "sat": return None
    t = s.model().eval(v.i, model_completion=True)
    return t.as_long() if z3.is_int_value(t) else None

  def holds(self, c: Any, w: list[tuple[Any, Any]]) -> bool:
    """Does the condition ``c`` hold at the witness ``w``? Remembered across the runs of one ``explore`` (each run
    decides its prefix's conditions again, at the same witnesses)."""
    key = (c.get_id(), id(w))
    if (known := self.seen.get(key)) is None:
      z3 = require()
      known = self.seen[key] = (z3.is_true(z3.simplify(z3.substitute(c, *w))), c)   # c kept: its id stays its own
    return known[0]

  def decide(self, b: Symbolic) -> bool:
    z3 = require()
    c = z3.simplify(b.i)
    if z3.is_true(c): return True
    if z3.is_false(c): return False
    holds = [self.holds(c, w) for w in self.witnesses]
    k = len(self.taken)
    if k < len(self.prefix): choice = self.prefix[k]
    else:
      choice = any(holds) or self._feasible(c)
      if choice and (not all(holds) or self._feasible(z3.Not(c))): self.pending.append(self.taken + [False])
    self.witnesses = [w for w, h in zip(self.witnesses, holds) if h == choice]
    self.taken.append(choice)
    self.conditions.append(b if choice else b._not())
    return choice


_runs: list[_Run] = []   # the run in progress (at most one)


class Symbolic:
  """A Python value of kind "int", "bool" or "f32" as z3 terms: ``i`` in the Int theory, ``b`` with i32 as
  bit-vectors (an int: a 64-bit vector, or None past 63 bits of magnitude ``mag``)."""
  __slots__ = ("i", "b", "mag", "kind", "in_i32")
  __hash__ = object.__hash__   # identity: a symbolic constant is never equal to another node's arg in the tables

  def __init__(self, i: Any, b: Any, mag: int, kind: str, in_i32: bool = False) -> None:
    self.i, self.b, self.mag, self.kind, self.in_i32 = i, b, mag, kind, in_i32   # in_i32: known to be an i32 value

  def __repr__(self) -> str: return str(self.i)

  # ---- what the run cannot follow
  def _stop(self, what: str) -> Any: raise Unfollowable(f"{what} of a symbolic constant")
  # a bool has two values: int() or float() of one is a fork on it, exact; of an int or f32 one, not followed
  def __int__(self) -> int: return int(bool(self)) if self.kind == "bool" else self._stop("int()")
  def __index__(self) -> int:
    """An index: each value the path allows is a fork (``self == k``), up to ``MAX_INDEX_VALUES`` of them."""
    if self.kind == "bool": return int(bool(self))
    if self.kind != "int" or not _runs: return self._stop("an index")
    for _ in range(MAX_INDEX_VALUES):
      if (k := _runs[-1].value(self)) is None: break
      if bool(self == k): return k
    return self._stop(f"an index with more than {MAX_INDEX_VALUES} values (or none found)")
  def __float__(self) -> float: return float(bool(self)) if self.kind == "bool" else self._stop("float() (or math.*)")
  def __complex__(self) -> complex: return self._stop("complex()")
  def __round__(self, n: Any = None) -> Any: return self._stop("round()")
  def __trunc__(self) -> Any: return self._stop("math.trunc()")
  def __floor__(self) -> Any: return self._stop("math.floor()")
  def __ceil__(self) -> Any: return self._stop("math.ceil()")

  # ---- truth: a fork
  def __bool__(self) -> bool:
    if not _runs: raise Unfollowable("a symbolic constant outside its run")
    z3 = require()
    if self.kind == "bool": return _runs[-1].decide(self)
    return _runs[-1].decide(self != 0) if self.kind == "int" else _runs[-1].decide(_bool(z3.Not(z3.fpIsZero(_double(self)))))

  def _not(self) -> Symbolic:
    z3 = require()
    return Symbolic(z3.Not(self.i), None if self.b is None else z3.Not(self.b), 1, "bool")

  def __invert__(self) -> Any: return self._not() if self.kind == "bool" else self._stop("~")
  def __and__(self, o: Any) -> Any: return self._logic(o, "And")
  __rand__ = __and__
  def __or__(self, o: Any) -> Any: return self._logic(o, "Or")
  __ror__ = __or__

  def _logic(self, o: Any, how: str) -> Any:
    z3 = require()
    if self.kind != "bool" or not (type(o) is bool or (isinstance(o, Symbolic) and o.kind == "bool")): return self._stop(how)
    other = o if isinstance(o, Symbolic) else _bool(z3.BoolVal(o))
    f = getattr(z3, how)
    return Symbolic(f(self.i, other.i), None if self.b is None or other.b is None else f(self.b, other.b), 1, "bool")

  # ---- arithmetic, as Python's: on unbounded ints, and on doubles where a float is in it
  def __add__(self, o: Any) -> Any: return _arith(self, o, lambda a, b: a + b, lambda m, n: m + n, "fpAdd")
  def __radd__(self, o: Any) -> Any: return _arith(o, self, lambda a, b: a + b, lambda m, n: m + n, "fpAdd")
  def __sub__(self, o: Any) -> Any: return _arith(self, o, lambda a, b: a - b, lambda m, n: m + n, "fpSub")
  def __rsub__(self, o: Any) -> Any: return _arith(o, self, lambda a, b: a - b, lambda m, n: m + n, "fpSub")
  def __mul__(self, o: Any) -> Any: return _arith(self, o, lambda a, b: a * b, lambda m, n: m * n, "fpMul")
  def __rmul__(self, o: Any) -> Any: return _arith(o, self, lambda a, b: a * b, lambda m, n: m * n, "fpMul")
  def __floordiv__(self, o: Any) -> Any: return _divmod(self, o, False)
  def __rfloordiv__(self, o: Any) -> Any: return _divmod(o, self, False)
  def __mod__(self, o: Any) -> Any: return _divmod(self, o, True)
  def __rmod__(self, o: Any) -> Any: return _divmod(o, self, True)
  def __neg__(self) -> Any:
    if self.kind in FLOATS: return _float(require().fpNeg(_double(self)))   # -(0.0) is -0.0, not 0 - 0.0
    return _arith(0, self, lambda a, b: a - b, lambda m, n: n)
  def __truediv__(self, o: Any) -> Any: return _divide(self, o)
  def __rtruediv__(self, o: Any) -> Any: return _divide(o, self)

  @property
  def is_float(self) -> bool:
    """A Python float (an f32 constant, or a double computed from one): ``uopc.alu`` treats it as a float."""
    return self.kind in FLOATS

  def sqrt(self) -> Symbolic:
    """``math.sqrt`` of a float (a double; the f32 sqrt where this is an f32: innocuous double rounding, as ``_single_op``)."""
    z3 = require()
    return _float(z3.fpSqrt(z3.RNE(), _double(self)), (z3.fpSqrt(z3.RNE(), self.i), z3.fpSqrt(z3.RNE(), self.b)) if self.kind == "f32" else None)

  def is_finite(self) -> Symbolic:
    """``math.isfinite`` of a float."""
    z3 = require()
    x = _double(self)
    return _bool(z3.Not(z3.Or(z3.fpIsNaN(x), z3.fpIsInf(x))))

  def libm(self, name: str) -> Symbolic:
    """libm's double ``exp2`` (``math.pow(2.0, x)``), ``log2`` or ``sin`` of an f32, as the encoding has it
    (``smt.ops``: exact where C fixes the value, an uninterpreted function elsewhere, the same one the encoding's
    EXP2, LOG2 and SIN use: C and Python call one libm). Its f32 rounding is that term; the double beside it is
    one that rounds to it (exec_alu only rounds the result)."""
    z3 = require()
    if self.kind != "f32": return self._stop(f"math.{name}() of a double")
    t = libm_f32(name, self.i)
    return _float(z3.fpToFP(z3.RNE(), t, z3.Float64()), (t, libm_f32(name, self.b)))

  def convert(self, dtype: DType) -> Any:
    """``uopc.alu``'s CAST of this value to ``dtype``: Python's ``bool()``, ``float()``, ``int()`` and ``math.trunc``
    as terms (None where the cast is undefined: a float that is not finite or out of i32 after truncation)."""
    z3 = require()
    if dtype is dtypes.bool: return bool(self)
    if self.kind == "bool": return float(self) if dtype is dtypes.f32 else int(self)
    if dtype is dtypes.f32:
      if self.kind in FLOATS: return self
      if self.b is None or not self.in_i32: return self._stop("float() of a symbolic int past i32")
      # float() of an i32 is exact, and rounding it to f32 is one rounding: in each theory, from that theory's int
      real, bits = z3.ToReal(self.i), z3.Extract(I32_BITS - 1, 0, self.b)
      return _float(z3.fpToFP(z3.RNE(), real, z3.Float64()), (z3.fpToFP(z3.RNE(), real, z3.Float32()), z3.fpSignedToFP(z3.RNE(), bits, z3.Float32())))
    if self.kind == "int": return self
    x = _one_term(self) if self.kind == "f32" else _double(self)   # (an f32 as it is: its terms are smaller than a double's)
    if bool(_bool(z3.Or(z3.fpIsNaN(x), z3.fpIsInf(x)))): return None
    t = z3.fpRoundToIntegral(z3.RTZ(), x)   # math.trunc
    whole = z3.ToInt(z3.fpToReal(t))
    if not bool(_bool(z3.And(whole >= I32_MIN, whole < I32_END))): return None
    return Symbolic(whole, z3.fpToSBV(z3.RTZ(), x, z3.BitVecSort(WIDE)), I32_END, "int", True)

  def sign_bit(self) -> Symbolic:
    """``math.copysign(1.0, self) < 0`` of a float."""
    return _bool(require().fpIsNegative(_one_term(self) if self.kind == "f32" else _double(self)))
  def __pos__(self) -> Any: return _int(self)
  def __abs__(self) -> Any: return self if bool(self >= 0) else -self

  # ---- comparisons: symbolic bools
  def __lt__(self, o: Any) -> Any: return _compare(self, o, "lt")
  def __le__(self, o: Any) -> Any: return _compare(self, o, "le")
  def __gt__(self, o: Any) -> Any: return _compare(self, o, "gt")
  def __ge__(self, o: Any) -> Any: return _compare(self, o, "ge")
  def __eq__(self, o: Any) -> Any: return _compare(self, o, "eq")
  def __ne__(self, o: Any) -> Any: return _compare(self, o, "ne")

  # ---- the engine's hooks (uopc.dtype.truncate, uopc.uop's literal check) and the encoder's
  def __uopc_truncate__(self, dtype: DType) -> Symbolic:
    """``truncate(dtype, self)``: an i32 wraps, a bool tests truth; an f32 stays itself (ints to f32: unfollowed)."""
    z3 = require()
    if dtype is dtypes.bool:
      if self.kind in FLOATS: return _bool(z3.Not(z3.fpIsZero(_double(self))))   # -0.0 is false, NaN true
      return self if self.kind == "bool" else _bool(self.i != 0, None if self.b is None else self.b != 0)
    if dtype is dtypes.f32:
      if self.kind == "f64":   # f32_round: to nearest even (the f32 op's own result where the double came from one: _single_op)
        if self.b is not None: return Symbolic(self.b[0], self.b[1], 0, "f32")
        t = z3.fpToFP(z3.RNE(), self.i, z3.Float32())
        return Symbolic(t, t, 0, "f32")
      return self if self.kind == "f32" else self._stop("a conversion to f32")
    v = _int(self)
    if v.in_i32 or v.mag < I32_END: return v
    b = None if v.b is None else z3.SignExt(WIDE - I32_BITS, z3.Extract(I32_BITS - 1, 0, v.b))
    return Symbolic((v.i - I32_MIN) % 2**32 + I32_MIN, b, I32_END, "int", True)

  def __uopc_fits__(self, dtype: DType) -> bool:
    """Is this a value of ``dtype`` as it is (``uopc.uop._fits``)? A fork where it depends on the value."""
    if dtype is dtypes.f32: return self.kind in ("f32", "int")
    if dtype is dtypes.i32: return self.kind == "int" and bool((self >= I32_MIN) & (self < I32_END))
    return self.kind == "bool" or (self.kind == "int" and bool((self == 0) | (self == 1)))

  def smt_term(self, dtype: DType, ints: bool) -> Any:
    """This value as a CONST of ``dtype`` in the encoding (i32 as Ints with ``ints``, else as a 32-bit vector)."""
    z3 = require()
    if dtype is dtypes.i32 and self.kind == "int":
      if ints: return self.i
      if self.b is None: raise Unfollowable("a constant past 64 bits has no bit-vector term")
      return z3.simplify(z3.Extract(I32_BITS - 1, 0, self.b))
    if dtype.name == self.kind:
      if not ints and self.b is None: raise Unfollowable("a value with no bit-vector term")
      return self.i if ints else self.b   # an f32's two terms differ only where it came from an int (float())
    raise Unfollowable(f"a {self.kind} symbolic constant as an {dtype.name} CONST")


_SAME = object()


def _bool(i: Any, b: Any = _SAME) -> Symbolic:
  """A bool-kind value: its Int-theory term ``i``, and ``b`` with bit-vectors (the same term, where no int is in it)."""
  return Symbolic(i, i if b is _SAME else b, 1, "bool")


def _int(o: Any) -> Symbolic:
  """``o`` as an int-kind value (a bool is 0 or 1, as in Python); floats are not followed."""
  z3 = require()
  if isinstance(o, Symbolic):
    if o.kind == "int": return o
    if o.kind == "bool":
      return Symbolic(z3.If(o.i, z3.IntVal(1), z3.IntVal(0)),
                      None if o.b is None else z3.If(o.b, z3.BitVecVal(1, WIDE), z3.BitVecVal(0, WIDE)), 1, "int")
    raise Unfollowable("arithmetic on a symbolic f32 constant")
  if type(o) is bool: o = int(o)
  if type(o) is not int: raise Unfollowable(f"arithmetic of a symbolic int with a {type(o).__name__}")
  return Symbolic(z3.IntVal(o), z3.BitVecVal(o, WIDE) if abs(o) < 2**(WIDE - 1) else None, abs(o), "int")


FLOATS = ("f32", "f64")   # "f64": a double computed from f32 constants, as Python computes it


def _floaty(o: Any) -> bool: return type(o) is float or (isinstance(o, Symbolic) and o.kind in FLOATS)


def _float(t: Any, single: tuple[Any, Any] | None = None) -> Symbolic:
  """A double ``t``; ``single``: what rounding it to f32 gives (``_single_op``), in each theory (Ints, bit-vectors)."""
  return Symbolic(t, single, 0, "f64")


def _single_op(fp: str, a: Any, b: Any) -> Any:
  """The f32 op ``fp`` on two f32 values, where ``a`` and ``b`` are (else None). Python computes it in double and
  ``f32_round`` rounds that: for +, -, *, / of two f32 values this double rounding is innocuous (53 >= 2*24 + 2 bits,
  Figueroa 1995), so the result is the f32 op's, a term z3 decides at once where the double one times out."""
  z3 = require()
  x, y = _single(a), _single(b)
  if x is None or y is None: return None
  f = getattr(z3, fp)
  return f(z3.RNE(), x, y), f(z3.RNE(), x, y)


def _one_term(o: Symbolic) -> Any:
  """An f32's term, the same in both theories (an f32 made from an int has one per theory: not followed further)."""
  if o.b is None or not o.i.eq(o.b): raise Unfollowable("arithmetic on an f32 made from a symbolic int")
  return o.i


def _single(o: Any) -> Any:
  """``o`` as a Float32 term, if it is an f32 value (a symbolic f32, or a Python number f32 holds exactly), else None."""
  z3 = require()
  if isinstance(o, Symbolic): return _one_term(o) if o.kind == "f32" else None
  if type(o) is float and o != o: return z3.fpNaN(z3.Float32())
  return z3.FPVal(o, z3.Float32()) if type(o) in (float, int) and abs(o) <= 2**24 and float(f32_round(float(o))) == o else None


def _double(o: Any) -> Any:
  """``o`` as the Float64 term of the double Python holds (an f32 widens exactly; an int exactly below 2**53)."""
  z3 = require()
  if isinstance(o, Symbolic):
    if o.kind == "f64": return o.i
    if o.kind == "f32": return z3.fpToFP(z3.RNE(), _one_term(o), z3.Float64())
    raise Unfollowable(f"float arithmetic with a symbolic {o.kind} constant")
  if type(o) is float or (type(o) is int and abs(o) <= 2**53): return z3.FPVal(float(o), z3.Float64())
  raise Unfollowable(f"float arithmetic with a {type(o).__name__}")


def _divide(a: Any, b: Any) -> Symbolic:
  """Python's ``/`` of floats (ZeroDivisionError on the path where the divisor is zero)."""
  z3 = require()
  if not (_floaty(a) or _floaty(b)): raise Unfollowable("/ of a symbolic int")
  y = _double(b)
  if bool(_bool(z3.fpIsZero(y))): raise ZeroDivisionError("float division by zero")
  return _float(z3.fpDiv(z3.RNE(), _double(a), y), _single_op("fpDiv", a, b))


def _arith(a: Any, b: Any, f: Callable[[Any, Any], Any], mag: Callable[[int, int], int], fp: str = "") -> Symbolic:
  if _floaty(a) or _floaty(b):   # Python's double arithmetic (z3's ``fp``), round to nearest even
    if not fp: raise Unfollowable("this arithmetic on a float")
    z3 = require()
    return _float(getattr(z3, fp)(z3.RNE(), _double(a), _double(b)), _single_op(fp, a, b))
  x, y = _int(a), _int(b)
  m = mag(x.mag, y.mag)
  return Symbolic(f(x.i, y.i), f(x.b, y.b) if x.b is not None and y.b is not None and m < 2**(WIDE - 1) else None, m, "int")


def _divmod(a: Any, b: Any, mod: bool) -> Symbolic:
  """Python's floor ``//`` and ``%`` (ZeroDivisionError on the path where the divisor is 0)."""
  z3 = require()
  x, y = _int(a), _int(b)
  if bool(y == 0): raise ZeroDivisionError("integer division or modulo by zero")
  q = z3.If(y.i > 0, x.i / y.i, (-x.i) / (-y.i))   # Int / is Euclidean: floor division for a positive divisor
  i = x.i - y.i * q if mod else q
  bv = None
  if x.b is not None and y.b is not None:
    if mod: bv = x.b % y.b   # z3py's % on bit-vectors is bvsmod: Python's sign
    else:
      q, r = x.b / y.b, z3.SRem(x.b, y.b)
      bv = z3.If(z3.And(r != 0, (r < 0) != (y.b < 0)), q - 1, q)
  return Symbolic(i, bv, y.mag if mod else x.mag, "int")


_COMPARE = {"lt": lambda a, b: a < b, "le": lambda a, b: a <= b, "gt": lambda a, b: a > b, "ge": lambda a, b: a >= b,
            "eq": lambda a, b: a == b, "ne": lambda a, b: a != b}
_FP_COMPARE = {"lt": "fpLT", "le": "fpLEQ", "gt": "fpGT", "ge": "fpGEQ", "eq": "fpEQ", "ne": "fpNEQ"}


def _compare(a: Any, b: Any, how: str) -> Any:
  z3 = require()
  kinds = {v.kind if isinstance(v, Symbolic) else type(v).__name__ for v in (a, b)}
  if kinds & {"f32", "f64", "float"}:
    if not kinds <= {"f32", "f64", "float", "int"}: return NotImplemented
    if any(isinstance(v, Symbolic) and v.kind not in FLOATS for v in (a, b)): raise Unfollowable("a comparison of a symbolic f32 with another kind")
    if any(type(v) is int and abs(v) > 2**53 for v in (a, b)): raise Unfollowable("a comparison of a symbolic f32 constant with a large int")
    # as Python compares a float with an int or a float: exactly, here in double precision (an f32 widens exactly)
    x, y = _single(a), _single(b)   # two f32 values compare as f32s (widening is exact), a term z3 decides faster
    if x is None or y is None: x, y = map(_double, (a, b))
    t = getattr(z3, _FP_COMPARE[how])(x, y)
    return _bool(t)
  if how in ("eq", "ne") and kinds <= {"bool"}:   # bools compare as bools (True == 1 too, below)
    x, y = (v if isinstance(v, Symbolic) else _bool(z3.BoolVal(v)) for v in (a, b))
    return _bool(_COMPARE[how](x.i, y.i), None if x.b is None or y.b is None else _COMPARE[how](x.b, y.b))
  if not kinds <= {"int", "bool"}: return NotImplemented   # == None, == a UOp: not equal, as Python says
  x, y = _int(a), _int(b)
  return _bool(_COMPARE[how](x.i, y.i), None if x.b is None or y.b is None else _COMPARE[how](x.b, y.b))


def _outside(op: Ops, dtype: DType, arg: Any, bounds: Any = None) -> UOp:
  """A leaf node made outside the hash-consing tables (no other node is ever it)."""
  u = object.__new__(UOp)
  u.op, u.dtype, u.src, u.arg, u.shape, u._bounds = op, dtype, (), arg, (), bounds
  return u


def hole(k: int, dtype: DType, name: str | None = None) -> UOp:
  """The CONST of constant hole ``k`` (named ``c<k>``, or ``name``), made outside the hash-consing tables."""
  z3 = require()
  name = name or f"c{k}"
  if dtype is dtypes.i32:
    v = Symbolic(z3.Int(name), z3.SignExt(WIDE - I32_BITS, z3.BitVec(name, I32_BITS)), I32_END, "int", True)
  elif dtype is dtypes.bool: v = _bool(z3.Bool(name))
  else: v = Symbolic(z3.FP(name, z3.Float32()), z3.FP(name, z3.Float32()), 0, "f32")
  return _outside(CONST, dtype, v)


def bounded_leaf(slot: int) -> tuple[UOp, UOp, UOp]:
  """An i32 PARAM (``p<slot>``, outside the tables) whose bounds (``uopc.bounds``) are symbolic, ``lo<slot>`` and
  ``hi<slot>``, and the two holes that carry them: a leaf for every leaf a rule that reads bounds may meet.
  ``leaf_constraints`` says what relates them."""
  lo, hi = hole(0, dtypes.i32, f"lo{slot}"), hole(0, dtypes.i32, f"hi{slot}")
  return _outside(PARAM, dtypes.i32, ParamArg(slot, dtypes.i32, (), None), (lo.arg, hi.arg)), lo, hi


def leaf_constraints(leaf: UOp, lo: UOp, hi: UOp, value: Any, ints: bool) -> list[Any]:
  """lo <= hi, and lo <= the leaf's ``value`` (its term in the theory ``ints``) <= hi."""
  z3 = require()
  if ints: return [lo.arg.i <= hi.arg.i, lo.arg.i <= value, value <= hi.arg.i]
  wide = z3.SignExt(WIDE - I32_BITS, value)
  return [lo.arg.b <= hi.arg.b, lo.arg.b <= wide, wide <= hi.arg.b]


def hole_range(h: UOp, ints: bool) -> Any:
  """What a hole's variable ranges over beyond its sort: an i32 Int's range."""
  z3 = require()
  if ints and h.dtype is dtypes.i32: return z3.And(h.arg.i >= I32_MIN, h.arg.i < I32_END)
  return z3.BoolVal(True)


SAMPLES = {dtypes.i32: (0, 1, -1, 2, -2, 3, 4, 7, -7, 100, 65536, I32_MIN, I32_END - 1),
           dtypes.bool: (False, True), dtypes.f32: (0.0, -0.0, 1.0, -1.0, 2.5, float("inf"), float("-inf"), float("nan"))}
MAX_WITNESSES = 16


def witnesses(holes: list[UOp]) -> list[list[tuple[Any, Any]]]:
  """Sample values of the holes (their Int-theory variables), as substitutions: edge values, combined at random
  (seeded, so every run explores alike) up to ``MAX_WITNESSES``."""
  z3 = require()
  rng = random.Random(0)
  def value(h: UOp, v: Any) -> Any:
    if h.dtype is dtypes.i32: return z3.IntVal(v)
    return z3.BoolVal(v) if h.dtype is dtypes.bool else z3.FPVal(v, z3.Float32())
  choices = [[(h.arg.i, value(h, v)) for v in SAMPLES[h.dtype]] for h in holes]
  if not choices: return [[]]
  out = [[c[k % len(c)] for c in choices] for k in range(max(map(len, choices)))]   # each value of each hole at least once
  out += [[rng.choice(c) for c in choices] for _ in range(MAX_WITNESSES - len(out))]
  return out


class Path(NamedTuple):
  """One path of a run: its decisions' conditions and what the function returned (or the exception it raised)."""
  conditions: list[Symbolic]
  outcome: Any
  raised: BaseException | None
  witness: list[tuple[Any, Any]] | None = None   # sample values of the holes that take this path (Int theory), if one did

  def condition(self, ints: bool) -> Any:
    """The path condition in one theory (None in the bit-vector one if a condition has no term there)."""
    z3 = require()
    terms = [c.i if ints else c.b for c in self.conditions]
    if any(t is None for t in terms): return None
    return z3.And(terms) if len(terms) > 1 else terms[0] if terms else z3.BoolVal(True)


def explore(fn: Callable[[], Any], holes: list[UOp], max_paths: int = MAX_PATHS, assumptions: tuple[Any, ...] = ()) -> list[Path]:
  """Every path of ``fn()`` over the symbolic constants ``holes`` (at most ``max_paths``; ``Unfollowable`` past
  that, or where a run cannot follow a value); ``assumptions``: what else the holes satisfy (Int theory)."""
  z3 = require()
  every = [*[hole_range(h, True) for h in holes], *assumptions]
  samples = [w for w in witnesses(holes) if all(z3.is_true(z3.simplify(z3.substitute(a, *w))) for a in every if w)]
  pending: list[list[bool]] = [[]]
  paths: list[Path] = []
  seen: dict[tuple[int, int], tuple[bool, Any]] = {}   # (condition, witness) -> does it hold there (_Run.holds)
  while pending:
    if len(paths) == max_paths: raise Unfollowable(f"more than {max_paths} paths")
    run = _Run(pending.pop(), every, pending, samples, seen)
    _runs.append(run)
    try: out, raised = fn(), None
    except Unfollowable: raise
    except Exception as e: out, raised = None, e
    finally: _runs.pop()
    paths.append(Path(run.conditions, out, raised, run.witnesses[0] if run.witnesses else None))
  return paths


def is_symbolic(u: UOp) -> bool:
  """Does ``u`` hold a symbolic constant?"""
  return any(n.op is CONST and isinstance(n.arg, Symbolic) for n in u.toposort())


def is_symbolic_leaf(u: UOp) -> bool:
  """A symbolic constant, or a PARAM made outside the tables (``bounded_leaf``, and its concrete copies)?"""
  return (u.op is CONST and isinstance(u.arg, Symbolic)) or (u.op is PARAM and existing_nodes(PARAM, u.dtype, u.arg)(()) is not u)


def bounded_leaves(u: UOp) -> dict[UOp, tuple[UOp, UOp]]:
  """``u``'s bounded leaves (``bounded_leaf``), each with the holes of its bounds."""
  return {n: (_outside(CONST, dtypes.i32, n._bounds[0]), _outside(CONST, dtypes.i32, n._bounds[1])) for n in u.toposort()
          if n.op is PARAM and type(n._bounds) is tuple and isinstance(n._bounds[0], Symbolic)}


def concrete_leaf(leaf: UOp, lo: int, hi: int) -> UOp:
  """A copy of a bounded leaf whose bounds are ``lo`` and ``hi`` (outside the tables too)."""
  return _outside(PARAM, leaf.dtype, leaf.arg, (lo, hi))


def forget(mark: int) -> None:
  """Drop every node made since ``mark`` (``uop.log_mark()``) over a symbolic constant or a leaf made outside the
  tables from the hash-consing tables."""
  forget_since(mark, is_symbolic_leaf)
