"""Search for rewrite sequences: shortest paths to a target, kanren agreement, bidirectional proofs, replay."""
import time
from collections import deque

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from kanren import eq, run, var

from tests.reference import build, programs
from tests.strategies import graphs
from tests.test_relational_step import brute_force
from uopc import Ops, PatternMatcher, UOp, UPat, dtypes, graph_rewrite, symbolic
from uopc.relational import explore, reacho, term_pattern
from uopc.relational.analyses.search import (ReplayError, Target, matcho, meet, replay, search, search_all, target_goal,
                                    target_pattern)
from uopc.term import show
from uopc.termparse import parse_term
from uopc.uir import UIRError

p0, p1 = UOp.param(0), UOp.param(1)
CHAPTER = (p0 + 2) * 3 + (UOp.const(1) + 4)
x = UPat.var("x")
ZERO = UPat(Ops.CONST, arg=0)
PLUS0 = PatternMatcher([(UPat(Ops.ADD, src=(x, ZERO)), lambda x: x)])


def bfs_distances(pm: PatternMatcher, g: UOp, limit: int = 5000) -> dict[UOp, int]:
  """Every reachable graph with its distance, by a plain BFS over the brute-force successors (no explorer)."""
  dist, todo = {g: 0}, deque([g])
  while todo:
    u = todo.popleft()
    for _, _, _, h in brute_force(pm, u)[0]:
      if h not in dist:
        dist[h] = dist[u] + 1
        todo.append(h)
        if len(dist) > limit: raise OverflowError
  return dist


def nearest(pm: PatternMatcher, g: UOp, target: str) -> int | None:
  """The brute-force distance to the nearest graph matching ``target`` (matched by ``Term.match``, not unification)."""
  term = parse_term(target)
  ds = [d for h, d in bfs_distances(pm, g).items() if term.match(h) is not None]
  return min(ds) if ds else None


def assert_path(prog: UOp, path: list, end: UOp, pm: PatternMatcher = symbolic) -> None:
  """``path`` is a chain of steps from ``prog`` to ``end`` that replays to ``end``."""
  if not path: assert prog is end; return
  assert path[0].source.graph is prog and path[-1].target.graph is end
  for a, b in zip(path, path[1:]): assert a.target is b.source
  for e in path:
    assert e.node in e.source.graph.toposort() and e.error is None
    assert e.source.graph.substitute({e.node: e.result}) is e.target.graph
  assert replay(prog, path, pm) is end


# ---- the chapter's example

def test_the_chapter_program_reaches_the_target_by_a_shortest_path():
  r = search(CHAPTER, "add(mul(p0, 3), ?c)", symbolic)
  assert r.found and r.complete and r.bound is None
  assert r.graph is p0 * 3 + 11
  assert r.bindings == {"c": UOp.const(11)} and r.bindings["c"].arg == 11
  assert r.length == len(r.path) == 3 == nearest(symbolic, CHAPTER, "add(mul(p0, 3), ?c)")
  assert r.searched == 25 and r.searched <= len(bfs_distances(symbolic, CHAPTER)) == 31
  assert [e.rule for e in r.path] == ["distribute-const", "fold-const", "assoc-add-const"]
  assert [show(e.node) for e in r.path] == ["mul(add(p0, 2), 3)", "add(1, 4)", "add(add(mul(p0, 3), 6), 5)"]
  assert r.path[0].describe() == "distribute-const: mul(add(p0, 2), 3) -> add(mul(p0, 3), 6)"
  assert_path(CHAPTER, r.path, r.graph)


def test_a_target_unreachable_in_a_finite_space_is_not_found_and_complete():
  r = search(CHAPTER, "mul(?x, ?x)", symbolic)
  assert not r.found and r.complete and r.bound is None
  assert r.searched == len(bfs_distances(symbolic, CHAPTER)) == 31
  assert r.path == [] and r.bindings == {} and r.graph is None and r.length is None


@pytest.mark.parametrize("bounds, bound", [({"max_states": 5}, "max_states"), ({"max_depth": 1}, "max_depth")])
def test_a_bound_stops_a_search_that_found_nothing(bounds, bound):
  r = search(CHAPTER, "mul(?x, ?x)", symbolic, **bounds)
  assert not r.found and not r.complete and r.bound == bound
  assert r.searched == (5 if bound == "max_states" else 1 + 5)   # the program and its 5 neighbours
  r = search(CHAPTER, "add(mul(p0, 3), ?c)", symbolic, max_depth=2)      # 3 steps away
  assert not r.found and r.bound == "max_depth"
  assert search(CHAPTER, "add(mul(p0, 3), ?c)", symbolic, max_depth=3).found


def test_a_timeout_stops_an_infinite_search():
  comm = PatternMatcher([(UPat(Ops.ADD, src=(x, UPat.var("y"))), lambda x, y: (y + x) + 0)])   # grows forever
  t0 = time.perf_counter()
  r = search(p0 + p1, "mul(_, _)", comm, max_states=None, timeout=0.2)
  assert not r.found and r.bound == "timeout" and time.perf_counter() - t0 < 5 and r.searched > 10


def test_the_program_itself_can_match():
  r = search(CHAPTER, "add(_, add(?a, ?b))", symbolic)
  assert r.found and r.length == 0 and r.path == [] and r.graph is CHAPTER and r.searched == 1
  assert r.bindings == {"a": UOp.const(1), "b": UOp.const(4)}


# ---- holes and wildcards

def test_a_hole_used_twice_binds_one_node():
  prog = (p0 + 0) + p0
  r = search(prog, "add(?x, ?x)", symbolic)
  assert r.found and r.graph is p0 + p0 and r.bindings == {"x": p0} and r.length == 1
  assert search(prog, "add(?x, ?y)", symbolic).bindings == {"x": p0 + 0, "y": p0}   # the program itself
  t = Target.parse("add(?x, ?x)")
  assert t.match(p0 + p1) is None and t.match(p1 + p1) == {"x": p1}
  assert t.match((p0 * 2) + (p0 * 2)) == {"x": p0 * 2}                 # the same node: hash consing


def test_the_wildcard_matches_anything_and_binds_nothing():
  t = Target.parse("add(_, _)")
  assert t.holes == () and t.match(p0 + p1) == {} and t.match(CHAPTER) == {} and t.match(p0 * p1) is None
  r = search(CHAPTER, "add(add(mul(p0, _), _), _)", symbolic)
  assert r.found and r.bindings == {} and r.graph is (p0 * 3 + 6) + (UOp.const(1) + 4) and r.length == 1


def test_a_let_name_in_a_target_is_one_node_as_in_the_term_matcher():
  x, y = p0 + 0, p1 + 0
  for text in ["let a = add(_, 0) in mul(a, a)", "let a = add(?v, 0) in mul(a, a)"]:
    t = Target.parse(text)
    assert t.text == text   # prints back as it was written
    assert (t.match(x * x) is None) == (parse_term(text).match(x * x) is None) is False
    assert (t.match(x * y) is None) == (parse_term(text).match(x * y) is None) is True   # one name: one node
  assert Target.parse("mul(add(_, 0), add(_, 0))").match(x * y) == {}                      # written out: two wildcards
  chain = x
  for _ in range(12): chain = chain + chain
  assert Target.parse(show(chain)).match(chain) == {} and search(x + x, show(x + x), symbolic).length == 0


def test_literals_and_params_in_targets():
  t = Target.parse("add(p0, 1)")
  assert t.match(p0 + 1) == {} and t.match(p1 + 1) is None and t.match(p0 + 2) is None
  assert t.match(UOp.param(0, UOp.const(1.0).dtype) + 1.0) is None          # 1 is an i32 literal
  assert Target.parse("add(p0, 1.0)").match(UOp.param(0, UOp.const(1.0).dtype) + 1.0) == {}
  zero, negzero = Target.parse("0.0"), Target.parse("-0.0")
  assert zero.match(UOp.const(0.0)) == {} and zero.match(UOp.const(-0.0)) is None and negzero.match(UOp.const(-0.0)) == {}


def test_a_concrete_target_is_matched_by_identity():
  r = search(CHAPTER, p0 * 3 + 11, symbolic)
  assert r.found and r.length == 3 and r.bindings == {}
  assert Target.graph(p0 + 1).match(p0 + 1) == {} and Target.graph(p0 + 1).match(p0 + 2) is None


def test_a_bad_target_raises_a_located_error():
  with pytest.raises(UIRError) as e: search(CHAPTER, "add(mul(p0, 3), ?c")
  assert str(e.value) == "<target>:1:19: expected ',' or ')', got end of line"
  with pytest.raises(UIRError, match=r"^<target>:1:1: "): Target.parse("frob(p0)")
  with pytest.raises(TypeError): Target.of(3.5)


# ---- every match, nearest first

def test_search_all_streams_every_match_in_order_of_distance():
  dist = bfs_distances(symbolic, CHAPTER)
  term = parse_term("add(add(?x, ?y), ?z)")
  expected = {h: d for h, d in dist.items() if term.match(h) is not None}
  stream = search_all(CHAPTER, "add(add(?x, ?y), ?z)", symbolic)
  matches = list(stream)
  assert stream.complete and stream.bound is None and stream.searched == len(dist)
  assert {m.graph: m.length for m in matches} == expected and len(matches) == len(expected)   # each once, shortest
  assert [m.length for m in matches] == sorted(m.length for m in matches)
  assert [m.searched for m in matches] == sorted({m.searched for m in matches})
  for m in matches:
    assert m.bindings == {k: v for k, v in term.match(m.graph).items()}
    assert_path(CHAPTER, m.path, m.graph)


def test_search_all_is_lazy_and_reports_its_bound():
  stream = search_all(CHAPTER, "add(_, _)", symbolic, max_states=10)
  first = next(stream)
  assert first.length == 0 and stream.searched == 1 and stream.bound is None and not stream.complete
  rest = list(stream)
  assert len(rest) == 9 and stream.bound == "max_states" and not stream.complete


# ---- the kanren query agrees

def test_the_kanren_query_gives_the_graph_the_search_finds():
  pattern = term_pattern("add(mul(p0, 3), ?c)")
  q = var()
  assert run(1, q, reacho(symbolic, CHAPTER, q), eq(q, pattern)) == (p0 * 3 + 11,)
  assert run(1, q, target_goal(CHAPTER, "add(mul(p0, 3), ?c)", q, symbolic))[0] is search(CHAPTER, "add(mul(p0, 3), ?c)").graph
  assert run(0, var("c"), target_goal(CHAPTER, "add(mul(p0, 3), ?c)", q, symbolic)) == (UOp.const(11),)
  assert target_pattern("add(mul(p0, 3), ?c)") == pattern or str(target_pattern("add(mul(p0, 3), ?c)")) == str(pattern)


@pytest.mark.parametrize("target", ["add(add(?x, ?y), ?z)", "add(?x, ?x)", "mul(?x, 3)", "add(mul(p0, 3), ?c)", "max(_, _)"])
def test_every_kanren_answer_in_the_search_order(target):
  q = var()
  answers = run(0, q, target_goal(CHAPTER, target, q, symbolic))
  assert list(answers) == [m.graph for m in search_all(CHAPTER, target, symbolic)]


def test_matcho_composes_with_other_goals():
  q, c = var(), var("c")
  answers = run(0, (q, c), reacho(symbolic, CHAPTER, q), matcho(q, "add(?x, ?c)"), eq(c, UOp.const(11)))
  assert [show(g) for g, _ in answers] == ["add(mul(p0, 3), 11)"]


# ---- the pre-check never rejects a match

def holey(g: UOp, data: st.DataObject) -> str:
  """``show(g)`` with some of its compound subterms replaced by holes (a name reused) or ``_``."""
  text = show(g)
  inner = [n for n in g.toposort() if n.src and n is not g]
  for n in data.draw(st.lists(st.sampled_from(inner), max_size=3, unique=True)) if inner else []:
    text = text.replace(show(n), data.draw(st.sampled_from(["?a", "?b", "_"])))
  return text


@given(graphs(max_ops=6), st.data())
def test_target_matching_agrees_with_the_term_matcher(g, data):
  text = holey(g, data)
  try: term = parse_term(text)
  except UIRError: assume(False)
  t = Target.parse(text)
  for h in [g, *(s.graph for s in explore(g, symbolic, max_states=30))]:
    want = term.match(h)
    got = t.match(h)
    assert got == want, (text, show(h))
    assert t.could_match(h) or want is None


# ---- bidirectional search

def test_bidirectional_search_proves_the_two_sums_equal():
  a, b = (p0 + 0) + p1, p0 + (p1 * 1)
  r = meet(a, b, symbolic)
  assert r.found and r.complete and r.meeting is p0 + p1
  assert len(r.from_a) == 1 and len(r.from_b) == 1 and r.length == 2 and r.path == r.from_a
  assert [e.rule for e in r.from_a + r.from_b] == ["add-0", "mul-1"]
  assert_path(a, r.from_a, r.meeting)
  assert_path(b, r.from_b, r.meeting)
  assert r.searched == r.searched_a + r.searched_b <= 6


def test_disjoint_finite_spaces_are_reported_complete():
  a, b = p0 + 1, p0 + 2
  r = meet(a, b, symbolic)
  assert not r.found and r.complete and r.bound is None and r.meeting is None and r.from_a == r.from_b == []
  r = meet(CHAPTER, (p0 + 0) + p1, symbolic)
  assert not r.found and r.complete and (r.searched_a, r.searched_b) == (31, 3)
  assert not set(bfs_distances(symbolic, CHAPTER)) & set(bfs_distances(symbolic, (p0 + 0) + p1))


def test_meet_reports_the_bound_it_hit():
  r = meet(CHAPTER, p0 * 3 + 12, symbolic, max_states=10)
  assert not r.found and r.bound == "max_states" and not r.complete and r.searched <= 10
  r = meet(CHAPTER, p0 * 3 + 12, symbolic, max_depth=1)
  assert not r.found and r.bound == "max_depth"


def test_meet_of_a_program_with_itself_or_its_normal_form():
  r = meet(CHAPTER, CHAPTER, symbolic)
  assert r.found and r.meeting is CHAPTER and r.length == 0
  canon = graph_rewrite(CHAPTER, symbolic)
  r = meet(CHAPTER, canon, symbolic)
  assert r.found and r.meeting is canon and r.from_b == [] and len(r.from_a) == bfs_distances(symbolic, CHAPTER)[canon]


def test_meet_keeps_going_until_its_meeting_is_a_shortest_one():
  # found by hypothesis: a meeting 2 + 2 steps away turned up before the second graph itself, 3 + 0 steps away
  # (rewriting is directed: the other root is reached from the first a layer later)
  f0 = UOp.const(0.0, dtypes.f32)
  prog = UOp.const(1).cast(dtypes.bool).where(f0, UOp(Ops.RECIP, (f0,)) + (f0 + f0))
  target = UOp.const(1).cast(dtypes.bool).where(f0, f0 + UOp.const(float("inf"), dtypes.f32))
  assert explore(prog, symbolic).state_of(target).depth == 3
  m = meet(prog, target, symbolic, max_states=400)
  assert m.found and m.length == 3 and m.meeting is target


def test_meet_grows_the_smaller_frontier():
  # b is normal: its side is done after one graph, and every later layer comes from a's side
  r = meet((p0 + 0) * 1 + (p1 * 1 + 0), p0 + p1, symbolic)
  assert r.found and r.searched_b == 1 and r.from_b == []


# ---- replay

def test_replay_applies_steps_by_rule_index_and_checks_them():
  r = search(CHAPTER, "add(mul(p0, 3), ?c)", symbolic)
  steps = [{"rule_index": e.rule_index, "node": show(e.node), "after": show(e.target.graph)} for e in r.path]
  assert replay(CHAPTER, steps, symbolic) is r.graph
  assert replay(CHAPTER, [(e.rule_index, e.node) for e in r.path], symbolic) is r.graph
  with pytest.raises(ReplayError, match="step 2: .* is not a node"): replay(CHAPTER, [steps[0], steps[2]], symbolic)
  with pytest.raises(ReplayError, match="step 1: rule .* does not rewrite"):
    replay(CHAPTER, [{"rule_index": 2, "node": "add(1, 4)"}], symbolic)
  with pytest.raises(ReplayError, match="no rule 999"): replay(CHAPTER, [(999, CHAPTER)], symbolic)


@given(programs(depth=3, params=2), st.integers(0, 10_000), st.data())
def test_printed_paths_replay_on_random_programs(tree, pick, data):
  prog = build(tree)
  ex = explore(prog, symbolic, max_states=200).run()
  state = ex.states[pick % len(ex.states)]
  assume(state.error is None)
  # the exact graph: found at its BFS depth, and the path replays to it
  r = search(prog, state.graph, symbolic, max_states=200)
  assert r.found and r.graph is state.graph and r.length == state.depth
  assert_path(prog, r.path, state.graph)
  # a pattern of it: found no further away, and the path replays to a graph that matches
  text = holey(state.graph, data)
  r = search(prog, text, symbolic, max_states=200)
  if parse_term(text).match(state.graph) is not None: assert r.found and r.length <= state.depth
  if r.found:
    assert_path(prog, r.path, r.graph)
    assert parse_term(text).match(r.graph) == r.bindings
  # the program and the state meet (at the state at the latest), and both paths replay
  m = meet(prog, state.graph, symbolic, max_states=400)
  assert m.found and m.length <= state.depth
  assert_path(prog, m.from_a, m.meeting)
  assert_path(state.graph, m.from_b, m.meeting)


@given(graphs(max_ops=6), st.integers(0, 10_000))
def test_paths_replay_on_random_graphs_with_calls_and_shapes(g, pick):
  ex = explore(g, symbolic, max_states=100).run()
  state = ex.states[pick % len(ex.states)]
  assume(state.error is None)
  r = search(g, state.graph, symbolic, max_states=100)
  assert r.found and r.length == state.depth
  assert_path(g, r.path, state.graph)


# ---- deep graphs

def chain(n: int) -> UOp:
  u = p0
  for _ in range(n): u = u + 0
  return u


def test_a_20000_node_chain_searches_meets_and_replays_without_recursion():
  deep, shorter = chain(20_000), chain(19_999)
  r = search(deep, "add(?x, 0)", symbolic, max_states=10)
  assert r.found and r.length == 0 and r.bindings == {"x": shorter}
  r = search(deep, shorter, symbolic, max_states=10)
  assert r.found and r.length == 1 and r.searched == 2
  assert replay(deep, r.path, symbolic) is shorter
  assert replay(deep, [{"rule_index": r.path[0].rule_index, "node": r.path[0].node}], symbolic) is shorter
  m = meet(deep, shorter, symbolic, max_states=10)
  assert m.found and m.meeting is shorter and m.length == 1
  assert Target.parse("add(" * 3000 + "p0" + ", 0)" * 3000).match(chain(3000)) == {}


@pytest.mark.slow   # 20,001 states of up to 20,000 redexes each: a minute on an idle core
def test_a_20000_node_chain_s_whole_space_is_searched_without_recursion():
  deep = chain(20_000)
  # every successor of a chain state is the same graph, made once (the stepper groups its steps by graph): the whole
  # space, 20,001 states of 1 to 20,000 redexes each, is searched (the timeout only keeps a regression from hanging)
  r = search(deep, "mul(_, _)", symbolic, timeout=120)
  assert not r.found and r.bound is None and r.searched == 20_001
