"""The reduction keeps every normal form: reduced against full exploration, on random and example programs.

``--slow`` (UOPC_SLOW=1) runs each property on 2,000 programs instead of 60.
"""
from __future__ import annotations

import glob

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.strategies import graphs
from uopc import Ops, PatternMatcher, UOp, UPat, dtypes, symbolic
from uopc.relational import Exploration, normal_forms
from uopc.relational.analyses.order import diagnose_order
from uopc.relational.space.reduction import IslandReduction, canonical_graphs
from uopc.relational.space.engine_path import record
from uopc.relational.space.cycles import terminal_cycles
from uopc.relational.space.step import stepper_for
from uopc.rulesets import resolve_rules
from uopc.uir import parse_uir

x, y = UPat.var("x"), UPat.var("y")
LOOPS = PatternMatcher([(x * 2, lambda x: x + x), (x + x, lambda x: x * 2), (x + 0, lambda x: x)])
ADD_ZERO = resolve_rules("examples/add_zero_rules.py:rules")


def _same_or_none(x: UOp, y: UOp) -> UOp | None: return x if x is y else None   # equal names, read by the function


def _reassociate(x: UOp, c1: UOp, c2: UOp) -> UOp | None:
  return x + (c1.arg + c2.arg) if c1.arg + c2.arg in (0, 1) else None   # makes a new `+ 0`, or a new `+ 1`, or nothing


# opaque functions whose results make new redexes above them: `x * 0` makes a 0 that a `+` above can match
OPAQUE = PatternMatcher([(x + 0, lambda x: x), (x * 0, lambda x: x.const_like(0)), (x * 1, lambda x: x),
                         (UPat(Ops.MAX, src=(x, y)), _same_or_none), ((x + UPat.cvar("c1")) + UPat.cvar("c2"), _reassociate),
                         (x + 1, lambda x: x * 1 + 0)], name="opaque")
RULE_SETS = {"symbolic": symbolic, "symbolic+evaluate": resolve_rules("symbolic+evaluate"), "fold": resolve_rules("fold"),
             "my_rules": resolve_rules("examples/my_rules.py:rules"), "loops": LOOPS, "add_zero": ADD_ZERO, "opaque": OPAQUE}
MAX_STATES = 3000


@st.composite
def stacked(draw: st.DrawFn) -> UOp:
  """A STACK of 2-4 scalar expressions over a shared pool: islands that share subgraphs (hash consing)."""
  dtype = draw(st.sampled_from([dtypes.i32, dtypes.f32]))
  pool = [UOp.param(k, dtype) for k in range(draw(st.integers(1, 3)))]
  consts = [UOp.const(v, dtype) for v in ((0, 1, 2, -1) if dtype is dtypes.i32 else (0.0, -0.0, 1.0, 2.0))]
  for _ in range(draw(st.integers(1, 6))):
    a = draw(st.sampled_from(pool))
    b = draw(st.sampled_from(pool + consts))
    op = draw(st.sampled_from([Ops.ADD, Ops.ADD, Ops.MUL, Ops.MAX]))
    pool.append(UOp(op, (a, b) if draw(st.booleans()) else (b, a)))
  return UOp.stack(*(draw(st.sampled_from(pool)) for _ in range(draw(st.integers(2, 4)))))


@st.composite
def stacked_graphs(draw: st.DrawFn) -> UOp:
  """A random graph of any ops (``graphs()``), stacked with itself under redexes, when its type allows."""
  g = draw(graphs(max_ops=6))
  if g.dtype not in (dtypes.i32, dtypes.f32): return UOp.stack(g, g)
  zero, one = UOp.const(0, g.dtype).broadcast(g.shape), UOp.const(1, g.dtype).broadcast(g.shape)
  return UOp.stack(g, g + zero, g * one)


@st.composite
def sums(draw: st.DrawFn) -> UOp:
  """Sums and products (any shape, maybe under a STACK) of small terms with and without redexes: `pK + 0`, `pK * 0`, ..."""
  p = [UOp.param(k) for k in range(draw(st.integers(1, 4)))]
  def term() -> UOp:
    a = draw(st.sampled_from(p))
    return draw(st.sampled_from([a, a + 0, a * 1, a * 0, a + 1, (a + 1) + 0, UOp(Ops.MAX, (a, a)), UOp.const(draw(st.sampled_from([0, 1, 2])))]))
  def tree() -> UOp:
    terms = [term() for _ in range(draw(st.integers(1, 6)))]
    while len(terms) > 1:   # join two neighbours: any tree shape
      i = draw(st.integers(0, len(terms) - 2))
      terms[i:i + 2] = [UOp(draw(st.sampled_from([Ops.ADD, Ops.ADD, Ops.MUL, Ops.MAX])), (terms[i], terms[i + 1]))]
    return terms[0]
  return UOp.stack(tree(), tree()) if draw(st.integers(0, 4)) == 0 else tree()


def programs() -> st.SearchStrategy[UOp]:
  return st.one_of(stacked(), stacked_graphs(), graphs(max_ops=6), sums())


def explorations(prog: UOp, pm: PatternMatcher, semantics: str = "graph") -> tuple[Exploration, Exploration] | None:
  full = Exploration(prog, pm, max_states=MAX_STATES, semantics=semantics).run()  # type: ignore[arg-type]
  if not full.complete: return None
  return full, Exploration(prog, pm, max_states=MAX_STATES, reduce=True, semantics=semantics).run()  # type: ignore[arg-type]


def check_same_normal_forms(prog: UOp, pm: PatternMatcher, semantics: str = "graph") -> None:
  pair = explorations(prog, pm, semantics)
  if pair is None: return
  full, reduced = pair
  assert reduced.complete
  assert {s.graph for s in reduced.normal_forms} == {s.graph for s in full.normal_forms}
  assert len(reduced.states) <= len(full.states)
  if len(reduced.states) < len(full.states): assert reduced.reduced
  # paths may be longer than in the full graph (hash consing: see test_a_reduced_path_can_be_longer)
  depth = {s.graph: s.depth for s in full.normal_forms}
  assert all(s.depth >= depth[s.graph] for s in reduced.normal_forms)
  # the canonical engine's verdict: the same normal form is (or is not) its result
  canonical = record(prog, pm)[0]
  assert (reduced.state_of(canonical) is not None) == (full.state_of(canonical) is not None) if canonical is not None else True


@pytest.mark.parametrize("name", sorted(RULE_SETS))
@given(prog=programs())
def test_reduced_exploration_keeps_every_normal_form(name: str, prog: UOp) -> None:
  check_same_normal_forms(prog, RULE_SETS[name])


@pytest.mark.parametrize("name", ["symbolic", "fold", "add_zero", "opaque", "loops"])
@given(prog=programs())
def test_reduced_tree_exploration_keeps_every_normal_form(name: str, prog: UOp) -> None:
  check_same_normal_forms(prog, RULE_SETS[name], "tree")


def fork_verdicts(prog: UOp, pm: PatternMatcher, reduce: bool) -> tuple[set, dict]:
  report = diagnose_order(prog, pm, max_states=MAX_STATES, max_depth=None, timeout=None, reduce=reduce)
  return report, {f.normal_form.graph: (f.fork.graph, f.kind) for f in report.forks}


@pytest.mark.parametrize("name", ["symbolic", "symbolic+evaluate", "my_rules"])
@given(prog=programs())
def test_reduced_order_finds_the_same_forks(name: str, prog: UOp) -> None:
  pm = RULE_SETS[name]
  full, full_forks = fork_verdicts(prog, pm, False)
  if not full.complete: return
  reduced, reduced_forks = fork_verdicts(prog, pm, True)
  assert reduced.complete
  assert {s.graph for s in reduced.normal_forms} == {s.graph for s in full.normal_forms}
  assert reduced_forks == full_forks   # the same fork state and the same verdict for every other normal form


EXAMPLES = sorted(glob.glob("examples/*.uir"))


@pytest.mark.parametrize("path", EXAMPLES)
@pytest.mark.parametrize("name", ["symbolic", "symbolic+evaluate", "my_rules"])
def test_every_example_keeps_its_normal_forms(path: str, name: str) -> None:
  check_same_normal_forms(parse_uir(open(path).read(), path), RULE_SETS[name])


def test_independent_islands_are_taken_one_at_a_time() -> None:
  p = [UOp.param(k) for k in range(20)]
  prog = UOp.stack(*(pk + 0 for pk in p))   # 2**20 graphs in full
  nf = normal_forms(prog, symbolic, max_states=None)
  assert nf.complete and nf.exploration.reduced
  assert [s.graph for s in nf.forms] == [UOp.stack(*p)]
  assert len(nf.exploration.states) == 21   # one step per island, one island at a time
  assert nf.forms[0].depth == 20


def left_sum(terms: list[UOp]) -> UOp:
  g = terms[0]
  for t in terms[1:]: g = g + t
  return g


def balanced_sum(terms: list[UOp]) -> UOp:
  while len(terms) > 1: terms = [terms[i] + terms[i + 1] if i + 1 < len(terms) else terms[i] for i in range(0, len(terms), 2)]
  return terms[0]


@pytest.mark.parametrize("semantics", ["graph", "tree"])
@pytest.mark.parametrize("shape, n", [(left_sum, 30), (balanced_sum, 24)])
def test_a_sum_of_independent_add_zero_redexes_is_a_line(shape, n: int, semantics: str) -> None:
  # no + above the leaves can become x + 0 (nothing turns a sum or a pK into the constant 0): the spine is inert
  p = [UOp.param(k) for k in range(n)]
  ex = Exploration(shape([pk + 0 for pk in p]), ADD_ZERO, max_states=None, reduce=True, semantics=semantics).run()  # type: ignore[arg-type]
  assert ex.complete and ex.reduced and [s.graph for s in ex.normal_forms] == [shape(p)]
  assert len(ex.states) == n + 1 and ex.normal_forms[0].depth == n


def test_a_sum_that_a_rule_below_can_make_a_redex_is_not_reduced() -> None:
  # p1 * 0 becomes 0, and then the sum above it is p0 + 0: a redex, so the sum is not inert
  p0, p1, p2 = UOp.param(0), UOp.param(1), UOp.param(2)
  prog = (p0 + 0) + (p1 * 0) + (p2 + 0)
  pol = IslandReduction(stepper_for(OPAQUE))
  assert not pol.forms.inert(prog.src[0]) and not pol.forms.inert(prog) and pol.forms.inert((p0 + 0) + (p2 + 0))
  check_same_normal_forms(prog, OPAQUE)
  ex = Exploration(prog, OPAQUE, reduce=True).run()
  assert ex.fully_expanded(ex.states[0]) and len(ex.states[0].out) == 3


def test_an_island_below_an_alu_node_is_not_reduced() -> None:
  # the sum's ADDs can be rewritten (reassociation reads add(p0, 0)), so no step commutes with all others
  p0, p1 = UOp.param(0), UOp.param(1)
  ex = Exploration((p0 + 0) + (p1 + 0), symbolic, reduce=True).run()
  assert not ex.reduced
  assert len(ex.states) == len(Exploration((p0 + 0) + (p1 + 0), symbolic).run().states)


def test_shared_islands_are_rewritten_everywhere_at_once() -> None:
  p0, p1 = UOp.param(0), UOp.param(1)
  a, b = p0 + 0, p1 * 1
  prog = UOp.stack(a, b, a, b + a)   # a appears as an island and inside b + a: not independent
  pair = explorations(prog, symbolic)
  assert pair is not None
  full, reduced = pair
  assert {s.graph for s in reduced.normal_forms} == {s.graph for s in full.normal_forms}
  pol = IslandReduction(stepper_for(symbolic))
  chosen = pol.persistent(prog, stepper_for(symbolic).step_map(prog))
  assert chosen is None or all(r.node is not a for r in chosen)   # a is below the island b + a


def test_a_step_whose_result_has_a_new_redex_is_not_chosen() -> None:
  p0, p1 = UOp.param(0), UOp.param(1)
  prog = UOp.stack(p0 * 2, p1 + 0)   # x*2 -> x+x makes a new redex (x+x -> x*2): p1 + 0 is chosen instead
  pol = IslandReduction(stepper_for(LOOPS))
  chosen = pol.persistent(prog, stepper_for(LOOPS).step_map(prog))
  assert chosen is not None and [r.node for r in chosen] == [p1 + 0]


def test_a_loop_is_still_found_under_the_proviso() -> None:
  p0, p1 = UOp.param(0), UOp.param(1)
  prog = UOp.stack(p0 * 2, p1 + 0)
  full, reduced = explorations(prog, LOOPS)
  assert reduced.complete and reduced.reduced and not reduced.normal_forms and not full.normal_forms
  assert len(reduced.states) < len(full.states)
  loop = {UOp.stack(p0 * 2, p1), UOp.stack(p0 + p0, p1)}
  assert [{s.graph for s in c.states} for c in terminal_cycles(full)] == [loop]
  assert [{s.graph for s in c.states} for c in terminal_cycles(reduced)] == [loop]


def test_canonical_graphs_replay_the_engine() -> None:
  p0, p1 = UOp.param(0), UOp.param(1)
  prog = UOp.stack((p0 + 0) * 1, p1 * 1)
  canonical, _, firings = record(prog, symbolic)
  graphs_ = canonical_graphs(prog, stepper_for(symbolic), firings)
  assert graphs_ is not None and prog in graphs_ and canonical in graphs_
  assert len(graphs_) == len(firings) + 1


def test_a_reduced_path_can_be_longer_than_the_shortest():
  """Found by the property test above: once add(0, p0) is p0 the two outputs are one node, rewritten by one step."""
  p0 = UOp.param(0)
  prog = UOp.stack(p0 + p0, (UOp.const(0) + p0) + p0)
  full, reduced = Exploration(prog, symbolic).run(), Exploration(prog, symbolic, reduce=True).run()
  assert [s.graph for s in reduced.normal_forms] == [s.graph for s in full.normal_forms] == [UOp.stack(p0 * 2, p0 * 2)]
  assert (full.normal_forms[0].depth, reduced.normal_forms[0].depth) == (2, 3) and reduced.reduced
