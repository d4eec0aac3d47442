"""The native core's entry points for a cluster's worker: ``Space.successors`` against ``Stepper.successors`` (the Python Stepper's steps
of one graph, in order) and ``Space.fingerprint`` against ``Fingerprints().of``."""
import hashlib
from collections import Counter

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from tests.strategies import graphs
from tests.test_relational_native_drive import COMM, RULESETS, ZERO, add0_chain, chains, sums_of_terms
from uopc import PatternMatcher, UOp, UPat, symbolic
from uopc.dtype import dtypes
from uopc.ops import Ops
from uopc.relational import Exploration
from uopc.relational.space.fingerprint import Fingerprints, node_fields
from uopc.relational.native._space import ST_DONE
from uopc.relational.native.space import NativeSpace, NotNative
from uopc.relational.space.states import Stuck
from uopc.relational.space.step import Stepper

x = UPat.var("x")
BOOM = PatternMatcher([(x + 0, lambda x: x), (x * 1, lambda x: 1 // 0)], name="boom")   # a rule that raises: a stuck step
RULES = {**RULESETS, "zero": ZERO, "comm": COMM, "boom": BOOM}


def has_call(g: UOp) -> bool:
  return any(u.op is Ops.CALL for u in g.toposort())


def key_of(r) -> tuple:
  """A step's key by value (Redexes compare by identity, and each core's Stepper made its own): under tree semantics with
  its position."""
  return (r.node, r.rule_index, r.result, r.error, r.position)


def walk(g: UOp, pm: PatternMatcher, map_limit: int, semantics: str, most: int = 30) -> Counter:
  """Up to ``most`` graphs reachable from ``g``, breadth first by the Python steps, each given to ``successors`` (one space for
  them all, so a later graph comes after an earlier one's None) and held to ``Stepper.successors``: what happened, counted."""
  space = NativeSpace(Stepper(pm, map_limit=map_limit, semantics=semantics))
  python = Stepper(pm, map_limit=map_limit, semantics=semantics)
  seen, todo, counts, stopped = {g}, [g], Counter(), []
  while todo and len(seen) <= most:
    u = todo.pop(0)
    steps = list(python.successors(u))
    got = space.core.successors(space.to_id(u))
    lazy = python.step_map(u) is None and python.grouped_steps(u) is None   # successors enumerated them lazily (iter_big)
    stuck = any(h.__class__ is Stuck for _, h in steps)
    fresh = NativeSpace(Stepper(pm, map_limit=map_limit, semantics=semantics))
    assert (got is None) == (not fresh.core.prepare(fresh.to_id(u))), u   # None exactly where a search's core would stop
    assert (got is None) == (stuck or lazy), u   # which is where step.py makes a stuck step or enumerates the steps lazily
    if got is None:
      counts["stuck" if stuck else "lazy"] += 1
      stopped.append(u)
    else:
      keys, targets = got
      assert len(keys) == len(targets) == len(steps)
      assert [key_of(space.keys[k]) for k in keys] == [key_of(r) for r, _ in steps]
      assert all(space.uop(t) is h for t, (_, h) in zip(targets, steps))
      counts["grouped" if python.step_map(u) is None else "map"] += 1
    for _, h in steps:
      if h.__class__ is not Stuck and h not in seen:
        seen.add(h)
        todo.append(h)
  for u in stopped: assert space.core.successors(space.to_id(u)) is None   # the same node again: None again
  return counts


# chains of + 0 group past a small limit; c + c has a redex below two sources (lazy); BOOM gives stuck steps
PROGRAMS = graphs(max_ops=8) | chains() | st.builds(add0_chain, st.integers(3, 12)) | chains().map(lambda c: c + c) | sums_of_terms()
TALLY: Counter = Counter()


@settings(max_examples=150)
@given(PROGRAMS, st.sampled_from(sorted(RULES)) | st.just("boom"), st.sampled_from([256, 8, 4, 2, 1]), st.sampled_from(["graph", "tree"]))
def random_walks(g, name, map_limit, semantics):
  assume(not has_call(g))   # the core refuses a CALL where it comes in (NativeSpace.to_id): no graph of it gets there
  TALLY.update(walk(g, RULES[name], map_limit, semantics))


def test_successors_are_steps_of_on_random_programs():
  TALLY.clear()
  random_walks()
  # the examples met every case: a map, grouped steps, and both kinds of None
  assert TALLY["map"] and TALLY["grouped"] and TALLY["stuck"] and TALLY["lazy"], TALLY


def test_successors_stop_where_a_rule_raises_and_go_on_elsewhere():
  p0, p1 = UOp.param(0), UOp.param(1)
  space = NativeSpace(Stepper(BOOM))
  bad, good = space.to_id((p0 + 0) + (p1 * 1 + 0)), space.to_id((p0 + 0) + (p1 + 0))
  assert space.core.successors(bad) is None and space.core.successors(bad) is None
  keys, targets = space.core.successors(good)
  assert [space.uop(t) for t in targets] == [p0 + (p1 + 0), (p0 + 0) + p1] and [space.keys[k].rule_index for k in keys] == [0, 0]


def test_successors_list_grouped_steps_key_by_key():
  # every + 0 of the chain makes the one shorter chain: one graph, 40 keys, in the order step.py's groups list them (walk)
  for semantics in ("graph", "tree"):
    assert walk(add0_chain(40), ZERO, 16, semantics, most=3) == Counter(grouped=3), semantics
  space = NativeSpace(Stepper(ZERO, map_limit=16))
  keys, targets = space.core.successors(space.to_id(add0_chain(40)))
  assert len(keys) == 40 and set(targets) == {space.to_id(add0_chain(39))}


def test_a_redex_below_both_sources_past_the_limit_is_a_whole_map_where_the_union_fits():
  # left and right share p0 + 0: 2 entries below, past map_limit 1, but one redex; step.py's _from_sources makes the whole
  # map (the core used to stop there, and a search hand over to Python)
  p0, p1, p2 = UOp.param(0), UOp.param(1), UOp.param(2)
  g = ((p0 + 0) + p1) + ((p0 + 0) + p2)
  assert walk(g, ZERO, 1, "graph") == Counter(map=2)
  ex = Exploration(g, ZERO, stepper=Stepper(ZERO, map_limit=1), max_states=None)
  assert ex.run().native and len(ex.states) == 2


def test_successors_before_and_without_a_search_and_not_reducing():
  unit = PatternMatcher([(x + 0, lambda x: x), (x * 1, lambda x: x)])
  space = NativeSpace(Stepper(unit))
  i = space.to_id((UOp.param(0) + 0) * 1)
  assert len(space.core.successors(i)[0]) == 2 and not space.core.counts["states"]
  space.core.start(i)   # a search may start after, on the maps made
  assert space.core.expand(100, 100, 100, 100) == ST_DONE and space.core.counts["states"] == 4
  reducing = NativeSpace(Stepper(symbolic))
  reducing.core.reduce((), (), lambda *a: 0)
  with pytest.raises(RuntimeError):
    reducing.core.successors(reducing.to_id(UOp.param(0) + 0))


# ---- fingerprints


@given(graphs(max_ops=10))
def test_fingerprints_are_the_python_ones_on_random_graphs(g):
  # every dtype and arg kind: floats (-0.0, nan, inf), ints, bools, shape tuples, None, addrspace strings
  assume(not has_call(g))
  space = NativeSpace(Stepper(symbolic))
  nodes = g.toposort()
  ids = [space.to_id(u) for u in nodes]
  fps = Fingerprints()
  assert [space.fingerprint(i) for i in ids] == [fps.of(u) for u in nodes]


@given(graphs(max_ops=10), st.randoms(use_true_random=False))
def test_fingerprints_are_the_same_asked_in_any_order(g, rng):
  assume(not has_call(g))
  nodes = list(g.toposort())
  rng.shuffle(nodes)   # parents before children, children before parents, mixed
  space = NativeSpace(Stepper(symbolic))
  space.to_id(g)
  ids = [space.find(u) for u in nodes]
  assert [space.fingerprint(i) for i in ids] == [Fingerprints().of(u) for u in nodes]
  assert space.core.fingerprints(ids) == [space.fingerprint(i) for i in ids]


def test_fingerprints_of_edge_constants_and_wide_nodes():
  # the digest's block boundaries: fields and sources of 0 to 20 * 16 bytes past a block, each -0.0 apart from 0.0
  consts = [UOp.const(v, d) for v, d in [(0.0, dtypes.f32), (-0.0, dtypes.f32), (float("nan"), dtypes.f32), (True, dtypes.bool),
                                          (1, dtypes.i32), (-2**31, dtypes.i32)]]
  wide = [UOp.stack(*(consts[k % 2] for k in range(n))) for n in range(1, 21)]
  params = [UOp.param(10**k, dtypes.f32, (2, 3), "global") for k in range(40)]   # fields of every length up to past 128 bytes
  assert any(len(node_fields(p)) == 128 for p in params)
  space = NativeSpace(Stepper(symbolic))
  for u in consts + wide + params:
    assert space.fingerprint(space.to_id(u)) == Fingerprints().of(u), u
  assert len({space.fingerprint(space.to_id(c)) for c in consts}) == len(consts)


def test_the_digest_is_hashlibs_at_every_length():
  # fields answered by a callback of our own: the C BLAKE2b against hashlib's, around each block boundary
  data = bytes(range(256)) * 2
  for n in (0, 1, 63, 64, 111, 127, 128, 129, 200, 255, 256, 257, 300, 384, 512):
    space = NativeSpace(Stepper(symbolic))
    i = space.to_id(UOp.param(0))
    space.core.fingerprint_setup(lambda j, n=n: data[:n])
    assert space.core.fingerprint(i) == hashlib.blake2b(data[:n], digest_size=16).digest(), n


def test_fields_are_asked_once_per_label():
  p0 = UOp.param(0)
  g = (p0 + 1) + (p0 + 1) * 2 + ((p0 * 2) + 1)
  space = NativeSpace(Stepper(symbolic))
  asked: list[int] = []
  def fields(i: int) -> bytes:
    asked.append(i)
    return node_fields(space.uop(i))
  space.core.fingerprint_setup(fields)
  assert space.core.fingerprint(space.to_id(g)) == Fingerprints().of(g)
  kinds = {(u.op, u.dtype, u.arg) if u.src else u for u in g.toposort()}
  assert len(asked) == len(kinds) == 5   # p0, 1 and 2 (leaves), add and mul (one label each, for 6 inner nodes)


def test_a_20000_node_chain_is_fingerprinted_without_recursion():
  g = add0_chain(20_000)
  space = NativeSpace(Stepper(symbolic))
  i = space.to_id(g)
  held = space.core.counts["bytes"]
  assert space.fingerprint(i) == Fingerprints().of(g)
  assert space.core.counts["bytes"] - held >= 17 * 20_001   # each node's 16 bytes and flag, counted in what the core holds


def test_fingerprint_needs_setup_and_a_node():
  space = NativeSpace(Stepper(symbolic))
  i = space.to_id(UOp.param(0))
  with pytest.raises(RuntimeError): space.core.fingerprint(i)
  space.core.fingerprint_setup(lambda j: "not bytes")
  with pytest.raises(TypeError): space.core.fingerprint(i)
  g = UOp.param(0) * 2 + 1
  def fails_on_mul(j: int) -> bytes:
    if space.uop(j).op is Ops.MUL: raise ValueError("no")
    return node_fields(space.uop(j))
  space.core.fingerprint_setup(fails_on_mul)
  with pytest.raises(ValueError): space.core.fingerprint(space.to_id(g))
  space.core.fingerprint_setup(lambda j: node_fields(space.uop(j)))   # what was computed before the error stays right
  assert space.core.fingerprint(space.to_id(g)) == Fingerprints().of(g)
  with pytest.raises(IndexError): space.fingerprint(i + 5)
  with pytest.raises(NotNative): space.to_id(UOp.param(0).call(UOp.param(1)))
