"""``uopc explore order``: text and JSON output, exit codes, bad input (its documented runs: tests/test_docs.py)."""
import json

import pytest

from uopc import symbolic
from tests.test_explore_pairs_cli import MY_RULES, ROOT, uopc, write_rules
from uopc.relational.space.saved import step_texts

def test_text_report_of_the_chapters_program(capsys):
  code, out, err = uopc(capsys, "explore", "order", ROOT / "examples" / "order.uir")
  assert code == 0 and err == ""
  lines = out.splitlines()
  assert "canonical (graph_rewrite): mul(p0, 0.0) (2 steps)" in lines
  assert "  [1] mul(p0, 0.0)   <- canonical" in lines and "  [2] mul(p0, -0.0)" in lines
  assert "the result depends on rule order: 1 other normal form (1 semantic)" in lines
  assert "  at state #0: mul(add(-0.0, 0.0), p0)" in lines and "  node: add(-0.0, 0.0)" in lines
  assert any(l == "  canonical rule: fold-const" for l in lines)


def test_one_normal_form(capsys, tmp_path):
  prog = tmp_path / "p.uir"
  prog.write_text("%0 = param : slot=0 dtype=i32\n%1 = add %0, 0\n%2 = mul %1, 1\n")
  code, out, _ = uopc(capsys, "explore", "order", prog)
  assert code == 0 and "the result does not depend on rule order: one normal form" in out and "fork" not in out


def test_json_report(capsys):
  code, out, _ = uopc(capsys, "explore", "order", ROOT / "examples" / "order.uir", "--format", "json", "--permutations")
  data = json.loads(out)
  assert code == 0 and data["complete"] and data["bound"] is None
  assert data["canonical"] == "mul(p0, 0.0)" and data["normal_forms"] == ["mul(p0, 0.0)", "mul(p0, -0.0)"]
  assert data["canonical_index"] == 0 and data["canonical_path_complete"] and len(data["canonical_path"]) == 2
  (f,) = data["forks"]
  assert (f["normal_form"], f["fork_term"], f["node"], f["kind"]) == ("mul(p0, -0.0)", "mul(add(-0.0, 0.0), p0)", "add(-0.0, 0.0)", "semantic")
  assert f["canonical_rule"] == "fold-const" and f["competing_rule"] == "add-0"
  assert data["format"] == 2   # the paths name graphs by row of data["nodes"]
  assert [s["after"] for s in step_texts(data, f["canonical_path"])] == ["mul(0.0, p0)", "mul(p0, 0.0)"]
  assert [s["after"] for s in step_texts(data, f["competing_path"])] == ["mul(-0.0, p0)", "mul(p0, -0.0)"]
  perms = data["permutations"]
  assert perms["tried"] == 1 + 3 + len(symbolic.rules) - 1 and len(perms["changed"]) == 6   # reversed, 3 swaps, rotations
  assert perms["order_matters"] == [["fold-const", "add-0"], ["fold-const", "add-0.0"]]


def test_syntactic_fork_of_the_example(capsys, monkeypatch):
  monkeypatch.chdir(ROOT)
  code, out, _ = uopc(capsys, "explore", "order", "examples/fork.uir", "--rules", MY_RULES, "--format", "json")
  data = json.loads(out)
  assert code == 0 and [f["kind"] for f in data["forks"]] == ["syntactic"]
  assert data["forks"][0]["competing_rule"] == "mul-2"


def test_a_closed_program_is_compared_by_value(capsys, tmp_path):
  prog = tmp_path / "p.uir"
  prog.write_text("%0 = add -0.0, 0.0\n")
  code, out, _ = uopc(capsys, "explore", "order", prog)
  assert code == 0 and "values: the program is closed" in out
  assert "fork to [2] -0.0: semantic: different values: 0.0 vs -0.0" in out
  assert "the result depends on rule order: 1 other normal form (1 semantic)" in out


def test_exit_3_when_a_bound_is_hit(capsys):
  code, out, _ = uopc(capsys, "explore", "order", ROOT / "examples" / "order.uir", "--max-states", "2")
  assert code == 3 and "incomplete: stopped by --max-states 2" in out
  assert "no normal form found by the exploration (there may be more: it stopped before exhausting the space)" in out
  assert "at least 2 normal forms (sampled: the space was not exhausted)" in out


def test_exit_1_when_the_canonical_engine_fails(capsys, tmp_path):
  spec = write_rules(tmp_path, "def boom(x):\n  raise ValueError('no')\nrules = PatternMatcher([(x * 1, boom)])\n")
  prog = tmp_path / "p.uir"
  prog.write_text("%0 = param : slot=0 dtype=i32\n%1 = mul %0, 1\n")
  code, out, _ = uopc(capsys, "explore", "order", prog, "--rules", spec)
  assert code == 1 and "canonical: none (rule rules_under_test#0 x * 1 (rules_under_test.py:3) raised ValueError: no)" in out


@pytest.mark.parametrize("argv, message", [
  (["missing.uir"], "missing.uir: cannot read"),
  (["examples/order.uir", "--rules", "nonesuch"], "unknown rule set 'nonesuch'"),
  (["examples/order.uir", "--max-states", "0"], "expected a positive integer"),
])
def test_bad_input_exits_2(capsys, monkeypatch, argv, message):
  monkeypatch.chdir(ROOT)
  code, out, err = uopc(capsys, "explore", "order", *argv)
  assert code == 2 and out == "" and message in err and "Traceback" not in err


def test_a_parse_error_is_one_line(capsys, tmp_path):
  prog = tmp_path / "bad.uir"
  prog.write_text("%0 = frob 1\n")
  code, out, err = uopc(capsys, "explore", "order", prog)
  assert code == 2 and "bad.uir:1:6: unknown op 'frob'" in err and err.count("\n") == 1


def test_max_steps_bounds_the_canonical_engine(capsys):
  code, out, _ = uopc(capsys, "explore", "order", ROOT / "examples" / "order.uir", "--max-steps", "2", "--format", "json")
  data = json.loads(out)
  assert code == 1 and data["canonical"] is None and data["forks"] == []
  assert data["canonical_error"] == "the canonical engine did not reach a fixed point within 2 rule lookups"
  code, out, _ = uopc(capsys, "explore", "order", ROOT / "examples" / "order.uir", "--max-steps", "20", "--format", "json")
  assert code == 0 and json.loads(out)["canonical"] == "mul(p0, 0.0)"
def test_exit_1_when_a_rule_raises_off_the_canonical_path(capsys, tmp_path):
  # the engine fires x * 1 on mul(p0, 1) first; the explorer also tries the raising rule there
  spec = write_rules(tmp_path, "def boom(x, c):\n  raise ValueError('no')\n"
                               "rules = PatternMatcher([(x * 1, lambda x: x), (x + 0, lambda x: x),\n"
                               "                        (UPat(Ops.MUL, src=(UPat(Ops.PARAM, name='x'), UPat.cvar('c'))), boom)])\n")
  prog = tmp_path / "p.uir"
  prog.write_text("%0 = param : slot=0 dtype=i32\n%1 = add %0, 0\n%2 = mul %1, 1\n")
  code, out, _ = uopc(capsys, "explore", "order", prog, "--rules", spec)
  assert code == 1 and "canonical (graph_rewrite): p0" in out
  assert "1 stuck step (a rule raised), 1 rule and exception:\n" \
         "  1x rules_under_test#2 x=param * const(c) (rules_under_test.py:3) raised ValueError, e.g. #" in out
  assert " @ mul(p0, 1): ValueError: no\n" in out


def test_the_fork_search_and_the_rule_orders_show_progress_on_a_terminal(capsys, monkeypatch):
  import io
  import sys
  from uopc.cli import support as cli_support

  class TTY(io.StringIO):
    def isatty(self): return True
  monkeypatch.setattr(cli_support, "PROGRESS_DELAY", 0)   # up at once: the real bar waits a second
  tty = TTY()
  monkeypatch.setattr(sys, "stderr", tty)
  code, out, _ = uopc(capsys, "explore", "order", ROOT / "examples" / "order.uir", "--permutations")
  assert code == 0 and "finding forks" in tty.getvalue() and "trying rule orders" in tty.getvalue()
  assert "finding forks" not in out and out.startswith("program: ")
