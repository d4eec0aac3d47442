"""``uopc explore reachable`` and ``uopc explore normal-forms``: formats, bounds and exit codes."""
import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, strategies as st

from tests.helpers import SUM_UIR as SUM
from uopc.cli.main import main
from uopc.relational.space.saved import NodeTexts

ROOT = Path(__file__).resolve().parent.parent
# x + 0 -> x (ordered) and a rule that always raises on MUL, as a module:attr rule set
RULES_MODULE = """\
from uopc import Ops, PatternMatcher, UPat
def boom(x): raise ValueError("no MUL today")
units = PatternMatcher([(UPat(Ops.ADD, src=(UPat.var("x"), UPat(Ops.CONST, arg=0))), lambda x: x)])
raising = PatternMatcher([(UPat(Ops.MUL, name="x"), boom)] + units.rules)
commute = PatternMatcher([(UPat(Ops.ADD, src=(UPat.var("x"), UPat.var("y"))), lambda x, y: y + x)])
not_rules = 42
"""


@pytest.fixture
def prog(tmp_path):
  path = tmp_path / "sum.uir"
  path.write_text(SUM)
  return str(path)


@pytest.fixture
def rules_module(tmp_path, monkeypatch):
  (tmp_path / "cli_test_rules.py").write_text(RULES_MODULE)
  monkeypatch.syspath_prepend(str(tmp_path))
  return "cli_test_rules"


def run_cli(capsys, *argv):
  code = main(list(argv))
  out, err = capsys.readouterr()
  return code, out, err


def test_normal_forms_text(capsys, prog):
  code, out, err = run_cli(capsys, "explore", "normal-forms", prog)
  assert code == 0 and err == ""
  lines = out.splitlines()
  assert lines[0] == "program: add(mul(add(p0, 0), 1), add(mul(p1, 1), 0))"
  assert lines[1] == "rules: symbolic"
  assert lines[2].startswith("explored 72 states, ") and ": complete" in lines[2]
  assert lines[3] == "2 normal forms:"
  assert lines[4] == "[1] add(p0, p1)   <- canonical (graph_rewrite gives this one)"
  assert lines[5] == "    4 steps:"
  assert lines[6] == "      1. mul-1: mul(add(p0, 0), 1) -> add(p0, 0)"   # the node and its replacement
  assert "[2] add(p1, p0)" in lines and lines[-2] == "canonical: add(p0, p1) = normal form [1]"
  assert lines[-1] == "termination: every rule order terminates: no explored state lies on a cycle"


def test_reachable_text_streams_states_then_a_summary(capsys, prog):
  code, out, _ = run_cli(capsys, "explore", "reachable", prog)
  lines = out.splitlines()
  assert code == 0
  assert lines[:3] == ["program: add(mul(add(p0, 0), 1), add(mul(p1, 1), 0))", "rules: symbolic; breadth first",
                       "#0     d=0   add(mul(add(p0, 0), 1), add(mul(p1, 1), 0))"]
  assert lines[3].startswith("#1     d=1   ") and " <- #0 by " in lines[3]
  assert sum(line.startswith("#") for line in lines) == 72
  assert any(line.startswith("72 states, ") and "2 normal forms, 0 stuck; complete" in line for line in lines)
  assert lines[-1].startswith("canonical (graph_rewrite): add(p0, p1) (state #")


def test_reachable_json(capsys, prog):
  code, out, _ = run_cli(capsys, "explore", "reachable", prog, "--format", "json")
  data = json.loads(out)
  assert code == 0 and data["complete"] is True and data["bound"] is None
  assert data["normal_forms"] == ["add(p0, p1)", "add(p1, p0)"] and data["canonical"] == "add(p0, p1)"
  assert len(data["states"]) == 72
  s0, s1 = data["states"][:2]
  text = NodeTexts(data["nodes"])   # format 2: graphs and nodes are rows of the node table
  assert data["format"] == 2 and s0 == {"id": 0, "depth": 0, "parent": None, "rule": None, "node": None, "result": None,
                                        "graph": s0["graph"], "normal": False, "error": None}
  assert text(s0["graph"]) == data["program"] == "add(mul(add(p0, 0), 1), add(mul(p1, 1), 0))"
  assert s1["parent"] == 0 and s1["depth"] == 1 and s1["rule"] == "const-outward"
  assert s1["node"] == s0["graph"] and s1["result"] == s1["graph"]   # at the root
  assert text(s1["graph"]) == "add(add(mul(p1, 1), mul(add(p0, 0), 1)), 0)"
  assert text(data["states"][data["canonical_state"]]["graph"]) == "add(p0, p1)"
  assert all({"from", "to", "rule", "node", "result"} <= set(e) for e in data["edges"])
  assert {(e["from"], e["to"]) for e in data["edges"]} >= {(s["parent"], s["id"]) for s in data["states"][1:]}


def test_normal_forms_json_has_paths(capsys, prog):
  code, out, _ = run_cli(capsys, "explore", "normal-forms", prog, "--format", "json")
  data = json.loads(out)
  assert code == 0 and data["normal_forms"] == ["add(p0, p1)", "add(p1, p0)"]
  path = data["paths"][str(data["normal_form_ids"][0])]
  graph = {s["id"]: s["graph"] for s in data["states"]}
  text = NodeTexts(data["nodes"])
  assert len(path) == 4 and path[0]["from"] == 0 and [a["to"] for a in path[:-1]] == [b["from"] for b in path[1:]]
  assert text(graph[path[-1]["to"]]) == "add(p0, p1)" and path[-1]["to"] == data["normal_form_ids"][0]


def test_dot_marks_normal_forms_and_the_canonical_one(capsys, tmp_path):
  path = tmp_path / "order.uir"
  path.write_text((ROOT / "examples" / "order.uir").read_text())
  code, out, _ = run_cli(capsys, "explore", "reachable", str(path), "--format", "dot")
  assert code == 0 and out.startswith("// uopc explore") and "digraph states {" in out
  assert '3 [label="#3 mul(p0, 0.0)" fillcolor=palegreen peripheries=2 style=filled]' in out
  assert '4 [label="#4 mul(p0, -0.0)" peripheries=2]' in out
  assert '0 -> 2 [label="add-0"]' in out
  import graphviz
  assert graphviz.Source(out).source == out           # valid source for the graphviz package


def test_bundled_order_example(capsys):
  code, out, _ = run_cli(capsys, "explore", "normal-forms", str(ROOT / "examples" / "order.uir"))
  assert code == 0
  assert "[1] mul(p0, 0.0)   <- canonical (graph_rewrite gives this one)" in out
  assert "[2] mul(p0, -0.0)" in out and "add-0: add(-0.0, 0.0) -> -0.0" in out


def test_a_bound_exits_3_with_partial_output(capsys, prog):
  code, out, _ = run_cli(capsys, "explore", "reachable", prog, "--max-states", "5")
  assert code == 3 and "incomplete: stopped by --max-states 5" in out and sum(line.startswith("#") for line in out.splitlines()) == 5
  code, out, _ = run_cli(capsys, "explore", "normal-forms", prog, "--max-depth", "2", "--format", "json")
  data = json.loads(out)
  assert code == 3 and data["bound"] == "max_depth" and data["complete"] is False and data["normal_forms"] == []
  code, out, _ = run_cli(capsys, "explore", "normal-forms", prog, "--max-depth", "2", "--samples", "0")
  assert code == 3 and "no normal form found by the exploration (there may be more: it stopped before exhausting the space)\n" in out
  assert "(not reached within the bounds)" in out


def test_dfs_and_custom_rules(capsys, prog, rules_module):
  code, out, _ = run_cli(capsys, "explore", "reachable", prog, "--dfs", "--rules", f"{rules_module}:commute", "--format", "json")
  data = json.loads(out)
  assert code == 0 and len(data["states"]) == 8 and data["normal_forms"] == []
  assert data["canonical"] is None and "fixed point" in data["canonical_error"]


def test_a_raising_rule_is_reported_and_exits_1(capsys, prog, rules_module):
  for command in ("normal-forms", "reachable"):
    code, out, err = run_cli(capsys, "explore", command, prog, "--rules", f"{rules_module}:raising")
    assert code == 1 and err == "", command   # found something: a rule that raises
    assert "x cli_test_rules#0 x=mul (cli_test_rules.py:2) raised ValueError, e.g. #" in out
    assert " @ mul(add(p0, 0), 1): ValueError: no MUL today" in out
    assert "canonical: none (rule cli_test_rules#0 x=mul (cli_test_rules.py:2) raised ValueError: no MUL today)" in out


def test_bad_input_is_one_line_exit_2(capsys, tmp_path):
  bad = tmp_path / "bad.uir"
  bad.write_text("%0 = param : slot=0 dtype=i32\n%1 = frob %0, 2\n")
  code, out, err = run_cli(capsys, "explore", "reachable", str(bad))
  assert code == 2 and out == "" and err.count("\n") == 1 and err.startswith(f"{bad}:2:")
  code, out, err = run_cli(capsys, "explore", "normal-forms", str(tmp_path / "missing.uir"))
  assert code == 2 and "cannot read" in err and err.count("\n") == 1


@pytest.mark.parametrize("flags", [["--max-states", "0"], ["--max-depth", "-1"], ["--timeout", "nan"],
                                   ["--format", "svg"]])
def test_bad_flags_exit_2(capsys, prog, flags):
  with pytest.raises(SystemExit) as e: main(["explore", "reachable", prog, *flags])
  assert e.value.code == 2
  assert "error:" in capsys.readouterr().err


def test_a_bad_rule_set_exits_2_after_parsing(capsys, prog):
  assert run_cli(capsys, "explore", "reachable", prog, "--rules", "nope")[:2] == (2, "")


def test_no_progress_bar_when_stderr_is_not_a_terminal(capsys, prog):
  code, _, err = run_cli(capsys, "explore", "reachable", prog)
  assert code == 0 and err == ""


def test_uopc_run_does_not_import_the_explorer():
  """Only the IR registry (--rules' help names each IR's rule sets): no kanren, no exploration, no analysis."""
  code = ("import sys; from uopc.cli.main import build_parser; build_parser(); "
          "print(any(m.startswith(('kanren', 'unification', 'etuples', 'uopc.relational.space', 'uopc.relational.logic', "
          "'uopc.relational.analyses', 'uopc.relational.native', 'uopc.relational.cluster')) for m in sys.modules))")
  out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                       env={**os.environ, "PYTHONPATH": str(ROOT)}, check=True).stdout
  assert out.strip() == "False"


class FakeTTY(io.StringIO):
  def isatty(self): return True


def test_progress_bar_on_a_terminal_stays_off_stdout(capsys, prog, monkeypatch):
  import uopc.cli.support
  monkeypatch.setattr(uopc.cli.support, "PROGRESS_DELAY", 0)
  tty = FakeTTY()
  monkeypatch.setattr(sys, "stderr", tty)
  code = main(["explore", "reachable", prog])
  out = capsys.readouterr().out
  assert code == 0 and "exploring" in tty.getvalue() and "state" in tty.getvalue()
  lines = out.splitlines()
  assert sum(line.startswith("#") for line in lines) == 72 and all("exploring" not in line for line in lines)
  assert lines[2] == "#0     d=0   add(mul(add(p0, 0), 1), add(mul(p1, 1), 0))"


@pytest.mark.parametrize("samples, unit", [(["--samples", "3"], "/3 [00:00<?, ?run/s]"), ([], "/600000 [00:00<?, ?graph/s]")])
def test_the_sampling_after_a_bound_draws_its_progress_too(capsys, prog, monkeypatch, samples, unit):
  # past a bound normal-forms samples random runs (the default: until they made 600,000 graphs, seconds of work)
  import uopc.cli.support
  monkeypatch.setattr(uopc.cli.support, "PROGRESS_DELAY", 0)
  tty = FakeTTY()
  monkeypatch.setattr(sys, "stderr", tty)
  code = main(["explore", "normal-forms", prog, "--max-states", "5", *samples])
  out = capsys.readouterr().out
  assert code == 3 and "sampling:" in tty.getvalue() and unit in tty.getvalue() and "sampling:" not in out
  assert "incomplete: stopped by --max-states 5" in out


def test_canonical_reached_but_not_expanded(capsys, prog):
  code, out, err = run_cli(capsys, "explore", "normal-forms", prog, "--max-states", "67", "--samples", "0")
  assert code == 3 and err == ""
  assert out.splitlines()[-2] == "canonical: add(p0, p1) (state #66, not expanded within the bounds)"
  assert out.splitlines()[-1].startswith("termination: not established whether every rule order terminates")


def test_max_steps_is_the_canonical_engines_budget(capsys, prog, rules_module):
  code, out, _ = run_cli(capsys, "explore", "normal-forms", prog, "--max-steps", "3", "--format", "json")
  data = json.loads(out)
  assert code == 0 and data["canonical"] is None
  assert data["canonical_error"].startswith("the canonical engine did not reach a fixed point within 3 rule lookups (")
  code, out, _ = run_cli(capsys, "explore", "reachable", prog, "--rules", f"{rules_module}:commute", "--max-steps", "77")
  assert code == 0 and out.splitlines()[-1].startswith("canonical: none (the canonical engine did not reach a fixed point within 77 rule lookups (")
  code, out, _ = run_cli(capsys, "explore", "normal-forms", prog, "--format", "json")   # the default grows with the program
  assert json.loads(out)["canonical"] == "add(p0, p1)"

def wide_program(tmp_path) -> str:
  """(((p0 + 0) * 1) * 1 + (p1 + 0) * 1) + (p2 + 0) * 1: thousands of states."""
  lines = []
  for i in range(3):
    lines += [f"%{4 * i} = param : slot={i} dtype=i32", f"%{4 * i + 1} = add %{4 * i}, 0", f"%{4 * i + 2} = mul %{4 * i + 1}, 1"]
    lines.append(f"%{4 * i + 3} = add %{4 * i - 1}, %{4 * i + 2}" if i else "%3 = mul %2, 1")
  path = tmp_path / "wide.uir"
  path.write_text("\n".join(lines) + "\n")
  return str(path)


def run_on_terminals(monkeypatch, prog, stdout):
  err = FakeTTY()
  monkeypatch.setattr(sys, "stdout", stdout)
  monkeypatch.setattr(sys, "stderr", err)
  assert main(["explore", "reachable", prog]) == 0
  monkeypatch.undo()
  return untimed(stdout.getvalue()), err.getvalue()


def untimed(text: str) -> str: return re.sub(r"[0-9.]+ s\b", "T s", text)


@pytest.mark.parametrize("stdout", [FakeTTY, io.StringIO])
def test_no_progress_bar_before_its_delay(capsys, monkeypatch, tmp_path, stdout):
  import uopc.cli.support
  prog = wide_program(tmp_path)
  plain = untimed(run_cli(capsys, "explore", "reachable", prog)[1])
  monkeypatch.setattr(uopc.cli.support, "PROGRESS_DELAY", 3600.0)   # every run is shorter than the delay: no bar at all
  assert run_on_terminals(monkeypatch, prog, stdout()) == (plain, "")


def test_lines_to_a_redirected_stdout_do_not_redraw_the_bar(capsys, monkeypatch, tmp_path):
  import uopc.cli.support
  prog = wide_program(tmp_path)
  plain = untimed(run_cli(capsys, "explore", "reachable", prog)[1])
  monkeypatch.setattr(uopc.cli.support, "PROGRESS_DELAY", 0.0)        # the bar is up from the start,
  monkeypatch.setattr(uopc.cli.support, "PROGRESS_INTERVAL", 3600.0)  # drawn on the first update and cleared at the end
  out, err = run_on_terminals(monkeypatch, prog, io.StringIO())
  assert out == plain and len(plain.splitlines()) > 1000 and 1 <= err.count("\r") <= 3


def test_dot_for_python_is_a_digraph_and_large_spaces_can_be_cut(capsys, prog):
  import graphviz
  from uopc.cli.reports.exploration import dot_states, to_dot
  from uopc.relational import canonical, explore
  from uopc.symbolic import symbolic
  from uopc.uir import parse_uir
  g = parse_uir(SUM)
  ex = explore(g, symbolic).run()
  canon, _ = canonical(g, symbolic)
  dot = to_dot(ex, canon, "symbolic")
  assert isinstance(dot, graphviz.Digraph) and dot.source.count(" -> ") == len(ex.edges)
  paths = dot_states(ex, canon, paths_only=True)
  on_paths = {s.id for nf in ex.normal_forms for s in [*(e.source for e in nf.path()), nf]}
  assert {s.id for s in paths} == on_paths and len(paths) < len(ex.states)
  assert [s.id for s in dot_states(ex, canon, max_nodes=3)][:1] == [0] and len(dot_states(ex, canon, max_nodes=3)) == 3
  code, out, _ = run_cli(capsys, "explore", "reachable", prog, "--format", "dot", "--dot-max-nodes", "5")
  assert code == 0 and out.count("label=\"#") == 5 and f"5 of {len(ex.states)} states drawn" in out
  code, out, _ = run_cli(capsys, "explore", "normal-forms", prog, "--format", "dot", "--dot-paths")
  assert code == 0 and out.count("label=\"#") == len(on_paths)
def test_normal_forms_reduce_by_default_and_no_reduce_visits_every_graph(capsys):
  code, out, _ = run_cli(capsys, "explore", "normal-forms", "examples/stack30.uir", "--format", "json")
  data = json.loads(out)
  assert code == 0 and data["complete"] and data["reduced"] is True and data["cycles"] == []
  assert len(data["states"]) == 31 and len(data["normal_forms"]) == 1
  code, out, _ = run_cli(capsys, "explore", "normal-forms", "examples/stack30.uir", "--no-reduce", "--max-states", "500", "--samples", "0",
                         "--format", "json")
  data = json.loads(out)
  assert code == 3 and data["reduced"] is False and len(data["states"]) == 500


def test_a_looping_rule_set_reports_its_cycle(capsys, tmp_path):
  (tmp_path / "loop.py").write_text("from uopc import PatternMatcher, UPat\nx = UPat.var('x')\n"
                                    "rules = PatternMatcher([(x * 2, lambda x: x + x), (x + x, lambda x: x * 2)])\n")
  (tmp_path / "loop.uir").write_text("%0 = param : slot=0 dtype=i32\n%1 = mul %0, 2\n")
  code, out, _ = run_cli(capsys, "explore", "normal-forms", str(tmp_path / "loop.uir"), "--rules", f"{tmp_path / 'loop.py'}:rules")
  assert code == 0 and "0 normal forms\n1 cycle" in out and "rules: x * 2; x + x" in out
  code, out, _ = run_cli(capsys, "explore", "order", str(tmp_path / "loop.uir"), "--rules", f"{tmp_path / 'loop.py'}:rules",
                         "--format", "json", "--max-steps", "1000")   # the engine's loop is found in 1,000 lookups, not 1,000,000
  data = json.loads(out)
  assert data["normal_forms"] == [] and [c["terms"] for c in data["cycles"]] == [["mul(p0, 2)", "add(p0, p0)"]]
  assert [r.split(" ", 1)[1] for r in data["cycles"][0]["rules"]] == ["x * 2", "x + x"]


def test_the_package_installs_no_top_level_explore_and_pages_work_outside_the_repo(tmp_path):
  """explore/ holds scripts, never a package; the viewer is package data: run where the repository is not on sys.path."""
  import subprocess
  code = "import importlib.util, sys; print(importlib.util.find_spec('explore') is None, importlib.util.find_spec('uopc.cli.reports') is not None)"
  out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True).stdout
  assert out.split() == ["True", "True"]
  (tmp_path / "p.uir").write_text("%0 = param : slot=0 dtype=i32\n%1 = add %0, 0\n")
  proc = subprocess.run([sys.executable, "-m", "uopc", "explore", "normal-forms", "p.uir", "--format", "html", "-o", "p.html"],
                        cwd=tmp_path, capture_output=True, text=True)
  assert proc.returncode == 0 and "<script>" in (tmp_path / "p.html").read_text()


def test_semantics_tree_flag(capsys):
  prog, rules = str(ROOT / "examples" / "aesara.uir"), str(ROOT / "examples" / "aesara_rules.py") + ":rules"
  code, out, err = run_cli(capsys, "explore", "reachable", prog, "--rules", rules, "--semantics", "tree", "--format", "json")
  tree = json.loads(out)
  code2, out2, _ = run_cli(capsys, "explore", "reachable", prog, "--rules", rules, "--format", "json")
  assert code == code2 == 0 and err == ""
  assert len(tree["states"]) == 21 and len(json.loads(out2)["states"]) == 19
  code, out, err = run_cli(capsys, "explore", "normal-forms", prog, "--rules", rules, "--semantics", "tree")
  assert code == 0 and out.splitlines()[1] == f"rules: {rules}; tree semantics"
  with pytest.raises(SystemExit) as e: main(["explore", "reachable", prog, "--semantics", "forest"])
  assert e.value.code == 2


# ---- output at the size of the DAG

def fibonacci_program(levels: int):
  """Each level ``mul(add(x, y), 1)`` of the two before it: every node used twice, so the tree form is exponential."""
  from uopc import UOp
  a, b = UOp.param(0), UOp.param(1)
  for _ in range(levels): a, b = b, (a + b) * 1
  return b


def test_a_100_node_program_explores_at_the_size_of_its_dag(capsys, tmp_path):
  from uopc.termparse import parse_term
  from uopc.uir import to_uir
  u = fibonacci_program(48)
  nodes = len(u.toposort())
  assert nodes == 99
  path = tmp_path / "fib.uir"
  path.write_text(to_uir(u))
  code, out, err = run_cli(capsys, "explore", "reachable", str(path), "--max-states", "60")
  assert code == 3 and err == ""
  lines = out.splitlines()
  states = [line for line in lines if line.startswith("#")]
  assert len(states) == 60
  # a state line is the graph and the step that reached it (node and replacement): each at most the DAG, named once
  assert max(map(len, lines)) <= 40 * nodes
  assert len(out) <= 40 * nodes * (len(states) + 5)
  code, out, err = run_cli(capsys, "explore", "reachable", str(path), "--max-states", "60", "--format", "json")
  data = json.loads(out)
  text = NodeTexts(data["nodes"])
  for s in data["states"]:
    term = text(s["graph"])
    assert len(term) <= 15 * nodes
    assert str(parse_term(term)) == term   # what is printed parses, and prints the same again
  assert parse_term(data["program"]).to_uop() is u


def test_the_json_report_shows_its_progress_on_a_terminal(capsys, monkeypatch, tmp_path):
  # building a big report's states and steps took a minute for five_params: a bar of its own, off stdout and the file
  import uopc.cli.support
  monkeypatch.setattr(uopc.cli.support, "PROGRESS_DELAY", 0)
  tty = FakeTTY()
  monkeypatch.setattr(sys, "stderr", tty)
  out = tmp_path / "r.json"
  code = main(["explore", "reachable", wide_program(tmp_path), "--format", "json", "-o", str(out)])
  assert code == 0 and "report" in tty.getvalue() and "item" in tty.getvalue()
  assert json.loads(out.read_text())["format"] == 2


_json = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=4),
                     lambda inner: st.lists(inner, max_size=6) | st.dictionaries(st.text(max_size=3), inner, max_size=4), max_leaves=20)


@given(st.dictionaries(st.sampled_from(["states", "edges", "nodes", "other"]), _json), st.integers(1, 4))
def test_the_compact_json_is_json_dumps_a_chunk_at_a_time(data, chunk):
  # on a terminal (the bar enabled, never drawn in an hour's delay) the lists go a chunk at a time: the same text
  from unittest import mock
  import uopc.cli.support
  from uopc.cli.reports.exploration import _compact_json
  with mock.patch.object(sys, "stderr", FakeTTY()), mock.patch.object(uopc.cli.support, "PROGRESS_DELAY", 3600.0):
    assert _compact_json(data, 10, chunk=chunk) == json.dumps(data, ensure_ascii=False, separators=(",", ":"))


def test_the_compact_json_shows_its_progress_on_a_terminal(monkeypatch):
  # one json.dumps of five_params' whole space took 20 to 50 s with nothing shown
  import uopc.cli.support
  from uopc.cli.reports.exploration import _compact_json
  monkeypatch.setattr(uopc.cli.support, "PROGRESS_DELAY", 0)
  monkeypatch.setattr(uopc.cli.support, "PROGRESS_INTERVAL", 0)
  tty = FakeTTY()
  monkeypatch.setattr(sys, "stderr", tty)
  assert json.loads(_compact_json({"states": list(range(100)), "nodes": [[1]] * 50}, 150, chunk=10))["nodes"] == [[1]] * 50
  assert "json" in tty.getvalue() and "150/150" in tty.getvalue()
