"""The one-line term form."""
from hypothesis import given, settings, strategies as st

from tests.helpers import param
from uopc import Ops, UOp, dtypes
from uopc.term import ELLIPSIS, let_names, show
from tests.strategies import graphs

try: from strategies import graphs   # tests/ on sys.path (rootdir-style test layout)
except ImportError: from tests.strategies import graphs


def test_terms_of_every_kind_of_node():
  p0 = param(0)
  assert show((p0 + 2) * 3) == "mul(add(p0, 2), 3)"
  assert show((p0 * p0).call(7, name="sq")) == "sq[mul(p0, p0)](7)"
  assert show(UOp.const(2.0).reshape((1, 1)).expand((2, 3)).reduce(Ops.ADD, 1)) == "reduce(expand(reshape(2.0, (1, 1)), (2, 3)), add, 1)"
  assert show(p0.cast(dtypes.f32)) == "cast(p0, f32)"
  assert show(UOp.const(-0.0) + float("nan")) == "add(-0.0, nan)" and show(UOp.const(True)) == "True"


def test_limit_cuts_exponential_terms():
  t = param(0)
  for _ in range(40): t = t * t   # 2^40 leaves as a term
  s = show(t, limit=100)
  assert len(s) == 101 and s.endswith("…") and s.startswith("mul(mul(")


def test_names_reach_a_terminal_escaped():
  p0 = param(0)
  # ESC [2J clears the screen, ESC ] 0 ; retitles the window, BEL rings; none may reach a terminal raw
  for raw, shown in [("\x1b[2J", "\\x1b[2J"), ("\x1b]0;pwned\x07", "\\x1b]0;pwned\\x07"), ("a\nb\r", "a\\nb\\r"),
                     ("\x9b31m", "\\x9b31m"), ("x\\y", "x\\\\y"), ("\u2028", "\\u2028"), ("é ok", "é ok")]:
    assert show(p0.call(1, name=raw)) == f"{shown}[p0](1)"
  assert all(c.isprintable() for c in show(p0.call(1, name="".join(map(chr, range(0x20))))))


def test_shared_subterms_are_named_once_and_leaves_never():
  p0, p1 = param(0), param(1)
  a = p0 * p1
  assert show(a + a) == "let a = mul(p0, p1) in add(a, a)"
  assert show(p0 + p0) == "add(p0, p0)" and show(a + 1) == "add(mul(p0, p1), 1)"
  assert show((a + a) * a) == "let a = mul(p0, p1) in mul(add(a, a), a)"   # names come sources first
  assert show((a + 1) * (a + 1) + a) == "let a = mul(p0, p1), b = add(a, 1) in add(mul(b, b), a)"


def test_let_names_skip_reserved_words():
  names = let_names()
  first = [next(names) for _ in range(26 + 26 * 26 + 26 ** 3)]
  assert first[:3] == ["a", "b", "c"] and len(set(first)) == len(first)
  assert not {"add", "mul", "max", "sin", "inf", "nan", "in", "let", "bool", "call"} & set(first)


@settings(deadline=None)   # example count: the conftest profile (--slow for many)
@given(graphs(addrspaces=st.none()), st.integers(0, 120))
def test_a_label_is_the_term_when_it_fits(u, limit):
  full, label = show(u), show(u, limit)
  if len(full) <= limit: assert label == full
  elif label.endswith(ELLIPSIS): assert len(label) == limit + 1
  else: assert len(label) <= limit and not label.startswith("let ")   # the tree form, whole: shorter than the let form here


def test_labels_of_a_20000_node_dag_cost_their_limit():
  u = param(0)
  for _ in range(20_000): u = u + u
  assert show(u, 50) == ("add(" * 13)[:50] + ELLIPSIS   # the root first, not the whole let form
  text = show(u)
  assert text.startswith("let a = add(p0, p0), b = add(a, a), ") and text.count("=") == 19_999 and len(text) < 25 * 20_000


@given(st.lists(graphs(max_ops=10), min_size=1, max_size=6), st.sampled_from([None, 1, 5, 12, 40, 200]))
def test_show_inside_a_memo_is_show(gs, limit):
  """The memo a report prints under gives exactly show's text, for graphs that share nodes and graphs that do not,
  asked in any order (each graph's sources too: they are the nodes a step names)."""
  from uopc.term import memo
  asks = [u for g in gs for u in (g, *g.src)]
  expected = [show(u, limit) for u in asks]
  with memo(max_entries=3):   # tiny: it starts again mid-way too
    assert [show(u, limit) for u in asks] == expected
    assert [show(u, limit) for u in reversed(asks)] == expected[::-1]


@given(st.lists(graphs(max_ops=12), min_size=1, max_size=6), st.sampled_from([None, 5, 40]), st.integers(2, 30))
def test_the_c_let_form_is_the_python_one(gs, limit, max_nodes):
  """uopc/_term.c walks, names and writes a graph as _Memo's Python walk does: the same texts, and the same remembered
  subterm texts; past max_nodes distinct nodes both give up (show then prints it as without a memo)."""
  from uopc import term
  assert term._native is not None   # built by setup.py: the suite runs with it
  asks = [u for g in gs for u in (g, *g.src, *(g.src[0].src if g.src else ()))]
  big = max(gs, key=lambda g: len(g.toposort()))
  squared = big + big   # every subterm used twice
  asks += [squared, squared + squared]

  def texts(native: object) -> tuple[list[str], dict[object, str]]:
    saved, term._native = term._native, native
    try:
      with term.memo():
        m = term._memo
        m.MAX_NODES = max_nodes
        return [show(u, limit) for u in asks], dict(m.plain)
    finally: term._native = saved
  (c_texts, c_plain), (py_texts, py_plain) = texts(term._native), texts(None)
  assert c_texts == py_texts == [show(u, limit) for u in asks]
  assert all(py_plain[u] == t for u, t in c_plain.items() if u in py_plain)


@given(graphs(max_ops=8))
def test_a_binary_nodes_pieces_are_the_general_layouts(g):
  # node_parts answers most nodes from a table of heads (_HEADS): the same pieces as leaf_text / op_parts would give
  from uopc.term import arg_text, leaf_text, node_parts, op_parts
  for u in g.toposort():
    leaf = leaf_text(u)
    want = leaf if leaf is not None else op_parts(u.op.name.lower(), u.src, arg_text(u)) if u.op is not Ops.CALL else None
    if want is not None: assert node_parts(u) == want
