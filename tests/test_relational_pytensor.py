"""PyTensor graphs explored with PyTensor's own node rewriters (uopc.relational.adapters.pytensor.ir): hash-consed states shared and
never cloned, rewriters called unchanged with the state's whole FunctionGraph, the Aesara issue's example end to end.

PyTensor is a declared extra (``.[pytensor]``): these tests fail, never skip, without it. Nothing here compiles C: values
are compared by PyTensor's Python linker.
"""
from __future__ import annotations

import os
from typing import Any

import numpy as np
import pytensor
import pytensor.tensor as pt
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from kanren import run, var
from pytensor.graph.basic import Apply
from pytensor.graph.fg import FunctionGraph
from pytensor.graph.rewriting.basic import EquilibriumGraphRewriter, MergeOptimizer, PatternNodeRewriter, in2out, node_rewriter
from pytensor.tensor.rewriting.elemwise import flatten_nested_add_mul
from pytensor.tensor.rewriting.math import local_exp_log

from uopc import UOp, symbolic
from uopc.relational import explore, normal_forms
from uopc.relational.analyses.order import diagnose_order
from uopc.relational.analyses.search import search
from uopc.relational.ir import ir_of
from uopc.relational.adapters.pytensor.ir import PYTENSOR, PyTensorRules, adapt, from_pytensor, named_rules, to_pytensor
from uopc.relational import reacho, stepo
from uopc.relational.space.step import Stepper, stepper_for


EXAMPLE = os.path.join(os.path.dirname(__file__), "..", "explore", "aesara_walkthrough.py")


def _example() -> Any:
  """explore/aesara_walkthrough.py as a module: the issue's ``local_reduce_add``, written there once."""
  import importlib.util
  spec = importlib.util.spec_from_file_location("aesara_walkthrough", EXAMPLE)
  assert spec is not None and spec.loader is not None
  module = importlib.util.module_from_spec(spec)
  spec.loader.exec_module(module)
  return module


local_reduce_add = _example().local_reduce_add   # the Aesara issue's rewriter, as written there: x + x to 2 * x
RULES = [local_reduce_add, local_exp_log, flatten_nested_add_mul]
x = pt.vector("x")


def issue_graph():
  return pt.log(pt.exp(x + x)) + x + x


def test_equal_graphs_are_one_node_and_read_back_as_themselves():
  z = issue_graph()
  g = from_pytensor(z)
  assert from_pytensor(issue_graph()) is g            # built twice by PyTensor: one node
  assert to_pytensor(g) is z                            # entered with its variables: read back without building
  assert ir_of(g) is PYTENSOR and g.term() == "add(add(log(exp(add(x, x))), x), x)"


def test_constants_of_any_dtype_and_ops_compared_by_props():
  v = pt.vector("v", dtype="float32")
  a, b = from_pytensor(v * np.float32(3)), from_pytensor(v * np.float32(3))
  assert a is b
  assert from_pytensor(v * np.float32(2)) is not a       # another value, another constant
  i8, f64 = from_pytensor(pt.constant(2)), from_pytensor(pt.constant(2.0))
  assert i8 is not f64 and i8.type.dtype == "int8" and f64.type.dtype == "float32"   # PyTensor's smallest dtype for each
  e1, e2 = from_pytensor(2 * x).src[0], from_pytensor(x * 2).src[1]   # ExpandDims{axis=0}(2), made twice
  assert e1 is e2 and e1.op is not pt.add and e1.term() == "ExpandDims{axis=0}(2)"


def test_a_step_shares_every_unchanged_subgraph_and_clones_nothing():
  z = issue_graph()
  g = from_pytensor(z)
  steps = list(stepper_for(adapt([local_exp_log])).successors(g))
  assert len(steps) == 1
  h = steps[0][1]
  assert h.term() == "add(add(add(x, x), x), x)"
  inner = g.src[0].src[0].src[0].src[0]                 # the x + x under exp
  assert h.src[0].src[0] is inner and h.src[1] is g.src[1]
  hv = to_pytensor(h)                                   # read: only the rebuilt spine is new PyTensor nodes
  assert hv.owner.inputs[0].owner.inputs[0] is z.owner.inputs[0].owner.inputs[0].owner.inputs[0].owner.inputs[0]
  assert hv.owner.inputs[1] is x and to_pytensor(h) is hv


def test_the_issue_example_reaches_every_graph_the_issue_anticipates():
  ex = explore(from_pytensor(issue_graph()), RULES)
  assert ex.complete and not ex.stuck
  reached = {s.graph for s in ex.states}
  anticipated = [pt.log(pt.exp(2 * x)) + x + x, 2 * x + x + x, 2 * x + 2 * x, pt.log(pt.exp(x + x)) + 2 * x, x + x + 2 * x,
                 pt.add(x, x, x, x), 4 * x]
  for want in anticipated: assert from_pytensor(want) in reached, from_pytensor(want).term()
  assert len(ex.states) == 19


def test_normal_forms_and_the_canonical_result_are_pytensor_own_rewrite():
  z = issue_graph()
  nf = normal_forms(from_pytensor(z), RULES)
  assert sorted(s.term() for s in nf.forms) == ["add(mul(ExpandDims{axis=0}(3), x), x)", "let a = ExpandDims{axis=0}(2) in mul(a, a, x)",
                                                  "mul(ExpandDims{axis=0}(4), x)"]
  fg = FunctionGraph([x], [issue_graph()], clone=False)   # PyTensor alone, as the issue runs it (on its own copy: x is shared)
  EquilibriumGraphRewriter([MergeOptimizer(), *RULES], max_use_ratio=pytensor.config.optdb__max_use_ratio).rewrite(fg)
  assert nf.canonical is from_pytensor(fg.outputs[0])
  assert nf.canonical in {s.graph for s in nf.forms}


def test_diagnose_order_replays_pytensor_rewrite_and_compares_values():
  rep = diagnose_order(from_pytensor(issue_graph()), RULES)
  assert rep.canonical_error is None and rep.path.complete
  assert rep.path.states[-1].graph is rep.canonical
  # 4x, 3x + x and 2*2*x are equal values, but PyTensor's ops have no exact encoding: not proved, only searched
  assert rep.forks and {f.kind for f in rep.forks} == {"no-difference-found"}
  assert all(f.detail.startswith("no difference found on ") and "not proved" in f.detail for f in rep.forks)
  assert "witness search" in rep.basis and "nothing proved" in rep.basis


def test_compare_finds_a_semantic_difference():
  a, b = from_pytensor(x + x), from_pytensor(x * x)
  kind, detail = PYTENSOR.compare(a, b, a)
  assert kind == "semantic" and detail.startswith("different values at x=")
  # log(exp(x)) overflows where x does not: inf on one side only is a difference
  assert PYTENSOR.compare(from_pytensor(pt.log(pt.exp(x))), from_pytensor(x), a) == \
    ("semantic", "different values at x=[800. 800. 800.]: [inf inf inf] vs [800. 800. 800.]")
  assert PYTENSOR.compare(from_pytensor(x + x), from_pytensor(2 * x), a)[0] == "no-difference-found"   # never "equal" with inputs


def test_the_issue_fork_of_log_sigmoid_under_canonicalize_and_stabilize_is_semantic_at_x_40():
  """Issue 37: one normal form keeps log1p(-sigmoid(x)), -inf at x = 40 where PyTensor's own result gives -40; random
  bindings called this fork "syntactic"."""
  s = pt.scalar("s")
  z = pt.log(pt.sigmoid(s)) + pt.log(1 - pt.sigmoid(s))
  rules = PYTENSOR.sum_rules([named_rules("canonicalize"), named_rules("stabilize")], "pytensor:canonicalize+stabilize")
  rep = diagnose_order(from_pytensor(z), rules, max_states=300)
  assert rep.exploration.complete and len(rep.normal_forms) == 2
  (f,) = rep.forks
  assert "log1p(" in f.normal_form.term() and "log1p(" not in rep.canonical.term()
  assert (f.kind, f.detail) == ("semantic", "different values at s=40.0: -40.0 vs -inf")


def test_inf_or_nan_on_one_side_only_is_a_difference_and_the_edges_come_first():
  from uopc.relational.adapters.pytensor.values import differ, edge_bindings
  assert differ(np.inf, 1e308) and differ(np.nan, np.inf) and differ(np.inf, -np.inf) and differ([1.0, np.nan], [1.0, 0.0])
  assert not differ([np.inf, np.nan], [np.inf, np.nan]) and not differ(1.0, 1.0 + 1e-12)
  v, i = pt.vector("v"), pt.lscalar("i")
  first = [[a.tolist() for a in b] for b in list(edge_bindings([v, i]))[:5]]
  assert first == [[[0.0] * 3, 0], [[-0.0] * 3, 1], [[1.0] * 3, -1], [[-1.0] * 3, 40], [[40.0] * 3, -40]]


def test_search_finds_the_shortest_path_to_a_term():
  r = search(from_pytensor(issue_graph()), "mul(_, x)", RULES)
  assert r.length == 3
  assert [e.rule for e in r.path] == ["local_exp_log", "flatten_nested_add_mul", "local_reduce_add"]


def test_stepo_and_reacho_are_kanren_goals_over_these_states():
  q = var()
  z = issue_graph()
  one = {h.term() for h in run(0, q, stepo(RULES, z, q))}
  assert one == {"add(add(log(exp(mul(ExpandDims{axis=0}(2), x))), x), x)", "add(log(exp(add(x, x))), x, x)", "add(add(add(x, x), x), x)"}
  assert len(run(0, q, reacho(RULES, z, q))) == 19
  assert run(0, q, reacho(RULES, z, 4 * x)) == (q,) and run(0, q, reacho(RULES, z, 5 * x)) == ()


def test_the_context_is_the_whole_state_graph():
  a = x + x
  fused = list(Stepper(PyTensorRules([flatten_nested_add_mul])).successors(from_pytensor((a + x) * 3)))
  assert [h.term() for _, h in fused] == ["mul(add(x, x, x), ExpandDims{axis=0}(3))"]
  # a is used outside a + x too: its clients in the state's FunctionGraph are two, so PyTensor does not fuse it
  # (a FunctionGraph of the node's own subgraph would say one)
  rules = PyTensorRules([flatten_nested_add_mul])
  assert list(Stepper(rules).successors(from_pytensor((a + x) * a))) == []
  assert rules.contexts.reads == {"flatten_nested_add_mul": 1} and rules.contexts.built == 1


def test_steps_that_read_clients_are_asked_again_in_a_state_where_the_clients_differ():
  a = x + x
  rules = PyTensorRules([flatten_nested_add_mul])
  stepper = Stepper(rules)   # one memo for both states: a + x is a node of both
  assert [h.term() for _, h in stepper.successors(from_pytensor((a + x) * 3))] == ["mul(add(x, x, x), ExpandDims{axis=0}(3))"]
  assert list(stepper.successors(from_pytensor((a + x) * a))) == [] and rules.stale == 1
  assert [h.term() for _, h in stepper.successors(from_pytensor((a + x) * 2))] == ["mul(add(x, x, x), ExpandDims{axis=0}(2))"]
  assert rules.stale == 2
  # (a + x) * 3 was stepped in the first state, with a + x fused; here a has the second state's two clients: the last
  # reading agrees, the first does not, and (a + x) * 3's memoized steps were made with it: any earlier reading counts
  assert list(stepper.successors(from_pytensor((a + x) * 3 + (a + x) * a))) == []
  unread = PyTensorRules([local_exp_log])   # reads no clients: nothing is asked again
  st = Stepper(unread)
  for k in (1, 2): list(st.successors(from_pytensor(pt.log(pt.exp(a)) * k)))
  assert unread.stale == 0 and not unread.depends


def test_contexts_are_made_only_when_a_rewriter_reads_them():
  rules = PyTensorRules([local_exp_log])   # its own memo: every node is new to it
  assert len(explore(from_pytensor(pt.log(pt.exp(pt.log(pt.exp(x)) * 2)) + 1), rules).states) == 4
  assert rules.calls == 6 and rules.contexts.built == 0   # each new log and exp node once: local_exp_log reads no fgraph
  with_clients = PyTensorRules([local_exp_log, flatten_nested_add_mul])
  assert len(explore(from_pytensor(pt.log(pt.exp(x + x)) + x + x), with_clients).states) == 6
  # flatten_nested_add_mul reads fgraph.clients: a context for the 4 states where it met a nested add, not for all 6
  assert with_clients.contexts.built == 4 and with_clients.contexts.reads == {"flatten_nested_add_mul": 6}


def test_a_rewriter_that_raises_is_a_stuck_state_naming_it():
  @node_rewriter([pt.exp])
  def broken(fgraph, node): raise ZeroDivisionError("no")
  ex = explore(from_pytensor(pt.exp(x) + 1), [broken])
  assert len(ex.stuck) == 1
  s = ex.stuck[0]
  assert s.error == "ZeroDivisionError: no" and "broken" in s.rule


def test_pattern_and_in2out_rewriters_are_rules_and_tracks_filter_nodes():
  pat = PatternNodeRewriter((pt.neg, (pt.neg, "a")), "a")
  rules = adapt([in2out(local_exp_log), pat])
  assert len(rules) == 2 and rules.rules[1].name.startswith("rules#1 ")
  nf = normal_forms(from_pytensor(pt.log(pt.exp(pt.neg(pt.neg(x))))), rules)
  assert [s.term() for s in nf.forms] == ["x"]
  assert rules.tracking(from_pytensor(x + x).op) == ()   # neither tracks add: an add is offered to no rule


def test_rules_of_another_ir_are_a_one_line_error():
  with pytest.raises(TypeError, match="^explore: pm is a pytensor.graph.rewriting.basic.FromFunctionNodeRewriter, but the program is a uopc.uop.UOp"):
    normal_forms(UOp.param(0) + 0, local_exp_log)
  with pytest.raises(TypeError, match="^explore: pm is a uopc.matcher.PatternMatcher, but the program is a uopc.relational.adapters.pytensor"):
    normal_forms(from_pytensor(x + x), symbolic)
  with pytest.raises(TypeError, match="^explore: pm: int is not a PyTensor node rewriter, in2out, or equilibrium rewriter"):
    normal_forms(from_pytensor(x + x), 5)


def test_deep_graphs_enter_and_are_read_without_recursion():
  exp = pt.exp(x).owner.op
  v = x
  for _ in range(20_000): v = Apply(exp, [v], [v.type()]).outputs[0]   # as pt.exp builds it, without its checks: fast
  g = from_pytensor(v)
  assert len(g.toposort()) == 20_001
  u = g
  for _ in range(20_000): u = u.src[0]
  assert u.var is x
  h = PYTENSOR.make(g.op, (from_pytensor(pt.log(x)),) + g.src[1:], g.arg, g.dtype)
  assert to_pytensor(h).owner.inputs[0].owner.op == pt.log(x).owner.op




def run_cli(capsys, *argv):
  from uopc.cli.main import main
  code = main(list(argv))
  out, err = capsys.readouterr()
  return code, out, err


def test_the_command_line_takes_pytensor_programs_and_rules(capsys):
  code, out, _ = run_cli(capsys, "explore", "normal-forms", f"{EXAMPLE}:z", "--rules", f"{EXAMPLE}:rules")
  assert code == 0 and "explored 19 states, 29 edges: complete" in out and "3 normal forms:" in out
  assert "[3] let a = ExpandDims{axis=0}(2) in mul(a, a, x)   <- canonical" in out
  code, out, _ = run_cli(capsys, "explore", "search", f"{EXAMPLE}:z", "--rules", "pytensor:local_exp_log+pytensor:flatten_nested_add_mul",
                         "--target", "add(x, x, x, x)")
  assert code == 0 and "length: 2 steps" in out
  code, _, err = run_cli(capsys, "explore", "normal-forms", f"{EXAMPLE}:z", "--rules", "pytensor:nope")
  assert code == 2 and err.strip() == ("uopc: --rules: pytensor:nope: not one of canonicalize, stabilize, specialize, "
                                       "nor a node rewriter in pytensor.tensor.rewriting")
  code, _, err = run_cli(capsys, "explore", "normal-forms", f"{EXAMPLE}:z")
  assert code == 2 and "--rules symbolic is a uopc.matcher.PatternMatcher, but the program is a uopc.relational.adapters.pytensor.nodes" in err


RULES_FILE = """
from pytensor.graph.rewriting.basic import NodeRewriter
from pytensor.tensor.rewriting.math import local_exp_log


class Nothing(NodeRewriter):   # a rewriter of the file's own class: its type's module is the rules file, not PyTensor's
  def tracks(self): return None
  def transform(self, fgraph, node): return False


RULES = [local_exp_log, Nothing()]
"""


def test_a_rules_file_holding_a_list_of_pytensor_rewriters_is_taken_on_the_command_line(capsys, tmp_path):
  # the user's case: refused, "RULES is a list, not a uopc PatternMatcher", though the Python API takes the same list
  import importlib.util
  (tmp_path / "rules.py").write_text(RULES_FILE)
  spec = importlib.util.spec_from_file_location("rules_list", tmp_path / "rules.py")
  module = importlib.util.module_from_spec(spec)
  spec.loader.exec_module(module)
  z = pt.log(pt.exp(x + x)) + x + x   # the example's program
  by_api = normal_forms(from_pytensor(z), module.RULES).forms
  code, out, err = run_cli(capsys, "explore", "normal-forms", f"{EXAMPLE}:z", "--rules", f"{tmp_path / 'rules.py'}:RULES")
  assert code == 0 and err == "" and f"{len(by_api)} normal form:" in out and "local_exp_log: log(exp(add(x, x))) -> add(x, x)" in out, out + err
  code, out, err = run_cli(capsys, "explore", "normal-forms", f"{EXAMPLE}:z", "--rules", f"{tmp_path / 'rules.py'}:RULES+pytensor:canonicalize")
  assert code == 0 and err == "" and "canonical:" in out


def test_json_and_html_reports_print_pytensor_nodes(capsys, tmp_path):
  import json
  code, out, _ = run_cli(capsys, "explore", "reachable", f"{EXAMPLE}:z", "--rules", f"{EXAMPLE}:rules", "--format", "json")
  data = json.loads(out)
  assert code == 0 and data["program"] == "add(add(log(exp(add(x, x))), x), x)" and len(data["states"]) == 19
  assert "x" in data["nodes"] and any(isinstance(r, list) and r[0] == "log(" for r in data["nodes"])   # PyTensor's term form
  code, _, _ = run_cli(capsys, "explore", "normal-forms", f"{EXAMPLE}:z", "--rules", f"{EXAMPLE}:rules", "--format", "html",
                       "-o", str(tmp_path / "nf.html"))
  assert code == 0 and "mul(ExpandDims{axis=0}(4), x)" in (tmp_path / "nf.html").read_text()


def test_the_example_script_runs():
  import subprocess
  import sys
  out = subprocess.run([sys.executable, EXAMPLE], capture_output=True, text=True, check=True).stdout
  assert "19 graphs reached" in out and "4x reachable (reacho): True" in out
  assert "shortest path to mul(_, x), 3 steps: local_exp_log -> flatten_nested_add_mul -> local_reduce_add" in out


def test_a_pattern_with_get_nodes_rewrites_the_node_it_is_offered():
  from pytensor.tensor.rewriting.math import local_one_plus_erf   # tracked on erf, it rewrites the add above it
  s = pt.scalar("s")
  nf = normal_forms(from_pytensor(pt.exp(1 + pt.erf(s))), [local_one_plus_erf])
  assert [f.term() for f in nf.forms] == ["exp(erfc(neg(s)))"] and not nf.stuck and nf.canonical is nf.forms[0].graph


def test_pytensor_own_rewrite_keeps_its_constants_readable():
  nf = normal_forms(from_pytensor(pt.log(pt.exp(x + 1))), [local_exp_log])
  assert nf.canonical is nf.forms[0].graph and nf.canonical.term() == "add(x, ExpandDims{axis=0}(1))"
  assert to_pytensor(nf.canonical).owner.inputs[1].owner.inputs[0].data == 1


def _expr(draw, depth: int) -> Any:
  """A random elemwise expression over x: adds of 2 or 3 terms, muls, exp/log pairs, x and small constants."""
  if depth == 0: return draw(st.sampled_from([x, x, 2 * x, x + 1]))
  kind = draw(st.sampled_from(["add", "add3", "mul", "logexp", "leaf"]))
  if kind == "leaf": return _expr(draw, 0)
  if kind == "logexp": return pt.log(pt.exp(_expr(draw, depth - 1)))
  if kind == "mul": return _expr(draw, depth - 1) * _expr(draw, depth - 1)
  terms = [_expr(draw, depth - 1) for _ in range(3 if kind == "add3" else 2)]
  return pt.add(*terms)


@st.composite
def expressions(draw) -> Any: return _expr(draw, draw(st.integers(1, 3)))


@settings(max_examples=25)
@given(expressions())
def test_random_graphs_enter_once_keep_their_values_and_pytensor_rewrite_is_a_normal_form(z):
  g = from_pytensor(z)
  if z.owner is not None: assert from_pytensor(z.owner.op(*z.owner.inputs)) is g   # the same Apply made again: the same node
  ex = explore(g, PyTensorRules(RULES), max_states=200)
  for s in ex.states[:20]:   # a rewrite keeps the value, but for an overflow it may remove (log(exp(800)) is inf, 800 is not)
    kind, detail = PYTENSOR.compare(g, s.graph, g, bindings=2)
    assert kind == "no-difference-found" or (kind == "semantic" and ("inf" in detail or "nan" in detail)), (s.term(), detail)
  if ex.complete:
    nf = normal_forms(g, PyTensorRules(RULES), max_states=200)
    assert nf.canonical in {f.graph for f in nf.forms}, nf.canonical.term()


def test_shape_rewriters_see_a_shape_feature_in_the_states_and_in_pytensor_own_rewrite():
  from pytensor.tensor.rewriting.shape import local_shape_to_shape_i   # reads fgraph.shape_feature
  y = pt.vector("y")
  rules = PyTensorRules([local_shape_to_shape_i])
  nf = normal_forms(from_pytensor(pt.exp(y).shape[0]), rules)
  assert [f.term() for f in nf.forms] == ["Subtensor{i}(MakeVector{dtype='int64'}(Shape_i{0}(y)), 0)"]
  assert nf.canonical is nf.forms[0].graph and rules.contexts.shape_features == 1


def test_stabilize_on_a_logistic_loss_depends_on_the_order():
  X, y, w, b = pt.matrix("X"), pt.vector("y"), pt.vector("w"), pt.scalar("b")
  p = pt.sigmoid(X @ w + b)
  loss = -pt.mean(y * pt.log(p) + (1 - y) * pt.log(1 - p))
  rep = diagnose_order(from_pytensor(loss), named_rules("stabilize"), max_states=300)
  assert rep.exploration.complete and len(rep.exploration.states) == 28 and len(rep.normal_forms) == 2
  assert rep.canonical is rep.normal_forms[0].graph
  (f,) = rep.forks
  assert f.kind == "no-difference-found" and f.canonical_step.rule == "log1msigm_to_softplus"   # -softplus(-(-a)) is -softplus(a)
  assert [e.rule for e in f.competing_path][1:] == ["local_1msigmoid", "logsigm_to_softplus"]
  assert "softplus(neg(a))" in f.normal_form.term() and "a = neg(" in f.normal_form.term()   # -softplus(-(-u)): a double negation


def test_random_runs_reach_the_normal_forms():
  from uopc.relational.analyses.sample import sample_normal_forms
  s = sample_normal_forms(from_pytensor(issue_graph()), adapt(RULES), max_runs=60)
  assert s.stuck == 0 and {f.graph for f in s.forms} <= {f.graph for f in normal_forms(from_pytensor(issue_graph()), RULES).forms}
  assert len(s.forms) >= 2
