"""The explorer's defaults answer the same on a busy machine as on an idle one (issue 36): a default run is bounded by counts
of work, the canonical engine's result cut short by a bound says so (and makes the run incomplete), and a looping rule
set fails fast, by its count of rule lookups. None of these tests depends on the machine's speed: the bounds they hit are
counts, or an interrupt the rules send themselves."""
import json

import pytest

from tests.test_explore_pairs_cli import uopc

# x * 2 -> x + x and x + x -> x * 2: the canonical engine goes round forever; the explorer finds the 2-graph cycle
LOOP_RULES = """\
from uopc import PatternMatcher, UPat
rules = PatternMatcher([(UPat.var("x") * 2, lambda x: x + x), (UPat.var("x") + UPat.var("x"), lambda x: x * 2)])
"""
LOOP_UIR = "%0 = param : slot=0 dtype=i32\n%1 = const 2\n%2 = mul %0, %1\n"
# x + 0 -> x, but called by the canonical engine (graph_rewrite) it interrupts the command and never returns: a bound
# that lands in the canonical engine after a complete exploration, whatever the machine's speed
STOP_IN_ENGINE_RULES = """\
import os, signal, sys
from uopc import PatternMatcher, UPat

def in_engine():
  f = sys._getframe(1)
  while f is not None:
    if f.f_code.co_name in ("_rewrite", "_visit_all") and f.f_code.co_filename.endswith("rewrite.py"): return True
    f = f.f_back
  return False

def unit(x):
  if in_engine():
    os.kill(os.getpid(), signal.SIGINT)
    while True: pass
  return x

rules = PatternMatcher([(UPat.var("x") + 0, unit)])
"""
SUM_UIR = "%0 = param : slot=0 dtype=i32\n%1 = const 0\n%2 = add %0, %1\n"


@pytest.fixture
def files(tmp_path):
  for name, text in (("loop.py", LOOP_RULES), ("loop.uir", LOOP_UIR), ("stop.py", STOP_IN_ENGINE_RULES), ("sum.uir", SUM_UIR)):
    (tmp_path / name).write_text(text)
  return tmp_path


@pytest.mark.parametrize("command", ["reachable", "normal-forms", "best"])
def test_a_canonical_result_cut_by_a_bound_says_by_what_and_the_run_is_incomplete(capsys, files, command):
  code, out, err = uopc(capsys, "explore", command, files / "sum.uir", "--rules", f"{files / 'stop.py'}:rules")
  assert "canonical: none (not computed: stopped by an interrupt (SIGINT))" in out and "None" not in out
  assert code == 130 and "stopped by an interrupt (SIGINT)" in err   # not 0: the canonical result is missing


@pytest.mark.parametrize("command", [("explore", "reachable"), ("explore", "normal-forms"), ("explore", "best"), ("saturate",)])
def test_a_canonical_result_cut_by_a_bound_makes_the_json_incomplete(capsys, files, command):
  # the search was complete, the canonical engine was not: the output holds part of what was asked, so it says so
  code, out, _ = uopc(capsys, *command, files / "sum.uir", "--rules", f"{files / 'stop.py'}:rules", "--format", "json")
  data = json.loads(out)
  assert data["canonical"] is None and data["canonical_error"] == "not computed: stopped by an interrupt (SIGINT)"
  assert data["complete"] is False and data["stopped_by"] == "an interrupt (SIGINT)" and code == 130
  assert data.get("bound", "interrupted") == "interrupted"


def test_saturate_cut_before_its_reachability_search_does_not_count_graphs_it_never_searched(capsys, files):
  code, out, _ = uopc(capsys, "saturate", files / "sum.uir", "--rules", f"{files / 'stop.py'}:rules")
  assert "not among the first 0 graphs" not in out and "None" not in out and code == 130
  assert "canonical: none (not computed: stopped by an interrupt (SIGINT))" in out
  assert "reachable: unknown (not searched: stopped by an interrupt (SIGINT))" in out


def test_saturate_names_the_count_its_reachability_search_stopped_at(capsys):
  from tests.test_explore_sampled import FIVE
  code, out, _ = uopc(capsys, "saturate", FIVE, "--max-states", "300")
  assert code == 0 and "reachable: unknown (not among the first 300 graphs; --max-states 300)" in out


@pytest.mark.parametrize("command", ["reachable", "normal-forms", "best", "order"])
def test_a_looping_rule_set_fails_by_the_librarys_count_of_rule_lookups(capsys, files, command):
  # 200,000 + 20 per node (uopc.relational.canonical's), not the 1,000,000 + 100 per node of run/simplify: 5 times faster
  code, out, _ = uopc(capsys, "explore", command, files / "loop.uir", "--rules", f"{files / 'loop.py'}:rules")
  assert "did not reach a fixed point within 200060 rule lookups" in out and "not computed" not in out
  assert code == (1 if command == "order" else 0)   # order: "the canonical engine failed"


def test_saturate_and_the_explorer_take_the_same_max_steps(capsys, files):
  code, out, _ = uopc(capsys, "saturate", files / "loop.uir", "--rules", f"{files / 'loop.py'}:rules")
  assert code == 0 and "did not reach a fixed point within 200060 rule lookups" in out


def test_the_replay_of_a_looping_engine_stops_where_its_cycle_closes(files):
  # order replayed every one of the failed engine's 200,000 firings through the exploration's states, going round
  # the same 2-graph cycle: it stops once the path comes back to a state it has been through
  from uopc import parse_uir
  from uopc.rulesets import resolve_rules
  from uopc.relational.space.engine_path import canonical_path
  from uopc.relational.space.stream import Exploration
  from uopc.trace import record
  prog, pm = parse_uir(LOOP_UIR), resolve_rules(f"{files / 'loop.py'}:rules")
  canonical, error, firings = record(prog, pm)
  assert canonical is None and len(firings) > 100_000
  path = canonical_path(Exploration(prog, pm).run(), pm, firings, canonical, error)
  assert [e.rule for e in path.edges] == ["loop#0 x * 2"] and len(path.states) == 2 and not path.complete
  assert path.note == error


def test_the_default_sampling_is_the_same_runs_every_time(capsys):
  # seeded and counted, never "as many as the time left allows": two default runs print the same forms from the same runs
  from tests.test_explore_sampled import FIVE
  outs = []
  for _ in range(2):
    code, out, _ = uopc(capsys, "explore", "normal-forms", FIVE, "--max-states", "2000", "--format", "json")
    data = json.loads(out)
    outs.append((code, data["sampling"]["runs"], data["sampling"]["graphs"], data["sampling"]["stopped"],
                 [(f["term"], f["run"]) for f in data["sampled_normal_forms"]]))
  assert outs[0] == outs[1] and outs[0][0] == 3 and outs[0][3] == "the runs made 600,000 graphs (the default)" and len(outs[0][4]) == 16


def test_help_says_what_a_default_run_does(capsys):
  for argv in (["explore", "reachable"], ["explore", "search"], ["explore", "best"], ["explore", "order"], ["saturate"]):
    code, out, _ = uopc(capsys, *argv, "--help")
    text = " ".join(out.split())
    assert code == 0 and "a safety net, the counts bound a default run" in text, argv
  code, out, _ = uopc(capsys, "explore", "order", "--help")
  assert "(default: 200,000 + 20 per node)" in " ".join(out.split())


def test_no_doc_says_a_default_run_is_bounded_by_the_clock():
  from pathlib import Path
  root = Path(__file__).resolve().parent.parent
  for doc in [root / "README.md", *sorted((root / "docs").glob("*.md"))]:
    text = " ".join(doc.read_text().split())
    for old in ("explore for half of it", "as time allows", "in the time left", "`--timeout` (default 30 s)", "30 s for `explore`",
                "| `--max-states N` | none |", "| `--timeout S` | 10 |"):
      assert old not in text, (doc.name, old)
