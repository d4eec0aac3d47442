"""A graph drawn as SVG, for notebooks (``UOp._repr_svg_``): each node once, on layers.

A node sits one layer below its lowest user (the root on top), so a shared node is one
box with several edges in. Labels are the node's head in the one-line term form
(``add``, ``p0``, ``3``). No Graphviz: the layout is a few lines, and iterative.

DOT output (``digraph``, the explorer's state graphs) needs the ``graphviz`` Python
package only; rendering it in a notebook runs Graphviz's ``dot``, and without it says so.

>>> from uopc.uop import UOp
>>> p0 = UOp.param(0)
>>> svg = dag_svg((p0 + 1) * (p0 + 1))
>>> svg.count("<rect"), svg.count("<line")     # mul, add, p0, 1: the shared add drawn once
(4, 4)
"""
from __future__ import annotations

import functools
from html import escape
from typing import TYPE_CHECKING, Any

from uopc.ops import Ops
from uopc.term import arg_text, leaf_text, printable, show
from uopc.lengths import LENGTHS
if TYPE_CHECKING: from uopc.uop import UOp   # annotations only: uop.py imports this module for UOp._repr_svg_

MAX_NODES = 400   # beyond this a drawing is unreadable: the term is shown instead
H, GAP, VGAP, CHAR = 20, 10, 26, 7


def head_text(u: UOp) -> str:
  """The label of one node: a leaf's text, else its op (a CALL's name), with a movement/REDUCE/CAST argument."""
  if (leaf := leaf_text(u)) is not None: return leaf
  name = (printable(u.arg) if u.arg else "call") if u.op is Ops.CALL else u.op.name.lower()
  return name if (a := arg_text(u)) is None else f"{name} {a}"


def layers(root: UOp) -> list[list[UOp]]:
  """Nodes by layer: each one below its lowest user (longest path from the root); in a layer, left to right
  as a walk from the root meets them, sources in their order (``add(p0, p1)`` draws p0 left of p1)."""
  depth: dict[UOp, int] = {root: 0}
  for u in root.toposort()[::-1]:   # users before sources
    for s in u.src: depth[s] = max(depth.get(s, 0), depth[u] + 1)
  rows: list[list[UOp]] = [[] for _ in range(max(depth.values()) + 1)]
  seen, todo = set(), [root]
  while todo:   # preorder, sources left to right
    u = todo.pop()
    if u in seen: continue
    seen.add(u)
    rows[depth[u]].append(u)
    todo.extend(reversed(u.src))
  return rows


def dag_svg(root: UOp, highlight: UOp | None = None) -> str:
  """``root`` as an SVG document; ``highlight`` (a node of it) drawn in orange."""
  rows = layers(root)
  if sum(map(len, rows)) > MAX_NODES:
    return f'<svg xmlns="http://www.w3.org/2000/svg" width="600" height="20"><text x="4" y="14">{escape(show(root, LENGTHS.message))} ' \
           f'(not drawn: more than {MAX_NODES} nodes)</text></svg>'
  pos: dict[UOp, tuple[int, int, int]] = {}
  width = 0
  for r, row in enumerate(rows):
    x = GAP
    for u in row:
      w = min(160, 8 + CHAR * len(head_text(u)))
      pos[u] = (x, GAP + r * (H + VGAP), w)
      x += w + GAP
    width = max(width, x)
  height = GAP + len(rows) * (H + VGAP)
  out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" '
         f'font-family="monospace" font-size="11">']
  for u, (x, y, w) in pos.items():
    for s in u.src:
      sx, sy, sw = pos[s]
      out.append(f'<line x1="{x + w / 2:g}" y1="{y + H}" x2="{sx + sw / 2:g}" y2="{sy}" stroke="#8c959f"/>')
  for u, (x, y, w) in pos.items():
    fill, stroke = ("#ffd8b5", "#bc4c00") if u is highlight else ("#f6f8fa", "#57606a")
    label = head_text(u)
    out.append(f'<g><title>{escape(show(u, LENGTHS.repr))}</title><rect x="{x}" y="{y}" width="{w}" height="{H}" rx="4" fill="{fill}" '
               f'stroke="{stroke}"/><text x="{x + 4}" y="{y + 14}">{escape(label if len(label) <= 21 else label[:20] + "…")}</text></g>')
  out.append("</svg>")
  return "".join(out)


NO_DOT = "(not drawn: Graphviz's dot program is not on PATH; install Graphviz to render it, or read its DOT text, .source)"
"""What a notebook shows for a ``digraph`` when ``dot`` is missing."""


def digraph(*args: Any, **kwargs: Any) -> Any:
  """A ``graphviz.Digraph`` (arguments as its own) whose notebook rendering falls back to ``NO_DOT`` when
  Graphviz's ``dot`` program is missing: building it and its DOT text, ``.source``, never run ``dot``."""
  return _digraph_class()(*args, **kwargs)


@functools.cache
def _digraph_class() -> type:
  import graphviz   # deferred: only DOT output needs it

  class Digraph(graphviz.Digraph):
    __module__, __qualname__ = __name__, "Digraph"

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None, **kwargs: Any) -> dict[str, Any]:
      try: return super()._repr_mimebundle_(include, exclude, **kwargs)
      except graphviz.ExecutableNotFound: return {"text/plain": NO_DOT}

  return Digraph
