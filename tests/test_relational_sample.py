"""``uopc.relational.analyses.sample``: sampled normal forms are real, replay, come from the full space, and repeat by seed."""
from hypothesis import given, settings
from hypothesis import strategies as st

from uopc import PatternMatcher, UOp, UPat, fold, parse_uir, symbolic
from uopc.cli.budget import LIMITS, Budget
from uopc.relational.analyses.replay import replay
from uopc.relational.analyses.sample import Sample, sample_normal_forms
from uopc.relational.space.step import stepper_for
from uopc.relational.space.stream import Exploration
from tests.strategies import arith_programs, graphs
from tests.test_explore_pairs_cli import ROOT


def full_normal_forms(prog: UOp, pm) -> set[UOp] | None:
  ex = Exploration(prog, pm, max_states=20_000).run()   # every graph (no reduction)
  return {s.graph for s in ex.normal_forms} if ex.complete else None


def check_sample(prog: UOp, pm, seed: int) -> None:
  s = sample_normal_forms(prog, pm, seed=seed, max_runs=40, max_steps=500)
  full = full_normal_forms(prog, pm)
  stepper = stepper_for(pm)
  for f in s.forms:
    assert stepper.is_normal(f.graph)                      # no step leaves it, not even a failing one
    assert replay(prog, f.path(), pm) is f.graph           # its path is a real rewrite sequence, checked without the stepper
    assert full is None or f.graph in full                 # and one of the normal forms of full enumeration
  assert s.runs == 40


@settings(max_examples=60, deadline=None)
@given(arith_programs(max_ops=4), st.integers(0, 3))
def test_sampled_forms_are_among_full_enumeration_symbolic(prog, seed):
  check_sample(prog, symbolic, seed)


@settings(max_examples=40, deadline=None)
@given(graphs(max_ops=6), st.integers(0, 3))
def test_sampled_forms_are_among_full_enumeration_on_random_graphs(prog, seed):
  check_sample(prog, symbolic, seed)
  check_sample(prog, fold, seed)


def test_five_params_all_sixteen_forms_and_the_same_ones_for_a_seed():
  prog = parse_uir((ROOT / "examples" / "five_params.uir").read_text())
  a = sample_normal_forms(prog, symbolic, seed=0, max_runs=2_000, patience=None)
  b = sample_normal_forms(prog, symbolic, seed=0, max_runs=2_000, patience=None)
  assert len(a.forms) == 16 and a.runs == 2_000 and a.bound is None   # the program has 16 (a full exploration: 488,511 states)
  assert [f.graph for f in a.forms] == [f.graph for f in b.forms] and a.found_at == b.found_at
  assert [len(f.path()) for f in a.forms] == [len(f.path()) for f in b.forms]
  c = sample_normal_forms(prog, symbolic, seed=1, max_runs=2_000, patience=None)
  assert {f.graph for f in c.forms} == {f.graph for f in a.forms} and c.found_at != a.found_at


def test_patience_stops_when_runs_find_nothing_new():
  p0 = UOp.param(0)
  s = sample_normal_forms((p0 + 0) * 1, symbolic, patience=100)
  assert [f.term() for f in s.forms] == ["p0"] and s.runs == 101 and s.bound is None   # run 1 found it, 100 more nothing


def test_a_stuck_run_is_no_normal_form_and_a_loop_is_cut():
  from uopc import PatternMatcher, UPat
  from uopc.ops import Ops
  def boom(x): raise ValueError("no")
  pm = PatternMatcher([(UPat.var("x") + 0, boom)])
  s = sample_normal_forms(UOp.param(0) + 0, pm, max_runs=5)
  assert s.forms == [] and s.stuck == 5
  swap = PatternMatcher([(UPat(Ops.ADD, src=(UPat.var("a"), UPat.var("b"))), lambda a, b: b + a)])
  s = sample_normal_forms(UOp.param(0) + UOp.param(1), swap, max_runs=3, max_steps=20)
  assert s.forms == [] and s.cut == 3


def test_a_budget_stops_the_runs_and_keeps_what_they_found():
  prog = parse_uir((ROOT / "examples" / "five_params.uir").read_text())
  out = Sample(0)
  with Budget(timeout=60, max_memory=None) as b:
    sample_normal_forms(prog, symbolic, max_runs=50, into=out, limits=LIMITS)
    found = len(out.forms)
    b.hit("timeout")
    sample_normal_forms(prog, symbolic, max_runs=100, into=out, limits=LIMITS)
  assert found > 0 and len(out.forms) == found and out.runs == 50 and out.bound == "timeout"
  with Budget(timeout=None, max_memory=None) as b:   # no tick: nothing raised into the runs
    b.hit("timeout")
    unbounded = sample_normal_forms(prog, symbolic, max_runs=5)   # the budget is the command's: passed in, never read
  assert unbounded.runs == 5 and unbounded.bound is None


def test_max_graphs_bounds_the_runs_by_their_work_between_runs():
  # a count of the graphs the runs' steps made (every successor of every graph a run goes through): the same on any machine
  prog = parse_uir((ROOT / "examples" / "five_params.uir").read_text())
  s = sample_normal_forms(prog, symbolic, max_graphs=20_000, patience=None)
  again = sample_normal_forms(prog, symbolic, max_graphs=20_000, patience=None)
  assert s.graphs >= 20_000 and s.max_graphs == 20_000 and s.bound is None and s.runs < 200
  assert (s.runs, s.graphs, [f.graph for f in s.forms]) == (again.runs, again.graphs, [f.graph for f in again.forms])
  fewer = sample_normal_forms(prog, symbolic, max_runs=s.runs - 1, patience=None)
  assert fewer.graphs < 20_000   # the last run is the one that passed the count: it stops between runs


def test_a_call_whose_body_loses_its_param_replays_as_the_stepper_took_it():
  """``call[a](a)``, ``a = where(False, p0, False)``: the step rewrites ``a`` in the argument, and the body, which would
  lose its PARAM, stays as written (as the engine's rebuild keeps it); replay substituting everywhere built an ill-typed CALL."""
  from uopc import UOp
  from uopc.dtype import dtypes
  from uopc.ops import Ops
  a = UOp(Ops.WHERE, (UOp.const(False), UOp.param(0, dtypes.bool), UOp.const(False)))
  check_sample(a.call(a), symbolic, 0)


def test_progress_is_told_after_each_run_what_the_runs_made_so_far():
  # a command's progress bar reads it (uopc/cli/reports/sampled.py): runs one by one, graphs only growing
  x, y = UPat.var("x"), UPat.var("y")
  pm = PatternMatcher([(x + y, lambda x, y: y + x)])
  g = UOp.param(0) + UOp.param(1) + UOp.param(2)
  seen: list[tuple[int, int]] = []
  s = sample_normal_forms(g, pm, seed=1, max_runs=5, patience=None, max_steps=20, progress=lambda s: seen.append((s.runs, s.graphs)))
  assert [r for r, _ in seen] == [1, 2, 3, 4, 5] and s.runs == 5 and seen[-1][1] == s.graphs
  assert all(a < b for (_, a), (_, b) in zip(seen, seen[1:])) and seen[0][1] > 0
