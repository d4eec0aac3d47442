"""The values rules are tried on: seeded draws stay what the reports were made with, instances come cheapest first, the
round robin takes each distinct item once within its budget."""
import itertools
import math
import random

from uopc import UOp, dtypes
from uopc.probe_values import EDGE, EDGE_WIDE, FAILED, by_cost, edge_or, random_bindings, random_value, round_robin


def test_seeded_bindings_are_the_ones_the_reports_were_made_with():
  params = [UOp.param(0), UOp.param(1, dtypes.f32), UOp.param(2, dtypes.bool, (2,))]
  assert random_bindings(params, n=4, seed=3) == [
    {0: 2147483647, 1: math.inf, 2: [False, False]}, {0: 41, 1: -math.inf, 2: [False, False]},
    {0: -2147483648, 1: math.inf, 2: [True, True]}, {0: -90, 1: -92.25, 2: [True, False]}]
  assert random_bindings(params, seed=7) == random_bindings(params, seed=7) != random_bindings(params, seed=8)


def test_check_rules_draws_are_the_ones_the_reports_were_made_with():
  r = random.Random(5)
  assert [random_value(r, d) for d in (dtypes.i32, dtypes.f32, dtypes.bool) for _ in range(4)] == [
    1904202612, -1661267722, 8, 2, -5.665403842926025, 3.4028234663852886e+38, 1.0, 1.401298464324817e-45, True, True, False, True]


def test_every_edge_value_is_one_check_rules_tries_and_of_its_dtype():
  for dt, values in EDGE.items():
    assert all(dtypes.of(v) is dt for v in values)
    assert all(any(type(v) is type(w) and (v == w or v != v and w != w) and math.copysign(1, v) == math.copysign(1, w)
                   for w in EDGE_WIDE[dt]) for v in values)


def test_edge_or_picks_an_edge_about_a_third_of_the_time():
  r = random.Random(0)
  picks = [edge_or(r, (-1, 1), lambda: 0) for _ in range(3000)]
  assert 800 < sum(p != 0 for p in picks) < 1000 and set(picks) == {-1, 0, 1}


def test_by_cost_gives_every_combination_once_in_order_of_total_cost():
  groups = [[(0, "a"), (1, "b"), (1, "c")], [(0, "x"), (2, "y")], [(0, 1), (3, 2)]]
  combos = list(by_cost(groups))
  costs = {x: c for g in groups for c, x in g}
  assert sorted(combos) == sorted(itertools.product("abc", "xy", (1, 2)))
  assert [sum(costs[x] for x in c) for c in combos] == sorted(sum(costs[x] for x in c) for c in combos)
  assert combos[0] == ("a", "x", 1)


def test_round_robin_takes_in_turn_each_distinct_item_once():
  assert list(round_robin([iter("aab"), iter("xy")], 10)) == ["a", "x", "y", "b"]
  assert list(round_robin([iter("abc"), iter("xyz")], 3)) == ["a", "x", "b"]
  assert list(round_robin([iter([(1, "p"), (1, "q"), (2, "r")])], 5, key=lambda i: i[0])) == [(1, "p"), (2, "r")]


def test_round_robin_counts_failed_draws_against_its_budget():
  assert list(round_robin([iter([FAILED, FAILED, "a", "b"])], 5, budget=3)) == ["a"]
  assert list(round_robin([iter([FAILED, "a"]), iter(["x", "y"])], 5, budget=2)) == ["x"]
