"""graph_rewrite: the chapter's traces, stage-2 re-normalization, loop detection, depth, memoization."""
import io
import re

import pytest

from tests.helpers import param
from uopc import Ops, PatternMatcher, UOp, UPat, graph_rewrite, symbolic, to_uir
from uopc.rewrite import ProgramError, RewriteLoopError, RewriteTypeError, RuleError, rewrite_problem
from uopc.term import show
from uopc.trace import TracingMatcher

p0, p1 = param(0), param(1)


class Trace(PatternMatcher):
  """The chapter's debugging subclass: print every rewrite() call."""
  def __init__(self, rules, out):
    super().__init__(rules)
    self.out = out

  def rewrite(self, u, ctx=None):
    r = super().rewrite(u, ctx)
    print(f"  visit {show(u):28s} -> {show(r) if r is not None else '.'}", file=self.out)
    return r


CHAPTER_TRACE = """\
  visit p0                           -> .
  visit 2                            -> .
  visit add(p0, 2)                   -> .
  visit 3                            -> .
  visit mul(add(p0, 2), 3)           -> add(mul(p0, 3), 6)
  visit mul(p0, 3)                   -> .
  visit 6                            -> .
  visit add(mul(p0, 3), 6)           -> .
  visit 1                            -> .
  visit 4                            -> .
  visit add(1, 4)                    -> 5
  visit 5                            -> .
  visit add(add(mul(p0, 3), 6), 5)   -> add(mul(p0, 3), 11)
  visit 11                           -> .
  visit add(mul(p0, 3), 11)          -> .
"""


def chapter_program() -> UOp:
  return (p0 + 2) * 3 + (UOp.const(1) + UOp.const(4))


def test_chapter_trace_with_a_rewrite_subclass():
  out = io.StringIO()
  e = chapter_program()
  assert show(e) == "add(mul(add(p0, 2), 3), add(1, 4))"
  result = graph_rewrite(e, Trace(symbolic.rules, out))
  assert out.getvalue() == CHAPTER_TRACE
  assert show(result) == "add(mul(p0, 3), 11)"


def test_tracing_matcher_prints_the_same_visits_and_names_the_rules():
  out = io.StringIO()
  graph_rewrite(chapter_program(), TracingMatcher(symbolic, out=out))
  lines = out.getvalue().splitlines()
  assert [line.split("   [")[0] for line in lines] == CHAPTER_TRACE.splitlines()
  fired = [line for line in lines if "[" in line]
  assert len(fired) == 3
  assert fired[0].endswith("[distribute-const]")   # the distribution of a constant
  assert fired[1].endswith("[fold-const]")
  assert fired[2].endswith("[assoc-add-const]")   # reassociation


def one_pass(root, pm):
  """The chapter's rewriter that never looks at a rule's result again."""
  done = {}
  for u in root.toposort():
    n = u.replace(src=tuple(done[s] for s in u.src))
    done[u] = pm.rewrite(n) or n
  return done[root]


def test_one_pass_leaves_rule_results_unsimplified_graph_rewrite_does_not():
  e = (p0 * 2 + p1) * 3
  assert to_uir(one_pass(e, symbolic)) == (
    "%0 = param : slot=0 dtype=i32\n%1 = mul %0, 2\n%2 = mul %1, 3\n"
    "%3 = param : slot=1 dtype=i32\n%4 = mul %3, 3\n%5 = add %2, %4\n")
  assert to_uir(graph_rewrite(e, symbolic)) == (
    "%0 = param : slot=0 dtype=i32\n%1 = mul %0, 6\n%2 = param : slot=1 dtype=i32\n"
    "%3 = mul %2, 3\n%4 = add %1, %3\n")


def test_commutativity_loops_and_is_detected():
  swap = PatternMatcher([(UPat(Ops.ADD, src=(UPat.var("x"), UPat.var("y"))), lambda x, y: UOp(Ops.ADD, (y, x)))])
  with pytest.raises(RuntimeError, match=r"^graph_rewrite did not converge: a cycle of 2 rewrites: "
                                         r"test_rewrite#0 x \+ y @ add\(p0, p1\) -> test_rewrite#0 x \+ y @ add\(p1, p0\)$") as e:
    graph_rewrite(p0 + p1, swap, max_steps=1000)
  assert isinstance(e.value, RewriteLoopError)


def test_custom_pattern_matcher():
  pm = PatternMatcher([(UPat(Ops.MUL, src=[UPat.var("x"), UPat.cvar("c", dtype=param(0).dtype)]),
                        lambda x, c: x + x if c.arg == 2 else None)])
  x = param(0)
  assert graph_rewrite(x * 2, pm) is x + x
  assert graph_rewrite(UOp.const(2) * x, pm) is x + x   # list sources: either order
  assert graph_rewrite(x * 3, pm) is x * 3               # the function said None


B2I_BUGGY = PatternMatcher([(UPat(Ops.WHERE, src=(UPat.var("c"), UPat(Ops.CONST, arg=1), UPat(Ops.CONST, arg=0))),
                             lambda c: c.cast(param(0).dtype))])
B2I_FIXED = PatternMatcher([(UPat(Ops.WHERE, dtype=param(0).dtype, src=(UPat.var("c"), UPat(Ops.CONST, arg=1), UPat(Ops.CONST, arg=0))),
                             lambda c: c.cast(param(0).dtype))])


def test_where_1_0_is_a_cast():
  c = p0 < p1
  assert to_uir(graph_rewrite(c.where(1, 0), B2I_BUGGY)) == (
    "%0 = param : slot=0 dtype=i32\n%1 = param : slot=1 dtype=i32\n%2 = cmplt %0, %1\n%3 = cast %2 : dtype=i32\n")


def test_where_1_0_dtype_bug_and_its_fix():
  from uopc import dtypes
  c = p0 < p1
  wb = c.where(True, False)
  assert wb.dtype is dtypes.bool
  with pytest.raises(RewriteTypeError,
                     match=r"rule test_rewrite#0 where\(c, 1, 0\) \(test_rewrite\.py:\d+\) changed WHERE bool\[\] into CAST i32\[\]"):
    graph_rewrite(wb, B2I_BUGGY)                                   # the bug (a bool node became i32), caught naming the rule
  assert graph_rewrite(wb, B2I_FIXED) is wb                         # the fix: constrain the dtype
  assert graph_rewrite(c.where(1, 0), B2I_FIXED) is c.cast(dtypes.i32)


def rewrite_rec(u, pm, counter):
  """The chapter's four-line recursive rewriter, counting rule lookups."""
  n = u.replace(src=tuple(rewrite_rec(s, pm, counter) for s in u.src))
  counter[0] += 1
  r = pm.rewrite(n)
  return n if r is None else rewrite_rec(r, pm, counter)


class Counting(PatternMatcher):
  def __init__(self, rules):
    super().__init__(rules)
    self.lookups = 0

  def rewrite(self, u, ctx=None):
    self.lookups += 1
    return super().rewrite(u, ctx)


@pytest.mark.parametrize("d", [5, 10, 15, 20])
def test_rule_lookups_memoized_vs_recursive_tree_walk(d):
  t = param(0)
  for _ in range(d): t = t * t
  assert len(t.toposort()) == d + 1
  counting = Counting(symbolic.rules)
  graph_rewrite(t, counting)
  assert counting.lookups == d + 1
  if d <= 15:   # 2^21 lookups of the tree walk take a while; the formula is checked up to 15
    counter = [0]
    rewrite_rec(t, symbolic, counter)
    assert counter[0] == 2 ** (d + 1) - 1


def test_recursive_rewriter_overflows_on_a_deep_chain_graph_rewrite_does_not():
  chain = param(0)
  for _ in range(20_000): chain = chain + 1
  with pytest.raises(RecursionError):
    rewrite_rec(chain, symbolic, [0])
  assert graph_rewrite(chain, symbolic) is param(0) + 20_000


def test_deep_graph_no_recursion_error_without_rules_firing():
  chain = param(0)
  for i in range(20_000): chain = chain + param(1 + i % 3)
  assert graph_rewrite(chain, PatternMatcher([])) is chain


def test_memo_shortcut_when_result_already_normalized():
  x = UPat.var("x")
  pm = PatternMatcher([(x * 1, lambda x: x)])
  e = (p0 + p1) * 1 + (p0 + p1)
  assert graph_rewrite(e, pm) is (p0 + p1) + (p0 + p1)


def test_ctx_reaches_every_rule():
  seen = []
  pm = PatternMatcher([(UPat(Ops.PARAM, name="p"), lambda p, ctx: seen.append(ctx) or None)])
  graph_rewrite(p0 + p1, pm, ctx="state")
  assert seen == ["state", "state"]


@pytest.mark.parametrize("enabled", [True, False])
def test_the_collector_is_paused_during_a_rewrite_and_left_as_it_was(enabled):
  import gc
  seen = []
  def spy(x): seen.append(gc.isenabled())
  pm = PatternMatcher([(UPat.var("x") + 0, spy), (UPat.var("x") * 0, lambda x: 1 // 0)])
  was = gc.isenabled()
  try:
    (gc.enable if enabled else gc.disable)()
    graph_rewrite(p0 + 0, pm)
    assert seen == [False] and gc.isenabled() is enabled
    with pytest.raises(RuleError) as e: graph_rewrite(p0 * 0, pm)
    assert isinstance(e.value.__cause__, ZeroDivisionError)
    assert gc.isenabled() is enabled   # restored on the way out of an error too
  finally:
    (gc.enable if was else gc.disable)()


# ---- a rule's bug is a RuleError naming the rule and where it is defined

def _undefined_name(x): return undefined_name + x  # noqa: F821

RAISES = PatternMatcher([(UPat.var("x") + 0, _undefined_name)])
LINE = _undefined_name.__code__.co_firstlineno


@pytest.mark.parametrize("pm", [RAISES, RAISES + PatternMatcher([], compiled=False), TracingMatcher(RAISES, out=io.StringIO())])
def test_a_rule_that_raises_is_named_with_its_location_and_the_exception(pm):
  with pytest.raises(RuleError) as e: graph_rewrite((p0 + 0) * 3, pm)
  assert str(e.value) == (f"rule test_rewrite#0 x + 0 (test_rewrite.py:{LINE}) raised NameError: "
                          "name 'undefined_name' is not defined")


@pytest.mark.parametrize("ret, problem", [(5, "returned int 5, not a UOp"), (None, None),
                                          (UOp.const(1.0), "changed ADD i32[] into CONST f32[]"),
                                          (UOp.stack(1, 2), "changed ADD i32[] into STACK i32[2]")])
def test_a_rule_result_that_cannot_replace_the_node_is_a_rule_error(ret, problem):
  pm = PatternMatcher([(UPat.var("x") + 0, lambda x: ret)])
  assert rewrite_problem(p0 + 0, ret if ret is not None else p0) == problem
  if problem is None: return
  with pytest.raises(RewriteTypeError, match=rf"^rule test_rewrite#0 x \+ 0 \(test_rewrite\.py:\d+\) {re.escape(problem)}$"):
    graph_rewrite((p0 + 0) * 3, pm)


def test_a_program_error_passes_through_as_the_program_failing():
  class Fails(ProgramError): pass
  def fails(x): raise Fails("the program fails")
  with pytest.raises(Fails): graph_rewrite(p0 + 0, PatternMatcher([(UPat.var("x") + 0, fails)]))



def test_a_rule_set_that_is_not_a_pattern_matcher_is_a_type_error_naming_it():
  # graph_rewrite(u, [rule]) was "AttributeError: type object 'list' has no attribute 'rewrite'"
  with pytest.raises(TypeError, match=r"^graph_rewrite: pm is a list, not a uopc PatternMatcher \(PatternMatcher\(\[\.\.\.\]\) makes one"):
    graph_rewrite(UOp.param(0) + 0, [symbolic.rules[0]])
