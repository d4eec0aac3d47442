"""The one-line term form of a graph, as traces and reports print it.

``add(mul(p0, 3), 11)``: ops in lower case, ``pN`` for the PARAM of slot N, literals
for constants, ``name[body](args)`` for a CALL (its name made ``printable``), and the arg of a movement op, REDUCE
or CAST as a last argument.

>>> from uopc.uop import UOp
>>> show((UOp.param(0) + 2) * 3)
'mul(add(p0, 2), 3)'

A term expands sharing, so a DAG's term can be exponentially long: ``limit`` stops
after that many characters with an ellipsis.
"""
from __future__ import annotations

from typing import Any, Callable

from uopc.dtype import DType
from uopc.ops import MOVEMENT, Ops
from uopc.uop import UOp

ELLIPSIS = "…"


def printable(name: str) -> str:
  r"""A name as it may reach a terminal: unprintable characters (controls, escapes) and
  the backslash written as in a Python literal, so a name cannot move the cursor,
  recolour or retitle the terminal.

  >>> print(printable("sq"), printable("a\x1b[2J\\b"))
  sq a\x1b[2J\\b
  """
  if name.isprintable() and "\\" not in name: return name
  return "".join(c if c.isprintable() and c != "\\" else repr(c)[1:-1] for c in name)


def leaf_text(u: UOp) -> str | None:
  """The text of a node that prints without parentheses, else None."""
  if u.op is Ops.CONST: return repr(u.arg)
  if u.op is Ops.PARAM: return f"p{u.arg.slot}"
  return None


def arg_text(u: UOp) -> str | None:
  """The trailing argument a node prints after its sources, if any."""
  return head_arg_text(u.op, u.dtype, u.arg)


def head_arg_text(op: Ops, dtype: Any, arg: Any, field: Callable[[Any], str] = repr) -> str | None:
  """The trailing argument of a node (or a pattern of one) with this op, dtype and arg, if it prints one.

  A movement op's arg, a REDUCE's op and axis count, a CAST's dtype: the one text terms
  and patterns share. ``field`` prints a field that is no value (a pattern's variable).

  >>> from uopc.dtype import dtypes
  >>> head_arg_text(Ops.REDUCE, None, (Ops.ADD, 1)), head_arg_text(Ops.CAST, dtypes.f32, None), head_arg_text(Ops.ADD, None, None)
  ('add, 1', 'f32', None)
  """
  if op in MOVEMENT: return field(arg)
  if op is Ops.REDUCE: return f"{arg[0].name.lower()}, {arg[1]}" if isinstance(arg, tuple) else field(arg)
  if op is Ops.CAST: return dtype.name if isinstance(dtype, DType) else field(dtype)
  return None


def show(root: UOp, limit: int | None = None) -> str:
  """``root`` in the one-line term form, cut at ``limit`` characters."""
  out: list[str] = []
  size = 0
  stack: list[UOp | str] = [root]
  while stack:
    item = stack.pop()
    if isinstance(item, str): text = item
    elif (leaf := leaf_text(item)) is not None: text = leaf
    else:
      u, text = item, item.op.name.lower()
      parts: list[UOp | str] = []
      if u.op is Ops.CALL:
        text = printable(u.arg) if u.arg else "call"
        parts += ["[", u.src[0], "]"]
        args = u.src[1:]
      else: args = u.src
      parts.append("(")
      for i, s in enumerate(args):
        if i: parts.append(", ")
        parts.append(s)
      if (a := arg_text(u)) is not None: parts.append(f", {a}" if args else a)
      parts.append(")")
      stack.extend(reversed(parts))
    out.append(text)
    size += len(text)
    if limit is not None and size > limit:
      return "".join(out)[:limit] + ELLIPSIS
  return "".join(out)
