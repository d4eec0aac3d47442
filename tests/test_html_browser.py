"""The ``--format html`` viewer (``uopc/cli/reports/static/viewer.js``) in a real browser: headless Chromium.

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
from uopc.cli.main import main
from uopc.relational.space.saved import NodeTexts, step_texts

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
  if data.get("format") == 2 and not isinstance(data.get("states"), list):   # a path's graphs as terms: what the page shows
    matches = data.get("matches") if isinstance(data.get("matches"), list) else []   # saturate's is a count
    for d in [data, *data.get("forks", []), *matches]:
      for k in ("path", "canonical_path", "competing_path"):
        if d.get(k): d[k] = step_texts(data, d[k])
    if data.get("paths"): data["paths"] = {k: step_texts(data, v) for k, v in data["paths"].items()}
  elif data.get("format") == 2:   # each state's term as the Python loader reads it back: what the page must show
    text = NodeTexts(data["nodes"])
    for s in data["states"]: s["term"] = text(s["graph"])
    terms = {s["id"]: s["term"] for s in data["states"]}
    for steps in data.get("paths", {}).values():
      for e in steps: e.update(before=terms[e["from"]], after=None if e["error"] else terms[e["to"]])
  out = tmp_path / "page.html"
  main([*argv, "--format", "html", "-o", str(out)])
  capsys.readouterr()
  return out, data


def open_page(driver, path, wait=10):
  from selenium.webdriver.common.by import By
  from selenium.webdriver.support.ui import WebDriverWait
  driver.get(path.as_uri())
  WebDriverWait(driver, wait).until(lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-ready") == "1")
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
  # the fork's values in words, and the forks counted by kind next to the verdict: distribute or double, proved equal
  assert css(driver, "#inspector h2")[0].text == f"fork to [{fork['normal_form_index'] + 1}]: syntactic: equal for all inputs (proved by z3)"
  assert css(driver, "#overview .verdict")[0].text.endswith("(1 syntactic (proved))") and data["fork_kinds"]["syntactic"] == 1
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
  assert css(driver, "#overview .verdicts")[0].text == data["summary"]["verdicts_line"]
  bad = next(k for k, p in enumerate(data["pairs"]) if p["verdict"] == "semantic")
  rows[bad].click()
  assert css(driver, "#inspector .verdict")[0].text == "values: semantic: " + data["pairs"][bad]["verdict_detail"]
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


def test_keys_no_view_draws_are_shown_as_text_not_json(driver, tmp_path):
  from uopc.cli.reports.html import page
  path = tmp_path / "extra.html"
  path.write_text(page({"program": "p0", "rules": "r", "result": "p0", "error": None, "steps": [], "reduced": 42,
                        "cycles": [[1, 2]], "why": {"note": "a b", "runs": [{"seed": 1}, None], "seen": []}}, "trace", "t"))
  open_page(driver, path)
  assert [e.text for e in css(driver, ".extra")] == ["reduced: 42", "cycles:\n1, 2", "why:\nnote: a b\nruns:\nseed: 1\nnone\nseen: (none)"]
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
  if "native" in data: assert ("in saturation's C core" if data["native"] else "in the Python loop") in text
  assert css(driver, ".extra") == []   # every key of the JSON is drawn by the view
  assert console_errors(driver) == []


def test_a_let_form_term_is_drawn_as_its_dag(driver, capsys, tmp_path):
  prog = tmp_path / "doubling.uir"
  prog.write_text("%0 = param : slot=0 dtype=i32\n%1 = add %0, 0\n%2 = add %1, %1\n%3 = add %2, %2\n")
  path, data = page_and_json(capsys, tmp_path, ["explore", "search", str(prog), "--target", "let a = add(p0, p0) in add(a, a)"])
  assert data["program"] == "let a = add(p0, 0), b = add(a, a) in add(b, b)" and len(data["path"]) == 1
  open_page(driver, path)
  before, after = css(driver, "#inspector .stepper svg.dag")[:2]
  boxes = lambda svg: svg.find_elements("css selector", "g")
  # one box per distinct node, the names read back as the nodes they stand for: p0, 0, add(p0, 0), a + a, b + b
  assert len(boxes(before)) == 5 and len(boxes(after)) == 3   # after: p0, add(p0, p0), a + a
  # the rewritten node add(p0, 0) is highlighted before, its replacement p0 after, though the page has both as let terms
  assert [g.text for g in before.find_elements("css selector", "g.hl")] == ["add"]
  assert [g.text for g in after.find_elements("css selector", "g.hl")] == ["p0"]
  assert console_errors(driver) == []


def cut(text, n):
  """The viewer's truncation: at most n characters, the last an ellipsis."""
  return text if len(text) <= n else text[:n - 1] + "\u2026"


def targets(data, source):
  """The steps from a state grouped by target, in the order the JSON lists them: [(target, [edge, ...]), ...]."""
  groups = {}
  for e in data["edges"]:
    if e["from"] == source: groups.setdefault(e["to"], []).append(e)
  return list(groups.items())


def text_of(element):
  return element.get_attribute("textContent")


def test_a_small_exploration_draws_its_state_graph(driver, exploration):
  from uopc.matcher import short_name
  path, data = exploration
  open_page(driver, path)
  boxes = css(driver, "svg.states g.state")
  assert [int(b.get_attribute("data-state")) for b in boxes] == [s["id"] for s in data["states"]] and len(boxes) == 72
  # each state a box with its id and term (cut at 36 characters)
  assert [text_of(b.find_element("css selector", "text")) for b in boxes] == [f"#{s['id']} {cut(s['term'], 36)}" for s in data["states"]]
  # each (state, target) pair one arrow, labelled with its steps' rules (short names)
  arrows = css(driver, "svg.states g.step")
  want = {(s["id"], to): "; ".join(dict.fromkeys(short_name(e["rule"]) for e in es)) for s in data["states"] for to, es in targets(data, s["id"])}
  assert {(int(a.get_attribute("data-from")), int(a.get_attribute("data-to"))): text_of(a.find_element("css selector", "text"))
          for a in arrows} == {k: cut(v, 40) for k, v in want.items()} and len(arrows) == len(want)
  # the canonical path's arrows, the normal forms and the canonical result marked
  canon, ids = data["canonical_state"], []
  by_id = {s["id"]: s for s in data["states"]}
  at = canon
  while at is not None: ids, at = [at, *ids], by_id[at]["parent"]
  assert sorted((int(a.get_attribute("data-from")), int(a.get_attribute("data-to"))) for a in css(driver, "svg.states g.step.canon")) == \
         sorted(zip(ids, ids[1:])) and len(ids) > 2
  assert [int(b.get_attribute("data-state")) for b in css(driver, "svg.states g.state.normal")] == sorted(data["normal_form_ids"])
  assert [int(b.get_attribute("data-state")) for b in css(driver, "svg.states g.state.canonical")] == [canon]
  # a box selects its state
  css(driver, f'svg.states g.state[data-state="{canon}"] rect')[0].click()
  assert css(driver, "#inspector h2")[0].text == f"state #{canon}"
  assert css(driver, "svg.states g.state.selected")[0].get_attribute("data-state") == str(canon)
  assert console_errors(driver) == []


def test_depth_rows_show_each_state_s_term_beside_its_chip(driver, exploration):
  path, data = exploration
  open_page(driver, path)
  row = css(driver, '.depthrow[data-depth="3"]')[0]
  row.click()
  lines = row.find_element("xpath", "..").find_elements("css selector", ".states .row")
  assert [line.text for line in lines] == [f"#{s['id']} {cut(s['term'], 100)}" for s in data["states"] if s["depth"] == 3]
  assert console_errors(driver) == []


def test_next_steps_say_which_node_each_rule_rewrites_into_what(driver, exploration):
  from uopc.matcher import short_name
  path, data = exploration
  open_page(driver, path)
  text = NodeTexts(data["nodes"])
  nexts = css(driver, "#inspector .row.next")   # the program's next steps: it is selected when the page opens
  want = targets(data, 0)
  assert [int(r.find_element("css selector", ".chip").get_attribute("data-state")) for r in nexts] == [to for to, _ in want]
  for r, (_, es) in zip(nexts, want):
    assert [x.text for x in r.find_elements("css selector", ".step")] == \
           [f"{short_name(e['rule'])}: {cut(text(e['node']), 120)} -> {cut(text(e['result']), 120)}" for e in es]
  assert any(len(es) > 1 for _, es in want)   # parallel steps: each its own line
  assert console_errors(driver) == []


def test_a_page_of_a_format_1_file_still_opens(driver, capsys, tmp_path):
  from tests.test_relational_saved import format_1
  from uopc.relational import explore
  from uopc.termparse import parse_term
  prog = parse_term("add(mul(add(p0, 0), 1), add(mul(p1, 1), 0))").to_uop()
  ex = explore(prog).run()
  saved = tmp_path / "old.json"
  saved.write_text(json.dumps(format_1(ex, prog, paths=True)))
  out = tmp_path / "old.html"
  assert main(["explore", "view", str(saved), "-o", str(out)]) == 0
  open_page(driver, out)
  assert [e.text for e in css(driver, ".nf")] == [s.term() for s in ex.normal_forms]
  nf = ex.normal_forms[1]
  css(driver, f'#overview [data-state="{nf.id}"]')[0].click()
  assert css(driver, "#inspector .selected-term")[0].text == nf.term()
  assert len(css(driver, "svg.states g.state")) == len(ex.states)
  assert console_errors(driver) == []


@pytest.mark.slow   # the scale check: a 131,072-state page in the browser (the small pages above run by default)
def test_a_page_of_131072_states_opens_and_shows_its_normal_form(driver, capsys, tmp_path):
  """17 independent x + 0 redexes: each subset of them rewritten is a state (2**17), 1,114,112 steps; a 141 MB page."""
  from uopc import UOp
  from uopc.term import show
  (tmp_path / "zero.py").write_text("from uopc import Ops, PatternMatcher, UPat\n"
                                    "rules = PatternMatcher([(UPat(Ops.ADD, src=(UPat.var('x'), UPat.cvar('c'))), "
                                    "lambda x, c: x if c.arg == 0 else None)])\n")
  lines = [line for i in range(17) for line in (f"%{2 * i} = param : slot={i} dtype=i32", f"%{2 * i + 1} = add %{2 * i}, 0")]
  lines += [f"%{34 + i - 1} = add %{1 if i == 1 else 34 + i - 2}, %{2 * i + 1}" for i in range(1, 17)]
  (tmp_path / "sum17.uir").write_text("\n".join(lines) + "\n")
  out = tmp_path / "big.html"
  code = main(["explore", "reachable", str(tmp_path / "sum17.uir"), "--rules", f"{tmp_path / 'zero.py'}:rules", "--max-states", "200000",
               "--timeout", "600", "--format", "html", "-o", str(out)])   # the whole page, on a loaded machine too
  err = capsys.readouterr().err
  assert code == 0 and err.startswith("uopc: warning: the page is 14") and out.stat().st_size > 100_000_000
  normal = UOp.param(0)
  for i in range(1, 17): normal = normal + UOp.param(i)
  open_page(driver, out, wait=60)
  assert css(driver, "#summary")[0].text.startswith("rules ") and "131072 states, 1114112 edges" in css(driver, "#summary")[0].text
  assert [e.text for e in css(driver, ".nf")] == [show(normal)]
  assert css(driver, "#chunked")[0].text.startswith("131072 states and 1114112 steps in 7 chunks of 20000 states")
  assert css(driver, "#no-state-graph")[0].text.startswith("not drawn: 131072 states (up to 200 are)") and not css(driver, "svg.states")
  row = css(driver, '.depthrow[data-depth="17"]')[0]
  assert row.text == "depth 17: 1 state, 1 normal"
  row.click()
  chip = row.find_element("xpath", "..").find_element("css selector", ".states .chip")
  assert chip.get_attribute("data-state") == "131071"
  chip.click()
  assert css(driver, "#inspector .selected-term")[0].text == show(normal)
  assert css(driver, "#inspector h2")[-1].text == "next steps (0 targets)"
  assert console_errors(driver) == []


def open_data(driver, tmp_path, data, kind):
  """The page of ``data`` (as ``uopc.cli.reports.page`` writes it, whatever the loader would say of it), opened."""
  from uopc.cli.reports.page import page
  path = tmp_path / f"{kind}.html"
  path.write_text(page(data, kind, "t"))
  open_page(driver, path)


def chip_state(i, parent=None):
  return {"id": i, "depth": 0 if parent is None else 1, "parent": parent, "rule": None if parent is None else "r",
          "node": None if parent is None else "p0", "term": f"add(p{i}, 0)", "normal": False, "error": None}


def test_a_saved_exploration_with_no_state_opens_as_an_empty_one(driver, capsys, tmp_path):
  """``{"states":[],"edges":[]}`` made a page that threw (``undefined.parent``); uopc writes no state when a bound stops it first."""
  saved, out = tmp_path / "saved.json", tmp_path / "page.html"
  saved.write_text(json.dumps({"program": "p0", "complete": False, "bound": "timeout", "stopped_by": "--timeout 10 s", "states": [],
                               "edges": [], "normal_forms": [], "normal_form_ids": []}))
  assert main(["explore", "view", str(saved), "-o", str(out)]) == 0
  open_page(driver, out)
  assert css(driver, "#cut-report")[0].text == "this file lists no state: the search was stopped by --timeout 10 s before the program was explored"
  assert "0 states, 0 edges; incomplete: stopped by --timeout 10 s" in css(driver, "#summary")[0].text
  assert css(driver, "#inspector")[0].text == "no state\nnothing to inspect: this file lists no state" and not css(driver, "svg.states")
  assert console_errors(driver) == []
  open_data(driver, tmp_path, {"states": [], "edges": []}, "reachable")   # the page of the file itself (the loader refuses it)
  assert css(driver, "#cut-report")[0].text == "this file lists no state: a whole exploration holds at least its program, state 0"
  assert console_errors(driver) == []


def test_a_cut_report_shows_the_states_it_names_past_its_list_as_missing(driver, tmp_path):
  data = {"program": "add(p0, 0)", "states": [chip_state(0), chip_state(1, 0)],
          "edges": [{"from": 0, "to": 1, "rule": "r", "node": "p0", "result": "p1"}], "normal_forms": ["p7"], "normal_form_ids": [7],
          "canonical": "p7", "canonical_state": 7, "stuck": [{"id": 9, "rule": "r", "node": "p0", "error": "boom"}],
          "report": {"complete": False, "states": 2, "edges": 1, "stopped_by": "--timeout 5 s"}}
  open_data(driver, tmp_path, data, "reachable")
  assert css(driver, "#cut-report")[0].text.startswith("this file lists 2 states and 1 step of those found: the report was stopped by --timeout 5 s")
  assert "the report lists 2 states and 1 edge (cut by --timeout 5 s)" in css(driver, "#summary")[0].text
  assert [c.get_attribute("data-state") for c in css(driver, "#overview .chip.missing")] == ["7", "9"]
  css(driver, '#overview .chip[data-state="7"]')[0].click()
  assert css(driver, "#inspector h2")[0].text == "state #7"
  assert css(driver, "#missing-state")[0].text == "not in this file: the report lists only its first 2 states (stopped by --timeout 5 s)"
  css(driver, 'svg.states g.state[data-state="1"] rect')[0].click()
  assert css(driver, "#inspector .selected-term")[0].text == "add(p1, 0)"
  assert console_errors(driver) == []


def test_the_stuck_steps_are_grouped_on_the_page(driver, capsys, tmp_path, monkeypatch):
  """One row per rule and exception type (issue 39): tinygrad's fold_divmod_general raises in every state holding a
  (v*2 + 0) // 5, one row for all of them, with its count and an example chip."""
  from tests.test_stuck_groups import MANY
  (tmp_path / "many.py").write_text(MANY)
  monkeypatch.chdir(tmp_path)
  path, data = page_and_json(capsys, tmp_path, ["explore", "reachable", "many.py:prog", "--rules", "tinygrad:symbolic"])
  n = data["stuck_groups"][0]["count"]   # one stuck state per rule and exception type (issue 40), its group counts every step
  assert len(data["stuck"]) == 1 and n > 10 and [g["count"] for g in data["stuck_groups"]] == [n]
  open_page(driver, path)
  rows = [r.text for r in css(driver, "#overview .row") if "raised" in r.text]
  assert len(rows) == 1 and rows[0].startswith(f"{n}\u00d7 ") and "raised ZeroDivisionError, e.g. #" in rows[0]
  assert f"stuck steps ({n})" in css(driver, "#overview")[0].text


@pytest.mark.parametrize("data", [
  {"program": "p0", "states": [chip_state(0)], "edges": [], "normal_forms": [], "normal_form_ids": []},
  {"program": "p0", "states": [chip_state(0)], "edges": [{"from": 0, "to": 3, "rule": "r", "node": "p0", "result": "p1"}], "normal_forms": ["p5"],
   "normal_form_ids": [5], "canonical_state": 5, "cycles": [{"states": [0, 6], "rules": ["r"]}]},
  {"states": [chip_state(0)], "edges": []},
], ids=["one-state-no-step", "naming-missing-states", "no-program"])
def test_a_degenerate_exploration_page_opens_without_a_script_error(driver, tmp_path, data):
  """A page is written by the command itself too (``--format html``), not only by the loader's ``view``: it never throws."""
  open_data(driver, tmp_path, data, "reachable")
  assert css(driver, "#inspector h2")[0].text == "state #0" and [b.get_attribute("data-state") for b in css(driver, "svg.states g.state")] == ["0"]
  for chip in css(driver, "#overview .chip.missing"):
    chip.click()
    assert css(driver, "#missing-state")[0].text == "not in this file: the file does not list it"
  assert console_errors(driver) == []


@pytest.mark.parametrize("argv", [
  ["explore", "reachable", str(EX / "order.uir")],
  ["explore", "normal-forms", str(EX / "fork.uir"), "--rules", f"{EX / 'my_rules.py'}:rules"],
  ["explore", "order", str(EX / "fork.uir"), "--rules", f"{EX / 'my_rules.py'}:rules"],
  ["explore", "search", str(EX / "affine.uir"), "--target", "add(?x, ?c)", "--all"],
  ["explore", "search", str(EX / "affine.uir"), "--target", "mul(?x, 77)"],
  ["explore", "search", str(EX / "equal_a.uir"), "--to", str(EX / "equal_b.uir")],
  ["explore", "pairs", "fold", "--max-instances", "4"],
  ["trace", str(EX / "affine.uir")],
  ["simplify", str(EX / "affine.uir")],
  ["saturate", str(EX / "saturation.uir"), "--rules", f"{EX / 'saturation_rules.py'}:rules"],
  ["explore", "best", str(EX / "only_equal.uir"), "--rules", f"{EX / 'only_equal_rules.py'}:rules"],
], ids=["reachable", "normal-forms", "order", "search-all", "search-not-found", "search-to", "pairs", "trace", "simplify", "saturate", "best"])
def test_every_page_draws_every_field_of_its_command(driver, capsys, tmp_path, argv):
  """Every page ended with an "other fields" box of raw JSON (reduced, cycles, searched_a, skipped_rules ...): the views draw them."""
  path, data = page_and_json(capsys, tmp_path, argv)
  open_page(driver, path)
  assert css(driver, ".extra") == [] and "other fields" not in [h.text for h in css(driver, "h2")]
  assert console_errors(driver) == []


def label_overlaps(driver):
  """The pairs of rule labels of the state graph whose boxes on the screen intersect, and how many labels there are."""
  boxes = driver.execute_script("return [...document.querySelectorAll('svg.states text.rule')].map((t) => { const r = t.getBoundingClientRect(); "
                                "return [r.left, r.top, r.right, r.bottom, t.textContent]; })")
  return [(a[4], b[4]) for i, a in enumerate(boxes) for b in boxes[i + 1:] if a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]], len(boxes)


COMM = ("from uopc import Ops, PatternMatcher, UPat\nx, y, z = UPat.var('x'), UPat.var('y'), UPat.var('z')\n"
        "comm = PatternMatcher([(UPat(Ops.ADD, src=(x, y)), lambda x, y: y + x)])\n"
        "both = PatternMatcher([(UPat(Ops.ADD, src=(x, y)), lambda x, y: y + x),\n"
        "                       (UPat(Ops.ADD, src=(UPat(Ops.ADD, src=(x, y)), z)), lambda x, y, z: x + (y + z))])\n"
        "twice = PatternMatcher([(UPat(Ops.ADD, src=(x, UPat.cvar('c'))), lambda x, c: x if c.arg == 0 else None), "
        "(UPat(Ops.ADD, src=(x, UPat.cvar('c'))), lambda x, c: x if c.arg == 0 else None), (UPat(Ops.MUL, src=(x, y)), lambda x, y: y * x)])\n")
ADD3 = "%0 = param : slot=0 dtype=i32\n%1 = param : slot=1 dtype=i32\n%2 = add %0, %1\n%3 = param : slot=2 dtype=i32\n%4 = add %2, %3\n"
MUL = "%0 = param : slot=0 dtype=i32\n%1 = add %0, 0\n%2 = param : slot=1 dtype=i32\n%3 = add %2, 0\n%4 = mul %1, %3\n"


@pytest.mark.parametrize("program,rules,states", [
  (ADD3, "comm", 4),   # each state a step to two others and back: arrows both ways, crossing
  (ADD3, "both", 12),  # 30 arrows across 5 layers, many crossing: their labels stacked on each other
  (MUL, "twice", 8),   # two rules for each step (one label "r; r"), a cycle by mul's commutation
  (None, None, 5),     # examples/order.uir's normal forms
], ids=["crossing", "dense", "parallel-rules", "order"])
def test_edge_labels_of_a_small_state_graph_do_not_overlap(driver, capsys, tmp_path, program, rules, states):
  if program is None: argv = ["explore", "normal-forms", str(EX / "order.uir")]
  else:
    (tmp_path / "rules.py").write_text(COMM)
    (tmp_path / "p.uir").write_text(program)
    argv = ["explore", "reachable", str(tmp_path / "p.uir"), "--rules", f"{tmp_path / 'rules.py'}:{rules}"]
  path, data = page_and_json(capsys, tmp_path, argv)
  assert len(data["states"]) == states
  open_page(driver, path)
  overlaps, labels = label_overlaps(driver)
  assert overlaps == [] and labels == len({(e["from"], e["to"]) for e in data["edges"]}) > 1
  assert console_errors(driver) == []


NOTHING_YET = {   # what a command stopped before it had a graph writes (docs/failure-contract.md): the same output, nothing found
  "order": {"program": None, "normal_forms": [], "canonical_path": [], "forks": [], "complete": False, "stopped_by": "--timeout 1 s",
            "canonical": None, "canonical_error": None},
  "search": {"program": None, "target": "add(?x, 0)", "found": False, "path": [], "searched": 0, "complete": False, "bound": "timeout"},
  "pairs": {"ruleset": "r", "pairs": [], "skipped_rules": [], "summary": {"line": "stopped by --timeout 1 s"}},
  "trace": {"program": None, "result": None, "error": "stopped by --timeout 1 s", "steps": []},
  "saturate": {"program": None, "best": None, "cost": None, "path": None, "complete": False, "stop": "timeout", "iterations": 0, "enodes": 0,
               "eclasses": 0, "applied": 0, "matches": 0, "rejected": 0, "reach_searched": 0, "canonical": None, "canonical_cost": None,
               "canonical_error": "not run", "cost_function": "nodes", "conflicts": []},
  "best": {"program": None, "best": None, "cost": None, "path": [], "canonical": None, "canonical_error": "not run", "complete": False,
           "bound": "timeout", "seen": 0, "expanded": 0, "cost_function": "nodes"},
}


@pytest.mark.parametrize("kind", list(NOTHING_YET))
def test_a_page_with_nothing_found_yet_opens_and_loads_back(driver, capsys, tmp_path, kind):
  saved, out = tmp_path / "saved.json", tmp_path / "page.html"
  saved.write_text(json.dumps(NOTHING_YET[kind]))
  assert main(["explore", "view", str(saved), "-o", str(out)]) == 0 and f'data-kind="{kind}"' in out.read_text()
  open_page(driver, out)
  assert css(driver, ".extra") == []
  assert console_errors(driver) == []


@pytest.mark.parametrize("command", ["order", "normal-forms"])
def test_a_loop_is_shown_with_its_cycle_and_the_engines_runs(driver, capsys, tmp_path, command):
  """tinygrad's conv index under `symbolic`: one normal form, a cycle of two rules, and bottom up loops on it."""
  path, data = page_and_json(capsys, tmp_path, ["explore", command, str(EX / "conv_index.uir"), "--rules", "tinygrad:symbolic"])
  t = data["termination"]
  assert t["terminates"] is False
  open_page(driver, path)
  section = [s for s in css(driver, "#overview section") if s.find_element("css selector", "h2").text == "termination"][0]
  assert section.find_element("css selector", ".verdict" if command == "order" else "div").text.startswith(t["text"][:40])
  assert "rules: " + "; ".join(t["loop"]["rules"]) in section.find_element("css selector", ".loop-rules").text
  assert [e.text for e in section.find_elements("css selector", ".strategy")][-1].startswith("graph_rewrite(bottom_up=True): loops")
  cycle = step_texts(data, t["loop"]["cycle"]) if command == "order" else t["loop"]["cycle"]   # order's steps name node rows
  assert section.find_element("css selector", ".stepper .after").text == cycle[0]["after"] == "floormod(add(mul(p0, 81), add(10, 233)), 243)"
  assert console_errors(driver) == []
