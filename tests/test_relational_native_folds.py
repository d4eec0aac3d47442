"""Rules declared as data (uopc/rule_data.py) applied in the native core (_space_folds.c, native/folds.py): each form
gives what its rule's function gives, on constants drawn at every int dtype's edges, with no Python call per redex; and
explorations under ``symbolic`` are the Python core's, state for state."""
import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.strategies import F32_EDGES, I32_EDGES, graphs
from tests.test_relational_native_drive import both
from uopc import PatternMatcher, UOp, dtypes, symbolic
from uopc.ops import BINARY, Ops
from uopc.relational.native.folds import rule_forms
from uopc.relational.native.patterns import compile_rules
from uopc.relational.native.space import NativeSpace
from uopc.rule_data import Guarded, as_data, check_expr, data_of, without_data
from uopc.uop import UOpError, make_const, make_uop

RULE = {r.name: r for r in symbolic.rules}
EDGES = sorted({*I32_EDGES, -2, 4, 8, 2**31 - 2, -2**31 + 1, 2**16})
I32S = st.one_of(st.sampled_from(EDGES), st.integers(-2**31, 2**31 - 1))


def value(dtype):
  return st.booleans() if dtype is dtypes.bool else I32S


@pytest.fixture
def python_calls(monkeypatch):
  """The nodes the native core showed to Python (NativeSpace._match), appended as they are."""
  calls = []
  real = NativeSpace._match
  monkeypatch.setattr(NativeSpace, "_match", lambda self, i: calls.append(i) or real(self, i))
  return calls


def one(name: str) -> PatternMatcher: return PatternMatcher([RULE[name]], name="one")


@st.composite
def alu_of_consts(draw):
  """An ALU node over constants of an int dtype: every binary op, WHERE and CAST, edge values first."""
  op = draw(st.sampled_from(sorted(BINARY, key=str) + [Ops.WHERE, Ops.CAST]))
  d = draw(st.sampled_from([dtypes.i32, dtypes.bool]))
  def c(dt): return UOp.const(draw(value(dt)), dt)
  if op is Ops.WHERE: return make_uop(op, (c(dtypes.bool), c(d), c(d)))
  if op is Ops.CAST: return c(d).cast(draw(st.sampled_from([dtypes.i32, dtypes.bool])))
  try: return make_uop(op, (c(d), c(d)))
  except UOpError: return make_uop(op, (c(dtypes.i32), c(dtypes.i32)))   # an op bools do not take


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture], max_examples=150, deadline=None)
@given(alu_of_consts())
def test_fold_is_exec_alu_on_int_and_bool_constants(python_calls, g):
  # C's wraparound, floor // and %, and "no rewrite" where exec_alu has no value (x // 0, INT_MIN // -1) are alu.py's
  python_calls.clear()
  (states, *_), _ = both(g, one("fold-const"))
  assert python_calls == []
  folded = RULE["fold-const"][1](g)
  assert [s[1] for s in states] == [g] + ([folded] if folded is not None else [])


# f32 constants as they may be held: f32 values at the edges and anywhere, and doubles no f32 is (make_const keeps them)
F32S = st.one_of(st.sampled_from(F32_EDGES + [3.4028235e38, -3.4028235e38, 1e39, 2.0**31, -2.0**31 - 1.0]), st.floats(width=32), st.floats())
IN_C = (Ops.ADD, Ops.MUL, Ops.MAX, Ops.CMPLT, Ops.CMPNE, Ops.WHERE, Ops.CAST)   # f32 folds made in C, bit for bit


@st.composite
def alu_of_floats(draw):
  op = draw(st.sampled_from([Ops.ADD, Ops.MUL, Ops.MAX, Ops.CMPLT, Ops.CMPNE, Ops.WHERE, Ops.CAST, Ops.RECIP]))   # (// and %: i32 only)
  def f(): return make_const(draw(F32S), dtypes.f32)
  if op is Ops.WHERE: return make_uop(op, (UOp.const(draw(st.booleans())), f(), f()))
  if op is Ops.CAST:
    if draw(st.booleans()): return f().cast(draw(st.sampled_from([dtypes.i32, dtypes.bool, dtypes.f32])))
    return UOp.const(draw(value(dtypes.i32))).cast(dtypes.f32)
  if op is Ops.RECIP: return make_uop(op, (f(),))
  return make_uop(op, (f(), f()))


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture], max_examples=150, deadline=None)
@given(alu_of_floats())
def test_float_folds_are_exec_alu_bit_for_bit(python_calls, g):
  python_calls.clear()
  (states, *_), _ = both(g, one("fold-const"))
  folded = RULE["fold-const"][1](g)
  assert [s[1] for s in states] == [g] + ([folded] if folded is not None else [])   # the very node: -0.0 is not 0.0
  if g.op in IN_C and (folded is None or folded.arg == folded.arg): assert python_calls == []   # a NaN's is Python's


def test_float_folds_c_does_not_make_bit_for_bit_stay_in_python(python_calls):
  for g in (make_uop(Ops.SQRT, (UOp.const(2.0),)), UOp.const(math.inf) + UOp.const(-math.inf), UOp.const(0.0) * UOp.const(math.inf)):
    python_calls.clear()
    both(g, one("fold-const"))
    assert python_calls   # Python's math.sqrt, the one NaN alu.py makes


P = [UOp.param(i) for i in range(3)]
B = UOp.param(3, dtypes.bool)
XS = [P[0], P[0] % 7, P[0] % 4 + 2, P[0] // 3, (P[0] % 8) * 2, B.cast(dtypes.i32)]   # x with bounds of several kinds

# per rule declared with a Guarded form: graphs its pattern matches, from x, y and constants c1, c2 (i32) and cb (bool)
SHAPES = {
  "comm-const-right": lambda x, y, c1, c2, cb: [c1 + x, c1 * y, c1.max(x), c1.ne(x), c1 + c2, cb.ne(B)],
  "mul-0": lambda x, y, c1, c2, cb: [x * 0, B * False],
  "mod-1": lambda x, y, c1, c2, cb: [x % 1],
  "where-const": lambda x, y, c1, c2, cb: [cb.where(x, y)],
  "cast-same": lambda x, y, c1, c2, cb: [x.cast(dtypes.i32), (x < y).cast(dtypes.bool), x.cast(dtypes.bool)],
  "cmp-self": lambda x, y, c1, c2, cb: [x < x, x.ne(x)],
  "sub-self": lambda x, y, c1, c2, cb: [x + x * -1],
  "assoc-add-const": lambda x, y, c1, c2, cb: [(x + c1) + c2],
  "assoc-mul-const": lambda x, y, c1, c2, cb: [(x * c1) * c2],
  "distribute-const": lambda x, y, c1, c2, cb: [(x + c1) * c2],
  "const-outward": lambda x, y, c1, c2, cb: [(x + c1) + y, y + (x + c1), (x + c1) + c2],
  "factor-consts": lambda x, y, c1, c2, cb: [x * c1 + x * c2],
  "factor-const-1": lambda x, y, c1, c2, cb: [x * c1 + x],
  "div-div": lambda x, y, c1, c2, cb: [(x // c1) // c2],
  "mod-mod": lambda x, y, c1, c2, cb: [(x % c1) % c2],
  "mod-div": lambda x, y, c1, c2, cb: [(x % c1) // c2],
  "div-small": lambda x, y, c1, c2, cb: [x // c1],
  "mod-small": lambda x, y, c1, c2, cb: [x % c1],
  "lt-add-const": lambda x, y, c1, c2, cb: [(x + c1) < c2],
  "lt-mul-const": lambda x, y, c1, c2, cb: [(x * c1) < c2],
}


def test_every_guarded_rule_of_symbolic_is_tested_and_compiled():
  guarded = sorted(r.name for r in symbolic.rules if isinstance(data_of(r[1]), Guarded))
  assert guarded == sorted(SHAPES)
  specs, _ = rule_forms(symbolic, compile_rules(symbolic), True)
  in_c = {symbolic.rules[r].name for r, slots, _, form in specs if form is not None or slots is not None}
  assert set(SHAPES) <= in_c and {"fold-const", "bounds-const"} <= in_c
  # what is left to Python: its function reads more than the language says (a whole sum; .where is no template)
  assert {r.name for r in symbolic.rules} - in_c == {"where-nested-then", "where-nested-else", "div-sum", "mod-sum"}


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture], max_examples=200, deadline=None)
@given(st.sampled_from(sorted(SHAPES)), st.sampled_from(XS), I32S, I32S, st.booleans())
def test_guarded_forms_are_their_functions(python_calls, name, x, c1, c2, cb):
  python_calls.clear()   # (the fixture's list lives across hypothesis's examples)
  for g in SHAPES[name](x, P[1], UOp.const(c1), UOp.const(c2), UOp.const(cb)):
    both(g, one(name), max_states=50)
  assert python_calls == []   # every guard, constant and template computed in C


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture], max_examples=60, deadline=None)
@given(graphs(max_ops=8, names=st.just(None)))
def test_pinned_is_const_bounds(python_calls, g):
  both(g, one("bounds-const"), max_states=200)


def ints(max_ops: int) -> st.SearchStrategy[UOp]:
  """Int programs over params and edge constants (sums, products, //, %, comparisons, where)."""
  ops = [Ops.ADD, Ops.MUL, Ops.FLOORDIV, Ops.FLOORMOD, Ops.MAX, Ops.CMPLT, Ops.CMPNE]

  @st.composite
  def draw_program(draw):
    pool = [P[0], P[1], UOp.const(draw(I32S)), UOp.const(draw(st.sampled_from(EDGES)))]
    for _ in range(draw(st.integers(1, max_ops))):
      op, a, b = draw(st.sampled_from(ops)), draw(st.sampled_from(pool)), draw(st.sampled_from(pool + [UOp.const(draw(I32S))]))
      if a.dtype is not b.dtype: continue
      u = make_uop(op, (a, b))
      if u.dtype is dtypes.bool: u = u.where(a, b) if draw(st.booleans()) else u.cast(dtypes.i32)
      pool.append(u)
    return pool[-1]
  return draw_program()


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture], max_examples=60, deadline=None)
@given(st.one_of(ints(6), graphs(max_ops=6, names=st.just(None))), st.sampled_from(["graph", "tree"]), st.sampled_from(["bfs", "dfs"]))
def test_symbolic_explores_the_same_with_folds_in_c(g, semantics, order):
  both(g, symbolic, semantics=semantics, order=order, max_states=300)


def sum_with_constants(n: int) -> UOp:
  g = P[0] + 1
  for i in range(1, n): g = g + UOp.param(i) + (i + 1)
  return g


def test_symbolic_on_sums_with_constants_shows_python_no_node(python_calls):
  (states, *_), ex = both(sum_with_constants(5), symbolic, max_states=None)
  assert ex.native and len(states) == 197 and python_calls == []
  (bare, *_), _ = both(sum_with_constants(5), without_data(symbolic), max_states=None)
  assert [s[1] for s in bare] == [s[1] for s in states] and len(python_calls) > 300   # the same states, each ALU node in Python


def test_a_form_the_core_cannot_hold_leaves_its_function_to_python(python_calls):
  from uopc import UPat
  x, c = UPat.var("x"), UPat.cvar("c")
  unbound = as_data(Guarded((">", ("value", "nope"), 0), lambda x: x))(lambda x, c: x if c.arg > 0 else None)
  pm = PatternMatcher([(x // c, unbound)], name="t")
  assert rule_forms(pm, compile_rules(pm), True)[0][0] == (0, None, None, None)
  both(P[0] // 3, pm)
  assert python_calls
  with pytest.raises(ValueError, match="not an expression"): check_expr(("**", 1, 2))
  with pytest.raises(ValueError, match="not an expression"): as_data(Guarded(("value", 3), lambda x: x))
