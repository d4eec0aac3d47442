"""Compiled patterns against the interpreter: same bindings, same rule calls, same results.

Three engines must agree on every program: the chapter's plain algorithm (every rule
filed under the node's op, matched by ``UPat.match``: ``Reference`` below), and
``PatternMatcher`` with compiled patterns and with the interpreter, each through
``graph_rewrite``'s fast loop and through its reference loop (a watching subclass).
"""
from __future__ import annotations

import pathlib
from typing import Any

import pytest
from hypothesis import given

from tests.helpers import param
from tests.reference import build, programs
from tests.strategies import graphs
from uopc import Ops, PatternMatcher, UOp, UPat, dtypes, evaluate, graph_rewrite, symbolic
from uopc.matcher import may_match
from uopc.trace import StatsMatcher
from uopc.uir import parse_uir
from uopc.upat_compile import MAX_LEAVES, compile_match, compile_rule, compiled_source

RULES = (symbolic + evaluate).rules
EXAMPLES = sorted(pathlib.Path(__file__).resolve().parent.parent.glob("examples/*.uir"))
p0, p1 = param(0), param(1)


# ---- the same bindings, in the same order, with the keys in the same order

def same_bindings(pat: UPat, u: UOp) -> None:
  want, got = pat.match(u, {}), compile_match(pat)(u)
  assert [list(b.items()) for b in got] == [list(b.items()) for b in want], (pat.pretty(), u)
  assert all(g[k] is w[k] for g, w in zip(got, want) for k in w)


def nodes_of(root: UOp) -> list[UOp]:
  """Every node of ``root`` and of its rewrites: the nodes rules actually see."""
  seen: list[UOp] = []

  class Collect(PatternMatcher):
    def rewrite(self, u: UOp, ctx: Any = None) -> UOp | None:
      seen.append(u)
      return super().rewrite(u, ctx)
  try: graph_rewrite(root, Collect(RULES))
  except Exception: pass   # a program may trap; the nodes seen so far still count
  return root.toposort() + seen


@given(graphs())
def test_every_rule_pattern_binds_like_the_interpreter_on_random_graphs(root):
  for u in nodes_of(root):
    for pat, _ in RULES: same_bindings(pat, u)


@given(programs(depth=4, params=2))
def test_every_rule_pattern_binds_like_the_interpreter_on_random_programs(tree):
  for u in nodes_of(build(tree)):
    for pat, _ in RULES: same_bindings(pat, u)


x, y, c = UPat.var("x"), UPat.var("y"), UPat.cvar("c")
HAND_PATTERNS = [
  UPat(Ops.ADD, src=[x, y, c]),                                          # a 3-source list: 6 orders
  UPat(Ops.WHERE, src=[UPat.var("a"), UPat.var("a"), UPat.var("b")]),    # repeated names across orders
  UPat(Ops.ADD, src=[UPat(Ops.ADD, src=[x, y]), UPat(Ops.ADD, src=[y, x])]),
  UPat(Ops.ADD, src=[x, x]),                                             # the same UPat twice: duplicate bindings
  UPat(Ops.CONST, arg=0), UPat(Ops.CONST, arg=0.0), UPat(Ops.CONST, arg=False), UPat(Ops.CONST, arg=True),
  UPat(Ops.CONST, arg=0, dtype=dtypes.i32), UPat(dtype=(dtypes.i32, dtypes.bool), name="v"),
  UPat((Ops.ADD, Ops.MUL), name="u"), UPat(name="any"), UPat(),
  UPat(Ops.STACK, src=(UPat.var("first"),), allow_any_len=True),
  UPat(Ops.STACK, src=[UPat.var("a"), UPat.cvar("b")], allow_any_len=True),
  UPat(Ops.STACK, src=()), UPat(Ops.STACK, src=[]),
  UPat(Ops.INDEX, src=(UPat(Ops.STACK, name="s"), UPat.cvar("i")), allow_any_len=True, name="u"),
  UPat(Ops.MAX, src=(x, x), name="x"),                                   # the root and a source share a name
  UPat(Ops.ADD, src=(UPat(name="ctx"), UPat(name="match"))),            # ctx= is graph_rewrite's; match a soft keyword
]
s12 = UOp.stack(1, 2)
HAND_NODES = [
  p0 + p1, p0 + p0, p1 + 3, UOp.const(3) + p0, (p0 + p1) + (p1 + p0), (p0 + p1) + (p0 + p1),
  UOp.const(0), UOp.const(0.0), UOp.const(-0.0), UOp.const(False), UOp.const(True), UOp.const(1), p0.max(p0),
  UOp.const(True).where(p0, p0), UOp.const(True).where(p0, p1), UOp.stack(p0, p1, 3), UOp.stack(3, p0), UOp.stack(p0),
  UOp.stack(s12, s12).index(1, 0), UOp.stack(s12, s12).index(1), p0 * 2,
  UOp(Ops.ADD, (UOp(Ops.ADD, (p0, p1)), UOp.const(4))),
]


@pytest.mark.parametrize("pat", HAND_PATTERNS, ids=lambda p: p.pretty())
def test_hand_patterns_bind_like_the_interpreter(pat):
  for u in HAND_NODES: same_bindings(pat, u)


def test_arg_constraints_compare_with_equality_like_the_interpreter():
  zero = compile_match(UPat(Ops.CONST, arg=0))
  assert zero(UOp.const(0.0)) == [{}] and zero(UOp.const(False)) == [{}] and zero(UOp.const(-0.0)) == [{}]
  assert compile_match(UPat(Ops.CONST, arg=0, dtype=dtypes.i32))(UOp.const(False)) == []


def test_a_rule_calls_its_function_on_each_binding_until_one_returns_a_new_node():
  calls = []
  def fn(a, b):
    calls.append((a, b))
    return None if len(calls) < 2 else a * b
  rule = compile_rule(UPat(Ops.ADD, src=[UPat.var("a"), UPat.var("b")]), fn)
  assert rule(p0 + p1, None) is p1 * p0 and calls == [(p0, p1), (p1, p0)]
  assert compile_rule(UPat.var("x") + 0, lambda x: x + 0)(p0 + 0, None) is None   # the same node: no change


def test_names_that_cannot_be_keywords_fail_like_the_interpreter():
  pat = UPat(Ops.ADD, src=(UPat(name="ctx"), UPat(name="match")))
  assert compile_rule(pat, lambda **kw: kw["match"])(p0 + p1, None) is p1 and compile_rule(pat, lambda ctx, match: ctx)(p0 + p1) is p0
  with pytest.raises(TypeError): compile_rule(pat, lambda **kw: None)(p0 + p1, "a ctx")   # ctx given twice, as fn(**b, ctx=ctx)


def test_a_pattern_too_big_to_unroll_stays_interpreted():
  wide = UPat(Ops.STACK, src=[UPat.var(f"v{i}") for i in range(6)])   # 720 orders
  assert len(wide._orders) > MAX_LEAVES and "interpreted" in compiled_source(wide)
  u = UOp.stack(*range(6))
  assert compile_match(wide)(u) == wide.match(u, {}) and len(wide.match(u, {})) == 720


def test_generated_source_is_readable():
  src = compiled_source((UPat.var("x", dtype=dtypes.i32) + UPat.cvar("c1")) + UPat.cvar("c2"))
  assert src.startswith("# UPat (x:i32 + const(c1)) + const(c2)\ndef match(u):") and "u00.dtype is i32" in src
  assert "r = _fn(x=u0, c=u1)" in compiled_source(UPat(Ops.ADD, src=(x, c)), rule=True)


# ---- early rejection is sound: a rule it skips has no binding

@given(graphs())
def test_early_rejection_never_skips_a_rule_that_matches(root):
  for u in nodes_of(root):
    ops = tuple(s.op for s in u.src)
    for pat, _ in RULES:
      if pat.match(u, {}): assert may_match(pat, ops, len(u.src)) and may_match(pat, None, len(u.src))


# ---- the same rule calls, in the same order, with the same results

class Reference(PatternMatcher):
  """The chapter's matcher: every rule filed under the node's op, by ``UPat.match``; it watches every visit."""
  def fire(self, u: UOp, ctx: Any = None):
    for rule in self.by_op.get(u.op, ()):
      pat, fn = rule
      for binding in pat.match(u, {}):
        ret = fn(**binding, ctx=ctx) if ctx is not None else fn(**binding)
        if ret is not None and ret is not u: return rule, ret
    return None


class Watching(PatternMatcher):
  """A subclass that overrides ``rewrite`` (like the chapter's Trace): graph_rewrite's reference loop."""
  def rewrite(self, u: UOp, ctx: Any = None) -> UOp | None: return super().rewrite(u, ctx)


def logged(rules: list, log: list) -> list:
  """The rules with functions that log each call: (rule index, bindings, result or error)."""
  def wrap(i: int, fn: Any) -> Any:
    def call(**kw: Any) -> Any:
      try: ret = fn(**kw)
      except Exception as e:
        log.append((i, tuple(kw.items()), f"{type(e).__name__}: {e}"))
        raise
      log.append((i, tuple(kw.items()), ret))
      return ret
    return call
  return [(pat, wrap(i, fn)) for i, (pat, fn) in enumerate(rules)]


def trace(root: UOp, make: Any, compiled: bool | None = None) -> tuple[list, Any]:
  """Every rule call of ``graph_rewrite(root, make(rules))``, and its result (or error)."""
  log: list = []
  pm = make(logged(RULES, log)) if compiled is None else make(logged(RULES, log), compiled=compiled)
  try: out = graph_rewrite(root, pm)
  except Exception as e: out = f"{type(e).__name__}: {e}"
  return log, out


ENGINES = [(PatternMatcher, True), (PatternMatcher, False), (Watching, True), (Watching, False)]


def same_traces(root: UOp) -> None:
  want = trace(root, Reference)
  for make, compiled in ENGINES:
    got = trace(root, make, compiled)
    assert got == want, (make.__name__, compiled, root)


@given(graphs())
def test_rule_calls_are_identical_on_random_graphs(root):
  same_traces(root)


@given(programs(depth=4, params=2))
def test_rule_calls_are_identical_on_random_programs(tree):
  same_traces(build(tree))


def test_rule_calls_are_identical_on_the_examples_and_the_chapter_programs():
  progs = [parse_uir(p.read_text(), str(p)) for p in EXAMPLES]
  progs += [(p0 + 2) * 3 + (UOp.const(1) + UOp.const(4)), (p0 * 4 + 8) // 4, UOp.stack(1, 2, 3) * UOp.stack(10, 20, 30) + 1]
  assert len(progs) > 5
  for prog in progs: same_traces(prog)


def test_stats_are_the_same_in_both_modes():
  prog = sum((((UOp.param(i) * 4 + 8) // 4) % 16 for i in range(1, 8)), UOp.param(0))
  tables = []
  for compiled in (True, False):
    stats = StatsMatcher(PatternMatcher(RULES, compiled=compiled))
    graph_rewrite(prog, stats)
    tables.append(sorted((s.name, s.tries, s.matches, s.fires) for s in stats.stats.values()))
  assert tables[0] == tables[1] and any(t[3] for t in tables[0])


# ---- the switch

def test_the_switch(monkeypatch):
  assert PatternMatcher(RULES, compiled=False).compiled is False and PatternMatcher(RULES, compiled=True).compiled
  monkeypatch.setenv("UOPC_COMPILE", "0")
  assert PatternMatcher(RULES).compiled is False
  monkeypatch.setenv("UOPC_COMPILE", "1")
  assert PatternMatcher(RULES).compiled is True
  assert (PatternMatcher(symbolic.rules, compiled=False) + PatternMatcher(evaluate.rules)).compiled is False   # off wins
  assert StatsMatcher(PatternMatcher(RULES, compiled=False)).compiled is False


@pytest.mark.parametrize("compiled", [True, False])
def test_candidates_follow_rule_order(compiled):
  pm = PatternMatcher(RULES, compiled=compiled)
  u = (p0 + 1) + 2
  cands = [r for r, _ in pm.candidates(u)]
  assert cands == [r for r in pm.by_op[Ops.ADD] if r in cands] and len(cands) < len(pm.by_op[Ops.ADD])
  assert pm.fire(u)[1] is p0 + 3


def test_patterns_pickle_and_copy_without_their_generated_code():
  import copy
  import pickle
  pat = UPat.var("x") + UPat.cvar("c")
  compile_match(pat)
  for other in (pickle.loads(pickle.dumps(pat)), copy.deepcopy(pat)):
    assert other._compiled is None and compile_match(other)(p0 + 3) == pat.match(p0 + 3, {})


def test_generated_source_leaves_linecache_with_its_function():
  import gc
  import linecache
  pm = PatternMatcher([(UPat.var("x") * 123_457, lambda x: x)], compiled=True)
  p0 = param(0)
  assert graph_rewrite(p0 * 123_457, pm) is p0
  names = [n for n in linecache.cache if n.startswith("<upat_compile") and "123457" in "".join(linecache.cache[n][2])]
  assert names
  del pm
  gc.collect()
  assert all(n in linecache.cache for n in names)   # not from inside the collector: it may run in linecache.checkcache's loop
  other = PatternMatcher([(UPat.var("x") * 765_431, lambda x: x)], compiled=True)
  assert graph_rewrite(p0 * 765_431, other) is p0     # the next compile drops them
  assert not any(n in linecache.cache for n in names)


def test_rule_results_is_the_one_way_rules_are_called():
  """Bindings as keywords, ``ctx=`` only when given, None and the node itself skipped, lazily."""
  from uopc.upat_compile import rule_results
  x, y = UPat.var("x"), UPat.var("y")
  p0, p1 = param(0), param(1)
  calls = []
  def fn(x, y, ctx=None):
    calls.append(ctx)
    return None if ctx == "none" else y + x
  assert list(rule_results(x + y, fn, p0 + p1)) == [p1 + p0] and calls == [None, None]
  assert list(rule_results(x + y, fn, p0 + p1, ctx="none")) == [] and calls[2:] == ["none", "none"]
  first = next(rule_results(x + y, fn, p0 + p1, ctx=7))
  assert first is p1 + p0 and calls[4:] == [7]   # the second binding is not tried until asked for


def test_the_generated_source_comments_cannot_run_code():
  class Hostile:   # an arg whose repr, shown in the source's comment line, is code on a line of its own
    def __repr__(self): return "0\nraise SystemExit(99)\r\nraise SystemExit(98)\u2028x"
    def __ne__(self, other): return True
  pat = UPat(Ops.CONST, arg=Hostile())
  for rule in (False, True):
    src = compiled_source(pat, rule=rule)
    assert src.splitlines()[0].startswith("# UPat 0\\nraise SystemExit(99)\\r\\nraise SystemExit(98)\\u2028x")
    assert "interpreted" not in src
  assert compile_match(pat)(UOp.const(0)) == [] and compile_rule(pat, lambda: p0)(UOp.const(0), None) is None
