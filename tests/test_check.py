"""``uopc check`` (issue 39.2): a corpus explored graph by graph, each cause reported once, a baseline, JSON and a page.

The corpus here holds the two tinygrad findings of issue 39: ``fold_divmod_general`` raises ``ZeroDivisionError`` on
``(v*2 + 0) // 5`` (a stuck step of the explorer, in two graphs: one finding, its steps counted), and bottom-up
rewriting loops on ``((10 + v*81) + 233) % 243``.
"""
from __future__ import annotations

import json

import pytest
from tinygrad.uop.ops import Ops, UOp

from tests.browser import chromium
from uopc.cli.main import main
from uopc.corpus.check import check_corpus
from uopc.corpus.format import Entry, Header, write

V = UOp.variable("v", 0, 2)
V31, U = UOp.variable("v", 0, 31), UOp.variable("u", 0, 40)


def _plus_zero_div(x: UOp, d: int) -> UOp:   # built node by node: UOp's own + would fold the 0 away
  return UOp(Ops.FLOORDIV, x.dtype, (UOp(Ops.ADD, x.dtype, (x * 2, UOp.const(0, x.dtype))), UOp.const(d, x.dtype)))


LOOP = ((V * 81 + 10) + 233) % 243
DIVMOD = [_plus_zero_div(V31, 5), _plus_zero_div(U, 7)]
DIVMOD_KEY = "raises|tinygrad:symbolic|symbolic#117 divandmod.py:108 (fold_divmod_general)|ZeroDivisionError"
LOOP_KEY = "loops|tinygrad:symbolic|bottom_up"
BOTTOM_UP_KEY = "raises|tinygrad:symbolic|bottom_up|ZeroDivisionError"
STATES = "1000"   # enough for each graph here (LOOP's space has 672)


def corpus(path, graphs, rules="tinygrad:symbolic"):
  write(path, [Entry("tinygrad", rules, g, where="test") for g in graphs], Header({"tinygrad": "0.14.0"}))
  return str(path)


def test_each_cause_is_one_finding_with_its_counts_and_smallest_example():
  report = check_corpus([Entry("tinygrad", "tinygrad:symbolic", g) for g in [LOOP, *DIVMOD]], max_states=int(STATES))
  assert report.complete and report.checked == 3 and not report.undecided
  by_key = {f.key: f for f in report.findings}
  assert set(by_key) == {DIVMOD_KEY, BOTTOM_UP_KEY, LOOP_KEY}
  raises, loops = by_key[DIVMOD_KEY], by_key[LOOP_KEY]
  assert (raises.kind, raises.engine, raises.error, raises.graphs) == ("raises", "explore", "ZeroDivisionError", 2)
  assert raises.steps >= 2 and "ZeroDivisionError" in raises.example and raises.entry in (1, 2)
  assert (by_key[BOTTOM_UP_KEY].engine, by_key[BOTTOM_UP_KEY].graphs) == ("bottom_up", 2)
  assert (loops.kind, loops.graphs, loops.entry) == ("loops", 1, 0) and "infinite loop" in loops.title
  assert [f.kind for f in report.findings] == ["raises", "raises", "loops"]


def test_without_rules_each_graph_takes_its_own_and_unnamed_ones_are_counted():
  entries = [Entry("tinygrad", "tinygrad:symbolic", LOOP), Entry("tinygrad", "?codegen/x.py:12", DIVMOD[0])]
  report = check_corpus(entries, max_states=int(STATES))
  assert report.checked == 1 and dict(report.skipped) == {"unnamed rule set (give --rules to check these)": 1}
  assert [f.key for f in report.findings] == [LOOP_KEY]


def test_a_bound_stops_the_check_with_what_it_found_marked_incomplete():
  calls = []
  def run(fn):   # the command's bounded(): the second graph is cut short by the bound
    calls.append(1)
    return fn() if len(calls) == 1 else None
  report = check_corpus([Entry("tinygrad", "tinygrad:symbolic", g) for g in [LOOP, *DIVMOD]], max_states=int(STATES), run=run, stop=lambda: None)
  assert not report.complete and report.checked == 1 and [f.key for f in report.findings] == [LOOP_KEY]


def test_a_graph_its_budget_does_not_decide_is_counted_not_failed():
  report = check_corpus([Entry("tinygrad", "tinygrad:symbolic", DIVMOD[1])], max_states=2)
  assert dict(report.undecided) == {"max_states": 1} and report.undecided_examples[0][0] == 0


def test_the_command_prints_one_line_per_cause(tmp_path, capsys):
  path = corpus(tmp_path / "c.jsonl", [LOOP, *DIVMOD])
  assert main(["check", path, "--max-states", STATES]) == 1
  out = capsys.readouterr().out
  assert "checked 3 graphs" in out and "3 findings:" in out
  assert out.count("fold_divmod_general") == 1
  assert "  raises: symbolic#117 divandmod.py:108 (fold_divmod_general) raises ZeroDivisionError: 2 graphs\n" in out
  assert "  loops: graph_rewrite(bottom_up=True) never ends: RuntimeError: infinite loop in fixed_point_rewrite: 1 graph" in out
  assert "    e.g. floordiv(add(mul(v, 2), 0), 5): ZeroDivisionError: integer modulo by zero\n    reproducer: line 3 of the corpus" in out


def test_minimize_gives_each_finding_a_reproducer_of_at_most_five_nodes_and_a_tinygrad_test(tmp_path, capsys):
  path = corpus(tmp_path / "c.jsonl", [LOOP, *DIVMOD])
  assert main(["check", path, "--max-states", STATES, "--minimize", "--format", "json"]) == 1
  findings = {f["key"]: f for f in json.loads(capsys.readouterr().out)["findings"]}
  for key in (DIVMOD_KEY, BOTTOM_UP_KEY, LOOP_KEY):
    f = findings[key]
    assert f["minimized"] is not None and f["minimized"].count("(") + f["minimized"].count(",") + 1 <= 5, f["minimized"]
  assert "graph_rewrite(prog, pm, bottom_up=True)" in findings[LOOP_KEY]["regression"]


def test_a_baseline_fails_only_on_new_findings(tmp_path, capsys):
  base = str(tmp_path / "baseline.json")
  old = corpus(tmp_path / "old.jsonl", [LOOP])
  assert main(["check", old, "--max-states", STATES, "--baseline", base]) == 0   # written: its findings are the known ones
  assert json.loads(open(base).read())["findings"] == [{"key": LOOP_KEY, "title": "graph_rewrite(bottom_up=True) never ends: "
                                                        "RuntimeError: infinite loop in fixed_point_rewrite"}]
  assert main(["check", old, "--max-states", STATES, "--baseline", base]) == 0
  new = corpus(tmp_path / "new.jsonl", [LOOP, DIVMOD[0]])
  capsys.readouterr()
  assert main(["check", new, "--max-states", STATES, "--baseline", base]) == 1
  out = capsys.readouterr().out
  assert "3 findings, 2 new (not in the baseline" in out and "  NEW raises: symbolic#117" in out and "  loops:" in out
  assert main(["check", new, "--max-states", STATES, "--baseline", base, "--update-baseline"]) == 0
  assert main(["check", new, "--max-states", STATES, "--baseline", base]) == 0
  (tmp_path / "bad.json").write_text("[1, 2]")
  capsys.readouterr()
  assert main(["check", new, "--baseline", str(tmp_path / "bad.json")]) == 2
  assert capsys.readouterr().err.count("\n") == 1


def test_bad_input_is_one_line(tmp_path, capsys):
  (tmp_path / "not.jsonl").write_text("hello\n")
  assert main(["check", str(tmp_path / "not.jsonl")]) == 2
  assert main(["check", corpus(tmp_path / "c.jsonl", [LOOP]), "--rules", "tinygrad:nope"]) == 2
  err = capsys.readouterr().err
  assert err.count("\n") == 2 and "not a uopc corpus" in err and "nope" in err


def test_json_holds_every_finding(tmp_path, capsys):
  path = corpus(tmp_path / "c.jsonl", [LOOP, *DIVMOD])
  assert main(["check", path, "--max-states", STATES, "--format", "json"]) == 1
  data = json.loads(capsys.readouterr().out)
  assert data["complete"] is True and data["checked"] == 3 and data["rules"] == "each graph's own"
  assert {f["key"] for f in data["findings"]} == {DIVMOD_KEY, BOTTOM_UP_KEY, LOOP_KEY}
  f = next(f for f in data["findings"] if f["key"] == DIVMOD_KEY)
  assert f["graphs"] == 2 and f["program"].startswith("%0 = ") and f["new"] is None


@pytest.fixture(scope="module")
def driver():
  d = chromium()
  yield d
  d.quit()


def test_the_page_lists_the_findings(tmp_path, driver):
  from selenium.webdriver.common.by import By
  from tests.test_html_browser import open_page
  path = corpus(tmp_path / "c.jsonl", [LOOP, *DIVMOD])
  out = tmp_path / "page.html"
  assert main(["check", path, "--max-states", STATES, "--format", "html", "-o", str(out)]) == 1
  open_page(driver, out)
  rows = driver.find_elements(By.CSS_SELECTOR, "#overview tbody tr")
  assert [r.text.split()[0] for r in rows] == ["raises", "raises", "loops"]
  rows[2].click()
  assert "infinite loop in fixed_point_rewrite" in driver.find_element(By.ID, "inspector").text


def test_an_interrupted_check_prints_what_it_found_marked_incomplete(tmp_path, capsys, monkeypatch):
  import uopc.corpus.check as check
  from uopc.cli import budget
  original, calls = check.check_graph, []

  def bound_on_the_second(*args, **kwargs):   # as --timeout would fall while the second graph is explored
    calls.append(1)
    if len(calls) == 2: budget.current().hit("timeout")
    return original(*args, **kwargs)
  monkeypatch.setattr(check, "check_graph", bound_on_the_second)
  path = corpus(tmp_path / "c.jsonl", [LOOP, *DIVMOD])
  assert main(["check", path, "--max-states", STATES, "--timeout", "600", "--format", "json"]) == 1   # a finding outranks the bound
  data = json.loads(capsys.readouterr().out)
  assert (data["complete"], data["bound"], data["checked"]) == (False, "timeout", 1)
  assert [f["key"] for f in data["findings"]] == [LOOP_KEY]
  calls.clear()
  assert main(["check", path, "--max-states", STATES, "--timeout", "600"]) == 1
  assert "incomplete: stopped by --timeout 600 s after 1 of 3 graphs" in capsys.readouterr().out


def test_a_pytensor_corpus_is_checked_under_its_own_rule_sets(tmp_path):
  import pytensor
  import pytensor.tensor as pt
  from uopc.corpus import load
  from uopc.corpus.capture import capture
  x, y = pt.vector("x"), pt.vector("y")
  with capture(tmp_path / "c.jsonl", which=("pytensor",), say=None):
    pytensor.function([x, y], pt.log(pt.exp(x + y)) * 1 + x - x + pt.maximum(y, 0) * 2)
  entries = load(tmp_path / "c.jsonl")
  assert [e.rules for e in entries] == ["pytensor:canonicalize", "pytensor:stabilize", "pytensor:specialize", "?uncanonicalize"]
  report = check_corpus(entries, max_states=int(STATES))
  assert report.checked == 3 and report.complete and dict(report.skipped) == {"unnamed rule set (give --rules to check these)": 1}
  assert report.states > 3 and all(f.rules.startswith("pytensor:") and f.kind in ("order", "values") for f in report.findings)


def test_a_cycle_with_a_way_out_is_counted_and_with_cycles_a_finding_named_by_a_shortest_cycle():
  from uopc import PatternMatcher, UOp as UopcOp, UPat
  from uopc.relational.analyses.order import diagnose_order
  from uopc.corpus.check import _cycle_rules
  x = UPat.var("x")
  swap = PatternMatcher([(x + 0, lambda x: x), (UPat.var("a") * UPat.var("b"), lambda a, b: b * a)])
  assert _cycle_rules(diagnose_order(UopcOp.param(0) * 2 + 0, swap)) == ["test_check#1 a * b"]
  assert _cycle_rules(diagnose_order(UopcOp.param(0) + 0, swap)) is None
  plain = check_corpus([Entry("tinygrad", "tinygrad:symbolic", LOOP)], max_states=int(STATES))
  assert plain.cyclic == 1 and [f.key for f in plain.findings] == [LOOP_KEY]
  asked = check_corpus([Entry("tinygrad", "tinygrad:symbolic", LOOP)], max_states=int(STATES), cycles=True)
  cycle = [f for f in asked.findings if f.key.startswith("loops|tinygrad:symbolic|explore-cycle|")]
  assert len(cycle) == 1 and cycle[0].title.startswith("some orders never end: a cycle of symbolic#")


def test_uopcs_own_graphs_are_a_corpus_too_and_a_value_difference_is_a_values_finding(tmp_path):
  from uopc import UOp as UopcOp, dtypes
  from uopc.corpus import load
  prog = (UopcOp.const(-0.0) + UopcOp.const(0.0)) * UopcOp.param(0, dtypes.f32)
  write(tmp_path / "u.jsonl", [Entry("uopc", "symbolic", prog)])
  entries = load(tmp_path / "u.jsonl")
  assert entries[0].program is prog
  finding, = check_corpus(entries).findings
  assert (finding.kind, finding.key) == ("values", "values|symbolic|fold-const|add-0")
  assert finding.title == "fold-const (the engine's choice) or add-0 first: semantic" and "different values at p0=" in finding.example


def test_several_processes_give_the_report_one_gives(tmp_path, capsys):
  entries = [Entry("tinygrad", "tinygrad:symbolic", g) for g in [LOOP, *DIVMOD]] + [Entry("tinygrad", "?x.py:1", LOOP)]
  one, two = (check_corpus(entries, max_states=int(STATES), jobs=n) for n in (1, 2))
  assert [f.as_json() for f in one.findings] == [f.as_json() for f in two.findings]
  assert (one.checked, one.states, one.skipped, one.cyclic) == (two.checked, two.states, two.skipped, two.cyclic) == \
         (3, one.states, {"unnamed rule set (give --rules to check these)": 1}, 1)
  path = corpus(tmp_path / "c.jsonl", [LOOP, *DIVMOD])
  assert main(["check", path, "--max-states", STATES, "--jobs", "2", "--format", "json"]) == 1
  assert {f["key"] for f in json.loads(capsys.readouterr().out)["findings"]} == {DIVMOD_KEY, BOTTOM_UP_KEY, LOOP_KEY}
