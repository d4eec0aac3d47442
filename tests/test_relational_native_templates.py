"""Template rules applied in the native core (_space_templates.c, native/templates.py): the same exploration as the Python
core's, with no Python call per redex where every rule that matches a node is a template."""
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.strategies import graphs
from tests.test_relational_native_drive import both
from uopc import PatternMatcher, UOp, UPat, dtypes, symbolic
from uopc.ops import Ops
from uopc.relational import Exploration, Stepper
from uopc.relational.native.space import NativeSpace
from uopc.relational.native.templates import rule_slots
from uopc.relational.native.patterns import compile_rules

a, b, c, x, y, z = (UPat.var(n) for n in "abcxyz")


def add(p, q): return UPat(Ops.ADD, src=(p, q))
def mul(p, q): return UPat(Ops.MUL, src=(p, q))


# name -> (pattern, function): every function a template (uopc.egraph.template.Template.of), unless it says so
RULES = {
  "comm": (add(a, b), lambda a, b: b + a),
  "assoc": (add(add(a, b), c), lambda a, b, c: a + (b + c)),
  "bubble": (add(add(a, b), c), lambda a, b, c: (a + c) + b),
  "distl": (mul(x, add(y, z)), lambda x, y, z: x * y + x * z),
  "mulcomm": (mul(a, b), lambda a, b: b * a),
  "add0": (x + 0, lambda x: x),                        # a list pattern (either order): an argument as the result
  "twice": (x + x, lambda x: x * 2),                   # a repeated name; a constant made of the argument's type
  "same": (x * 1, lambda x: x * 1),                    # the node itself: no step
  "none": (x * 2, lambda x: None),                     # no result: no step
  "to-bool": (UPat(Ops.WHERE, src=(x, y, z)), lambda x, y, z: x),   # the condition: another dtype, a stuck step (Python's)
  "kwargs": (add(x, y), lambda **kw: kw["x"]),         # takes keywords: no template, Python calls it
  "python": (x + 0, lambda x: x.const_like(1)),        # no template (an attribute): Python
}
TEMPLATES = ("comm", "assoc", "bubble", "distl", "mulcomm", "add0", "twice", "same", "none")


def matcher(names) -> PatternMatcher: return PatternMatcher([RULES[n] for n in names])


def test_which_rules_are_templates():
  pm = matcher(list(RULES))
  slots = dict(zip(RULES, rule_slots(pm, compile_rules(pm), True)))
  assert [n for n, (_, s) in slots.items() if s is not None] == [*TEMPLATES, "to-bool"]
  assert slots["assoc"] == (1, (1, 2, 0))   # the slots of a, b, c: names are numbered breadth first, c first
  assert all(s is None for _, s in rule_slots(pm, compile_rules(pm), False))   # a ctx, or another IR: every rule in Python


def plain_sum(m: int) -> UOp:
  g = UOp.param(0)
  for i in range(1, m): g = g + UOp.param(i)
  return g


def test_template_rules_make_no_python_call_per_redex(monkeypatch):
  calls = []
  real = NativeSpace._match
  monkeypatch.setattr(NativeSpace, "_match", lambda self, i: calls.append(i) or real(self, i))
  (states, *_), ex = both(plain_sum(5), matcher(["comm", "assoc"]), max_states=None)
  assert ex.native and len(states) == 1680 and calls == []   # 5! orders times 14 trees, no node shown to Python
  both(plain_sum(4) * (UOp.param(7) + 0), matcher(["comm", "python"]), max_states=None)
  assert calls   # a node a rule left to Python matches: Python finds its redexes, all of them


@pytest.mark.parametrize("names", [["comm", "assoc"], ["bubble"], ["distl", "comm"], ["add0", "twice", "same", "none"], ["to-bool", "comm"],
                                   ["kwargs", "add0"], ["python", "comm", "assoc"]])
@pytest.mark.parametrize("semantics", ["graph", "tree"])
def test_template_rules_explore_the_same(names, semantics):
  p = [UOp.param(i) for i in range(4)]
  for g in (plain_sum(4), (p[0] + p[1]) * (p[2] + p[3]), (p[0] + 0) * 2 + (p[1] * 1 + p[1] * 1), (p[0] + p[0]) * (p[1] + 0),
            (p[0] < p[1]).where(p[2] + p[3], p[3] + 0)):
    both(g, matcher(names), semantics=semantics, max_states=600)


def test_shaped_and_other_dtypes_get_their_own_templates():
  # x + x -> x * 2 makes a constant of x's dtype and shape: one template per (dtype, shape) of x
  v = UOp.param(0, shape=(2, 3))
  f = UOp.param(1, dtypes.f32)
  for g in ((v + v) + (v + v), (f + f) * (f + f)):
    for semantics in ("graph", "tree"):
      both(g, matcher(["twice", "comm"]), semantics=semantics, max_states=None)


@settings(max_examples=60)
@given(graphs(max_ops=7), st.lists(st.sampled_from(sorted(RULES)), min_size=1, max_size=4, unique=True), st.sampled_from([256, 4, 1]),
       st.sampled_from(["graph", "tree"]), st.sampled_from(["bfs", "dfs"]), st.integers(1, 300))
def test_random_programs_under_template_rules_explore_the_same(g, names, map_limit, semantics, order, max_states):
  both(g, matcher(names), map_limit, semantics, order=order, max_states=max_states)


@settings(max_examples=30)
@given(graphs(max_ops=7), st.lists(st.sampled_from(sorted(RULES)), min_size=1, max_size=3, unique=True), st.integers(1, 300))
def test_template_rules_beside_symbolic_explore_the_same(g, names, max_states):
  # symbolic's rules are mostly Python: a node either goes to Python whole or has only template redexes
  both(g, symbolic + matcher(names), max_states=max_states, reduce=True)


def test_a_redex_made_in_the_core_reads_as_the_python_cores():
  pm = matcher(["comm"])
  python = Exploration(plain_sum(3), pm, stepper=Stepper(pm), native=False, max_states=None).run()
  native = Exploration(plain_sum(3), pm, stepper=Stepper(pm), native=True, max_states=None).run()
  r, s = native.states[1].redex, python.states[1].redex
  assert (r.node, r.rule_index, r.result, r.error) == (s.node, s.rule_index, s.result, s.error)
  assert native.states[1].redex is r   # made once, on first read
