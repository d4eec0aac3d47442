"""tinygrad nodes as z3 terms, exactly as ``values.value_of`` evaluates them (tinygrad's ``exec_alu`` over Python values).

Each node is a ``Term``: its value and when it is defined (not ``Invalid``, tinygrad's undefined value). Values follow
Python's, as tinygrad's Python ALU computes them, then truncates to the node's dtype (``tinygrad.dtype.truncate``):

- ints are Python's ints, held in ``BITS``-bit vectors: ``weakint`` (index arithmetic) is unbounded (no truncation;
  each op's result must fit, which ``Encoder.exact`` states), a fixed-width int is Python's result wrapped (``ctypes``'
  ``c_int32(x).value``: the low bits, sign-extended); ``FLOORDIV``/``FLOORMOD`` floor division, ``CDIV``/``CMOD`` C's,
  both 0 for a divisor 0 (``tinygrad.helpers``); ``SHL``/``SHR`` Python's shifts (a negative count raises);
  ``AND``/``OR``/``XOR`` two's complement.
- ``bool``: Python's arithmetic on ``False``/``True`` (``True + True`` is 2), then ``bool``.
- floats: computed in double precision as Python does, then rounded to the dtype (``float32``: ``c_float``);
  ``weakfloat`` and ``float64`` are doubles. ``CMPNE``/``CMPEQ`` of two NaNs: equal where one of them is a
  constant's arg (tinygrad's ``ConstFloat``, whose ``==`` makes NaN equal NaN), unequal otherwise, as ``exec_alu``
  has it. ``EXP2``, ``LOG2``, ``SIN`` and a float ``POW`` are uninterpreted functions of the double (``math``'s are
  not correctly rounded): a proof over them holds for every such function, a difference found needs tinygrad's
  evaluation to confirm it.
- ``CAST`` converts as tinygrad's constant folding does (``DType.const``): ``int(x)`` (toward zero; inf or NaN
  raises) wrapped to a fixed width, ``float(x)`` rounded to the dtype, ``bool(x)``.
- a variable (``UOp.variable``) ranges over its bounds (and ``multiple_of``); a ``RANGE`` of a constant end over
  ``[0, end)``, named ``range<axis>``.

``fails`` says when tinygrad's evaluation raises instead (a negative shift count, ``int`` of an infinity); ``exact``
when the encoding is exact (a prover checks it is implied by the bounds before calling two nodes equal).

>>> from tinygrad.uop.ops import UOp
>>> z3 = require()
>>> a = UOp.variable("a", 0, 10)
>>> enc = Encoder()
>>> t = enc.encode(a * 2 + 1)
>>> s = z3.Solver(); s.add(*enc.bounds, t.value == 21); s.check(), s.model()[enc.variables["a"]]
(sat, 10)
"""
from __future__ import annotations

from typing import Any, NamedTuple

from tinygrad.dtype import DType, InvalidType, dtypes
from tinygrad.uop.ops import Ops, UOp

from uopc.smt.solver import require

BITS = 72   # the widest int bit-vector: any int64 or uint64 value fits, signed (``width`` picks a narrower one where it can)
_BINARY_FLOAT = {Ops.ADD: "fpAdd", Ops.SUB: "fpSub", Ops.MUL: "fpMul"}
UNINTERPRETED = frozenset({Ops.EXP2, Ops.LOG2, Ops.SIN, Ops.POW})
"""The float ops whose values are uninterpreted functions of the double."""


NAMED = frozenset(op for op in Ops if op.name in ("BUFFER", "PARAM", "DEFINE_VAR"))
"""The ops of a variable node (``UOp.variable`` is a ``BUFFER``, ``param=True`` a ``PARAM``; older tinygrads' ``DEFINE_VAR``)."""


def width(*us: UOp) -> int:
  """The bit-vectors' width for these graphs: room for their fixed-width dtypes, constants and bounds (and a margin);
  a ``weakint`` result that would not fit is caught by ``exact``. Narrow vectors solve fast (division above all)."""
  need = 16
  for u in us:
    for n in u.toposort():
      if dtypes.is_int(n.dtype) and n.dtype != dtypes.weakint: need = max(need, n.dtype.itemsize * 8 + 2)
      if n.op is Ops.CONST and isinstance(n.arg, int): need = max(need, abs(int(n.arg)).bit_length() + 6)
      if variable_name(n) is not None and n.op is not Ops.RANGE and dtypes.is_int(n.dtype):
        need = max(need, abs(int(n.vmin)).bit_length() + 6, abs(int(n.vmax)).bit_length() + 6)
  return min(need, BITS)


class NotEncodable(ValueError):
  """A node this encoding has no term for (its op, its dtype, or a shift by an unbounded count)."""


class Term(NamedTuple):
  """A node's z3 value (Bool for ``bool``, Int for ints, FP of its dtype's format for floats), when it is defined (a
  Bool: not ``Invalid``), and, for a float, when its Python value is a ``ConstFloat`` (a Bool)."""
  value: Any
  defined: Any
  constfloat: Any


def kind(dt: DType) -> str:
  """``bool``, ``int`` or ``float``: how a dtype's values are represented; ``NotEncodable`` for the others."""
  if dt == dtypes.bool: return "bool"
  if dtypes.is_int(dt): return "int"
  if dt in (dtypes.float32, dtypes.float64, dtypes.weakfloat): return "float"
  raise NotEncodable(f"no encoding of dtype {dt.name}")


def variable_name(u: UOp) -> str | None:
  """The binding's key of a variable node (``UOp.variable``'s name, ``range<axis>`` for a ``RANGE``), None if not one."""
  if u.op is Ops.RANGE: return f"range{u.arg[0]}"
  if u.op in NAMED and isinstance(name := getattr(u.arg, "name", None), str): return name
  return None


class Encoder:
  """Encodes tinygrad nodes into one z3 context, sharing variables by name.

  ``variables`` (name -> z3 constant), ``nodes`` (name -> the variable node), ``bounds`` (what the variables range
  over), ``exact`` (conditions under which the terms are exact), ``fails`` (conditions under which tinygrad's
  evaluation raises), ``uninterpreted`` (the ops encoded as uninterpreted functions)."""

  def __init__(self, bits: int = BITS) -> None:
    self.z3 = require()
    self.bits = bits
    self.variables: dict[str, Any] = {}
    self.nodes: dict[str, UOp] = {}
    self.bounds: list[Any] = []
    self.exact: list[Any] = []
    self.fails: list[Any] = []
    self.uninterpreted: set[Ops] = set()
    self._memo: dict[UOp, Term] = {}
    self._functions: dict[Ops, Any] = {}

  # ---- sorts and conversions
  def sort(self, dt: DType) -> Any:
    z3 = self.z3
    k = kind(dt)
    return z3.BoolSort() if k == "bool" else z3.BitVecSort(self.bits) if k == "int" else z3.Float32() if dt == dtypes.float32 else z3.Float64()

  def _double(self, x: Any) -> Any:
    """A float term as a double (exact: every float32 is a double)."""
    z3 = self.z3
    return x if x.sort() == z3.Float64() else z3.fpFPToFP(z3.RNE(), x, z3.Float64())

  def _round(self, x: Any, dt: DType) -> Any:
    """A double rounded to ``dt``'s format, as ``c_float`` rounds (to nearest, ties to even)."""
    z3 = self.z3
    return x if dt != dtypes.float32 else z3.fpFPToFP(z3.RNE(), x, z3.Float32())

  def _int_as_double(self, x: Any) -> Any:
    """An int or bool operand of a float op as Python converts it (``1/x``, ``x + 1.5``): correctly rounded to a double."""
    return self.z3.fpSignedToFP(self.z3.RNE(), self._int(x), self.z3.Float64())

  def _int(self, t: Any) -> Any:
    """An int or bool term as an int's bit-vector (Python's ``True`` is 1)."""
    z3 = self.z3
    return z3.If(t, self._iv(1), self._iv(0)) if z3.is_bool(t) else t

  def _iv(self, v: int) -> Any: return self.z3.BitVecVal(v, self.bits)

  def _fits(self, v: int) -> bool: return -(1 << (self.bits - 1)) <= v < (1 << (self.bits - 1))

  def _wrap(self, x: Any, dt: DType) -> Any:
    """An int truncated to ``dt`` (``ctypes``' wraparound: its low bits, sign- or zero-extended; unchanged for ``weakint``)."""
    z3 = self.z3
    if dt == dtypes.weakint or dt.itemsize * 8 >= self.bits: return x
    bits = dt.itemsize * 8
    low = z3.Extract(bits - 1, 0, x)
    return z3.ZeroExt(self.bits - bits, low) if dtypes.is_unsigned(dt) else z3.SignExt(self.bits - bits, low)

  # ---- nodes
  def encode(self, u: UOp) -> Term:
    """The term of ``u`` (and of every node under it, memoized)."""
    for n in u.toposort():
      if n not in self._memo: self._memo[n] = self._node(n)
    return self._memo[u]

  def _node(self, n: UOp) -> Term:
    z3 = self.z3
    no = z3.BoolVal(False)
    if n.op is Ops.CONST:
      if isinstance(n.arg, InvalidType): return Term(self._default(n.dtype), no, no)
      return Term(self.constant(n.arg, n.dtype), z3.BoolVal(True), z3.BoolVal(kind(n.dtype) == "float"))
    if variable_name(n) is not None: return Term(self._variable(n), z3.BoolVal(True), no)
    if n.op is Ops.STACK and not n.src: return Term(z3.BoolVal(True), z3.BoolVal(True), no)   # a variable's shape (no value of its own)
    src = [self._memo[s] for s in n.src]
    if n.op is Ops.WHERE:
      c, t, f = (src[0], *(Term(self._default(n.dtype), no, no) if z3.is_false(s.defined) else s for s in src[1:]))
      if z3.is_false(c.defined): return Term(self._default(n.dtype), no, no)
      return Term(z3.If(c.value, t.value, f.value), z3.And(c.defined, z3.If(c.value, t.defined, f.defined)),
                  z3.If(c.value, t.constfloat, f.constfloat) if n.dtype == dtypes.weakfloat else no)
    if any(z3.is_false(s.defined) for s in src): return Term(self._default(n.dtype), no, no)   # Invalid (a bool constant) in: Invalid out
    defined = z3.And(*[s.defined for s in src]) if src else z3.BoolVal(True)
    if n.op is Ops.CAST: return Term(self._cast(src[0].value, n.src[0].dtype, n.dtype), defined, no)
    if n.op is Ops.MAX and n.dtype == dtypes.weakfloat:   # Python's max returns an operand itself: a ConstFloat stays one
      if any(kind(s.dtype) != "float" for s in n.src): raise NotEncodable("MAX of a weakfloat over an int (max returns the int)")
      x, y = (s.value for s in src)
      return Term(self._alu(n, src), defined, z3.If(z3.fpGT(self._double(y), self._double(x)), src[1].constfloat, src[0].constfloat))
    return Term(self._alu(n, src), defined, no)

  def constant(self, v: Any, dt: DType) -> Any:
    """A constant's term (an int arg of a fixed-width dtype as written: tinygrad's ``DType.const`` does not wrap)."""
    z3 = self.z3
    k = kind(dt)
    if k == "bool": return z3.BoolVal(bool(v))
    if k == "int":
      if not self._fits(int(v)): raise NotEncodable(f"the constant {v} does not fit in {self.bits} bits")
      return self._iv(int(v))
    return z3.FPVal(float(v), self.sort(dt))

  def _default(self, dt: DType) -> Any:
    """The value of an undefined (``Invalid``) node: a fixed value of its sort (never looked at: it is not defined)."""
    try: return self.constant(0, dt)
    except NotEncodable: return self._iv(0)

  def _variable(self, n: UOp) -> Any:
    z3 = self.z3
    name = variable_name(n)
    assert name is not None
    if name in self.variables: return self.variables[name]
    v = z3.Const(name, self.sort(n.dtype))
    self.variables[name], self.nodes[name] = v, n
    if n.op is Ops.RANGE:   # in [0, end) where its end is defined (a loop has no index otherwise)
      end = self._memo[n.src[0]]
      if kind(n.dtype) != "int" or kind(n.src[0].dtype) != "int": raise NotEncodable("a RANGE over a non-int")
      self.bounds += [end.defined, v >= 0, v < end.value]
    elif kind(n.dtype) == "int":
      lo, hi = int(n.vmin), int(n.vmax)
      if not (self._fits(lo) and self._fits(hi)): raise NotEncodable(f"the bounds of {name} do not fit in {self.bits} bits")
      self.bounds += [v >= self._iv(lo), v <= self._iv(hi)]
      if (m := getattr(n.arg, "multiple_of", 1)) not in (None, 1): self.bounds.append(z3.SRem(v, self._iv(int(m))) == 0)
    elif kind(n.dtype) == "float":
      self.bounds += [z3.fpLEQ(z3.FPVal(float(n.vmin), v.sort()), v), z3.fpLEQ(v, z3.FPVal(float(n.vmax), v.sort()))]
    return v

  # ---- casts
  def _cast(self, x: Any, src: DType, dt: DType) -> Any:
    """``DType.const``'s conversion of a value of dtype ``src`` to ``dt``: ``bool(x)``, ``int(x)`` wrapped, ``float(x)`` rounded."""
    z3 = self.z3
    ks, kd = kind(src), kind(dt)
    if kd == "bool":
      return x if ks == "bool" else x != 0 if ks == "int" else z3.Not(z3.fpIsZero(x))
    if kd == "int":
      if ks == "float":
        self.fails.append(z3.Or(z3.fpIsInf(x), z3.fpIsNaN(x)))
        d = self._double(x)
        self.exact.append(z3.Or(z3.fpIsInf(d), z3.fpIsNaN(d), z3.fpLT(z3.fpAbs(d), z3.FPVal(float(1 << (self.bits - 2)), z3.Float64()))))
        x = z3.fpToSBV(z3.RTZ(), d, z3.BitVecSort(self.bits))   # int(x): toward zero
      return self._wrap(self._int(x), dt)
    if ks == "float": return self._round(self._double(x), dt)
    d = z3.fpSignedToFP(z3.RNE(), self._int(x), z3.Float64())   # Python's float(int): correctly rounded, then c_float's rounding
    return self._round(d, dt)

  # ---- ALU
  def _alu(self, n: UOp, src: list[Term]) -> Any:
    k = kind(n.dtype)
    ks = kind(n.src[0].dtype) if n.src else k
    if n.op in (Ops.CMPLT, Ops.CMPNE, Ops.CMPEQ): return self._compare(n, src, ks)
    if ks == "float" or k == "float": return self._float(n, [s.value for s in src], [s.constfloat for s in src])
    return self._integer(n, [s.value for s in src], k)

  def _compare(self, n: UOp, src: list[Term], ks: str) -> Any:
    z3 = self.z3
    a, b = (s.value for s in src)
    kinds = [kind(s.dtype) for s in n.src]
    if "float" in kinds:   # an int compared with a float: Python converts the int (correctly rounded)
      a, b = (self._double(x) if k == "float" else self._int_as_double(x) for k, x in zip(kinds, (a, b)))
      if n.op is Ops.CMPLT: return z3.fpLT(a, b)
      both_nan = z3.And(z3.fpIsNaN(a), z3.fpIsNaN(b), z3.Or(src[0].constfloat, src[1].constfloat))
      eq = z3.Or(z3.fpEQ(a, b), both_nan)
      return eq if n.op is Ops.CMPEQ else z3.Not(eq)
    if kinds == ["bool", "bool"] and n.op is not Ops.CMPLT: return a == b if n.op is Ops.CMPEQ else a != b
    a, b = self._int(a), self._int(b)
    return a < b if n.op is Ops.CMPLT else a == b if n.op is Ops.CMPEQ else a != b

  def _integer(self, n: UOp, xs: list[Any], k: str) -> Any:
    """An int or bool result: Python's int arithmetic (bools as 0 and 1), then truncated to the node's dtype."""
    z3, op = self.z3, n.op
    if op in (Ops.AND, Ops.OR, Ops.XOR) and all(z3.is_bool(x) for x in xs):
      return z3.And(*xs) if op is Ops.AND else z3.Or(*xs) if op is Ops.OR else z3.Xor(*xs)
    ys = [self._int(x) for x in xs]
    r = self._int_op(n, ys, k == "int" and n.dtype == dtypes.weakint)
    return r != 0 if k == "bool" else self._wrap(r, n.dtype)

  def _int_op(self, n: UOp, ys: list[Any], unbounded: bool) -> Any:
    """Python's int op on exact values; a ``weakint`` result must fit (``exact``), a fixed-width one is wrapped after."""
    z3, op = self.z3, n.op
    if op is Ops.NEG:
      if unbounded: self.exact.append(ys[0] != self._iv(-(1 << (self.bits - 1))))
      return -ys[0]
    if op is Ops.MULACC: return self._arith(Ops.ADD, self._arith(Ops.MUL, ys[0], ys[1], unbounded), ys[2], unbounded)
    if len(ys) != 2: raise NotEncodable(f"no encoding of {op} on ints")
    x, y = ys
    if op in (Ops.ADD, Ops.SUB, Ops.MUL): return self._arith(op, x, y, unbounded)
    if op is Ops.MAX: return z3.If(y > x, y, x)
    if op in (Ops.FLOORDIV, Ops.FLOORMOD):
      q = self._divide(x, y, floor=True)
      return q if op is Ops.FLOORDIV else x - q * y   # |x - q*y| < |y|: exact though q*y may wrap
    if op in (Ops.CDIV, Ops.CMOD):
      q = self._divide(x, y, floor=False)
      return q if op is Ops.CDIV else x - q * y
    if op is Ops.AND: return x & y   # two's complement on exact values: exact
    if op is Ops.OR: return x | y
    if op is Ops.XOR: return x ^ y
    if op in (Ops.SHL, Ops.SHR): return self._shift(op, x, y, n.src[1], unbounded)
    if op is Ops.POW and n.src[1].op is Ops.CONST and 0 <= int(n.src[1].arg) <= 16:
      r = self._iv(1)
      for _ in range(int(n.src[1].arg)): r = self._arith(Ops.MUL, r, x, unbounded)
      return r
    raise NotEncodable(f"no encoding of {op} on ints")

  def _arith(self, op: Ops, x: Any, y: Any, unbounded: bool) -> Any:
    """``x + y``, ``x - y``, ``x * y``; for a ``weakint`` the result must not overflow the bit-vector (``exact``)."""
    z3 = self.z3
    if unbounded:
      if op is Ops.ADD: self.exact += [z3.BVAddNoOverflow(x, y, True), z3.BVAddNoUnderflow(x, y)]
      elif op is Ops.SUB: self.exact += [z3.BVSubNoOverflow(x, y), z3.BVSubNoUnderflow(x, y, True)]
      else: self.exact += [z3.BVMulNoOverflow(x, y, True), z3.BVMulNoUnderflow(x, y)]
    return x + y if op is Ops.ADD else x - y if op is Ops.SUB else x * y

  def _divide(self, x: Any, y: Any, floor: bool) -> Any:
    """``tinygrad.helpers.floordiv`` (Python's ``//``) or ``cdiv`` (C's, toward zero), 0 for a divisor 0."""
    z3 = self.z3
    self.exact.append(z3.Not(z3.And(x == self._iv(-(1 << (self.bits - 1))), y == self._iv(-1))))
    q = x / y   # z3's signed division: toward zero
    if floor: q = z3.If(z3.And(z3.SRem(x, y) != 0, z3.Xor(x < 0, y < 0)), q - 1, q)
    return z3.If(y == 0, self._iv(0), q)

  def _shift(self, op: Ops, x: Any, y: Any, count: UOp, unbounded: bool) -> Any:
    """``x << y`` (``x * 2**y``), ``x >> y`` (floor of ``x / 2**y``: an arithmetic shift); a negative count raises. A count
    that is not a constant is expanded over its range (tinygrad's ``vmin``/``vmax``, checked through ``exact``)."""
    z3 = self.z3
    lo, hi = int(count.vmin), int(count.vmax)
    if hi - lo > 64 or hi > 64 or lo < -64: raise NotEncodable(f"a shift by a count in [{lo}, {hi}]")
    self.exact += [y >= self._iv(lo), y <= self._iv(hi)]
    self.fails.append(y < 0)
    r = self._iv(0)
    for c in range(max(lo, 0), hi + 1):
      if op is Ops.SHL and unbounded: self.exact.append(z3.Implies(y == self._iv(c), z3.BVMulNoOverflow(x, self._iv(1 << c), True)))
      r = z3.If(y == self._iv(c), x * (1 << c) if op is Ops.SHL else x >> c, r)
    return r

  def _float(self, n: UOp, xs: list[Any], consts: list[Any]) -> Any:
    """A float result: the double Python computes, rounded to the node's dtype."""
    z3, op, rm = self.z3, n.op, self.z3.RNE()
    if kind(n.dtype) != "float": raise NotEncodable(f"{op} of a {n.dtype.name} over a float (exec_alu gives it a float value)")
    mixed = [kind(s.dtype) != "float" for s in n.src]
    if any(mixed) and (op is Ops.MULACC or (all(mixed) and n.dtype == dtypes.weakfloat and op not in (Ops.RECIPROCAL, Ops.SQRT))):
      raise NotEncodable(f"{op} of a weakfloat over ints (exec_alu gives it an int value) or a MULACC mixing ints and floats")
    ds = [self._double(x) if kind(s.dtype) == "float" else self._int_as_double(x) for s, x in zip(n.src, xs)]
    if op in _BINARY_FLOAT: r = getattr(z3, _BINARY_FLOAT[op])(rm, *ds)
    elif op is Ops.MAX: r = z3.If(z3.fpGT(ds[1], ds[0]), ds[1], ds[0])
    elif op is Ops.NEG: r = z3.fpNeg(ds[0])
    elif op is Ops.RECIPROCAL: r = z3.fpDiv(rm, z3.FPVal(1.0, z3.Float64()), ds[0])   # 1/x, copysign(inf, x) at a zero: IEEE's
    elif op is Ops.SQRT: r = z3.fpSqrt(rm, ds[0])                                        # NaN below zero, sqrt(-0.0) = -0.0: IEEE's
    elif op is Ops.MULACC: r = z3.fpAdd(rm, z3.fpMul(rm, ds[0], ds[1]), ds[2])
    elif op is Ops.TRUNC:
      if n.dtype == dtypes.weakfloat: raise NotEncodable("TRUNC of a weakfloat (exec_alu gives a Python int)")
      t = z3.fpRoundToIntegral(z3.RTZ(), ds[0])   # math.trunc: an int, so a zero result is +0.0
      r = z3.If(z3.And(z3.fpIsZero(t), z3.Not(z3.fpIsNaN(ds[0]))), z3.FPVal(0.0, z3.Float64()), t)
    elif op in UNINTERPRETED:
      self.uninterpreted.add(op)
      if op not in self._functions:
        self._functions[op] = z3.Function(f"{op.name.lower()}_f64", *[z3.Float64()] * (len(ds) + 1))
      r = self._functions[op](*ds)
    else: raise NotEncodable(f"no encoding of {op} on floats")
    return self._round(r, n.dtype)



RLIMIT = 6_000_000    # z3's resource bound per solver call (a count of its steps, so a verdict does not depend on the machine's speed:
                      # most pairs take under 1M, a few float ones 5M-10M; past it the witness search decides)
TIMEOUT_MS = 120_000  # a wall-clock bound only against a pathological call (RLIMIT comes first, on any machine)


class Decision(NamedTuple):
  """What z3 says of two nodes: ``equal`` (for every binding within the bounds where both are defined and evaluate;
  ``partial`` says whether some binding leaves one undefined or raising), ``differ`` (``binding`` is z3's model, for
  tinygrad's evaluation to confirm) or ``unknown`` (``reason``)."""
  kind: str
  binding: dict[str, Any] | None = None
  reason: str = ""
  partial: bool = False


def same_value(enc: Encoder, a: Term, da: DType, b: Term, db: DType) -> Any:
  """A Bool: the two values are the same value bit for bit (``uopc.dtype.value_key``: the Python types of the dtypes'
  values differ for a bool, an int and a float; floats compare as doubles, every NaN one value, -0.0 not 0.0)."""
  z3 = enc.z3
  if kind(da) != kind(db): return z3.BoolVal(False)
  if kind(da) != "float": return a.value == b.value
  return enc._double(a.value) == enc._double(b.value)   # z3's == on floats is structural: one NaN, two zeros


def decide(a: UOp, b: UOp, rlimit: int = RLIMIT) -> Decision:
  """Are ``a`` and ``b`` equal for every binding of their variables within bounds where both are defined? (See ``Decision``.)"""
  try:
    enc = Encoder(width(a, b))
    ta, tb = enc.encode(a), enc.encode(b)
  except NotEncodable as e: return Decision("unknown", reason=f"no SMT encoding: {e}")
  except Exception as e:   # a node this encoding did not foresee (z3 refuses a term of it): no verdict from z3, not a crash
    return Decision("unknown", reason=f"no SMT encoding: {type(e).__name__}: {e}")
  z3 = enc.z3
  s = _solver(z3, rlimit)
  s.add(*enc.bounds, *enc.exact, z3.Not(z3.Or(*enc.fails)) if enc.fails else z3.BoolVal(True), ta.defined, tb.defined)
  s.add(z3.Not(same_value(enc, ta, a.dtype, tb, b.dtype)))
  r = s.check()
  if r == z3.sat: return Decision("differ", binding=model_binding(enc, s.model()))
  if r == z3.unknown: return Decision("unknown", reason=f"z3 gave up ({s.reason_unknown()})")
  if enc.exact:   # proved where the encoding is exact: is it exact wherever the bounds hold?
    if (why := _holds(enc, z3.Not(z3.And(*enc.exact)), rlimit)) != "unsat":
      return Decision("unknown", reason="an operand of a bitwise op or a shift count may leave the range the encoding is exact on"
                      + ("" if why == "sat" else f" ({why})"))
  undefined = z3.Or(z3.Not(ta.defined), z3.Not(tb.defined), *enc.fails)
  return Decision("equal", partial=_holds(enc, undefined, rlimit) != "unsat")


def _solver(z3: Any, rlimit: int) -> Any:
  s = z3.Solver()
  s.set("rlimit", rlimit)
  s.set("timeout", TIMEOUT_MS)
  return s


def _holds(enc: Encoder, cond: Any, rlimit: int) -> str:
  """``sat``, ``unsat`` or why not known: can ``cond`` hold within the bounds?"""
  z3 = enc.z3
  s = _solver(z3, rlimit)
  s.add(*enc.bounds, cond)
  r = s.check()
  return str(r) if r != z3.unknown else f"z3 gave up: {s.reason_unknown()}"


def model_binding(enc: Encoder, model: Any) -> dict[str, Any]:
  """The variables' values in a z3 model, as the Python values tinygrad's evaluation takes (by name)."""
  return {name: python_value(enc.z3, model.eval(v, model_completion=True)) for name, v in sorted(enc.variables.items())}


def python_value(z3: Any, v: Any) -> Any:
  """A z3 constant (Bool, Int, FP) as a Python bool, int or float."""
  import struct
  if z3.is_true(v) or z3.is_false(v): return z3.is_true(v)
  if z3.is_bv_value(v): return v.as_signed_long()
  if v.isNaN(): return float("nan")
  if v.isInf(): return float("-inf") if v.isNegative() else float("inf")
  bits = z3.simplify(z3.fpToIEEEBV(v)).as_long()
  return struct.unpack("<f", struct.pack("<I", bits))[0] if v.sort() == z3.Float32() else struct.unpack("<d", struct.pack("<Q", bits))[0]
