"""A cluster of one worker (``local:1``) against one process: the same states, steps, reports and bounds, though the
only shard's records are light (``uopc.relational.cluster.deferred``: the arguments to make its levels again) and its
full records are written when a report asks; a worker killed mid-level is made again from them, and a worker gone
for good (or serving a later run) is made again in this process.
"""
import pytest
import ray
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.strategies import graphs
from tests.test_relational_cluster import cluster, counted, kill_now  # noqa: F401  # (cluster: its Ray session for this module too)
from tests.test_relational_native_drive import COMM, RULESETS, ZERO, graph_facts, snapshot, sum_of_add0
from uopc import Ops, PatternMatcher, UOp, UPat
from uopc.relational import explore
from uopc.relational.cluster import ClusterExploration
from uopc.relational.cluster.deferred import is_light
from uopc.relational.cluster.shard import unpack
from uopc.relational.space.cycles import terminal_cycles
from uopc.rulesets import resolve_rules

ONE = "local:1"


def light(ex: ClusterExploration) -> bool:
  """True where every record the coordinator holds of the run is a light one."""
  return all(is_light(unpack(b)) for b in ray.get(ex.outcome.records[0]))


def one_and_one_worker(g: UOp, pm, native: bool = True, **bounds) -> ClusterExploration:
  """One process's exploration and one worker's, equal in everything they report, the worker's records light: first what
  the shard answers where it is, then every state streamed and built here from the full records its worker writes."""
  one = explore(g, pm, **bounds)
  many = ClusterExploration(g, pm, cluster=ONE, native=native, **{"max_states": 100_000, **bounds})
  assert counted(many) == counted(one)
  assert light(many) and not many._materialized and many.outcome.lean is not None
  assert [s.id for s in many.iter_ahead()] == list(range(len(one.states)))
  assert snapshot(many) == snapshot(one) and graph_facts(many) == graph_facts(one)
  assert [[s.id for s in c.states] for c in terminal_cycles(many)] == [[s.id for s in c.states] for c in terminal_cycles(one)]
  return many


@settings(max_examples=8, deadline=None)
@given(graphs(max_ops=7), st.sampled_from(sorted(RULESETS)),
       st.sampled_from([{"max_states": 400}, {"max_states": 7}, {"max_states": 1}, {"max_depth": 0}, {"max_depth": 2}]))
def test_random_programs_explore_the_same_on_one_worker(g, name, bounds):
  one_and_one_worker(g, RULESETS[name], **bounds)


@pytest.mark.parametrize("native", [True, False])
def test_one_worker_on_either_core_with_cycles_stuck_states_and_cuts(native):
  p0, p1 = UOp.param(0), UOp.param(1)
  many = one_and_one_worker((p0 + 0) * 1 + (p1 * 1 + 0) * 1, resolve_rules("symbolic"), native=native, max_states=None)
  assert len(many.states) > 50 and many.outcome.stats[0]["native"] is native
  assert one_and_one_worker(sum_of_add0(0, 6), ZERO, native=native, max_states=37).bound == "max_states"

  def boom(x): raise ValueError("no MUL today")
  raising = PatternMatcher([(UPat(Ops.MUL, name="x"), boom), (UPat.var("x") + 0, lambda x: x)])
  g = (p0 + 0) * (p1 + 0) + ((p1 + 0) * 3 + 0)
  for bounds in ({"max_states": None}, {"max_states": 5}, {"max_depth": 1}):
    assert one_and_one_worker(g, raising, native=native, **bounds).stuck


def test_one_worker_killed_mid_level_twice_makes_its_levels_again():
  g = sum(((UOp.param(i) + 0) for i in range(1, 4)), UOp.param(0) + 0)   # under commutativity: cycles, many levels
  killed: list[tuple[int, str]] = []

  def kill(depth, phase, actors):
    if (depth, phase) in ((2, "absorb"), (4, "commit")) and (depth, phase) not in killed:   # one kill in each of two phases
      killed.append((depth, phase))
      kill_now(actors[0])
  one = explore(g, COMM, max_states=None)
  many = ClusterExploration(g, COMM, cluster=ONE, max_states=None, kill=kill)
  assert counted(many) == counted(one) and light(many)
  assert snapshot(many) == snapshot(one)
  assert killed == [(2, "absorb"), (4, "commit")] and many.outcome.revived == 2


def made_here(monkeypatch) -> list[int]:
  """Counts the shards whose records are made again in this process (``coordinator.replayed``)."""
  from uopc.relational.cluster import coordinator
  made: list[int] = []
  real = coordinator.replayed
  monkeypatch.setattr(coordinator, "replayed", lambda *a: (made.append(a[-2]), real(*a))[1])
  return made


def test_one_worker_lost_for_good_leaves_its_levels_to_be_made_again_here(monkeypatch):
  g = sum_of_add0(0, 6)
  made = made_here(monkeypatch)

  def kill(depth, phase, actors):
    if depth >= 2: kill_now(actors[0])   # every replacement dies too
  many = ClusterExploration(g, ZERO, cluster=ONE, max_states=None, kill=kill).run()
  one = explore(g, ZERO, max_states=None).run()
  n, deepest = len(many.states), many.states[-1].depth
  assert many.bound == "workers_lost" and many.outcome.revived == 3
  assert deepest >= 2 and n == sum(1 for s in one.states if s.depth <= deepest) < len(one.states)
  assert [s.graph for s in many.states] == [s.graph for s in one.states[:n]]
  assert [s.parent.id for s in many.states[1:]] == [s.parent.id for s in one.states[1:n]] and made == [0]


def test_a_worker_that_serves_a_later_run_leaves_the_records_to_be_made_here(monkeypatch):
  g = sum_of_add0(0, 5)
  made = made_here(monkeypatch)
  one = explore(g, ZERO, max_states=None)
  first = ClusterExploration(g, ZERO, cluster=ONE, max_states=None).run()
  ClusterExploration(sum_of_add0(10, 3), ZERO, cluster=ONE, max_states=None).run()   # takes the idle worker
  assert snapshot(first) == snapshot(one) and first._materialized and made == [0]
