"""Template rules: a rule whose function only combines its arguments with operators, applied without calling it per match.

``lambda x: x + x`` or ``lambda a, b, c: a + (b + c)`` can only build a graph out of its
arguments and constants: its code loads its arguments and constants, applies ``+ - * //
% -x`` and returns, and names nothing (no attribute, global, call or comparison). What
it builds then depends only on its arguments' dtypes and shapes (an int operand becomes
a constant of the other's dtype), which all graphs of an e-class share. So it is called
once per dtype and shape of its arguments, on placeholders, and what it returned is a
template: a match adds the template's nodes over the bound classes' ids straight into
the e-graph, which is exactly what adding the function's result on the bound graphs
would add. Any other function is called per match (``uopc.egraph.saturate``).

>>> from uopc.uop import UOp
>>> from uopc.egraph.egraph import EGraph
>>> t = Template.of(lambda x: x + x)
>>> eg = EGraph()
>>> c = eg.add(UOp.param(0))
>>> eg.find(t.add(eg, {"x": c}, c)) == eg.find(eg.add(UOp.param(0) + UOp.param(0)))
True
>>> Template.of(lambda x: x.const_like(0)) is None     # names an attribute: called per match
True
"""
from __future__ import annotations

import dis
import types
from typing import Any, Callable

from uopc.egraph.egraph import EGraph
from uopc.ops import Ops
from uopc.uop import UOp

_OPS = {"RESUME", "NOP", "LOAD_FAST", "LOAD_CONST", "BINARY_OP", "UNARY_NEGATIVE", "RETURN_VALUE", "RETURN_CONST", "COPY", "SWAP"}
_BINARY = {"+", "*", "-", "//", "%"}
NO_RESULT = -(1 << 62)   # Template.add: the function returned None
_SLOT = 1 << 40   # placeholders are PARAMs of slots from here: a rule's function cannot reach a program's PARAM


class Template:
  """A rule function's result as steps over its arguments, per dtype and shape of the arguments (made on first use)."""

  def __init__(self, fn: Callable[..., Any], params: tuple[str, ...]) -> None:
    self.fn, self.params = fn, params
    self.steps: dict[tuple, tuple[list, int] | None] = {}   # (dtype, shape) of each argument -> (steps, result), None: no graph

  @staticmethod
  def of(fn: Callable[..., Any], comparisons: bool = False) -> Template | None:
    """The template of ``fn``, or None if its result may depend on more than its arguments' types. ``comparisons``:
    ``<`` and ``>`` too (a node's ``<`` makes a node; a rule declared as data says so, ``uopc.rule_data``)."""
    if type(fn) is not types.FunctionType or fn.__closure__ or fn.__defaults__ or fn.__kwdefaults__: return None
    code = fn.__code__
    if code.co_names or code.co_flags & (0x04 | 0x08 | 0x20 | 0x80 | 0x100 | 0x200) or code.co_kwonlyargcount: return None
    for ins in dis.get_instructions(fn):
      if comparisons and ins.opname == "COMPARE_OP" and ins.argrepr in ("<", ">"): continue
      if ins.opname not in _OPS or (ins.opname == "BINARY_OP" and ins.argrepr not in _BINARY): return None
      if ins.opname == "LOAD_CONST" and type(ins.argval) not in (int, float, type(None)): return None
    return Template(fn, code.co_varnames[:code.co_argcount])

  def _steps(self, key: tuple) -> tuple[list, int] | None:
    holders = [UOp.param(_SLOT + j, dt, shape) for j, (dt, shape) in enumerate(key)]
    try: r = self.fn(**dict(zip(self.params, holders)))
    except Exception: return None
    if r is None: return [], NO_RESULT
    if type(r) is not UOp: return None
    index = {h: -1 - j for j, h in enumerate(holders)}   # a placeholder: minus one minus its argument's position
    steps: list = []
    for u in r.toposort():
      if u in index: continue
      index[u] = len(steps)
      steps.append((u.op, u.dtype, u if u.op is Ops.CONST else u.arg, tuple([index[s] for s in u.src]), u.shape, (u.dtype, u.shape)))
    return steps, index[r]   # the result: a step, or an argument

  def add(self, eg: EGraph, classes: dict[str, int], into: int) -> int | None:
    """Add the function's result on the graphs of ``classes`` (name -> class id) to ``eg``, to be merged with class ``into``.

    Its class; ``NO_RESULT`` if the function returns None; None if it returns no graph of ``into``'s dtype and shape
    (or raises).
    """
    return self.add_ids(eg, [classes[p] for p in self.params], into)

  def add_ids(self, eg: EGraph, ids: list[int] | tuple[int, ...], into: int) -> int | None:
    """``add`` with the classes of ``params`` in their order."""
    cls_of, find = eg.classes, eg.find
    key = tuple([_type(cls_of[c] if c in cls_of else cls_of[find(c)]) for c in ids])
    if (made := self.steps.get(key)) is None:
      if key in self.steps: return None
      made = self.steps[key] = self._steps(key)
      if made is None: return None
    steps, result = made
    if result == NO_RESULT: return NO_RESULT
    want = _type(cls_of[into] if into in cls_of else cls_of[find(into)])
    if (steps[result][5] if steps else key[-1 - result]) != want: return None
    out: list[int] = []
    add = eg.add_enode
    for op, dtype, arg, src, shape, _ in steps:
      out.append(add((op, dtype, arg, tuple([out[s] if s >= 0 else ids[-1 - s] for s in src])), dtype, shape))
    return out[result] if result >= 0 else find(ids[-1 - result])


def _type(cls: Any) -> tuple:
  return (cls.dtype, cls.shape)
