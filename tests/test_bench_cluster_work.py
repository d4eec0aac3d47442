"""bench/cluster.py's counted table (``shards_work``): what one shard makes and what each of two makes, no clock."""
import pytest

from bench.cluster import Size, comm_assoc, guarded, param_sum, shards_work
from uopc.relational import Exploration
from uopc.relational.native import available

pytestmark = pytest.mark.skipif(not available(), reason="the native core is not built")


@pytest.mark.parametrize("rules", [comm_assoc, guarded], ids=["templates", "guarded"])
def test_two_shards_split_the_states_and_the_python_calls_but_not_the_inner_maps(rules):
  size = Size("r", 5, lambda: param_sum(5), rules)
  ((one,), states), (two, again) = shards_work(size, 1), shards_work(size, 2)
  assert states == again == len(Exploration(param_sum(5), rules(), max_states=None).run().states) == 1_680
  assert max(w.nodes for w in two) <= one.nodes and sum(w.sent for w in two) <= states   # (a state crosses at most once a level)
  # each state is expanded by its owner alone, but both need the maps of the inner nodes below their states
  assert max(w.entries for w in two) < one.entries < sum(w.entries for w in two)
  if rules is guarded:   # every node's rules run in Python once between the two (native_steps.py shares the matches)
    assert one.calls <= sum(w.calls for w in two) <= 1.1 * one.calls and min(w.calls for w in two) > 0.4 * one.calls
    # ... but a match needs UOps of its node and all below it: each of two makes UOps of nearly every node
    assert one.uops == one.nodes and all(w.calls < w.uops <= w.nodes for w in two) and min(w.uops for w in two) > 0.85 * one.uops
  else: assert one.calls == sum(w.calls for w in two) == 0   # the templates run in C
