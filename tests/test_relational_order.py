"""Rule-order diagnosis: the canonical path replayed in the exploration, forks, value comparison, other orders."""
import importlib.util
import pathlib

from hypothesis import given, strategies as st

from tests.strategies import graphs
from uopc import Ops, PatternMatcher, UOp, UPat, dtypes, graph_rewrite, symbolic
from uopc.relational.space.engine_path import canonical_path, record
from uopc.relational.analyses.order import competing_rules, diagnose_order, order_matters, permutation_trials
from uopc.relational.space.step import GroupedSteps, Stepper
from uopc.relational.space.states import Edge
from uopc.relational.space.stream import Exploration
from uopc.relational.analyses.verdicts import compare, random_bindings, value_key
from uopc.term import show
from uopc.uir import parse_uir

ROOT = pathlib.Path(__file__).resolve().parents[1]
x, y = UPat.var("x"), UPat.var("y")
p0, p1 = UOp.param(0), UOp.param(1)
f0 = UOp.param(0, dtypes.f32)


def example_rules() -> PatternMatcher:
  spec = importlib.util.spec_from_file_location("example_my_rules_order", ROOT / "examples" / "my_rules.py")
  mod = importlib.util.module_from_spec(spec)
  spec.loader.exec_module(mod)
  return mod.rules


def short(rule: str) -> str: return rule.split(" ", 1)[-1]   # the pattern of a default name; an explicit name whole


# ---- the canonical path

def test_canonical_path_is_graph_rewrites_firings():
  prog = (p0 + 0) * 1 + (p1 * 1 + 0)
  ex = Exploration(prog, symbolic).run()
  canon, err, firings = record(prog, symbolic)
  path = canonical_path(ex, symbolic, firings, canon, err)
  assert path.complete and path.note is None and path.catch_up == 0
  assert [(e.node, e.rule_index, e.result) for e in path.edges] == [tuple(f) for f in firings]
  assert path.states[0].graph is prog and path.states[-1].graph is canon is graph_rewrite(prog, symbolic)
  for a, b in zip(path.edges, path.edges[1:]): assert a.target is b.source


def test_canonical_path_catches_up_where_the_engine_reuses_a_memoized_node():
  # the second rule rebuilds mul(p0, 1), which the engine already rewrote: it reuses p0 without firing again
  pm = PatternMatcher([(x * 1, lambda x: x), (UPat(Ops.ADD, src=(x, UPat(Ops.CONST, arg=5))), lambda x: x * 1)])
  prog = p0 * 1 + (p0 + 5)
  ex = Exploration(prog, pm).run()
  path = canonical_path(ex, pm)
  assert path.complete and path.catch_up == 1
  assert [e.target.term() for e in path.edges] == ["add(p0, add(p0, 5))", "add(p0, mul(p0, 1))", "add(p0, p0)"]


@given(graphs(max_ops=6))
def test_canonical_path_reaches_the_canonical_result(g):
  ex = Exploration(g, symbolic, max_states=300).run()
  canon, err, firings = record(g, symbolic)
  path = canonical_path(ex, symbolic, firings, canon, err)
  if canon is None: assert not path.complete
  elif ex.complete: assert path.complete and path.states[-1].graph is canon
  for e in path.edges: assert e.source.out is not None and e.target is ex.state_of(e.target.graph)


@given(graphs(max_ops=6), st.sampled_from([1, 3, 256]), st.booleans())
def test_a_firings_step_is_looked_up_as_the_full_scan_finds_it(g, map_limit, native):
  # map_limit 1 makes most nodes big, their steps grouped (or listed): every step is found by its redex (in a map or
  # grouped steps, _target_of; the native core's steps by its redex id, NativeOut.find), and a redex of another state
  # that is not a step of this one is not
  from uopc.relational.native.drive import NativeOut
  from uopc.relational.space.engine_path import _edge, _target_of
  ex = Exploration(g, symbolic, max_states=300, stepper=Stepper(symbolic, map_limit=map_limit), native=native).run()
  every = {r for s in ex.states if s.out is not None for r, _ in (s.out.items() if type(s.out) is dict else s.out)}
  for s in ex.states:
    if s.out is None: continue
    steps = dict(s.out.items() if type(s.out) is dict else s.out)
    looked_up = type(s.out) in (dict, GroupedSteps, NativeOut)
    for r, h in steps.items():
      if looked_up: assert _target_of(s, r.node, r.rule_index, r.result) == (r, h)
      t = ex.state_of(h) if h.__class__ is UOp else None
      assert _edge(ex, s, r.node, r.rule_index, r.result) == (False if t is None else Edge.of(s, t, r))
    for r in every - steps.keys():
      if all(k.node is not r.node or k.rule_index != r.rule_index or k.result is not r.result for k in steps):
        assert _edge(ex, s, r.node, r.rule_index, r.result) is None
        if looked_up: assert _target_of(s, r.node, r.rule_index, r.result) is None


@given(graphs(max_ops=6), st.sampled_from([1, 4, 256]))
def test_the_native_cores_step_to_is_the_step_it_lists(g, map_limit):
  # Space.step_to (C) finds state i's step by its key without listing them: the same (result, target) as out(i), and
  # None for a key of another state's steps only
  from uopc.relational.native.drive import NativeOut
  ex = Exploration(g, symbolic, max_states=300, stepper=Stepper(symbolic, map_limit=map_limit), native=True).run()
  outs = [s.out for s in ex.states if type(s.out) is NativeOut]
  every = {r for o in outs for r, _, _ in o.space.core.out(o.state)}
  for o in outs:
    core, listed = o.space.core, {r: (h, t) for r, h, t in o.space.core.out(o.state)}
    for r, ht in listed.items(): assert core.step_to(o.state, r) == ht
    for r in every - listed.keys(): assert core.step_to(o.state, r) is None


def test_a_chains_canonical_path_finds_each_step_by_its_redex():
  # 60 + 0 nodes, most of them big under map_limit 4: the engine's firing is the deepest, the last of each state's steps
  g = p0
  for _ in range(60): g = g + 0
  from uopc.relational.native.drive import NativeOut
  for native, kind in ((False, GroupedSteps), (True, NativeOut)):
    ex = Exploration(g, symbolic, stepper=Stepper(symbolic, map_limit=4), native=native).run()
    assert any(type(s.out) is kind for s in ex.states)
    path = canonical_path(ex, symbolic)
    assert path.complete and path.catch_up == 0 and len(path.edges) == 60 and path.states[-1].graph is p0


def test_canonical_path_stops_at_a_bound():
  prog = (p0 + 0) * 1 + (p1 * 1 + 0)
  ex = Exploration(prog, symbolic, max_depth=1).run()
  path = canonical_path(ex, symbolic)
  assert not path.complete and "leaves the explored states" in path.note and len(path.edges) <= 1


# ---- values

def test_values_are_compared_bit_for_bit():
  assert value_key(0.0) != value_key(-0.0) and value_key(float("nan")) == value_key(float("nan"))
  assert value_key([1, 2.0]) != value_key([1, 2]) and value_key(True) != value_key(1)
  v = compare(UOp.const(0.0), UOp.const(-0.0))
  assert (v.kind, v.detail) == ("semantic", "different values: 0.0 vs -0.0")
  assert compare(UOp.const(2) + 1, UOp.const(3)).detail == "equal for all inputs (proved: the program is closed, both sides evaluated exactly)"
  # a trap on one side only is a difference; on both, the two are alike
  assert compare(UOp.const(1) // 0, UOp.const(1)).detail == "different values: trap (division by zero: 1 // 0) vs 1"
  assert compare(UOp.const(1) // 0, UOp.const(2) // 0).kind == "syntactic"


def test_free_params_are_proved_equal_or_shown_different_at_an_input():
  assert random_bindings([p0, f0], 3, seed=1) == random_bindings([p0, f0], 3, seed=1)
  v = compare(f0 * 0.0, f0 * -0.0)
  assert v.kind == "semantic" and v.binding is not None and v.detail.startswith("different values at p0=")
  v = compare(p0 + p0, p0 * 2, n=5)
  assert (v.kind, v.detail) == ("syntactic", "equal for all inputs (proved by z3)")


# ---- forks

def test_the_chapters_minus_zero_fork_is_semantic():
  prog = parse_uir((ROOT / "examples" / "order.uir").read_text())
  r = diagnose_order(prog, symbolic)
  assert r.complete and r.canonical is f0 * 0.0 and r.canonical_state is r.normal_forms[0]
  assert [s.graph for s in r.normal_forms] == [f0 * 0.0, f0 * -0.0]
  (f,) = r.forks
  assert f.normal_form.graph is f0 * -0.0 and f.fork.id == 0 and f.node is UOp.const(-0.0) + UOp.const(0.0)
  assert f.canonical_step.rule == "fold-const" and f.competing_step.rule in ("add-0", "add-0.0")
  assert f.kind == "semantic" and f.detail.startswith("different values at p0=") and f.detail.endswith(": 0.0 vs -0.0")
  assert [e.target.graph for e in f.canonical_path][-1] is r.canonical
  assert f.competing_path[-1].target is f.normal_form and f.competing_path[0] is f.competing_step
  assert "z3 proves the results equal for all inputs" in r.basis


def test_a_closed_program_is_compared_by_value():
  r = diagnose_order(UOp.const(-0.0) + UOp.const(0.0), symbolic)
  assert [show(s.graph) for s in r.normal_forms] == ["0.0", "-0.0"] and "closed" in r.basis
  assert [(f.kind, f.detail) for f in r.forks] == [("semantic", "different values: 0.0 vs -0.0")]


def test_the_example_fork_is_syntactic():
  pm = example_rules()
  prog = parse_uir((ROOT / "examples" / "fork.uir").read_text())
  r = diagnose_order(prog, pm)
  assert r.canonical is (p0 + p0) + (p1 + p1)
  assert {s.graph for s in r.normal_forms} == {(p0 + p0) + (p1 + p1), (p0 + p1) + (p0 + p1)}
  (f,) = r.forks
  assert f.fork.graph is prog and f.node is prog and f.kind == "syntactic"
  assert f.canonical_step.rule == "distribute" and f.competing_step.rule == "mul-2"
  assert len(f.canonical_path) == 3 and len(f.competing_path) == 1


def test_a_late_fork_is_found_after_the_common_prefix():
  # both orders agree on the first step (x * 1), and part only at the root afterwards
  pm = PatternMatcher([(x * 1, lambda x: x), (UPat(Ops.ADD, src=(x, UPat.cvar("c"))), lambda x, c: x if c.arg == 0 else None),
                       (UPat(Ops.ADD, src=(x, UPat(Ops.CONST, arg=0))), lambda x: x + x if x.op is Ops.PARAM else None)])
  prog = (p0 * 1) + 0
  r = diagnose_order(prog, pm)
  (f,) = r.forks
  assert f.fork.graph is p0 + 0 and f.node is p0 + 0 and f.kind == "semantic"
  assert [e.rule_index for e in r.path.edges] == [0, 1]


def test_one_normal_form_has_no_fork():
  r = diagnose_order((p0 + 0) * 1, symbolic)
  assert r.complete and len(r.normal_forms) == 1 and r.forks == []


def test_a_failing_canonical_engine_is_reported():
  def bad(x): raise RuntimeError("no")
  pm = PatternMatcher([(x * 1, bad)])
  r = diagnose_order(p0 * 1, pm)
  assert r.canonical is None and r.forks == []
  assert r.canonical_error == f"rule test_relational_order#0 x * 1 (test_relational_order.py:{bad.__code__.co_firstlineno}) raised RuntimeError: no"
  assert r.exploration.stuck and not r.path.complete


# ---- other rule orders

def test_permutations_name_the_rules_whose_order_matters():
  prog = parse_uir((ROOT / "examples" / "order.uir").read_text())
  r = diagnose_order(prog, symbolic)
  fold, x0, x00 = 0, *(i for i, rule in enumerate(symbolic.rules) if symbolic.name_of(rule) in ("add-0", "add-0.0"))
  assert {(fold, x0), (fold, x00), (x0, x00)} <= competing_rules(r.exploration)
  trials = permutation_trials(prog, symbolic, r)
  changed = {t.label: t for t in trials if t.changed}
  assert "reversed" in changed and f"swap #{fold} and #{x0}" in changed and f"swap #{x0} and #{x00}" not in changed
  assert all(t.result is f0 * -0.0 for t in changed.values())
  assert order_matters(trials) == [(fold, x0), (fold, x00)]
  assert len(permutation_trials(prog, symbolic, r, max_orders=3)) == 3


def test_permutations_of_the_example():
  pm = example_rules()
  prog = parse_uir((ROOT / "examples" / "fork.uir").read_text())
  trials = permutation_trials(prog, pm, diagnose_order(prog, pm))
  assert order_matters(trials) == [(4, 5)]
  assert {t.result for t in trials if t.changed} == {(p0 + p1) + (p0 + p1)}


def test_deep_chains_do_not_recurse():
  g = p0
  for _ in range(10_000): g = (g + 1) * 1   # a 20,000-node chain
  r = diagnose_order(g, symbolic, max_states=20, timeout=10)
  assert not r.complete and r.canonical is not None and not r.path.complete


def _forks_by_definition(ex, path):
  """The forks as the module defined them before it searched once per fork: per normal form, the states that reach it
  (a search over the predecessors), the last path state among them, and a breadth-first path through those states only."""
  from collections import deque
  succ, pred = {}, {}
  for e in ex.edges:
    if e.target.error is None:
      succ.setdefault(e.source.id, []).append(e)
      pred.setdefault(e.target.id, []).append(e)
  out = []
  for nf in ex.normal_forms:
    reach, todo = {nf.id}, [nf.id]
    while todo:
      for e in pred.get(todo.pop(), ()):
        if e.source.id not in reach: reach.add(e.source.id); todo.append(e.source.id)
    j = max(k for k, s in enumerate(path.states) if s.id in reach)
    parent, queue = {path.states[j].id: None}, deque([path.states[j].id])
    while queue:
      for e in succ.get(queue.popleft(), ()):
        if e.target.id in reach and e.target.id not in parent: parent[e.target.id] = e; queue.append(e.target.id)
    steps, sid = [], nf.id
    while (e := parent.get(sid)) is not None: steps.append(e); sid = e.source.id
    out.append((nf.id, path.states[j].id, steps[::-1]))
  return out


@given(graphs(max_ops=6), st.booleans())
def test_forks_are_the_last_path_state_reaching_each_normal_form_and_a_shortest_path_to_it(g, native):
  ex = Exploration(g, symbolic, max_states=3000, native=native).run()
  report = diagnose_order(g, symbolic, exploration=ex)
  if report.canonical is None: return
  expected = [t for t in _forks_by_definition(ex, report.path) if t[0] != getattr(report.canonical_state, "id", None)]
  assert [(f.normal_form.id, f.fork.id, f.competing_path) for f in report.forks] == expected
  assert all(f.competing_step == f.competing_path[0] for f in report.forks)


def test_forks_of_programs_with_many_normal_forms_in_both_cores():
  three = (p0 + 0) * 1 + (p1 + 0) * 1 + (UOp.param(2) + 0) * 1   # five_params' shape with three terms: several normal forms
  for prog in (three, (UOp.const(-0.0) + UOp.const(0.0)) * f0):
    found = []
    for native in (True, False):
      ex = Exploration(prog, symbolic, native=native).run()
      assert (ex.native_core is not None) == native
      report = diagnose_order(prog, symbolic, exploration=ex)
      expected = [t for t in _forks_by_definition(ex, report.path) if t[0] != report.canonical_state.id]
      assert [(f.normal_form.id, f.fork.id, f.competing_path) for f in report.forks] == expected and expected
      found.append([(f.normal_form.id, f.fork.id, [(e.source.id, e.target.id, e.rule) for e in f.competing_path]) for f in report.forks])
    assert found[0] == found[1]


def test_successor_ids_and_edges_from_are_the_edges_of_each_state():
  chain = p0
  for _ in range(120): chain = chain + 0   # past the step maps' limit: the Python core groups a big graph's steps
  for prog in ((p0 + 0) * 1 + (p1 * 1 + 0), chain):
    for native in (True, False):
      ex = Exploration(prog, symbolic, native=native).run()
      assert [e for s in ex.states for e in ex.edges_from(s)] == ex.edges
      assert [list(dict.fromkeys(ex.successor_ids(s))) for s in ex.states] == \
             [list(dict.fromkeys(e.target.id for e in ex.edges_from(s))) for s in ex.states]
      assert ex.edge_count == len(ex.edges)
  assert any(type(s.out) is GroupedSteps for s in Exploration(chain, symbolic, native=False).states)
