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
  ("uopc.symbolic:simplify", "uopc.symbolic:simplify is a function, not a uopc PatternMatcher"),
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
  pm = resolve_rules("fold+evaluate")
  assert resolve_rules("fold+evaluate") is pm
  del pm
  gc.collect()
  assert "fold+evaluate" not in rulesets._sums


@pytest.mark.parametrize("body, message", [
  ("rules = [1]\n", "rules.py:rules is a list, not a uopc PatternMatcher (PatternMatcher([...]) makes one from a list of rules)"),
  ("rules = 3\n", "rules.py:rules is an int, not a uopc PatternMatcher"),
  ("import collections\nrules = collections.OrderedDict()\n", "rules.py:rules is a collections.OrderedDict, not a uopc PatternMatcher"),
  # a PatternMatcher of another library (tinygrad's): "is a PatternMatcher, not a PatternMatcher" named neither module
  ("class PatternMatcher: pass\nrules = PatternMatcher()\n",
   "rules.py:rules is a uopc_rules.rules.PatternMatcher, not a uopc.matcher.PatternMatcher"),
])
def test_a_rule_set_of_another_type_names_both_types(tmp_path, monkeypatch, body, message):
  (tmp_path / "rules.py").write_text(body)
  monkeypatch.chdir(tmp_path)
  with pytest.raises(RuleSetError) as e: resolve_rules("symbolic+rules.py:rules")
  assert str(e.value) == message
