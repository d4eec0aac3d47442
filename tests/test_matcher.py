"""PatternMatcher: priority, indexing by op, composition, the None escape hatch, rule names."""
import pathlib
import re

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.helpers import param
from tests.strategies import graphs
from uopc import Ops, PatternMatcher, UOp, UPat, evaluate, symbolic
from uopc.matcher import is_positional, rule_name

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
  assert names[:4] == ["fold-const", "comm-const-right", "add-0", "add-0.0"]
  assert len(set(names)) == len(names)
  assert symbolic.rules[2].location.startswith("symbolic.py:") and symbolic.rules[0].location.startswith("symbolic.py:")
  assert symbolic.rules[2].describe() == f"add-0 ({symbolic.rules[2].location})"
  assert rule_name((x + 0, lambda x: x)) == "x + 0"


def _built_in_rule_sets() -> dict[str, PatternMatcher]:
  """Every rule set uopc and its examples build: the named ones, the backend's, the examples' rules files."""
  from uopc.backend.lower import _inline
  from uopc.evaluate import _run_rules, bind
  from uopc.rulesets import NAMED, resolve_rules
  folder = pathlib.Path(__file__).resolve().parents[1] / "examples"
  examples = {f: resolve_rules(f"{folder / f}:rules") for f in ("add_zero_rules.py", "aesara_rules.py", "my_rules.py",
                                                               "only_equal_rules.py", "saturation_rules.py")}
  return {**NAMED, "bind": bind, "run": _run_rules, "inline": _inline, **examples}


def test_every_built_in_rule_has_a_name_of_its_own_unique_in_its_rule_set():
  for set_name, pm in _built_in_rule_sets().items():
    names = [pm.name_of(r) for r in pm.rules]
    assert len(set(names)) == len(names), set_name
    assert not any(is_positional(n) or " " in n for n in names), (set_name, [n for n in names if is_positional(n) or " " in n])
    assert all(re.fullmatch(r"[a-z0-9.]+(-[a-z0-9.]+)*", n) for n in names), (set_name, names)   # kebab-case, egg's style


def test_two_rules_of_one_name_are_refused_when_the_rule_set_is_made():
  import pytest

  from uopc.rule_check import RuleError, RuleNameClash
  def first(x): return x
  def second(x): return x + 0
  with pytest.raises(RuleNameClash) as e: PatternMatcher([(x + 0, first, "add-0"), (x * 1, lambda x: x), (x * 1, second, "add-0")], name="mine")
  lines = first.__code__.co_firstlineno, second.__code__.co_firstlineno
  assert isinstance(e.value, RuleError) and str(e.value) == ("rule set mine: two rules named add-0: add-0 (test_matcher.py:%d) "
                                                            "and add-0 (test_matcher.py:%d)" % lines)
  with pytest.raises(RuleNameClash, match=r"^rule set fold\+symbolic: two rules named add-0: add-0 \(symbolic\.py:\d+\) "
                                          r"and add-0 \(symbolic\.py:\d+\) \(the same rule, listed twice\)$"):
    symbolic + PatternMatcher(symbolic.rules[2:3], name="again")   # a sum clashes as one rule set does


def test_rule_names_are_kept_by_sums_and_reorderings_and_default_to_the_module():
  a = PatternMatcher([(x + 0, lambda x: x), (x * 1, lambda x: x, "mul-1")])
  assert [r.name for r in a.rules] == ["test_matcher#0 x + 0", "mul-1"]
  b = PatternMatcher(a.rules[::-1], name="other")
  c = PatternMatcher([(x + 1, lambda x: x, "odd")], name="third")
  assert [r.name for r in b.rules] == ["mul-1", "test_matcher#0 x + 0"] and [r.name for r in (c + b).rules][2] == "test_matcher#0 x + 0"
  assert [r.set_name for r in (c + b).rules] == ["third", "test_matcher", "test_matcher"] and (c + b).set_label() == "third+test_matcher"
  assert a.rules[1].location.startswith("test_matcher.py:")


def test_a_bare_pattern_rule_is_its_own_function_without_ctx_and_gives_the_same_rewrites():
  from uopc import graph_rewrite
  from uopc.ops import ALU
  from uopc.symbolic import _fold
  log = []
  def unchanged(x): log.append(("unchanged", x)); return x   # the node itself means "no change": the next rule runs
  def fold(x): log.append(("fold", x)); return _fold(x)
  def fold_kw(x, **_): log.append(("fold", x)); return _fold(x)   # takes more than x: not called directly
  prog = UOp.const(2) * UOp.const(3) + UOp.const(4)
  pm = PatternMatcher([(UPat(ALU, name="x"), unchanged), (UPat(ALU, name="x"), fold)])
  assert pm.plain_candidates(prog) == (unchanged, fold)
  assert graph_rewrite(prog, pm) is UOp.const(10)
  fast, log[:] = log[:], []

  class Watching(PatternMatcher):   # graph_rewrite's reference loop, with fn(x=u) calls
    def rewrite(self, u, ctx=None): return super().rewrite(u, ctx)
  assert graph_rewrite(prog, Watching(pm.rules)) is UOp.const(10) and log == fast
  assert [what for what, _ in fast] == ["unchanged", "fold"] * 2
  log.clear()
  kw = PatternMatcher([(UPat(ALU, name="x"), unchanged), (UPat(ALU, name="x"), fold_kw)])
  assert kw.plain_candidates(prog)[1] is not fold_kw and graph_rewrite(prog, kw) is UOp.const(10) and log == fast


def test_ctx_reaches_rules_through_the_fast_loop():
  from uopc import graph_rewrite
  seen = []
  def bump(x, ctx): seen.append(ctx); return x * 2 if ctx["left"] > 0 and not ctx.update(left=ctx["left"] - 1) else None
  pm = PatternMatcher([(UPat(Ops.PARAM, name="x"), bump)])
  ctx = {"left": 1}
  assert graph_rewrite(p0 + 1, pm, ctx=ctx) is p0 * 2 + 1 and seen == [ctx, ctx]


def test_candidate_tables_stay_bounded(monkeypatch):
  """Signatures of wide nodes are (op, width): any number of them in a long-lived process."""
  from uopc import matcher
  monkeypatch.setattr(matcher, "SIGNATURE_LIMIT", 8)
  pm = PatternMatcher([(UPat(Ops.STACK, name="s"), lambda s: None)])
  for n in range(5, 40): pm.candidates(UOp.stack(*range(n)))
  assert len(pm._candidates) <= 8
  assert len(pm.candidates(UOp.stack(*range(41)))) == 1   # still right after a drop


@given(graphs(max_ops=8), st.booleans())
@settings(max_examples=40)
def test_every_candidate_gives_every_binding_of_every_rule(g, compiled):
  # the explorer's view of a matcher: no rule that matches is dropped, each rule's bindings are UPat.match's, in order
  pm = PatternMatcher((symbolic + evaluate).rules, compiled=compiled)
  for u in g.toposort():
    want = [(i, b) for i, (p, _) in enumerate(pm.rules) for b in p.match(u, {})]
    got = [(i, b) for i, match, fn in pm.every_candidate(u) for b in match(u)]
    assert got == want
    assert all(fn is pm.rules[i][1] for i, _, fn in pm.every_candidate(u))


def test_every_candidate_keeps_two_rules_of_one_pattern_at_both_indices():
  pm = PatternMatcher([(x + 0, lambda x: x, "a")]) + PatternMatcher([(x + 0, lambda x: x, "b")])
  assert [i for i, _, _ in pm.every_candidate(p0 + 0)] == [0, 1]


# ---- a rule's function must take the names its pattern binds: a RuleError when the rule is made

def _takes_y(y): return y


def test_a_function_that_cannot_take_the_patterns_names_is_a_rule_error_when_the_matcher_is_made():
  import pytest

  from uopc.rule_check import RuleError, RuleSignatureError
  line = _takes_y.__code__.co_firstlineno
  for compiled in (True, False):
    with pytest.raises(RuleSignatureError) as e: PatternMatcher([(x + 0, _takes_y)], compiled=compiled)
    assert isinstance(e.value, RuleError) and isinstance(e.value, TypeError)   # what the call would have raised
    assert str(e.value) == (f"rule test_matcher#0 x + 0 (test_matcher.py:{line}): the pattern binds x, but its function "
                            "takes (y) (a rule's function gets the pattern's names as keyword arguments)")
  with pytest.raises(RuleError, match=r"^rule mine \(test_matcher\.py:\d+\): the pattern binds x, c, but its function takes \(x, d\) "):
    PatternMatcher([(x + UPat.cvar("c"), lambda x, d: x, "mine")])
  with pytest.raises(RuleError, match=r"the pattern binds no name, but its function takes \(x\)"):
    PatternMatcher([(UPat(Ops.ADD), lambda x: x)])
  with pytest.raises(RuleError, match=r"the pattern binds x, but its function takes \(x, /\)"):
    PatternMatcher([(x + 0, lambda x, /: x)])


def test_functions_that_can_take_the_patterns_names_are_fine():
  class Call:
    def __call__(self, x): return x
  fine = [lambda x: x, lambda **kw: kw["x"], lambda x, y=None: x, lambda x, ctx: x, lambda x, ctx=None: x,
          lambda *, x: x, Call(), lambda x, *rest: x]
  pm = PatternMatcher([(x + 0, fn) for fn in fine], compiled=False, name="interpreted") + PatternMatcher([(x + 0, fn) for fn in fine])
  assert len(pm.rules) == 2 * len(fine) and pm.rewrite(p0 + 0) is p0
  assert len(PatternMatcher([(x + 0, max)])) == 1   # no signature to read: not checked


def test_a_ctx_the_function_does_not_take_or_needs_is_a_rule_error_when_rewriting():
  import pytest

  from uopc import graph_rewrite
  from uopc.rule_check import RuleSignatureError
  for compiled in (True, False):
    no_ctx = PatternMatcher([(x + 0, lambda x: x)], compiled=compiled)
    with pytest.raises(RuleSignatureError, match=r"^rule test_matcher#0 x \+ 0 \(test_matcher\.py:\d+\) raised TypeError: .*<lambda>\(\) got an "
                                                 r"unexpected keyword argument 'ctx': the pattern binds x "
                                                 r"and graph_rewrite passes ctx=, but its function takes \(x\)"):
      graph_rewrite(p0 + 0, no_ctx, ctx={})
    needs_ctx = PatternMatcher([(x + 0, lambda x, ctx: x)], compiled=compiled)
    with pytest.raises(RuleSignatureError, match=r"the pattern binds x and graph_rewrite passes no ctx, but its function takes \(x, ctx\)"):
      graph_rewrite(p0 + 0, needs_ctx)
    assert graph_rewrite(p0 + 0, needs_ctx, ctx={}) is p0
