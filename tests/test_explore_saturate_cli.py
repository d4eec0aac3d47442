"""``uopc saturate``: text and JSON output, reachable or only equal, bounds, costs, errors."""
import json
import pathlib

import pytest

from tests.test_explore_search_cli import uopc, write
from uopc import UOp, parse_uir, run
from uopc.evaluate import bind_params
from uopc.termparse import parse_term
from uopc.relational.space.saved import step_texts

ROOT = pathlib.Path(__file__).resolve().parents[1]
EX9 = ["--rules", str(ROOT / "examples" / "saturation_rules.py") + ":rules"]
SATURATION = ROOT / "examples" / "saturation.uir"


def saturate_json(capsys, *argv):
  code, out, err = uopc(capsys, "saturate", *argv, "--format", "json")
  assert err == ""
  return code, json.loads(out)


def test_json_fields(capsys):
  code, data = saturate_json(capsys, SATURATION, *EX9)
  assert code == 0
  assert data["best"] == "add(add(p0, p0), p1)" and data["cost"] == 4 and data["complete"] is True
  assert data["canonical"] is None and data["canonical_cost"] is None and "fixed point" in data["canonical_error"]
  assert data["reachable"] is True and len(data["path"]) == 4 and step_texts(data, data["path"])[-1]["after"] == data["best"]
  assert (data["iterations"], data["enodes"], data["eclasses"], data["stop"]) == (6, 27, 8, "saturated")
  from uopc.egraph.native import available   # built here (as tests/test_egraph_native.py requires); off under UOPC_NATIVE=0
  assert data["native"] is available()   # exercise 9's rules are all template rules: the C core runs them
  code, data = saturate_json(capsys, ROOT / "examples" / "affine.uir")
  assert data["native"] is False   # symbolic's rules are functions called per match: the Python loop


def test_json_says_the_python_loop_ran_when_asked(capsys, monkeypatch):
  monkeypatch.setenv("UOPC_NATIVE", "0")
  code, data = saturate_json(capsys, SATURATION, *EX9)
  assert code == 0 and data["native"] is False and (data["enodes"], data["eclasses"]) == (27, 8)


def test_the_canonical_result_and_its_cost(capsys):
  code, data = saturate_json(capsys, ROOT / "examples" / "affine.uir")
  assert code == 0 and data["canonical"] == data["best"] == "add(mul(p0, 3), 11)" and data["canonical_cost"] == data["cost"] == 5


def test_equal_but_not_reachable(capsys):
  prog, rules = ROOT / "examples" / "only_equal.uir", str(ROOT / "examples" / "only_equal_rules.py") + ":rules"
  code, data = saturate_json(capsys, prog, "--rules", rules)
  assert data["best"] == "add(p0, p0)" and data["cost"] == 2 and data["reachable"] is False and data["path"] is None
  assert code == 0 and data["reach_searched"] == 6
  code, best = uopc(capsys, "explore", "best", prog, "--rules", rules, "--format", "json")[:2]
  assert json.loads(best)["cost"] == 4   # the cheapest reachable graph costs more


def test_reachability_unknown_past_its_bound(capsys):
  code, out, _ = uopc(capsys, "saturate", SATURATION, *EX9, "--max-states", "3")
  assert code == 0 and "reachable: unknown (not among the first 3 graphs; --max-states 3)" in out.splitlines()


def test_a_bound_exits_3_with_the_best_so_far(capsys):
  code, data = saturate_json(capsys, SATURATION, *EX9, "--max-iterations", "1")
  assert code == 3 and data["complete"] is False and data["stop"] == "iterations"
  prog = parse_uir(SATURATION.read_bytes(), filename="s.uir")
  best = parse_term(data["best"]).to_uop()
  assert run(bind_params(best, {0: 7, 1: -3})) is run(bind_params(prog, {0: 7, 1: -3})) is UOp.const(11)


def test_costs(capsys, tmp_path):
  code, data = saturate_json(capsys, SATURATION, *EX9, "--cost", "add=10")
  assert data["best"] in ("add(mul(p0, 2), p1)", "add(p1, mul(p0, 2))", "add(mul(2, p0), p1)", "add(p1, mul(2, p0))")
  assert data["cost"] == 14 and data["cost_function"] == "add=10"
  fn = write(tmp_path, "def size(u, cs): return 1 + sum(cs)\n", "cost.py")
  code, data = saturate_json(capsys, SATURATION, *EX9, "--cost", f"{fn}:size")
  assert data["cost"] == 5 and data["best"].count("mul") == 1   # as a tree, p0 * 2 is smaller than p0 + p0


def test_bad_input_is_one_line_and_exit_2(capsys, tmp_path):
  with pytest.raises(SystemExit) as e: uopc(capsys, "saturate", SATURATION, "--cost", "frob=1")
  assert e.value.code == 2 and "argument --cost: bad --cost 'frob=1': no op 'frob'" in capsys.readouterr().err
  bad = write(tmp_path, "def bad(u, cs): return 'x'\n", "cost.py")
  code, out, err = uopc(capsys, "saturate", SATURATION, "--cost", f"{bad}:bad")
  assert code == 2 and len(err.splitlines()) == 1 and "a cost is a finite number" in err
  with pytest.raises(SystemExit) as e: uopc(capsys, "saturate", SATURATION, "--cost", "*=1.7976931348623157e308,const=0.5")
  assert e.value.code == 2 and "(weights from 0 to 1e+15)" in capsys.readouterr().err   # was exit 4: an OverflowError summing costs


def test_text_output(capsys):
  code, out, _ = uopc(capsys, "saturate", ROOT / "examples" / "order.uir")
  lines = out.splitlines()
  assert code == 0 and lines[2] == "best: mul(0.0, p0)   (cost 3)" and lines[3] == "canonical: mul(p0, 0.0)   (cost 3)"
  assert lines[-1] == "conflicts: the rules claim 0.0 = -0.0; refused (constants are compared bit for bit)"
