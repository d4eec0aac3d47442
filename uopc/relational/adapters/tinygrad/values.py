"""Values of tinygrad nodes, in tinygrad's own semantics: what ``diagnose_order`` compares two tinygrad results by.

A node is evaluated by tinygrad's ``exec_alu`` (its Python ALU, as its Python backend runs it) over the
node's sources, with each variable (``UOp.variable``) bound to a value within its bounds: weak ints do
not wrap (uopc's i32 does), a division by zero raises. Results are compared bit for bit, as uopc's are.

>>> from tinygrad.uop.ops import UOp
>>> a = UOp.variable("a", 0, 10)
>>> value_of(a * 2 + 1, {"a": 20})
(True, 41)
>>> compare_values(a + a, a * 2, a)
('syntactic', 'the same values on 8 random bindings of a')
>>> from tinygrad.dtype import Invalid
>>> value_of((a < 5).where(a, UOp.const(Invalid)), {"a": 7})
(True, Invalid)
"""
from __future__ import annotations

import random
from functools import partial
from typing import Any

from tinygrad.dtype import Invalid, InvalidType, dtypes
from tinygrad.uop.ops import GroupOp, Ops, UOp, exec_alu

from uopc.dtype import value_key
from uopc.probe_values import edge_or

_NAMED = {op for op in Ops if op.name in ("BUFFER", "PARAM", "DEFINE_VAR")}


def variables(*us: UOp) -> list[UOp]:
  """The variables (``UOp.variable``: a node with a named arg and bounds) of these graphs, by name."""
  seen: dict[str, UOp] = {}
  for u in us:
    for n in u.toposort():
      if n.op in _NAMED and isinstance(getattr(n.arg, "name", None), str): seen.setdefault(n.arg.name, n)
  return [seen[k] for k in sorted(seen)]


def _undefined(op: Any, args: list) -> bool:
  """Is an ALU's value ``Invalid``: an undefined condition or source, or a ``where`` picking an undefined branch?
  (``exec_alu`` itself would truncate ``Invalid`` to a value of the dtype: ``True`` for a bool.)"""
  if isinstance(args[0], InvalidType): return True
  if op is Ops.WHERE: return isinstance(args[1 if args[0] else 2], InvalidType)
  return any(isinstance(v, InvalidType) for v in args)


def value_of(u: UOp, binding: dict[str, Any] | None = None) -> tuple[bool, Any]:
  """``(True, value)`` of ``u`` with its variables bound by name, or ``(False, why not)`` (an op tinygrad's Python ALU
  has no function for, a division by zero, an unbound variable)."""
  vals: dict[UOp, Any] = {}
  try:
    for n in u.toposort():
      if n.op is Ops.CONST: vals[n] = n.arg
      elif n.op in _NAMED and isinstance(name := getattr(n.arg, "name", None), str): vals[n] = (binding or {})[name]
      elif n.op in GroupOp.ALU:
        args = [vals[s] for s in n.src]
        vals[n] = Invalid if _undefined(n.op, args) else exec_alu(n.op, n.dtype, args)
      elif n.op is Ops.CAST: vals[n] = exec_alu(Ops.ADD, n.dtype, [vals[n.src[0]], 0])   # tinygrad's truncation to the dtype
      elif n.src or n.op is not Ops.STACK: return False, f"cannot evaluate {n.op}"
    return True, vals[u]
  except Exception as e: return False, f"{type(e).__name__}: {e}"


def random_bindings(vs: list[UOp], n: int = 8, seed: int = 0) -> list[dict[str, Any]]:
  """``n`` random bindings of these variables within their bounds (a bound itself about a third of the time: ``edge_or``)."""
  rng = random.Random(seed)
  out = []
  for _ in range(n):
    b = {}
    for v in vs:
      lo, hi = int(v.vmin), int(v.vmax)
      x = edge_or(rng, (lo, hi), partial(rng.randint, lo, hi))
      b[v.arg.name] = bool(x) if v.dtype is dtypes.bool else float(x) if dtypes.is_float(v.dtype) else x   # a value of its dtype
    out.append(b)
  return out


def _key(v: Any) -> Any:
  """``value_key`` of a value, tinygrad's ``ConstFloat`` as the float it is (so ``-0.0`` and ``0.0`` differ)."""
  return value_key(float(v) if isinstance(v, float) else v)


def compare_values(a: UOp, b: UOp, prog: UOp, n: int = 8, seed: int = 0) -> tuple[str, str]:
  """``(kind, detail)``: ``semantic`` if ``a`` and ``b`` differ on some binding of ``prog``'s variables, ``syntactic`` if
  equal on every one tried, ``unknown`` if none could be evaluated (``uopc.relational.analyses.verdicts``' terms). Where
  one is ``Invalid`` (tinygrad's undefined value, which any value refines) the two are not told apart.

  >>> from tinygrad.dtype import Invalid
  >>> x = UOp.variable("x", 0, 10)
  >>> compare_values((x < 5).where(x, UOp.const(Invalid)), x, x)[0]
  'syntactic'
  >>> from tinygrad.dtype import ConstFloat
  >>> compare_values(UOp.const(ConstFloat(-0.0)), UOp.const(ConstFloat(0.0)), x)[0]
  'semantic'
  """
  vs = variables(prog, a, b)
  names = ", ".join(v.arg.name for v in vs)
  bindings = random_bindings(vs, n, seed) if vs else [{}]
  agreed, undefined, why = 0, 0, ""
  for binding in bindings:
    (oka, va), (okb, vb) = value_of(a, binding), value_of(b, binding)
    if not (oka and okb):
      why = va if not oka else vb
      continue
    if isinstance(va, InvalidType) or isinstance(vb, InvalidType):   # tinygrad's undefined value: any value refines it
      undefined += 1
      continue
    if _key(va) != _key(vb):
      at = f" at {', '.join(f'{k}={v!r}' for k, v in binding.items())}" if binding else ""
      return "semantic", f"the values differ{at}: {va!r} and {vb!r}"
    agreed += 1
  if undefined:
    on = f" on {n} random binding{'s' * (n != 1)} of {names}" if vs else ""
    return "syntactic", f"the same values wherever both are defined{on} (Invalid, tinygrad's undefined value, on {undefined})"
  if not vs: return ("syntactic", f"the same value: {va!r}") if agreed else ("unknown", f"could not evaluate: {why}")
  if agreed: return "syntactic", f"the same values on {agreed} random binding{'s' * (agreed != 1)} of {names}"
  return "unknown", f"could not evaluate on {n} random bindings of {names}: {why}"
