"""Values of tinygrad nodes, in tinygrad's own semantics: what ``diagnose_order`` and ``critical_pairs`` compare two
tinygrad results by.

A node is evaluated by tinygrad's ``exec_alu`` (its Python ALU, as its Python backend runs it) over the node's
sources, with each variable (``UOp.variable``; a ``RANGE`` as ``range<axis>``) bound to a value within its bounds:
weak ints do not wrap (uopc's i32 does); a ``CAST`` converts as tinygrad's constant folding does (``DType.const``:
``int(x)``, wrapped to a fixed width, ``float(x)`` rounded, ``bool(x)``). Results are compared bit for bit, as uopc's are.

``compare_values`` gives the four verdicts of ``uopc.relational.analyses.verdicts``: ``syntactic`` only when z3 proves
the two equal for every binding within the variables' bounds (``smt.decide``, an exact encoding of this evaluation),
or both are closed and evaluate to the same value; ``semantic`` with a binding at which this evaluation gives two
different values (z3's model, or one a witness search found); otherwise ``no-difference-found`` (the search found
none) or ``unknown``, each with the reason. Where one side is ``Invalid`` (tinygrad's undefined value, which any value
refines) the two are not told apart.

>>> from tinygrad.uop.ops import UOp
>>> a = UOp.variable("a", 0, 10)
>>> value_of(a * 2 + 1, {"a": 20})
(True, 41)
>>> compare_values(a + a, a * 2, a)
('syntactic', 'equal for all inputs within the bounds of a (proved)')
>>> compare_values((a * 2) // 2, a + 1, a)
('semantic', 'different values at a=0: 0 vs 1')
>>> from tinygrad.dtype import Invalid
>>> value_of((a < 5).where(a, UOp.const(Invalid)), {"a": 7})
(True, Invalid)
"""
from __future__ import annotations

import itertools
import math
import random
from typing import Any, Callable

from tinygrad.dtype import DType, Invalid, InvalidType, dtypes, truncate
from tinygrad.uop.ops import GroupOp, Ops, UOp, exec_alu

from uopc.dtype import value_key
from uopc.relational.adapters.tinygrad.smt import variable_name
from uopc.smt.solver import available

SEARCH = 64                  # random bindings the witness search tries (besides the edge values)
EDGE_INTS = (0, 1, -1, 40, -40, 800, -800)
EDGE_FLOATS = (0.0, -0.0, 1.0, -1.0, 40.0, -40.0, 800.0, -800.0, math.inf, -math.inf, math.nan)


def variables(*us: UOp) -> list[UOp]:
  """The variables (``UOp.variable``: a node with a named arg and bounds; a ``RANGE``) of these graphs, by name."""
  seen: dict[str, UOp] = {}
  for u in us:
    for n in u.toposort():
      if (name := variable_name(n)) is not None: seen.setdefault(name, n)
  return [seen[k] for k in sorted(seen)]


def _undefined(op: Any, args: list) -> bool:
  """Is an ALU's value ``Invalid``: an undefined condition or source, or a ``where`` picking an undefined branch?
  (``exec_alu`` itself would truncate ``Invalid`` to a value of the dtype: ``True`` for a bool.)"""
  if isinstance(args[0], InvalidType): return True
  if op is Ops.WHERE: return isinstance(args[1 if args[0] else 2], InvalidType)
  return any(isinstance(v, InvalidType) for v in args)


def cast_value(v: Any, dt: DType) -> Any:
  """``v`` converted to ``dt`` as tinygrad's constant folding converts a ``CAST`` of a constant (``DType.const``), with a
  fixed-width int wrapped (``ctypes``, as ``exec_alu`` truncates): ``int(nan)`` raises, as it does there."""
  if isinstance(v, InvalidType): return Invalid
  if dt == dtypes.bool: return bool(v)
  if dtypes.is_int(dt): return truncate.get(dt, int)(int(v))
  if dtypes.is_float(dt): return truncate.get(dt, float)(float(v))
  raise TypeError(f"no conversion to {dt}")


def value_of(u: UOp, binding: dict[str, Any] | None = None) -> tuple[bool, Any]:
  """``(True, value)`` of ``u`` with its variables bound by name, or ``(False, why not)`` (an op tinygrad's Python ALU
  has no function for, a negative shift count, an unbound variable)."""
  vals: dict[UOp, Any] = {}
  try:
    for n in u.toposort():
      if n.op is Ops.CONST: vals[n] = n.arg
      elif (name := variable_name(n)) is not None: vals[n] = (binding or {})[name]
      elif n.op in GroupOp.ALU:
        args = [vals[s] for s in n.src]
        vals[n] = Invalid if _undefined(n.op, args) else exec_alu(n.op, n.dtype, args)
      elif n.op is Ops.CAST: vals[n] = cast_value(vals[n.src[0]], n.dtype)
      elif n.src or n.op is not Ops.STACK: return False, f"cannot evaluate {n.op}"
    return True, vals[u]
  except Exception as e: return False, f"{type(e).__name__}: {e}"


def _key(v: Any) -> Any:
  """``value_key`` of a value, tinygrad's ``ConstFloat`` as the float it is (so ``-0.0`` and ``0.0`` differ)."""
  return value_key(float(v) if isinstance(v, float) else v)


def _text(v: Any) -> str: return repr(float(v)) if isinstance(v, float) else repr(v)


def _at(binding: dict[str, Any]) -> str: return ", ".join(f"{k}={_text(v)}" for k, v in sorted(binding.items()))


def _edges(v: UOp) -> list[Any]:
  """The edge values within ``v``'s bounds (0, ±1, ±40, ±800, the dtype's limits, inf and NaN for a float), its bounds first."""
  if v.dtype == dtypes.bool: return [False, True]
  lo, hi = v.vmin, v.vmax
  if dtypes.is_float(v.dtype): return [x for x in (float(lo), float(hi), *EDGE_FLOATS) if lo <= x <= hi or (x != x and lo != lo)]
  limits = (v.dtype.min, v.dtype.max) if v.dtype != dtypes.weakint and v.op is not Ops.RANGE else ()
  m = getattr(v.arg, "multiple_of", 1) if v.op is not Ops.RANGE else 1
  return list(dict.fromkeys(x for x in (int(lo), int(hi), *EDGE_INTS, *limits) if lo <= x <= hi and x % (m or 1) == 0))


def _draw(rng: random.Random, v: UOp) -> Any:
  if v.dtype == dtypes.bool: return rng.random() < 0.5
  lo, hi = v.vmin, v.vmax
  if dtypes.is_float(v.dtype): return float(cast_value(rng.uniform(float(lo), float(hi)), v.dtype))
  m = (getattr(v.arg, "multiple_of", 1) if v.op is not Ops.RANGE else 1) or 1
  return m * rng.randint(-(-int(lo) // m), int(hi) // m)


def _in_bounds(vs: list[UOp], binding: dict[str, Any]) -> bool:
  """Is each ``RANGE`` of ``vs`` in ``[0, end)`` with its end evaluated at ``binding`` (a variable's own bounds are constants)?"""
  for v in vs:
    if v.op is Ops.RANGE:
      ok, end = value_of(v.src[0], binding)
      if not ok or isinstance(end, InvalidType) or not 0 <= binding[str(variable_name(v))] < end: return False
  return True


def edge_bindings(vs: list[UOp]) -> list[dict[str, Any]]:
  """Every combination of the variables' edge values (``_edges``) within the bounds, from the first 256 combinations."""
  names = [str(variable_name(v)) for v in vs]
  combos = [dict(zip(names, combo)) for combo in itertools.islice(itertools.product(*[_edges(v) for v in vs]), 256)]
  return [b for b in combos if _in_bounds(vs, b)]


def search_bindings(vs: list[UOp], n: int = SEARCH, seed: int = 0) -> list[dict[str, Any]]:
  """The witness search's bindings: ``edge_bindings``, then ``n`` random ones within the bounds (seeded)."""
  names = [str(variable_name(v)) for v in vs]
  rng = random.Random(seed)
  drawn = [{name: _draw(rng, v) for name, v in zip(names, vs)} for _ in range(n if vs else 0)]
  return edge_bindings(vs) + [b for b in drawn if _in_bounds(vs, b)]


def _semantic(binding: dict[str, Any], va: Any, vb: Any) -> tuple[str, str]:
  return "semantic", f"different values{' at ' + _at(binding) if binding else ''}: {_text(va)} vs {_text(vb)}"


def _differ(a: UOp, b: UOp, binding: dict[str, Any]) -> tuple[str, Any, Any]:
  """``("differ", va, vb)``, ``("same", ...)``, ``("undefined", ...)`` (one is ``Invalid``) or ``("error", why, None)``."""
  (oka, va), (okb, vb) = value_of(a, binding), value_of(b, binding)
  if not (oka and okb): return "error", va if not oka else vb, None
  if isinstance(va, InvalidType) or isinstance(vb, InvalidType): return "undefined", va, vb
  return ("differ" if _key(va) != _key(vb) else "same"), va, vb


def witness_search(a: UOp, b: UOp, vs: list[UOp], reason: str, n: int = SEARCH, seed: int = 0) -> tuple[str, str]:
  """``semantic`` with the first binding (edge values first, then random) where tinygrad's evaluation gives two values,
  else ``no-difference-found`` on the bindings both evaluated on, else ``unknown``; ``reason`` says why it was not proved."""
  tried, why = 0, ""
  for binding in search_bindings(vs, n, seed):
    what, va, vb = _differ(a, b, binding)
    if what == "differ": return _semantic(binding, va, vb)
    if what == "error": why = va
    else: tried += 1
  if tried: return "no-difference-found", f"no difference found on {tried} input{'s' * (tried != 1)} (not proved: {reason})"
  return "unknown", f"unknown: {reason}; tinygrad's evaluation fails: {why}"


def compare_values(a: UOp, b: UOp, prog: UOp, n: int = 8, seed: int = 0, prove: Callable | None = None) -> tuple[str, str]:
  """``(kind, detail)`` of two results of ``prog``: proved equal by z3 (``syntactic``), different at a binding tinygrad's
  evaluation confirms (``semantic``), ``no-difference-found`` or ``unknown`` (see the module doc). ``n`` adds to the
  random bindings of the witness search; ``prove`` replaces ``smt.decide`` (tests).

  >>> from tinygrad.dtype import Invalid
  >>> x = UOp.variable("x", 0, 10)
  >>> compare_values((x < 5).where(x, UOp.const(Invalid)), x, x)[1]
  'equal for all inputs within the bounds of x where both are defined (proved; Invalid, the undefined value, on some)'
  >>> from tinygrad.dtype import ConstFloat
  >>> compare_values(UOp.const(ConstFloat(-0.0)), UOp.const(ConstFloat(0.0)), x)
  ('semantic', 'different values: -0.0 vs 0.0')
  """
  vs = variables(a, b)
  names = ", ".join(str(variable_name(v)) for v in vs)
  within = f" within the bounds of {names}" if vs else ""
  if not vs:   # closed: evaluated exactly
    what, va, vb = _differ(a, b, {})
    if what == "differ": return "semantic", f"different values: {_text(va)} vs {_text(vb)}"
    if what == "same": return "syntactic", f"equal for all inputs (closed, evaluated exactly): {_text(va)}"
    if what == "undefined": return "syntactic", "equal for all inputs where both are defined (closed: one is Invalid, the undefined value)"
  if not available(): return witness_search(a, b, vs, "z3 is not installed", n + SEARCH, seed)
  for binding in edge_bindings(vs):   # a difference at edge values first: the plainest input to show
    what, va, vb = _differ(a, b, binding)
    if what == "differ": return _semantic(binding, va, vb)
  from uopc.relational.adapters.tinygrad.smt import decide
  d = (prove or decide)(a, b)
  if d.kind == "equal":
    return "syntactic", f"equal for all inputs{within}" + (" where both are defined (proved; Invalid, the undefined value, on some)"
                                                           if d.partial else " (proved)")
  reason = d.reason
  if d.kind == "differ":
    what, va, vb = _differ(a, b, d.binding or {})
    if what == "differ": return _semantic(d.binding or {}, va, vb)
    reason = f"z3's difference at {_at(d.binding or {})} is not one in tinygrad's evaluation ({what}: {_text(va)}" + \
             (f" vs {_text(vb)})" if what != "error" else ")")
  return witness_search(a, b, vs, reason, n + SEARCH, seed)
