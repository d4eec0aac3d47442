"""The native core against the Python one: the same states, parents, steps, normal forms and edges, in the same order."""
from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.strategies import arith_programs, graphs
from uopc import PatternMatcher, UOp, UPat, fold, symbolic
from uopc.limits import BoundHit
from uopc.relational import Exploration, Stepper
from uopc.relational.native import available, missing
from uopc.rulesets import resolve_rules

RULESETS = {"symbolic": symbolic, "fold": fold, "symbolic+evaluate": resolve_rules("symbolic+evaluate")}
x, y = UPat.var("x"), UPat.var("y")
ZERO = PatternMatcher([(x + 0, lambda x: x)], name="zero")
COMM = PatternMatcher([(x + 0, lambda x: x), (x + y, lambda x, y: y + x)], name="comm")


def test_the_native_core_is_built():
  # `pip install` compiles it with the machine's C compiler; CI has one, so not having it is a failure here
  assert available(), missing()


def sum_of_add0(first_slot: int, n: int) -> UOp:
  """``(p_first + 0) + (p_first+1 + 0) + ...``: n independent ``+ 0`` redexes, summed left to right."""
  g = UOp.param(first_slot) + 0
  for k in range(1, n): g = g + (UOp.param(first_slot + k) + 0)
  return g


def snapshot(ex: Exploration) -> tuple:
  """Everything an exploration reports, by value: graphs as nodes (hash consed), states by id."""
  def redex(r): return None if r is None else (r.node, r.rule_index, r.result, r.error, r.position)   # position: tree semantics' At
  states = [(s.id, s.graph, s.depth, None if s.parent is None else s.parent.id, redex(s.redex), s.error, s.normal, s.out is not None)
            for s in ex.states]
  edges = [(e.source.id, e.target.id, e.rule_index, e.node, e.result, e.error) for e in ex.edges]
  return (states, edges, [s.id for s in ex.normal_forms], ex.complete, ex.bound, [s.id for s in ex.stuck],
          [s.id for s in ex.states if ex.fully_expanded(s)])


def both(g: UOp, pm: PatternMatcher, map_limit: int = 256, semantics: str = "graph", **bounds) -> tuple[tuple, Exploration]:
  """The snapshots of the Python and the native search of ``g`` (asserted equal), and the native exploration."""
  python = Exploration(g, pm, stepper=Stepper(pm, map_limit=map_limit, semantics=semantics), native=False, **bounds)
  native = Exploration(g, pm, stepper=Stepper(pm, map_limit=map_limit, semantics=semantics), native=True, **bounds)
  a, b = snapshot(python), snapshot(native)
  assert a == b
  assert graph_facts(python) == graph_facts(native)
  return b, native


def graph_facts(ex: Exploration) -> tuple:
  """What a report reads of the state graph without its edges: their count, and the closed components (C in the native core)."""
  return ex.edge_count, sorted(sorted(c) for c in ex.closed_components())


@given(graphs(max_ops=8), st.sampled_from(sorted(RULESETS)), st.sampled_from([256, 4, 1]))
def test_random_graphs_explore_the_same(g, name, map_limit):
  both(g, RULESETS[name], map_limit, max_states=400)


@given(graphs(max_ops=8), st.sampled_from(sorted(RULESETS)), st.sampled_from([256, 4, 1]), st.integers(1, 400))
def test_reduced_explorations_are_the_same(g, name, map_limit, max_states):
  both(g, RULESETS[name], map_limit, max_states=max_states, reduce=True)


ORDERS = st.sampled_from(["bfs", "dfs"])
SEMANTICS = st.sampled_from(["graph", "tree"])


@st.composite
def chains(draw: st.DrawFn) -> UOp:
  """A chain of ``+ 0``, ``* 1``, ``+ p1`` and ``g + g`` over p0: redexes along one spine, found again at many depths."""
  g = UOp.param(0)
  for kind in draw(st.lists(st.sampled_from(["add0", "add0", "mul1", "addp1", "twice"]), min_size=1, max_size=12)):
    g = g + 0 if kind == "add0" else g * 1 if kind == "mul1" else g + UOp.param(1) if kind == "addp1" else g + g
  return g


@given(graphs(max_ops=8) | chains(), st.sampled_from(sorted(RULESETS)), st.sampled_from([256, 4, 1]), ORDERS, SEMANTICS, st.integers(1, 400),
       st.integers(0, 5) | st.none())
def test_depth_first_and_tree_semantics_explore_the_same(g, name, map_limit, order, semantics, max_states, max_depth):
  # depth first re-parents states found again by a shorter way, and expands again those max_depth had cut
  both(g, RULESETS[name], map_limit, semantics, order=order, max_states=max_states, max_depth=max_depth)


@given(graphs(max_ops=8) | chains(), st.sampled_from(sorted(RULESETS)), ORDERS, SEMANTICS, st.integers(1, 400), st.integers(0, 5) | st.none())
def test_a_stream_read_a_state_at_a_time_is_the_same(g, name, order, semantics, max_states, max_depth):
  # iterating asks the core for one more state each time: it stops mid-state and goes on there, in either order
  pm = RULESETS[name]
  kw = dict(order=order, max_states=max_states, max_depth=max_depth)
  python = Exploration(g, pm, stepper=Stepper(pm, semantics=semantics), native=False, **kw)
  native = Exploration(g, pm, stepper=Stepper(pm, semantics=semantics), native=True, **kw)
  assert [(s.id, s.graph) for s in native] == [(s.id, s.graph) for s in python]
  assert snapshot(native) == snapshot(python)


def test_depth_first_and_tree_semantics_run_in_the_core():
  g = sum_of_add0(0, 4) * 1
  for order in ("bfs", "dfs"):
    for semantics in ("graph", "tree"):
      (states, edges, normals, complete, _, _, _), ex = both(g, COMM, semantics=semantics, order=order, max_states=None)
      assert ex.native and complete and normals == [] and len(edges) > len(states) > 100, (order, semantics)


def test_tree_semantics_rewrites_one_occurrence_per_step_in_the_core():
  p0 = UOp.param(0) + 0
  (states, edges, _, complete, _, _, _), ex = both(p0 * p0, ZERO, semantics="tree", max_states=None)
  # the shared p0 + 0 is two positions: each rewritten alone, then both
  assert ex.native and complete and [s.term() for s in ex.states] == ["let a = add(p0, 0) in mul(a, a)", "mul(p0, add(p0, 0))", "mul(add(p0, 0), p0)",
                                                                      "mul(p0, p0)"]
  assert [s.redex.position for s in ex.states[1:]] == [(0,), (1,), (1,)] and len(edges) == 4


def test_depth_first_moves_a_state_under_one_made_after_it():
  # the batch that makes both: a state's parent may be a later state (the core hands them over parents last)
  p0 = UOp.param(0)
  (states, *_), ex = both(((p0 + 0) + 0) * 1, symbolic, order="dfs", max_states=None)
  assert ex.native and len(states) == 18 and any(parent is not None and parent > i for i, _, _, parent, *_ in states)


def expanded_again(g: UOp, pm: PatternMatcher, **bounds) -> int:
  """How many graphs the Python core's depth-first search expands more than once (states max_depth cut, found again nearer)."""
  stepper, calls = Stepper(pm), Counter()
  step_map = stepper.step_map
  def counted(graph):
    calls[graph] += 1
    return step_map(graph)
  stepper.step_map = counted
  Exploration(g, pm, stepper=stepper, order="dfs", native=False, **bounds).run()
  return sum(n > 1 for n in calls.values())


def test_depth_first_expands_again_the_states_max_depth_cut():
  # depth first meets some graphs first at max_depth, where their successors are cut; found again nearer the program,
  # each takes the shorter path and is expanded again: here every cut state is, so the search is complete
  p0, p1 = UOp.param(0), UOp.param(1)
  (states, _, _, complete, bound, _, _), ex = both((p0 + 0) + (p1 + 0), symbolic, order="dfs", max_depth=3, max_states=None)
  assert expanded_again((p0 + 0) + (p1 + 0), symbolic, max_depth=3) == 1 and ex.native and complete and bound is None
  comm_unit = PatternMatcher([(x + 0, lambda x: x), (x * 1, lambda x: x), (x + y, lambda x, y: y + x)], name="comm_unit")
  g = (p0 * 1 + 0) + (p1 * 1 + 0)
  (states, _, _, complete, bound, _, _), ex = both(g, comm_unit, order="dfs", max_depth=4, max_states=None)
  assert expanded_again(g, comm_unit, max_depth=4) == 13 and ex.native and bound == "max_depth" and len(states) == 68


OPAQUE = PatternMatcher([(x + 0, lambda x: x), (x * 0, lambda x: x.const_like(0)), (x * 1, lambda x: x),
                         ((x + UPat.cvar("c1")) + UPat.cvar("c2"), lambda x, c1, c2: x + 0 if c1.arg + c2.arg == 0 else None)], name="opaque")


@st.composite
def sums_of_terms(draw: st.DrawFn) -> UOp:
  """A random tree of + and * over `pK`, `pK + 0`, `pK * 0`, `pK * 1`, `(pK + c) + c'`: inert spines or not, per rule set."""
  p = [UOp.param(k) for k in range(3)]
  leaves = draw(st.lists(st.sampled_from(p), min_size=1, max_size=7))
  terms = [draw(st.sampled_from([a, a + 0, a * 0, a * 1, (a + 1) + -1, (a + 2) + 0])) for a in leaves]
  while len(terms) > 1:
    i = draw(st.integers(0, len(terms) - 2))
    terms[i:i + 2] = [terms[i] + terms[i + 1] if draw(st.integers(0, 3)) else terms[i] * terms[i + 1]]
  return terms[0]


@given(arith_programs(max_ops=7) | sums_of_terms(), st.sampled_from([ZERO, COMM, OPAQUE]), st.sampled_from([256, 4]), st.integers(1, 400))
def test_reduced_explorations_under_user_rules_are_the_same(g, pm, map_limit, max_states):
  # the core asks Python which nodes are inert (read from the patterns, forms.py): the same persistent sets
  both(g, pm, map_limit, max_states=max_states, reduce=True)


@given(arith_programs(max_ops=7) | sums_of_terms(), st.sampled_from([ZERO, COMM, OPAQUE]), ORDERS, SEMANTICS, st.sampled_from([256, 4]),
       st.integers(1, 400), st.integers(1, 6) | st.none())
def test_reduced_explorations_in_either_order_and_semantics_are_the_same(g, pm, order, semantics, map_limit, max_states, max_depth):
  # under tree semantics a persistent set is the steps inside the first island, by position
  both(g, pm, map_limit, semantics, order=order, max_states=max_states, max_depth=max_depth, reduce=True)


@given(graphs(max_ops=8), st.sampled_from(sorted(RULESETS)), ORDERS, st.integers(1, 400))
def test_reduced_tree_explorations_under_the_rule_sets_are_the_same(g, name, order, max_states):
  both(g, RULESETS[name], semantics="tree", order=order, max_states=max_states, reduce=True)


def test_a_reduced_tree_search_runs_in_the_core():
  # eight independent islands, each a position: one of them expanded per state, as reduction.py's _persistent_tree
  prog = UOp.stack(*(UOp.param(400 + k) * 1 + 0 for k in range(8)))
  (states, _, normals, complete, _, _, full), ex = both(prog, symbolic, semantics="tree", max_states=None, reduce=True)
  assert ex.native and ex.reduced and complete and len(normals) == 1 and len(states) < 4**8 // 10 and len(full) < len(states)


def test_a_sum_of_add_zero_terms_is_reduced_in_the_core():
  (states, _, normals, complete, _, _, full), ex = both(sum_of_add0(0, 30), ZERO, max_states=None, reduce=True)
  assert ex.native and ex.reduced and complete and len(states) == 31 and normals == [30] and full == [29, 30]   # one island left: all its steps


def test_a_reduced_search_runs_in_the_core_and_keeps_every_normal_form():
  from uopc import Ops
  p = [UOp.param(300 + k) for k in range(8)]
  prog = UOp.stack(*(pk * 1 + 0 for pk in p))   # eight independent islands of 4 forms each: 4**8 graphs, one normal form
  (states, _, normals, complete, _, _, full), ex = both(prog, symbolic, max_states=None, reduce=True)
  whole = Exploration(prog, symbolic, max_states=None, native=True).run()
  assert ex.native and ex.reduced and complete and len(whole.states) == 4**8 and len(states) < len(whole.states) // 10
  assert [ex.states[i].graph for i in normals] == [s.graph for s in whole.normal_forms] and ex.states[normals[0]].graph.op is Ops.STACK
  assert len(full) < len(states)


@given(arith_programs(max_ops=6), st.sampled_from(sorted(RULESETS)), st.integers(0, 4) | st.none(), st.integers(1, 60))
def test_bounds_stop_both_at_the_same_state(g, name, max_depth, max_states):
  both(g, RULESETS[name], max_depth=max_depth, max_states=max_states)


@given(arith_programs(max_ops=7), st.sampled_from([ZERO, COMM]))
def test_shared_subgraphs_are_rewritten_everywhere_alike(g, pm):
  both(g + g * g, pm, max_states=3000)


def test_the_native_core_runs_the_whole_search_where_it_applies():
  g = sum_of_add0(0, 6)
  (states, edges, normals, complete, _, _, _), ex = both(g, COMM, max_states=None)
  assert ex.native and complete and len(states) == 3**6 * 2**5 and normals == []   # commutativity always applies
  assert len(edges) > len(states)


def test_a_failing_rule_hands_the_search_to_python_where_it_fails():
  boom = PatternMatcher([(x + 0, lambda x: x), (x * 2, lambda x: 1 // 0)], name="boom")
  p0, p1 = UOp.param(0), UOp.param(1)
  (states, _, _, _, _, stuck, _), ex = both((p0 + 0) + (p1 * 2 + 0), boom, max_states=None)
  # graphs: the program, either + 0 gone, both gone; each has the stuck step of p1 * 2
  assert not ex.native and len(stuck) == 4 and len(states) == 8


def add0_chain(n: int) -> UOp:
  g = UOp.param(0)
  for _ in range(n): g = g + 0
  return g


def test_a_step_map_past_the_limit_is_grouped_in_the_core():
  # every + 0 of the chain makes the one shorter chain: one group of steps per node past the limit, in C as in step.py
  (states, edges, _, complete, _, _, _), ex = both(add0_chain(40), ZERO, map_limit=16, max_states=None)
  assert ex.native and complete and len(states) == 41 and len(edges) == 40 * 41 // 2
  assert [len(s.out) for s in ex.states[:3]] == [40, 39, 38] and graph_facts(ex)[0] == len(edges)


def test_tree_semantics_groups_a_big_step_map_in_the_core():
  # each + 0 is a position of its own, and all of a chain's make one graph; add(c, c): positions below both sources
  (states, edges, _, complete, _, _, _), ex = both(add0_chain(40), ZERO, map_limit=16, semantics="tree", max_states=None)
  assert ex.native and complete and len(states) == 41 and len(edges) == 40 * 41 // 2
  assert sorted(len(r.position) for r, _ in ex.states[0].out)[-3:] == [37, 38, 39]
  c = add0_chain(20)
  (states, edges, _, complete, _, _, _), ex = both(c + c, ZERO, map_limit=16, semantics="tree", max_states=None)
  assert ex.native and complete and len(states) == 21 * 21


def test_a_big_step_map_with_a_redex_below_two_sources_hands_the_search_to_python():
  # step.py enumerates the steps of add(c, c) past the limit lazily (each rewrites both uses): the core stops there
  c = add0_chain(20)
  (states, _, _, complete, _, _, _), ex = both(c + c, ZERO, map_limit=16, max_states=None)
  assert not ex.native and complete and len(states) == 21


def test_a_call_is_left_to_python():
  from uopc.ops import Ops
  body = UOp.param(0) + 0
  (states, _, _, _, _, _, _), ex = both(UOp(Ops.CALL, (body, UOp.param(1) + 0)), ZERO, max_states=None)
  assert not ex.native and len(states) >= 2


def test_graphs_are_made_only_when_read():
  g = sum_of_add0(100, 8)
  ex = Exploration(g, ZERO, max_states=None, native=True).run()
  made = ex._native.core.counts["bound"]
  assert len(ex.states) == 256 and made < 40   # the program's nodes and the rules' results, not every state's graph
  last = ex.states[-1]
  assert last.term() == "add(add(add(add(add(add(add(p100, p101), p102), p103), p104), p105), p106), p107)"
  assert ex.state_of(last.graph) is last and ex.reaches(last.graph)
  assert ex.state_of(g + 1) is None


def test_an_interrupt_inside_a_rule_stops_both_cores_at_the_same_state():
  def interrupted_after(n: int) -> PatternMatcher:
    calls = []
    def swap(x, y):
      calls.append(1)
      if len(calls) == n: raise BoundHit("interrupted")
      return y + x
    return PatternMatcher([(x + 0, lambda x: x), (x + y, swap)], name="swap")
  g = sum_of_add0(200, 6)
  python = Exploration(g, interrupted_after(300), max_states=None, native=False)
  native = Exploration(g, interrupted_after(300), max_states=None, native=True)
  a, b = snapshot(python), snapshot(native)
  assert a == b and native.bound == "interrupted" and 10 < len(native.states) < 3**6 * 2**5
  assert all((s.out is None) == (s.normal is None) for s in native.states)


def test_the_drive_touches_the_exploration_through_its_host_only():
  # issue 26: native/drive.py reads and writes an Exploration through SearchHost (space/stream.py), none of its private names
  import ast
  import inspect
  from uopc.relational.native import drive
  private = [f"{n.value.id}.{n.attr}" for n in ast.walk(ast.parse(inspect.getsource(drive)))
             if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id in ("ex", "host") and n.attr.startswith("_")]
  assert private == [] and drive.native_search.__annotations__["host"] == "SearchHost"   # before: nine names, ex._bound to ex._drive


def test_native_true_without_the_extension_says_why(monkeypatch):
  import uopc.relational.native as nat
  monkeypatch.setattr(nat, "Space", None)
  with pytest.raises(RuntimeError, match="native=True"): Exploration(UOp.param(0) + 0, ZERO, native=True)
  assert not Exploration(UOp.param(0) + 0, ZERO).native


@pytest.mark.parametrize("order, semantics", [("bfs", "graph"), ("dfs", "graph"), ("bfs", "tree")])
def test_a_20000_node_chain_is_indexed_and_stepped_without_recursion(order, semantics):
  mul0 = PatternMatcher([((x + 0) * y, lambda x, y: (x * y) + 0)], name="push")
  g = UOp.param(0) + 0
  for i in range(1, 20_001): g = g * UOp.param(i)   # the + 0 climbs one level a step
  (states, edges, _, complete, bound, _, _), ex = both(g, mul0, semantics=semantics, order=order, max_states=4)
  assert ex.native and not complete and bound == "max_states" and len(states) == 4 and len(edges) == 3
  assert ex.states[3].graph.src[1] is UOp.param(20_000) and ex.states[3].depth == 3
  if semantics == "tree": assert len(ex.states[1].redex.position) == 19_999   # an At 19,999 deep, made without recursion


def test_cycles_found_in_c_are_the_python_ones():
  """Commutativity closes every sum into a cycle of its orderings: Tarjan in C finds the same components as in Python."""
  g = (UOp.param(0) + UOp.param(1)) + (UOp.param(2) + 0)
  _, native = both(g, COMM, max_states=None)
  count, closed = graph_facts(native)
  assert native.native and closed and all(len(c) > 1 for c in closed)
  assert count == len(native.edges)


def test_a_search_handed_over_early_looks_its_graphs_up_in_python():
  c = add0_chain(20)
  ex = Exploration(c + c, ZERO, stepper=Stepper(ZERO, map_limit=16), max_states=None, native=True)
  assert ex.reaches(UOp.param(0) + UOp.param(0))   # found by the Python core, after the C core stopped at its first state
  ex.run()
  assert not ex.native and ex._seen.space is None and len(ex.states) == 21   # the core's one state went into the dict
  assert ex.state_of(c + c) is ex.states[0] and ex.state_of(UOp.param(0) + UOp.param(0)).depth == 20 and ex.state_of(c + 1) is None


@st.composite
def node_lists(draw: st.DrawFn) -> list[UOp]:
  """Nodes of 0 to 6 sources over a few leaves, many STACKs sharing their first two sources (a key past two sources is
  compared on the node, not in its hash-consing slot), each made of the scalar nodes before it."""
  scalars = [UOp.param(i) for i in range(3)] + [UOp.const(v) for v in (0, 1, 2)]
  stacks: list[UOp] = []
  for _ in range(draw(st.integers(1, 40))):
    pick = st.integers(0, len(scalars) - 1)
    kind = draw(st.sampled_from(["add", "stack", "stack-alike"]))
    if kind == "add": scalars.append(scalars[draw(pick)] + scalars[draw(pick)])
    else:
      head = (scalars[0], scalars[3]) if kind == "stack-alike" else ()
      stacks.append(UOp.stack(*head, *(scalars[i] for i in draw(st.lists(pick, min_size=1, max_size=4)))))
  return scalars + stacks


@given(node_lists(), st.randoms(use_true_random=False))
def test_hash_consing_gives_one_node_per_uop_in_any_order(nodes, rng):
  from uopc.relational.native.space import NativeSpace
  space = NativeSpace(Stepper(ZERO))
  order = nodes[:]
  rng.shuffle(order)
  ids: dict[int, int] = {}
  for u in order:   # lookups between indexings: a node made and not yet in the table is found too
    assert space.find(u) == ids.get(id(u), -1)
    ids[id(u)] = space.to_id(u)
    ids.update({id(v): space.find(v) for v in u.toposort() if id(v) not in ids})
  assert len(set(ids.values())) == len({id(u) for u in nodes})   # one node per UOp, and none shared by two
  for u in nodes: assert space.to_id(u) == space.find(u) == ids[id(u)] and space.uop(ids[id(u)]) is u


@given(st.integers(2, 80))
def test_the_step_count_is_the_edges_whichever_cycle_question_came_first(max_states):
  # the native core's answers are kept per search (drive.cycles): asked for every cyclic component first, the report's
  # step count after it must still be the steps made (it was 0 once: that pass did not count them)
  from tests.helpers import SUM_UIR
  from uopc.relational.space.cycles import cyclic_components
  from uopc.uir import parse_uir
  ex = Exploration(parse_uir(SUM_UIR), symbolic, max_states=max_states, reduce=False).run()
  assert ex.native_space is not None
  cyclic_components(ex)
  assert ex.edge_count == len(ex.edges) > 0
