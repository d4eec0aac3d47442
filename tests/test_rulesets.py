"""Rule sets by name, as --rules takes them."""
import pytest

from uopc import evaluate, fold, symbolic
from uopc.rulesets import RuleSetError, resolve_rules


def test_names_sums_and_module_attributes():
  assert resolve_rules("symbolic") is symbolic and resolve_rules("fold") is fold
  both = resolve_rules("symbolic+evaluate")
  assert both.rules == symbolic.rules + evaluate.rules and resolve_rules("symbolic + evaluate").rules == both.rules
  assert resolve_rules("uopc.evaluate:evaluate") is evaluate


@pytest.mark.parametrize("spec, message", [
  ("symbolc", "unknown rule set 'symbolc'"), ("nosuch.module:x", "no module named 'nosuch.module'"),
  ("uopc.symbolic:simplify", "is a function, not a PatternMatcher"),
])
def test_bad_names(spec, message):
  with pytest.raises(RuleSetError, match=message):
    resolve_rules(spec)


def test_a_rules_file_loads_by_path(tmp_path):
  (tmp_path / "mine.py").write_text("from uopc import PatternMatcher, UPat\nrules = PatternMatcher([(UPat.var('x') * 1, lambda x: x)])\n")
  assert len(resolve_rules(f"{tmp_path / 'mine.py'}:rules").rules) == 1
  with pytest.raises(RuleSetError, match="no file"):
    resolve_rules(f"{tmp_path / 'other.py'}:rules")


def test_a_sum_is_shared_while_used_and_dropped_after():
  import gc
  from uopc import rulesets
  pm = resolve_rules("fold+evaluate+fold")
  assert resolve_rules("fold+evaluate+fold") is pm
  del pm
  gc.collect()
  assert "fold+evaluate+fold" not in rulesets._sums
