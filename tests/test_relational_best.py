"""Best-first search: the cheapest reachable graph equals the minimum over a full exploration; cycles; the bound."""
from hypothesis import assume, given

from tests.helpers import param
from tests.strategies import arith_programs
from uopc import UOp, symbolic
from uopc.cost import Cost
from uopc.relational.analyses.best import best, lower_bound
from uopc.relational.analyses.replay import replay
from uopc.relational.space.stream import Exploration
from uopc.rulesets import resolve_rules

p0, p1 = param(0), param(1)
EX9 = resolve_rules("examples/saturation_rules.py:rules")


def min_over_exploration(prog, pm, cost, max_states=3_000):
  ex = Exploration(prog, pm, max_states=max_states)
  return min(cost.of(s.graph) for s in ex.states if not s.stuck), ex.complete


@given(arith_programs(max_ops=4))
def test_best_first_finds_the_minimum_of_a_full_exploration(prog):
  for pm, cost in ((symbolic, Cost.nodes()), (EX9, Cost.nodes()), (EX9, Cost.parse("add=3,param=0"))):
    expected, complete = min_over_exploration(prog, pm, cost)
    assume(complete)
    r = best(prog, pm, cost, max_states=3_000)
    assert r.complete and r.cost == expected == cost.of(r.graph)
    assert replay(prog, r.path, pm) is r.graph   # the path is real: directed steps from the program


def test_cycles_are_harmless_and_every_graph_is_seen_once():
  prog = (p0 + p1) * 2   # commutativity of + and * loops; the space is finite
  r = best(prog, EX9)
  ex = Exploration(prog, EX9)
  assert r.complete and r.seen == len(ex.states) and r.cost == 4   # (p0 + p1) + (p0 + p1): 4 distinct nodes
  assert r.graph in {s.graph for s in ex.states}


def test_meeting_the_lower_bound_stops_the_search():
  prog = ((p0 + 0) * 1 + 0) * (UOp.const(2) + -1)
  r = best(prog, symbolic)
  assert r.graph is p0 and r.cost == lower_bound(Cost.nodes()) == 1 and r.complete
  assert r.expanded < len(Exploration(prog, symbolic).states) / 4


def test_a_state_bound_makes_it_incomplete():
  prog = p0
  for i in range(1, 6): prog = prog + param(i)
  r = best(prog, EX9, max_states=50)
  assert r.bound == "max_states" and not r.complete and r.seen == 50
