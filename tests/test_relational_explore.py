"""Explorations: every reachable graph, bounds, normal forms, paths, cost per state."""
import itertools
import time
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.strategies import graphs
from tests.test_relational_step import brute_force
from uopc import Ops, PatternMatcher, UOp, UPat, call_params, dtypes, fold, graph_rewrite, simplify, symbolic
from uopc.relational import Exploration, Stepper, etuplize, explore, normal_forms, stepo
from uopc.relational.logic.bridge import live_heads
from uopc.uop import live_nodes
from uopc.rulesets import resolve_rules

p0, p1, p2 = UOp.param(0), UOp.param(1), UOp.param(2)
x, y = UPat.var("x"), UPat.var("y")
ZERO, ONE = UPat(Ops.CONST, arg=0), UPat(Ops.CONST, arg=1)
UNITS = PatternMatcher([(UPat(Ops.ADD, src=(x, ZERO)), lambda x: x), (UPat(Ops.ADD, src=(ZERO, x)), lambda x: x),
                        (UPat(Ops.MUL, src=(x, ONE)), lambda x: x), (UPat(Ops.MUL, src=(ONE, x)), lambda x: x)])
COMMUTE = PatternMatcher([(UPat(Ops.ADD, src=(x, y)), lambda x, y: y + x)])


def closure(pm: PatternMatcher, g: UOp, limit: int = 5000) -> set[UOp]:
  """Every reachable graph by plain BFS over the brute-force successors (independent of the explorer)."""
  seen, todo = {g}, [g]
  while todo:
    u = todo.pop()
    for _, _, _, h in brute_force(pm, u)[0]:
      if h not in seen:
        seen.add(h)
        todo.append(h)
        if len(seen) > limit: raise OverflowError
  return seen


def test_the_chapter_sum_has_exactly_two_normal_forms():
  prog = (p0 + 0) * 1 + (p1 * 1 + 0)
  nf = normal_forms(prog, symbolic)
  assert nf.complete and nf.bound is None
  assert [s.graph for s in nf.forms] == [p0 + p1, p1 + p0]
  assert nf.canonical is graph_rewrite(prog, symbolic) is p0 + p1 and nf.canonical_state is nf.forms[0]
  for form in nf.forms:
    path = nf.path(form)
    assert path[0].source.graph is prog and path[-1].target is form and len(path) == form.depth
    for a, b in zip(path, path[1:]): assert a.target is b.source
    for e in path: assert e.node in e.source.graph.toposort() and e.result is not None


def test_states_are_exactly_the_reachable_graphs():
  prog = (p0 + 0) * 1 + (p1 * 1 + 0)
  ex = explore(prog, symbolic).run()
  assert {s.graph for s in ex.states} == closure(symbolic, prog)
  assert len({s.graph for s in ex.states}) == len(ex.states)          # each graph once
  assert [s.id for s in ex.states] == list(range(len(ex.states)))
  assert all(s.parent is None or s.parent.depth + 1 == s.depth for s in ex.states)
  depths = [s.depth for s in ex.states]
  assert depths == sorted(depths)                                      # breadth first


def test_edges_are_the_distinct_steps():
  prog = (p0 + 0) * 1
  ex = explore(prog, UNITS).run()
  assert [s.term() for s in ex.states] == ["mul(add(p0, 0), 1)", "add(p0, 0)", "mul(p0, 1)", "p0"]
  assert sorted((e.source.id, e.target.id, e.rule_index) for e in ex.edges) == [(0, 1, 2), (0, 2, 0), (1, 3, 0), (2, 3, 2)]
  assert [s.normal for s in ex.states] == [False, False, False, True]


def test_sharing_free_sum_has_four_to_the_k_graphs():
  for k in (1, 2, 3, 4):
    terms = [(UOp.param(i) + 0) * 1 for i in range(k)]
    prog = terms[0]
    for t in terms[1:]: prog = prog + t
    ex = explore(prog, UNITS).run()
    assert len(ex.states) == 4 ** k and ex.complete
    assert [s.graph for s in ex.normal_forms] == [graph_rewrite(prog, UNITS)]


def test_a_looping_rule_set_terminates_with_the_finite_set():
  ex = explore(p0 + p1, COMMUTE).run()
  assert ex.complete and {s.graph for s in ex.states} == {p0 + p1, p1 + p0} and ex.normal_forms == []
  prog = (p0 + p1) + p2
  ex = explore(prog, COMMUTE).run()
  assert ex.complete and {s.graph for s in ex.states} == closure(COMMUTE, prog) and len(ex.states) == 4
  assert len(ex.edges) == 4 * 2


def test_dfs_finds_the_same_graphs():
  prog = (p0 + 0) * 1 + (p1 * 1 + 0)
  bfs, dfs = explore(prog, symbolic).run(), explore(prog, symbolic, order="dfs").run()
  assert dfs.complete and {s.graph for s in dfs.states} == {s.graph for s in bfs.states}
  assert {s.graph for s in dfs.normal_forms} == {s.graph for s in bfs.normal_forms}
  assert max(s.depth for s in dfs.states) >= max(s.depth for s in bfs.states)


def test_bounds_give_partial_results_and_say_which():
  grow = PatternMatcher([(UPat(Ops.PARAM, name="p"), lambda p: None), (UPat(Ops.ADD, name="a"), lambda a: a + 0)])
  ex = explore(p0 + 1, grow, max_states=10).run()                      # infinite: a + 0 + 0 + ...
  assert (ex.complete, ex.bound, len(ex.states)) == (False, "max_states", 10)
  ex = explore(p0 + 1, grow, max_states=None, max_depth=3).run()
  assert (ex.complete, ex.bound, len(ex.states)) == (False, "max_depth", 4) and max(s.depth for s in ex.states) == 3
  assert ex.states[-1].normal is False                                 # expanded at the limit: not normal
  t0 = time.perf_counter()
  ex = explore(p0 + 1, grow, max_states=None, timeout=0.2).run()
  assert (ex.complete, ex.bound) == (False, "timeout") and time.perf_counter() - t0 < 5
  ex = explore((p0 + 0) * 1, UNITS, max_depth=2).run()                 # deep enough: complete
  assert ex.complete and len(ex.states) == 4


def test_streaming_is_lazy():
  grow = PatternMatcher([(UPat(Ops.ADD, name="a"), lambda a: a + 0)])
  ex = explore(p0 + 1, grow, max_states=None)
  it = iter(ex)
  first = [next(it) for _ in range(5)]
  assert [s.depth for s in first] == [0, 1, 2, 3, 4] and len(ex._states) < 10
  assert [s.id for s in itertools.islice(ex, 7)] == [0, 1, 2, 3, 4, 5, 6]   # a second iteration replays, then goes on


def test_a_raising_rule_makes_a_stuck_state_and_the_stream_goes_on():
  def boom(x): raise ZeroDivisionError("boom")
  pm = PatternMatcher([(UPat(Ops.MUL, src=(x, UPat(Ops.CONST, arg=2))), boom)] + UNITS.rules)
  ex = explore((p0 + 0) * 2, pm).run()
  assert ex.complete
  # one stuck state per graph where the rule raises: in the program, and again after x + 0
  assert [(s.parent.term(), s.term(), s.node, s.rule_index, s.error, s.normal) for s in ex.stuck] == [
    ("mul(add(p0, 0), 2)", "mul(add(p0, 0), 2)", (p0 + 0) * 2, 0, "ZeroDivisionError: boom", False),
    ("mul(p0, 2)", "mul(p0, 2)", p0 * 2, 0, "ZeroDivisionError: boom", False)]
  assert {s.term() for s in ex.states if not s.stuck} == {"mul(add(p0, 0), 2)", "mul(p0, 2)"}
  assert [s.term() for s in ex.normal_forms] == []                     # mul(p0, 2) still raises: not normal
  assert sorted((e.source.id, e.target.id, e.error) for e in ex.edges if e.error) == [
    (0, ex.stuck[0].id, "ZeroDivisionError: boom"), (ex.stuck[1].parent.id, ex.stuck[1].id, "ZeroDivisionError: boom")]


def test_deep_chain_explores_under_a_bound_without_recursion_error():
  g = p0
  for i in range(20_000): g = g * 1 if i % 2 else g + 0       # a redex at every level
  ex = explore(g, UNITS, max_states=5).run()
  assert (ex.bound, len(ex.states)) == ("max_states", 5)
  assert all(s.graph.op in (Ops.ADD, Ops.MUL) for s in ex.states)
  one = p0 + 0
  for _ in range(20_000): one = one * 2                       # one redex, at the bottom
  ex = explore(one, UNITS).run()
  assert ex.complete and len(ex.states) == 2 and ex.states[1].graph.toposort()[0] is p0
  assert len(ex.path_to(ex.states[1])) == 1


def test_cost_per_state_does_not_depend_on_the_rest_of_the_graph():
  # the same rewrite region beside 10 or 2,000 other nodes: after the first state, the
  # explorer makes the same number of new node maps, whatever the size of the rest
  def counts(n_other: int) -> tuple[int, int]:
    other = UOp.param(50)
    for i in range(n_other): other = other * 2 + (i + 1000)
    region = (p0 + 0) * 1 + (p1 * 1 + 0) + (p2 + 0)
    stepper = Stepper(UNITS)
    ex = Exploration(region + other, UNITS, stepper=stepper, max_states=None)
    next(iter(ex))
    stepper.map_of(ex.root)
    before = len(stepper._maps)
    ex.run()
    return len(ex.states), len(stepper._maps) - before
  assert counts(10) == counts(2000)


@st.composite
def small_programs(draw, max_ops=6):
  """Small scalar arithmetic over two PARAMs and edge constants: programs with many redexes."""
  dt = draw(st.sampled_from([dtypes.i32, dtypes.f32]))
  consts = [0, 1, 2, -1] if dt is dtypes.i32 else [0.0, -0.0, 1.0, 2.0]
  pool = [UOp.param(0, dt), UOp.param(1, dt)]
  for _ in range(draw(st.integers(1, max_ops))):
    a = draw(st.sampled_from(pool))
    b = draw(st.sampled_from(pool)) if draw(st.booleans()) else UOp.const(draw(st.sampled_from(consts)), dt)
    op = draw(st.sampled_from([Ops.ADD, Ops.ADD, Ops.MUL, Ops.MAX]))
    pool.append(UOp(op, (a, b) if draw(st.booleans()) else (b, a)))
  return pool[-1]


@st.composite
def programs_with_calls(draw):
  """A small program whose part is a CALL: its body is a small program over the PARAMs, its arguments others."""
  body = draw(small_programs(max_ops=4))
  dt = body.dtype
  slots = sorted({u.arg.slot for u in call_params(body)})
  args = [draw(small_programs(max_ops=2).filter(lambda a: a.dtype is dt)) for _ in slots]
  call = body.call(*args, name=draw(st.sampled_from([None, "f"]))) if slots == list(range(len(slots))) else body
  other = draw(small_programs(max_ops=2).filter(lambda a: a.dtype is dt))
  return UOp(draw(st.sampled_from([Ops.ADD, Ops.MUL])), (call, other) if draw(st.booleans()) else (other, call))


@given(st.one_of(small_programs(), programs_with_calls()), st.sampled_from(["symbolic", "fold", "symbolic+evaluate", "units"]))
@settings(max_examples=60)
def test_the_canonical_result_is_one_of_the_normal_forms(prog, name):
  pm = UNITS if name == "units" else resolve_rules(name)
  nf = normal_forms(prog, pm, max_states=3000, timeout=10)
  if not nf.complete: return
  assert nf.canonical is not None and nf.canonical_state is not None
  assert nf.canonical_state.normal and nf.canonical_state in nf.forms


def test_a_call_whose_body_loses_its_param_keeps_the_body_as_the_engine_does():
  p1 = UOp.param(1)
  prog = (p0 * 0).call(p1, name="f") + 1   # mul(p0, 0) -> 0 would leave the CALL without its PARAM
  nf = normal_forms(prog, symbolic)
  assert nf.complete and nf.canonical is prog and [s.graph for s in nf.forms] == [prog] and nf.exploration.stuck == []
  nf = normal_forms((p0 * 0).call(p1 + 0, name="f") + 1, symbolic)   # the argument still simplifies
  assert [s.graph for s in nf.forms] == [prog] and nf.canonical_state is nf.forms[0]
  # the engine keeps such a body as written, not half rewritten: no step goes inside it (mul(0, p0) stays)
  a = UOp.const(0) + p0
  nf = normal_forms(a + (UOp.const(0) * p0).call(a), symbolic)
  assert [s.term() for s in nf.forms] == ["add(p0, call[mul(0, p0)](p0))"] and nf.canonical_state is nf.forms[0]


@given(graphs(max_ops=4))
@settings(max_examples=25)
def test_random_graphs_canonical_result_is_reached(g):
  nf = normal_forms(g, symbolic, max_states=2000, timeout=10)
  if not nf.complete or nf.canonical is None or nf.stuck: return
  assert nf.canonical_state is not None and nf.canonical_state.normal


def test_explore_rejects_bad_arguments():
  with pytest.raises(ValueError): explore(p0, symbolic, order="random")
  with pytest.raises(ValueError): explore(p0, symbolic, max_states=0)
  with pytest.raises(ValueError): explore(p0, symbolic, max_depth=-1)
  assert explore(p0, fold).complete and [s.graph for s in explore(p0, fold).normal_forms] == [p0]


def test_memo_limits_do_not_change_the_answer():
  # tiny tables: maps dropped between states, and every node "big" (successors rebuilt lazily)
  prog = (p0 + 0) * 1 + (p1 * 1 + 0)
  ref = explore(prog, symbolic).run()
  for stepper in (Stepper(symbolic, cache_limit=5), Stepper(symbolic, map_limit=1), Stepper(symbolic, map_limit=1, cache_limit=5)):
    ex = Exploration(prog, symbolic, stepper=stepper).run()
    assert [s.graph for s in ex.states] == [s.graph for s in ref.states]
    assert sorted((e.source.id, e.target.id, e.rule_index) for e in ex.edges) == \
      sorted((e.source.id, e.target.id, e.rule_index) for e in ref.edges)
    assert [s.graph for s in ex.normal_forms] == [p0 + p1, p1 + p0]


@st.composite
def chains(draw):
  """A chain of ``+ 0``, ``* 1`` and ``+ p1`` nodes over ``p0``, some levels repeated: redexes at many depths,
  often making the same graph (``map_limit`` small makes most of its nodes big)."""
  g = p0
  for _ in range(draw(st.integers(1, 24))):
    kind = draw(st.sampled_from(["add0", "add0", "mul1", "addp1", "twice"]))
    g = g + 0 if kind == "add0" else g * 1 if kind == "mul1" else g + p1 if kind == "addp1" else g + g
  return g


def assert_budgets_explore_the_same_space(prog: UOp, pm: PatternMatcher, steppers: list[Stepper], order: str = "bfs") -> None:
  """The old behaviour (every map materialized, never dropped) against the forms the budgets choose: steps grouped
  by graph, enumerated lazily, tables dropped between states."""
  def run(stepper: Stepper) -> Exploration:
    return Exploration(prog, pm, stepper=stepper, max_states=400, order=order).run()
  def edges(ex: Exploration) -> Counter:
    return Counter((e.source.id, e.target.id, e.rule_index, e.node, e.result) for e in ex.edges)
  def steps_out(ex: Exploration) -> Counter:   # the pairs State.out gives, with their positions (tree semantics)
    return Counter((s.id, r.position, r.rule_index, r.node, r.result, h if type(h) is UOp else h.error)
                   for s in ex.states if s.out is not None for r, h in (s.out.items() if type(s.out) is dict else s.out))
  def steps(ex: Exploration) -> list:
    return [(s.depth, s.parent and s.parent.id, s.node, s.rule_index, s.redex and s.redex.position, s.error) for s in ex.states]
  semantics = steppers[0].semantics
  ref = run(Stepper(pm, map_limit=10**9, cache_limit=10**9, semantics=semantics))
  for stepper in steppers:
    ex = run(stepper)
    assert [s.graph for s in ex.states] == [s.graph for s in ref.states]
    assert steps(ex) == steps(ref)
    assert (ex.bound, [s.id for s in ex.normal_forms]) == (ref.bound, [s.id for s in ref.normal_forms])
    if ref.complete:   # under a bound the last state's steps are partly listed when lazy
      assert edges(ex) == edges(ref)
      assert steps_out(ex) == steps_out(ref) and [len(s.out) for s in ex.states] == [len(s.out) for s in ref.states]


@given(st.one_of(small_programs(), programs_with_calls(), chains()),
       st.sampled_from(["symbolic", "fold", "symbolic+evaluate", "units", "commute"]), st.sampled_from(["bfs", "dfs"]),
       st.sampled_from(["graph", "tree"]))
@settings(max_examples=max(10, settings().max_examples // 3))   # three explorations an example, a CALL under commute a slow one
def test_tiny_and_huge_memo_budgets_explore_the_same_space(prog, name, order, semantics):
  pm = UNITS if name == "units" else COMMUTE + UNITS if name == "commute" else resolve_rules(name)
  assert_budgets_explore_the_same_space(
    prog, pm, [Stepper(pm, map_limit=1, semantics=semantics), Stepper(pm, map_limit=3, cache_limit=4, semantics=semantics)], order)


@pytest.mark.parametrize("semantics", ["graph", "tree"])
def test_grouped_steps_skip_a_call_body_step_that_loses_its_param(semantics):
  # the engine rewrites x * 0 to x (first rule), the explorer also to 0: a step that leaves the CALL without its
  # PARAM, and so is no step (the engine keeps the body), whether the CALL's steps are grouped or not
  pm = PatternMatcher([(x * 0, lambda x: x), (x * 0, lambda x: UOp.const(0)), (x + 0, lambda x: x)])
  prog = (p0 * 0).call(p1 + 0) + 0 + 0
  steppers = [Stepper(pm, map_limit=k, semantics=semantics) for k in (1, 2, 3)]
  assert_budgets_explore_the_same_space(prog, pm, steppers)
  assert any(s.grouped_steps(prog.src[0].src[0]) is not None for s in steppers)   # the CALL's steps grouped by one
  assert [s.term() for s in explore(prog, pm, semantics=semantics).normal_forms] == ["call[p0](p1)"]


@pytest.mark.parametrize("semantics", ["graph", "tree"])
def test_a_chain_of_zeros_makes_one_graph_per_state_and_every_edge(semantics):
  g = p0
  for _ in range(3000): g = g + 0
  ex = explore(g, UNITS, semantics=semantics).run()
  assert ex.complete and len(ex.states) == 3001 and ex.states[-1].graph is p0
  assert [s.graph for s in ex.states[:3]] == [g, g.src[0], g.src[0].src[0]]
  assert sum(len(s.out) for s in ex.states) == 3000 * 3001 // 2   # every redex is an edge, each counted once
  # every redex once (tree semantics spells each position out, nested as deep as it lies: a shorter chain there)
  s = ex.states[1] if semantics == "graph" else ex.states[-300]
  assert {r.node for r, _ in s.out} == set(s.graph.toposort()) - {p0, UOp.const(0)} and len(s.out) == len(list(s.out))


def _explore_everything_once(c: int) -> None:
  """One of each kind of use, on a program with constants no other call uses; nothing is kept."""
  g = (p0 + c) * 1 + (p1 * 1 + 0)
  list(explore(g, symbolic))
  normal_forms(g, resolve_rules("symbolic+evaluate"))
  etuplize(p0 + (c + 1))
  simplify(g * 3)
  from kanren import run, var
  q = var()
  run(3, q, stepo(symbolic, q, p0 + c))   # backwards: rule patterns and predecessors


def test_exploring_gives_its_memory_back():
  """A long-lived process: explorations of ever new programs, their results dropped, leave nothing behind.

  Counts the live nodes and interned heads, and the Python heap (tracemalloc) allocated with uopc or the relational
  stack on the stack: the process's other threads (pytest-xdist's channel, which receives the next tests at times a
  loaded machine shifts) are not this test's business. Before the caches were bounded each exploration here kept about
  90 KiB for good (0.9 MB for 10); what remains now is the interpreter's free lists of small tuples (at most ~2,000 each).
  """
  import gc
  import tracemalloc
  for c in range(3): _explore_everything_once(1_000 + c)   # rule-set caches (compiled rules, patterns) fill here
  gc.collect()
  nodes, heads = live_nodes(), live_heads()
  ours = [tracemalloc.Filter(True, f"*/{pkg}/*", all_frames=True) for pkg in ("uopc", "kanren", "unification", "etuples", "cons")]
  tracemalloc.start(64)   # deep enough that every allocation made under an exploration has its caller's frame
  try:
    before = tracemalloc.take_snapshot().filter_traces(ours)
    for c in range(10): _explore_everything_once(2_000 + 2 * c)
    gc.collect()
    assert (live_nodes(), live_heads()) == (nodes, heads)
    after = tracemalloc.take_snapshot().filter_traces(ours)
  finally: tracemalloc.stop()
  kept = sum(d.size_diff for d in after.compare_to(before, "filename"))
  assert kept < 256 * 1024, f"{kept} bytes kept by 10 dropped explorations"


# ---- tree semantics: the Aesara issue's running example (examples/aesara.uir)

def test_the_aesara_example_reaches_the_eight_anticipated_graphs_under_tree_semantics():
  from pathlib import Path
  from uopc import parse_uir
  from uopc.rulesets import resolve_rules
  root = Path(__file__).resolve().parent.parent
  prog = parse_uir((root / "examples" / "aesara.uir").read_text())
  rules = resolve_rules(str(root / "examples" / "aesara_rules.py") + ":rules")
  # the anticipated graphs, with binary adds: log exp(x + x) + x + x, log exp(2x) + x + x, 2x + x + x,
  # 2x + 2x, log exp(x + x) + 2x, x + x + 2x, x + x + x + x, 4x
  anticipated = ["add(add(log2(exp2(add(p0, p0))), p0), p0)", "add(add(log2(exp2(mul(p0, 2.0))), p0), p0)",
                 "add(add(mul(p0, 2.0), p0), p0)", "let a = mul(p0, 2.0) in add(a, a)",
                 "add(log2(exp2(add(p0, p0))), mul(p0, 2.0))", "add(add(p0, p0), mul(p0, 2.0))",
                 "add(add(add(p0, p0), p0), p0)", "mul(p0, 4.0)"]
  tree = explore(prog, rules, semantics="tree")
  graph = explore(prog, rules)
  assert tree.complete and graph.complete
  reached_tree, reached_graph = {s.term() for s in tree.states}, {s.term() for s in graph.states}
  assert set(anticipated) <= reached_tree
  # under graph semantics x + x is one node, inside exp and beside it: rewriting it rewrites both uses
  assert set(anticipated) - reached_graph == {"add(log2(exp2(add(p0, p0))), mul(p0, 2.0))", "add(add(p0, p0), mul(p0, 2.0))"}
  assert reached_graph < reached_tree
  assert [s.term() for s in tree.normal_forms] == [s.term() for s in graph.normal_forms]



@pytest.mark.parametrize("taken", [1, 17, 100, 9_000])
def test_exploring_ahead_doubles_and_stays_within_twice_the_states_taken(taken):
  x = UPat.var("x")
  plus0 = PatternMatcher([(UPat(Ops.ADD, src=(x, UPat(Ops.CONST, arg=0))), lambda x: x)])
  terms = [(UOp.param(800 + i) + 0) + 0 for i in range(9)]
  prog = terms[0]
  for t in terms[1:]: prog = prog * t      # 3**9 = 19,683 graphs
  ex = Exploration(prog, plus0, max_states=None)
  assert len(list(itertools.islice(ex.iter_ahead(), taken))) == taken
  made = len(ex.found)   # the states made so far, without exploring further
  assert taken <= made <= 2 * taken + 16
  if taken == 9_000: assert made > taken + 4_096   # doubling, not batches of 4,096: few batches, so few collector passes


def test_a_rule_set_that_is_not_a_pattern_matcher_is_a_type_error_at_the_call():
  # explore(u, 3) was an AttributeError ('int' object has no attribute 'by_op') once something asked for a result
  with pytest.raises(TypeError, match=r"^explore: pm is an int, not a uopc PatternMatcher$"): explore(UOp.param(0) + 0, 3)
