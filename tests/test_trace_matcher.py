"""The trace of rule lookups and firings, and UOPC_TRACE=1 (which wraps graph_rewrite's matcher in one)."""
import io

from tests.helpers import param
from uopc import UOp, graph_rewrite, symbolic
from uopc.trace_matcher import TracingMatcher, visit_line


def test_visit_line_format():
  assert visit_line(param(0) + 2, None) == "  visit add(p0, 2)                   -> ."
  assert visit_line(UOp.const(1) + 4, UOp.const(5), "r") == "  visit add(1, 4)                    -> 5   [r]"


def test_firings_only_mode_and_env_var(monkeypatch, capsys):
  out = io.StringIO()
  graph_rewrite(UOp.const(1) + 4, TracingMatcher(symbolic, out=out, firings_only=True))
  assert out.getvalue().endswith(": add(1, 4) -> 5\n") and out.getvalue().count("\n") == 1
  import uopc.rewrite
  monkeypatch.setenv("UOPC_TRACE", "1")
  assert uopc.rewrite.env_flag("UOPC_TRACE")   # graph_rewrite reads it once, when uopc is imported
  monkeypatch.setattr(uopc.rewrite, "TRACE", True)
  graph_rewrite((param(0) * 4 + 8) // 4, symbolic)
  err = capsys.readouterr().err.splitlines()
  assert err[0].startswith("div-sum: ")
  assert ": floordiv(add(mul(p0, 4), 8), 4) -> add(add(mul(p0, 1), 2), floordiv(0, 4))" in err[0]
  assert err[-1].endswith("add-0: add(add(p0, 2), 0) -> add(p0, 2)")
