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
