"""tinygrad's own UOps and PatternMatchers explored as they are (uopc/relational/adapters/tinygrad/ir.py).

tinygrad is imported at the top on purpose: without it (the ``tinygrad`` extra) these tests fail, never skip.
"""
from __future__ import annotations

import os

import pytest
from tinygrad.dtype import dtypes
from tinygrad.uop.ops import Ops, PatternMatcher, UOp, UPat, graph_rewrite
from tinygrad.uop.symbolic import sym, symbolic, symbolic_simple

import uopc
from uopc.relational import explore, normal_forms
from uopc.relational.ir import ir_of
from uopc.relational.adapters.tinygrad import ir as tinygrad_ir
from uopc.relational.adapters.tinygrad.ir import TINYGRAD, TinygradIR, adapt

a, b = UOp.variable("a", 0, 10), UOp.variable("b", 0, 10)


def test_a_tinygrad_node_finds_its_ir_by_type():
  assert ir_of(a) is TINYGRAD and ir_of(uopc.UOp.param(0)).name == "uopc"


def test_symbolic_simple_every_ordering_of_unit_rules():
  prog = (a + 0) * 1 + (b * 1 + 0)
  ex = explore(prog, symbolic_simple)
  assert ex.complete and len(ex.states) == 16 and not ex.native   # 2**4 orderings' graphs; the Python core
  assert [s.term() for s in ex.normal_forms] == ["add(a, b)"]
  assert ex.normal_forms[0].graph is graph_rewrite(prog, symbolic_simple)   # tinygrad's own nodes, hash-consed
  s = ex.states[1]
  assert s.rule.startswith("symbolic_simple#") and s.rule_location.startswith("symbolic.py:")


def test_every_binding_of_a_rule_is_a_step():
  pm = PatternMatcher([(UPat(Ops.ADD, src=[UPat.var("x"), UPat.var("y")]), lambda x, y: x)])   # a commutative source list
  ex = explore(a + b, pm)
  assert sorted(s.term() for s in ex.normal_forms) == ["a", "b"]
  assert [e.rule_index for e in ex.edges] == [0, 0]
  assert graph_rewrite(a + b, pm) is a   # tinygrad takes the first binding only


def _explode(x: UOp) -> UOp: raise ValueError("no")


def test_a_raising_rule_is_a_stuck_state_naming_it_by_file_line():
  pm = PatternMatcher([(UPat(Ops.MUL, name="x"), _explode)])
  ex = explore(a * 2, pm)
  [stuck] = ex.stuck
  assert stuck.error == "ValueError: no" and stuck.rule_location.startswith("test_relational_tinygrad.py:")
  assert stuck.rule == "_explode"   # a named function names its rule
  [stuck] = explore(a * 2, PatternMatcher([(UPat(Ops.MUL, name="x"), lambda x: _explode(x))])).stuck
  assert stuck.rule == f"rules#0 {stuck.rule_location}"   # a lambda's: the set, the index, where its UPat is written


def test_rules_are_named_by_their_functions_with_the_index_only_where_two_share_one():
  from uopc.relational.adapters.tinygrad.ir import TinygradRules
  x = UPat.var("x")
  pm = PatternMatcher([(x * 1, _explode), (x + 0, lambda x: x), (x * 2, _explode), (x * 3, _keep)])
  names = [r.name for r in TinygradRules(pm, "mine").rules]
  assert names == ["_explode#0", f"mine#1 {TinygradRules(pm, 'mine').rules[1].location}", "_explode#2", "_keep"]


def _keep(x: UOp) -> UOp: return x


def test_zero_by_zero_depends_on_rule_order_in_symbolic():
  z = UOp.const(0, dtypes.weakint)
  nf = normal_forms(z // z, symbolic)
  assert sorted(s.term() for s in nf.forms) == ["0", "1"] and nf.canonical.arg == 1 and nf.canonical_state is not None
  [stuck] = nf.stuck   # divandmod's rule divides by zero
  assert stuck.error.startswith("ZeroDivisionError") and stuck.rule_location.startswith("divandmod.py:")


def test_bottom_up_is_reported_where_it_differs():
  prog = (a + b) * -1 + (a + b) * 1
  nf = normal_forms(prog, sym, max_states=20_000)
  assert nf.complete and not nf.exploration.reduced   # tinygrad's rules: no reduction, every graph
  assert nf.canonical_state is not None and nf.canonical.op is Ops.ADD
  [(label, up, err)] = nf.variants
  assert label == "graph_rewrite(bottom_up=True)" and err is None and up.op is Ops.CONST and up.arg == 0
  assert nf.exploration.state_of(up) in nf.forms


def test_ctx_reaches_the_rules_that_take_it():
  pm = PatternMatcher([(UPat(Ops.ADD, name="x"), lambda ctx, x: x.src[0] if ctx else None)])
  assert [s.term() for s in explore(a + b, pm, ctx=True).normal_forms] == ["a"]
  assert [s.term() for s in explore(a + b, pm).normal_forms] == ["add(a, b)"]   # ctx=None, as tinygrad passes it



@pytest.mark.parametrize("ctx", [None, "a ctx"])
def test_rules_get_exactly_their_bindings_by_name_and_no_ctx_unless_they_take_it(ctx):
  # a rule whose bindings always bind the same names is called through a function of those names (the ctx dropped); a
  # UPat.any whose branches bind different names, with whatever each binding has: as tinygrad calls them, either way
  seen: list = []
  pm = PatternMatcher([
    (UPat.var("x") * UPat.cvar("c"), lambda x, c: (seen.append(("xc", c.arg)), x)[1] if c.arg == 1 else None),
    (UPat.var("v") + UPat.any(UPat.cvar("z"), UPat.var("w") * UPat.var("w")), lambda **b: seen.append(sorted(b)))])
  forms = explore((a * 1 + 0) + b * b, pm, ctx=ctx).normal_forms
  assert [s.term() for s in forms] == ["add(add(a, 0), mul(b, b))"]
  assert ("xc", 1) in seen and ["v", "z"] in seen and ["v", "w"] in seen and all("ctx" not in b for b in seen)

def test_one_adapter_per_matcher():
  assert adapt(symbolic) is adapt(symbolic) and len(adapt(symbolic).rules) == len(symbolic.patterns)


def test_rebuilt_nodes_are_tinygrads_own_and_the_table_of_them_is_bounded(monkeypatch):
  ir, x = TinygradIR(), UOp.variable("x", 0, 10)
  get = ir.existing(Ops.ADD, x.dtype, None)
  n = get((x, b))   # not made by this IR yet: the lookup makes it, tinygrad's own node
  assert n is x + b and get((x, b)) is n and ir.make(Ops.ADD, (x, b), None, x.dtype) is n and len(get.__self__) == 1
  assert ir.make(Ops.CMPLT, (x, b), None, x.dtype) is (x < b)   # a derived dtype (bool), not the one asked for
  assert ir.existing(Ops.CMPLT, x.dtype, None)((x, b)) is (x < b)
  assert ir.existing(Ops.WHERE, x.dtype, None)((x, x, x)) is None   # tinygrad's dtype rules refuse it: None, and make says why
  with pytest.raises(TinygradIR.build_error, match="where cond must be bool"): ir.make(Ops.WHERE, (x, x, x), None, x.dtype)
  monkeypatch.setattr(tinygrad_ir, "MADE_LIMIT", 8)
  made = [ir.make(Ops.MUL, (x, UOp.const(k, x.dtype)), None, x.dtype) for k in range(20)]
  assert made == [x * k for k in range(20)] and ir._made_size <= 8 and len(get.__self__) == 0   # dropped, in place


@pytest.mark.parametrize("prog, pm, said", [
  (uopc.UOp.param(0), symbolic, "explore: pm is a tinygrad.uop.ops.PatternMatcher, but the program is a uopc.uop.UOp"),
  (a, uopc.symbolic, "explore: pm is a uopc.matcher.PatternMatcher, but the program is a tinygrad.uop.ops.UOp"),
  (a, 3, "explore: pm is an int, not a tinygrad.uop.ops.PatternMatcher (the program is a tinygrad.uop.ops.UOp)"),
])
def test_rules_and_program_of_different_irs_are_one_line_errors(prog, pm, said):
  with pytest.raises(TypeError) as e: explore(prog, pm)
  assert str(e.value).startswith(said) and "\n" not in str(e.value)


# ---- the command line: --rules tinygrad:NAME, a program as file.py:attr

PROG = """\
from tinygrad.dtype import dtypes
from tinygrad.uop.ops import UOp
a, b = UOp.variable("a", 0, 10), UOp.variable("b", 0, 10)
root = (a + 0) * 1 + (b * 1 + 0)
zero = UOp.const(0, dtypes.weakint) // UOp.const(0, dtypes.weakint)
notnode = [1]
"""


@pytest.fixture
def prog_py(tmp_path, monkeypatch):
  (tmp_path / "prog.py").write_text(PROG)
  examples = os.path.join(os.path.dirname(__file__), "..", "examples")
  (tmp_path / "p.uir").write_text(open(os.path.join(examples, "order.uir")).read())
  (tmp_path / "v.uir").write_text(open(os.path.join(examples, "vector.uir")).read())
  monkeypatch.chdir(tmp_path)


def run_cli(capsys, *argv):
  from uopc.cli.main import main
  code = main(list(argv))
  out, err = capsys.readouterr()
  return code, out, err


def test_rules_by_tinygrad_name_are_tinygrads_own():
  from uopc.relational.ir import resolve_rules
  from uopc.rulesets import RuleSetError, resolve_rules as uopc_resolve_rules
  with pytest.raises(RuleSetError, match="is a tinygrad.uop.ops.PatternMatcher, not a uopc.matcher.PatternMatcher"):
    uopc_resolve_rules("tinygrad.uop.symbolic:sym")   # the engine's names are uopc's own: tinygrad's are the registry's
  assert resolve_rules("tinygrad:symbolic") is symbolic and resolve_rules("tinygrad.uop.symbolic:sym") is sym
  assert resolve_rules("tinygrad:symbolic_simple+tinygrad:sym").patterns == symbolic_simple.patterns + sym.patterns
  with pytest.raises(RuleSetError, match="a sum of tinygrad and uopc rule sets"): resolve_rules("symbolic+tinygrad:sym")


def test_normal_forms_of_a_tinygrad_program(capsys, prog_py):
  code, out, _ = run_cli(capsys, "explore", "normal-forms", "prog.py:zero", "--rules", "tinygrad:symbolic")
  assert code == 1   # a rule raised: a stuck step
  assert "2 normal forms:" in out and "[1] 1   <- canonical" in out and "ZeroDivisionError" in out and "divandmod.py:" in out


def test_reachable_json_of_a_tinygrad_program(capsys, prog_py):
  import json
  code, out, _ = run_cli(capsys, "explore", "reachable", "prog.py:root", "--rules", "tinygrad:symbolic_simple", "--format", "json")
  data = json.loads(out)
  assert code == 0 and data["complete"] and len(data["states"]) == 16
  assert data["states"][1]["rule"].startswith("symbolic_simple#")


@pytest.mark.parametrize("argv, said", [
  (["prog.py:root"], "uopc: --rules symbolic is a uopc.matcher.PatternMatcher, but the program is a tinygrad.uop.ops.UOp:"),
  (["v.uir", "--rules", "tinygrad:sym"], "uopc: v.uir: cannot be built as tinygrad nodes: stack of shape (3,): tinygrad nodes are built of scalar"),
  (["prog.py:notnode"], "uopc: prog.py:notnode is a list, not a program (a uopc.uop.UOp, a PyTensor variable or a tinygrad.uop.ops.UOp)"),
])
def test_an_ir_mismatch_on_the_command_line_is_one_line_exit_2(capsys, prog_py, argv, said):
  code, out, err = run_cli(capsys, "explore", "normal-forms", *argv)
  assert code == 2 and out == "" and err.startswith(said) and err.count("\n") == 1


def test_a_uir_program_under_tinygrad_rules_is_explored_as_tinygrad_nodes(capsys, prog_py):
  # order.uir is (-0.0 + 0.0) * p0, two normal forms under uopc's symbolic; tinygrad's rules make one of it (its
  # x * -0.0 -> 0.0 drops the sign), and its own graph_rewrite, the canonical, agrees
  code, out, err = run_cli(capsys, "explore", "normal-forms", "p.uir", "--rules", "tinygrad:symbolic")
  assert (code, err) == (0, "") and out.startswith("program: mul(add(ConstFloat(-0.0), ConstFloat(0.0)), p0)\n")
  assert "1 normal form:" in out and "[1] ConstFloat(0.0)   <- canonical" in out and "symbolic.py:165: mul(ConstFloat(-0.0), p0)" in out
  code, out, _ = run_cli(capsys, "explore", "search", "p.uir", "--rules", "tinygrad:symbolic", "--to-term", "0.0")
  assert code == 0 and "equal: both rewrite to ConstFloat(0.0)" in out


# ---- diagnose_order, search, best and meet on tinygrad nodes

def test_diagnose_order_finds_the_zero_by_zero_fork():
  from uopc.relational.analyses.order import diagnose_order, order_matters, permutation_trials
  z = UOp.const(0, dtypes.weakint)
  r = diagnose_order(z // z, symbolic)
  assert r.path.complete and r.canonical.arg == 1 and [e.rule for e in r.path.edges] == [r.forks[0].canonical_step.rule]
  [f] = r.forks
  assert f.normal_form.graph.arg == 0 and f.kind == "semantic" and f.detail == "different values: 1 vs 0"
  assert f.canonical_step.rule_location.startswith("symbolic.py:") and f.competing_step.rule_location.startswith("symbolic.py:")
  assert "tinygrad's exec_alu" in r.basis
  trials = permutation_trials(z // z, symbolic, r, max_orders=40)
  swap = next(t for t in trials if t.label == f"swap #{f.canonical_step.rule_index} and #{f.competing_step.rule_index}")
  assert swap.changed and swap.result.arg == 0   # tinygrad's graph_rewrite with the two rules swapped
  assert (f.canonical_step.rule_index, f.competing_step.rule_index) in order_matters(trials)


def test_diagnose_order_on_variables_compares_in_tinygrads_semantics():
  from uopc.relational.analyses.order import diagnose_order
  r = diagnose_order((a + b) * -1 + (a + b) * 1, sym)
  [f] = r.forks
  assert r.path.complete and f.normal_form.graph.arg == 0 and f.kind == "syntactic"
  assert f.detail == "equal for all inputs within the bounds of a, b (proved)"   # z3, not a sample of bindings


def test_tinygrad_values_do_not_wrap():
  from uopc.relational.adapters.tinygrad.values import compare_values, value_of
  big = UOp.variable("big", 0, 2**40)
  assert value_of(big * 2, {"big": 2**40}) == (True, 2**41)   # a weak int: no i32 wrap
  assert compare_values(big + 1, big, big)[0] == "semantic"


def test_search_on_tinygrad_nodes_by_term_and_by_graph():
  from uopc.relational.analyses.search import search
  prog = (a + 0) * 1
  r = search(prog, "mul(a, ?c)", symbolic)
  assert r.found and r.length == 1 and r.bindings["c"].arg == 1 and r.path[0].rule.startswith("symbolic#")
  r = search(prog, a, symbolic)
  assert r.found and r.graph is a and r.length == 2 and r.complete
  assert not search(prog, "add(b, _)", symbolic).found


def test_best_and_meet_on_tinygrad_nodes():
  from uopc.relational.analyses.best import best
  from uopc.relational.analyses.meet import meet
  r = best((a + 0) * 1 + (b * 1 + 0), symbolic)
  assert r.graph is a + b and r.complete
  m = meet((a + 0) * 1, a * 1, symbolic)
  assert m.found


PROG_ORDER = PROG + "neg = (a + b) * -1 + (a + b) * 1\nab = a + b\n"


@pytest.mark.parametrize("argv, code, said", [
  (["order", "prog.py:zero", "--rules", "tinygrad:symbolic"], 1, "fork to [2] 0: semantic: different values: 1 vs 0"),
  (["search", "prog.py:root", "--target", "add(a, ?y)", "--rules", "tinygrad:symbolic"], 0, "bindings: ?y = add(mul(b, 1), 0)"),
  (["search", "prog.py:root", "--to", "prog.py:ab", "--rules", "tinygrad:symbolic"], 0, "equal: both rewrite to add(a, b)"),
  (["best", "prog.py:root", "--rules", "tinygrad:symbolic"], 0, "best: add(a, b)"),
])
def test_every_explorer_command_takes_a_tinygrad_program(capsys, tmp_path, monkeypatch, argv, code, said):
  (tmp_path / "prog.py").write_text(PROG_ORDER)
  monkeypatch.chdir(tmp_path)
  got, out, err = run_cli(capsys, "explore", *argv)
  assert (got, err) == (code, "") and said in out


@pytest.mark.parametrize("cmd", [["order"], ["search", "--target", "_"], ["best"]])
def test_every_explorer_command_checks_the_irs(capsys, prog_py, cmd):
  code, out, err = run_cli(capsys, "explore", cmd[0], "prog.py:root", *cmd[1:])
  assert code == 2 and out == "" and err.count("\n") == 1
  assert err.startswith("uopc: --rules symbolic is a uopc.matcher.PatternMatcher, but the program is a tinygrad.uop.ops.UOp:")


@pytest.mark.parametrize("argv, said", [
  (["--target", "add(a,"], "<target>:1:7: ')' expected"),
  (["--to-term", "add(a, b)"], "uopc: --to-term is a uopc term, but the program is a tinygrad.uop.ops.UOp: give --to file.py:attr"),
  (["--target-file", "p.uir"], "uopc: --target-file p.uir is a uopc.uop.UOp, but the program is a tinygrad.uop.ops.UOp"),
])
def test_search_targets_of_the_wrong_kind_are_one_line_errors(capsys, prog_py, argv, said):
  code, out, err = run_cli(capsys, "explore", "search", "prog.py:root", "--rules", "tinygrad:symbolic", *argv)
  assert code == 2 and out == "" and err.startswith(said) and err.count("\n") == 1


def test_kanren_goals_take_tinygrad_nodes_and_rules():
  from kanren import run, var

  from uopc.relational.logic.goals import normalo, reacho, stepo
  q = var()
  prog = (a + 0) * 1 + (b * 1 + 0)
  steps = run(0, q, stepo(symbolic_simple, prog, q))
  assert len(steps) == 4 and all(type(h) is UOp for h in steps) and (a + 0) * 1 + (b + 0) in steps   # one rule at each of 4 nodes
  assert len(run(0, q, reacho(symbolic_simple, prog, q))) == 16   # the exploration's 16 graphs
  assert run(0, q, reacho(symbolic_simple, prog, a + b)) == (q,)   # a membership question: yes
  assert run(0, q, reacho(symbolic_simple, a + b, prog)) == ()
  z = UOp.const(0, dtypes.weakint)
  assert sorted(h.arg for h in run(0, q, normalo(symbolic, z // z, q))) == [0, 1]   # both of 0 // 0's normal forms


def test_kanren_goals_on_tinygrad_rules_do_not_run_backwards_and_ignore_uopc_nodes():
  from kanren import run, var

  from uopc.relational.logic.goals import NotGroundError, stepo
  q = var()
  with pytest.raises(NotGroundError, match="running backwards"): run(1, q, stepo(symbolic_simple, q, a))
  assert run(0, q, stepo(symbolic_simple, uopc.UOp.param(0) + 0, q)) == ()   # a uopc node relates to nothing under tinygrad's rules


def test_a_uir_program_is_built_as_tinygrad_nodes_over_the_ops_they_share():
  from uopc.cli.support import load_program
  from uopc.relational.adapters.tinygrad.convert import from_uopc
  root = os.path.join(os.path.dirname(__file__), "..", "examples")
  t = from_uopc(load_program(os.path.join(root, "affine.uir")), ints=dtypes.weakint, bounds=(0, 10))
  assert type(t) is UOp and t.dtype is dtypes.weakint and ir_of(t) is TINYGRAD
  assert [s.term() for s in normal_forms(t, symbolic).forms] == ["add(mul(p0, 3), 11)"]   # tinygrad's rules on it
  assert from_uopc(uopc.UOp.param(0) // 2).op is Ops.FLOORDIV and from_uopc(uopc.UOp.param(0)).dtype is dtypes.int32
  with pytest.raises(ValueError, match="stack of shape"): from_uopc(load_program(os.path.join(root, "vector.uir")))
