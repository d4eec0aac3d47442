"""The ``--format html`` viewer (``explore/static/viewer.js``) in a real browser: headless Chromium.

Each test writes a page with the CLI, opens it, acts as a user would (clicks a state,
moves a step slider, types in the search box) and checks what the page shows against
the JSON the same command prints. Any console error fails the test. Without Chromium
these tests fail (``tests/browser.py``): they are never skipped.
"""
import json
from pathlib import Path

import pytest

from tests.browser import chromium, console_errors
from tests.helpers import SUM_UIR as SUM
from uopc.cli import main
from uopc.relational.space.saved import NodeTexts

ROOT = Path(__file__).resolve().parent.parent
EX = ROOT / "examples"


@pytest.fixture(scope="module")
def driver():
  d = chromium()
  yield d
  d.quit()


def page_and_json(capsys, tmp_path, argv):
  """Write the page of ``uopc ARGV`` and return (its path, the JSON the command prints)."""
  main([*argv, "--format", "json"])
  data = json.loads(capsys.readouterr().out)
  if data.get("format") == 2:   # each state's term as the Python loader reads it back: what the page must show
    text = NodeTexts(data["nodes"])
    for s in data["states"]: s["term"] = text(s["graph"])
    terms = {s["id"]: s["term"] for s in data["states"]}
    for steps in data.get("paths", {}).values():
      for e in steps: e.update(before=terms[e["from"]], after=None if e["error"] else terms[e["to"]])
  out = tmp_path / "page.html"
  main([*argv, "--format", "html", "-o", str(out)])
  capsys.readouterr()
  return out, data


def open_page(driver, path):
  from selenium.webdriver.common.by import By
  from selenium.webdriver.support.ui import WebDriverWait
  driver.get(path.as_uri())
  WebDriverWait(driver, 10).until(lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-ready") == "1")
  assert console_errors(driver) == []


def css(driver, selector):
  from selenium.webdriver.common.by import By
  return driver.find_elements(By.CSS_SELECTOR, selector)


def slide_to(driver, slider, k):
  """Move a range input to step k with the keyboard, as a user would (each key fires ``input``)."""
  from selenium.webdriver.common.keys import Keys
  slider.send_keys(Keys.HOME)
  for _ in range(k - 1): slider.send_keys(Keys.ARROW_RIGHT)


@pytest.fixture
def exploration(capsys, tmp_path):
  prog = tmp_path / "sum.uir"
  prog.write_text(SUM)
  return page_and_json(capsys, tmp_path, ["explore", "normal-forms", str(prog)])


def test_the_program_and_every_normal_form_are_text_in_the_page(driver, exploration):
  path, data = exploration
  open_page(driver, path)
  text = css(driver, "body")[0].text
  assert data["program"] in text and len(data["normal_forms"]) == 2
  assert [e.text for e in css(driver, ".nf")] == data["normal_forms"]
  assert console_errors(driver) == []


def test_clicking_a_state_shows_its_term_dag_and_path(driver, exploration):
  path, data = exploration
  open_page(driver, path)
  nf = data["normal_form_ids"][1]
  css(driver, '#overview .nf')[1].find_element("xpath", "..").find_element("css selector", f'[data-state="{nf}"]').click()
  state = next(s for s in data["states"] if s["id"] == nf)
  assert css(driver, "#inspector .selected-term")[0].text == state["term"]
  assert css(driver, "#inspector h2")[0].text == f"state #{nf}"
  # the DAG: one box per distinct subterm (p0 and p1 each drawn once), the step's result highlighted
  assert len(css(driver, "#inspector svg.dag")[0].find_elements("css selector", "g")) == 3   # add(p1, p0): add, p1, p0
  # the path from the program: one chip per state on it, and a slider over its steps
  steps = data["paths"][str(nf)]
  assert len(css(driver, "#inspector .stepslider")) == 1 and len(steps) == state["depth"]
  assert console_errors(driver) == []


def test_the_step_slider_walks_the_path(driver, exploration):
  path, data = exploration
  open_page(driver, path)
  nf = data["normal_form_ids"][0]
  css(driver, f'#overview [data-state="{nf}"]')[0].click()
  steps = data["paths"][str(nf)]
  slider = css(driver, "#inspector .stepslider")[0]
  for k in (len(steps), 2, 1):
    slide_to(driver, slider, k)
    info = css(driver, "#inspector .stepinfo")[0].text
    assert info.startswith(f"step {k} of {len(steps)}: {steps[k - 1]['rule']}")
    assert css(driver, "#inspector .stepper .before")[0].text == steps[k - 1]["before"]
    assert css(driver, "#inspector .stepper .after")[0].text == steps[k - 1]["after"]
    assert len(css(driver, "#inspector .stepper svg.dag .hl")) >= 1   # the rewritten node, highlighted
  assert console_errors(driver) == []


def test_the_search_box_and_the_rule_filter(driver, exploration):
  from selenium.webdriver.support.ui import Select
  path, data = exploration
  open_page(driver, path)
  box = css(driver, "#search")[0]
  box.send_keys("add(p1, ?x)")   # a pattern with a hole: the states with a subterm of that shape
  want = [s for s in data["states"] if has_subterm(s["term"], "add(p1, ?x)")]
  assert 0 < len(want) < len(data["states"])
  assert css(driver, "#search-results .muted")[0].text.startswith(f"{len(want)} matching state")
  assert [r.text.split(" ", 1)[1] for r in css(driver, "#search-results .row")] == [s["term"] for s in want]
  box.clear()
  box.send_keys("mul(p0")   # plain text: a substring
  assert css(driver, "#search-results .muted")[0].text.startswith(f"{sum('mul(p0' in s['term'] for s in data['states'])} matching")
  box.send_keys("\b" * 6)
  rule = data["states"][1]["rule"]
  Select(css(driver, "#rule-filter")[0]).select_by_value(rule)
  assert css(driver, "#search-results .muted")[0].text.startswith(f"{sum(s['rule'] == rule for s in data['states'])} matching")
  assert console_errors(driver) == []


def has_subterm(term, pattern):
  """The oracle: Python's own term parser and matcher (``uopc.termparse``) on every node of the graph."""
  from uopc.termparse import parse_term
  pat = parse_term(pattern)
  return any(pat.match(u) is not None for u in parse_term(term).to_uop().toposort())


def test_a_pattern_with_the_same_hole_twice_binds_one_node(driver, capsys, tmp_path):
  prog = tmp_path / "twice.uir"
  prog.write_text("%0 = param : slot=0 dtype=i32\n%1 = add %0, %0\n%2 = mul %1, 1\n%3 = param : slot=1 dtype=i32\n%4 = add %0, %3\n"
                  "%5 = add %2, %4\n")
  path, data = page_and_json(capsys, tmp_path, ["explore", "reachable", str(prog)])
  open_page(driver, path)
  css(driver, "#search")[0].send_keys("mul(add(?x, ?x), _)")
  want = [s for s in data["states"] if has_subterm(s["term"], "mul(add(?x, ?x), _)")]
  assert 0 < len(want) < len(data["states"])
  assert [r.text.split(" ", 1)[1] for r in css(driver, "#search-results .row")] == [s["term"] for s in want]
  assert console_errors(driver) == []


def test_depth_groups_open_on_click(driver, exploration):
  path, data = exploration
  open_page(driver, path)
  row = css(driver, '.depthrow[data-depth="2"]')[0]
  at_2 = [s["id"] for s in data["states"] if s["depth"] == 2]
  assert row.text.startswith(f"depth 2: {len(at_2)} states")
  row.click()
  chips = row.find_element("xpath", "..").find_elements("css selector", ".states .chip")
  assert [int(c.get_attribute("data-state")) for c in chips] == at_2
  assert console_errors(driver) == []


def test_order_shows_the_fork_and_both_paths(driver, capsys, tmp_path):
  path, data = page_and_json(capsys, tmp_path, ["explore", "order", str(EX / "fork.uir"), "--rules", f"{EX / 'my_rules.py'}:rules"])
  open_page(driver, path)
  fork = data["forks"][0]
  assert css(driver, "#inspector .fork-term")[0].text == fork["fork_term"]
  befores = [e.text for e in css(driver, "#inspector .stepper .after")]
  assert befores == [fork["canonical_path"][0]["after"], fork["competing_path"][0]["after"]]
  assert console_errors(driver) == []


def test_trace_steps_through_the_canonical_engine(driver, capsys, tmp_path):
  path, data = page_and_json(capsys, tmp_path, ["trace", str(EX / "affine.uir")])
  open_page(driver, path)
  assert css(driver, "#overview .program")[0].text == data["program"] and css(driver, "#overview .result")[0].text == data["result"]
  slider = css(driver, "#inspector .stepslider")[0]
  slide_to(driver, slider, len(data["steps"]))
  assert css(driver, "#inspector .stepper .after")[0].text == data["steps"][-1]["after"] == data["result"]
  assert console_errors(driver) == []


def test_pairs_show_the_witness_and_both_results(driver, capsys, tmp_path):
  path, data = page_and_json(capsys, tmp_path, ["explore", "pairs", "symbolic", "--max-instances", "4"])
  open_page(driver, path)
  rows = css(driver, "#overview tbody tr")
  assert len(rows) == len(data["pairs"]) > 0
  rows[-1].click()
  pair = data["pairs"][-1]
  assert css(driver, "#inspector .witness")[0].text == (pair["witness"] if pair["witness"] is not None else "(none)")
  assert console_errors(driver) == []


def test_a_console_error_is_seen(driver, tmp_path):
  """The check every test relies on: a page whose script throws shows up in ``console_errors``."""
  bad = tmp_path / "bad.html"
  bad.write_text("<!doctype html><script>undefined_function()</script>")
  driver.get(bad.as_uri())
  assert any("undefined_function" in m for m in console_errors(driver))


def test_cycles_are_listed(driver, capsys, tmp_path):
  """x + y -> y + x: add(p0, p1) and add(p1, p0) rewrite to each other, one cycle of two states."""
  (tmp_path / "comm.py").write_text("from uopc import Ops, PatternMatcher, UPat\n"
                                    "rules = PatternMatcher([(UPat(Ops.ADD, src=(UPat.var('x'), UPat.var('y'))), lambda x, y: y + x)])\n")
  prog = tmp_path / "add.uir"
  prog.write_text("%0 = param : slot=0 dtype=i32\n%1 = param : slot=1 dtype=i32\n%2 = add %0, %1\n")
  path, data = page_and_json(capsys, tmp_path, ["explore", "reachable", str(prog), "--rules", f"{tmp_path / 'comm.py'}:rules", "--max-steps", "100"])
  assert len(data["states"]) == 2 and data["normal_forms"] == []
  open_page(driver, path)
  heads = [h.text for h in css(driver, "#overview h2")]
  assert "cycles (1)" in heads
  cycle = [s for s in css(driver, "#overview section") if s.find_element("css selector", "h2").text == "cycles (1)"][0]
  assert [c.text for c in cycle.find_elements("css selector", ".chip")] == ["#0", "#1"]
  assert console_errors(driver) == []


def test_keys_no_view_draws_are_shown(driver, tmp_path):
  from uopc.explore.html import page
  path = tmp_path / "extra.html"
  path.write_text(page({"program": "p0", "rules": "r", "result": "p0", "error": None, "steps": [], "reduced": 42,
                        "cycles": [[1, 2]]}, "trace", "t"))
  open_page(driver, path)
  assert [e.text for e in css(driver, ".extra")] == ["reduced: 42", "cycles: [[1,2]]"]
  assert console_errors(driver) == []


def test_a_state_opens_on_the_step_that_reached_it_and_chips_take_the_keyboard(driver, exploration):
  from selenium.webdriver.common.keys import Keys
  path, data = exploration
  open_page(driver, path)
  nf = data["normal_form_ids"][1]
  chip = css(driver, f'#overview [data-state="{nf}"]')[0]
  chip.send_keys(Keys.ENTER)
  steps = data["paths"][str(nf)]
  assert css(driver, "#inspector h2")[0].text == f"state #{nf}"
  assert css(driver, "#inspector .stepinfo")[0].text.startswith(f"step {len(steps)} of {len(steps)}: {steps[-1]['rule']}")
  assert css(driver, "#inspector .stepper .after")[0].text == steps[-1]["after"]
  assert console_errors(driver) == []


def test_search_all_shows_each_match_with_its_path(driver, capsys, tmp_path):
  path, data = page_and_json(capsys, tmp_path, ["explore", "search", str(EX / "affine.uir"), "--target", "add(?x, ?c)", "--all"])
  open_page(driver, path)
  assert css(driver, "#overview section")[2].text.startswith(f"result\nfound ({len(data['path'])} step")
  heads = [h.text for h in css(driver, "#inspector h2")]
  assert heads == [f"match {k}: {m['graph']}" for k, m in enumerate(data["matches"][:50], 1)] and len(heads) > 1
  assert console_errors(driver) == []


@pytest.mark.parametrize("argv", [
  ["saturate", str(EX / "saturation.uir"), "--rules", f"{EX / 'saturation_rules.py'}:rules"],
  ["explore", "best", str(EX / "only_equal.uir"), "--rules", f"{EX / 'only_equal_rules.py'}:rules"],
])
def test_the_best_graph_pages_show_the_best_graph_its_cost_and_its_path(driver, capsys, tmp_path, argv):
  path, data = page_and_json(capsys, tmp_path, argv)
  open_page(driver, path)
  text = css(driver, "body")[0].text
  assert data["program"] in text and data["best"] in text and f"cost {data['cost']}" in text
  assert len(data["path"] or []) == 0 or css(driver, "input[type=range]")
  assert css(driver, ".extra") == []   # every key of the JSON is drawn by the view
  assert console_errors(driver) == []


def test_a_let_form_term_is_drawn_as_its_dag(driver, capsys, tmp_path):
  prog = tmp_path / "doubling.uir"
  prog.write_text("%0 = param : slot=0 dtype=i32\n%1 = add %0, 0\n%2 = add %1, %1\n%3 = add %2, %2\n")
  path, data = page_and_json(capsys, tmp_path, ["explore", "search", str(prog), "--target", "let a = add(p0, p0) in add(a, a)"])
  assert data["program"] == "let a = add(p0, 0), b = add(a, a) in add(b, b)" and len(data["path"]) == 1
  open_page(driver, path)
  before, after = css(driver, "#inspector .stepper svg.dag")[:2]
  boxes = lambda svg: svg.find_elements("css selector", "g")   # noqa: E731
  # one box per distinct node, the names read back as the nodes they stand for: p0, 0, add(p0, 0), a + a, b + b
  assert len(boxes(before)) == 5 and len(boxes(after)) == 3   # after: p0, add(p0, p0), a + a
  # the rewritten node add(p0, 0) is highlighted before, its replacement p0 after, though the page has both as let terms
  assert [g.text for g in before.find_elements("css selector", "g.hl")] == ["add"]
  assert [g.text for g in after.find_elements("css selector", "g.hl")] == ["p0"]
  assert console_errors(driver) == []
