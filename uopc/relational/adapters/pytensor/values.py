"""Values of PyTensor graphs, in PyTensor's own semantics: what ``diagnose_order`` compares two results by.

PyTensor's ops (``log``, ``exp``, ``sigmoid``, ``softplus``, ...) have no exact encoding in SMT, so two results with
inputs are never proved equal here: a **witness search** runs both graphs with PyTensor's Python linker (each ``Op``'s
``perform``, no C compilation, no rewriting) on edge inputs first (every element of an input one value: 0, -0.0,
+-1, +-40, +-800, the dtype's limits, inf, -inf, nan; each value for every input at once, then combinations), then
on seeded random ones (a dimension of unknown length gets 3, floats are normal, ints in [-5, 5]). Two values differ
when their shapes do, when inf or nan is on one side only (or a different inf, or nan against inf), or when the
finite elements are not ``numpy.allclose`` (rewrites such as ``log(exp(y)) -> y`` change the last bits). The kinds
(``uopc.smt.classify``):

- ``semantic``: an input where they differ, with both values;
- ``no-difference-found``: none found, never "equal": the search is not a proof;
- ``syntactic``: only for a graph without inputs, whose two values are evaluated and the same, bit for bit;
- ``unknown``: the graphs could not be run.

>>> import pytensor.tensor as pt
>>> from uopc.relational.adapters.pytensor.nodes import from_pytensor
>>> x = pt.vector("x")
>>> a, b = from_pytensor(x + x), from_pytensor(2 * x)
>>> compare_values(a, b, a)[0]
'no-difference-found'
>>> compare_values(a, from_pytensor(x * x), a)
('semantic', 'different values at x=[1. 1. 1.]: [2. 2. 2.] vs [1. 1. 1.]')
>>> compare_values(from_pytensor(pt.log(pt.exp(x))), from_pytensor(x), a)[1]
'different values at x=[800. 800. 800.]: [inf inf inf] vs [800. 800. 800.]'
"""
from __future__ import annotations

from itertools import islice
from typing import Any, Iterator, cast

import numpy as np

from uopc.probe_values import by_cost
from uopc.relational.adapters.pytensor.nodes import INPUT, PyTensorNode, to_pytensor

EDGE_INPUTS = 64
"""Edge bindings tried (each value for every input at once, then combinations, cheapest first) before the random ones."""
NOT_PROVED = "PyTensor's ops have no exact encoding, and finite values are compared within numpy.allclose"


def inputs_of(*gs: PyTensorNode) -> list[Any]:
  """The input variables of these graphs, by name (then by first appearance)."""
  seen: dict[int, Any] = {}
  for g in gs:
    for n in g.toposort():
      if n.op == INPUT: seen.setdefault(id(n.arg), n.arg)
  return sorted(seen.values(), key=lambda v: str(v.name))


def _shape(t: Any) -> tuple[int, ...]: return tuple(3 if s is None else s for s in getattr(t, "shape", ()))


def random_value(t: Any, rng: np.random.Generator) -> Any:
  """A random value of PyTensor type ``t`` (a tensor type: its static shape, 3 where unknown)."""
  shape = _shape(t)
  dtype = np.dtype(t.dtype)
  if dtype.kind == "f": return rng.normal(size=shape).astype(dtype)
  if dtype.kind == "b": return rng.integers(0, 2, size=shape).astype(dtype)
  return rng.integers(-5, 6, size=shape).astype(dtype)


def edge_values(dtype: Any) -> list[Any]:
  """The edge values of a numpy dtype, each representable in it (an int dtype drops what it cannot hold).

  >>> edge_values("int8")
  [0, 1, -1, 40, -40, -128, 127]
  """
  d = np.dtype(dtype)
  if d.kind == "b": return [False, True]
  if d.kind == "f":
    big = float(np.finfo(d).max)
    return [0.0, -0.0, 1.0, -1.0, 40.0, -40.0, 800.0, -800.0, big, -big, np.inf, -np.inf, np.nan]
  info = np.iinfo(d)
  return [v for v in (0, 1, -1, 40, -40, 800, -800, int(info.min), int(info.max)) if info.min <= v <= info.max]


def edge_bindings(vs: list[Any], limit: int = EDGE_INPUTS) -> Iterator[list[Any]]:
  """Up to ``limit`` edge inputs of the variables ``vs``, each a list of arrays (see the module's docstring)."""
  tables = [edge_values(v.type.dtype) for v in vs]
  diagonal = [tuple(t[k % len(t)] for t in tables) for k in range(max(map(len, tables)))]
  combos = by_cost([list(enumerate(t)) for t in tables]) if len(vs) > 1 else iter(())
  seen: set[str] = set()
  for choice in islice((*diagonal, *islice(combos, limit)), limit):
    if (key := repr(choice)) in seen: continue
    seen.add(key)
    yield [np.full(_shape(v.type), e, dtype=v.type.dtype) for v, e in zip(vs, choice)]


def differ(va: Any, vb: Any) -> bool:
  """Do two values differ: shapes, inf or nan on one side only (or unlike), finite values beyond ``numpy.allclose``?

  >>> differ(np.float64(-np.inf), np.float64(-40.0)), differ(np.nan, np.nan), differ([1.0, 2.0], [1.0, 2.0 + 1e-12])
  (True, False, False)
  """
  a, b = np.asarray(va), np.asarray(vb)
  if a.shape != b.shape: return True
  if a.dtype.kind not in "fc" and b.dtype.kind not in "fc": return not np.array_equal(a, b)
  wide = np.complex128 if "c" in (a.dtype.kind, b.dtype.kind) else np.float64
  a, b = a.astype(wide), b.astype(wide)
  special_a, special_b = ~np.isfinite(a), ~np.isfinite(b)
  if (special_a != special_b).any(): return True
  if special_a.any() and not np.array_equal(a[special_a], b[special_b], equal_nan=True): return True
  finite = ~special_a
  return not np.allclose(a[finite], b[finite])


def _text(v: Any) -> str:
  a = np.asarray(v)
  return repr(a.item()) if a.ndim == 0 else np.array2string(a, precision=4, threshold=12)


def compare_values(a: PyTensorNode, b: PyTensorNode, prog: PyTensorNode, n: int = 8, seed: int = 0) -> tuple[str, str]:
  """``(kind, detail)`` of ``a`` vs ``b`` (see the module's docstring); ``n`` random inputs after the edge ones (``seed``)."""
  import pytensor
  from pytensor.compile.mode import Mode
  vs = inputs_of(prog, a, b)
  try:
    f = pytensor.function(vs, [to_pytensor(a), to_pytensor(b)], mode=Mode(linker="py", optimizer=cast(Any, None)), on_unused_input="ignore")
  except Exception as e: return "unknown", f"unknown: could not run the graphs: {type(e).__name__}: {e}"
  if not vs: return _closed(f)
  rng = np.random.default_rng(seed)
  tried, evaluated, why = 0, 0, ""
  for values in (*edge_bindings(vs), *([random_value(v.type, rng) for v in vs] for _ in range(n))):
    tried += 1
    try:
      with np.errstate(all="ignore"): va, vb = f(*values)
    except Exception as e:
      why = f"{type(e).__name__}: {e}"
      continue
    evaluated += 1
    if differ(va, vb):
      at = ", ".join(f"{v.name}={_text(x)}" for v, x in zip(vs, values))
      return "semantic", f"different values at {at}: {_text(va)} vs {_text(vb)}"
  if not evaluated: return "unknown", f"unknown: could not evaluate either side on {tried} inputs ({why})"
  return "no-difference-found", f"no difference found on {evaluated} inputs (not proved: {NOT_PROVED})"


def _closed(f: Any) -> tuple[str, str]:
  """A graph without inputs: both values, evaluated."""
  try:
    with np.errstate(all="ignore"): va, vb = f()
  except Exception as e: return "unknown", f"unknown: could not evaluate: {type(e).__name__}: {e}"
  if differ(va, vb): return "semantic", f"different values: {_text(va)} vs {_text(vb)}"
  if np.shape(va) == np.shape(vb) and np.array_equal(va, vb, equal_nan=np.asarray(va).dtype.kind in "fc"):
    return "syntactic", "equal for all inputs (proved: the graph has no inputs, both sides evaluated)"
  return "no-difference-found", f"no difference found beyond rounding: {_text(va)} vs {_text(vb)} (not proved: equal within numpy.allclose)"
