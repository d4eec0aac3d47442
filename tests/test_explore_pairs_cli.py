"""``uopc explore pairs``: text and JSON output, exit codes, bad input (its documented runs: tests/test_docs.py)."""
import json
import re
import pathlib

import pytest

from uopc.cli.main import main

ROOT = pathlib.Path(__file__).resolve().parents[1]
MY_RULES = "examples/my_rules.py:rules"


def uopc(capsys, *argv):
  try: code = main([str(a) for a in argv])
  except SystemExit as e: code = e.code   # argparse rejects bad flags and bad --rules values itself
  out, err = capsys.readouterr()
  return code, out, err


# ---- output and exit codes

def test_symbolic_text(capsys):
  code, out, err = uopc(capsys, "explore", "pairs")
  assert code == 1 and err == ""
  lines = out.splitlines()
  assert lines[-1].startswith("symbolic: ") and " not joinable, 0 errors, 0 undecided (" in lines[-1]
  block = lines[lines.index(next(l for l in lines if l == "NOT JOINABLE: fold-const  |  add-0.0  (both at the root)")):][:7]
  assert block == [
    "NOT JOINABLE: fold-const  |  add-0.0  (both at the root)", "  overlap: add(~x, ~_)",
    "  witness: add(-0.0, 0.0)", "  -> 0.0   by fold-const", "  -> -0.0  by add-0.0", "  no common reduct",
    "  semantic: different values: 0.0 vs -0.0"]
  # every not-joinable pair of symbolic is decided: proved equal, or different at an input replayed through run()
  assert re.fullmatch(r"values of the (\d+) not-joinable pairs: (\d+) semantic, (\d+) syntactic \(proved\)", lines[-2])
  assert "random binding" not in out and "  syntactic: equal for all inputs (proved by z3)" in lines


def test_symbolic_json(capsys):
  code, out, _ = uopc(capsys, "explore", "pairs", "symbolic", "--format", "json")
  data = json.loads(out)
  assert code == 1 and data["ruleset"] == "symbolic"
  s = data["summary"]
  assert s["overlaps"] == len(data["pairs"]) and s["errors"] == 0 and s["undecided"] == 0
  assert s["joinable"] + s["not_joinable"] == len(data["pairs"]) and s["line"].startswith("symbolic: ")
  assert {p["status"] for p in data["pairs"]} == {"joinable", "not-joinable"}
  p = next(p for p in data["pairs"] if p["rules"] == ["fold-const", "add-0.0"])
  assert (p["status"], p["witness"], p["results"], p["position"]) == ("not-joinable", "add(-0.0, 0.0)", ["0.0", "-0.0"], [])
  assert (p["verdict"], p["verdict_detail"]) == ("semantic", "different values: 0.0 vs -0.0")
  kinds = [p["verdict"] for p in data["pairs"] if p["status"] == "not-joinable"]
  assert s["verdicts"] == {k: kinds.count(k) for k in ("semantic", "syntactic", "no-difference-found", "unknown")}
  assert s["verdicts"]["unknown"] == s["verdicts"]["no-difference-found"] == 0 and s["verdicts_line"].startswith("values of the ")


def test_all_lists_the_joinable_pairs(capsys):
  _, short, _ = uopc(capsys, "explore", "pairs", MY_RULES)
  _, full, _ = uopc(capsys, "explore", "pairs", MY_RULES, "--all")
  assert "joinable pairs not listed" in short and "joinable pairs not listed" not in full
  assert len([l for l in full.splitlines() if l.startswith("joinable: ")]) == 15
  assert "mul-0  |  distribute  (both at the root): same normal form" in full


def write_rules(tmp_path, body: str, name: str = "rules_under_test.py") -> str:
  path = tmp_path / name
  path.write_text("from uopc import Ops, PatternMatcher, UOp, UPat, dtypes\nx = UPat.var('x')\n" + body)
  return f"{path}:rules"


def test_exit_0_when_every_pair_joins(capsys, tmp_path):
  spec = write_rules(tmp_path, "rules = PatternMatcher([(UPat.var('x', dtype=dtypes.i32) + 0, lambda x: x), (x * 1, lambda x: x)])\n")
  code, out, _ = uopc(capsys, "explore", "pairs", spec)
  assert code == 0 and " 0 not joinable, 0 errors, 0 undecided " in out


def test_exit_1_when_a_rule_raises(capsys, tmp_path):
  spec = write_rules(tmp_path, "def boom(x, c):\n  raise ValueError('no')\n"
                               "rules = PatternMatcher([(x * 1, lambda x: x), (UPat(Ops.MUL, src=(x, UPat.cvar('c'))), boom)])\n")
  code, out, _ = uopc(capsys, "explore", "pairs", spec)
  assert code == 1 and "ERROR: " in out and "rules_under_test#1 x * const(c) raised ValueError: no" in out


def test_exit_3_when_undecided(capsys, tmp_path):
  spec = write_rules(tmp_path, "rules = PatternMatcher([(UPat(Ops.MUL, src=(x, UPat(Ops.CONST, arg=2)), name='m'), lambda x, m: m * 1),\n"
                               "                       (UPat(Ops.MUL, src=[x, UPat(Ops.CONST, arg=2)]), lambda x: x + x)])\n")
  code, out, _ = uopc(capsys, "explore", "pairs", spec, "--max-states", "30", "--max-steps", "200", "--max-instances", "4")
  assert code == 3 and "UNDECIDED: " in out and "no common reduct found before the max_states bound" in out


def test_the_overlap_line_shows_the_op_its_witness_uses(capsys, tmp_path):
  spec = write_rules(tmp_path, "zero = UPat(Ops.CONST, arg=0)\n"
                               "rules = PatternMatcher([(UPat((Ops.ADD, Ops.MUL), src=(x, zero)), lambda x: x),\n"
                               "  (UPat((Ops.ADD, Ops.MUL), src=(x, zero), name='e'), lambda e, x: x if e.op is Ops.ADD else x.const_like(0))])\n")
  code, out, _ = uopc(capsys, "explore", "pairs", spec)
  lines = out.splitlines()
  assert code == 1 and lines[:3] == ["NOT JOINABLE: rules_under_test#0 {add,mul}(x, 0)  |  rules_under_test#1 e={add,mul}(x, 0)  (both at the root)",
                                     "  overlap: mul(~x, ~_)", "  witness: mul(p0, False)"]


def test_module_attr_and_sums_are_accepted(capsys):
  code, out, _ = uopc(capsys, "explore", "pairs", "uopc.symbolic:fold")
  assert code == 0 and out.splitlines()[-1].startswith("uopc.symbolic:fold: 1 rules, 1 overlaps")


@pytest.mark.parametrize("spec, message", [
  ("nonesuch", "unknown rule set 'nonesuch'"),
  ("examples/missing.py:rules", "no file examples/missing.py"),
  ("examples/my_rules.py:nothing", "examples/my_rules.py has no attribute 'nothing'"),
  ("examples/my_rules.py:fold", "is a function, not a uopc PatternMatcher"),
])
def test_bad_rule_sets_exit_2(capsys, monkeypatch, spec, message):
  monkeypatch.chdir(ROOT)
  code, out, err = uopc(capsys, "explore", "pairs", spec)
  assert code == 2 and out == "" and message in err and "Traceback" not in err
