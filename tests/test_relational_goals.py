"""stepo / reacho / normalo / rule relations as kanren goals, forwards and backwards."""
import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from kanren import conde, eq, lall, run, var
from unification import unify

from tests.strategies import graphs
from tests.test_relational_explore import COMMUTE, UNITS, small_programs
from tests.test_relational_step import brute_force
from uopc import Ops, PatternMatcher, UOp, UPat, dtypes, symbolic
from uopc.relational import (NotGroundError, etuplize, explore, normalo, pat, predecessors, reacho, rule_patterns,
                             rule_relation, stepo, successors, term_pattern)
from uopc.relational.logic.answers import GraphAnswers
from uopc.relational.logic.bridge import head_of, show_pattern
from uopc.rulesets import resolve_rules
from uopc.termparse import parse_term

p0, p1 = UOp.param(0), UOp.param(1)


@given(graphs(max_ops=6), st.sampled_from(["symbolic", "fold", "symbolic+evaluate"]))
@settings(max_examples=40)
def test_stepo_is_the_brute_force_successor_set(g, name):
  pm = resolve_rules(name)
  q = var()
  answers = run(0, q, stepo(pm, g, q))
  assert len(answers) == len(set(answers))                              # each graph once
  assert set(answers) == {h for _, _, _, h in brute_force(pm, g)[0]}


def test_stepo_with_a_partially_bound_pattern():
  g = (p0 + 0) * 1 + (p1 * 1 + 0)
  x, y = var(), var()
  out = run(0, (x, y), stepo(symbolic, g, pat.add(x, pat.add(y, 0))))
  zero = UOp.const(0)
  expected = {(h.src[0], h.src[1].src[0]) for _, _, _, h in brute_force(symbolic, g)[0]
              if h.op is Ops.ADD and h.src[1].op is Ops.ADD and h.src[1].src[1] is zero}
  assert set(out) == expected and (p0 * 1, p1 * 1) in expected and len(out) == len(expected)
  assert run(0, x, stepo(symbolic, g, pat.mul(x, 1))) == ()


def test_reacho_composes_with_eq_and_patterns():
  g = (p0 + 2) * 3 + 5
  q, x = var(), var()
  found = run(0, q, reacho(symbolic, g, q), eq(q, pat.add(x, 11)))
  brute = [s.graph for s in explore(g, symbolic).states if s.graph.op is Ops.ADD and s.graph.src[1] is UOp.const(11)]
  assert found == tuple(brute) == (p0 * 3 + 11,)
  assert run(0, x, reacho(symbolic, g, pat.add(x, 11))) == (p0 * 3,)
  target = "add(mul(?y, 3), ?c)"
  found = run(0, q, reacho(symbolic, g, q), eq(q, term_pattern(target)))
  assert found == tuple(s.graph for s in explore(g, symbolic).states if parse_term(target).match(s.graph) is not None)
  assert set(found) == {p0 * 3 + 11, (p0 + 2) * 3 + 5}


def test_reacho_lists_every_reachable_graph_once_and_terminates_on_cycles():
  q = var()
  prog = (p0 + p1) + UOp.param(2)
  assert set(run(0, q, reacho(COMMUTE, prog, q))) == {s.graph for s in explore(prog, COMMUTE).states}
  assert len(run(0, q, reacho(COMMUTE, prog, q))) == 4
  assert run(0, q, reacho(COMMUTE, p0 + p1, q)) == (p0 + p1, p1 + p0)


def test_normalo_and_conde_lall_composition():
  prog = (p0 + 0) * 1 + (p1 * 1 + 0)
  q, x, y = var(), var(), var()
  assert run(0, q, normalo(symbolic, prog, q)) == (p0 + p1, p1 + p0)
  # "normal forms whose first operand is p1", through a user goal in a conjunction
  assert run(0, q, lall(normalo(symbolic, prog, q), eq(q, pat.add(p1, x)))) == (p1 + p0,)
  # either one step or a normal form
  both = run(0, q, conde([stepo(UNITS, (p0 + 0) * 1, q)], [normalo(UNITS, (p0 + 0) * 1, q)]))
  assert set(both) == {p0 + 0, p0 * 1, p0}
  # a user's own goal composed with reacho: pairs (x, y) with reachable add(x, y)
  assert set(run(0, (x, y), reacho(symbolic, prog, pat.add(x, y)))) >= {(p0, p1), (p1, p0)}


def test_a_ground_etuple_is_as_good_as_its_node():
  q = var()
  g = (p0 + 0) * 1
  assert set(run(0, q, stepo(UNITS, etuplize(g), q))) == {p0 + 0, p0 * 1}
  x = var()
  assert set(run(0, q, eq(x, p0 + 0), stepo(UNITS, pat.mul(x, 1), q))) == {p0 + 0, p0 * 1}


def test_a_pattern_with_only_its_dtype_open_is_the_node_it_builds():
  q = var()
  assert run(0, q, stepo(UNITS, pat.add(p0, 0), q)) == (p0,)        # the dtype is inferred, as evaluation infers it
  assert run(0, q, reacho(UNITS, pat.mul(pat.add(p0, 0), 1), q)) == run(0, q, reacho(UNITS, (p0 + 0) * 1, q))


def test_backward_stepo_finds_true_predecessors():
  q = var()
  preds = set(run(0, q, stepo(UNITS, q, p0 * 1)))
  one = UOp.const(1)
  assert {(p0 + 0) * 1, (p0 * 1) * 1, p0 * 1 + 0, 1 * (p0 * 1), p0 * (one * 1), p0 * (one + 0)} <= preds
  for g in preds: assert p0 * 1 in {h for _, h in successors(UNITS, g)}
  # with a partially known predecessor
  x = var()
  assert set(run(0, x, stepo(UNITS, pat.mul(x, 1), p0 * 1))) == {p0 + 0, 0 + p0, p0 * 1, 1 * p0}


@given(small_programs(max_ops=3))
@settings(max_examples=30)
def test_backward_search_recovers_every_units_predecessor(g):
  # UNITS rules return one of their holes, so every predecessor's holes are nodes of the target
  for _, _, _, h in brute_force(UNITS, g)[0]:
    assert g in {p for p, _ in predecessors(UNITS, h)}


def test_reacho_and_normalo_backwards():
  q = var()
  first = run(6, q, reacho(UNITS, q, p0))
  assert first[0] is p0 and len(set(first)) == 6
  for g in first: assert any(s.graph is p0 for s in explore(g, UNITS).states)
  assert run(3, q, normalo(UNITS, q, p0 + 0)) == ()                    # p0 + 0 is not normal
  assert set(run(4, q, normalo(UNITS, q, p0))) <= {p0, p0 + 0, 0 + p0, p0 * 1, 1 * p0}


def test_rule_relations_both_ways():
  plus0 = rule_relation(UNITS, 0)
  q = var()
  assert run(0, q, plus0(p0 + 0, q)) == (p0,)
  assert run(0, q, plus0(p0 * 1, q)) == ()
  assert run(0, q, plus0(q, p0 * 3)) == ((p0 * 3) + 0,)
  with pytest.raises(IndexError): rule_relation(UNITS, 9)
  x, y = var(), var()
  with pytest.raises(NotGroundError): run(1, x, plus0(x, y))


def test_neither_side_ground_is_a_clear_error():
  x, y = var(), var()
  for goal in (stepo(UNITS, x, y), reacho(UNITS, x, y), normalo(UNITS, x, y)):
    with pytest.raises(NotGroundError, match="ground"): run(1, x, goal)
  # grounding g first in a conjunction is fine
  assert run(0, y, eq(x, p0 + 0), stepo(UNITS, x, y)) == (p0,)


def test_a_ground_non_graph_makes_every_relation_fail():
  q = var()
  plus0 = rule_relation(UNITS, 0)
  for thing in (5, head_of(p0), (p0, 1), "p0", pat.add(p0, 1, dtype=dtypes.f32)):   # the last is ill-typed
    for goal in (stepo(UNITS, thing, q), reacho(UNITS, thing, q), normalo(UNITS, thing, q), plus0(thing, q),
                 stepo(UNITS, q, thing), reacho(UNITS, q, thing), normalo(UNITS, q, thing), plus0(q, thing),
                 reacho(UNITS, p0 + 0, thing)):
      assert run(0, q, goal) == ()
  # in a disjunction, the failing branch is just empty
  assert run(0, q, conde([stepo(UNITS, 5, q)], [stepo(UNITS, p0 + 0, q)])) == (p0,)


def test_rule_patterns_as_etuples():
  texts = [(rp.rule_index, show_pattern(rp.term)) for rp in rule_patterns(UNITS)]
  assert texts == [(0, "add(~x, 0)"), (1, "add(0, ~x)"), (2, "mul(~x, 1)"), (3, "mul(1, ~x)")]
  sym = rule_patterns(symbolic)
  assert {rp.rule_index for rp in sym} == set(range(len(symbolic.rules)))
  comm = [show_pattern(rp.term) for rp in sym if rp.rule_index == 1]     # an op set and a list: several forms
  assert len(comm) == 4 and all(t.endswith("(~c, ~y)") for t in comm)
  # every pattern form unifies with a node the UPat matches
  from unification import unify
  [(_, t)] = [(rp.rule_index, rp.term) for rp in rule_patterns(UNITS)][:1]
  assert unify(t, p0 + 0, {}) is not False and unify(t, p0 + 1, {}) is False


def test_goal_streams_are_lazy():
  grow = PatternMatcher([(UPat(Ops.ADD, name="a"), lambda a: a + 0)])
  q = var()
  assert len(run(5, q, reacho(grow, p0 + 1, q))) == 5                   # infinite space, five answers
  stream = run(None, q, reacho(grow, p0 + 1, q))
  assert [next(stream) for _ in range(3)] == [p0 + 1, p0 + 1 + 0, p0 + 1 + 0 + 0]
  assert list(itertools.islice(run(None, q, normalo(symbolic, (p0 + 0) * 1, q)), 1)) == [p0]


def test_reacho_membership_stops_at_the_first_hit():
  grow = PatternMatcher([(UPat(Ops.ADD, name="a"), lambda a: a + 0)])   # infinite space
  q = var()
  assert run(0, q, reacho(grow, p0 + 1, p0 + 1 + 0 + 0), eq(q, 1)) == (1,)
  assert run(0, q, reacho(UNITS, (p0 + 0) * 1, p1), eq(q, 1)) == ()


def test_rule_patterns_and_overlaps_share_one_encoding():
  """Patterns' own converter once ignored allow_any_len (and kept leaves as UPats); now both use overlaps.encode."""
  from uopc.relational.analyses.overlaps import Domain, forms_of
  from uopc.relational.logic.patterns import upat_etuples
  x = UPat.var("x", dtype=(dtypes.i32, dtypes.bool))
  any_len = UPat(Ops.STACK, src=(x,), allow_any_len=True)
  forms = upat_etuples(any_len)
  assert [len(t._tuple) - 1 for t, _ in forms] == [1, 2, 3] == [len(f.term._tuple) - 1 for f in forms_of(any_len)]
  (t, leaves), = upat_etuples(x + 0)[:1]
  assert show_pattern(t) == "add(~x, 0)" and leaves == {var("x"): Domain(None, frozenset({dtypes.i32, dtypes.bool}), ())}
  (t, leaves), = upat_etuples(x + 0, literal_holes=True)[:1]   # the constant as a hole with UPat's == on its arg
  assert [d.args for d in leaves.values()] == [(), (0,)]


def test_goals_under_tree_semantics():
  q = var()
  shared = p0 + 0
  g = shared * shared
  assert sorted(show_pattern(h) for h in run(0, q, stepo(UNITS, g, q, semantics="tree"))) == \
    ["mul(add(p0, 0), p0)", "mul(p0, add(p0, 0))"]
  assert run(0, q, stepo(UNITS, g, q)) == (p0 * p0,)
  assert len(run(0, q, reacho(UNITS, g, q, semantics="tree"))) == 4 and len(run(0, q, reacho(UNITS, g, q))) == 2
  assert run(0, q, normalo(UNITS, g, q, semantics="tree")) == (p0 * p0,)
  assert p0 * shared in run(0, q, stepo(UNITS, q, p0 * p0, semantics="tree"))   # backwards: one occurrence put back


def _plain_eq(u, v):
  """kanren's ``eq`` written again: a goal ``fair_bind`` does not recognise, so each state is unified on its own."""
  def goal(S):
    S2 = unify(u, v, S)
    return iter(() if S2 is False else (S2,))
  return goal


_x, _y = var(), var()
_PATTERNS = [pat.add(_x, _y), pat.add(_x, _x), pat.mul(_x, 1), pat.add(pat.mul(_x, _y), _y), pat.add(_x, 0), term_pattern("add(mul(?y, 3), ?c)")]


@given(graphs(max_ops=5), st.sampled_from(range(len(_PATTERNS))), st.booleans())
@settings(max_examples=40, deadline=None)
def test_reacho_eq_filters_the_graphs_as_unifying_each_one(g, which, flipped):
  pattern, q = _PATTERNS[which], var()
  equal = (lambda a, b: (b, a)) if flipped else (lambda a, b: (a, b))
  query = (q, _x, _y)
  fused = run(0, query, reacho(symbolic, g, q), eq(*equal(q, pattern)))
  plain = run(0, query, reacho(symbolic, g, q), _plain_eq(*equal(q, pattern)))
  assert fused == plain
  assert {a[0] for a in fused} == {s.graph for s in explore(g, symbolic).states if unify(pattern, s.graph, {}) is not False}


def test_reacho_answers_filter_by_the_compiled_matcher_and_step_one_by_one():
  g, q = (p0 + 0) * 1, var()
  answers = reacho(symbolic, g, q)({})
  assert isinstance(answers, GraphAnswers) and answers.filtered(q, pat.mul(_x, 1)) is not None
  assert reacho(symbolic, g, q)({}).filtered(q, pat.add(q, 1)) is None   # q in its own pattern: unified one by one
  assert reacho(symbolic, g, q)({_x: p0}).filtered(q, pat.mul(_x, 1)) is None   # the pattern's variable bound already
  stepped = reacho(symbolic, g, q)({})
  assert next(stepped)[q] is g and next(stepped)[q] is not g   # kanren's ifa/conda take answers with next()
  assert stepped.filtered(q, pat.mul(_x, 1)) is None   # an answer taken: the rest unify one by one
