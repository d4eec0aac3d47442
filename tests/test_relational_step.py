"""One rewrite step: the memoized Stepper against an independent brute force."""
import itertools
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.strategies import graphs
from uopc import Ops, PatternMatcher, UOp, UPat, fold, graph_rewrite, symbolic
from uopc.relational import Stepper, Stuck, successors
from uopc.rulesets import resolve_rules
from uopc.rewrite import rebuild
from uopc.term import show
from uopc.uop import UOpError

p0, p1 = UOp.param(0), UOp.param(1)
RULESETS = {"symbolic": symbolic, "fold": fold, "symbolic+evaluate": resolve_rules("symbolic+evaluate")}


def brute_force(pm: PatternMatcher, g: UOp) -> tuple[set, set]:
  """Every step from g, written independently: each node, each rule, each binding; rebuild with substitute.

  Returns ({(node, rule index, result, new root)}, {(node, rule index)} of failing steps).
  """
  steps, failures = set(), set()
  enter = outside_kept_bodies(pm)
  for n in g.toposort(enter):
    for i, (p, fn) in enumerate(pm.rules):
      for b in p.match(n, {}):
        try: m = fn(**b)
        except Exception:
          failures.add((n, i))
          continue
        if m is None or m is n: continue
        if not isinstance(m, UOp): failures.add((n, i)); continue
        try: h = replace_all(g, n, m, enter)
        except UOpError: failures.add((n, i)); continue
        if h is not g: steps.add((n, i, m, h))
  return steps, failures


def outside_kept_bodies(pm: PatternMatcher):
  """A ``toposort`` enter function that skips the bodies ``graph_rewrite`` keeps as written: a CALL whose body's
  normal form would not type-check in it (such a body is not rewritten at all)."""
  def kept(u: UOp) -> bool:
    if u.op is not Ops.CALL: return False
    try: nf = graph_rewrite(u.src[0], pm)
    except Exception: return False   # the engine fails on the body: no opinion
    try: UOp(Ops.CALL, (nf, *u.src[1:]), u.arg)
    except UOpError: return True
    return False
  return lambda u: u.src[1:] if kept(u) else u.src


def replace_all(g: UOp, n: UOp, m: UOp, enter) -> UOp:
  """``g`` with every use of ``n`` seeing ``m``, each user rebuilt as the canonical engine rebuilds (a CALL whose
  new body does not type-check keeps its body); kept bodies are left alone."""
  memo: dict[UOp, UOp] = {n: m}
  for u in g.toposort(enter):
    if u in memo: continue
    src = tuple(memo.get(s, s) for s in u.src)
    memo[u] = u if all(a is b for a, b in zip(src, u.src)) else rebuild(u, src)
  return memo[g]


def tree_brute_force(pm: PatternMatcher, g: UOp) -> set:
  """Every step under tree semantics: each occurrence (path) of each node, each rule, each binding."""
  steps = set()
  enter = outside_kept_bodies(pm)
  def positions(u: UOp, path: tuple):
    yield u, path
    skip = len(u.src) - len(enter(u))
    for i, s in enumerate(u.src):
      if i >= skip: yield from positions(s, path + (i,))
  for n, path in positions(g, ()):
    for i, (p, fn) in enumerate(pm.rules):
      for b in p.match(n, {}):
        try: m = fn(**b)
        except Exception: continue
        if m is None or m is n or not isinstance(m, UOp): continue
        try: h = replace_at(g, path, m)
        except UOpError: continue
        if h is not g: steps.add((path, i, m, h))
  return steps


def replace_at(g: UOp, path: tuple, m: UOp) -> UOp:
  if not path: return m
  i = path[0]
  return rebuild(g, (*g.src[:i], replace_at(g.src[i], path[1:], m), *g.src[i + 1:]))


def stepper_view(stepper: Stepper, g: UOp) -> tuple[set, set]:
  steps, failures = set(), set()
  for r, h in stepper.successors(g):
    if isinstance(h, Stuck): failures.add((h.redex.node, h.redex.rule_index))
    else: steps.add((r.node, r.rule_index, r.result, h))
  return steps, failures


@given(graphs(max_ops=8), st.sampled_from(sorted(RULESETS)))
def test_successors_equal_the_brute_force(g, name):
  pm = RULESETS[name]
  assert stepper_view(Stepper(pm), g) == brute_force(pm, g)


@given(graphs(max_ops=8), st.sampled_from(sorted(RULESETS)))
@settings(max_examples=30)
def test_big_nodes_give_the_same_steps(g, name):
  # map_limit=1 makes nearly every node "big": successors are then rebuilt lazily along spines
  pm = RULESETS[name]
  assert stepper_view(Stepper(pm, map_limit=1), g) == stepper_view(Stepper(pm), g)


@given(graphs(max_ops=6), st.sampled_from(sorted(RULESETS)), st.sampled_from([256, 1]))
@settings(max_examples=40)
def test_tree_successors_equal_the_tree_brute_force(g, name, map_limit):
  pm = RULESETS[name]
  got = {(r.position, r.rule_index, r.result, h) for r, h in Stepper(pm, map_limit=map_limit, semantics="tree").successors(g)
         if type(h) is UOp}
  assert got == tree_brute_force(pm, g)


@given(graphs(max_ops=6), st.sampled_from(sorted(RULESETS)))
@settings(max_examples=40)
def test_without_sharing_tree_and_graph_steps_reach_the_same_graphs(g, name):
  uses: dict = {}
  for u in g.toposort():
    for s in u.src: uses[s] = uses.get(s, 0) + 1
  if any(k > 1 for k in uses.values()): return   # a shared node: the semantics differ there (tested below)
  pm = RULESETS[name]
  graph = {h for _, h in Stepper(pm).successors(g)}
  assert {h for _, h in Stepper(pm, semantics="tree").successors(g)} == graph


@given(graphs(max_ops=6), st.sampled_from(sorted(RULESETS)), st.sampled_from(["graph", "tree"]))
@settings(max_examples=40)
def test_a_graph_is_normal_when_no_step_leaves_it(g, name, semantics):
  pm = RULESETS[name]
  for map_limit in (1, 256):   # big nodes (grouped or lazy) and materialized maps
    stepper = Stepper(pm, map_limit=map_limit, semantics=semantics)
    assert stepper.is_normal(g) == (not list(stepper.successors(g)))


def test_tree_semantics_rewrites_one_use_of_a_shared_node():
  x = UPat.var("x")
  pm = PatternMatcher([(x + 0, lambda x: x)])
  shared = p0 + 0
  steps = Stepper(pm, semantics="tree").successors(shared * shared + shared)
  assert sorted((r.position, show(h)) for r, h in steps) == [
    ((0, 0), "let a = add(p0, 0) in add(mul(p0, a), a)"), ((0, 1), "let a = add(p0, 0) in add(mul(a, p0), a)"),
    ((1,), "let a = add(p0, 0) in add(mul(a, a), p0)")]   # one use rewritten: the other two still share the node
  assert all(r.node is shared and r.rule_index == 0 for r, _ in steps)
  with pytest.raises(ValueError, match="semantics"): Stepper(pm, semantics="forest")


def test_distinct_bindings_are_distinct_edges():
  # a list pattern binds both ways round: each binding's result is its own edge
  swap = PatternMatcher([(UPat(Ops.ADD, src=[UPat.var("a"), UPat.var("b")]), lambda a, b: b * 2)])
  steps, _ = stepper_view(Stepper(swap), p0 + p1)
  assert {m for _, _, m, _ in steps} == {p1 * 2, p0 * 2}
  # the same result from two bindings is one edge
  same = PatternMatcher([(UPat(Ops.ADD, src=[UPat.var("a"), UPat.var("b")]), lambda a, b: a + b + 0)])
  assert len(successors(same, p0 + p0)) == 1


def test_every_use_of_the_node_sees_the_result():
  x = UPat.var("x")
  pm = PatternMatcher([(x + 0, lambda x: x)])
  shared = p0 + 0
  g = shared * shared + shared
  [(r, h)] = successors(pm, g)
  assert r.node is shared and h is p0 * p0 + p0


def test_a_raising_rule_is_a_stuck_step_with_the_error():
  def boom(x): raise ValueError("no way")
  pm = PatternMatcher([(UPat(Ops.MUL, name="x"), boom), (UPat.var("x") + 0, lambda x: x)])
  out = successors(pm, (p0 + 0) * 2)
  stuck = [h for _, h in out if isinstance(h, Stuck)]
  assert [h.error for h in stuck] == ["ValueError: no way"]
  assert [h for _, h in out if isinstance(h, UOp)] == [p0 * 2]


def test_rules_wanting_a_ctx_get_it_only_when_given():
  pm = PatternMatcher([(UPat(Ops.PARAM, name="p"), lambda p, ctx: ctx[p.arg.slot])])
  [(_, h)] = successors(pm, p0 + 1)
  assert isinstance(h, Stuck) and "ctx" in h.error
  [(_, h)] = Stepper(pm, ctx={0: UOp.const(5)}).successors(p0 + 1)
  assert h is UOp.const(5) + 1


def test_deep_chain_of_redexes_is_linear_and_lazy():
  g = p0
  for _ in range(20_000): g = g + 0
  x = UPat.var("x")
  stepper = Stepper(PatternMatcher([(x + 0, lambda x: x)]))
  it = iter(stepper.successors(g))
  r, h = next(it)      # the root's own redex, without rebuilding 20,000 spines
  assert r.node is g and h is g.src[0]
  r, h = next(it)
  assert r.node is g.src[0] and h.src[0] is g.src[0].src[0] and h.op is Ops.ADD


def test_tree_semantics_groups_every_position_of_a_shared_failing_step():
  # p0 * 1 fails, and is used twice under a chain of + 0: the grouped steps (map_limit=2) list the failure once per
  # position, sharing one Stuck, as the materialized maps do
  x = UPat.var("x")
  def fails(x): raise ValueError("no")
  pm = PatternMatcher([(x + 0, lambda x: x), (x * 1, fails)])
  bad = p0 * 1
  g = bad + bad
  for _ in range(3): g = g + 0
  def steps(stepper: Stepper) -> Counter:
    return Counter((r.position, r.rule_index, h if type(h) is UOp else h.error) for r, h in stepper.successors(g))
  grouped = Stepper(pm, map_limit=2, semantics="tree")
  assert grouped.grouped_steps(g) is not None   # grouped (two graphs), not enumerated lazily
  assert steps(grouped) == steps(Stepper(pm, map_limit=10**9, semantics="tree"))
  assert steps(grouped)[((0, 0, 0, 0), 1, "ValueError: no")] == 1 and len(grouped.grouped_steps(g)) == 5
  made = list(grouped.grouped_steps(g).groups)   # every + 0 makes one shorter chain; both positions, one Stuck
  assert made[0] is g.src[0] and type(made[1]) is Stuck and len(made) == 2


def test_a_chain_of_zeros_under_tree_semantics_makes_one_graph_per_state():
  # each big node's steps are grouped by the graph they make (one here): linear, not one spine per position
  g = p0
  for _ in range(300): g = g + 0
  x = UPat.var("x")
  stepper = Stepper(PatternMatcher([(x + 0, lambda x: x)]), semantics="tree")   # map_limit 256
  grouped = stepper.grouped_steps(g)
  assert grouped is not None and list(grouped.groups) == [g.src[0]] and len(grouped) == 300
  (first, h), = grouped.firsts()
  assert first.node is g and h is g.src[0]
  positions = [r.position for r, _ in itertools.islice(grouped, 3)]
  assert positions == [(), (0,), (0, 0)]


def test_the_shared_stepper_lives_as_long_as_its_users():
  import gc
  from uopc.relational import stepper_for
  from uopc.relational.space import step
  pm = PatternMatcher([(UPat.var("x") + 0, lambda x: x)])
  s = stepper_for(pm)
  assert stepper_for(pm) is s   # shared while held
  s.successors(UOp.param(0) + 0)
  del s
  gc.collect()
  assert id(pm) not in step._steppers   # its memo tables went with it
  assert stepper_for(pm).pm is pm
