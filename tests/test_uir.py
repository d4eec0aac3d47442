"""Tests of the .uir printer and parser (uopc/uir.py)."""
import doctest
import math
import pickle
import random
import re
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

import uopc.uir
from uopc.dtype import dtypes
from uopc.ops import Ops
from uopc.uir import UIRError, parse_uir, to_uir
from uopc.uop import UOp

try: from strategies import graphs, mutated   # tests/ on sys.path (rootdir-style test layout)
except ImportError: from tests.strategies import graphs, mutated

DOC = Path(__file__).resolve().parent.parent / "docs" / "uir-format.md"

CHAPTER = """\
%0 = param : slot=0 dtype=i32
%1 = mul %0, 2
%2 = call %1, 7 : name=sq
%3 = stack 1.0, 2.0, 3.0
%4 = reshape 2.0, (1, 1)
%5 = expand %4, (2, 3)
%6 = reduce %5 : op=add pop=1
%7 = cast %2 : dtype=i32
"""

p0, p1 = UOp.param(0), UOp.param(1)


def err(text, filename="t.uir") -> str:
  with pytest.raises(UIRError) as e: parse_uir(text, filename)
  return str(e.value)


def test_doctests():
  assert doctest.testmod(uopc.uir).failed == 0


# ---- the examples of the spec and the chapter

def test_chapter_example_nodes():
  sq = (p0 * 2).call(7, name="sq")
  assert parse_uir(CHAPTER) is sq.cast(dtypes.i32)
  lines = CHAPTER.splitlines()
  expect = [p0, p0 * 2, sq, UOp.stack(1.0, 2.0, 3.0), UOp.const(2.0).reshape((1, 1)),
            UOp.const(2.0).reshape((1, 1)).expand((2, 3)), UOp.const(2.0).reshape((1, 1)).expand((2, 3)).reduce(Ops.ADD, 1),
            sq.cast(dtypes.i32)]
  for k, u in enumerate(expect, 1):
    assert parse_uir("\n".join(lines[:k])) is u


@pytest.mark.parametrize("k, text", [
  (3, CHAPTER.split("%3")[0]),
  (4, "%0 = stack 1.0, 2.0, 3.0\n"),
  (5, "%0 = reshape 2.0, (1, 1)\n"),
  (7, "%0 = reshape 2.0, (1, 1)\n%1 = expand %0, (2, 3)\n%2 = reduce %1 : op=add pop=1\n"),
  (8, "%0 = param : slot=0 dtype=i32\n%1 = mul %0, 2\n%2 = call %1, 7 : name=sq\n%3 = cast %2 : dtype=i32\n"),
])
def test_chapter_example_prints(k, text):
  # each line prints exactly as written (renumbered: unused nodes are not part of a root's graph)
  assert to_uir(parse_uir("\n".join(CHAPTER.splitlines()[:k]))) == text


def test_prints_in_toposort_order():
  u = p0 * 6 + p1 * 3   # (p0*2 + p1)*3 after rewriting
  assert to_uir(u) == ("%0 = param : slot=0 dtype=i32\n%1 = mul %0, 6\n%2 = param : slot=1 dtype=i32\n"
                       "%3 = mul %2, 3\n%4 = add %1, %3\n")


CHAPTER_LISTINGS = [
  "%0 = param : slot=0 dtype=i32\n%1 = mul %0, 2\n%2 = mul %1, 3\n%3 = param : slot=1 dtype=i32\n%4 = mul %3, 3\n%5 = add %2, %4\n",
  "%0 = param : slot=0 dtype=i32\n%1 = param : slot=1 dtype=i32\n%2 = cmplt %0, %1\n%3 = where %2, 1, 0\n",
  "%0 = param : slot=0 dtype=i32\n%1 = param : slot=1 dtype=i32\n%2 = cmplt %0, %1\n%3 = cast %2 : dtype=i32\n",
  "%0 = add 5, 2\n%1 = param : slot=1 dtype=i32\n%2 = mul %0, %1\n%3 = mul 5, 0\n%4 = add %2, %3\n",
  "%0 = param : slot=1 dtype=i32\n%1 = mul %0, 7\n",
  "%0 = stack 1, 2, 3\n%1 = stack 10, 20, 30\n%2 = mul %0, %1\n%3 = add %2, %0\n",
  "%0 = stack 1.0, 2.0, 3.0\n%1 = stack %0, %0\n%2 = reshape 2.0, (1, 1)\n%3 = expand %2, (2, 3)\n%4 = mul %1, %3\n"
  "%5 = permute %4, (1, 0)\n%6 = reduce %5 : op=add pop=1\n",
  "%0 = param : slot=0 dtype=i32\n%1 = mul %0, %0\n%2 = call %1, 7 : name=sq\n",
]


@pytest.mark.parametrize("text", CHAPTER_LISTINGS)
def test_chapter_listings_round_trip_exactly(text):
  assert to_uir(parse_uir(text)) == text


def test_chapter_listing_values():
  assert parse_uir(CHAPTER_LISTINGS[1]) is (p0 < p1).where(1, 0)
  assert parse_uir(CHAPTER_LISTINGS[3]) is (UOp.const(5) + 2) * p1 + UOp.const(5) * 0
  assert parse_uir(CHAPTER_LISTINGS[7]) is (p0 * p0).call(7, name="sq")


# ---- literals, typing and sugar

@pytest.mark.parametrize("text, value, dtype", [
  ("3", 3, dtypes.i32), ("-3", -3, dtypes.i32), ("0", 0, dtypes.i32), ("2147483647", 2**31 - 1, dtypes.i32),
  ("-2147483648", -2**31, dtypes.i32), ("3.0", 3.0, dtypes.f32), ("-0.0", -0.0, dtypes.f32), ("0.0", 0.0, dtypes.f32),
  ("inf", math.inf, dtypes.f32), ("-inf", -math.inf, dtypes.f32), ("9.5367431640625e-07", 2**-20, dtypes.f32),
  ("1.2089258196146292e+24", 2.0**80, dtypes.f32), (".5", 0.5, dtypes.f32), ("True", True, dtypes.bool), ("False", False, dtypes.bool),
])
def test_literals(text, value, dtype):
  u = parse_uir(f"%0 = const {text}")
  assert u is UOp.const(value, dtype)
  assert to_uir(u) == f"%0 = const {text if text != '.5' else '0.5'}\n"


def test_nan_and_signed_zero_are_distinct_constants():
  nan, nz, z = parse_uir("%0 = const nan"), parse_uir("%0 = const -0.0"), parse_uir("%0 = const 0.0")
  assert nan.dtype is dtypes.f32 and math.isnan(nan.arg) and to_uir(nan) == "%0 = const nan\n"
  assert nz is not z and math.copysign(1, nz.arg) == -1
  assert len({parse_uir(f"%0 = const {t}") for t in ("0", "0.0", "-0.0", "False")}) == 4


def test_float_literals_round_to_f32_and_print_with_repr():
  u = parse_uir("%0 = const 0.1")
  assert u.arg == 0.10000000149011612 and to_uir(u) == "%0 = const 0.10000000149011612\n"
  assert to_uir(parse_uir("%0 = const 1e+20")) == "%0 = const 1.0000000200408773e+20\n"
  assert parse_uir("%0 = const 1e39").arg == math.inf   # past FLT_MAX


def test_int_literal_next_to_f32_node_is_f32():
  f = UOp.param(0, dtypes.f32)
  u = parse_uir("%0 = param : slot=0 dtype=f32\n%1 = mul %0, 2")
  assert u is f * 2.0 and u.src[1].dtype is dtypes.f32 and to_uir(u).endswith("%1 = mul %0, 2.0\n")
  assert parse_uir("%0 = param : slot=0 dtype=f32\n%1 = cmplt 2, %0") is (UOp.const(2.0) < f)


def test_literal_with_literal_keeps_its_own_dtype():
  assert parse_uir("%0 = mul 1, 10") is UOp.const(1) * 10
  assert "mismatched dtypes" in err("%0 = add 1, 2.0")


def test_where_literal_typing():
  c = UOp.param(0, dtypes.bool)
  assert parse_uir("%0 = param : slot=0 dtype=bool\n%1 = where %0, 1, 0") is c.where(1, 0)
  assert parse_uir("%0 = param : slot=0 dtype=bool\n%1 = param : slot=1 dtype=f32\n%2 = where %0, %1, 1") \
    is c.where(UOp.param(1, dtypes.f32), 1.0)
  assert parse_uir("%0 = param : slot=1 dtype=f32\n%1 = where True, 0, %0") is UOp.const(True).where(0.0, UOp.param(1, dtypes.f32))
  assert err("%0 = where 1, 2, 3") == "t.uir:1:12: expected a bool literal here, got an i32 literal 1"


def test_call_arg_literal_takes_param_dtype():
  body = UOp.param(0, dtypes.f32).sqrt()
  assert parse_uir("%0 = param : slot=0 dtype=f32\n%1 = sqrt %0\n%2 = call %1, 4") is body.call(4.0)
  shaped = UOp.param(0, dtypes.f32, (2,)).sqrt()
  u = parse_uir("%0 = param : slot=0 dtype=f32 shape=(2,)\n%1 = sqrt %0\n%2 = call %1, 4")
  assert u is shaped.call(UOp.const(4.0).broadcast((2,)))


def test_index_and_stack_literals():
  s = UOp.stack(1.0, 2.0)
  assert parse_uir("%0 = stack 1.0, 2.0\n%1 = index %0, 1") is s.index(1)
  assert parse_uir("%0 = param : slot=0 dtype=f32\n%1 = stack %0, 1") is UOp.stack(UOp.param(0, dtypes.f32), 1.0)


def test_broadcast_sugar():
  # mul %1, 2 with %1 of shape (2, 3) f32 is mul(%1, expand(reshape(2.0, (1, 1)), (2, 3)))
  x = UOp.stack(UOp.stack(1.0, 2.0, 3.0), UOp.stack(1.0, 2.0, 3.0))
  sugar = parse_uir("%0 = stack 1.0, 2.0, 3.0\n%1 = stack %0, %0\n%2 = mul %1, 2")
  assert sugar is UOp(Ops.MUL, (x, UOp.const(2.0).reshape((1, 1)).expand((2, 3))))
  assert sugar is parse_uir("%0 = stack 1.0, 2.0, 3.0\n%1 = stack %0, %0\n%2 = reshape 2.0, (1, 1)\n%3 = expand %2, (2, 3)\n%4 = mul %1, %3")
  c = parse_uir("%0 = param : slot=0 dtype=bool shape=(3,)\n%1 = where %0, 1.5, 0.0")
  assert c.shape == (3,) and c.src[1] is UOp.const(1.5).broadcast((3,)) and c.src[2] is UOp.const(0.0).broadcast((3,))
  # two literals are typed alike only by a node beside them
  assert err("%0 = param : slot=0 dtype=bool shape=(3,)\n%1 = where %0, 1.5, 0") == "t.uir:2:6: WHERE: mismatched dtypes f32, i32"
  cond = parse_uir("%0 = param : slot=0 dtype=i32 shape=(2,)\n%1 = where True, %0, 0")
  assert cond.src[0] is UOp.const(True).broadcast((2,))


def test_printed_literal_is_never_coerced():
  # an i32 literal next to an i32 node, a bool next to a bool: all read back unchanged
  for u in [p0 * 2, (p0 < 3).ne(True), UOp.param(1, dtypes.bool).where(p0, 7), UOp.stack(p0, 1).index(0)]:
    assert parse_uir(to_uir(u)) is u


# ---- more syntax

def test_param_attributes_and_names():
  u = UOp.param(3, dtypes.f32, (2, 3), "global")
  assert to_uir(u) == "%0 = param : slot=3 dtype=f32 shape=(2, 3) addrspace=global\n"
  assert to_uir(UOp.param(0, dtypes.bool, (3,))) == "%0 = param : slot=0 dtype=bool shape=(3,)\n"
  assert parse_uir('%0 = param : dtype=i32 addrspace="my space" slot=0') is UOp.param(0, addrspace="my space")
  body = p0 * p0
  for name in ["sq", "a b", "", "call", 'q"\n\\', "é"]:
    u = body.call(3, name=name)
    assert parse_uir(to_uir(u)) is u and "\n" not in to_uir(u).splitlines()[-1]
  assert to_uir(body.call(3)).endswith("%2 = call %1, 3\n")


def test_every_op_prints():
  f = UOp.param(0, dtypes.f32, (2, 3))
  u = UOp.stack(f.recip().exp2().log2().sqrt().sin().permute((1, 0)).shrink(((0, 2), (1, 2))).reshape((2,)).reduce(Ops.MAX),
                UOp(Ops.RANGE, (UOp.const(4),)).cast(dtypes.f32))
  text = to_uir(u)
  for name in ["param", "recip", "exp2", "log2", "sqrt", "sin", "permute %5, (1, 0)", "shrink %6, ((0, 2), (1, 2))",
               "reshape %7, (2,)", "reduce %8 : op=max pop=1", "range 4", "cast %10 : dtype=f32", "stack %9, %11"]:
    assert name in text
  assert parse_uir(text) is u
  assert parse_uir("%0 = stack 1, 2\n%1 = floordiv %0, 2\n%2 = floormod %1, 3\n%3 = max %2, %0") is \
    (UOp.stack(1, 2) // UOp.const(2).broadcast((2,)) % UOp.const(3).broadcast((2,))).max(UOp.stack(1, 2))


def test_comments_blank_lines_refs_and_crlf():
  text = "# a program\n\n%a = param : slot=0 dtype=i32   # the input\r\n%b=mul %a,2\n\n"
  assert parse_uir(text) is p0 * 2
  assert parse_uir(b"\xef\xbb\xbf%0 = const 1\n") is UOp.const(1)   # a UTF-8 byte order mark is skipped


def test_root_is_last_node():
  assert parse_uir("%0 = const 1\n%1 = const 2") is UOp.const(2)
  assert to_uir(UOp.const(5)) == "%0 = const 5\n"
  assert to_uir(UOp.const(-0.0)) == "%0 = const -0.0\n"
  assert parse_uir("%0 = const 3\n%1 = add %0, %0") is UOp.const(3) + 3


def test_deep_chain_prints_and_parses():
  a = p0
  for _ in range(20_000): a = a + 1
  text = to_uir(a)
  assert text.count("\n") == 20_001 and text.endswith("%20000 = add %19999, 1\n")
  assert parse_uir(text) is a


# ---- property: every graph round-trips

NAMES = st.sampled_from([None, "sq", "f", "a b", "", "call", 'x"y', "\u2028"])


@settings(deadline=None)   # example count: the conftest profile (--slow for many)
@given(graphs(names=NAMES))
def test_random_graphs_round_trip(u):
  text = to_uir(u)
  assert text.endswith("\n")
  assert parse_uir(text) is u
  assert to_uir(parse_uir(text)) == text
  assert parse_uir(text.encode()) is u


# ---- errors

@pytest.mark.parametrize("text, message", [
  ("%0 = mull 1, 2", "t.uir:1:6: unknown op 'mull'; did you mean mul?"),
  ("%0 = stak 1", "t.uir:1:6: unknown op 'stak'; did you mean stack?"),
  ("%0 = zzz 1", "t.uir:1:6: unknown op 'zzz'; expected one of add, call, cast, cmplt, cmpne, const, exp2, expand, floordiv, "
   "floormod, index, log2, max, mul, param, permute, range, recip, reduce, reshape, shrink, sin, sqrt, stack, where"),
  ("%0 = add 1, 2x", "t.uir:1:13: bad literal '2x': expected an int (3), a float (3.0, inf, nan) or True/False"),
  ("%0 = const 1.2.3", "t.uir:1:12: bad literal '1.2.3': expected an int (3), a float (3.0, inf, nan) or True/False"),
  ("%0 = const 2147483648", "t.uir:1:12: integer literal 2147483648 is out of the i32 range"),
  ("%0 = const " + "9" * 5000, "t.uir:1:12: integer literal " + "9" * 40 + "... is out of the i32 range"),
  ("%0 = const -" + "0" * 5000 + "12345678901", "t.uir:1:12: integer literal -" + "0" * 39 + "... is out of the i32 range"),
  ("%0 = add %1, 2", "t.uir:1:10: undefined %1"),
  ("%0 = const 1\n%0 = const 2", "t.uir:2:1: %0 is already defined on line 1"),
  ("%0 = add 1", "t.uir:1:6: add takes 2 operands, got 1"),
  ("%0 = add 1, 2, 3", "t.uir:1:16: add takes 2 operands, got 3"),
  ("%0 = const", "t.uir:1:6: const takes 1 operand, got 0"),
  ("%0 = param 1 : slot=0 dtype=i32", "t.uir:1:12: param takes 0 operands, got 1"),
  ("%0 = reshape 1", "t.uir:1:6: reshape takes 2 operands, got 1"),
  ("%0 = param : slot=0 dtype=i32 size=3", "t.uir:1:31: unknown attribute 'size' for param; expected slot, dtype, shape, addrspace"),
  ("%0 = add 1, 2 : name=x", "t.uir:1:17: unknown attribute 'name' for add; add takes no attributes"),
  ("%0 = param : slot=0 slot=1 dtype=i32", "t.uir:1:21: duplicate attribute 'slot'"),
  ("%0 = param : slot=0", "t.uir:1:6: param needs the attribute dtype="),
  ("%0 = param : dtype=f32", "t.uir:1:6: param needs the attribute slot="),
  ("%0 = cast 1", "t.uir:1:6: cast needs the attribute dtype="),
  ("%0 = stack 1.0\n%1 = reduce %0 : pop=1", "t.uir:2:6: reduce needs the attribute op="),
  ("%0 = stack 1.0\n%1 = reduce %0 : op=add", "t.uir:2:6: reduce needs the attribute pop="),
  ("%0 = param : slot=0 dtype=i64", "t.uir:1:27: expected a dtype (bool, i32, f32) for dtype, got 'i64'"),
  ("%0 = param : slot=-1 dtype=i32", "t.uir:1:19: expected a non-negative integer for slot, got '-1'"),
  ("%0 = param : slot=0 dtype=i32 shape=3", "t.uir:1:37: expected a tuple like (2, 3) for shape, got '3'"),
  ("%0 = stack 1.0\n%1 = reduce %0 : op=sub pop=1", "t.uir:2:21: expected add, mul or max for op, got 'sub'"),
  ("%0 = param : slot=0 dtype=i32 addrspace=3", "t.uir:1:41: expected a name or a \"string\" for addrspace, got '3'"),
  ('%0 = param : slot=0 dtype=i32\n%1 = call %0, 1 : name="abc', "t.uir:2:24: unterminated string"),
  ('%0 = param : slot=0 dtype=i32 addrspace="\\q"', "t.uir:1:41: bad string: Invalid \\escape: line 1 column 2 (char 1)"),
  ("", "t.uir:1:1: expected at least one node '%N = op ...'"),
  ("# only a comment\n", "t.uir:1:17: expected at least one node '%N = op ...'"),
  ("\n\n   \n", "t.uir:3:4: expected at least one node '%N = op ...'"),
  ("\x00\x01", "t.uir:1:1: unexpected character '\\x00'"),
  ("%0 = const 1 $", "t.uir:1:14: unexpected character '$'"),
  ("%0 = const 1 ?x", "t.uir:1:14: expected ',', ':' or end of line after an operand, got '?x'"),
  ("0 = add 1, 2", "t.uir:1:1: expected a node definition '%N = op ...', got '0'"),
  ("%0 add", "t.uir:1:4: expected '=' after %0, got 'add'"),
  ("%0 = ", "t.uir:1:6: expected an op name after '=', got end of line"),
  ("%0 = add 1 2", "t.uir:1:12: expected ',', ':' or end of line after an operand, got '2'"),
  ("%0 = add 1, ", "t.uir:1:13: expected an operand (a %ref, a literal or a tuple), got end of line"),
  ("%0 = add 1, 2 : =", "t.uir:1:17: expected an attribute 'name=value', got '='"),
  ("%0 = reshape 1, (1", "t.uir:1:19: expected ',' or ')' in a tuple, got end of line"),
  ("%0 = reshape 1, 5", "t.uir:1:17: expected a tuple as reshape's second operand, got '5'"),
  ("%0 = add (1,), 2", "t.uir:1:10: a tuple is only allowed as a movement op's shape"),
  ("%0 = reshape 1, ((1,),)", "t.uir:1:17: expected a tuple of integers for reshape"),
  ("%0 = permute 1, ((1, 2), 0)", "t.uir:1:17: expected a tuple of integers for permute"),
  ("%0 = stack 1\n%1 = shrink %0, (0, 1)", "t.uir:2:17: expected ((begin, end), ...) for shrink"),
  ("%0 = reshape 1, (((1,),),)", "t.uir:1:19: tuples nest at most two deep"),
  ("%0 = stack 1\n%1 = permute %0, (1.0,)", "t.uir:2:19: expected an integer or ')' in a tuple, got '1.0'"),
])
def test_error_messages(text, message):
  assert err(text) == message


@pytest.mark.parametrize("text, message", [
  # literal typing
  ("%0 = param : slot=0 dtype=i32\n%1 = add %0, 2.5", "t.uir:2:14: expected an i32 literal here, got an f32 literal 2.5"),
  ("%0 = param : slot=0 dtype=i32\n%1 = add %0, True", "t.uir:2:14: expected an i32 literal here, got a bool literal True"),
  ("%0 = param : slot=0 dtype=bool\n%1 = cmpne %0, 1", "t.uir:2:16: expected a bool literal here, got an i32 literal 1"),
  ("%0 = param : slot=0 dtype=i32\n%1 = sqrt %0\n", "t.uir:2:6: SQRT: needs an f32 operand, got i32"),
  # UOpErrors, reported at the op
  ("%0 = param : slot=0 dtype=f32 shape=(2,)\n%1 = param : slot=1 dtype=f32 shape=(3,)\n%2 = add %0, %1",
   "t.uir:3:6: ADD: mismatched shapes (2,), (3,)"),
  ("%0 = param : slot=0 dtype=f32\n%1 = param : slot=1 dtype=i32\n%2 = add %0, %1", "t.uir:3:6: ADD: mismatched dtypes f32, i32"),
  ("%0 = stack 1, 2.0", "t.uir:1:6: STACK: mismatched dtypes f32, i32"),
  ("%0 = index 5, 1", "t.uir:1:6: INDEX: 1 indices into shape ()"),
  ("%0 = call 5, 1", "t.uir:1:6: CALL needs params 0..0, body has []"),
  ("%0 = stack 1, 2\n  %1 = reshape %0, (3,)", "t.uir:2:8: RESHAPE: cannot reshape (2,) to (3,)"),
])
def test_type_error_messages(text, message):
  assert err(text) == message


def test_invalid_utf8_is_reported_at_its_position():
  assert err(b"\xff") == "t.uir:1:1: invalid UTF-8 byte 0xff"
  assert err(b"%0 = const 1\n%1 = add %0, \xc3") == "t.uir:2:14: invalid UTF-8 byte 0xc3"
  assert err("# é\n%0 = ä".encode() + b"\x80") == "t.uir:2:7: invalid UTF-8 byte 0x80"


def test_lone_surrogates_are_refused_where_they_stand():
  # a lone surrogate cannot be encoded: it once parsed, then every printer and emit-c failed
  assert err('%0 = param : slot=0 dtype=i32\n%1 = call %0, 1 : name="a\\ud800"') == \
    "t.uir:2:24: bad string: lone surrogate U+D800 is not a character"
  assert err('%0 = param : slot=0 dtype=i32 addrspace="\\udfff"') == "t.uir:1:41: bad string: lone surrogate U+DFFF is not a character"
  assert err("%0 = const 1  # \udcff") == "t.uir:1:17: lone surrogate U+DCFF is not a character"
  assert parse_uir('%0 = param : slot=0 dtype=i32 addrspace="\\ud83d\\ude00"').arg.addrspace == "\U0001f600"   # a pair is a character


def test_a_free_param_slot_has_one_type():
  assert err("%0 = param : slot=0 dtype=i32\n%1 = param : slot=0 dtype=f32 shape=(2,)\n%2 = cast %1 : dtype=i32\n"
             "%3 = add %0, 1\n%4 = reshape %3, (1,)\n%5 = expand %4, (2,)\n%6 = add %5, %2") == \
    "t.uir:2:6: PARAM slot 0 is f32[2] here but i32 on line 1: a slot has one type in a program, as in a CALL's body"
  # a CALL's body is a scope of its own: its slot 0 is not the program's
  body_f32 = "%0 = param : slot=0 dtype=i32\n%1 = param : slot=0 dtype=f32\n%2 = cast %1 : dtype=i32\n%3 = call %2, 2.0\n%4 = add %0, %3"
  assert parse_uir(body_f32) is UOp.param(0) + UOp.param(0, dtypes.f32).cast(dtypes.i32).call(2.0)
  assert parse_uir("%0 = param : slot=1 dtype=i32\n%1 = param : slot=1 dtype=i32\n%2 = add %0, %1") is UOp.param(1) + UOp.param(1)


def test_uir_error_fields():
  with pytest.raises(UIRError) as info: parse_uir("%0 = param : slot=0 dtype=i32\n%1 = add %0, %9", "prog.uir")
  e = info.value
  assert (e.filename, e.line, e.col, e.message) == ("prog.uir", 2, 14, "undefined %9")
  assert str(e) == "prog.uir:2:14: undefined %9"
  e2 = pickle.loads(pickle.dumps(e))
  assert str(e2) == str(e) and e2.col == 14
  assert "\n" not in str(UIRError("f", 1, 1, "two\nlines"))


def test_non_string_input_is_a_type_error():
  with pytest.raises(TypeError): parse_uir(None)   # type: ignore[arg-type]


# ---- fuzzing: nothing but UIRError ever escapes

SEEDS = [CHAPTER, *CHAPTER_LISTINGS, "%0 = param : slot=0 dtype=f32 shape=(2, 3) addrspace=global\n%1 = shrink %0, ((0, 2), (1, 3))\n"
         '%2 = call %1, 2.0 : name="x y"\n%3 = reduce %1 : op=max pop=2 # c\n']
ALPHABET = list("%=,:()[]#\"\\?-+._ \t\n\r0123456789eE") + ["inf", "nan", "True", "param", "call", "slot=", "dtype=", "%1", "\x00", "é", "\ud800"]


def _parses_or_uir_error(text) -> None:
  try: u = parse_uir(text)
  except UIRError as e:
    assert "\n" not in str(e) and re.match(r"<string>:\d+:\d+: ", str(e)), str(e)
    return
  assert parse_uir(to_uir(u)) is u


def test_fuzz_mutations_deterministic():
  rng = random.Random(1234)
  for i in range(3000):
    text = mutated(rng, rng.choice(SEEDS), ALPHABET, most=4)
    _parses_or_uir_error(text)
    if i % 10 == 0:
      _parses_or_uir_error(text.encode("utf-8", "surrogatepass")[:rng.randrange(len(text) + 1)])


@settings(deadline=None)   # example count: the conftest profile (--slow for many)
@given(st.one_of(st.text(), st.binary(), st.lists(st.sampled_from(ALPHABET)).map("".join),
                 st.tuples(st.sampled_from(SEEDS), st.integers(0, 400), st.text(max_size=5)).map(lambda t: t[0][:t[1]] + t[2] + t[0][t[1]:])))
def test_fuzz_hypothesis(text):
  _parses_or_uir_error(text)


# ---- the format reference: every example in docs/uir-format.md is checked

def _blocks(info: str) -> list[str]:
  return re.findall(rf"^```{info}\n(.*?)^```$", DOC.read_text(), re.S | re.M)


def test_doc_uir_blocks_round_trip():
  blocks = _blocks("uir")
  assert len(blocks) >= 8
  for block in blocks:
    u = parse_uir(block, "docs/uir-format.md")
    assert parse_uir(to_uir(u)) is u
    if "#" not in block: assert to_uir(u) == block, block   # canonical blocks are exactly what to_uir prints


def test_doc_error_blocks():
  text = DOC.read_text()
  pairs = re.findall(r"^```uir-error\n(.*?)^```\n\n```text\n(.*?)\n```$", text, re.S | re.M)
  assert len(pairs) == text.count("\n```uir-error\n") >= 5
  for program, message in pairs:
    assert err(program, "example.uir") == message


@pytest.mark.parametrize("text, value", [("0000000000001", 1), ("-0000000000001", -1), ("0" * 5000, 0),
                                         ("-0002147483648", -2**31), ("00002147483647", 2**31 - 1)])
def test_leading_zeros_do_not_count_against_the_range(text, value):
  assert parse_uir(f"%0 = const {text}\n").arg == value


# ---- the plain-line reader (to_uir's common lines, without tokens) says what the general parser says

PLAIN_SEEDS = ["%0 = param : slot=0 dtype=i32\n%1 = add %0, 0\n%2 = param : slot=1 dtype=f32\n%3 = mul %2, 2.5\n"
               "%4 = cast %1 : dtype=f32\n%5 = where %0, %3, -1e+30\n%6 = neg %5\n%7 = max %6, %3\n%8 = const 7\n%9 = cmplt %0, %8\n",
               "%0 = param : slot=1 dtype=i32\n%1 = param : slot=1 dtype=f32\n%2 = cast %1 : dtype=i32\n%3 = add %0, %2\n"]
# plain_lines' loop: literals on either side, one literal beside i32, f32, bool and shaped nodes, comparisons, floordiv
PLAIN_SEEDS += ["%0 = param : slot=0 dtype=i32\n%1 = param : slot=1 dtype=f32\n%2 = add 1, %0\n%3 = mul %1, 1\n%4 = floordiv %2, 1\n"
                "%5 = cmplt %1, 1\n%6 = cmpne %5, True\n%7 = param : slot=2 dtype=f32 shape=(2,)\n%8 = max 1, %7\n%9 = add %0, 1\n"
                "%10 = add %8, %7\n%11 = cmpne %2, %9\n"]
PLAIN_SEEDS += [PLAIN_SEEDS[0].replace("\n", "\r\n"), PLAIN_SEEDS[0].replace("\n", " \t\n")]   # CRLF, trailing blanks


def _general_reading(text):
  """What the parser says without its plain-line readers (plain_lines' loop and plain_line): the UOp, or the error's text."""
  saved = uopc.uir._Parser.plain_lines, uopc.uir._Parser.plain_line
  uopc.uir._Parser.plain_lines = lambda self, lines, i: i
  uopc.uir._Parser.plain_line = lambda self, line, lineno, filename: None
  try: return _reading(text)
  finally: uopc.uir._Parser.plain_lines, uopc.uir._Parser.plain_line = saved


def test_plain_lines_read_a_printed_program_without_the_general_parser(monkeypatch):
  # to_uir's PARAM and binary lines are read by plain_lines' loop alone: the general readers see only the last, empty line
  p2 = UOp.param(2, dtypes.f32)
  u = ((p0 + 1) * (2 + p1)).ne(p0).where(p2 * 3, p2 + p2.cast(dtypes.i32).cast(dtypes.f32))
  program = ((p0 + 1) * (2 + p1) + p0 // 3).max(p1) < p0 * 0
  seen = []
  def counted(name):
    method = getattr(uopc.uir._Parser, name)
    def run(self, *args):
      seen.append(name)
      return method(self, *args)
    monkeypatch.setattr(uopc.uir._Parser, name, run)
  counted("plain_line")
  counted("line")
  assert parse_uir(to_uir(program)) is program
  assert seen == ["plain_line", "line"]
  seen.clear()
  assert parse_uir(to_uir(u)) is u   # the where line goes to plain_line, the two casts (attributes) on to line
  assert seen.count("plain_line") == 4 and seen.count("line") == 3


def test_plain_lines_literals_take_their_neighbours_type():
  # one literal text beside nodes of three types: each reading makes its own constant, as the general parser does
  text = ("%0 = param : slot=0 dtype=i32\n%1 = param : slot=1 dtype=f32 shape=(2,)\n%2 = param : slot=2 dtype=f32\n"
          "%3 = add %0, 1\n%4 = mul 1, %1\n%5 = add %2, 1\n%6 = add %0, 1\n%7 = cmplt 1, %2\n")
  p1s, p2 = UOp.param(1, dtypes.f32, (2,)), UOp.param(2, dtypes.f32)
  assert parse_uir(text) is (UOp.const(1.0) < p2)
  for k, u in [(4, p0 + 1), (5, UOp.const(1.0).broadcast((2,)) * p1s), (6, p2 + 1.0), (7, p0 + 1)]:
    assert parse_uir("\n".join(text.splitlines()[:k])) is u


def test_plain_lines_stop_at_what_they_do_not_read():
  # the line the loop stops at is the general parser's, with the loop's definitions (and their lines) in place
  assert err("# c\n\n%0 = param : slot=0 dtype=i32\n%1 = add %0, 1\n%1 = add %0, 2\n") == "t.uir:5:1: %1 is already defined on line 4"
  assert err("%0 = param : slot=0 dtype=f32\n%1 = floordiv %0, 2\n") == "t.uir:2:6: FLOORDIV: needs i32 operands, got f32"
  assert err("%0 = param : slot=0 dtype=f32\n%1 = param : slot=1 dtype=i32\n%2 = add %0, %1\n") == "t.uir:3:6: ADD: mismatched dtypes f32, i32"
  assert err("%0 = param : slot=0 dtype=bool\n%1 = add %0, 1\n") == "t.uir:2:14: expected a bool literal here, got an i32 literal 1"
  assert err("%0 = param : slot=0 dtype=i32\n%1 = add %0, %2\n") == "t.uir:2:14: undefined %2"
  assert parse_uir("%0 = param : slot=0 dtype=i32\n%1 = add %0, 1 # one\n%2 = mul %1, %0\n") is (p0 + 1) * p0


def _reading(text):
  try: return parse_uir(text)
  except UIRError as e: return str(e)


def _mutated(rng, text):
  return mutated(rng, text, ALPHABET, inserted=ALPHABET + ["%0", "%9", "add", "f32", "bool", "i32", "99999999999", "0x1"])


def test_plain_lines_read_as_the_general_parser_reads_them():
  rng = random.Random(99)
  plain = 0
  for _ in range(3000):
    text = _mutated(rng, rng.choice(PLAIN_SEEDS + SEEDS))
    ours, general = _reading(text), _general_reading(text)
    assert ours is general if isinstance(general, UOp) else ours == general, text
    plain += isinstance(general, UOp)
  assert plain > 100   # enough mutants still parse to compare graphs, not only errors


@given(graphs(names=NAMES), st.randoms(use_true_random=False))
def test_plain_lines_on_random_graphs(u, rng):
  text = to_uir(u)
  assert _reading(text) is u
  mutant = _mutated(rng, text)
  ours, general = _reading(mutant), _general_reading(mutant)
  assert ours is general if isinstance(general, UOp) else ours == general
