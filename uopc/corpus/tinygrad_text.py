"""tinygrad ``UOp`` graphs as a stable text form that parses back to the same node (tinygrad hash-conses them).

One node a line, sources before users, numbered in that order (the last line is the root):

  %0 = STACK void ()
  %1 = BUFFER weakint (%0) {"ParamArg": {"slot": -1, "dtype": {"dtype": "weakint"}, "vmin_vmax": [0, 2], ...}}
  %2 = CONST weakint () 81
  %3 = MUL weakint (%1, %2)

``OP`` is the ``Ops`` member's name, ``DTYPE`` the dtype's name in ``tinygrad.dtype.dtypes``, then the sources, then
the arg (if not None) in JSON and the tag (if any) as `` tag=JSON``. JSON arrays are tuples (an arg is hashable: never a
list); a JSON object is a tagged value: ``{"float": "-0.0"}`` (its repr: exact, also for inf and nan), ``{"ConstFloat":
"0.5"}``, ``{"dtype": "int"}``, ``{"enum": "AxisType.LOOP"}``, ``{"ParamArg": {...}}``, ``{"Invalid": null}``. The text is
parsed (``json`` for args, a regular expression for the rest), never evaluated; an arg of any other type has no text
form (``Unsupported``).

>>> from tinygrad.uop.ops import UOp
>>> v = UOp.variable("v", 0, 2)
>>> g = ((v * 81 + 10) + 233) % 243
>>> parse(dump(g)) is g
True
"""
from __future__ import annotations

import dataclasses
import enum
import json
import re
from typing import Any

from tinygrad.dtype import INVERSE_DTYPES_DICT, AddrSpace, ConstFloat, DType, Invalid, InvalidType, dtypes
from tinygrad.uop.ops import AxisType, GroupOp, Ops, ParamArg, UOp


class Unsupported(ValueError):
  """A graph with an arg or dtype the text form does not cover."""


_ENUMS: dict[str, type[enum.Enum]] = {"Ops": Ops, "AxisType": AxisType, "AddrSpace": AddrSpace}
_LINE = re.compile(r"%(\d+) = ([A-Z_0-9]+) ([A-Za-z_0-9]+) \(([^)]*)\)(?: (.*))?\Z", re.S)
_DTYPE_NAMES = {name for name in INVERSE_DTYPES_DICT.values()}


def _dtype_name(dt: Any) -> str:
  if type(dt) is not DType or (name := INVERSE_DTYPES_DICT.get(dt.name)) is None or getattr(dtypes, name, None) is not dt:
    raise Unsupported(f"dtype {dt!r} has no text form")
  return name


def _dtype(name: str) -> DType:
  if name not in _DTYPE_NAMES or not isinstance(dt := getattr(dtypes, name, None), DType): raise ValueError(f"unknown dtype {name!r}")
  return dt


def encode(arg: Any) -> Any:
  """``arg`` as a JSON value (see the module); ``Unsupported`` for a type it does not cover."""
  t = type(arg)
  if arg is None or t in (bool, int, str): return arg
  if t is float: return {"float": repr(arg)}
  if t is ConstFloat: return {"ConstFloat": float.__repr__(arg)}
  if t is tuple: return [encode(a) for a in arg]
  if t is DType: return {"dtype": _dtype_name(arg)}
  if isinstance(arg, enum.Enum) and _ENUMS.get(t.__name__) is t: return {"enum": f"{t.__name__}.{arg.name}"}
  if t is ParamArg: return {"ParamArg": {f.name: encode(getattr(arg, f.name)) for f in dataclasses.fields(ParamArg)}}
  if t is InvalidType: return {"Invalid": None}
  raise Unsupported(f"an arg of type {t.__name__} has no text form")


def _float(text: Any) -> float:
  if not isinstance(text, str): raise ValueError(f"a float is written as its repr in a string, not {text!r}")
  if text not in ("inf", "-inf", "nan") and not re.fullmatch(r"-?\d+(\.\d*)?(e[-+]?\d+)?", text): raise ValueError(f"not a float: {text!r}")
  return float(text)


def decode(value: Any) -> Any:
  """The arg that ``encode`` wrote as ``value``."""
  if value is None or type(value) in (bool, int, str): return value
  if type(value) is list: return tuple(decode(v) for v in value)
  if type(value) is not dict or len(value) != 1: raise ValueError(f"not an arg: {json.dumps(value)[:60]}")
  (kind, v), = value.items()
  if kind == "float": return _float(v)
  if kind == "ConstFloat": return ConstFloat(_float(v))
  if kind == "dtype" and isinstance(v, str): return _dtype(v)
  if kind == "Invalid" and v is None: return Invalid
  if kind == "enum" and isinstance(v, str) and v.count(".") == 1:
    cls, member = v.split(".")
    if (e := _ENUMS.get(cls)) is not None and member in e.__members__: return e[member]
  if kind == "ParamArg" and isinstance(v, dict):
    names = {f.name for f in dataclasses.fields(ParamArg)}
    if not set(v) <= names: raise ValueError(f"ParamArg has no field {sorted(set(v) - names)[0]!r}")
    return ParamArg(**{k: decode(x) for k, x in v.items()})
  raise ValueError(f"not an arg: {json.dumps(value)[:60]}")


def dump(root: UOp) -> str:
  """The text form of the graph under ``root`` (see the module)."""
  index: dict[UOp, int] = {}
  lines = []
  for u in root.toposort():
    line = f"%{len(index)} = {u.op.name} {_dtype_name(u.dtype)} ({', '.join(f'%{index[s]}' for s in u.src)})"
    if u.arg is not None: line += " " + json.dumps(encode(u.arg), allow_nan=False)
    if u.tag is not None: line += " tag=" + json.dumps(encode(u.tag), allow_nan=False)
    index[u] = len(index)
    lines.append(line)
  return "\n".join(lines)


def parse(text: str) -> UOp:
  """The graph ``dump`` wrote as ``text``: ValueError (``line N: why``) for text that is not one."""
  nodes: list[UOp] = []
  decoder = json.JSONDecoder()
  for n, line in enumerate(text.split("\n"), 1):
    if (m := _LINE.match(line)) is None: raise ValueError(f"graph line {n}: not '%N = OP dtype (sources) arg': {line[:60]!r}")
    num, op, dt, srcs, rest = m.groups()
    if int(num) != len(nodes): raise ValueError(f"graph line {n}: node %{num} out of order (expected %{len(nodes)})")
    if op not in Ops.__members__: raise ValueError(f"graph line {n}: unknown op {op!r}")
    src = []
    for s in filter(None, (s.strip() for s in srcs.split(","))):
      if not re.fullmatch(r"%\d+", s) or int(s[1:]) >= len(nodes): raise ValueError(f"graph line {n}: source {s!r} is not an earlier node")
      src.append(nodes[int(s[1:])])
    arg, tag = None, None
    try:
      rest = rest or ""
      if rest and not rest.startswith("tag="):
        raw, end = decoder.raw_decode(rest)
        arg, rest = decode(raw), rest[end:].lstrip()
      if rest.startswith("tag="): tag, rest = decode(json.loads(rest[4:])), ""
      if rest: raise ValueError(f"trailing text {rest[:30]!r}")
      nodes.append(UOp(Ops[op], _dtype(dt), tuple(src), arg, tag))
    except (ValueError, TypeError, AssertionError, RuntimeError) as e: raise ValueError(f"graph line {n}: {e}") from None
  if not nodes: raise ValueError("an empty graph")
  return nodes[-1]


# what an expression graph is made of: ALU ops over constants and variables (a BUFFER/PARAM of the ALU address space, whose
# shape is an empty STACK), the ranges and special indices of a kernel's index expressions, casts, and a SINK of them
EXPRESSION_OPS = frozenset(GroupOp.ALU) | {op for op in Ops if op.name in ("CONST", "VCONST", "RANGE", "SPECIAL", "DEFINE_VAR", "CAST", "SINK")}


def _is_variable(u: UOp) -> bool:
  return u.op in (Ops.BUFFER, Ops.PARAM) and isinstance(u.arg, ParamArg) and u.arg.addrspace is AddrSpace.ALU


def is_expression(root: UOp) -> bool:
  """Whether ``root`` is an index/valid expression, the explorer's input: ALU ops (at least one), casts, constants,
  variables, ranges.

  >>> v = UOp.variable("v", 0, 2)
  >>> is_expression(v * 2 + 1), is_expression(v), is_expression(UOp.range(10, 0).reshape((1,)))
  (True, False, False)
  """
  seen, todo, alu = {root}, [root], False
  while todo:   # stops at the first node of another kind: a kernel's graph is large, its first store is near its root
    u = todo.pop()
    if u.op in GroupOp.ALU: alu = True
    elif not (u.op in EXPRESSION_OPS or _is_variable(u) or u.op is Ops.STACK and not u.src): return False
    for s in u.src:
      if s not in seen:
        seen.add(s)
        todo.append(s)
  return alu
