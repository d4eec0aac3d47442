"""Stuck steps are grouped in every explorer command's output: one line per rule and exception type, with a count and
one example (issue 39: one run printed 5,390 lines of one rule's ZeroDivisionError, one per stuck step)."""
from __future__ import annotations

import json

import pytest

from uopc import PatternMatcher, UOp, UPat
from uopc.cli.main import main
from uopc.relational.space.stream import Exploration
from uopc.relational.space.stuck import group_stuck

# tinygrad's fold_divmod_general (divandmod.py:108) raises ZeroDivisionError on each (v*2 + 0) // 5 left, in every state
MANY = '''from tinygrad.uop.ops import UOp
vs = [UOp.variable(f"v{i}", 0, 10) for i in range(4)]
prog = sum(((v * 2 + 0) // 5 for v in vs[1:]), (vs[0] * 2 + 0) // 5)
'''


def uopc(capsys, *argv: str) -> tuple[int, str]:
  code = main(list(argv))
  return code, capsys.readouterr().out


@pytest.fixture
def many(tmp_path, monkeypatch) -> str:
  (tmp_path / "many.py").write_text(MANY)
  monkeypatch.chdir(tmp_path)
  return "many.py:prog"


def stuck_count(capsys, many: str) -> int:
  code, out = uopc(capsys, "explore", "reachable", many, "--rules", "tinygrad:symbolic", "--format", "json")
  data = json.loads(out)
  assert code == 1 and [g["count"] for g in data["stuck_groups"]] == [len(data["stuck"])]
  assert data["stuck_groups"][0]["error_type"] == "ZeroDivisionError" and data["stuck_groups"][0]["location"] == "divandmod.py:108"
  return len(data["stuck"])


@pytest.mark.parametrize("command", [["explore", "normal-forms"], ["explore", "order"], ["explore", "reachable"],
                                     ["explore", "search", "--target", "mul(?a, 7)"]])
def test_one_line_per_rule_and_exception(capsys, many, command):
  n = stuck_count(capsys, many)
  assert n > 10   # the rule raises in many states: grouping is what keeps the output short
  code, out = uopc(capsys, *command[:2], many, "--rules", "tinygrad:symbolic", *command[2:])
  raised = [line for line in out.splitlines() if "ZeroDivisionError" in line and not line.startswith("#")]   # reachable streams each state as #id
  assert code in (0, 1) and f"{n:,} stuck steps (a rule raised), 1 rule and exception:" in out
  assert raised == [next(line for line in raised if line.startswith(f"  {n:,}x "))]
  assert "divandmod.py:108 raised ZeroDivisionError, e.g. #" in raised[0] and "@ floordiv(add(mul(v" in raised[0]


def test_two_rules_two_exceptions_two_groups(capsys):
  x = UPat.var("x")
  pm = PatternMatcher([(x + 0, lambda x: 1 // 0), (x * 1, lambda x: int("one")), (x + 0, lambda x: [][1])])
  prog = (UOp.param(0) + 0) * 1 + (UOp.param(1) + 0) * 1
  ex = Exploration(prog, pm).run()
  groups = group_stuck(ex.stuck)
  assert sorted((g.error_type, g.steps) for g in groups) == sorted([("ZeroDivisionError", 2), ("ValueError", 2), ("IndexError", 2)])
  assert sum(g.steps for g in groups) == len(ex.stuck) and all(g.example in ex.stuck for g in groups)
  assert len({(g.rule, g.error_type) for g in groups}) == 3


def test_order_json_has_the_groups(capsys, many):
  n = stuck_count(capsys, many)
  code, out = uopc(capsys, "explore", "order", many, "--rules", "tinygrad:symbolic", "--format", "json")
  groups = json.loads(out)["stuck_groups"]
  assert code == 1 and [(g["location"], g["error_type"], g["count"]) for g in groups] == [("divandmod.py:108", "ZeroDivisionError", n)]
