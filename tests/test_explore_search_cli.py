"""``uopc explore search``: text and JSON output, exit codes, errors, --all, --target-file, --to (its documented runs: tests/test_docs.py)."""
import importlib
import json
import re
import pathlib

import pytest

from uopc import UOp, symbolic
from uopc.cli.main import main
from uopc.relational.analyses.search import meet, replay, search
from uopc.relational.space.saved import step_texts
from uopc.uir import parse_uir

search_module = importlib.import_module("uopc.relational.api")   # the command line searches through it (cluster= or not)

ROOT = pathlib.Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
AFFINE = EXAMPLES / "affine.uir"
p0, p1 = UOp.param(0), UOp.param(1)


def uopc(capsys, *argv):
  code = main([str(a) for a in argv])
  out, err = capsys.readouterr()
  return code, out, err


def search_json(capsys, *argv):
  code, out, err = uopc(capsys, "explore", "search", *argv, "--format", "json")
  return code, json.loads(out)


def write(tmp_path, text, name="prog.uir"):
  path = tmp_path / name
  path.write_text(text)
  return path


# ---- text

def test_the_chapter_search_prints_path_bindings_length_and_count(capsys):
  code, out, err = uopc(capsys, "explore", "search", AFFINE, "--target", "add(mul(p0, 3), ?c)")
  prog = parse_uir(AFFINE.read_text())
  r = search(prog, "add(mul(p0, 3), ?c)", symbolic)
  assert code == 0 and err == ""
  assert out.splitlines() == [
    "program: add(mul(add(p0, 2), 3), add(1, 4))",
    "target: add(mul(p0, 3), ?c)",
    "rules: symbolic",
    "found: add(mul(p0, 3), 11)",
    "path (3 steps):",
    *[f"  {i}. {e.describe()}" for i, e in enumerate(r.path, 1)],
    "bindings: ?c = 11",
    "length: 3 steps",
    "searched: 25 graphs",
  ]
  assert out.splitlines()[6] == "  2. fold-const: add(1, 4) -> 5"   # the rewritten node and its replacement


def test_the_command_line_runs_the_python_api(capsys, monkeypatch):
  calls = []
  real = search_module.search
  monkeypatch.setattr(search_module, "search", lambda *a, **kw: calls.append((a, kw)) or real(*a, **kw))
  assert uopc(capsys, "explore", "search", AFFINE, "--target", "add(_, 5)", "--max-states", "77")[0] == 0
  (args, kw), = calls
  assert args[0] is parse_uir(AFFINE.read_text()) and args[1].text == "add(_, 5)" and args[2] is symbolic
  assert (kw["max_states"], kw["max_depth"], kw["timeout"]) == (77, 50, 300.0)   # the default --timeout: a safety net above the counts


def test_an_unreachable_target_in_a_finite_space_exits_1(capsys):
  code, out, err = uopc(capsys, "explore", "search", AFFINE, "--target", "mul(?x, ?x)")
  assert code == 1 and err == ""
  assert out.splitlines()[-2:] == ["not found: no reachable graph matches", "searched: 31 graphs; the whole space was searched"]


@pytest.mark.parametrize("flags, said", [(("--max-states", "5"), "--max-states 5"), (("--max-depth", "1"), "--max-depth 1")])
def test_a_bound_hit_before_a_match_exits_3(capsys, flags, said):
  code, out, err = uopc(capsys, "explore", "search", AFFINE, "--target", "mul(?x, ?x)", *flags)
  assert code == 3
  assert out.splitlines()[-2] == "not found within the bounds"
  assert out.splitlines()[-1].endswith(f"; incomplete: stopped by {said}")


@pytest.mark.parametrize("target, col, message", [
  ("add(mul(p0, 3), ?c", 19, "expected ',' or ')', got end of line"),
  ("add(mul(p0, 3) ?c)", 16, "expected ',' or ')', got '?c'"),
  ("add(p0, ?)", 9, None),
  ("frob(p0, 1)", 1, None),
  ("", 1, None),
  ("let a = p0 in add(b, b)", 19, "unknown name 'b': expected ?hole, _, pN, a literal, op(...) or a let name"),
  ("let a = add(b, 0), b = p0 in a", 13, "let name 'b' is used before its definition (column 20)"),
  ("let a = p0, a = p1 in add(a, a)", 13, "let name 'a' is defined twice (first at column 5)"),
  ("let a = add(p0, 0) in p0", 5, "let name 'a' is never used"),
])
def test_a_bad_target_is_one_located_line_and_exit_2(capsys, target, col, message):
  code, out, err = uopc(capsys, "explore", "search", AFFINE, "--target", target)
  assert code == 2 and out == "" and err.count("\n") == 1
  assert err.startswith(f"<target>:1:{col}: ")
  if message: assert err == f"<target>:1:{col}: {message}\n"


def test_bad_files_and_flags_exit_2(capsys, tmp_path):
  assert uopc(capsys, "explore", "search", tmp_path / "nope.uir", "--target", "_")[0] == 2
  bad = write(tmp_path, "%0 = add 1, 2.0\n")
  code, out, err = uopc(capsys, "explore", "search", AFFINE, "--target-file", bad)
  assert code == 2 and err.startswith(f"{bad}:1:") and err.count("\n") == 1
  code, out, err = uopc(capsys, "explore", "search", AFFINE, "--to", AFFINE, "--all")
  assert code == 2 and err == "--all does not apply to --to (a proof needs one meeting graph)\n"
  with pytest.raises(SystemExit) as e: main(["explore", "search", str(AFFINE), "--target", "_", "--to", str(AFFINE)])
  assert e.value.code == 2
  with pytest.raises(SystemExit) as e: main(["explore", "search", str(AFFINE)])    # no target at all
  assert e.value.code == 2


DOUBLING = "%0 = param : slot=0 dtype=i32\n%1 = add %0, 0\n%2 = add %1, %1\n%3 = add %2, %2\n"


def test_the_let_form_printed_is_a_target_and_a_to_term(capsys, tmp_path):
  prog = write(tmp_path, DOUBLING)
  code, out, err = uopc(capsys, "explore", "search", prog, "--target", "let a = add(p0, p0) in add(a, a)")
  assert code == 0 and err == ""
  assert out.splitlines()[:5] == ["program: let a = add(p0, 0), b = add(a, a) in add(b, b)", "target: let a = add(p0, p0) in add(a, a)",
                                  "rules: symbolic", "found: let a = add(p0, p0) in add(a, a)", "path (1 step):"]
  assert out.splitlines()[5] == "  1. add-0: add(p0, 0) -> p0"   # the node and its replacement, not the graph twice
  found = out.splitlines()[3].removeprefix("found: ")
  code, out, err = uopc(capsys, "explore", "search", prog, "--to-term", found)   # what was printed, read back
  assert code == 0 and err == "" and "equal: both rewrite to let a = add(p0, p0) in add(a, a)" in out
  assert "from b (0 steps)" in out


@pytest.mark.parametrize("term, message", [
  ("add(?x, 1)", "<to-term>:1:5: cannot build a graph from a term with holes: ?x"),
  ("let a = p0 in add(a, b)", "<to-term>:1:22: unknown name 'b': expected ?hole, _, pN, a literal, op(...) or a let name"),
])
def test_a_bad_to_term_is_one_located_line_and_exit_2(capsys, term, message):
  code, out, err = uopc(capsys, "explore", "search", AFFINE, "--to-term", term)
  assert (code, out, err) == (2, "", message + "\n")


def test_holes_and_wildcards_on_the_command_line(capsys, tmp_path):
  prog = write(tmp_path, "%0 = param : slot=0 dtype=i32\n%1 = add %0, 0\n%2 = add %1, %0\n")   # (p0 + 0) + p0
  code, out, _ = uopc(capsys, "explore", "search", prog, "--target", "add(?x, ?x)")
  assert code == 0 and "found: add(p0, p0)" in out and "bindings: ?x = p0" in out and "length: 1 step" in out
  code, out, _ = uopc(capsys, "explore", "search", prog, "--target", "add(_, p0)")
  assert code == 0 and "bindings: (no holes)" in out and "path: none needed (the program itself matches)" in out


def test_target_file_searches_for_exactly_that_graph(capsys, tmp_path):
  t = write(tmp_path, "%0 = param : slot=0 dtype=i32\n%1 = mul %0, 3\n%2 = add %1, 11\n", "t.uir")
  code, out, _ = uopc(capsys, "explore", "search", AFFINE, "--target-file", t)
  assert code == 0 and "target: add(mul(p0, 3), 11)" in out and "length: 3 steps" in out
  t = write(tmp_path, "%0 = param : slot=0 dtype=f32\n%1 = mul %0, 3.0\n%2 = add %1, 11.0\n", "f.uir")   # an f32 p0
  assert uopc(capsys, "explore", "search", AFFINE, "--target-file", t)[0] == 1


def test_all_streams_every_match_nearest_first(capsys):
  code, out, _ = uopc(capsys, "explore", "search", EXAMPLES / "equal_a.uir", "--target", "add(?x, ?y)", "--all")
  lines = out.splitlines()
  assert code == 0
  assert [l for l in lines if l.startswith("[")] == [
    "[1] add(add(p0, 0), p1)   (0 steps; ?x = add(p0, 0), ?y = p1)",
    "[2] add(add(p0, p1), 0)   (1 step; ?x = add(p0, p1), ?y = 0)",
    "[3] add(p0, p1)   (1 step; ?x = p0, ?y = p1)"]
  assert lines[-1] == "3 matches; searched 3 graphs; the whole space was searched"
  code, out, _ = uopc(capsys, "explore", "search", AFFINE, "--target", "add(_, _)", "--all", "--max-states", "4")
  assert code == 0 and out.splitlines()[-1] == "4 matches; searched 4 graphs; incomplete: stopped by --max-states 4"
  assert uopc(capsys, "explore", "search", AFFINE, "--target", "mul(?x, ?x)", "--all")[0] == 1
  assert uopc(capsys, "explore", "search", AFFINE, "--target", "mul(?x, ?x)", "--all", "--max-states", "3")[0] == 3


# ---- JSON

def test_json_fields_and_the_printed_path_replays(capsys):
  code, data = search_json(capsys, AFFINE, "--target", "add(mul(p0, 3), ?c)")
  assert code == 0
  assert data["found"] is True and data["bindings"] == {"c": "11"} and data["searched"] == 25 and data["bound"] is None
  assert data["graph"] == "add(mul(p0, 3), 11)" and data["length"] == 3 and data["complete"] is True
  assert [set(s) for s in data["path"]] == [{"rule", "rule_index", "node", "result", "before", "after", "error"}] * 3
  assert data["format"] == 2 and all(type(s[k]) is int for s in data["path"] for k in ("node", "result", "before", "after"))
  path = step_texts(data, data["path"])   # the graphs are rows of data["nodes"]
  assert [s["result"] for s in path] == ["add(mul(p0, 3), 6)", "5", "add(mul(p0, 3), 11)"]
  assert [s["node"] for s in path] == ["mul(add(p0, 2), 3)", "add(1, 4)", "add(add(mul(p0, 3), 6), 5)"]
  assert path[0]["before"] == "add(mul(add(p0, 2), 3), add(1, 4))" and path[-1]["after"] == "add(mul(p0, 3), 11)"
  for a, b in zip(data["path"], data["path"][1:]): assert a["after"] == b["before"]   # one row: the same graph
  prog = parse_uir(AFFINE.read_text())
  assert replay(prog, path, symbolic) is p0 * 3 + 11      # the printed steps, as text, replay


def test_json_when_nothing_is_found(capsys):
  code, data = search_json(capsys, AFFINE, "--target", "mul(?x, ?x)", "--max-states", "5")
  assert code == 3 and data["found"] is False and data["bound"] == "max_states" and data["complete"] is False
  assert data["path"] == [] and data["bindings"] == {} and data["searched"] == 5 and data["graph"] is None
  code, data = search_json(capsys, AFFINE, "--target", "mul(?x, ?x)")
  assert code == 1 and data["bound"] is None and data["complete"] is True and data["searched"] == 31


def test_json_all_lists_every_match(capsys):
  code, data = search_json(capsys, EXAMPLES / "equal_a.uir", "--target", "add(?x, ?y)", "--all")
  assert code == 0 and data["found"] and data["complete"] and data["searched"] == 3
  assert [(m["graph"], m["length"], m["bindings"]) for m in data["matches"]] == [
    ("add(add(p0, 0), p1)", 0, {"x": "add(p0, 0)", "y": "p1"}),
    ("add(add(p0, p1), 0)", 1, {"x": "add(p0, p1)", "y": "0"}),
    ("add(p0, p1)", 1, {"x": "p0", "y": "p1"})]
  assert data["path"] == [] and data["bindings"] == {"x": "add(p0, 0)", "y": "p1"}


# ---- --to

def test_to_proves_the_bundled_pair_equal(capsys):
  a, b = EXAMPLES / "equal_a.uir", EXAMPLES / "equal_b.uir"
  assert parse_uir(a.read_text()) is (p0 + 0) + p1 and parse_uir(b.read_text()) is p0 + p1 * 1
  code, out, err = uopc(capsys, "explore", "search", a, "--to", b)
  r = meet((p0 + 0) + p1, p0 + p1 * 1, symbolic)
  assert code == 0 and err == ""
  assert out.splitlines() == [
    "program a: add(add(p0, 0), p1)", "program b: add(p0, mul(p1, 1))", "rules: symbolic",
    "equal: both rewrite to add(p0, p1)",
    "from a (1 step):", "  1. add-0: add(p0, 0) -> p0",
    "from b (1 step):", f"  1. {r.from_b[0].describe()}",
    "searched: 5 graphs (a: 3, b: 2)"]
  code, data = search_json(capsys, a, "--to", b)
  assert code == 0 and data["found"] and data["meeting"] == "add(p0, p1)" and data["bound"] is None
  assert data["path"] == data["paths"]["from_a"] and data["bindings"] == {} and data["searched"] == 5
  assert replay((p0 + 0) + p1, step_texts(data, data["paths"]["from_a"]), symbolic) is p0 + p1
  assert replay(p0 + p1 * 1, step_texts(data, data["paths"]["from_b"]), symbolic) is p0 + p1


def test_to_reports_no_common_graph_honestly(capsys):
  code, out, _ = uopc(capsys, "explore", "search", AFFINE, "--to", EXAMPLES / "equal_a.uir")
  assert code == 1 and out.splitlines()[-2:] == [
    "no common graph: both reachable spaces were searched to their end and share none", "searched: 34 graphs (a: 31, b: 3)"]
  code, out, _ = uopc(capsys, "explore", "search", AFFINE, "--to", EXAMPLES / "equal_a.uir", "--max-states", "10")
  assert code == 3 and out.splitlines()[-2:] == [
    "no common graph within the bounds", "searched: 10 graphs (a: 7, b: 3); incomplete: stopped by --max-states 10"]
  code, data = search_json(capsys, AFFINE, "--to", EXAMPLES / "equal_a.uir", "--max-depth", "1")
  assert code == 3 and data["found"] is False and data["meeting"] is None and data["bound"] == "max_depth"
  assert data["paths"] == {"from_a": [], "from_b": []}


# ---- deep programs

def test_a_20000_node_chain_on_the_command_line(capsys, tmp_path):
  lines = ["%0 = param : slot=0 dtype=i32"] + [f"%{i} = add %{i - 1}, 0" for i in range(1, 20_001)]
  prog = write(tmp_path, "\n".join(lines) + "\n", "deep.uir")
  code, out, err = uopc(capsys, "explore", "search", prog, "--target", "add(?x, 0)")
  assert code == 0 and err == "" and "length: 0 steps" in out and max(map(len, out.splitlines())) < 10_100   # terms past TERM_LIMIT are cut
  assert out.splitlines()[-3].startswith("bindings: ?x = add(add(") and out.splitlines()[-3].endswith("…")
RAISING_RULES = """from uopc import PatternMatcher, UPat
from uopc.symbolic import symbolic
def add_zero(x): return undefined_name + x
rules = PatternMatcher([(UPat.var("x") + 0, add_zero)]) + symbolic
"""


@pytest.mark.parametrize("extra", [["--target", "mul(p0, 3)"], ["--target", "mul(p0, 3)", "--all"], ["--to", "to.uir"],
                                   ["--target", "mul(p0, 3)", "--format", "json"]])
def test_a_rule_that_raises_is_reported_and_exits_1_even_when_found(capsys, monkeypatch, tmp_path, extra):
  monkeypatch.chdir(tmp_path)
  (tmp_path / "raising.py").write_text(RAISING_RULES)
  write(tmp_path, "%0 = param : slot=0 dtype=i32\n%1 = add %0, 0\n%2 = mul %1, 3\n")
  write(tmp_path, "%0 = param : slot=0 dtype=i32\n%1 = mul %0, 3\n", "to.uir")
  code, out, err = uopc(capsys, "explore", "search", "prog.uir", "--rules", "raising.py:rules", *extra)
  assert code == 1 and err == ""
  if "json" in extra:
    data = json.loads(out)
    assert data["found"] and data["stuck"][0] == {"rule": "raising#0 x + 0", "location": "raising.py:3", "node": "add(p0, 0)",
                                                   "error": "NameError: name 'undefined_name' is not defined"}
    example = {"id": data["stuck_groups"][0]["example"]["id"], **{k: data["stuck"][0][k] for k in ("node", "error")}}
    assert data["stuck_groups"] == [{"rule": "raising#0 x + 0", "location": "raising.py:3", "error_type": "NameError",
                                     "count": len(data["stuck"]), "example": example}]
  else:
    assert re.search(r"\n  \d+x raising#0 x \+ 0 \(raising.py:3\) raised NameError, e.g. #\d+ @ add\(p0, 0\): "
                     r"NameError: name 'undefined_name' is not defined\n", out), out
