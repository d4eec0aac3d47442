"""The partial-order reduction through the node protocol (issue 40.1): tinygrad's UPats read as uopc's are, PyTensor's
rewriters by the ops they track. Reduced and unreduced explorations give the same set of normal forms, and a pattern's
view accepts every node the pattern matches (so a node the reduction calls inert is never a redex)."""
from __future__ import annotations

import pytensor.tensor as pt
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from pytensor.tensor.rewriting.math import local_exp_log
from tinygrad.uop.ops import PatternMatcher as TPM
from tinygrad.uop.ops import UOp as TUOp
from tinygrad.uop.ops import UPat as TUPat
from tinygrad.uop.symbolic import sym, symbolic, symbolic_simple
from tinygrad.uop.weak import pm_cast_weak

from uopc.relational.adapters.pytensor.ir import from_pytensor
from uopc.relational.adapters.tinygrad.patterns import views
from uopc.relational.ir import rules_for
from uopc.relational.space.forms import _may
from uopc.relational.space.stream import Exploration

X = TUPat.var("x")
# a user's rules: units, a zero that makes a unit above it, a reassociation that makes x + 0 (redexes that make redexes)
USER = TPM([(X + 0, lambda x: x), (X * 1, lambda x: x), (X * 0, lambda x: x.const_like(0)),
            ((X + TUPat.cvar("c")) + TUPat.var("y"), lambda x, c, y: (x + y) + c if y.op is not c.op else None)])
ADD_ZERO = TPM([(X + 0, lambda x: x)])
POOL = [TUOp.variable(f"v{i}", 0, 9) for i in range(3)]


def leaf(draw: st.DrawFn) -> TUOp:
  v = POOL[draw(st.integers(0, len(POOL) - 1))]
  return [v, v + 0, v * 1, v * 0, (v + 1) + 0, (v * 1) + 0][draw(st.integers(0, 5))]


@st.composite
def programs(draw: st.DrawFn) -> TUOp:
  """A SINK of a few small sums and products over a shared pool (islands that share subgraphs)."""
  outs = []
  for _ in range(draw(st.integers(1, 4))):
    e = leaf(draw)
    for _ in range(draw(st.integers(0, 2))): e = e + leaf(draw) if draw(st.booleans()) else e * leaf(draw)
    outs.append(e)
  return TUOp.sink(*outs)


def normal_forms(prog, pm, reduce: bool) -> tuple[set, Exploration]:
  ex = Exploration(prog, pm, reduce=reduce, max_states=4_000).run()
  return {s.graph for s in ex.normal_forms}, ex


@settings(max_examples=40, deadline=None)
@given(programs(), st.sampled_from([USER, symbolic_simple]))
def test_tinygrad_reduced_and_full_have_the_same_normal_forms(prog, pm):
  full, ex = normal_forms(prog, pm, False)
  assume(ex.complete)
  reduced, rex = normal_forms(prog, pm, True)
  assert rex.complete and reduced == full and len(rex.states) <= len(ex.states)


def test_tinygrad_islands_are_reduced():
  a = [TUOp.variable(f"a{i}", 0, 10) for i in range(6)]
  total = sum((x + 0 for x in a[1:]), a[0] + 0)   # under x + 0 -> x no + above the leaves can become x + 0
  (full, ex), (reduced, rex) = normal_forms(total, ADD_ZERO, False), normal_forms(total, ADD_ZERO, True)
  assert reduced == full and (len(ex.states), len(rex.states)) == (64, 7) and rex.reduced
  prog = TUOp.sink(*[(x + 0) * 1 for x in a[:4]])
  (full, ex), (reduced, rex) = normal_forms(prog, symbolic_simple, False), normal_forms(prog, symbolic_simple, True)
  assert reduced == full and (len(ex.states), len(rex.states)) == (256, 80) and rex.reduced
  # under sym a rule matches every SINK (pm_clean_up_group_sink): not inert, nothing reduced
  assert not normal_forms(TUOp.sink(*[x + 0 for x in a]), sym, True)[1].reduced


def test_every_match_of_a_tinygrad_rule_is_accepted_by_its_views():
  # the reduction's soundness rests on the views over-approximating the UPats: every node a rule matches, some view of
  # its pattern may match (its forms: the node itself, all the way down); nodes from explorations under the rules
  checked = 0
  for pm in (sym + pm_cast_weak, symbolic, USER):
    rules = rules_for(POOL[0], pm)
    progs = [(POOL[0] * 4 + POOL[1]) // 4 % 8, TUOp.sink((POOL[0] + 0) * 1, (POOL[1] + 2) + 3), POOL[2] * 2 < 7]
    nodes = {u for p in progs for s in Exploration(p, pm, max_states=300).run().states for u in s.graph.toposort()}
    for u in nodes:
      for i in rules.by_op.get(u.op, ()):
        pattern = rules.pm.patterns[i][0]
        if pattern.match(u, {}):
          checked += 1
          assert any(_may(v, shape(u)) for v in views(pattern)), (rules.rules[i].describe(), u)
  assert checked > 20


def shape(u: TUOp) -> tuple:
  return ((u, tuple(shape(s) for s in u.src)),)


@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 2), st.integers(0, 2)), min_size=1, max_size=4))
def test_pytensor_reduced_and_full_have_the_same_normal_forms(terms):
  xs = [pt.scalar(f"x{i}") for i in range(3)]
  wrap = [lambda x: x, lambda x: pt.log(pt.exp(x)), lambda x: pt.log(pt.exp(x)) + x]
  prog = from_pytensor(pt.stack([wrap[w](xs[k]) for k, w in terms]))
  full, ex = normal_forms(prog, [local_exp_log], False)
  reduced, rex = normal_forms(prog, [local_exp_log], True)
  assert ex.complete and rex.complete and reduced == full and len(rex.states) <= len(ex.states)


def test_pytensor_islands_are_reduced():
  xs = [pt.scalar(f"x{i}") for i in range(4)]
  prog = from_pytensor(pt.stack([pt.log(pt.exp(x)) for x in xs]))   # no rewriter tracks MakeVector: inert
  (full, ex), (reduced, rex) = normal_forms(prog, [local_exp_log], False), normal_forms(prog, [local_exp_log], True)
  assert reduced == full and (len(ex.states), len(rex.states)) == (16, 5) and rex.reduced
