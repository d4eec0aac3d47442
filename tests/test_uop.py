"""UOp: hash consing (with the numeric-tower traps), shapes, type errors, walks."""
import gc
import math
import pickle
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.helpers import param
from tests.strategies import graphs, values
from uopc import Ops, ParamArg, UOp, UOpError, dtypes
from uopc.dtype import truncate
from uopc.ops import ARGLESS, BINARY
from uopc.uop import call_params, live_nodes, make_const, make_uop, stack_rows

p0, p1 = param(0), param(1)


def test_hash_consing_makes_is_structural_equality():
  assert (p0 + 2) * 3 is (p0 + 2) * 3
  assert UOp(Ops.PARAM, (), ParamArg(0, dtypes.i32)) is p0
  assert p0 + p1 is not p1 + p0


@pytest.mark.parametrize("a, b", [(0, 0.0), (0.0, -0.0), (0, False), (1, True), (0, -0.0), (1, 1.0)])
def test_constants_of_different_types_or_signs_never_collide(a, b):
  assert UOp.const(a) is not UOp.const(b)


def test_nan_constants_are_one_node_and_keep_their_dtype():
  n = UOp.const(float("nan"))
  assert n is UOp.const(-math.nan) is UOp.const(math.inf - math.inf)
  assert n.dtype is dtypes.f32 and math.isnan(n.arg)
  assert UOp.const(0.1).arg == 0.10000000149011612   # f32 rounding at construction
  assert truncate(dtypes.i32, 2**31) == -2**31 and make_uop(Ops.CONST, (), 2**31).arg == -2**31   # i32 wraps, inside the engine
  assert UOp.const(1, dtypes.f32) is UOp.const(1.0)


def test_shapes():
  v = UOp.stack(1, 2, 3)
  m = UOp.stack(v, v)
  assert v.shape == (3,) and m.shape == (2, 3) and m.index(1).shape == (3,) and m.index(1, 2).shape == ()
  assert m.permute((1, 0)).shape == (3, 2) and m.reshape((6,)).shape == (6,)
  assert m.shrink(((0, 1), (1, 3))).shape == (1, 2) and m.reduce(Ops.ADD, 1).shape == (2,)
  assert UOp.const(2.0).broadcast((2, 3)).shape == (2, 3)
  assert (p0 * p0).call(7, name="sq").shape == ()
  assert param(0, dtypes.f32, (3,)).shape == (3,)


@pytest.mark.parametrize("build, message", [
  (lambda: p0 + param(2, dtypes.f32), "ADD: mismatched dtypes i32, f32"),
  (lambda: UOp.stack(1, 2) + UOp.stack(1, 2, 3), r"ADD: mismatched shapes \(2,\), \(3,\)"),
  (lambda: UOp.stack(1, 2.0), "STACK: mismatched dtypes f32, i32"),
  (lambda: UOp.stack(1, 2).index(5, 6), r"INDEX: 2 indices into shape \(2,\)"),
  (lambda: p0.where(p0, p0), "WHERE: condition must be bool, got i32"),
  (lambda: p0.sqrt(), "SQRT: needs an f32 operand, got i32"),
  (lambda: param(0, dtypes.f32) // 2.0, "FLOORDIV: needs i32 operands, got f32"),
  (lambda: UOp.stack(1, 2).reshape((3,)), r"RESHAPE: cannot reshape \(2,\) to \(3,\)"),
  (lambda: UOp.stack(1, 2).expand((3,)), r"EXPAND: cannot expand \(2,\) to \(3,\)"),
  (lambda: UOp.stack(1, 2).permute((1,)), "PERMUTE: .* is not a permutation of 1 dims"),
  (lambda: UOp.stack(1, 2).shrink(((1, 3),)), "SHRINK: .* inside shape"),
  (lambda: UOp.stack(1, 2).reduce(Ops.WHERE, 1), r"REDUCE: arg must be \(ADD\|MUL\|MAX, k\)"),
  (lambda: (p0 * p1).call(7), r"CALL needs params 0\.\.0, body has \[0, 1\]"),
  (lambda: (p0 * p0).call(UOp.const(7.0)), "CALL: argument 0 is f32"),
  (lambda: UOp(Ops.CAST, (p0,)), "CAST: needs a dtype"),
  (lambda: UOp(Ops.STACK, ()), "STACK: needs at least one element"),
  (lambda: UOp(Ops.ADD, (p0, 3)), "ADD: sources must be UOps, got int"),
  (lambda: UOp(Ops.ADD, (p0,)), "ADD: needs 2 sources, got 1"),
  (lambda: UOp.const("three"), "CONST: no dtype for a str value"),
])
def test_type_errors_name_the_op_and_the_problem(build, message):
  with pytest.raises(UOpError, match=message):
    build()


def test_operators_build_constants_like_self():
  f = param(0, dtypes.f32)
  assert (f * 2).src[1] is UOp.const(2.0)
  assert (3 + p0).src[0] is UOp.const(3)
  assert (p0 - 1) is p0 + UOp.const(1) * -1
  assert (p0 < 1).dtype is dtypes.bool and (p0 < p1).where(1, 0).dtype is dtypes.i32
  v = param(1, dtypes.i32, (3,))
  assert (v + 1).src[1] is UOp.const(1).broadcast((3,))


def test_toposort_is_sources_first_left_to_right_and_scoped_walks():
  e = (p0 + 2) * p1
  assert e.toposort() == [p0, UOp.const(2), p0 + 2, p1, e]
  sq = (p0 * p0).call(p1 + 1, name="sq")
  assert call_params(sq + p0) == [p1, p0]   # the body's p0 belongs to sq, the outer p0 is free
  assert call_params(sq) == [p1]


def test_substitute_and_replace():
  e = (p0 + 2) * p0
  assert e.substitute({p0: p1}) is (p1 + 2) * p1
  assert e.replace(op=Ops.ADD) is (p0 + 2) + p0


def test_deep_graphs_walk_without_recursion():
  chain = p0
  for _ in range(20_000): chain = chain + 1
  assert len(chain.toposort()) == 20_002
  assert chain.substitute({p0: p1}).src[0].src[0].src[0].op is Ops.ADD
  assert repr(chain).endswith("…)")


def test_nodes_are_values_for_copy_and_pickle():
  import copy
  e = (p0 + 2) * 3
  assert copy.deepcopy(e) is e and pickle.loads(pickle.dumps(e)) is e


def test_a_graph_of_any_depth_pickles():
  # the user's case: pickle of a chain of 20,000 ADDs raised RecursionError (pickle nested a level of C frames a node)
  shared = (p0 * 3 + p1) * (p1 - 2)   # a low part every node of the chain uses: pickled once, by pickle's memo
  chain = p0
  for i in range(20_000): chain = chain + shared if i % 2 else chain + 1
  for protocol in range(pickle.HIGHEST_PROTOCOL + 1):
    blob = pickle.dumps([chain, chain.src[0], shared], protocol=protocol)
    assert pickle.loads(blob) == [chain, chain.src[0], shared] and pickle.loads(blob)[0] is chain   # hash-consed: the same node
  assert len(pickle.dumps(chain)) < 20 * 20_000   # each node's few fields, not the shared part again


@given(graphs())
def test_pickle_round_trips_a_graph(g):
  assert pickle.loads(pickle.dumps(g)) is g


def test_unused_nodes_are_collected():
  gc.collect()   # nodes held only by an earlier test's garbage cycles would die mid-test and be counted out
  before = live_nodes()
  junk = [UOp.param(10_000 + i) for i in range(1000)]
  assert live_nodes() >= before + 1000
  del junk
  assert live_nodes() <= before


@given(st.sampled_from(dtypes.all).flatmap(lambda d: st.tuples(st.just(d), values(d))))
def test_make_const_is_the_constant_constructor_for_values_already_in_the_dtype(dv):
  dtype, v = dv
  v = truncate(dtype, v)   # make_const's contract: the value is already in the dtype's value set
  assert make_const(v, dtype) is UOp.const(v, dtype)


@given(st.sampled_from(list(BINARY)), st.sampled_from([dtypes.i32, dtypes.f32, dtypes.bool]), st.integers(1, 6), st.data())
def test_stack_rows_is_the_stack_make_uop_makes_row_by_row(op, dtype, n, data):
  if op in (Ops.FLOORDIV, Ops.FLOORMOD): dtype = dtypes.i32
  a = UOp.stack(*[UOp.const(data.draw(values(dtype)), dtype) for _ in range(n)])
  b = UOp.stack(*[UOp.const(data.draw(values(dtype)), dtype) for _ in range(n)])
  columns = [a.src, [b.index(i) for i in range(n)]]   # a STACK's elements, and INDEXes of one node
  want = make_uop(Ops.STACK, tuple(make_uop(op, row) for row in zip(*columns)))
  assert stack_rows(op, columns) is want
  assert (want.dtype, want.shape) == (make_uop(op, (a.src[0], b.src[0])).dtype, (n,))


def test_collecting_drops_a_dead_graph_in_one_pass_whatever_tables_its_nodes_are_in():
  import gc
  gc.collect()   # earlier tests' cyclic garbage may hold nodes: free it now, not between the counts below
  before = live_nodes()
  x = UOp.param(20_000)
  for i in range(3000): x = x + 1 if i % 3 == 0 else x * 2 if i % 3 == 1 else x.max(3)   # users and sources alternate tables
  gc.collect()
  with_chain = live_nodes()
  assert with_chain >= before + 3000
  kept = x.src[0].src[0]   # a node two below the top stays, with everything below it
  del x
  assert live_nodes() == with_chain - 2
  del kept
  assert live_nodes() <= before


def test_existing_nodes_finds_a_node_without_making_one():
  from uopc.uop import existing_nodes, live_nodes
  node = p0 + 1   # alive while it is looked up
  assert existing_nodes(Ops.ADD, dtypes.i32, None)((p0, UOp.const(1))) is node
  before = live_nodes()
  assert existing_nodes(Ops.ADD, dtypes.i32, None)((p0, UOp.const(12345))) is None
  assert existing_nodes(Ops.MUL, dtypes.f32, None)((p0, p0)) is None   # no table for this (op, dtype, arg) at all
  assert live_nodes() == before   # a look-up never makes a node


def test_existing_nodes_does_not_hold_constants():
  from uopc.uop import existing_nodes
  c = UOp.const(7)
  assert existing_nodes(Ops.CONST, dtypes.i32, 7)(()) is None and UOp.const(7) is c


def test_collecting_works_from_a_fresh_start_and_leaves_no_empty_tables():
  import subprocess
  import sys
  code = ("from uopc.uop import UOp, UOpError, live_nodes, _tables\n"
          "assert live_nodes() == 0\n"   # nothing with sources yet: an empty log
          "for i in range(50):\n"
          "  try: UOp.param(0).reshape((i + 2,))\n"   # ill-typed: no table may be left behind
          "  except UOpError: pass\n"
          "ps = [UOp.param(i) + 1 for i in range(50)]\n"
          "assert live_nodes() >= 50 and len(_tables) >= 50\n"
          "del ps\n"
          "live_nodes()\n"
          "assert all(_tables.values()), 'empty tables left'\n")
  subprocess.run([sys.executable, "-c", code], check=True)


@pytest.mark.parametrize("make, message", [
  (lambda: UOp.param(0) * 2.5, "expected an i32 constant, got f32 literal 2.5"),
  (lambda: 2.5 * UOp.param(0), "expected an i32 constant, got f32 literal 2.5"),
  (lambda: UOp.param(0) + 2**31, "expected an i32 constant, got i32 literal 2147483648"),
  (lambda: (UOp.param(0) < 1).ne(2), "expected a bool constant, got i32 literal 2"),
  (lambda: UOp.param(0) + "1", "expected an i32 constant, got str '1'"),
])
def test_a_python_number_that_is_not_a_value_of_the_dtype_is_an_error_as_in_uir(make, message):
  with pytest.raises(UOpError, match=f"^{re.escape(message)}$"): make()


def test_a_python_number_that_is_a_value_of_the_dtype_is_a_constant_of_it():
  f = UOp.param(0, dtypes.f32)
  assert (f * 2).src[1] is UOp.const(2.0) and (f * 0.1).src[1].dtype is dtypes.f32
  b = UOp.param(0) < 1
  assert b.ne(1).src[1] is UOp.const(True) and b.ne(False).src[1] is UOp.const(False)
def test_a_node_memo_keeps_no_node_alive_past_a_collection():
  from uopc.uop import node_memo
  from uopc.symbolic import simplify
  before = live_nodes()
  memo = node_memo()
  memo[UOp.param(0) * 777_777] = True
  simplify((UOp.param(0) + 888_888) * 1)   # simplify's memo is one too
  assert live_nodes() == before and memo == {}


@given(graphs(max_ops=12))
def test_argless_ops_have_no_arg(g):
  """``ARGLESS`` is what patterns of these ops may assume: their nodes never carry an arg."""
  assert all(u.arg is None for u in g.toposort() if u.op in ARGLESS)


@pytest.mark.parametrize("make", [lambda s: UOp.param(0).call(UOp.param(0), name=s), lambda s: UOp.param(0, addrspace=s)])
def test_a_name_must_be_text(make):
  """A lone surrogate is no character: refused when the node is made (the .uir parser refuses it where it is written)."""
  for bad in ("\ud800", "a\udfffb", "\ud800\udfff"):   # the last is two lone surrogates, not one astral character
    with pytest.raises(UOpError, match="is not text: lone surrogate U\\+D"): make(bad)
  assert make("\U000103ff ok").op in (Ops.CALL, Ops.PARAM)


@pytest.mark.parametrize("make, message", [
  (lambda: UOp.const(2**40), "CONST: 1099511627776 is out of range for i32: -2147483648 to 2147483647 "
                             "(uopc.dtype.truncate(dtypes.i32, v) wraps it)"),
  (lambda: UOp.const(2**31, dtypes.i32), "CONST: 2147483648 is out of range for i32: -2147483648 to 2147483647"),
  (lambda: UOp.const(-2**31 - 1), "CONST: -2147483649 is out of range for i32"),
  (lambda: UOp(Ops.CONST, arg=2**40), "CONST: 1099511627776 is out of range for i32"),   # the class call is UOp.const
  (lambda: UOp.const(2.5, dtypes.i32), "CONST: 2.5 is not an i32 value: an integer from -2147483648 to 2147483647"),
  (lambda: UOp.const(float("inf"), dtypes.i32), "CONST: inf is not an i32 value"),
  (lambda: UOp.const(3, dtypes.bool), "CONST: 3 is not a bool value: True, False, 1 or 0"),
  (lambda: UOp.const(10**400, dtypes.f32), "CONST: 1000000000000000000000000000000000000000... is out of range for f32"),
  (lambda: UOp.stack(1, 2**32), "CONST: 4294967296 is out of range for i32"),
  (lambda: UOp.stack(1, 2).index(2**32), "CONST: 4294967296 is out of range for i32"),
  (lambda: UOp.param(0).call(2**32), "CONST: 4294967296 is out of range for i32"),
])
def test_an_out_of_range_literal_is_an_error_naming_the_range(make, message):
  with pytest.raises(UOpError, match=f"^{re.escape(message)}"): make()


def test_literals_in_range_and_values_the_engine_computes_are_constants():
  assert UOp.const(2**31 - 1).arg == 2**31 - 1 and UOp.const(-2**31).arg == -2**31 and UOp.const(2.0, dtypes.i32) is UOp.const(2)
  assert UOp.const(1, dtypes.bool) is UOp.const(True) and UOp.const(0.0, dtypes.bool) is UOp.const(False)
  assert UOp.const(1e39).arg == float("inf") and UOp.const(2**200, dtypes.f32).arg == float("inf")   # f32 rounds (to inf past its max)
  big = UOp.const(2**31 - 1)
  assert (big + 1).src[1] is UOp.const(1)
  from uopc.evaluate import run
  assert run(big + 1) is UOp.const(-2**31) and run(UOp.const(-2**31) * -1) is UOp.const(-2**31)   # computed values wrap
  assert make_uop(Ops.CONST, (), 2**31, dtypes.i32).arg == -2**31   # the engine's internal constructor wraps, on purpose


def test_a_huge_literal_is_named_briefly():
  with pytest.raises(UOpError, match=r"^CONST: a 16610-bit integer is out of range for i32"): UOp.const(10**5000)
