"""tinygrad nodes in SMT (``uopc.relational.adapters.tinygrad.smt``) against tinygrad's own evaluation, and the verdicts
``compare_values`` gives two results: proved equal, different at an input tinygrad confirms, or neither."""
from __future__ import annotations

import ctypes
import math
import random

from tinygrad.dtype import Invalid, InvalidType, dtypes
from tinygrad.uop.ops import Ops, UOp

from uopc.relational.adapters.tinygrad import smt, values
from uopc.relational.adapters.tinygrad.values import _key, compare_values, value_of

INTS = (dtypes.weakint, dtypes.int32, dtypes.uint32, dtypes.int8)
FLOATS = (dtypes.float32, dtypes.weakfloat)
EDGE = {"int": (0, 1, -1, 2, 3, 7, 40, -40, 800, -800, 2**31 - 1, -2**31, 255, -128),
        "float": (0.0, -0.0, 1.0, -1.0, 0.5, 3.0, 1e30, math.inf, -math.inf, math.nan, 3.4028234663852886e38, 1.401298464324817e-45)}
VARIABLES = {dtypes.weakint: ("w", -50, 50), dtypes.int32: ("i", -2**31, 2**31 - 1), dtypes.uint32: ("u", 0, 2**32 - 1),
             dtypes.int8: ("s", -128, 127), dtypes.bool: ("t", False, True), dtypes.float32: ("f", -math.inf, math.inf),
             dtypes.weakfloat: ("g", -1e300, 1e300)}
INT_OPS = (Ops.ADD, Ops.SUB, Ops.MUL, Ops.MAX, Ops.FLOORDIV, Ops.FLOORMOD, Ops.CDIV, Ops.CMOD, Ops.AND, Ops.OR, Ops.XOR)
FLOAT_OPS = (Ops.ADD, Ops.SUB, Ops.MUL, Ops.MAX)


def _leaf(rng: random.Random, dt) -> UOp:
  if rng.random() < 0.5:
    name, lo, hi = VARIABLES[dt]
    return UOp.variable(name, lo, hi, dt)
  if dt == dtypes.bool: return UOp.const(rng.random() < 0.5, dt)
  if dtypes.is_float(dt): return UOp.const(rng.choice(EDGE["float"]), dt)
  v = rng.choice(EDGE["int"])
  return UOp.const(v if dt == dtypes.weakint or dt.min <= v <= dt.max else 0, dt)


def random_node(rng: random.Random, dt, depth: int) -> UOp:
  """A random well-typed node of dtype ``dt``: every op the encoding covers exactly (no uninterpreted one), casts between
  the dtypes, ``where`` with an ``Invalid`` branch now and then."""
  if depth == 0 or rng.random() < 0.2: return _leaf(rng, dt)
  def sub(d=dt): return random_node(rng, d, depth - 1)
  r = rng.random()
  if r < 0.12:
    other = rng.choice((dtypes.bool, *INTS, *FLOATS))
    return UOp(Ops.CAST, dt, (sub(other),))
  if r < 0.24:
    branch = UOp.const(Invalid) if rng.random() < 0.25 else sub()
    return UOp(Ops.WHERE, dt, (sub(dtypes.bool), sub(), branch) if rng.random() < 0.5 else (sub(dtypes.bool), branch, sub()))
  if dt == dtypes.bool:
    if rng.random() < 0.5:
      other = rng.choice((dtypes.bool, *INTS, *FLOATS))
      return UOp(rng.choice((Ops.CMPLT, Ops.CMPNE, Ops.CMPEQ)), dt, (sub(other), sub(other)))
    return UOp(rng.choice((Ops.AND, Ops.OR, Ops.XOR, Ops.ADD, Ops.MUL, Ops.MAX)), dt, (sub(), sub()))
  if dtypes.is_float(dt):
    def operand(): return sub(rng.choice((dt, dt, dt, dtypes.weakint, dtypes.int32, dtypes.bool)))   # Python mixes an int in
    if r < 0.4: return UOp(rng.choice((Ops.NEG, Ops.RECIPROCAL, Ops.SQRT) + ((Ops.TRUNC,) if dt == dtypes.float32 else ())), dt, (operand(),))
    if r < 0.45: return UOp(Ops.MULACC, dt, (operand(), operand(), operand()))
    return UOp(rng.choice(FLOAT_OPS), dt, (operand(), operand()))
  if r < 0.3: return UOp(Ops.NEG, dt, (sub(),))
  if r < 0.4: return UOp(rng.choice((Ops.SHL, Ops.SHR)), dt, (sub(), UOp.const(rng.randint(0, 9), dt)))
  return UOp(rng.choice(INT_OPS), dt, (sub(), sub()))


def _draw(rng: random.Random, v: UOp):
  name, lo, hi = VARIABLES[v.dtype]
  if v.dtype == dtypes.bool: return rng.random() < 0.5
  if dtypes.is_float(v.dtype):
    x = rng.choice([e for e in EDGE["float"] if lo <= e <= hi] + [rng.uniform(-1e6, 1e6), rng.uniform(-2, 2)])
    return ctypes.c_float(x).value if v.dtype == dtypes.float32 else x   # a value of the variable's dtype
  return rng.choice([e for e in EDGE["int"] if lo <= e <= hi] + [rng.randint(lo, hi), rng.randint(-9, 9) if lo < 0 else rng.randint(0, 9)])


def _z3_value(enc: smt.Encoder, term, binding: dict) -> tuple:
  """The term's (defined, value, fails, exact) with the variables substituted, as Python values."""
  z3 = enc.z3
  subs = [(enc.variables[k], _z3_const(enc, enc.variables[k], v)) for k, v in binding.items() if k in enc.variables]

  def ev(e): return z3.simplify(z3.substitute(e, *subs) if subs else e)
  fails = z3.is_true(ev(z3.Or(*enc.fails))) if enc.fails else False
  exact = z3.is_true(ev(z3.And(*enc.exact))) if enc.exact else True
  defined = z3.is_true(ev(term.defined))
  return defined, None if fails or not defined or not exact else smt.python_value(z3, ev(term.value)), fails, exact


def _z3_const(enc: smt.Encoder, var, v):
  z3 = enc.z3
  if z3.is_bool(var): return z3.BoolVal(v)
  if z3.is_bv(var): return z3.BitVecVal(v, var.size())
  return z3.FPVal(v, var.sort())


def test_encoding_agrees_with_tinygrads_evaluation():
  """Differential: random nodes of every encoded op and dtype, at random and edge bindings: the encoding's value,
  definedness (``Invalid``) and failure agree with ``value_of`` (tinygrad's ``exec_alu``) every time."""
  rng = random.Random(37)
  checked = disagreements = refused = 0
  bad = []
  for _ in range(400):
    dt = rng.choice((dtypes.bool, *INTS, *FLOATS))
    u = random_node(rng, dt, 3)
    enc = smt.Encoder(smt.BITS)
    try: term = enc.encode(u)
    except smt.NotEncodable:   # a weakfloat op whose Python value is an int (max over an int, ints only): said so
      refused += 1
      continue
    vs = {n.arg.name: n for n in u.toposort() if smt.variable_name(n) is not None}
    for _ in range(4):
      binding = {k: _draw(rng, v) for k, v in vs.items()}
      defined, value, fails, exact = _z3_value(enc, term, binding)
      if not exact: continue   # a weakint past the bit-vectors (the prover checks the bounds imply exactness)
      ok, want = value_of(u, binding)
      checked += 1
      if not ok: same = fails
      elif isinstance(want, InvalidType): same = not fails and not defined
      else: same = not fails and defined and _key(want) == _key(value)
      if not same:
        disagreements += 1
        bad.append((u, binding, ok, want, defined, value, fails))
  assert checked > 1000 and refused < 60
  assert disagreements == 0, bad[:3]


def test_a_pair_proved_equal():
  """``symbolic``'s ``(x//c)*c + x%c -> x`` against the identity: equal for every binding within the bounds (proved),
  where a few random bindings could only sample it; and a pair of results one of which is Invalid on some inputs."""
  a = UOp.variable("a", -5, 5)
  kind, detail = compare_values((a // 3) * 3 + a % 3, a, a)
  assert (kind, detail) == ("syntactic", "equal for all inputs within the bounds of a (proved)")
  b = UOp.variable("b", False, True, dtypes.bool)
  assert compare_values(b.where(a ^ (a ^ a), UOp.const(Invalid)), a, a)[0] == "syntactic"


def test_a_pair_refuted_with_an_input_tinygrad_confirms():
  """``x//x -> 1`` (``symbolic.py:114``) against tinygrad's own folding of ``0 // 0`` (0): different at x = 0, an input
  random bindings of [0, 10] missed; the binding is replayed through ``value_of``."""
  x = UOp.variable("x", 0, 10)
  flag = UOp.variable("c", False, True, dtypes.bool)
  g = flag.where(x, UOp.const(Invalid))
  calls = []

  def found_by_z3_only(a, b):   # no edge value found it first: z3's model, confirmed by tinygrad
    d = smt.decide(a, b)
    calls.append(d)
    return d
  kind, detail = compare_values(g // g, flag.where(UOp.const(1), UOp.const(Invalid)), g, prove=found_by_z3_only)
  assert kind == "semantic" and detail.startswith("different values at c=True, x=0: 0 vs 1")
  assert value_of(g // g, {"c": True, "x": 0}) == (True, 0)
  y = UOp.variable("y", 3, 17)
  kind, detail = compare_values((y * 2) // 4, y // 2, y, prove=found_by_z3_only)
  assert kind == "syntactic"
  only_13 = ((y * y) % 13 < 1).where(UOp.const(1), UOp.const(0))   # 1 at y = 13 only: not an edge of [3, 17]
  assert compare_values(only_13, UOp.const(0), y, prove=found_by_z3_only) == ("semantic", "different values at y=13: 1 vs 0")
  assert calls[-1].kind == "differ" and calls[-1].binding == {"y": 13}


def test_not_proved_is_not_called_equal():
  """An op without an exact encoding (``EXP2``: uninterpreted) where the two differ only through it, and one without any
  (``BITCAST``): never ``syntactic``; the reason is said."""
  f = UOp.variable("f", -5.0, 5.0, dtypes.float32)
  kind, detail = compare_values(UOp(Ops.EXP2, dtypes.float32, (f,)), f * 2, f)
  assert kind == "semantic"
  i = UOp.variable("i", 0, 10, dtypes.int32)
  kind, detail = compare_values(UOp(Ops.BITCAST, dtypes.float32, (i,)), UOp(Ops.BITCAST, dtypes.float32, (i + 0,)), i)
  assert kind == "unknown" and "BITCAST" in detail
  assert compare_values(f + 0.0, f, f) == ("semantic", "different values at f=-0.0: 0.0 vs -0.0")


def test_the_value_bugs_reproduce_with_tinygrad_alone(capsys):
  """explore/tinygrad_value_bugs.py: each class of real value bug (docs/tinygrad.md, section 6), one rule of tinygrad's
  applied by tinygrad's own matcher, gives a value other than the witness's at an input within the bounds."""
  import importlib.util
  import pathlib
  path = pathlib.Path(__file__).resolve().parents[1] / "explore" / "tinygrad_value_bugs.py"
  spec = importlib.util.spec_from_file_location("tinygrad_value_bugs", path)
  assert spec is not None and spec.loader is not None
  mod = importlib.util.module_from_spec(spec)
  spec.loader.exec_module(mod)
  values = mod.main()
  assert len(values) >= 8 and all(_key(before) != _key(after) for before, after in values)
  assert "at a=0: 0 before, 1 after" in capsys.readouterr().out


def test_without_z3_the_witness_search_decides_and_says_so(monkeypatch):
  """No z3: nothing is called equal; a difference is still found (and confirmed), and the reason is said."""
  monkeypatch.setattr(values, "available", lambda: False)
  a = UOp.variable("a", 0, 10)
  assert compare_values(a + a, a * 2, a) == ("no-difference-found", "no difference found on 75 inputs (not proved: z3 is not installed)")
  assert compare_values(a // a, UOp.const(1), a)[0] == "semantic"
