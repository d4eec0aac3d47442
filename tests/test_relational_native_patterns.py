"""The native core's pattern matcher (patterns.py, _space_patterns.c's pat_solve) against UPat.match: it never says "no" where
UPat.match finds a binding, and explorations that lean on it are the Python core's, state for state."""
from hypothesis import given
from hypothesis import strategies as st

from tests.test_relational_native_drive import both
from uopc import PatternMatcher, UOp, UPat
from uopc.dtype import dtypes
from uopc.ops import Ops
from uopc.relational import Exploration, Stepper
from uopc.relational.native.patterns import MAX_NODES, compile_rules
from uopc.relational.native.space import NativeSpace

x, y, z = UPat.var("x"), UPat.var("y"), UPat.var("z")
PUSH_ADD = PatternMatcher([((x + 0) + y, lambda x, y: (x + y) + 0)], name="push-add")


def every_node(g: UOp) -> list[UOp]:
  """The nodes of ``g``'s graph, each once (iterative)."""
  seen, stack, out = set(), [g], []
  while stack:
    u = stack.pop()
    if u in seen: continue
    seen.add(u); out.append(u); stack.extend(u.src)
  return out


def asked(pm: PatternMatcher, g: UOp) -> dict[UOp, bool]:
  """For each node of ``g``: would the native core ask Python for its redexes?"""
  space = NativeSpace(Stepper(pm))
  return {u: space.core.asks(space.to_id(u)) for u in every_node(g)}


def python_matches(pm: PatternMatcher, u: UOp) -> bool:
  return any(rule[0].match(u, {}) for rule in pm.rules)


# ---- random programs: an i32 DAG of +, *, max, < and where (three sources), over two PARAMs and a few constants

@st.composite
def programs(draw: st.DrawFn, max_ops: int = 8, min_ops: int = 1) -> UOp:
  ints = [UOp.param(0), UOp.param(1), UOp.const(0), UOp.const(1), UOp.const(2)]
  bools: list[UOp] = []
  def pick(pool: list[UOp]) -> UOp: return pool[-1 - draw(st.integers(0, len(pool) - 1))]   # the newest first: connected
  for _ in range(draw(st.integers(min_ops, max_ops))):
    kind = draw(st.sampled_from(["add", "mul", "max", "lt", "where"]))
    if kind == "lt": bools.append(pick(ints) < pick(ints))
    elif kind == "where" and bools: ints.append(pick(bools).where(pick(ints), pick(ints)))
    else: ints.append(UOp({"add": Ops.ADD, "mul": Ops.MUL}.get(kind, Ops.MAX), (pick(ints), pick(ints))))
  return ints[-1]


# ---- random patterns: op sets, dtypes, args, tuples and lists of sources, repeated names, allow_any_len, three levels

OP_SETS = [None, None, Ops.ADD, Ops.MUL, Ops.MAX, Ops.CONST, Ops.PARAM, Ops.WHERE, Ops.CMPLT, (Ops.ADD, Ops.MUL), (Ops.CONST, Ops.PARAM)]


@st.composite
def patterns(draw: st.DrawFn, depth: int = 3) -> UPat:
  op = draw(st.sampled_from(OP_SETS))
  dtype = draw(st.sampled_from([None, None, None, dtypes.i32, dtypes.bool, (dtypes.i32, dtypes.f32)]))
  arg = draw(st.sampled_from([None, None, None, 0, 1, 2])) if op == Ops.CONST else None
  name = draw(st.sampled_from([None, None, "x", "y", "z"]))   # few names: they repeat, and a repeated one is the same node
  src = None
  if depth > 0 and draw(st.integers(0, 2)):
    kids = draw(st.lists(patterns(depth - 1), min_size=0, max_size=3))
    src = kids if draw(st.booleans()) else tuple(kids)
  return UPat(op, src, name, arg, dtype, allow_any_len=src is not None and draw(st.integers(0, 3)) == 0)


@st.composite
def pattern_of(draw: st.DrawFn, u: UOp, depth: int = 3, names: dict | None = None) -> UPat:
  """A pattern read off node ``u``, most of the time one that matches it (three levels deep at most): its op or an op
  set holding it, its dtype, its arg, its sources in order or as a shuffled list, fewer with allow_any_len, one name
  per node (so a node met twice repeats its name). Now and then a near miss: another op, arg or name."""
  names = {} if names is None else names
  miss = draw(st.integers(0, 15)) == 15   # (hypothesis draws the low end often: that is the common case here)
  op = draw(st.sampled_from([None, u.op, u.op, (u.op, Ops.MAX)]))
  if miss: op = Ops.MUL if u.op is Ops.ADD else Ops.ADD
  dtype = draw(st.sampled_from([None, None, u.dtype]))
  arg = draw(st.sampled_from([None, u.arg])) if u.op is Ops.CONST else None
  if miss and u.op is Ops.CONST: arg = u.arg + 1
  name = None
  if draw(st.booleans()):
    name = names.setdefault(u, f"n{len(names)}") if draw(st.integers(0, 7)) < 7 else draw(st.sampled_from(["n0", "n1"]))
  src = None
  if depth > 0 and u.src and (depth == 3 or draw(st.integers(0, 3)) < 3):   # the root's sources always: deep patterns
    kids = [draw(pattern_of(s, depth - 1, names)) for s in u.src]
    any_len = draw(st.integers(0, 3)) == 3
    if any_len: kids = kids[:len(kids) - draw(st.integers(0, len(kids)))]
    src = draw(st.permutations(kids)) if draw(st.booleans()) else tuple(kids)
    return UPat(op, src, name, arg, dtype, allow_any_len=any_len)
  return UPat(op, src, name, arg, dtype)


@st.composite
def program_and_pattern(draw: st.DrawFn) -> tuple[UOp, UPat]:
  """A random program, and a random pattern or one read off one of its nodes."""
  g = draw(programs(min_ops=3))
  if draw(st.integers(0, 3)) == 3: return g, draw(patterns())
  node = g if draw(st.booleans()) else draw(st.sampled_from(every_node(g)))   # the root often: the deepest patterns
  return g, draw(pattern_of(node))


def rule_of(pat: UPat) -> PatternMatcher:
  """One rule of ``pat`` (what its function does is not asked here: only whether the core asks Python)."""
  return PatternMatcher([(pat, lambda **kw: None)], name="random")


@given(program_and_pattern())
def test_the_core_asks_python_wherever_upat_matches(case):
  g, pat = case
  pm = rule_of(pat)
  assert compile_rules(pm).python == ()   # every random pattern is one the core expresses
  for u, asks in asked(pm, g).items():
    # the law: never "no" where UPat.match matches. Nothing here is unsure (no comparison raises), so no "maybe" either
    assert asks == python_matches(pm, u), (pat.pretty(), u)


@given(st.lists(patterns(), min_size=1, max_size=4), programs())
def test_several_rules_are_asked_as_their_union(pats, g):
  pm = PatternMatcher([(p, lambda **kw: None) for p in pats], name="random")
  for u, asks in asked(pm, g).items(): assert asks == python_matches(pm, u)


def shrink_to_first_source(root: UOp, **kw: UOp) -> UOp | None:
  return root.src[0] if root.src and root.src[0].dtype == root.dtype else None


@given(patterns(depth=2), programs(max_ops=6), st.sampled_from([256, 4]))
def test_explorations_under_random_patterns_are_the_python_cores(pat, g, map_limit):
  rooted = UPat(pat.op, pat.src, "root", pat.arg, pat.dtype, pat.allow_any_len)   # the function reads the node as root
  pm = PatternMatcher([(rooted, shrink_to_first_source), (x + 0, lambda x: x)], name="random")
  both(g, pm, map_limit, max_states=300)


# ---- what is covered, one feature at a time

P0, P1, P2 = UOp.param(0), UOp.param(1), UOp.param(2)


def test_a_pattern_two_levels_deep_sends_only_its_matches_to_python():
  g = P0 + 0
  for p in (P1, P2, UOp.param(3)): g = g + p
  told = asked(PUSH_ADD, g)
  assert [u for u, asks in told.items() if asks] == [(P0 + 0) + P1]   # the one-level signature check said yes to all three + nodes
  assert PUSH_ADD.may_rewrite(Ops.ADD, (Ops.ADD, Ops.PARAM), 2)


def test_commutative_sources_are_tried_in_every_order():
  pm = PatternMatcher([((x * 2) + y, lambda x, y: None)], name="comm")   # + and * take list sources
  told = asked(pm, P1 + (2 * P0))
  assert told[P1 + (2 * P0)] and not told[2 * P0]
  assert not asked(pm, P1 + (3 * P0))[P1 + (3 * P0)]


def test_a_repeated_name_binds_the_same_node():
  pm = PatternMatcher([((x + y) * (x + z), lambda x, y, z: None)], name="rep")
  yes, no = (P0 + P1) * (P2 + P0), (P0 + P1) * (P2 + P2)
  assert asked(pm, yes)[yes] and not asked(pm, no)[no]


def test_dtype_arg_and_any_len_are_checked():
  pm = PatternMatcher([(UPat(Ops.WHERE, (UPat(dtype=dtypes.bool), UPat(Ops.CONST, arg=1)), allow_any_len=True, name="w"), lambda w: None)], name="w")
  c = P0 < P1
  yes, no_arg = c.where(UOp.const(1), P0), c.where(UOp.const(2), P0)
  assert asked(pm, yes)[yes] and not asked(pm, no_arg)[no_arg]
  exact = PatternMatcher([(UPat(Ops.WHERE, (UPat(), UPat())), lambda: None)], name="exact")
  assert not asked(exact, yes)[yes]   # three sources, two named, no allow_any_len


def test_a_comparison_that_raises_is_a_maybe():
  class Odd:
    def __eq__(self, other): raise RuntimeError("no comparing")
    def __ne__(self, other): raise RuntimeError("no comparing")
    __hash__ = object.__hash__
  pm = PatternMatcher([(UPat(Ops.CONST, arg=Odd(), name="c") + x, lambda c, x: None)], name="odd")
  g = P0 + 1
  assert asked(pm, g)[g]   # Python's matcher raises there, which the explorer makes a stuck step: Python must be asked


def test_a_pattern_too_big_for_the_core_stays_in_python_by_itself():
  big = x
  for _ in range(MAX_NODES): big = big + 0
  pm = PatternMatcher([(big, lambda x: None), ((x + 0) + y, lambda x, y: None)], name="big")
  compiled = compile_rules(pm)
  assert compiled.python == (0,) and compiled.rules == (1,)
  g = (P0 + 5) + 0
  assert asked(pm, g)[g]   # rule 0 by its signature (a + of a + and a CONST may be its root): asked; rule 1 alone says no
  assert not asked(PatternMatcher([((x + 0) + y, lambda x, y: None)]), g)[g]


def test_a_matcher_subclass_keeps_every_rule_in_python():
  class Mine(PatternMatcher):
    def every_candidate(self, u): return super().every_candidate(u)
  pm = Mine([((x + 0) + y, lambda x, y: None)])
  assert compile_rules(pm).python == (0,)


def test_the_add_chain_runs_in_the_core_with_one_python_call_a_state():
  g = P0 + 0
  for i in range(1, 201): g = g + UOp.param(i)
  (states, _, normals, complete, _, _, _), ex = both(g, PUSH_ADD, max_states=None)
  assert ex.native and complete and len(states) == 201 and len(normals) == 1
  def python_calls(native: bool) -> int:
    calls = []
    def push(x, y):
      calls.append(1)
      return (x + y) + 0
    assert Exploration(g, PatternMatcher([((x + 0) + y, push)]), max_states=None, native=native).run().native == native
    return len(calls)
  assert python_calls(True) == python_calls(False) == 200   # the rule's function once a redex in both; no other node asked


def test_a_long_add_chain_is_explored_in_the_core_alone():
  # 1,000 levels: half a million nodes made in C, so its hash-consing table grows past the size that asks for huge pages
  g = P0 + 0
  for i in range(1, 1001): g = g + UOp.param(i)
  ex = Exploration(g, PUSH_ADD, max_states=None, native=True).run()
  assert ex.native and ex.complete and len(ex.states) == 1001 and ex._native.core.counts["nodes"] > 500_000
  last = ex.states[-1].graph
  assert [s.id for s in ex.normal_forms] == [1000] and last.src[1].arg == 0 and last.src[0].src[1] is UOp.param(1000)


def test_compiled_tables_are_kept_per_matcher_while_its_rules_stay():
  pm = PatternMatcher([((x + 0) + y, lambda x, y: None)], name="kept")
  first = compile_rules(pm)
  assert compile_rules(pm) is first
  pm.rules[0] = PatternMatcher([(x * 2, lambda x: None)], name="other").rules[0]   # a rule replaced in place: made again
  again = compile_rules(pm)
  assert again is not first and again.tables[0][0][0] == (list(Ops).index(Ops.MUL),)
