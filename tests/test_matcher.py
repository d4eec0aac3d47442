"""PatternMatcher: priority, indexing by op, composition, the None escape hatch, rule names."""
from tests.helpers import param
from uopc import Ops, PatternMatcher, UOp, UPat, symbolic
from uopc.matcher import rule_name

x = UPat.var("x")
p0 = param(0)


def test_first_rule_that_returns_a_new_node_wins():
  pm = PatternMatcher([(x + 0, lambda x: None), (x + 0, lambda x: x + 0), (x + 0, lambda x: x)])
  assert pm.rewrite(p0 + 0) is p0   # None: does not apply; the same node: no change
  assert pm.fire(p0 + 0)[0] is pm.rules[2]


def test_index_files_patterns_without_an_op_under_every_op():
  pm = PatternMatcher([(UPat(name="u"), lambda u: None), (x * 1, lambda x: x)])
  assert len(pm.by_op[Ops.CONST]) == 1 and len(pm.by_op[Ops.MUL]) == 2 and len(pm.by_op) == len(Ops)


def test_composition_and_length():
  a, b = PatternMatcher([(x + 0, lambda x: x)]), PatternMatcher([(x * 1, lambda x: x)])
  assert len(a + b) == 2 and (a + b).rules == a.rules + b.rules
  assert (a + b).rewrite(p0 * 1) is p0


def test_rule_names_say_where_and_what():
  names = [symbolic.name_of(r) for r in symbolic.rules]
  assert names[0].startswith("symbolic.py:") and names[0].endswith("x=alu -> _fold")
  assert names[2].endswith(" x + 0") and names[3].endswith(" x + 0.0")
  assert len(set(names)) == len(names)
  assert rule_name((x + 0, lambda x: x)).startswith("test_matcher.py:")
