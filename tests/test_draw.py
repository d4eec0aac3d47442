"""``uopc.draw``: a graph as SVG, each node once, for notebooks."""
import re

from hypothesis import given

from tests.strategies import graphs
from uopc.draw import MAX_NODES, dag_svg, head_text, layers
from uopc.uop import UOp


@given(graphs())
def test_one_box_per_node_and_one_line_per_source(g):
  svg = dag_svg(g)
  nodes = g.toposort()
  if len(nodes) > MAX_NODES: return
  assert svg.count("<rect") == len(nodes)
  assert svg.count("<line") == sum(len(u.src) for u in nodes)


@given(graphs())
def test_every_source_sits_below_its_users(g):
  layer = {u: r for r, row in enumerate(layers(g)) for u in row}
  assert layer[g] == 0 and all(layer[s] > layer[u] for u in layer for s in u.src)


def test_the_highlighted_node_is_marked_and_labels_are_escaped():
  p0 = UOp.param(0)
  g = (p0 + 1) * 2
  svg = dag_svg(g, highlight=p0 + 1)
  assert svg.count('fill="#ffd8b5"') == 1 and g._repr_svg_() == dag_svg(g)
  assert head_text(p0) == "p0" and head_text(g) == "mul"
  assert "<" not in re.sub(r"<[^>]*>", "", svg)   # no markup inside the text


def test_a_huge_graph_is_not_drawn_and_does_not_recurse():
  u = UOp.param(0)
  for i in range(20_000): u = u + i
  svg = dag_svg(u)
  assert "not drawn" in svg and svg.count("<rect") == 0


def _rows(svg):
  """The drawn labels, row by row (top first), each row left to right."""
  boxes = re.findall(r'<rect x="(\d+)" y="(\d+)"[^>]*/><text[^>]*>([^<]*)</text>', svg)
  rows = {}
  for x, y, label in boxes: rows.setdefault(int(y), []).append((int(x), label))
  return [[label for _, label in sorted(row)] for _, row in sorted(rows.items())]


def test_operands_are_drawn_left_to_right_in_their_order():
  p0, p1 = UOp.param(0), UOp.param(1)
  assert _rows(dag_svg(p0 + p1)) == [["add"], ["p0", "p1"]]
  assert _rows(dag_svg(UOp.const(7) // p0)) == [["floordiv"], ["7", "p0"]]
  assert _rows(dag_svg((p0 + p1) * (p1 // 2))) == [["mul"], ["add", "floordiv"], ["p0", "p1", "2"]]
  assert _rows((p1 < p0).where(p0, 3)._repr_svg_()) == [["where"], ["cmplt", "3"], ["p1", "p0"]]


@given(graphs())
def test_a_nodes_sources_on_one_row_are_in_their_order_in_a_tree(g):
  if len(g.toposort()) > MAX_NODES: return
  rows = layers(g)
  place = {u: (r, row.index(u)) for r, row in enumerate(rows) for u in row}
  users = {}
  for u in place:
    for s in u.src: users.setdefault(s, set()).add(u)
  for u in place:   # where each source has this one user, on one row, the sources keep their order
    if all(len(users[s]) == 1 for s in u.src) and len({place[s][0] for s in u.src}) == 1 and len(set(u.src)) == len(u.src):
      assert [place[s][1] for s in u.src] == sorted(place[s][1] for s in u.src)


def test_dot_text_never_needs_the_graphviz_binary_and_rendering_without_it_says_so_in_one_line(monkeypatch):
  from uopc import symbolic
  from uopc.draw import NO_DOT, digraph
  from uopc.cli.reports.exploration import to_dot
  from uopc.relational import canonical, explore
  monkeypatch.setenv("PATH", "")   # no dot program to find
  prog = (UOp.param(0) + 0) * 1
  d = to_dot(explore(prog, symbolic).run(), canonical(prog, symbolic)[0], "symbolic")
  assert d.source.startswith("// uopc explore, rules symbolic: complete\ndigraph states {") and '\t0 -> ' in d.source
  assert d._repr_mimebundle_() == {"text/plain": NO_DOT} and "\n" not in NO_DOT and "dot" in NO_DOT
  assert d._repr_mimebundle_(include=[]) == {}
  g = digraph("g")
  g.edge("a", "b")
  assert g.source == "digraph g {\n\ta -> b\n}\n" and g._repr_mimebundle_() == {"text/plain": NO_DOT}
  assert type(g).__name__ == "Digraph" and type(g.copy()) is type(g)
