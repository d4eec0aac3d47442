"""The chapter ("Term Rewriting and the Rewrite Engine") as its reader types it: every import, every printed snippet.

The chapter's full code is two files, ``uopc/rewrite.py`` and ``uopc/symbolic.py``;
the project splits them into smaller modules (``upat``, ``matcher``, ``alu``,
``bounds``, ``evaluate``), and the chapter's modules still hand out every name the
chapter defines in them.
"""
import importlib

import pytest

# the import lines of the chapter's two listings, verbatim
from uopc.uop import UOp, Ops
from uopc.dtype import DType  # noqa: F401
from uopc.uop import UOp, Ops, ALU, call_params, prod  # noqa: F401, F811
from uopc.dtype import dtypes, truncate  # noqa: F401
from uopc.rewrite import UPat, PatternMatcher, graph_rewrite

from uopc.rewrite import RewriteTypeError
from uopc.symbolic import evaluate, symbolic

# every top-level name each listing defines, by the module the chapter puts it in
CHAPTER_NAMES = {
  "uopc.rewrite": ["UPat", "Rule", "PatternMatcher", "graph_rewrite"],
  "uopc.symbolic": ["exec_alu", "bounds", "vmin", "vmax", "fold", "symbolic", "inline_call", "evaluate", "simplify", "run",
                    "to_python"],
}

x, y = UOp.param(0), UOp.param(1)
PARAM0 = "UOp(Ops.PARAM, arg=ParamArg(slot=0, dtype=dtypes.i32, shape=(), addrspace=None))"
PARAM1 = "UOp(Ops.PARAM, arg=ParamArg(slot=1, dtype=dtypes.i32, shape=(), addrspace=None))"


@pytest.mark.parametrize("module", sorted(CHAPTER_NAMES))
def test_every_name_a_listing_defines_imports_from_its_module(module):
  mod = importlib.import_module(module)
  assert [n for n in CHAPTER_NAMES[module] if not hasattr(mod, n)] == []


def test_the_split_modules_hand_out_the_same_objects():
  import uopc
  import uopc.evaluate as _  # noqa: F401
  from uopc.symbolic import inline_call, run, to_python
  assert ALU is uopc.ALU and UPat is uopc.UPat and PatternMatcher is uopc.PatternMatcher
  assert evaluate is uopc.evaluate and run is uopc.run and to_python is uopc.to_python and inline_call is uopc.inline_call
  with pytest.raises(ImportError): exec("from uopc.symbolic import no_such_name")


def test_2_1_the_minus_zero_conflict():
  e = UOp.const(-0.0) + UOp.const(0.0)
  assert repr(graph_rewrite(e, symbolic).arg) == "0.0"                    # folding is listed first
  rev = PatternMatcher(symbolic.rules[1:] + symbolic.rules[:1])
  assert repr(graph_rewrite(e, rev).arg) == "-0.0"                        # identity first


def test_2_2_consistent_names_and_list_sources():
  same = UPat(Ops.ADD, src=(UPat.var("a"), UPat.var("a")))
  assert repr((same.match(x + y, {}), same.match(x + x, {}))) == f"([], [{{'a': {PARAM0}}}])"
  pat = UPat(Ops.ADD, src=[UPat.var("a"), UPat.var("b")])
  assert repr(pat.match(x + y, {})) == f"[{{'a': {PARAM0}, 'b': {PARAM1}}}, {{'b': {PARAM0}, 'a': {PARAM1}}}]"
  c = UPat.var("x") + UPat.cvar("c")
  assert repr((c.src, type(c.src))) == "([UPat(None, name=x), UPat({Ops.CONST}, name=c)], <class 'list'>)"
  assert repr((c.match(x + 3, {}), c.match(UOp.const(3) + x, {}))) == \
    f"([{{'x': {PARAM0}, 'c': UOp(Ops.CONST, arg=3)}}], [{{'c': UOp(Ops.CONST, arg=3), 'x': {PARAM0}}}])"


def test_2_3_the_rule_index():
  pm = symbolic + evaluate
  assert len(pm.rules) == 44
  assert {op.name: len(pm.by_op.get(op, [])) for op in Ops if pm.by_op.get(op)} == {
    'CALL': 1, 'INDEX': 3, 'CAST': 4, 'RECIP': 3, 'ADD': 14, 'MUL': 10, 'CMPLT': 6, 'FLOORDIV': 8,
    'FLOORMOD': 7, 'WHERE': 7, 'CMPNE': 6, 'MAX': 5, 'EXP2': 3, 'LOG2': 3, 'SQRT': 3, 'SIN': 3,
    'RESHAPE': 1, 'EXPAND': 1, 'PERMUTE': 1, 'SHRINK': 1, 'REDUCE': 1}


def test_2_5_termination_detected():
  a, b = x, y
  swap = PatternMatcher([(UPat(Ops.ADD, src=(UPat.var("x"), UPat.var("y"))), lambda x, y: UOp(Ops.ADD, (y, x)))])
  # the chapter prints "RuntimeError: graph_rewrite did not converge (a rule loops?)"; the engine now names the loop
  with pytest.raises(RuntimeError, match=r"^graph_rewrite did not converge: a cycle of 2 rewrites"):
    graph_rewrite(a + b, swap, max_steps=1000)


def test_2_5_a_custom_matcher_and_the_where_cast_bug():
  pm = PatternMatcher([(UPat(Ops.MUL, src=[UPat.var("x"), UPat.cvar("c", dtype=dtypes.i32)]),
                        lambda x, c: x + x if c.arg == 2 else None)])
  assert graph_rewrite(x * 2, pm) is x + x and graph_rewrite(2 * x, pm) is x + x
  b2i = PatternMatcher([(UPat(Ops.WHERE, src=(UPat.var("c"), UPat(Ops.CONST, arg=1), UPat(Ops.CONST, arg=0))),
                         lambda c: c.cast(dtypes.i32))])
  c = x < y
  assert graph_rewrite(c.where(1, 0), b2i) is c.cast(dtypes.i32)
  wb = c.where(True, False)
  # the chapter prints dtypes.i32 (was dtypes.bool): the silent bug. The engine now has the chapter's Exercise 4
  # assertion, so the same call names the rule instead
  with pytest.raises(RewriteTypeError, match="changed WHERE bool.* into CAST i32"): graph_rewrite(wb, b2i)
  fixed = PatternMatcher([(UPat(Ops.WHERE, dtype=dtypes.i32, src=(UPat.var("c"), UPat(Ops.CONST, arg=1),
                                                                  UPat(Ops.CONST, arg=0))), lambda c: c.cast(dtypes.i32))])
  assert graph_rewrite(wb, fixed) is wb


def test_2_6_an_index_out_of_bounds_is_the_rules_index_error():
  from uopc.symbolic import run
  with pytest.raises(IndexError) as e: run(UOp.stack(1, 2, 3).index(5))
  assert f"IndexError: {e.value}" == "IndexError: index 5 out of bounds for STACK of 3"   # the chapter's output line
