"""``uopc.relational.space.saved``: a ``--format json`` output loads back (``load``), and ``uopc explore view`` makes its page."""
import contextlib
import json
import os
import re
from pathlib import Path

import pytest

from uopc.cli.reports.exploration import to_json
from uopc.cli.main import main
from uopc.relational import canonical, explore, load
from uopc.symbolic import symbolic
from uopc.term import show
from uopc.uop import UOp

ROOT = Path(__file__).resolve().parent.parent
EX = ROOT / "examples"


def format_1(ex, prog, paths):
  """What the explorer wrote before format 2 (each graph as its text, no ``format`` key): files saved then still load."""
  def steps(path):
    return [{"rule": e.rule, "rule_index": e.rule_index, "node": show(e.node), "result": show(e.result),
             "before": show(e.source.graph), "after": show(e.target.graph), "error": e.error} for e in path]
  out = {"program": show(prog), "rules": "symbolic", "complete": ex.complete, "bound": ex.bound,
         "states": [{"id": s.id, "depth": s.depth, "parent": None if s.parent is None else s.parent.id, "rule": s.rule,
                     "node": None if s.node is None else show(s.node), "term": s.term(None), "normal": s.normal, "error": s.error}
                    for s in ex.states],
         "edges": [{"from": e.source.id, "to": e.target.id, "rule": e.rule, "rule_index": e.rule_index, "node": show(e.node),
                    "result": show(e.result), "error": e.error} for e in ex.edges],
         "normal_forms": [s.term(None) for s in ex.normal_forms], "normal_form_ids": [s.id for s in ex.normal_forms]}
  if paths: out["paths"] = {str(s.id): steps(s.path()) for s in ex.normal_forms}
  return out


def saved_exploration(tmp_path, paths, fmt=2):
  p0, p1 = UOp.param(0), UOp.param(1)
  prog = (p0 + 0) * 1 + (p1 * 1 + 0)
  ex = explore(prog, symbolic).run()
  path = tmp_path / "saved.json"
  data = to_json(ex, prog, "symbolic", *canonical(prog, symbolic), paths=paths) if fmt == 2 else format_1(ex, prog, paths)
  assert data.get("format") == (2 if fmt == 2 else None)
  path.write_text(json.dumps(data))
  return ex, load(str(path))


def test_load_takes_a_path_never_a_file_descriptor(tmp_path):
  # the user's case: load(5) read file descriptor 5, whatever it was open on
  saved_exploration(tmp_path, paths=False)
  fd = os.open(tmp_path / "saved.json", os.O_RDONLY)
  try:
    with pytest.raises(TypeError, match=r"^load\(\) takes a path \(str or os.PathLike\) of a saved --format json output, not int: \d+$"):
      load(fd)
    assert os.read(fd, 1) == b"{"   # not read, not closed
  finally:
    with contextlib.suppress(OSError): os.close(fd)
  for wrong in (b"saved.json", None, 5.0):
    with pytest.raises(TypeError, match=f"not {type(wrong).__name__}: "): load(wrong)
  assert load(tmp_path / "saved.json").kind == load(str(tmp_path / "saved.json")).kind == "reachable"


@pytest.mark.parametrize("fmt", [1, 2], ids=["format 1", "format 2"])
@pytest.mark.parametrize("paths", [False, True], ids=["reachable", "normal-forms"])
def test_round_trip_keeps_states_edges_normal_forms_and_paths(tmp_path, paths, fmt):
  ex, saved = saved_exploration(tmp_path, paths, fmt)
  assert saved.kind == ("normal-forms" if paths else "reachable")
  assert [(s.id, s.depth, s.term(None), s.normal) for s in ex.states] == \
         [(s.id, s.depth, s.term, s.normal) for s in saved.states]
  assert [(s.id, None if s.parent is None else s.parent.id, s.rule) for s in ex.states] == \
         [(s.id, s.parent, s.rule) for s in saved.states]
  assert [(e.source.id, e.target.id, e.rule) for e in ex.edges] == [(e.source, e.target, e.rule) for e in saved.edges]
  assert [(show(e.node), show(e.result)) for e in ex.edges] == [(e.node, e.result) for e in saved.edges]
  assert [None if s.node is None else show(s.node) for s in ex.states] == [s.node for s in saved.states]
  assert [s.id for s in ex.normal_forms] == [s.id for s in saved.normal_forms] and len(saved.normal_forms) == 2
  for live, back in zip(ex.normal_forms, saved.normal_forms):
    assert [s.id for s in [live.path()[0].source, *(e.target for e in live.path())]] == [s.id for s in saved.path_to(back)]


def test_view_writes_the_page_of_a_saved_output(capsys, tmp_path):
  prog = str(EX / "order.uir")
  assert main(["explore", "normal-forms", prog, "--format", "json"]) == 0
  saved = tmp_path / "saved.json"
  saved.write_text(capsys.readouterr().out)
  page = tmp_path / "page.html"
  assert main(["explore", "view", str(saved), "-o", str(page)]) == 0
  text = page.read_text()
  embedded = re.search(r'id="uopc-data">(.*?)</script>', text, re.S).group(1)
  assert json.loads(embedded) == json.loads(saved.read_text()) and 'data-kind="normal-forms"' in text


@pytest.mark.parametrize("argv", [["explore", "order", str(EX / "order.uir")], ["explore", "pairs", "fold", "--max-instances", "2"],
                                  ["explore", "search", str(EX / "affine.uir"), "--target", "add(?x, 11)"], ["trace", str(EX / "affine.uir")]],
                         ids=["order", "pairs", "search", "trace"])
def test_every_json_output_loads_as_its_kind(capsys, tmp_path, argv):
  main([*argv, "--format", "json"])
  path = tmp_path / "saved.json"
  path.write_text(capsys.readouterr().out)
  assert load(str(path)).kind == argv[1 if argv[0] == "explore" else 0]


@pytest.mark.parametrize("text,message", [("{\n \"states\": [,]}", r"saved\.json:2:13: not JSON: "),
                                          ('{"x": 1}', r"saved\.json: not the --format json output"),
                                          ('{"states": [{"id": 0}], "edges": []}', r"saved\.json: a state or edge is malformed"),
                                          ('{"format": 2, "nodes": [["add(", 1, ")"], "p0"], "edges": [], "states": [{"id": 0, '
                                           '"depth": 0, "parent": null, "rule": null, "graph": 0, "node": null, "normal": true, '
                                           '"error": null}]}', r"saved\.json: a state or edge is malformed .*node 0 is neither"),
                                          ('{"format": 2, "nodes": ["p0"], "edges": [], "states": [{"id": 0, "depth": 0, '
                                           '"parent": null, "rule": null, "graph": 7, "node": null, "normal": true, "error": null}]}',
                                           r"saved\.json: a state or edge is malformed .*no node 7"),
                                          ('{"format": 3, "states": [], "edges": []}', r"saved\.json: format 3: this uopc reads formats 1 and 2")])
def test_view_of_bad_input_is_one_line_exit_2(capsys, tmp_path, text, message):
  path = tmp_path / "saved.json"
  path.write_text(text)
  assert main(["explore", "view", str(path)]) == 2
  err = capsys.readouterr().err
  assert err.count("\n") == 1 and re.search(message, err)


EXPLORATION = '{"program": "p0", "states": [], "edges": [], "normal_form_ids": []'


@pytest.mark.parametrize("text,message", [("[" * 100_000 + "]" * 100_000, r"saved\.json:1:201: nested more than 200 deep"),
                                          (EXPLORATION + ', "n": ' + "1" * 5000 + "}", r"saved\.json:1:\d+: an integer of 5,000 digits"),
                                          (EXPLORATION + ', "t": "\\ud800"}', r"saved\.json:1:\d+: \\ud800 is a lone surrogate"),
                                          (EXPLORATION + ', "n": NaN}', r"saved\.json:1:\d+: NaN is not a JSON number")],
                         ids=["deep", "long-int", "surrogate", "nan"])
def test_view_of_json_no_page_can_hold_is_one_line_exit_2(capsys, tmp_path, text, message):
  # each was exit 4 (a RecursionError, int()'s digit limit, a UTF-8 encode error) or, for NaN, a page the browser cannot parse
  path, page = tmp_path / "saved.json", tmp_path / "page.html"
  path.write_text(text)
  assert main(["explore", "view", str(path), "-o", str(page)]) == 2
  err = capsys.readouterr().err
  assert err.count("\n") == 1 and re.search(message, err) and not page.exists()


def state(i, parent=None, normal=False):
  return {"id": i, "depth": 0 if parent is None else 1, "parent": parent, "rule": None if parent is None else "r",
          "node": None if parent is None else "p0", "term": f"t{i}", "normal": normal, "error": None}


def exploration(states, edges=(), **more):
  return json.dumps({"program": "t0", "states": states, "edges": list(edges), **more})


STEP = {"from": 0, "to": 1, "rule": "r", "node": "p0", "result": "p1"}


@pytest.mark.parametrize("text,message", [
  ('{"states":[],"edges":[]}', r"saved\.json: an exploration with no state: a complete one holds at least its program \(state 0\)"),
  (exploration([], complete=True), r"an exploration with no state"),
  (exploration([state(1), state(0)]), r"state 0 has id 1: the states are listed by id, from 0"),
  (exploration([state(0), state(1)]), r"state 1 has parent None: state 0 is the program, every other one is reached from an earlier one"),
  (exploration([state(0), state(1, parent=1)]), r"state 1 has parent 1"),
  (exploration([state(0, parent=0)]), r"state 0 has parent 0"),
  (exploration([state(0)], [STEP]), r"a step from 0 to 1 names a state the file does not hold"),
  (exploration([state(0), state(1, parent=0)], [{**STEP, "from": True}]), r"a step from True to 1 names a state"),
  (exploration([state(0)], normal_form_ids=[3], normal_forms=["t3"]), r"normal_form_ids names state 3, which the file does not hold"),
  (exploration([state(0)], canonical_state=2), r"canonical_state names state 2"),
  (exploration([state(0)], stuck=[{"id": 4, "rule": "r", "node": "p0", "error": "boom"}]), r"stuck names state 4"),
  (exploration([state(0)], cycles=[{"states": [0, 5], "rules": ["r"]}]), r"cycles names state 5"),
  (exploration([state(0)], normal_form_ids=[0], normal_forms=[]), r"normal_forms and normal_form_ids differ in length"),
  (exploration([state(0)], complete=False, canonical_state=-1), r"canonical_state names state -1"),
  ('{"states": [1, 2], "edges": []}', r"not a whole reachable output: 'states' holds something other than records"),
  ('{"states": {}, "edges": []}', r"not a whole reachable output: 'states' is dict"),
  ('{"forks": [], "canonical_path": []}', r"not a whole order output: 'program' is missing"),
  ('{"pairs": [], "summary": 3}', r"not a whole pairs output: 'summary' is int"),
  ('{"steps": [], "result": "p0"}', r"not a whole trace output: 'program' is missing"),
  ('{"program": "p0", "found": 1, "path": [], "searched": 1}', r"not a whole search output: 'found' is int"),
  ('{"program": "p0", "best": "p0", "cost": true, "seen": 1}', r"not a whole best output: 'cost' is bool"),
], ids=["empty", "empty-complete", "ids-out-of-order", "no-parent", "parent-not-earlier", "program-with-parent", "step-to-nowhere",
        "step-from-a-bool", "normal-form-missing", "canonical-missing", "stuck-missing", "cycle-missing", "forms-differ", "negative-id",
        "states-not-records", "states-not-a-list", "order-without-program", "pairs-summary", "trace-without-program", "search-found", "best-cost"])
def test_view_of_a_degenerate_saved_file_is_one_line_exit_2(capsys, tmp_path, text, message):
  """``{"states":[],"edges":[]}`` made a page (exit 0) that threw in the browser; each of these made a page that threw or lied."""
  path, page = tmp_path / "saved.json", tmp_path / "page.html"
  path.write_text(text)
  assert main(["explore", "view", str(path), "-o", str(page)]) == 2
  err = capsys.readouterr().err
  assert err.count("\n") == 1 and re.search(message, err) and str(path) in err and not page.exists()


@pytest.mark.parametrize("text,states", [
  (exploration([], complete=False, bound="timeout", normal_form_ids=[], normal_forms=[]), 0),   # a bound before the program was a state
  (exploration([], report={"complete": False, "states": 0, "edges": 0, "stopped_by": "--timeout 5 s"}), 0),   # the report's cut, at once
  (exploration([state(0, normal=True)], normal_form_ids=[0], normal_forms=["t0"]), 1),   # one state, no step
  (exploration([state(0), state(1, parent=0, normal=True)], [STEP], normal_form_ids=[1, 7], normal_forms=["t1", "t7"], canonical_state=7,
               stuck=[{"id": 9, "rule": "r", "node": "p0", "error": "boom"}], report={"complete": False, "states": 2, "edges": 1}), 2),
], ids=["stopped-before-the-program", "report-cut-at-once", "one-state", "cut-report-naming-states-past-it"])
def test_an_incomplete_or_small_exploration_loads(capsys, tmp_path, text, states):
  """What uopc writes when a bound stops it early: no state at all, or states named past a cut report's list (the page shows them
  as not in the file: tests/test_html_browser.py)."""
  path, page = tmp_path / "saved.json", tmp_path / "page.html"
  path.write_text(text)
  saved = load(str(path))
  assert len(saved.states) == states and [s.id for s in saved.normal_forms] == [s.id for s in saved.states if s.normal]
  assert main(["explore", "view", str(path), "-o", str(page)]) == 0 and page.exists()
