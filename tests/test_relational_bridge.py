"""The etuples bridge: nodes in unification, etuplize/evaluate round trips, depth safety."""
import itertools
import math

import pytest
from cons import car, cdr, cons
from etuples import etuple
from etuples import etuplize as etuples_etuplize
from hypothesis import given
from hypothesis import strategies as st
from kanren import conde, eq, lall, run, var
from kanren import vars as kanren_vars
from kanren.graph import walko
from kanren.goals import conso
from kanren.term import applyo
from unification import reify, unify
from unification.core import isground

from tests.strategies import graphs
from uopc import Ops, UOp, dtypes
from uopc.relational.logic import bridge
from uopc.relational.logic.bridge import Head, UExpr, as_node, etuplize, head_of, pat, show_pattern, term_pattern
from uopc.term import show

p0, p1 = UOp.param(0), UOp.param(1)


def chain(n: int, base: UOp = p0) -> UOp:
  u = base
  for i in range(n): u = u * 1 if i % 2 else u + 0
  return u


# ---- round trips on random graphs

@given(graphs())
def test_etuplize_evaluates_to_the_same_node(g):
  e = etuplize(g)
  assert e.evaled_obj is g
  assert etuples_etuplize(g).evaled_obj is g          # etuples' own etuplize dispatches to ours
  assert show_pattern(e) == show(g) and str(e) == show(g, 200)
  assert hash(e) == hash(etuplize(g)) and e == etuplize(g)


@given(graphs())
def test_etuplized_graph_unifies_with_its_node_both_ways(g):
  e = etuplize(g)
  assert unify(e, g, {}) == {} and unify(g, e, {}) == {}
  assert reify(e, {var(): 1}) is e                    # ground: reification hands it back
  assert isground(e, {})


@given(graphs(), st.data())
def test_hole_patterns_unify_and_reify_back(g, data):
  nodes = g.toposort()
  n = data.draw(st.sampled_from(nodes))
  x = var()
  pattern = etuplize(g, holes={n: x})
  s = unify(pattern, g, {})
  assert s is not False and s[x] is n
  assert unify(g, pattern, {})[x] is n
  assert reify(pattern, s) is g                       # all holes bound: the node itself
  assert not isground(pattern, {}) and isground(pattern, s)
  for other in nodes:                                 # the hole must be n itself for the pattern to be g
    if other is not n: assert unify(pattern, g, {x: other}) is False


def test_different_constants_never_unify():
  x = var()
  for a, b in [(0.0, -0.0), (0, False), (0, 0.0), (1, True)]:
    assert unify(UOp.const(a), UOp.const(b), {}) is False
    assert unify(pat.const(x, dtype=UOp.const(a).dtype), UOp.const(a), {})[x] == a
  nan = UOp.const(math.nan)
  assert unify(pat.const(math.nan), nan, {}) == {}
  c = var()
  s = unify(pat.const(c), UOp.const(-0.0), {})
  assert math.copysign(1, s[c]) == -1
  assert unify(UExpr((Head(Ops.CONST, dtypes.f32, 0.0),)), UOp.const(-0.0), {}) is False   # by bits
  assert unify(UExpr((Head(Ops.CONST, dtypes.f32, 0.0),)), UOp.const(0.0), {}) == {}


def test_heads_are_interned_and_build_nodes():
  h = head_of(p0 + 1)
  assert h is Head(Ops.ADD, dtypes.i32, None) and h(p0, UOp.const(1)) is p0 + 1
  assert head_of(UOp.const(0.0)) is not head_of(UOp.const(-0.0))
  assert Head(Ops.ADD, var(), None) is not Head(Ops.ADD, var(), None)    # open heads are not interned
  with pytest.raises(ValueError, match="open head"): Head(Ops.ADD, dtypes.i32, var())(p0, p0)
  assert repr(h) == "add:i32"


def test_patterns_unify_in_either_order_and_reify_to_nodes():
  x, y = var("x"), var("y")
  g = p0 * 3 + 11
  assert unify(pat.add(x, 11), g, {})[x] is p0 * 3
  assert unify(g, pat.add(pat.mul(x, y), 11), {})[y] is UOp.const(3)
  assert unify(pat.add(x, 12), g, {}) is False
  assert unify(pat.mul(x, 11), g, {}) is False
  assert reify(pat.add(pat.mul(x, 3), 11), {x: p0}) is g
  partial = reify(pat.add(pat.mul(x, y), 11), {x: p0})
  assert isinstance(partial, UExpr) and show_pattern(partial) == "add(mul(p0, ~y), 11)"
  assert as_node(partial) is None and as_node(reify(partial, {y: UOp.const(3)})) is g
  q = var()
  assert run(0, q, eq(q, pat.add(x, 11)), eq(x, p0 * 3)) == (g,)
  assert run(0, x, eq(pat.add(x, 11), g)) == (p0 * 3,)


def test_as_node_gives_the_node_evaluation_builds_or_none_where_evaluation_refuses():
  # an operand list (a cdr) is not a node, empty or not: None, and evaluating it says so
  for operands in (cdr(p0), cdr(p0 + 1), cdr(etuplize(p0))):
    assert as_node(operands) is None
    with pytest.raises(ValueError, match="not a node"): _ = operands.evaled_obj
  # an omitted dtype is inferred when a pattern is built, by as_node as by evaluation
  for e, g in ((pat.add(p0, 1), p0 + 1), (pat.mul(pat.add(p0, 1), 2), (p0 + 1) * 2), (pat.node(Ops.MAX, p0, p1), p0.max(p1)),
               (pat.add(p0, 1, dtype=dtypes.i32), p0 + 1)):
    assert e.evaled_obj is g and as_node(e) is g
  # a hole, an open arg or an ill-typed pattern: both refuse
  x = var("x")
  for e, err, match in ((pat.add(x, 1), ValueError, "logic variable ~x"), (pat.mul(pat.add(p0, x), 2), ValueError, "logic variable ~x"),
                        (pat.node(Ops.ADD, p0, 1, arg=var()), ValueError, "open head"), (pat.add(p0, 1.0), bridge.UOpError, "mismatched")):
    assert as_node(e) is None
    with pytest.raises(err, match=match): _ = e.evaled_obj


def test_term_pattern_reads_the_one_line_form():
  s = unify(term_pattern("add(mul(?x, 3), ?c)"), p0 * 3 + 11, {})
  assert s[var("x")] is p0 and s[var("c")] is UOp.const(11)
  assert unify(term_pattern("add(?x, ?x)"), p0 + p0, {})[var("x")] is p0
  assert unify(term_pattern("add(?x, ?x)"), p0 + p1, {}) is False
  assert unify(term_pattern("add(p1, _)"), p1 + 7, {}) is not False
  assert unify(term_pattern("add(p1, _)"), p0 + 7, {}) is False
  assert unify(term_pattern("add(?x, 0.0)"), UOp.param(0, dtypes.f32) + -0.0, {}) is False


def test_cons_car_cdr_and_kanren_term_goals():
  g = p0 + 1
  assert car(g) is head_of(g) and cdr(g) == (p0, UOp.const(1))
  h, t = var(), var()
  assert run(0, (h, t), conso(h, t, g)) == ((head_of(g), (p0, UOp.const(1))),)
  q = var()
  assert run(0, q, applyo(head_of(g), (p0, UOp.const(1)), q)) == (g,)
  assert run(0, q, applyo(q, (p0, UOp.const(1)), g)) == (head_of(g),)


def test_kanren_conde_and_lall_compose_with_nodes():
  x, q = var(), var()
  g = p0 * 3 + 11
  out = run(0, q, conde([eq(q, pat.add(x, 11)), eq(x, p0)], [eq(q, g)]))
  assert set(out) == {p0 + 11, g}
  assert run(0, x, lall(eq(g, pat.add(x, 11)), eq(x, pat.mul(p0, 3)))) == (p0 * 3,)


# ---- depth: a 20,000-node chain

def test_deep_chain_etuplize_unify_reify_without_recursion_error():
  g = chain(20_000)
  e = etuplize(g)
  assert e.evaled_obj is g and hash(e) == hash(etuplize(g))
  assert len(repr(e)) < 300 and str(e).endswith("…")
  x = var()
  pattern = etuplize(g, holes={p0: x})
  assert unify(pattern, g, {})[x] is p0
  assert unify(g, pattern, {})[x] is p0
  assert not isground(pattern, {}) and isground(pattern, {x: p1})
  assert reify(pattern, {x: p1}) is chain(20_000, p1)
  q = var()
  assert run(1, q, eq(q, pattern), eq(x, p1)) == (chain(20_000, p1),)
  assert run(1, x, eq(e, pattern)) == (p0,)
  fresh = UExpr(list(pattern))            # a non-ground copy: its evaluation is iterative too
  assert reify(fresh, {x: p0}) is g


# ---- the import-time self-check

def test_self_check_fails_loudly_without_etuples_unification(monkeypatch):
  monkeypatch.setattr(bridge, "unify", lambda *a: False)
  with pytest.raises(ImportError, match="packaging"): bridge._self_check()


def test_self_check_passes_here():
  bridge._self_check()
  assert unify(etuple(abs, var()), etuple(abs, 1), {}) is not False


# ---- the Aesara issue's snippets ("Construct graphs resulting from arbitrary applications of
# rewrites", the section on miniKanren), replayed on a uopc graph: log(exp(x + x)) + x + x

x_f = UOp.param(0, dtypes.f32)
Z = (x_f + x_f).exp2().log2() + x_f + x_f


def test_issue_etuplize_car_cdr_cons():
  z_et = etuplize(Z)
  assert z_et.evaled_obj is Z
  assert car(z_et) is head_of(Z)
  assert str(cdr(z_et)) == "e(add(log2(exp2(add(p0, p0))), p0), p0)"
  assert z_et == cons(car(z_et), cdr(z_et))
  assert cons(car(z_et), cdr(z_et)).evaled_obj is Z
  # the same on the node itself: cons(car(u), cdr(u)) stands for u again
  for u in Z.toposort():
    assert cons(car(u), cdr(u)).evaled_obj is u


def test_issue_conso_and_lall_states():
  z_et = etuplize(Z)
  car_lv, cdr_lv = kanren_vars(2)
  res = run(0, (car_lv, cdr_lv), conso(car_lv, cdr_lv, z_et))
  assert len(res) == 1 and res[0][0] == car(z_et) and res[0][1] == cdr(z_et)
  next_state = next(lall(conso(car_lv, cdr_lv, z_et))({}))
  assert next_state[car_lv] is head_of(Z) and next_state[cdr_lv] == cdr(z_et)
  with pytest.raises(StopIteration): next(lall(conso(car_lv, cdr_lv, z_et))({car_lv: 1}))
  # conso on the node itself, without etuplizing it
  assert run(0, car_lv, conso(car_lv, cdr_lv, Z)) == (head_of(Z),)


def test_empty_etuple_of_a_leaf_prints_and_reifies():
  leaf = cdr(etuplize(p0))
  assert len(leaf) == 0 and str(leaf) == "e()" and repr(leaf) == "e⟨e()⟩"
  assert reify(leaf, {}) is leaf
  assert str(cdr(p0 + 1)) == "e(p0, 1)"
  y = var()
  assert str(reify(UExpr((p0, y)), {y: UOp.const(2)})) == "e(p0, 2)"   # an operand list stays one


def test_issue_walko_on_a_uopc_graph():
  z_et, res_lv = etuplize(Z), var()
  answers = run(0, res_lv, walko(eq, z_et, res_lv))
  # walko relates every subset of positions by eq: all answers are the graph itself
  assert len(answers) > 1 and all(a.evaled_obj is Z for a in answers)
  states = list(itertools.islice(lall(walko(eq, z_et, res_lv))({}), 200))   # the goal's own stream, as run reads it
  assert len(states) == min(200, len(answers)) and all(reify(res_lv, s).evaled_obj is Z for s in states)


def test_issue_edit_a_states_logic_variable_and_reify_a_new_graph():
  g, res_lv = p0 * 3 + 11, var()
  deepest = max(lall(walko(eq, etuplize(g), res_lv))({}), key=len)   # the graph taken apart down to its leaves
  three, four = head_of(UOp.const(3)), head_of(UOp.const(4))
  new_state = dict(deepest)
  for k, v in deepest.items():
    if v is three: new_state[k] = four
  assert reify(res_lv, new_state).evaled_obj is p0 * 4 + 11
  p_head = head_of(p0)
  for k, v in deepest.items():
    if v is p_head: new_state[k] = head_of(p1)
  assert reify(res_lv, new_state).evaled_obj is p1 * 4 + 11
  assert reify(res_lv, deepest).evaled_obj is g   # the original state is unchanged


def test_heads_of_dead_etuples_are_given_back():
  """20,000 etuplized constants once left 20,001 heads interned with no node alive."""
  from uopc.relational.logic.bridge import live_heads
  p0 = UOp.param(0)
  anchor = etuplize(p0 + 1)   # holds the heads of add and p0
  before = live_heads()
  for i in range(20_000): etuplize(p0 + (700_000 + i))
  assert len(Head._interned) < before + 20_000   # swept as it grew, not only when asked
  assert live_heads() == before
  kept = etuplize(p0 + 699_999)
  assert live_heads() == before + 1 and head_of(kept.evaled_obj.src[1]) is Head(Ops.CONST, dtypes.i32, 699_999)   # still interned
  assert anchor.evaled_obj is p0 + 1


@pytest.mark.parametrize("node", [UOp.param(0, dtypes.i32, (3,)).reduce(Ops.ADD), UOp.param(0).cast(dtypes.f32),
                                  UOp.param(0, dtypes.i32, (2, 3)).reshape((3, 2)), (UOp.param(0) * UOp.param(0)).call(UOp.param(0), name="f"),
                                  UOp.param(0).max(UOp.param(0))])
def test_terms_and_patterns_print_alike(node):
  """The pattern printers once dropped a CAST's dtype and printed REDUCE args as (Ops.ADD, 1)."""
  from uopc import UPat
  from uopc.relational.analyses.overlaps import forms_of, pattern_text
  from uopc.relational.logic.patterns import upat_etuples
  x = UPat.var("x")
  def upat(u: UOp) -> UPat:   # the node's pattern, its PARAM a hole ~x (patterns are two levels deep here)
    return x if u.op is Ops.PARAM else UPat(u.op, dtype=u.dtype, arg=u.arg, src=tuple(upat(s) for s in u.src))
  want = show(node).replace("p0", "~x")
  assert show_pattern(upat_etuples(upat(node))[0][0]) == want
  assert pattern_text(forms_of(upat(node))[0].term) == want


# ---- the fronts kanren.core calls: the dispatchers' answers without the dispatch

def _generic_unify(u, v, s):
  """unification's own machinery below the node fast paths: ``_unify`` dispatch, trampolined."""
  from unification.core import _unify, stream_eval
  return s if u is v else stream_eval(_unify(u, v, s))


def _generic_reify(x, s):
  from unification.core import _reify, stream_eval
  return x if not s else stream_eval(_reify(x, s))


@given(graphs(max_ops=4), graphs(max_ops=4), st.data())
def test_unify_and_reify_fronts_agree_with_the_generic_machinery(g, h, data):
  x, y = var(), var()
  sub = data.draw(st.sampled_from(list(g.toposort())))
  pattern = etuplize(g, holes={sub: y})
  terms = [x, y, g, h, sub, pattern, etuplize(h), (g, x), 5]
  substitutions = [{}, {x: g}, {x: h}, {x: y, y: sub}, {y: sub}, {x: pattern}]
  for u in terms:
    for v in terms:
      for s in substitutions:
        assert bridge.unify_nodes(u, v, s) == _generic_unify(u, v, s), (u, v, s)   # the same substitution, or both False
  for t in terms:
    for s in substitutions:
      assert bridge.reify_nodes(t, s) == _generic_reify(t, s)
  assert bridge.reify_nodes(x, {x: pattern, y: sub}) is g        # bound to a pattern whose hole is bound: the node


def test_kanren_core_calls_the_fronts_and_answers_as_the_dispatchers_do(monkeypatch):
  import kanren.core
  assert kanren.core.unify is bridge.unify_nodes and kanren.core.reify is bridge.reify_nodes
  q, x = var("q"), var("x")
  prog = (p0 + 0) * 1 + (p1 * 1 + 0)

  def query():
    answers = run(0, (q, x), conde([eq(q, prog)], [eq(q, p0 + 1)], [eq(q, pat.add(x, 1))], [eq(q, 5)]), eq(q, pat.add(x, 1)))
    return [tuple(show_pattern(t) for t in a) for a in answers]   # an open pattern reifies to a new etuple each time
  fast = query()
  monkeypatch.setattr(kanren.core, "unify", unify)
  monkeypatch.setattr(kanren.core, "reify", reify)
  assert fast == query() == [("add(p0, 1)", "p0"), ("add(~x, 1)", "~x")]


# kanren.constraints registers unify on (object, object, ConstrainedState); the fast paths here must neither be
# ambiguous with it (multipledispatch warns at the first unify) nor win over it (a disequality would be skipped)
_WITH_CONSTRAINTS = """
from kanren import eq, run, var
from kanren.assoccomm import commutative, eq_comm
from kanren.constraints import neq
from kanren.facts import fact
from uopc import UOp
p0, x, y = UOp.param(0), var(), var()
fact(commutative, "add")
assert run(0, x, neq(x, p0), eq(x, p0)) == (), "a disequality on a node is skipped"
assert run(0, x, eq(x, p0), neq(x, p0)) == ()
assert run(0, x, neq(x, p0), eq(x, p0 + 1)) == (p0 + 1,)
assert run(0, x, neq(x, 1)) == (x,)
assert set(run(0, (x, y), eq_comm(("add", 1, 2), ("add", x, y)))) == {(1, 2), (2, 1)}
print("ok")
"""


@pytest.mark.parametrize("imports", ["import kanren.constraints, uopc.relational", "import uopc.relational, kanren.constraints"])
def test_beside_kanren_constraints_unify_is_unambiguous_and_honours_disequalities(imports):
  import subprocess
  import sys
  out = subprocess.run([sys.executable, "-W", "error", "-c", imports + "\n" + _WITH_CONSTRAINTS], capture_output=True, text=True)
  assert (out.returncode, out.stdout, out.stderr) == (0, "ok\n", "")


def _tuple_unify(pattern, node, s):
  """What unification's own path answers (the tuple walk ``match_ground`` stands in for)."""
  from unification.core import _unify, stream_eval
  return stream_eval(_unify(pattern._tuple, (head_of(node), *node.src), s))


def bridge_parts(pattern):
  out, todo = [], [pattern]
  while todo:
    t = todo.pop()
    if type(t) is UExpr and t._evaled_obj is bridge.ExpressionTuple.null: out.append(t); todo.extend(t._tuple[1:])
  return out


@given(graphs(), graphs(), st.data())
def test_match_ground_answers_as_unification_does(g, h, data):
  """The direct matcher of a pattern against a ground node gives unification's answer: the same bindings or False."""
  x, y = var(), var()
  nodes = h.toposort()
  holes = {data.draw(st.sampled_from(nodes)): x, data.draw(st.sampled_from(nodes)): y}
  pattern = etuplize(h, holes={n: v for n, v in holes.items() if n is not h})
  if type(pattern) is not UExpr or pattern._evaled_obj is not bridge.ExpressionTuple.null: return   # a hole at the root: no node pattern
  for node in (g, h):
    for s in ({}, {x: data.draw(st.sampled_from(g.toposort() + nodes))}):
      fast, slow = bridge.match_ground(pattern, node, s), _tuple_unify(pattern, node, s)
      assert fast is not None or any(type(t) is UExpr and isinstance(t._tuple[0].arg, tuple) for t in bridge_parts(pattern))
      assert (fast is False) == (slow is False)
      if fast is not False: assert fast == slow


def test_match_ground_with_open_heads_binds_op_dtype_and_arg_variables():
  a, op, dt, c = var(), var(), var(), var()
  p0 = UOp.param(0)
  pattern = UExpr((Head(op, dt), a, UExpr((Head(Ops.CONST, dtypes.i32, c),))))
  s = bridge.match_ground(pattern, p0 * 3, {})
  assert (s[op], s[dt], s[a], s[c]) == (Ops.MUL, dtypes.i32, p0, 3) and s == _tuple_unify(pattern, p0 * 3, {})
  assert bridge.match_ground(pattern, p0 * 3, {c: 4}) is False and bridge.match_ground(pattern, p0 * 3, {op: Ops.ADD}) is False
  both = pat.add(a, a)
  assert bridge.match_ground(both, p0 + p0, {}) == _tuple_unify(both, p0 + p0, {}) and bridge.match_ground(both, p0 + p0, {})[a] is p0
  assert bridge.match_ground(both, p0 + 1, {}) is False


def test_match_ground_compiles_the_usual_patterns_and_agrees_with_its_interpreter():
  """A pattern of nodes and fresh variables runs compiled (``plan_compile``); bound variables take the interpreter."""
  y, z, w = var(), var(), var()
  pattern = pat.mul(y, pat.add(z, w))
  plan = bridge._plan(pattern)
  assert plan.compiled is not None
  p0, p1 = UOp.param(0), UOp.param(1)
  for node in (p0 * (p1 + 0), p0 * p1, (p1 + 0) * (p0 + p0), p0 + (p1 + 0)):
    assert bridge.match_ground(pattern, node, {}) == _tuple_unify(pattern, node, {})
    assert bridge.match_ground(pattern, node, {z: p1}) == _tuple_unify(pattern, node, {z: p1})   # bound: the interpreter
  assert bridge.match_ground(pattern, p0 * (p1 + 0), {})[w] is UOp.const(0)
  assert bridge.match_ground(pattern, p0 * (p1 + 0), {z: p1})[w] is UOp.const(0)
  assert bridge.match_ground(pattern, p0 * (p1 + 0), {z: p0}) is False


def test_a_patterns_text_never_reaches_the_compiled_matchers_source():
  """A hostile arg is a value of the compiled function's namespace: it compiles, matches what equals it, runs nothing."""
  hostile = "'); raise SystemExit('escaped') #\n"
  pattern = UExpr((Head(Ops.CONST, dtypes.i32, hostile),))
  plan = bridge._plan(pattern)
  assert plan.compiled is not None and plan.compiled(UOp.const(3), {}) is False
