"""``uopc explore best``: the cheapest reachable graph, its path, costs, bounds."""
import json
import pathlib

from tests.test_explore_search_cli import uopc
from uopc.relational.space.saved import step_texts

ROOT = pathlib.Path(__file__).resolve().parents[1]
EX9 = ["--rules", str(ROOT / "examples" / "saturation_rules.py") + ":rules"]
SATURATION = ROOT / "examples" / "saturation.uir"


def best_json(capsys, *argv):
  code, out, err = uopc(capsys, "explore", "best", *argv, "--format", "json")
  return code, json.loads(out)


def test_json_fields_with_a_looping_rule_set(capsys):
  code, data = best_json(capsys, SATURATION, *EX9)
  assert code == 0 and data["complete"] is True and data["best"] == "add(add(p0, p0), p1)" and data["cost"] == 4
  path = step_texts(data, data["path"])
  assert len(path) == 4 and path[0]["before"] == data["program"] and path[-1]["after"] == data["best"]
  assert data["canonical"] is None and data["canonical_cost"] is None and data["seen"] == 998


def test_text_output_and_the_canonical_result(capsys):
  code, out, _ = uopc(capsys, "explore", "best", ROOT / "examples" / "affine.uir")
  lines = out.splitlines()
  assert code == 0 and lines[2] == "best: add(mul(p0, 3), 11)   (cost 5)" and lines[3] == "path (3 steps):"
  assert "canonical: add(mul(p0, 3), 11)   (cost 5)" in lines
  assert lines[-1] == "searched: 31 graphs (31 expanded); proven cheapest: every reachable graph was seen"


def test_a_bound_exits_3(capsys):
  code, data = best_json(capsys, SATURATION, *EX9, "--max-states", "20")
  assert code == 3 and data["complete"] is False and data["bound"] == "max_states" and data["seen"] == 20


def test_a_cost_changes_the_answer(capsys):
  code, data = best_json(capsys, SATURATION, *EX9, "--cost", "add=10")
  assert code == 0 and data["cost"] == 14 and data["best"].count("mul") == 1
