"""Termination proofs (``uopc.termination``) and ``uopc check-rules --terminates`` (docs/termination.md)."""
from __future__ import annotations

import importlib.util
import pathlib
import sys

import pytest
from hypothesis import given, settings, strategies as st

from uopc import PatternMatcher, UOp, UPat
from uopc.cli.main import main
from uopc.relational.analyses.loop_witness import find_loop
from uopc.rulesets import NAMED
from uopc.termination import find_measure
from uopc.termination.path_order import greater
from uopc.termination.logic import Concrete
from uopc.relational.space.explore import explore

from tests.strategies import arith_programs, graphs

x, y = UPat.var("x"), UPat.var("y")
SWAP = PatternMatcher([(x + 0, lambda x: x, "add-0"), (x * 2, lambda x: x + x, "double"), (x + y, lambda x, y: y + x, "swap")], name="swap")
SHRINK = PatternMatcher([(x + 0, lambda x: x, "add-0"), (x * 1, lambda x: x, "mul-1"), ((x + y) * 3, lambda x, y: x * 3 + y * 3, "distribute"),
                         (UPat.cvar("c") + y, lambda c, y: y + c if y.op is not UOp.const(0).op else None, "const-right")], name="shrink")
ROOT = pathlib.Path(__file__).resolve().parents[1]
_SYMBOLIC = find_measure(NAMED["symbolic"])   # once: 3 s of CPU


@pytest.mark.parametrize("use_z3", [True, False])
def test_a_swap_rule_is_not_oriented_and_its_loop_is_shown(use_z3):
  t = find_measure(SWAP, use_z3=use_z3)
  assert not t.proved and t.unoriented == ["swap"]
  assert [r.status for r in t.rules] == ["oriented", "oriented", "not oriented"]
  loop = find_loop(UOp.param(0) + UOp.param(1), SWAP)
  assert loop is not None and loop.kind == "cycle" and [e.rule for e in loop.steps] == ["swap", "swap"]


@pytest.mark.parametrize("use_z3", [True, False])
def test_a_shrinking_rule_set_is_proved_with_its_measure(use_z3):
  t = find_measure(SHRINK, use_z3=use_z3)
  assert t.proved, t.rules
  assert {r.scope for r in t.rules if r.name in ("add-0", "mul-1")} == {"every instance"}
  assert t.measure.path is not None and "distribute" in t.measure.path.orients   # MUL above ADD: weights cannot
  assert t.measure.path.order.rank["MUL"] > t.measure.path.order.rank["ADD"]


def test_a_rule_whose_right_side_holds_its_left_side_grows_forever():
  grow = PatternMatcher([(x * 2, lambda x: (x * 2) + 0, "grow")], name="grow")
  assert find_measure(grow).unoriented == ["grow"]
  loop = find_loop(UOp.param(0) * 2, grow)
  assert loop is not None and loop.kind == "grows"


def test_a_variable_copied_to_the_right_has_no_weights_but_a_path_order():
  square = PatternMatcher([((x + y) * (x + y), lambda x, y: x * x + (x * y) * 2 + y * y, "square")], name="square")
  t = find_measure(square)
  assert t.proved and t.measure.stages == () and t.measure.path is not None


def test_the_path_order_treats_variables_as_any_subterm():
  p0, p1 = UOp.param(0), UOp.param(1)
  order = Concrete({"ADD": 1, "MUL": 2})
  assert greater(p0 + p1, p0, order, frozenset({p0, p1}))
  assert not greater(p0 + p1, p1 + p0, order, frozenset({p0, p1}))              # a swap: no order
  assert not greater(p0 * 2, p1, order, frozenset({p0, p1}))                     # p1 is not in the left side
  assert greater(UOp.const(3) + p1, p1 + 3, Concrete({"ADD": 1, "CONST": 0, "PARAM": 2}, frozenset({"ADD"})), frozenset({p1}), frozenset({p1}))


def test_uopc_rule_sets():
  assert find_measure(NAMED["fold"]).proved
  t = _SYMBOLIC
  assert "div-sum" in t.unoriented and len(t.unoriented) == 4 and t.rules[0].status == "oriented"   # docs/termination.md says why
  loop = find_loop(UOp.const(0) // 1, NAMED["symbolic"])        # div-sum and add-0 go round
  assert loop is not None and {e.rule for e in loop.steps} == {"div-sum", "add-0"}


_EVALUATE = find_measure(NAMED["evaluate"])   # proved: tests/test_termination_interpretation.py


def test_evaluate_is_checked_on_shaped_left_sides():
  # before: the builder made no left side over STACK, INDEX, movement ops or CALL, and every rule was "not checked"
  assert all(r.scope.startswith("on ") for r in _EVALUATE.rules)   # a sample of shapes, not every instance
  assert find_loop(UOp.stack(UOp.param(0), UOp.param(1)) + UOp.param(2, shape=(2,)), NAMED["evaluate"]) is None


def test_the_path_order_of_an_op_with_any_number_of_sources_has_no_infinite_descent():
  # lexicographically, stack(b) > stack(a, b) > stack(a, a, b) > ... for b > a: as multisets, a longer one is not below
  a, b = UOp.param(0), UOp.param(0) + 1
  order = Concrete({"ADD": 1})
  assert greater(UOp.stack(b), UOp.stack(a), order) and not greater(UOp.stack(b), UOp.stack(a, b), order)
  assert greater(UOp.stack(a, b), UOp.stack(b), order)   # taking a source away lowers it


@settings(max_examples=30, deadline=None)
@given(graphs(max_ops=6))
def test_the_evaluate_measure_decreases_on_random_shaped_programs(prog):
  t = _EVALUATE
  assert t.proved
  for e in explore(prog, NAMED["evaluate"], max_states=100).run().edges:
    if e.target.error is None: assert t.measure.decreases(e.source.graph, e.target.graph), (e.rule, e.source.graph, e.target.graph)


def _steps(pm, programs):
  """Every step the explorer takes from ``programs`` (200 graphs each): (rule name, graph before, graph after)."""
  return [(e.rule, e.source.graph, e.target.graph) for prog in programs for e in explore(prog, pm, max_states=200).run().edges
          if e.target.error is None]


@settings(max_examples=60, deadline=None)
@given(st.lists(arith_programs(), min_size=1, max_size=4))
def test_the_measure_decreases_on_random_rewrites(programs):
  t = _SYMBOLIC
  oriented = {r.name for r in t.rules if r.status == "oriented"}
  for name, before, after in _steps(NAMED["symbolic"], programs):
    if name in oriented: assert t.measure.decreases(before, after), (name, before, after)


def test_check_rules_terminates_prints_the_measure_or_the_loop(capsys, tmp_path, monkeypatch):
  assert main(["check-rules", "--terminates", "fold"]) == 0
  out = capsys.readouterr().out
  assert "1. weights" in out and "verdict: terminates" in out
  (tmp_path / "swap.py").write_text("from uopc import PatternMatcher, UPat\nx, y = UPat.var('x'), UPat.var('y')\n"
                                    "rules = PatternMatcher([(x + y, lambda x, y: y + x, 'swap')], name='swap')\n")
  monkeypatch.chdir(tmp_path)
  assert main(["check-rules", "--terminates", "swap.py:rules"]) == 1
  out = capsys.readouterr().out
  assert "not oriented: 1 rule(s)" in out and "loops by a cycle" in out and "rules on the loop: swap" in out


def test_tinygrad_loop_reproduced_with_tinygrad_alone():
  spec = importlib.util.spec_from_file_location("tinygrad_loops", ROOT / "explore" / "tinygrad_loops.py")
  mod = importlib.util.module_from_spec(spec)
  spec.loader.exec_module(mod)
  from tinygrad.uop.symbolic import sym, symbolic
  for prog, lines in mod.PROGRAMS.values():
    for pm in (symbolic, sym, mod.rules_at(symbolic, lines)):
      assert mod.outcome(prog, pm, bottom_up=True).startswith("RuntimeError: infinite loop")
    assert not mod.outcome(prog, symbolic, bottom_up=False).startswith("RuntimeError")


def test_tinygrad_loop_found_by_the_explorer_names_the_two_rules():
  from tinygrad.uop.ops import UOp as TUOp
  from uopc.relational.ir import resolve_rules
  v = TUOp.variable("v", 0, 2)
  for name in ("tinygrad:symbolic", "tinygrad:sym"):
    loop = find_loop(((10 + v * 81) + 233) % 243, resolve_rules(name))
    assert loop is not None and loop.kind == "cycle"
    assert sorted(e.rule.rsplit(" ", 1)[1] for e in loop.steps) == ["symbolic.py:267", "symbolic.py:281"]
  loop = find_loop((2 * v) * 3, resolve_rules("tinygrad:symbolic"))
  assert loop is not None and {e.rule.rsplit(" ", 1)[1] for e in loop.steps} >= {"symbolic.py:267", "symbolic.py:282"}


def test_steps_observed_on_programs_are_checked_as_instances_too():
  from uopc.cli.support import load_program
  pm = NAMED["evaluate"]
  ex = explore(load_program(str(ROOT / "examples" / "evaluate.uir")), pm, max_states=2000).run()
  t = find_measure(pm, observed=[(e.rule, e.node, e.result) for e in ex.edges if e.result is not None])
  by = {r.name: r for r in t.rules}
  assert by["inline-call"].status == "oriented" and "observed on programs" in by["inline-call"].scope
  assert "observed" not in by["index-empty"].scope   # the program has no INDEX without an index: the builder's only


def test_check_rules_terminates_on_a_program_and_another_irs_rules(capsys, tmp_path, monkeypatch):
  monkeypatch.chdir(tmp_path)
  (tmp_path / "div0.uir").write_text("%0 = floordiv 0, 3\n")
  assert main(["check-rules", "--terminates", "fold", "--on", "div0.uir"]) == 0
  assert "--on div0.uir: no loop: every order reaches a normal form (explored completely)" in capsys.readouterr().out
  assert main(["check-rules", "--terminates", "symbolic", "--on", "div0.uir"]) == 1
  out = capsys.readouterr().out
  assert "--on div0.uir: loops" in out and "-> add(0, floordiv(0, 3))   [div-sum]" in out
  assert main(["check-rules", "--terminates", "tinygrad:sym"]) == 1   # no measure for tinygrad's rules: not proved
  assert "measure: not searched" in capsys.readouterr().out


@st.composite
def int_programs(draw: st.DrawFn, max_ops: int = 5) -> UOp:
  """A small i32 DAG over PARAMs 0 and 1 and a few constants, with every binary op symbolic's rules look at."""
  from uopc.ops import Ops
  pool = [UOp.param(0), UOp.param(1)]
  for _ in range(draw(st.integers(1, max_ops))):
    a = pool[-1 - draw(st.integers(0, len(pool) - 1))]
    b = pool[-1 - draw(st.integers(0, len(pool) - 1))] if draw(st.booleans()) else UOp.const(draw(st.sampled_from((0, 1, 2, 3, 4, -1))))
    op = draw(st.sampled_from([Ops.ADD, Ops.MUL, Ops.FLOORDIV, Ops.FLOORMOD, Ops.MAX]))
    pool.append(UOp(op, (a, b) if draw(st.booleans()) or op in (Ops.FLOORDIV, Ops.FLOORMOD) else (b, a)))
  return pool[-1]


@settings(max_examples=60, deadline=None)
@given(st.lists(int_programs(), min_size=1, max_size=3))
def test_the_measure_decreases_on_random_rewrites_with_division(programs):
  oriented = {r.name for r in _SYMBOLIC.rules if r.status == "oriented"}
  for name, before, after in _steps(NAMED["symbolic"], programs):
    if name in oriented: assert _SYMBOLIC.measure.decreases(before, after), (name, before, after)


def test_check_rules_terminates_as_json(capsys, tmp_path, monkeypatch):
  import json
  monkeypatch.chdir(tmp_path)
  (tmp_path / "swap.py").write_text("from uopc import PatternMatcher, UPat\nx, y = UPat.var('x'), UPat.var('y')\n"
                                    "rules = PatternMatcher([(x + 0, lambda x: x, 'add-0'), (x + y, lambda x, y: y + x, 'swap')], name='swap')\n")
  (tmp_path / "div0.uir").write_text("%0 = floordiv 0, 3\n")
  assert main(["check-rules", "--terminates", "swap.py:rules", "--on", "div0.uir", "--format", "json"]) == 1
  data = json.loads(capsys.readouterr().out)
  assert (data["verdict"], data["complete"], data["summary"]["oriented"]) == ("not proved", True, 1)
  swap = next(v for v in data["verdicts"] if v["rule"] == "swap")
  assert swap["status"] == "not oriented" and [s["rule"] for s in swap["loop"]["steps"]] == ["swap", "swap"]
  assert data["programs"] == [{"file": "div0.uir", "outcome": "no loop", "complete": True, "loop": None}]
  assert main(["check-rules", "--terminates", "fold", "--format", "json"]) == 0
  data = json.loads(capsys.readouterr().out)
  assert data["verdict"] == "terminates" and data["measure"]["components"][0]["lowers"] == ["fold-const"]
  assert main(["check-rules", "--terminates", "tinygrad:sym", "--format", "json"]) == 1   # another IR's rules: not searched
  data = json.loads(capsys.readouterr().out)
  assert data["measure"] is None and data["verdicts"] is None and data["verdict"] == "not proved"


def test_explore_order_reports_the_conv_index_loop_under_tinygrads_sym_too(capsys, tmp_path, monkeypatch):
  # the target: under `sym` as under `symbolic` (tests/test_relational_termination.py), the loop and its two rules
  (tmp_path / "conv.py").write_text("from tinygrad.uop.ops import UOp\nv = UOp.variable('v', 0, 2)\nprog = ((10 + v * 81) + 233) % 243\n")
  monkeypatch.chdir(tmp_path)
  monkeypatch.syspath_prepend(str(tmp_path))
  monkeypatch.delitem(sys.modules, "conv", raising=False)
  assert main(["explore", "order", "conv.py:prog", "--rules", "tinygrad:sym"]) == 0
  out = capsys.readouterr().out
  assert "one normal form, but not every rule order terminates: some orders loop forever on a reachable cycle" in out
  assert "does not depend" not in out
  assert "rules: sym#93 symbolic.py:267; sym#102 symbolic.py:281):" in out
  assert "graph_rewrite(bottom_up=True): loops (tinygrad's graph_rewrite raised RuntimeError: infinite loop in fixed_point_rewrite)" in out


@pytest.mark.slow   # 4 s of CPU
def test_symbolic_and_evaluate_together_leave_only_symbolics_own_rules_unoriented():
  # before: weights that lower symbolic raised alu-stack and inline-call (they copy a variable), and nothing oriented them
  t = find_measure(NAMED["symbolic"] + NAMED["evaluate"])
  assert t.unoriented == _SYMBOLIC.unoriented == ["distribute-sum", "const-outward", "div-sum", "mod-sum"]
  by = {r.name: r.by for r in t.rules}
  assert by["alu-stack"] == by["inline-call"] == "interpretation 1" and by["div-sum"].startswith("interpretation 1 raises it")


def test_inline_call_is_checked_on_a_body_with_each_op_at_its_root():
  # the case termination's own catalogue had (it found CALL ranked with RESHAPE), now the shaped builder's:
  # beta reduction brings the body's root op up, so a path order must rank CALL above each op a body can have there
  from uopc.ops import ALU, MOVEMENT, Ops
  from uopc.termination.instances import rule_instances
  pm = NAMED["evaluate"]
  rule = next(r for r in pm.rules if pm.name_of(r) == "inline-call")
  made = rule_instances(rule[0], rule[1], "inline-call").instances
  roots = {i.lhs.src[0].op for i in made if i.lhs.op is Ops.CALL}
  assert roots >= ALU | MOVEMENT | {Ops.STACK, Ops.INDEX, Ops.REDUCE}
  assert all(greater(i.lhs, i.rhs, Concrete({"CALL": 1}), i.variables, i.nonconstant) for i in made)
  for op in roots:   # CALL tied with the op: some instance is not oriented
    assert not all(greater(i.lhs, i.rhs, Concrete({"CALL": 1, op.name: 1}), i.variables, i.nonconstant) for i in made), op
