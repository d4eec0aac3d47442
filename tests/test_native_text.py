"""A state's text made in C from the native core's nodes (``NativeSpace.text``, ``_space_text.h``) against ``uopc.term.show``
of the state's ``UOp``: the same text, shared subterms named, cut at the limit, for every leaf kind and dtype."""
from hypothesis import assume, given
from hypothesis import strategies as st

from tests.strategies import graphs
from uopc import PatternMatcher, UOp, UPat, fold, symbolic
from uopc.relational import Exploration, Stepper
from uopc.relational.native.drive import NativeState
from uopc.relational.native.space import NativeSpace, NotNative
from uopc.rulesets import resolve_rules
from uopc.term import show

x, y = UPat.var("x"), UPat.var("y")
RULESETS = [symbolic, fold, resolve_rules("symbolic+evaluate"), PatternMatcher([(x + 0, lambda x: x), (x + y, lambda x, y: y + x)], name="comm")]
LIMITS = st.sampled_from([None, 0, 1, 5, 12, 40, 200, 10_000])


def space_of(g: UOp) -> tuple[NativeSpace, int]:
  space = NativeSpace(Stepper(symbolic))
  try: return space, space.to_id(g)
  except NotNative: assume(False)   # a CALL: the Python core's (hypothesis draws another graph)
  raise AssertionError


@given(graphs(max_ops=12), st.lists(LIMITS, min_size=1, max_size=4))
def test_a_nodes_text_is_show_of_its_uop(g, limits):
  space, i = space_of(g)
  for limit in limits:
    want = show(g, limit)
    assert space.text(i, limit) == (None if limit is None else want)
    assert space.text(g, limit) == (None if limit is None else want)   # by its UOp, bound to the node


@given(graphs(max_ops=8), st.sampled_from(range(len(RULESETS))), LIMITS)
def test_every_states_line_texts_are_shows(g, rules, limit):
  pm = RULESETS[rules]
  try: ex = Exploration(g, pm, stepper=Stepper(pm), native=True, max_states=80).run()
  except NotNative: assume(False)
  for s in ex.states:
    assert s.term(limit) == show(s.graph, limit)
    if s.redex is not None and s.error is None:
      assert (s.text_of(s.redex.node, limit), s.text_of(s.redex.result, limit)) == (show(s.redex.node, limit), show(s.redex.result, limit))


def test_native_states_texts_come_from_the_core():
  a = UOp.param(0) + 0
  ex = Exploration((a + a) * 1, symbolic, stepper=Stepper(symbolic), native=True).run()
  s = ex.states[0]
  assert isinstance(s, NativeState)
  assert s.term(200) == "let a = add(p0, 0) in mul(add(a, a), 1)" and s.term(10) == "mul(add(ad…"


def test_pieces_are_by_position_not_identity():
  # add(p0, p0) and add(p0, 1) share a label (ADD, i32, no arg): the label's cached pieces must not tie both sources to one
  space = NativeSpace(Stepper(symbolic))
  p = UOp.param(0)
  for g in (p + p, p + 1, (p + 1) + (p + p)):
    assert space.text(space.to_id(g), 100) == show(g, 100)


def test_shared_subterms_and_the_cut():
  a = UOp.param(0) + 0
  b = a + a
  g = (b + b) * 2
  space = NativeSpace(Stepper(symbolic))
  i = space.to_id(g)
  assert space.text(i, 1000) == "let a = add(p0, 0), b = add(a, a) in mul(add(b, b), 2)"
  assert space.text(i, 20) == show(g, 20) == "mul(add(add(add(p0, …"
  assert space.text(i, 3) == "mul…"   # 7 distinct nodes, more than 3 characters: the tree's prefix straight away


def test_a_20000_node_chain_without_recursion():
  g = UOp.param(0)
  for k in range(20_000): g = g + (k % 7)
  space = NativeSpace(Stepper(symbolic))
  i = space.to_id(g)
  for limit in (10_000, 50):
    assert space.text(i, limit) == show(g, limit)
  assert len(space.text(i, 10_000)) == 10_001   # cut, with its ellipsis
