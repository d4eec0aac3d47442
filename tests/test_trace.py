"""Traces and per-rule statistics of the canonical engine."""
from tests.helpers import param
from uopc import UOp, graph_rewrite, symbolic
from uopc.trace import StatsMatcher


def test_stats_count_every_rule_attempt():
  stats = StatsMatcher(symbolic)
  out = graph_rewrite((param(0) + 2) * 3 + (UOp.const(1) + UOp.const(4)), stats)
  assert out is param(0) * 3 + 11
  fires = {s.name: s.fires for s in stats.stats.values() if s.fires}
  assert fires == {"distribute-const": 1, "fold-const": 1, "assoc-add-const": 1}
  assert all(s.matches <= s.tries or s.name == "add-self" for s in stats.stats.values())
  table = stats.table().splitlines()
  assert table[0].split() == ["tries", "matches", "fires", "time", "ms", "where", "rule"] and len(table) > 5
  assert all(" symbolic.py:" in row for row in table[1:])
  [row] = [row for row in table if row.split()[2] == "1" and row.endswith(" fold-const")]   # the rule by its stable name, where it is beside it
  assert row.split()[-2].startswith("symbolic.py:")


def test_the_trace_variable_is_read_when_uopc_is_imported():
  import subprocess
  import sys
  code = "from uopc import UOp, graph_rewrite, symbolic; graph_rewrite(UOp.const(1) + 4, symbolic)"
  for value, traced in (("1", True), ("0", False), ("", False)):
    err = subprocess.run([sys.executable, "-c", code], env={**__import__("os").environ, "UOPC_TRACE": value},
                         capture_output=True, text=True, check=True).stderr
    assert (": add(1, 4) -> 5" in err) is traced, (value, err)


def test_rewrite_json_steps_chain_from_the_program_to_the_result():
  from uopc.symbolic import symbolic
  from uopc.trace import rewrite_json
  from uopc.uop import UOp
  p0, p1 = UOp.param(0), UOp.param(1)
  prog = (p0 + 0) * 1 + (p1 * 1 + 0) * (UOp.const(2) + UOp.const(3))
  d = rewrite_json(prog, symbolic, 10_000)
  steps = d["steps"]
  assert d["error"] is None and len(steps) >= 4
  assert steps[0]["before"] == d["program"] and steps[-1]["after"] == d["result"] == "add(p0, mul(p1, 5))"
  assert all(a["after"] == b["before"] for a, b in zip(steps, steps[1:]))
  assert all(s["node"] in s["before"] for s in steps)
