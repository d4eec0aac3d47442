"""UPat: the chapter's matching examples, sugar, and pattern printing."""
import pytest

from tests.helpers import param
from uopc import Ops, UOp, UPat, dtypes

x, y = param(0), param(1)


def test_consistent_names():
  same = UPat(Ops.ADD, src=(UPat.var("a"), UPat.var("a")))
  assert same.match(x + y, {}) == []
  assert same.match(x + x, {}) == [{"a": x}]
  assert repr(x) == "UOp(Ops.PARAM, arg=ParamArg(slot=0, dtype=dtypes.i32, shape=(), addrspace=None))"


def test_list_sources_match_in_any_order():
  pat = UPat(Ops.ADD, src=[UPat.var("a"), UPat.var("b")])
  assert pat.match(x + y, {}) == [{"a": x, "b": y}, {"b": x, "a": y}]
  assert UPat(Ops.ADD, src=(UPat.var("a"), UPat.var("b"))).match(x + y, {}) == [{"a": x, "b": y}]


def test_sugar_builds_commutative_list_sources():
  c = UPat.var("x") + UPat.cvar("c")
  assert repr(c.src) == "[UPat(None, name=x), UPat({Ops.CONST}, name=c)]" and type(c.src) is list
  assert c.match(x + 3, {}) == [{"x": x, "c": UOp.const(3)}]
  assert c.match(UOp.const(3) + x, {}) == [{"c": UOp.const(3), "x": x}]
  d = UPat.var("x") // 2
  assert repr(d.src) == "(UPat(None, name=x), UPat({Ops.CONST}, name=None))" and type(d.src) is tuple
  assert d.match(x // 2, {}) == [{"x": x}] and d.match(x // 3, {}) == []


def test_constraints_on_op_dtype_and_arg():
  assert UPat(Ops.CONST, arg=0).match(UOp.const(0.0), {}) == [{}]          # args compare with ==: 0 == 0.0
  assert UPat(Ops.CONST, arg=0).match(UOp.const(False), {}) == [{}]
  assert UPat(Ops.CONST, arg=0, dtype=dtypes.i32).match(UOp.const(False), {}) == []
  assert UPat((Ops.ADD, Ops.MUL), name="u").match(x * y, {}) == [{"u": x * y}]
  assert UPat({Ops.ADD}).match(x * y, {}) == []


def test_allow_any_len_constrains_a_prefix():
  m = UOp.stack(UOp.stack(1, 2), UOp.stack(3, 4))
  pat = UPat(Ops.INDEX, src=(UPat(Ops.STACK, name="s"),), allow_any_len=True)
  assert pat.match(m.index(0, 1), {}) == [{"s": m}]
  assert pat.match(m.index(), {}) == [{"s": m}]
  assert UPat(Ops.INDEX, src=(UPat(Ops.STACK),)).match(m.index(0), {}) == []


def test_join_over_sources_keeps_every_binding():
  pat = UPat(Ops.ADD, src=[UPat(Ops.ADD, src=[UPat.var("a"), UPat.var("b")]), UPat.var("c")])
  s = x + y
  matches = pat.match(s + s, {})   # 2 outer orders x 2 inner orders
  assert len(matches) == 4 and all(m["c"] is s and {m["a"], m["b"]} == {x, y} for m in matches)


def test_pretty_reads_like_the_math():
  xi, c1, c2 = UPat.var("x", dtype=dtypes.i32), UPat.cvar("c1"), UPat.cvar("c2")
  assert ((xi + c1) + c2).pretty() == "(x:i32 + const(c1)) + const(c2)"
  assert (UPat.var("x") + 0).pretty() == "x + 0"
  assert UPat(Ops.WHERE, src=(UPat(), UPat.var("x"), UPat.var("x"))).pretty() == "where(_, x, x)"
  assert UPat((Ops.ADD, Ops.MUL), name="u").pretty() == "u={add,mul}"


def test_a_name_must_be_an_identifier_it_is_a_rule_functions_parameter():
  import pytest

  from uopc.upat import UPatError
  hostile = ["x\nimport os\nos._exit(99)", "x'}); import os; os._exit(99); ({'", 'x"', "class", "lambda", "None", "1x", "",
             "a b", "x-y", 3, ("x",)]
  for name in hostile:
    with pytest.raises(UPatError, match=r"^a UPat name must be a Python identifier \(its rule function's parameter\), got "):
      UPat(Ops.ADD, name=name)
    with pytest.raises(UPatError): UPat.var(name)
    with pytest.raises(UPatError): UPat.cvar(name)
  assert issubclass(UPatError, ValueError)
  assert [UPat.var(n).name for n in ("x", "_", "ctx", "match", "type", "x1", "ñ")] == ["x", "_", "ctx", "match", "type", "x1", "ñ"]


def test_a_string_op_or_dtype_is_refused_with_what_to_write():
  # the user's case: UPat("ADD") became the op set {'A', 'D'} and matched nothing, silently
  cases = [({"op": "ADD"}, "op", "'ADD': write Ops.ADD (from uopc import Ops)"),
           ({"op": (Ops.MUL, "ADD")}, "op", "'ADD': write Ops.ADD (from uopc import Ops)"),
           ({"op": {"MUL"}}, "op", "'MUL': write Ops.MUL (from uopc import Ops)"),
           ({"op": "FOO"}, "op", "'FOO'"), ({"op": 3}, "op", "3"),
           ({"dtype": "i32"}, "dtype", "'i32': write dtypes.i32 (from uopc import dtypes)"),
           ({"dtype": (dtypes.f32, "bool")}, "dtype", "'bool': write dtypes.bool (from uopc import dtypes)")]
  for kwargs, what, tail in cases:
    namespace = "Ops" if what == "op" else "dtypes"
    with pytest.raises(TypeError) as e: UPat(**kwargs)
    assert str(e.value) == f"a UPat's {what} must be {namespace}.<name> or a tuple or set of them, not {tail}"
  assert UPat([Ops.ADD, Ops.MUL]).op == UPat((Ops.ADD, Ops.MUL)).op == UPat(frozenset({Ops.ADD, Ops.MUL})).op == {Ops.ADD, Ops.MUL}
  assert UPat(Ops.ADD, dtype=dtypes.i32).dtype == {dtypes.i32} and UPat().op is None
