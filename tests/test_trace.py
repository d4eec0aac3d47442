"""Traces and per-rule statistics of the canonical engine."""
import io

from tests.helpers import param
from uopc import UOp, graph_rewrite, symbolic
from uopc.trace import StatsMatcher, TracingMatcher, visit_line


def test_visit_line_format():
  assert visit_line(param(0) + 2, None) == "  visit add(p0, 2)                   -> ."
  assert visit_line(UOp.const(1) + 4, UOp.const(5), "r") == "  visit add(1, 4)                    -> 5   [r]"


def test_firings_only_mode_and_env_var(monkeypatch, capsys):
  out = io.StringIO()
  graph_rewrite(UOp.const(1) + 4, TracingMatcher(symbolic, out=out, firings_only=True))
  assert out.getvalue().endswith(": add(1, 4) -> 5\n") and out.getvalue().count("\n") == 1
  monkeypatch.setenv("UOPC_TRACE", "1")
  graph_rewrite((param(0) * 4 + 8) // 4, symbolic)
  err = capsys.readouterr().err.splitlines()
  assert err[0].startswith("symbolic.py:") and ": floordiv(add(mul(p0, 4), 8), 4) -> add(add(mul(p0, 1), 2), floordiv(0, 4))" in err[0]
  assert err[-1].endswith("x + 0: add(add(p0, 2), 0) -> add(p0, 2)")


def test_stats_count_every_rule_attempt():
  stats = StatsMatcher(symbolic)
  out = graph_rewrite((param(0) + 2) * 3 + (UOp.const(1) + UOp.const(4)), stats)
  assert out is param(0) * 3 + 11
  fires = {s.name: s.fires for s in stats.stats.values() if s.fires}
  assert sorted(fires.values()) == [1, 1, 1] and len(fires) == 3
  assert all(s.matches <= s.tries or s.name.endswith(("x:i32 + x:i32",)) for s in stats.stats.values())
  table = stats.table().splitlines()
  assert table[0].split() == ["tries", "matches", "fires", "time", "ms", "rule"] and len(table) > 5
