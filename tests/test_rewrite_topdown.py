"""graph_rewrite_topdown: outermost first, memoized, iterative; where it differs from graph_rewrite."""
import pytest
from hypothesis import given

from tests.helpers import param
from tests.test_rewrite import Counting   # counts rule lookups (rewrite calls): the work of a strategy
from tests.strategies import graphs
from uopc import Ops, PatternMatcher, UOp, UPat, graph_rewrite
from uopc.rewrite import RewriteLoopError
from uopc.rewrite_topdown import graph_rewrite_topdown

p0, p1 = param(0), param(1)
x, y = UPat.var("x"), UPat.var("y")


# distribute (x + 1) * 2, and turn x + 1 into 1 + x: the second rule destroys the first's redex
DISTRIBUTE = [(UPat(Ops.MUL, src=(UPat(Ops.ADD, src=(x, UPat(Ops.CONST, arg=1))), UPat(Ops.CONST, arg=2))),
               lambda x: x * 2 + 2),
              (UPat(Ops.ADD, src=(x, UPat(Ops.CONST, arg=1))), lambda x: UOp.const(1) + x)]


def test_a_different_normal_form_than_bottom_up():
  prog = (p0 + 1) * 2
  pm = PatternMatcher(DISTRIBUTE)
  assert graph_rewrite(prog, pm) is (UOp.const(1) + p0) * 2          # innermost first: the inner redex wins
  assert graph_rewrite_topdown(prog, pm) is p0 * 2 + 2               # outermost first: the outer one does


def chain(n: int) -> UOp:
  u = p1
  for i in range(n): u = (u + 0) * (i + 2)
  return u


WHERE_TRUE = [(UPat(Ops.WHERE, src=(UPat(Ops.CONST, arg=True), x, y)), lambda x, y: x), (x + 0, lambda x: x)]


def test_much_less_work_when_a_rule_discards_a_large_subtree():
  big = chain(500)   # 1,002 distinct nodes, 500 redexes of x + 0
  prog = UOp.const(True).where(p0 + 0, big)
  bottom_up, top_down = Counting(WHERE_TRUE), Counting(WHERE_TRUE)
  assert graph_rewrite(prog, bottom_up) is p0 and graph_rewrite_topdown(prog, top_down) is p0
  # bottom-up normalizes the whole discarded subtree first; top-down fires at the root, then rewrites p0 + 0, then looks at p0
  assert top_down.lookups == 3
  assert bottom_up.lookups == 2_005   # four per level of the chain, and the root's
  assert bottom_up.lookups > 600 * top_down.lookups


def test_rules_again_after_the_sources():
  # (p0 * 1) + 0: nothing at the root at first; after the sources, x + 0 applies to the rebuilt root
  pm = Counting([(x * 1, lambda x: x), (UPat(Ops.ADD, src=(UPat(Ops.PARAM, name="x"), UPat(Ops.CONST, arg=0))), lambda x: x)])
  assert graph_rewrite_topdown((p0 * 1) + 0, pm) is p0


def test_memoized_shared_subgraphs_are_visited_once():
  shared = (p0 + 0) * 3
  pm = Counting([(x + 0, lambda x: x)])
  assert graph_rewrite_topdown(shared + shared, pm) is p0 * 3 + p0 * 3
  # add, mul, add(p0, 0) -> p0, p0, 3, then the rebuilt mul(p0, 3) and add: each distinct node once
  assert pm.lookups == 7


def test_no_recursion_error_at_20000_nodes():
  u = p0
  for _ in range(10_000): u = (u + 0) * 1
  pm = PatternMatcher([(x + 0, lambda x: x), (x * 1, lambda x: x)])
  assert graph_rewrite_topdown(u, pm) is p0
  deep = p0
  for i in range(20_000): deep = deep + (i % 7 + 1)
  assert graph_rewrite_topdown(deep, PatternMatcher([(x + 0, lambda x: x)])) is deep


def test_a_looping_rule_set_raises():
  pm = PatternMatcher([(UPat(Ops.ADD, src=(x, y)), lambda x, y: y + x)])
  with pytest.raises(RewriteLoopError, match="topdown"):
    graph_rewrite_topdown(p0 + p1, pm, max_steps=1000)


@given(graphs())
def test_on_a_confluent_terminating_rule_set_both_strategies_agree(g):
  pm = PatternMatcher([(x + 0, lambda x: x), (x * 1, lambda x: x)])
  assert graph_rewrite_topdown(g, pm) is graph_rewrite(g, pm)
