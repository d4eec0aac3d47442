"""bench/maude_gen.py: one term, and what each engine is given from it (the Maude module, its term, the .uir text, the rules)."""
from bench.maude import SHAPES, add_chain, big_sum, plain_sum, product_of_sums, push_chain, sum_of_add0, zero_chain
from bench.maude_gen import maude_module, maude_term, matcher, size, uir_text
from uopc import UOp
from uopc.relational import explore
from uopc.uir import parse_uir


def test_maude_module_of_two_rules():
  assert maude_module(["add0", "push0"], "T") == """\
mod T is
  protecting NAT .
  sort E .
  op p : Nat -> E [ctor] .
  op c : Nat -> E [ctor] .
  op add : E E -> E [ctor] .
  op mul : E E -> E [ctor] .
  vars X Y : E .
  rl [add0] : add(X, c(0)) => X .
  rl [push0] : mul(add(X, c(0)), Y) => add(mul(X, Y), c(0)) .
endm
"""


def test_one_term_three_texts():
  t = ("mul", ("add", ("p", 0), 0), ("p", 7))
  assert maude_term(t) == "mul(add(p(0), c(0)), p(7))"
  assert uir_text(t) == "%0 = param : slot=0 dtype=i32\n%1 = add %0, 0\n%2 = param : slot=7 dtype=i32\n%3 = mul %1, %2\n"
  assert parse_uir(uir_text(t)) is (UOp.param(0) + 0) * UOp.param(7)


def test_generated_rules_rewrite_as_written():
  p0, p1 = UOp.param(0), UOp.param(1)
  ex = explore((p0 + 0) * p1, matcher(["push0", "add0"]), max_states=None)
  assert sorted(s.term() for s in ex.states) == ["add(mul(p0, p1), 0)", "mul(add(p0, 0), p1)", "mul(p0, p1)"]
  assert [s.term() for s in explore(p0 + p1, matcher(["comm"]), max_states=None).states] == ["add(p0, p1)", "add(p1, p0)"]


def test_state_counts_of_the_shapes():
  """The counts the bench checks Maude against: 2**k, 3**m * 2**(m-1), n + 1, n + 1, 32, n + 1, n // 2 + 1."""
  def states(t, rules): return len(explore(parse_uir(uir_text(t)), matcher(rules), max_states=None, semantics="tree").states)
  assert states(sum_of_add0(5, 100), ["add0"]) == 2 ** 5
  assert states(sum_of_add0(3, 100), ["add0", "comm"]) == 3 ** 3 * 2 ** 2
  assert states(push_chain(30, 100), ["push0"]) == 31
  assert states(zero_chain(30, 100), ["add0"]) == 31
  assert states(big_sum(1000, 100), ["add0"]) == 32
  # the ADD chain: the + 0 climbs one level a step under pushadd, two under push3 (its pattern three levels deep)
  assert states(add_chain(30, 100), ["pushadd"]) == 31
  assert states(add_chain(30, 100), ["push3"]) == 30 // 2 + 1
  # commutativity and associativity: every order of the m terms in every tree, m! * Catalan(m - 1); the ADD-bubble: every
  # order of all but the first term, (n - 1)!; distributivity with commutativity of + over two sums of two: 68
  assert states(plain_sum(5, 100), ["comm", "assoc"]) == 120 * 14
  assert states(plain_sum(6, 100), ["bubble"]) == 120
  assert states(product_of_sums(2, 100), ["distl", "distr", "comm"]) == 68
  assert {s.rules for s in SHAPES} == {("add0",), ("add0", "comm"), ("push0",), ("pushadd",), ("push3",), ("comm", "assoc"), ("bubble",),
                                       ("distl", "distr", "comm")}


def test_big_programs_without_recursion():
  assert size(big_sum(100_000, 0)) in range(99_990, 100_001)
  deep = zero_chain(20_000, 0)
  assert maude_term(deep).count("add(") == 20_000
  assert parse_uir(uir_text(deep)).src[1].arg == 0


def test_the_rules_are_templates_the_native_core_applies():
  # as Maude's rules are data, each rule's function only combines its variables (uopc.egraph.template): no Python per match
  from bench.maude_gen import RULES
  from uopc.egraph.template import Template
  assert all(Template.of(fn) is not None for _, fn in matcher(list(RULES)).rules)


def test_the_c_bfs_reaches_the_same_states():
  # bench/bfs.c, the plain C breadth-first search the bench compares with: the counts the explorer and Maude reach
  from bench.maude import run_c_bfs
  shapes = {s.name.split()[0]: s for s in SHAPES}
  assert run_c_bfs(shapes["(v)"], 5)[0].states == 1680
  assert run_c_bfs(shapes["(vi)"], 6)[0].states == 120
  assert run_c_bfs(shapes["(vi')"], 7)[0].states == 180   # 6! / 4: two pairs of equal terms
  assert run_c_bfs(shapes["(vii)"], 2)[0].states == 68
  assert run_c_bfs(shapes["(ii)"], 3)[0].states == 3 ** 3 * 2 ** 2
