"""tinygrad's UPats compiled (uopc/relational/adapters/tinygrad/match.py) against tinygrad's own interpreted ``UPat.match``.

The compiled matcher must give the interpreter's list exactly: the same bindings (the same nodes, keys in the same
order), in the same order, duplicates kept; over every rule of ``symbolic_simple``, ``symbolic`` and ``sym``, on nodes
built from the rules' own patterns (so deep matches, repeated names, ``UPat.any`` branches and commutative orders are
reached) and then mutated (near misses), and on random well-typed expressions. tinygrad is imported at the top on
purpose: without it these tests fail, never skip.
"""
from __future__ import annotations

import itertools
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from tinygrad.dtype import dtypes
from tinygrad.uop.ops import Invalid, Ops, PatternMatcher, UOp, UPat
from tinygrad.uop.symbolic import sym, symbolic, symbolic_simple

from uopc.relational.adapters.tinygrad.ir import adapt
from uopc.relational.adapters.tinygrad.match import every_binding, source_of

RULES = list({id(p): (p, fn) for pm in (symbolic_simple, symbolic, sym) for p, fn in pm.patterns}.values())   # 139 distinct
ALL = adapt(PatternMatcher(RULES))


def branches(p: UPat) -> bool:
  """Whether ``p`` has a ``UPat.any`` anywhere (few rules do: drawn on their own, so every branch is reached)."""
  return p.is_any or p.src is not None and any(not isinstance(vp, itertools.repeat) and any(branches(q) for q in vp) for vp in p.src)


BRANCHING = [r for r in RULES if branches(r[0])]

a, b = UOp.variable("a", 0, 10), UOp.variable("b", -5, 5)
i32, f32, t = UOp.variable("i", 0, 7, dtypes.int32), UOp.variable("f", 1.0, 2.0, dtypes.float32), UOp.variable("t", False, True, dtypes.bool)
LEAVES = [a, b, i32, f32, t, *(UOp.const(v, dtypes.weakint) for v in (0, 1, -1, 2)), UOp.const(0, dtypes.int32), UOp.const(True, dtypes.bool),
          UOp.const(0.0, dtypes.float32), UOp.const(-0.0, dtypes.float32), UOp.const(1.0, dtypes.weakfloat), UOp.const(Invalid, dtypes.bool)]
ANY_OPS = [Ops.ADD, Ops.MUL, Ops.FLOORDIV, Ops.FLOORMOD, Ops.MAX, Ops.CMPLT, Ops.CMPNE, Ops.WHERE, Ops.AND, Ops.CAST, Ops.NEG, Ops.CONST]
DTYPES = [dtypes.weakint, dtypes.int32, dtypes.bool, dtypes.float32, dtypes.weakfloat]


def same(got: list[dict], want: list[dict]) -> bool:
  """The two lists of bindings are one: same length, and each pair has the same keys in the same order bound to the same nodes."""
  return len(got) == len(want) and all(list(g) == list(w) and all(g[k] is w[k] for k in g) for g, w in zip(got, want))


@st.composite
def instance(draw: Any, p: UPat, names: dict[str, UOp], depth: int = 0) -> UOp:
  """A node built to match ``p`` (one of its ``any`` branches, one order of a list source, a name bound twice reused),
  except where the drawing chooses otherwise: any op, dtype or leaf instead, for near misses."""
  if p.is_any: return draw(instance(draw(st.sampled_from(p.src[0])), names, depth))
  if p.name in names and draw(st.integers(0, 4)): return names[p.name]   # a repeated name, usually the same node
  if p.op is None and p.src is None or depth > 4 or not draw(st.integers(0, 15)):
    node = draw(st.sampled_from(LEAVES))
  else:
    op = draw(st.sampled_from(p.op)) if p.op is not None and draw(st.integers(0, 9)) else draw(st.sampled_from(ANY_OPS))
    dt = draw(st.sampled_from(p.match_dtype)) if p.match_dtype is not None and draw(st.integers(0, 9)) else draw(st.sampled_from(DTYPES))
    arg = p.arg if p.arg is not None and draw(st.integers(0, 9)) else (draw(st.sampled_from([0, 1, -1, 2, True, 0.0])) if op is Ops.CONST else None)
    if p.src is None: src: tuple = () if op is Ops.CONST else tuple(draw(st.lists(st.sampled_from(LEAVES), min_size=1, max_size=3)))
    else:
      vp = draw(st.sampled_from(p.src))
      pats = [next(itertools.islice(vp, 0, None))] * draw(st.integers(1, 3)) if isinstance(vp, itertools.repeat) else list(vp)
      src = tuple(draw(instance(q, names, depth + 1)) for q in pats)
      if draw(st.integers(0, 5)) == 0: src = src + (draw(st.sampled_from(LEAVES)),)   # a source too many (allow_any_len)
    node = UOp(op, dt, src, arg)   # the matcher reads fields only: any combination, typed or not
  if p.name is not None: names.setdefault(p.name, node)
  return node


@st.composite
def expressions(draw: Any, depth: int = 0) -> UOp:
  """A random well-typed tinygrad expression over the leaves (tinygrad's own operators, which type-check)."""
  if depth > 3 or not draw(st.integers(0, 3)): return draw(st.sampled_from(LEAVES[:10]))
  x, y = draw(expressions(depth + 1)), draw(expressions(depth + 1))
  op = draw(st.sampled_from(["+", "*", "//", "%", "max", "<", "!=", "where", "neg"]))
  try:
    if op == "+": return x + y
    if op == "*": return x * y
    if op == "//": return x // y
    if op == "%": return x % y
    if op == "max": return x.maximum(y)
    if op == "<": return x < y
    if op == "!=": return x.ne(y)
    if op == "where": return (x < y).where(x, y)
    return -x
  except Exception: return x   # an ill-typed combination: keep the left source


@given(st.data())
def test_compiled_bindings_are_the_interpreters_on_nodes_built_from_the_patterns(data: Any):
  p, _ = data.draw(st.sampled_from(RULES))
  u = data.draw(instance(p, {}))
  want = p.match(u, {})
  assert same(every_binding(p)(u), want)


@given(st.data())
def test_compiled_bindings_are_the_interpreters_on_the_rules_with_any(data: Any):
  p, _ = data.draw(st.sampled_from(BRANCHING))
  u = data.draw(instance(p, {}))
  assert same(every_binding(p)(u), p.match(u, {}))


@given(expressions())
@settings(max_examples=30)
def test_compiled_bindings_are_the_interpreters_on_random_expressions(u: UOp):
  for p, _ in RULES: assert same(every_binding(p)(u), p.match(u, {})), p.location


@given(expressions())
@settings(max_examples=30)
def test_the_first_result_of_each_rule_is_tinygrads_rewrite(u: UOp):
  # each rule alone: its first result over the compiled bindings, after tinygrad's early reject, is what tinygrad's own
  # (compiled) PatternMatcher gives, or both raise the same exception
  for rule in RULES:
    if u.op not in (rule[0].op or ()): continue
    cands = adapt(pm := PatternMatcher([rule])).every_candidate(u)
    try:
      mine = next((r for _, match, fn in cands for bd in match(u) if (r := fn(**bd)) is not None and r is not u), None)
    except Exception as e: mine = type(e)
    try: theirs = pm.rewrite(u)
    except Exception as e: theirs = type(e)
    assert mine is theirs, rule[0].location


@given(st.data())
def test_a_rule_every_candidate_leaves_out_has_no_binding(data: Any):
  # every_candidate's filter (tinygrad's early reject, then may_match on the node's and its sources' ops and dtypes) is a
  # necessary condition: the rules it keeps are every rule filed under the node's op with a binding there, and more
  p, _ = data.draw(st.sampled_from(RULES) | st.sampled_from(BRANCHING))
  u = data.draw(instance(p, {}))
  kept = {i for i, _, _ in ALL.every_candidate(u)}
  for i, (q, _) in enumerate(ALL.pm.patterns):
    if u.op in q.op and q.early_reject.issubset({s.op for s in u.src}) and q.match(u, {}): assert i in kept, q.location


def repeats(p: UPat) -> bool:
  """Whether ``p`` has a repeated source (``src=UPat(...)``) anywhere."""
  return p.src is not None and any(isinstance(vp, itertools.repeat) or any(repeats(q) for q in vp) for vp in p.src)


def test_every_rule_is_compiled_but_those_with_a_repeated_source():
  interpreted = [p for p, _ in RULES if "interpreted by UPat.match" in source_of(p)]
  assert len(interpreted) == 6 and interpreted == [p for p, _ in RULES if repeats(p)]


def test_a_commutative_pattern_lists_both_orders_and_a_repeated_name_is_one_node():
  x, y = UPat.var("x"), UPat.var("y")
  names = [[(k, v.arg.name) for k, v in bd.items()] for bd in every_binding(x + y)(a + b)]
  assert names == [[("x", "a"), ("y", "b")], [("y", "a"), ("x", "b")]]   # the second order binds y first, as the interpreter
  assert every_binding(x + x)(a + b) == [] and [bd["x"] for bd in every_binding(x + x)(a + a)] == [a]
  assert [sorted(bd) for bd in every_binding(UPat.any(x + 1, x * 1))(a * 1)] == [["x"]]   # the second branch
  assert [list(bd) for bd in every_binding(UPat.any(x + y, UPat.var("z")))(a + b)] == [["x", "y"], ["y", "x"], ["z"]]   # both, in order
