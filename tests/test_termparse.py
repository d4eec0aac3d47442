"""Tests of the term parser and matcher (uopc/termparse.py)."""
import doctest
import math
import random

import pytest
from hypothesis import given, settings, strategies as st

import uopc.termparse
from uopc.dtype import dtypes
from uopc.ops import Ops
from uopc.term import show
from uopc.termparse import ANY_ARG, Hole, TermConst, TermNode, TermParam, Wild, parse_term
from uopc.uir import UIRError, parse_uir
from uopc.uop import UOp, call_params

try: from strategies import graphs   # tests/ on sys.path (rootdir-style test layout)
except ImportError: from tests.strategies import graphs

p0, p1 = UOp.param(0), UOp.param(1)
f0 = UOp.param(0, dtypes.f32)


def err(text: str) -> str:
  with pytest.raises(UIRError) as e: parse_term(text)
  return str(e.value)


def top_params(u: UOp) -> dict[int, UOp]:
  return {p.arg.slot: p for p in call_params(u)}


def test_doctests():
  assert doctest.testmod(uopc.termparse).failed == 0


# ---- the tree

def test_parse_tree():
  t = parse_term("add(mul(?x, 3), _)")
  assert t == TermNode(Ops.ADD, (TermNode(Ops.MUL, (Hole("x"), TermConst(3, dtypes.i32))), Wild()))
  assert parse_term("sq[mul(p0, p0)](7)") == TermNode(Ops.CALL, (TermNode(Ops.MUL, (TermParam(0), TermParam(0))), TermConst(7, dtypes.i32)), "sq")
  assert parse_term("call[p0](1.5)").arg is None
  assert parse_term("reshape(p0, (1, 1))") == TermNode(Ops.RESHAPE, (TermParam(0),), (1, 1))
  assert parse_term("reduce(p3, max, 2)") == TermNode(Ops.REDUCE, (TermParam(3),), (Ops.MAX, 2))
  assert parse_term("cast(p0, f32)") == TermNode(Ops.CAST, (TermParam(0),), dtypes.f32)
  assert parse_term("shrink(p0, ((0, 2), (1, 3)))").arg == ((0, 2), (1, 3))
  assert parse_term("reshape(?x, _)").arg is ANY_ARG and parse_term("reduce(?x, _, 1)").arg == (ANY_ARG, 1)


@pytest.mark.parametrize("text, value, dtype", [
  ("3", 3, dtypes.i32), ("-3", -3, dtypes.i32), ("3.0", 3.0, dtypes.f32), ("True", True, dtypes.bool),
  ("False", False, dtypes.bool), ("inf", math.inf, dtypes.f32), ("-inf", -math.inf, dtypes.f32), ("-0.0", -0.0, dtypes.f32),
])
def test_literals(text, value, dtype):
  t = parse_term(text)
  assert t == TermConst(value, dtype) and t.to_uop() is UOp.const(value, dtype) and str(t) == text


def test_const_terms_keep_zero_nan_and_false_apart():
  terms = [parse_term(s) for s in ("0", "0.0", "-0.0", "False")]
  assert len(set(terms)) == 4
  assert parse_term("nan") == parse_term("nan") and math.isnan(parse_term("nan").to_uop().arg)
  assert parse_term("0.1").value == 0.10000000149011612   # rounded to f32 like the IR's constants


def test_holes_and_ground():
  t = parse_term("where(?c, add(?a, _), ?a)")
  assert t.holes == ("c", "a") and not t.is_ground
  assert parse_term("add(p0, 1)").is_ground and not parse_term("reshape(p0, _)").is_ground


def test_str_and_repr():
  for s in ["add(mul(?x, 3), ?c)", "sq[mul(p0, p0)](7)", "call[p0](p1)", "reduce(?x, _, 1)", "cast(_, bool)", "f[1]()"]:
    assert str(parse_term(s)) == s
  assert repr(parse_term("add(p0, 1)")) == "parse_term('add(p0, 1)')"


# ---- round trips with show

def test_show_round_trips_examples():
  cases = [(p0 + 2) * 3, (p0 * p0).call(7, name="sq"), UOp.param(0, dtypes.bool).where(1.5, -0.0), UOp.stack(1, 2, 3).index(1),
           UOp.stack(1.0, 2.0).reshape((1, 2)).expand((3, 2)).permute((1, 0)).shrink(((0, 1), (0, 2))).reduce(Ops.MUL, 2),
           UOp(Ops.RANGE, (UOp.const(5),)).cast(dtypes.f32).sqrt(), UOp.const(math.nan), UOp.const(False)]
  for u in cases:
    t = parse_term(show(u))
    assert str(t) == show(u)
    assert t.to_uop() is u
    assert t.match(u) == {}


@settings(deadline=None)   # example count: the conftest profile (--slow for many)
@given(graphs(addrspaces=st.none(), names=st.sampled_from([None, "sq", "f"])))
def test_random_graphs_round_trip(u):
  s = show(u)
  t = parse_term(s)
  assert str(t) == s
  assert t.match(u) == {}
  # a term does not print PARAM types: the program's own PARAMs give them (CALL bodies' follow their args)
  assert t.to_uop(top_params(u)) is u


@settings(deadline=None)   # example count: the conftest profile (--slow for many)
@given(graphs(addrspaces=st.none(), names=st.sampled_from([None, "sq"]), shapes=[()]))
def test_random_graphs_without_params_given(u):
  # types are learnt only from what a well-typed graph forces, so i32-scalar PARAMs (the default) always rebuild
  if all(p.dtype is dtypes.i32 and p.shape == () for p in call_params(u)):
    assert parse_term(show(u)).to_uop() is u


@st.composite
def shared_dags(draw: st.DrawFn, max_ops: int = 30) -> UOp:
  """A DAG of binary ops over two PARAMs and a constant, each op's operands any earlier nodes: heavy sharing."""
  pool = [p0, p1, UOp.const(2)]
  for _ in range(draw(st.integers(1, max_ops))):
    a, b = (pool[draw(st.integers(0, len(pool) - 1))] for _ in range(2))
    pool.append(UOp(draw(st.sampled_from([Ops.ADD, Ops.MUL, Ops.MAX])), (a, b)))
  return pool[-1]


@settings(deadline=None)   # example count: the conftest profile (--slow for many)
@given(shared_dags())
def test_shared_dags_round_trip_at_their_size(u):
  s = show(u)
  t = parse_term(s)
  assert t.to_uop() is u and str(t) == s and t.match(u) == {}
  # each distinct node is printed once: name, definition and references cost a bounded number of characters
  assert len(s) <= 30 * len(u.toposort())


def test_doubling_chain_prints_at_dag_size():
  a = p0 + 0
  for _ in range(12): a = a + a
  s = show(a)
  assert s == ("let a = add(p0, 0), b = add(a, a), c = add(b, b), d = add(c, c), e = add(d, d), f = add(e, e), g = add(f, f), "
               "h = add(g, g), i = add(h, h), j = add(i, i), k = add(j, j), l = add(k, k) in add(l, l)")
  assert parse_term(s).to_uop() is a


def test_let_names_are_one_node_when_matching():
  x = p0 + 0
  assert parse_term("let a = add(_, 0) in mul(a, a)").match(x * x) == {}
  assert parse_term("let a = add(_, 0) in mul(a, a)").match(x * (p1 + 0)) is None   # one name, one node
  assert parse_term("mul(add(_, 0), add(_, 0))").match(x * (p1 + 0)) == {}         # written out: two wildcards
  assert parse_term("let a = add(?x, 0) in mul(a, a)").match(x * x) == {"x": p0}


def test_let_names_in_a_call_body_are_built_in_its_scope():
  body = UOp.param(0, dtypes.f32) * UOp.param(0, dtypes.f32)
  u = body.call(UOp.const(2.0), name="sq") + body.call(UOp.const(3.0), name="sq")
  assert show(u) == "let a = mul(p0, p0) in add(sq[a](2.0), sq[a](3.0))"
  assert parse_term(show(u)).to_uop() is u


def test_a_20000_node_dag_round_trips():
  a = p0
  for i in range(20_000): a = a + a if i % 3 else a * 2   # sharing at every third level
  s = show(a)
  assert parse_term(s).to_uop() is a and len(s) < 20 * 20_000


# ---- building: PARAM types

def test_to_uop_param_types():
  assert parse_term("mul(add(p0, 2), 3)").to_uop() is (p0 + 2) * 3
  assert parse_term("add(p0, 2.0)").to_uop() is f0 + 2.0
  assert parse_term("add(2.0, p0)").to_uop() is (UOp.const(2.0) + f0)
  b = UOp.param(0, dtypes.bool)
  assert parse_term("where(p0, p1, 1.0)").to_uop() is b.where(UOp.param(1, dtypes.f32), 1.0)
  assert parse_term("sqrt(p0)").to_uop() is f0.sqrt()
  assert parse_term("index(stack(1, 2), p0)").to_uop() is UOp.stack(1, 2).index(p0)
  # learnt from a later use, across the whole term
  assert parse_term("add(cast(p0, i32), cast(mul(p0, 1.5), i32))").to_uop() is f0.cast(dtypes.i32) + (f0 * 1.5).cast(dtypes.i32)
  # shapes come along with dtypes
  s = UOp.stack(1.0, 2.0)
  assert parse_term("mul(p0, stack(1.0, 2.0))").to_uop() is UOp(Ops.MUL, (UOp.param(0, dtypes.f32, (2,)), s))
  # no clue: an i32 scalar; or what params says
  assert parse_term("cast(p0, f32)").to_uop() is p0.cast(dtypes.f32)
  assert parse_term("cast(p0, f32)").to_uop({0: b}) is b.cast(dtypes.f32)
  g = UOp.param(0, dtypes.f32, (3,), "global")
  assert parse_term("reduce(p0, add, 1)").to_uop({0: g}) is g.reduce(Ops.ADD)


def test_to_uop_call_scopes():
  # the body's p0 is the argument's type, the outer p0 is another PARAM
  u = UOp.param(0, dtypes.f32).recip().call(p0.cast(dtypes.f32)) + p0.cast(dtypes.f32)
  assert parse_term(show(u)).to_uop() is u
  inner = (UOp.param(0, dtypes.bool).where(1.0, 2.0)).call(UOp.param(0, dtypes.bool), name="f")
  assert parse_term("f[where(p0, 1.0, 2.0)](p0)").to_uop({0: UOp.param(0, dtypes.bool)}) is inner
  # an argument's type learnt from the body
  assert parse_term("f[sqrt(p0)](p1)").to_uop() is f0.sqrt().call(UOp.param(1, dtypes.f32), name="f")


def test_to_uop_errors():
  with pytest.raises(UIRError, match=r"^<target>:1:5: cannot build a graph from a term with holes: \?x$"): parse_term("add(?x, 1)").to_uop()
  with pytest.raises(UIRError, match=r"^<target>:1:1: cannot build a graph from a term with holes: _$"): parse_term("reshape(p0, _)").to_uop()
  with pytest.raises(UIRError, match=r"^<target>:1:6: ADD: mismatched dtypes i32, f32$"): parse_term("cast(add(2, 2.0), f32)").to_uop()
  with pytest.raises(UIRError, match=r"^<target>:1:1: CALL needs params 0..0, body has \[\]$"): parse_term("f[1](2)").to_uop()


# ---- matching

def test_match_binds_holes():
  u = p0 * 3 + 11
  m = parse_term("add(mul(?x, 3), ?c)").match(u)
  assert m == {"x": p0, "c": UOp.const(11)} and m["x"] is p0
  assert parse_term("add(mul(?x, 4), ?c)").match(u) is None
  assert parse_term("_").match(u) == {}
  assert parse_term("?all").match(u)["all"] is u


def test_match_same_hole_twice_needs_same_node():
  assert parse_term("add(?x, ?x)").match(p0 + p0) == {"x": p0}
  assert parse_term("add(?x, ?x)").match(p0 + p1) is None
  assert parse_term("add(_, _)").match(p0 + p1) == {}


def test_match_params_any_dtype_but_right_slot():
  t = parse_term("mul(p0, _)")
  assert t.match(p0 * 2) == {} and t.match(f0 * 2.0) == {} and t.match(UOp.param(0, dtypes.f32, (3,)).sqrt()) is None
  assert t.match(p1 * 2) is None


def test_match_consts_are_exact():
  for text, u, ok in [("0", UOp.const(0), True), ("0", UOp.const(0.0), False), ("0", UOp.const(False), False),
                      ("0.0", UOp.const(-0.0), False), ("-0.0", UOp.const(-0.0), True), ("nan", UOp.const(math.nan), True),
                      ("True", UOp.const(1), False), ("1.5", UOp.const(1.5), True), ("inf", UOp.const(math.inf), True)]:
    assert (parse_term(text).match(u) is not None) is ok, (text, u)
  assert parse_term("add(p0, 1)").match(p0 + 2) is None


def test_match_args():
  x = UOp.stack(1, 2)
  assert parse_term("reshape(?x, (1, 2))").match(x.reshape((1, 2))) == {"x": x}
  assert parse_term("reshape(?x, (2, 1))").match(x.reshape((1, 2))) is None
  assert parse_term("reshape(?x, _)").match(x.reshape((2, 1))) == {"x": x}
  assert parse_term("expand(_, _)").match(x.reshape((1, 2))) is None
  r = x.reduce(Ops.MAX)
  assert parse_term("reduce(?x, max, 1)").match(r) == {"x": x}
  assert parse_term("reduce(?x, add, 1)").match(r) is None and parse_term("reduce(?x, _, 1)").match(r) == {"x": x}
  assert parse_term("cast(?x, f32)").match(p0.cast(dtypes.f32)) == {"x": p0} and parse_term("cast(?x, i32)").match(p0.cast(dtypes.f32)) is None
  assert parse_term("cast(?x, _)").match(p0.cast(dtypes.bool)) == {"x": p0}
  body = p0 * p0
  assert parse_term("sq[?b](?a)").match(body.call(7, name="sq")) == {"b": body, "a": UOp.const(7)}
  assert parse_term("sq[?b](?a)").match(body.call(7, name="cube")) is None
  assert parse_term("call[?b](?a)").match(body.call(7)) is not None and parse_term("call[?b](?a)").match(body.call(7, name="sq")) is None
  assert parse_term("sq[?b](?a, ?c)").match(body.call(7, name="sq")) is None


def test_match_deep_graph_with_shallow_term():
  a = p0
  for _ in range(20_000): a = a + 1
  m = parse_term("add(add(?x, 1), ?one)").match(a)
  assert m["x"] is a.src[0].src[0] and m["one"] is UOp.const(1)


def test_deep_term_parses_builds_and_matches():
  a = p0
  for _ in range(5_000): a = a * 3 + 1   # 10,000 nested ops: far past Python's recursion limit
  s = show(a)
  t = parse_term(s)
  assert t.to_uop() is a and t.match(a) == {} and str(t) == s
  assert parse_term(s.replace("p0", "?x", 1)).match(a) == {"x": p0}


def test_match_agrees_with_uir():
  u = parse_uir("%0 = param : slot=0 dtype=f32 shape=(2, 3)\n%1 = mul %0, 2")
  assert parse_term("mul(p0, expand(reshape(2.0, (1, 1)), (2, 3)))").match(u) == {}
  assert parse_term("mul(?x, expand(reshape(?c, _), _))").match(u) == {"x": u.src[0], "c": UOp.const(2.0)}


# ---- errors

@pytest.mark.parametrize("text, message", [
  ("", "<target>:1:1: expected a term, got end of line"),
  ("add(p0, 1", "<target>:1:10: expected ',' or ')', got end of line"),
  ("add(p0, 1))", "<target>:1:11: expected end of term, got ')'"),
  ("add(p0, 1) extra", "<target>:1:12: expected end of term, got 'extra'"),
  ("add(p0 1)", "<target>:1:8: expected ',' or ')', got '1'"),
  ("add(,p0)", "<target>:1:5: expected a term, got ','"),
  ("mull(p0, 1)", "<target>:1:1: unknown op 'mull'; did you mean mul?"),
  ("add(p0, reshap(p1, (1,)))", "<target>:1:9: unknown op 'reshap'; did you mean reshape?"),
  ("add(p0)", "<target>:1:1: add takes 2 operands, got 1"),
  ("add(p0, 1, 2)", "<target>:1:12: add takes 2 operands, got 3"),
  ("stack()", "<target>:1:1: stack takes at least 1 operand, got 0"),
  ("where(p0, p1)", "<target>:1:1: where takes 3 operands, got 2"),
  ("reshape(p0, 5)", "<target>:1:13: expected a tuple of integers or _ as reshape's last operand, got '5'"),
  ("shrink(p0, (1, 2))", "<target>:1:12: expected ((begin, end), ...) or _ as shrink's last operand, got a tuple"),
  ("cast(p0, i64)", "<target>:1:10: expected a dtype (bool, i32, f32) or _ as cast's last operand, got 'i64'"),
  ("reduce(p0, sub, 1)", "<target>:1:12: expected add, mul, max or _ as reduce's op, got 'sub'"),
  ("reduce(p0, add, 1.0)", "<target>:1:17: expected an integer or _ as reduce's count, got '1.0'"),
  ("add(foo, 1)", "<target>:1:5: unknown name 'foo': expected ?hole, _, pN, a literal, op(...) or a let name"),
  ("add(p0, (1,))", "<target>:1:9: expected a term (?hole, _, pN, a literal or op(...)), got a tuple"),
  ("add(p0, 2x)", "<target>:1:9: bad literal '2x': expected an int (3), a float (3.0, inf, nan) or True/False"),
  ("add(p0, 9999999999999)", "<target>:1:9: integer literal 9999999999999 is out of the i32 range"),
  ("add(p0, $)", "<target>:1:9: unexpected character '$'"),
  ("call(p0)", "<target>:1:1: call needs a body: call[body](args)"),
  ("sq[p0", "<target>:1:6: expected ']' after the call body, got end of line"),
  ("sq[p0]", "<target>:1:7: expected '(' after the call body, got end of line"),
  ("1[p0](2)", "<target>:1:1: expected a call name before '[', got '1'"),
  ("let a = add(p0, 0) in p0", "<target>:1:5: let name 'a' is never used"),
  ("let a = add(b, 0), b = p0 in a", "<target>:1:13: let name 'b' is used before its definition (column 20)"),
  ("let a = add(a, 1) in a", "<target>:1:13: let name 'a' is used in its own definition"),
  ("let a = p0, a = p1 in add(a, a)", "<target>:1:13: let name 'a' is defined twice (first at column 5)"),
  ("let add = p0 in add", "<target>:1:5: 'add' cannot be a let name: it already means an op, a dtype, a PARAM, a literal or _"),
  ("let p1 = p0 in p1", "<target>:1:5: 'p1' cannot be a let name: it already means an op, a dtype, a PARAM, a literal or _"),
  ("let a = p0 in add(a, b)", "<target>:1:22: unknown name 'b': expected ?hole, _, pN, a literal, op(...) or a let name"),
  ("let a = p0 add(a, a)", "<target>:1:12: expected ',' or 'in' after a let definition, got 'add'"),
  ("let a p0 in a", "<target>:1:7: expected '=' after the let name 'a', got 'p0'"),
  ("let ?a = p0 in ?a", "<target>:1:5: expected a let name, got '?a'"),
  ("let a = p0 in a a", "<target>:1:17: expected end of term, got 'a'"),
  ("add(add(p0, 1…", "<target>:1:14: a term cut short with '…' is a label, not a term: it cannot be read back"),
  ("add(let a = p0 in a, 1)", "<target>:1:5: 'let' only begins a whole term: let a = ..., b = ... in term"),
])
def test_error_messages(text, message):
  assert err(text) == message


def test_error_filename():
  with pytest.raises(UIRError) as e: parse_term("add(", filename="--target")
  assert (e.value.filename, e.value.line, e.value.col) == ("--target", 1, 5)


FUZZ_SEEDS = ["add(mul(?x, 3), ?c)", "sq[mul(p0, p0)](7)", "reduce(reshape(p0, (1, 2)), add, 1)", "where(?c, 1.5, -0.0)",
              "cast(shrink(p0, ((0, 1),)), _)", "index(stack(1, 2, 3), p1)"]
FUZZ_ALPHABET = list("()[],?_ -.p0123e") + ["add", "reshape", "cast", "i32", "nan", "True", "((", "\x00", "é"]


def _parses_or_uir_error(text: str) -> None:
  try: t = parse_term(text)
  except UIRError as e:
    assert str(e).startswith("<target>:1:") and "\n" not in str(e)
    return
  assert str(parse_term(str(t))) == str(t)
  if t.is_ground:
    try: t.to_uop()
    except UIRError: pass


def test_fuzz_mutations_deterministic():
  rng = random.Random(99)
  for _ in range(3000):
    chars = list(rng.choice(FUZZ_SEEDS))
    for _ in range(rng.randint(1, 3)):
      pos = rng.randrange(len(chars) + 1)
      if rng.random() < 0.5 and chars: del chars[min(pos, len(chars) - 1)]
      else: chars.insert(pos, rng.choice(FUZZ_ALPHABET))
    _parses_or_uir_error("".join(chars))


@settings(deadline=None)   # example count: the conftest profile (--slow for many)
@given(st.one_of(st.text(), st.lists(st.sampled_from(FUZZ_ALPHABET)).map("".join)))
def test_fuzz_hypothesis(text):
  _parses_or_uir_error(text)


def test_a_lone_surrogate_is_refused_at_its_column():
  # what a non-UTF-8 byte in argv becomes (surrogateescape)
  assert err("add(p0, \udcff)") == "<target>:1:9: lone surrogate U+DCFF is not a character"
  assert err("?x\ud800") == "<target>:1:3: lone surrogate U+D800 is not a character"
