"""The explorer on a Ray cluster (``uopc.relational.cluster``) against one process: the same states, ids, depths,
parents, steps, edges, normal forms, cycles and bounds; the same search answers; faults survived.

One local cluster of 2 workers for the module (starting one costs seconds); every run here uses it (``local:1``: one
shard of it). The shards' records are light ones (``deferred.py``).
"""
import pickle
import re
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
import ray
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.helpers import SUM_UIR as SUM
from tests.strategies import graphs
from tests.test_relational_native_drive import COMM, RULESETS, ZERO, graph_facts, snapshot, sum_of_add0
from uopc import UOp, parse_uir, symbolic
from uopc.relational import Exploration, explore, search
from uopc.relational.cluster import ClusterError, ClusterExploration
from uopc.relational.cluster.deferred import is_light
from uopc.relational.cluster.shard import unpack
from uopc.relational.space.cycles import terminal_cycles
from uopc.rulesets import resolve_rules

CLUSTER = "local:2"
ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module", autouse=True)
def cluster():
  ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
  yield
  ray.shutdown()


def counted(ex: Exploration) -> tuple:
  """What the counting reports read: counts, normal forms and stuck states with their paths, a graph's state, the bound,
  the cycles (normal-form classes) with theirs."""
  def path(s): return [(e.source.id, e.target.id, e.rule, e.node, e.result) for e in s.path()]
  last = ex.normal_forms[-1].graph if ex.normal_forms else ex.root
  return (ex.state_count, ex.edge_count, ex.bound, [(s.id, s.depth, s.graph, s.normal, path(s)) for s in ex.normal_forms],
          [(s.id, s.depth, s.graph, s.error, s.parent.id, path(s)) for s in ex.stuck], getattr(ex.state_of(last), "id", None),
          ex.state_of(UOp.param(99)), [([(s.id, s.graph, path(s)) for s in c.states], c.rules) for c in terminal_cycles(ex)])


def one_and_cluster(g: UOp, pm, **bounds) -> tuple[Exploration, ClusterExploration]:
  """One process's exploration and the cluster's, asserted equal in everything they report: first what the shards answer
  where they are (nothing built here: every state is only for a report of every state), then all."""
  one = explore(g, pm, **bounds)
  many = explore(g, pm, cluster=CLUSTER, **bounds)
  assert isinstance(many, ClusterExploration)
  assert counted(many) == counted(one)
  assert not many._materialized and many.outcome.lean is not None and many.outcome._levels is None
  assert [s.id for s in many.iter_ahead()] == list(range(len(one.states)))   # streamed from the records, none kept
  assert snapshot(many) == snapshot(one)
  assert graph_facts(many) == graph_facts(one)
  assert [[s.id for s in c.states] for c in terminal_cycles(many)] == [[s.id for s in c.states] for c in terminal_cycles(one)]
  assert [[e.target.id for e in s.path()] for s in many.normal_forms] == [[e.target.id for e in s.path()] for s in one.normal_forms]
  return one, many


@settings(max_examples=12, deadline=None)
@given(graphs(max_ops=7), st.sampled_from(sorted(RULESETS)),
       st.sampled_from([{"max_states": 400}, {"max_states": 7}, {"max_states": 1}, {"max_depth": 0}, {"max_depth": 2}]))
def test_random_programs_explore_the_same_on_the_cluster(g, name, bounds):
  one_and_cluster(g, RULESETS[name], **bounds)


def test_a_space_over_several_levels_with_cycles_and_a_max_states_cut():
  p0, p1 = UOp.param(0), UOp.param(1)
  commute = resolve_rules("symbolic")
  one, many = one_and_cluster((p0 + 0) * 1 + (p1 * 1 + 0) * 1, commute, max_states=None)
  assert one.complete and len(many.states) == len(one.states) > 50
  one, many = one_and_cluster(sum_of_add0(0, 6), ZERO, max_states=37)
  assert many.bound == "max_states" and len(many.states) == 37
  assert sum(s.normal is None for s in many.states) == sum(s.normal is None for s in one.states) > 0   # states the cut left unexpanded


def test_progress_is_told_each_levels_count_as_the_one_process_breadth_first_order_has_it():
  # (a progress bar: the states reach this process only as the run ends) each level's count is the states of depth
  # at most that level, and the last is the whole space, or max_states where it cut the run
  g = sum_of_add0(0, 5)
  one = explore(g, ZERO, max_states=None)
  by_depth = [sum(s.depth <= d for s in one.states) for d in range(1, max(s.depth for s in one.states) + 1)]
  told: list[int] = []
  assert explore(g, ZERO, max_states=None, cluster=CLUSTER, progress=told.append).state_count == len(one.states) == 32
  assert told == sorted(told) and sorted(set(told)) == by_depth   # (the level that expands the deepest states makes none)
  told.clear()
  assert explore(g, ZERO, max_states=20, cluster=CLUSTER, progress=told.append).state_count == 20 and told[-1] == 20 < by_depth[-1]


def test_cycles_are_found_from_the_shards_steps_with_nothing_built_here():
  from uopc import PatternMatcher, UPat
  x = UPat.var("x")
  loops = PatternMatcher([(x * 2, lambda x: x + x), (x + x, lambda x: x * 2), (x + 0, lambda x: x)])
  p0, p1 = UOp.param(0), UOp.param(1)
  for bounds in ({"max_states": 11}, {"max_depth": 2}, {"max_states": None}):
    one = explore((p0 + 0) * 2 + (p1 + 0) * 2, loops, **bounds)
    many = explore((p0 + 0) * 2 + (p1 + 0) * 2, loops, cluster=CLUSTER, **bounds)
    assert counted(many) == counted(one)
    assert not many._materialized and any(r["maybe_cycle"] for r in many.outcome.lean)
  assert len(terminal_cycles(one)) == 1 and len(terminal_cycles(one)[0].states) == 4   # the last one: the space whole


def test_failing_steps_make_the_same_stuck_states():
  from uopc import Ops, PatternMatcher, UPat

  def boom(x): raise ValueError("no MUL today")
  raising = PatternMatcher([(UPat(Ops.MUL, name="x"), boom), (UPat.var("x") + 0, lambda x: x)])
  p0, p1 = UOp.param(0), UOp.param(1)
  one, many = one_and_cluster((p0 + 0) * (p1 + 0) + ((p1 + 0) * 3 + 0), raising, max_states=None)
  assert len(many.stuck) == len(one.stuck) > 3 and {s.error for s in many.stuck} == {"ValueError: no MUL today"}
  one, many = one_and_cluster((p0 + 0) * (p1 + 0) + ((p1 + 0) * 3 + 0), raising, max_states=5)   # a cut among stuck states
  assert many.bound == "max_states" and many.stuck
  one, many = one_and_cluster((p0 + 0) * (p1 + 0) + ((p1 + 0) * 3 + 0), raising, max_depth=1)   # stuck states one step past max_depth
  assert many.bound == "max_depth" and max(s.depth for s in many.stuck) == 2


def test_the_workers_step_on_the_core_they_are_told_to():
  g = sum_of_add0(0, 6)
  one = explore(g, ZERO, max_states=None)
  for native in (True, False):
    many = ClusterExploration(g, ZERO, cluster=CLUSTER, max_states=None, native=native)
    assert counted(many) == counted(one)
    assert [(s["native"], s["in_python"]) for s in many.outcome.stats] == [(native, 0)] * 2


def test_a_native_worker_steps_in_python_the_graphs_its_core_stops_at():
  from uopc import Ops, PatternMatcher, UPat

  def boom(x): raise ValueError("no MUL today")
  raising = PatternMatcher([(UPat(Ops.MUL, name="x"), boom), (UPat.var("x") + 0, lambda x: x)])
  p0, p1 = UOp.param(0), UOp.param(1)
  g = (p0 + 0) * (p1 + 0) + ((p1 + 0) * 3 + 0)
  one = explore(g, raising, max_states=None)
  many = ClusterExploration(g, raising, cluster=CLUSTER, max_states=None, native=True)
  assert counted(many) == counted(one) and len(one.stuck) > 3
  stats = many.outcome.stats
  assert all(s["native"] for s in stats) and 0 < sum(s["in_python"] for s in stats) <= len(one.states)


def test_both_shards_own_states_and_the_records_cross():
  ex = explore(sum_of_add0(0, 7), ZERO, cluster=CLUSTER).run()
  owners = [sum(len(r["ids"]) for lv in ex.outcome.levels() for r in lv[j:j + 1]) for j in range(2)]
  assert len(ex.states) == 128 and min(owners) > 20, owners   # fingerprints mod 2 split the states


def test_search_on_the_cluster_finds_what_one_process_finds():
  p0 = UOp.param(0)
  prog = (p0 + 2) * 3 + (UOp.const(1) + 4)
  a, b = search(prog, "add(mul(p0, 3), ?c)", symbolic), search(prog, "add(mul(p0, 3), ?c)", symbolic, cluster=CLUSTER)
  assert (b.found, b.graph, b.length, b.searched, [e.target.id for e in b.path]) == \
         (a.found, a.graph, a.length, a.searched, [e.target.id for e in a.path]) == (True, a.graph, 3, 25, [e.target.id for e in a.path])
  a, b = search(prog, "mul(_, _)", symbolic, max_depth=1), search(prog, "mul(_, _)", symbolic, max_depth=1, cluster=CLUSTER)
  assert (b.found, b.searched, b.bound) == (a.found, a.searched, a.bound)


@pytest.mark.parametrize("target", ["add(mul(p0, 3), ?c)", "add(_, _)", "mul(?x, ?x)", UOp.param(0) * 3])
def test_a_target_matches_the_same_once_sent_to_a_worker(target):
  # the shards match each new state; a copied pattern lost its sentinels and matched nothing
  from ray import cloudpickle

  from uopc.relational.logic.target import Target
  p0 = UOp.param(0)
  t = Target.of(target)
  sent = pickle.loads(cloudpickle.dumps(t))
  for g in (p0 * 3 + 4, p0 * p0, p0 * 3, p0 + 1):
    assert sent.match(g) == t.match(g)
  assert any(t.match(g) is not None for g in (p0 * 3 + 4, p0 * p0, p0 * 3))


def test_a_rules_file_is_shipped_to_the_workers(tmp_path):
  path = tmp_path / "cluster_rules_shipped.py"
  path.write_text(textwrap.dedent("""\
    from uopc import PatternMatcher, UPat
    x, y = UPat.var("x"), UPat.var("y")
    def swap(x, y): return y + x
    rules = PatternMatcher([(x + 0, lambda x: x), (x + y, swap)])
    """))
  pm = resolve_rules(f"{path}:rules")
  one_and_cluster(sum_of_add0(0, 3), pm, max_states=None)


def test_a_rules_file_the_workers_cannot_load_is_one_line(tmp_path, monkeypatch):
  (tmp_path / "cluster_helper_elsewhere.py").write_text("def keep(x): return x\n")
  monkeypatch.syspath_prepend(str(tmp_path))   # importable here, not on the workers
  path = tmp_path / "cluster_rules_helper.py"
  path.write_text("from uopc import PatternMatcher, UPat\nimport cluster_helper_elsewhere as h\n"
                  "rules = PatternMatcher([(UPat.var('x') + 0, lambda x: h.keep(x))])\n")
  pm = resolve_rules(f"{path}:rules")
  with pytest.raises(ClusterError) as e: explore(sum_of_add0(0, 2), pm, cluster=CLUSTER).run()
  assert "\n" not in str(e.value) and "does not load on the worker" in str(e.value) and "cluster_helper_elsewhere" in str(e.value)
  sys.modules.pop("cluster_helper_elsewhere", None)


def kill_now(actor) -> None:
  """``ray.kill``, and wait until the actor is dead: a call made just after must meet a dead worker."""
  ray.kill(actor)
  for _ in range(200):
    try: ray.get(actor.__ray_ready__.remote(), timeout=30)
    except ray.exceptions.RayActorError: return
    time.sleep(0.05)
  raise AssertionError("ray.kill did not kill the actor")


def light(ex: ClusterExploration) -> bool:
  """True where every record the coordinator holds of the run is a light one."""
  return all(is_light(unpack(b)) for refs in ex.outcome.records for b in ray.get(refs))


def made_here(monkeypatch) -> list[int]:
  """Counts the shards whose records are made again in this process (``coordinator.replayed``)."""
  from uopc.relational.cluster import coordinator
  made: list[int] = []
  real = coordinator.replayed
  monkeypatch.setattr(coordinator, "replayed", lambda *a: (made.append(a[-2]), real(*a))[1])
  return made


def test_a_shard_killed_mid_level_is_replaced_and_the_result_is_the_same():
  g = sum_of_add0(0, 6)
  killed: list[str] = []

  def kill(depth, phase, actors):
    if depth == 3 and phase in ("absorb", "commit") and phase not in killed:   # one kill in each of two phases
      killed.append(phase)
      kill_now(actors[len(killed) - 1])
  one = explore(g, ZERO, max_states=None)
  many = ClusterExploration(g, ZERO, cluster=CLUSTER, max_states=None, kill=kill)
  assert counted(many) == counted(one) and light(many)   # (the replacements made their levels again from light records)
  assert snapshot(many) == snapshot(one)
  assert killed == ["absorb", "commit"] and many.outcome.revived == 2


@pytest.mark.parametrize("phase", ["absorb", "commit"])   # (a level's expansion is in the last commit's call)
def test_a_shard_killed_where_its_delta_streams_refer_back_is_replaced_and_the_result_is_the_same(phase):
  # under commutativity every level's batches refer to rows sent at earlier levels (codec.Deltas): the replacement reads
  # again what the dead one had read (its records keep it), and its own streams start again
  from tests.test_relational_native_drive import COMM
  g = sum(((UOp.param(i) + 0) for i in range(1, 4)), UOp.param(0) + 0)
  killed: list[int] = []

  def kill(depth, at, actors):
    if at == phase and depth in (2, 4) and depth not in killed:
      killed.append(depth)
      kill_now(actors[len(killed) % 2])
  one = explore(g, COMM, max_states=None)
  many = ClusterExploration(g, COMM, cluster=CLUSTER, max_states=None, kill=kill)
  assert counted(many) == counted(one) and light(many)
  assert snapshot(many) == snapshot(one)
  assert killed == [2, 4] and many.outcome.revived == 2


def test_workers_lost_for_good_end_the_run_with_what_the_finished_levels_found(monkeypatch):
  g = sum_of_add0(0, 6)
  made = made_here(monkeypatch)

  def kill(depth, phase, actors):
    if depth >= 2: kill_now(actors[0])   # every replacement dies too
  many = ClusterExploration(g, ZERO, cluster=CLUSTER, max_states=None, kill=kill).run()
  one = explore(g, ZERO, max_states=None).run()
  n, deepest = len(many.states), many.states[-1].depth
  assert many.bound == "workers_lost" and not many.complete and many.outcome.revived == 3   # then shard 0 was lost for good
  assert deepest >= 2 and n == sum(1 for s in one.states if s.depth <= deepest) < len(one.states)   # whole levels, the first ones
  assert [s.graph for s in many.states] == [s.graph for s in one.states[:n]]
  assert all(s.normal is None for s in many.states if s.depth == deepest)   # the level being expanded when it was lost
  assert [s.parent.id for s in many.states[1:]] == [s.parent.id for s in one.states[1:n]]
  assert made == [0]   # (shard 0's records made again here from its light ones; shard 1's worker wrote its own)


def test_a_timeout_ends_the_run_between_levels_with_whole_levels(monkeypatch):
  # the deadline passes at the third check between levels, however fast the levels go (not after a second of them)
  from uopc.relational.cluster.coordinator import Coordinator
  checks: list[float] = []
  real = Coordinator._stop_reason
  def deadline_passed_at_the_third_check(self, summaries, deadline):
    checks.append(deadline)
    return real(self, summaries, float("-inf") if len(checks) >= 3 else deadline)
  monkeypatch.setattr(Coordinator, "_stop_reason", deadline_passed_at_the_third_check)
  g = sum_of_add0(0, 8)   # under symbolic: reassociation makes millions of states
  many = explore(g, symbolic, cluster=CLUSTER, max_states=None, timeout=600).run()
  n, deepest = len(many.states), many.states[-1].depth
  assert len(checks) == 3 and deepest == 2   # levels 0 and 1 expanded, depth 2 the frontier the third check left
  one = explore(g, symbolic, max_states=n + 1, max_depth=deepest).run()
  assert many.bound == "timeout" and n == sum(1 for s in one.states if s.depth <= deepest) > 1
  assert [s.graph for s in many.states] == [s.graph for s in one.states[:n]]
  assert all(s.normal is None for s in many.states if s.depth == deepest)   # the frontier a timeout left


def test_the_cluster_tells_its_limits_when_its_start_up_ends_and_its_search_begins():
  """``Limits.phase``: a command's ``--timeout`` counts the search, not Ray's start nor the shards' loading (uopc.cli.budget)."""
  from uopc.limits import Limits
  class Phases(Limits):
    def __init__(self) -> None: self.told: list[str] = []
    def phase(self, name: str) -> None: self.told.append(name)
  limits = Phases()
  many = explore(sum_of_add0(0, 2), symbolic, cluster=CLUSTER, limits=limits).run()
  assert many.complete and limits.told == ["start-up", "search"]


def test_options_the_cluster_does_not_run_are_refused():
  with pytest.raises(ValueError, match="breadth first"): explore(UOp.param(0) + 0, symbolic, cluster=CLUSTER, order="dfs")
  with pytest.raises(ClusterError, match="local:N"): explore(UOp.param(0) + 0, symbolic, cluster="local:0").run()


# ---- the command line (in this process: it uses the module's cluster)

def uopc(capsys, *argv) -> tuple[int, str, str]:
  from uopc.cli.main import main
  code = main([str(a) for a in argv])
  out, err = capsys.readouterr()
  return code, re.sub(r"\d+\.\d+ s\b", "T s", out), err


@pytest.mark.parametrize("argv", [("reachable",), ("reachable", "--format", "json"), ("normal-forms", "--no-reduce"),
                                  ("normal-forms", "--no-reduce", "--max-states", "9"), ("reachable", "--max-depth", "1"),
                                  ("search", "--target", "add(p1, ?x)"), ("search", "--target", "mul(_, _)", "--all")])
def test_the_commands_print_the_same_with_and_without_cluster(capsys, tmp_path, argv):
  prog = tmp_path / "s.uir"
  prog.write_text(SUM)
  one = uopc(capsys, "explore", argv[0], prog, *argv[1:])
  many = uopc(capsys, "explore", argv[0], prog, *argv[1:], "--cluster", CLUSTER)
  if "json" in argv: one, many = [(c, re.sub(r'"elapsed": [0-9.]+', "", o), e) for c, o, e in (one, many)]
  assert many == one and one[1].count("\n") > 3


@pytest.mark.parametrize("argv", [("reachable",), ("normal-forms", "--no-reduce"), ("reachable", "--max-states", "6"),
                                  ("search", "--target", "mul(_, _)", "--all")])
def test_stuck_states_print_the_same_with_and_without_cluster(capsys, tmp_path, argv):
  # a rule that raises: stuck states streamed from the records, counted and listed from the shards' reports
  prog, rules = tmp_path / "s.uir", tmp_path / "raising.py"
  prog.write_text(SUM)
  rules.write_text(textwrap.dedent("""\
    from uopc import Ops, PatternMatcher, UPat
    def boom(x): raise ValueError("no MUL today")
    rules = PatternMatcher([(UPat(Ops.MUL, name="x"), boom), (UPat.var("x") + 0, lambda x: x)])
    """))
  one = uopc(capsys, "explore", argv[0], prog, *argv[1:], "--rules", f"{rules}:rules")
  many = uopc(capsys, "explore", argv[0], prog, *argv[1:], "--rules", f"{rules}:rules", "--cluster", CLUSTER)
  assert many == one and "no MUL today" in one[1] and one[0] == 1


@pytest.mark.parametrize("argv, message", [
  (("reachable", "--cluster", "local:0"), "argument --cluster: expected local:N"),
  (("reachable", "--cluster", "local:2", "--dfs"), "not with --dfs"),
  (("normal-forms", "--cluster", "local:2"), "give --no-reduce"),
  (("search", "--to-term", "p0", "--cluster", "local:2"), "--cluster does not apply to --to-term")])
def test_what_the_cluster_does_not_run_is_one_line_and_exit_2(capsys, tmp_path, argv, message):
  prog = tmp_path / "s.uir"
  prog.write_text(SUM)
  try: code, out, err = uopc(capsys, "explore", argv[0], prog, *argv[1:])
  except SystemExit as e: code, (out, err) = e.code, capsys.readouterr()
  assert (code, out) == (2, "") and message in err and err.count("\n") == 1


CALLS_PAST_LEVEL_0 = 100   # rule calls: the program's level makes 8 (one per x + 0), so the levels after it have begun


def test_ctrl_c_stops_the_cluster_and_prints_the_partial_result_marked_incomplete(tmp_path):
  # its own local cluster, in a command of its own: SIGINT once the workers are past the program's level (their rule calls
  # say so, a byte each: the program has 8 redexes of x + 0), not after a fixed sleep that a busy machine may not fill
  n = 8
  rows = [f"%{2 * i} = param : slot={i} dtype=i32\n%{2 * i + 1} = add %{2 * i}, 0" for i in range(n)]
  rows += [f"%{2 * n + k - 1} = add %{1 if k == 1 else 2 * n + k - 2}, %{2 * k + 1}" for k in range(1, n)]
  (tmp_path / "big.uir").write_text("\n".join(rows) + "\n")   # (p0 + 0) + ... + (p7 + 0) under symbolic: millions of states
  started = tmp_path / "started"
  (tmp_path / "rules.py").write_text(textwrap.dedent(f"""\
    from uopc import PatternMatcher, UPat, symbolic
    def mark(x):
      with open({str(started)!r}, "a") as f: f.write(".")
    rules = PatternMatcher([(UPat.var("x") + 0, mark)] + symbolic.rules)
    """))
  p = subprocess.Popen([sys.executable, "-m", "uopc", "explore", "normal-forms", str(tmp_path / "big.uir"), "--no-reduce", "--rules",
                        f"{tmp_path / 'rules.py'}:rules", "--cluster", "local:2", "--max-states", "10000000", "--timeout", "300", "--samples", "0"],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
  deadline = time.monotonic() + 120
  while (not started.exists() or started.stat().st_size < CALLS_PAST_LEVEL_0) and p.poll() is None and time.monotonic() < deadline:
    time.sleep(0.05)
  p.send_signal(signal.SIGINT)
  out, err = p.communicate(timeout=120)
  explored = re.search(r"explored (\d+) states, \d+ edges: incomplete: stopped by an interrupt \(SIGINT\)", out)
  assert p.returncode == 130 and explored is not None and int(explored[1]) > 1, (out, err)
  assert "an interrupt (SIGINT)" in err and "Traceback" not in err


def test_a_shard_that_forgets_its_fingerprints_mid_level_sends_the_same(monkeypatch):
  # past its limit a shard's fingerprint memo forgets every node but the program's, also between making a batch's
  # fingerprints and encoding it: the batch makes them again (it raised KeyError)
  from uopc.relational.cluster.codec import Codec
  from uopc.relational.space.fingerprint import Fingerprints
  g = sum_of_add0(0, 5)
  fps, few = Fingerprints(), Fingerprints(limit=3)
  codec = Codec(list(g.toposort()))
  graphs = [s.graph for s in explore(g, ZERO, max_states=None).run().states]
  for h in graphs: few.of(h)   # each past the limit: the memo was cleared many times
  assert codec.encode(graphs, few).fps == codec.encode(graphs, fps).fps and len(codec.encode(graphs, fps).fps) > 16 * 10


def test_a_local_cluster_a_run_starts_lives_as_long_as_its_exploration():
  # its shards keep the records the reports read; Ray keeps the frames that started it, which must not keep the exploration
  script = textwrap.dedent("""\
    import gc
    gc.disable()   # by reference counts alone
    import ray
    from uopc import UOp, symbolic
    from uopc.relational import explore
    ex = explore((UOp.param(0) + 0) * 1, symbolic, cluster="local:2")
    print(len(ex.normal_forms), ex.state_count, ray.is_initialized())
    del ex
    print(ray.is_initialized())
    """)
  p = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, timeout=300)
  assert p.stdout.split() == ["1", "7", "True", "False"], (p.stdout, p.stderr[-2000:])


def test_a_shard_that_forgets_its_memos_every_level_finds_the_same_states(monkeypatch):
  # in this process, one shard of one: past its limit a shard forgets its fingerprints and its stepper's memo at a
  # level's end (their nodes may go); here at every level, and it makes the same states with the same parents

  from uopc.relational.cluster import shard
  from uopc.relational.space import fingerprint
  from uopc.relational.cluster.codec import Codec
  from uopc.relational.cluster.coordinator import ship
  monkeypatch.setattr(shard, "FINGERPRINTS_KEPT", 4)
  forgot = []
  monkeypatch.setattr(fingerprint.Fingerprints, "forget", lambda self: (forgot.append(1), self.memo.clear(), self.memo.update(self.kept)))
  g, pm = (UOp.param(0) + 0) * 1 + (UOp.param(1) * 1 + 0) * 1, symbolic
  one = explore(g, pm, max_states=None).run()
  sh = shard.Shard()
  assert sh.load(0, 1, Codec([]).encode([g]), ship(pm, "the rules"), None) is None
  sh.start()
  count, depth, made = 1, 0, {0: g}
  while len(sh.frontier.ids):
    sh.expand(depth, False)
    keys = sh.absorb(None)
    sh.commit(count, None, keys)   # numbered in one process's order: by parent, then position
    par = keys[0]
    made.update(sh.frontier.pairs())
    count, depth = count + len(par), depth + 1
  assert len(forgot) >= depth - 1 > 3
  assert [made[i] for i in range(count)] == [s.graph for s in one.states]


# ---- a cluster of one worker: its records are light ones (uopc/relational/cluster/deferred.py: the arguments to make its
# levels again), its full records written when a report asks; a worker killed mid-level makes its levels again, a worker
# gone for good (or serving a later run) is made again in this process

ONE = "local:1"


def one_and_one_worker(g: UOp, pm, native: bool = True, **bounds) -> ClusterExploration:
  """One process's exploration and one worker's, equal in everything they report, the worker's records light: first what
  the shard answers where it is, then every state streamed and built here from the full records its worker writes."""
  one = explore(g, pm, **bounds)
  many = ClusterExploration(g, pm, cluster=ONE, native=native, **bounds)
  assert counted(many) == counted(one)
  assert light(many) and not many._materialized and many.outcome.lean is not None
  assert [s.id for s in many.iter_ahead()] == list(range(len(one.states)))
  assert snapshot(many) == snapshot(one) and graph_facts(many) == graph_facts(one)
  assert [[s.id for s in c.states] for c in terminal_cycles(many)] == [[s.id for s in c.states] for c in terminal_cycles(one)]
  return many


@settings(max_examples=6, deadline=None)
@given(graphs(max_ops=7), st.sampled_from(sorted(RULESETS)),
       st.sampled_from([{"max_states": 400}, {"max_states": 7}, {"max_states": 1}, {"max_depth": 0}, {"max_depth": 2}]))
def test_random_programs_explore_the_same_on_one_worker(g, name, bounds):
  one_and_one_worker(g, RULESETS[name], **bounds)


@pytest.mark.parametrize("native", [True, False])
def test_one_worker_on_either_core_with_cycles_stuck_states_and_cuts(native):
  from uopc import Ops, PatternMatcher, UPat
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


def test_a_cluster_runs_bar_counts_the_levels_and_stays_off_stdout(capsys, tmp_path, monkeypatch):
  # the states reach the command only as the run ends: its bar is told each level's count (Coordinator's progress)
  import io
  import sys
  from uopc.cli import support
  class TTY(io.StringIO):
    def isatty(self): return True
  monkeypatch.setattr(support, "PROGRESS_DELAY", 0)
  monkeypatch.setattr(support, "PROGRESS_INTERVAL", 0)   # (every update drawn)
  prog = tmp_path / "s.uir"
  prog.write_text(SUM)
  monkeypatch.setattr(sys, "stderr", tty := TTY())
  code, out, _ = uopc(capsys, "explore", "normal-forms", prog, "--no-reduce", "--cluster", CLUSTER)
  one = explore(parse_uir(SUM), symbolic, max_states=None)
  levels = {sum(s.depth <= d for s in one.states) for d in range(max(s.depth for s in one.states) + 1)}
  drawn = [int(n) for n in re.findall(r"exploring:.*?\| *(\d+)/", tty.getvalue())]   # (tqdm may skip a draw: not every level)
  assert code == 0 and "exploring:" not in out and drawn == sorted(drawn) and len(set(drawn) & levels) >= 3
  assert set(drawn) <= levels | {0}
