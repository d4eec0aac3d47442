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
  # tinygrad's failing steps: one stuck state per rule and exception type, which the group counts every step on
  assert code == 1 and len(data["stuck"]) == 1 and data["stuck_groups"][0]["example"]["id"] == data["stuck"][0]["id"]
  assert data["stuck_groups"][0]["error_type"] == "ZeroDivisionError" and data["stuck_groups"][0]["location"] == "divandmod.py:108"
  return data["stuck_groups"][0]["count"]


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


def test_another_irs_failing_steps_are_one_stuck_state_per_rule_and_exception():
  # issue 40: a stuck state per failing step took half of the states (and of max_states) of tinygrad's symbolic on
  # (gidx*4 + lidx) // 4 % 8; now the first failing step of a rule and exception type is a state, the others counted on it
  from tinygrad.uop.ops import UOp as TUOp
  from tinygrad.uop.symbolic import symbolic as tsym
  vs = [TUOp.variable(f"v{i}", 0, 10) for i in range(3)]
  ex = Exploration(sum(((v * 2 + 0) // 5 for v in vs[1:]), (vs[0] * 2 + 0) // 5), tsym).run()
  [stuck] = ex.stuck
  [group] = group_stuck(ex.stuck)
  assert group.example is stuck and group.steps == stuck.steps > 10 and group.error_type == "ZeroDivisionError"
  assert ex.complete and not any(s.error for s in ex.states if s is not stuck)
  # uopc's own keep one per graph and failing redex, as the native core makes them
  boom = PatternMatcher([(UPat.var("x") + 0, lambda x: 1 // 0)])
  assert len(Exploration((UOp.param(0) + 0) * (UOp.param(1) + 0) + UOp.param(2) * 0, boom, native=False).run().stuck) == 2
