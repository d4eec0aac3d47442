"""The measure a proof finds: stages (weights, or the polynomial interpretation), then a path order, lexicographically.

``decreases(lhs, rhs)``: the first stage that lowers ``rhs`` below ``lhs`` decides; a stage that does not keep it
(weights: a larger weight; the interpretation: a polynomial not shown to be at most ``lhs``'s) says no; if every stage
keeps it, the path order decides. The stages keep every rule's value or lower it, the path order orients the rules no
stage lowers: so every rewrite step of the rule set, anywhere in a term, lowers the measure, and since each
component is well-founded (weights and interpretations are natural numbers, an LPO is well-founded) no rewrite
sequence is infinite (docs/termination.md says why, for each component).
A step of the graph engine rewrites a node at every use, that is, some tree steps at once: it lowers it too.

>>> from uopc.uop import UOp
>>> from uopc.termination.weights import Stage
>>> m = Measure((Stage({"ADD": 1, "MUL": 0, "CONST": 0, "PARAM": 0}, ("add-self",)),), None)
>>> x = UOp.param(0)
>>> m.decreases(x + x, x * 2), m.decreases(x * 2, x + x)
(True, False)
"""
from __future__ import annotations

from typing import NamedTuple

from uopc.uop import UOp

from uopc.termination.interpretation import Interpretation, compare
from uopc.termination.logic import Concrete
from uopc.termination.path_order import greater
from uopc.termination.weights import Stage, weigh


class PathOrder(NamedTuple):
  """A precedence over ops (``rank``: higher is greater) with each op's status, and the rules it orients."""
  order: Concrete
  orients: tuple[str, ...]

  def text(self) -> str:
    ranked = sorted(self.order.rank.items(), key=lambda kv: (-kv[1], kv[0]))
    groups: list[list[str]] = []
    for i, (f, r) in enumerate(ranked):
      if i and ranked[i - 1][1] == r: groups[-1].append(f)
      else: groups.append([f])
    prec = " > ".join(g[0] if len(g) == 1 else "{" + ", ".join(g) + "}" for g in groups)   # {..}: not ordered among themselves
    rtl = ", ".join(sorted(self.order.rtl)) or "none"
    return f"path order (LPO): {prec}; sources compared from the last for: {rtl}"


class Measure(NamedTuple):
  """Stages (weights or the interpretation), then a path order (None: the stages orient every rule)."""
  stages: tuple[Stage | Interpretation, ...]
  path: PathOrder | None

  def decreases(self, lhs: UOp, rhs: UOp) -> bool:
    """Is ``rhs`` below ``lhs`` in the measure (both concrete terms: every PARAM a symbol)?"""
    for stage in self.stages:
      if isinstance(stage, Interpretation): order = compare(lhs, rhs)
      else:
        a, b = weigh(lhs, stage.weights, stage.coefficients), weigh(rhs, stage.weights, stage.coefficients)
        order = (a > b) - (a < b)
      if order: return order > 0
    return self.path is not None and bool(greater(lhs, rhs, self.path.order))

  def lines(self) -> list[str]:
    """The measure, readable: one component a line, with the rules it removes."""
    out = []
    for i, stage in enumerate(self.stages, 1):
      if isinstance(stage, Interpretation):
        head, *definition = stage.lines()
        out += [f"{i}. {head}", *(f"     {line}" for line in definition), f"   lowers {len(stage.removes)} rule(s): {', '.join(stage.removes)}"]
        continue
      w = " ".join(f"{f}={n}" for f, n in sorted(stage.weights.items(), key=lambda kv: (-kv[1], kv[0])) if n) + " (every other op 0)"
      factors = "; sources counted " + ", ".join(f"{f}({', '.join(map(str, k))})" for f, k in sorted(stage.coefficients.items())) \
        + " times (every other once)" if stage.coefficients else ""
      out.append(f"{i}. weights {w}{factors}")
      out.append(f"   lowers {len(stage.removes)} rule(s): {', '.join(stage.removes)}")
    if self.path is not None:
      out.append(f"{len(self.stages) + 1}. {self.path.text()}")
      out.append(f"   orients {len(self.path.orients)} rule(s): {', '.join(self.path.orients)}")
    return out or ["none found"]
