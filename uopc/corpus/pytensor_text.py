"""PyTensor graphs as a stable text form that parses back to an equal graph.

One variable a line, inputs before users (the last line is the root):

  %0 = input {"name": "x", "type": {"tensor": "float64", "shape": [null]}}
  %1 = constant {"type": {"tensor": "int8", "shape": []}, "value": 1}
  %2 = apply {"op": "pytensor.tensor.elemwise:Elemwise", "props": {"scalar_op": {"scalar": "pytensor.scalar.basic:add"}, ...}} (%0, %1) 0

An op is its class (``module:Class``, of a ``pytensor.`` module) and its ``__props__`` (what PyTensor compares ops by),
made again by ``Class(**props)``; a scalar op is the module-level instance it equals (``pytensor.scalar.basic:add``); the
trailing number is the output's index. A value is JSON (floats by ``repr``, so exact; a numpy array as its nested list).
Parsing imports those modules by name and reads attributes; it never evaluates text. An op whose props do not make it
again (``dump`` checks: the op made from its text equals it) has no text form (``Unsupported``).

A loaded graph is equal to the one dumped: its text is the same (``dump(parse(t)) == t``) and PyTensor's
``equal_computations`` holds; its input variables are new ones (an input is a variable, compared by identity).

>>> import pytensor.tensor as pt
>>> x = pt.vector("x")
>>> text = dump_variable(pt.log(pt.exp(x + x)) * 2)
>>> dump(parse(text)) == text
True
"""
from __future__ import annotations

import importlib
import json
import re
from collections.abc import Mapping
from typing import Any

import numpy as np
from pytensor.graph.basic import Constant, Variable
from pytensor.graph.op import Op
from pytensor.scalar.basic import ScalarOp, ScalarType
from pytensor.tensor.type import TensorType


class Unsupported(ValueError):
  """A graph with an op, a type or a value the text form does not cover."""


_LINE = re.compile(r"%(\d+) = (input|constant|apply) (.*)\Z", re.S)
_SCALAR_MODULES = ("pytensor.scalar.basic", "pytensor.scalar.math")
_scalar_names: dict[Any, str] = {}


def _scalar_name(op: ScalarOp) -> str:
  if not _scalar_names:
    for mod_name in _SCALAR_MODULES:
      mod = importlib.import_module(mod_name)
      for attr, obj in sorted(vars(mod).items()):
        if isinstance(obj, ScalarOp) and not attr.startswith("_"): _scalar_names.setdefault(obj, f"{mod_name}:{attr}")
  if (name := _scalar_names.get(op)) is None: raise Unsupported(f"scalar op {op} is not one of PyTensor's module-level scalar ops")
  return name


def _attr(path: str, kind: type) -> Any:
  module, _, attr = path.partition(":")
  if not module.startswith("pytensor.") or not attr.isidentifier(): raise ValueError(f"not a PyTensor name: {path!r}")
  obj = getattr(importlib.import_module(module), attr, None)
  if obj is None or not (isinstance(obj, kind) or isinstance(obj, type) and issubclass(obj, kind)):
    raise ValueError(f"{path} is not a {kind.__name__}")
  return obj


def encode(value: Any) -> Any:
  """A prop, a type or a value as JSON (see the module)."""
  if value is None or type(value) in (bool, int, str): return value
  if type(value) is float: return {"float": repr(value)}
  if isinstance(value, np.generic): return encode(value.item())
  if type(value) is tuple: return [encode(v) for v in value]
  if isinstance(value, ScalarOp): return {"scalar": _scalar_name(value)}
  if isinstance(value, Op): return encode_op(value)
  if isinstance(value, Mapping): return {"dict": [[encode(k), encode(v)] for k, v in sorted(value.items())]}
  if isinstance(value, TensorType): return {"tensor": str(value.dtype), "shape": list(value.shape)}
  if isinstance(value, ScalarType): return {"scalar_type": str(value.dtype)}
  if isinstance(value, np.ndarray): return {"array": str(value.dtype), "value": encode(_tuples(value.tolist()))}
  raise Unsupported(f"a value of type {type(value).__name__} has no text form")


def _tuples(v: Any) -> Any: return tuple(_tuples(x) for x in v) if isinstance(v, list) else v


def decode(value: Any) -> Any:
  """What ``encode`` wrote as ``value``."""
  if value is None or type(value) in (bool, int, str): return value
  if type(value) is list: return tuple(decode(v) for v in value)
  if type(value) is not dict: raise ValueError(f"not a value: {json.dumps(value)[:60]}")
  if set(value) == {"float"}: return float(value["float"])
  if set(value) == {"scalar"}: return _attr(value["scalar"], ScalarOp)
  if set(value) == {"op", "props"}: return decode_op(value)
  if set(value) == {"dict"}: return {decode(k): decode(v) for k, v in value["dict"]}
  if set(value) == {"tensor", "shape"}: return TensorType(str(value["tensor"]), shape=tuple(value["shape"]))
  if set(value) == {"scalar_type"}: return ScalarType(str(value["scalar_type"]))
  if set(value) == {"array", "value"}: return np.array(_lists(decode(value["value"])), dtype=str(value["array"]))
  raise ValueError(f"not a value: {json.dumps(value)[:60]}")


def _lists(v: Any) -> Any: return [_lists(x) for x in v] if isinstance(v, tuple) else v


def encode_op(op: Op) -> dict[str, Any]:
  cls = type(op)
  props = getattr(op, "__props__", None)
  if props is None or not cls.__module__.startswith("pytensor."): raise Unsupported(f"op {op} has no props to make it again")
  out = {"op": f"{cls.__module__}:{cls.__name__}", "props": {p: encode(getattr(op, p)) for p in props}}
  try: again = decode_op(out)
  except Exception as e: raise Unsupported(f"op {op} is not made again from its props ({type(e).__name__}: {e})") from None
  if again != op: raise Unsupported(f"op {op} made again from its props is not equal to it")
  return out


def decode_op(value: dict[str, Any]) -> Op:
  cls = _attr(str(value["op"]), Op)
  props = value["props"]
  if not isinstance(props, dict): raise ValueError("an op's props are an object")
  return cls(**{str(k): decode(v) for k, v in props.items()})


def dump_variable(root: Variable) -> str:
  """The text form of the graph of PyTensor variable ``root``."""
  index: dict[Variable, int] = {}
  lines: list[str] = []
  todo: list[tuple[Variable, bool]] = [(root, False)]
  while todo:
    v, ready = todo.pop()
    if v in index: continue
    if v.owner is not None and not ready:
      todo.append((v, True))
      todo.extend((i, False) for i in reversed(v.owner.inputs) if i not in index)
      continue
    if v.owner is None and isinstance(v, Constant):
      line = "constant " + json.dumps({"type": encode(v.type), "value": encode(_tuples(np.asarray(v.data).tolist()))})
    elif v.owner is None:
      line = "input " + json.dumps({"name": v.name, "type": encode(v.type)})
    else:
      node = v.owner
      line = f"apply {json.dumps(encode_op(node.op))} ({', '.join(f'%{index[i]}' for i in node.inputs)}) {node.outputs.index(v)}"
    index[v] = len(index)
    lines.append(f"%{index[v]} = {line}")
  return "\n".join(lines)


def dump(node: Any) -> str:
  """The text form of a ``PyTensorNode``'s graph (its PyTensor variable's)."""
  from uopc.relational.adapters.pytensor.nodes import to_pytensor
  return dump_variable(to_pytensor(node))


def parse_variable(text: str) -> Variable:
  """The PyTensor variable ``dump_variable`` wrote as ``text``; ValueError (``graph line N: why``) for text that is not one."""
  import pytensor.tensor as pt
  vs: list[Variable] = []
  decoder = json.JSONDecoder()
  for n, line in enumerate(text.split("\n"), 1):
    if (m := _LINE.match(line)) is None or int(m.group(1)) != len(vs):
      raise ValueError(f"graph line {n}: not '%{len(vs)} = input|constant|apply ...': {line[:60]!r}")
    kind, rest = m.group(2), m.group(3)
    try:
      if kind == "apply":
        raw, end = decoder.raw_decode(rest)
        tail = re.fullmatch(r"\s*\(([^)]*)\)\s+(\d+)", rest[end:])
        if tail is None: raise ValueError("expected '(%a, %b) INDEX' after the op")
        args = [s.strip() for s in tail.group(1).split(",") if s.strip()]
        if not all(re.fullmatch(r"%\d+", a) and int(a[1:]) < len(vs) for a in args): raise ValueError("a source is not an earlier variable")
        vs.append(decode_op(raw).make_node(*[vs[int(a[1:])] for a in args]).outputs[int(tail.group(2))])
      else:
        obj = json.loads(rest)
        t = decode(obj["type"])
        if kind == "input": vs.append(t(name=obj["name"]))
        else: vs.append(pt.constant(np.array(_lists(decode(obj["value"])), dtype=t.dtype)) if isinstance(t, TensorType)
                        else Constant(t, decode(obj["value"])))
    except (ValueError, TypeError, KeyError, IndexError, AttributeError) as e: raise ValueError(f"graph line {n}: {e}") from None
  if not vs: raise ValueError("an empty graph")
  return vs[-1]


def parse(text: str) -> Any:
  """The ``PyTensorNode`` of the graph ``text`` stands for (``parse_variable``)."""
  from uopc.relational.adapters.pytensor.nodes import from_pytensor
  return from_pytensor(parse_variable(text))


EXPRESSION_OPS = ("Elemwise", "DimShuffle")


def is_expression(root: Variable) -> bool:
  """Whether ``root`` is an expression the explorer takes: elementwise ops (and broadcasts) over inputs and constants."""
  seen, todo, alu = set(), [root], False
  while todo:
    v = todo.pop()
    if v.owner is None: continue
    if type(v.owner.op).__name__ not in EXPRESSION_OPS: return False
    alu = alu or type(v.owner.op).__name__ == "Elemwise"
    for i in v.owner.inputs:
      if id(i) not in seen:
        seen.add(id(i))
        todo.append(i)
  return alu
