"""The minimizer (``uopc.relational.analyses.minimize``): issue 39's two tinygrad findings shrunk to at most 5 nodes, each
still showing the finding, and the regression test it prints run here: it must fail on tinygrad 0.14 as the finding says."""
from __future__ import annotations

from typing import Any

import pytest
from tinygrad.uop.ops import UOp, graph_rewrite
from tinygrad.uop.symbolic import symbolic as tiny_symbolic

from uopc import UOp as UUOp, dtypes, show, symbolic
from uopc.limits import Limits
from uopc.relational.analyses.minimize import Finding, _ddmin, minimize, program_size, regression_test
from uopc.relational.ir.registry import resolve_rules

DIVMOD = Finding("raises", error="ZeroDivisionError", rule="divandmod.py:108")
LOOP = Finding("loops")


def divmod_program() -> UOp:
  v = UOp.variable("v", 0, 10)
  return (v * 2 + 0) // 5


def loop_program() -> UOp:
  v = UOp.variable("v", 0, 2)
  return ((10 + v * 81) + 233) % 243


def run_test(source: str) -> None:
  """Run the one test function a printed regression test defines."""
  env: dict[str, Any] = {}
  exec(compile(source, "<regression test>", "exec"), env)
  tests = [v for k, v in env.items() if k.startswith("test_")]
  assert len(tests) == 1
  tests[0]()


def test_the_programs_show_the_findings_before_minimizing():
  with pytest.raises(ZeroDivisionError): graph_rewrite(divmod_program(), tiny_symbolic, bottom_up=True)
  with pytest.raises(RuntimeError, match="infinite loop"): graph_rewrite(loop_program(), tiny_symbolic, bottom_up=True)
  assert program_size(divmod_program()) == 7 and program_size(loop_program()) == 9   # a variable is one node
  assert DIVMOD.shows(divmod_program(), tiny_symbolic) and LOOP.shows(loop_program(), tiny_symbolic)
  assert not DIVMOD.shows(loop_program(), tiny_symbolic) and not LOOP.shows(divmod_program(), tiny_symbolic)


@pytest.mark.parametrize("rules", [False, True])
def test_fold_divmod_general_zero_division_minimized(rules: bool):
  m = minimize(divmod_program(), tiny_symbolic, DIVMOD, rules=rules)
  assert m.stopped is None and m.size_before == 7 and m.size <= 5 and m.size == program_size(m.program)
  assert DIVMOD.shows(m.program, m.pm)
  with pytest.raises(ZeroDivisionError): graph_rewrite(m.program, m.pm, bottom_up=True)
  if rules:
    assert m.subset is not None and len(m.subset) < 5 and m.rules_before == len(tiny_symbolic.patterns)
    assert [p[1] for p in m.pm.patterns] == [tiny_symbolic.patterns[k][1] for k in m.subset]   # the rules kept, in order
  source = regression_test(m, "tinygrad:symbolic")
  assert "graph_rewrite(prog, pm, bottom_up=True)" in source and "import uopc" not in source and "from uopc" not in source
  with pytest.raises(ZeroDivisionError): run_test(source)


@pytest.mark.parametrize("rules", [False, True])
def test_bottom_up_loop_minimized(rules: bool):
  m = minimize(loop_program(), tiny_symbolic, LOOP, rules=rules)
  assert m.stopped is None and m.size_before == 9 and m.size <= 5
  with pytest.raises(RuntimeError, match="infinite loop"): graph_rewrite(m.program, m.pm, bottom_up=True)
  if not rules: assert graph_rewrite(m.program, m.pm) is not None   # under all of symbolic top down ends: the bottom-up engine's finding
  with pytest.raises(RuntimeError, match="infinite loop"): run_test(regression_test(m, "tinygrad:symbolic"))


def test_the_printed_test_builds_the_very_program():
  """The printed program is checked to build the minimized node itself; a fresh variable keeps the replaced node's bounds."""
  m = minimize(loop_program(), tiny_symbolic, LOOP)
  source = regression_test(m, "tinygrad:symbolic")
  env: dict[str, Any] = {}
  exec(source, env)
  body = source.split("def ", 1)[1].split("\n", 1)[1]
  local: dict[str, Any] = {}
  exec("\n".join(line[2:] for line in body.splitlines() if "graph_rewrite" not in line), env, local)
  assert local["prog"] is m.program
  variables = [u for u in m.program.toposort() if u.op.name == "BUFFER"]
  assert [(u.vmin, u.vmax) for u in variables] in ([(0, 2)], [(10, 172)])   # v itself, or add(10, mul(v, 81))'s range


def test_a_uopc_finding_gives_a_uopc_test():
  prog = ((UUOp.const(-0.0) + UUOp.const(0.0)) * UUOp.param(0, dtypes.f32)) + UUOp.param(1, dtypes.f32) * 1.0
  f = Finding("order", engine="explore")
  m = minimize(prog, symbolic, f, rules=True)
  assert (m.size_before, m.size, show(m.program)) == (9, 3, "add(-0.0, 0.0)")
  assert m.subset is not None and len(m.subset) == 1 and f.shows(m.program, m.pm)
  source = regression_test(m, "symbolic")
  assert "parse_uir" in source and "assert len(explore(prog, pm).normal_forms) == 1" in source
  with pytest.raises(AssertionError): run_test(source)


def test_a_finding_that_does_not_show_is_refused():
  with pytest.raises(ValueError, match="does not show"): minimize(loop_program(), tiny_symbolic, DIVMOD)
  with pytest.raises(ValueError, match="no bottom_up variant"): minimize(UUOp.param(0) + 0, symbolic, Finding("loops"))


class StopNow(Limits):
  def should_stop(self) -> Any: return "timeout"


def test_bounds_keep_the_program_found_so_far():
  m = minimize(divmod_program(), tiny_symbolic, DIVMOD, limits=StopNow())
  assert m.stopped == "timeout" and m.program is m.original and m.checks == 0 and "stopped by timeout" in m.text()
  m = minimize(loop_program(), tiny_symbolic, LOOP, max_checks=1)
  assert m.stopped == "max_checks" and m.checks == 1 and LOOP.shows(m.program, tiny_symbolic)


def test_a_raised_finding_names_its_rule():
  """With ``rule``, the raising step must be that rule's: another rule of the same exception does not count."""
  assert not Finding("raises", error="ZeroDivisionError", rule="symbolic.py:1").shows(divmod_program(), tiny_symbolic)
  assert not Finding("raises", error="ValueError").shows(divmod_program(), tiny_symbolic)


def test_constants_shrink():
  """Constants shrink toward 0, 1 and small values while the finding shows (a divisor never to 0: ``v // 0`` raises too, a finding of its own)."""
  v = UOp.variable("v", 0, 10)
  m = minimize((v * 4 + 0) // 7 + 9, resolve_rules("tinygrad:symbolic"), Finding("raises", error="ZeroDivisionError"))
  assert show(m.program) == "floordiv(add(v, 0), 2)", show(m.program)


def test_ddmin_finds_a_one_minimal_subset():
  assert _ddmin(list(range(40)), lambda xs: {3, 17, 31} <= set(xs)) == [3, 17, 31]
  assert _ddmin(list(range(10)), lambda xs: 9 in xs) == [9]


def test_a_rule_that_raises_in_some_order_is_tested_alone():
  """A finding of the explorer's (a stuck step of divandmod.py:108 in some order) becomes a plain tinygrad test of that
  rule alone, bottom up, checked here to raise."""
  f = Finding("raises", engine="explore", error="ZeroDivisionError", rule="divandmod.py:108")
  v = UOp.variable("v", 0, 10)
  m = minimize((v * 2 + 0) // 5 + (v + 3), tiny_symbolic, f)
  assert m.size <= 5 and f.shows(m.program, tiny_symbolic)
  source = regression_test(m, "tinygrad:symbolic")
  assert "pm = PatternMatcher([symbolic.patterns[k] for k in (117,)])" in source and "bottom_up=True" in source
  with pytest.raises(ZeroDivisionError): run_test(source)


def test_a_test_that_would_not_fail_is_not_given():
  """The printed test is run before it is given: an order finding of the explorer's is not reproduced by tinygrad's
  engine alone, so no tinygrad test (a ValueError saying so)."""
  m = minimize(divmod_program(), tiny_symbolic, DIVMOD)
  with pytest.raises(ValueError, match="writes no regression test"):
    regression_test(m.__class__(**{**m.__dict__, "finding": Finding("order", engine="explore")}), "tinygrad:symbolic")


def test_the_program_source_rebuilds_each_node_exactly():
  """Operators where they rebuild the very node, tinygrad's constructor elsewhere; a constant first operand stays a UOp."""
  from tinygrad.dtype import dtypes as tiny_dtypes
  from uopc.relational.adapters.tinygrad.regression import program_source
  x = UOp.variable("x0", 0, 240)
  shared = x * 3 + 1
  for prog, text in [((UOp.const(0, tiny_dtypes.weakint) + x) // 2, "prog = (UOp.const(0, dtypes.weakint) + x0) // 2"),
                     ((x < 3).where(x, x + 1), "prog = UOp(Ops.WHERE, dtypes.weakint, (UOp(Ops.CMPLT, dtypes.bool, "
                                                "(x0, UOp.const(3, dtypes.weakint))), x0, x0 + 1))"),
                     (shared * shared, "n0 = x0 * 3 + 1\nprog = n0 * n0")]:
    source, exact = program_source(prog)
    assert exact and source.endswith(text), source
    env: dict[str, Any] = {"UOp": UOp}
    exec("from tinygrad.uop.ops import Ops\nfrom tinygrad.dtype import dtypes\n" + source, env)
    assert env["prog"] is prog


def test_a_values_finding_of_uopc_shrinks_to_the_sign_of_zero():
  """Two normal forms that differ in value (-0.0 and 0.0): the finding survives only where both forms are reached."""
  prog = ((UUOp.const(-0.0) + UUOp.const(0.0)) * UUOp.param(0, dtypes.f32)) * (UUOp.param(1, dtypes.f32) + 0.0)
  f = Finding("values", engine="explore")
  m = minimize(prog, symbolic, f)
  assert f.shows(m.program, symbolic) and m.size < m.size_before and m.size <= 4
  assert not Finding("values", engine="explore").shows(UUOp.param(1, dtypes.f32) + 0.0, symbolic)   # a part without the sign
  source = regression_test(m, "symbolic")
  assert "assert all(f.kind != 'semantic' for f in diagnose_order(prog, pm).forks)" in source
  with pytest.raises(AssertionError): run_test(source)
