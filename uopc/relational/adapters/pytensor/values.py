"""Values of PyTensor graphs, in PyTensor's own semantics: what ``diagnose_order`` compares two results by.

Both graphs are run by PyTensor's Python linker (each ``Op``'s ``perform``, no C compilation, no
rewriting) on random values of the program's inputs (a dimension of unknown length gets 3, floats
are normal, ints in [-5, 5]); values are equal when their shapes are and ``numpy.allclose`` holds
(rewrites such as ``log(exp(y)) -> y`` change the last bits).

>>> import pytensor.tensor as pt
>>> from uopc.relational.adapters.pytensor.nodes import from_pytensor
>>> x = pt.vector("x")
>>> a, b = from_pytensor(x + x), from_pytensor(2 * x)
>>> compare_values(a, b, a)
('syntactic', 'the same values on 8 random bindings of x')
>>> compare_values(a, from_pytensor(x * x), a)[0]
'semantic'
"""
from __future__ import annotations

from typing import Any, cast

import numpy as np

from uopc.relational.adapters.pytensor.nodes import INPUT, PyTensorNode, to_pytensor


def inputs_of(*gs: PyTensorNode) -> list[Any]:
  """The input variables of these graphs, by name (then by first appearance)."""
  seen: dict[int, Any] = {}
  for g in gs:
    for n in g.toposort():
      if n.op == INPUT: seen.setdefault(id(n.arg), n.arg)
  return sorted(seen.values(), key=lambda v: str(v.name))


def random_value(t: Any, rng: np.random.Generator) -> Any:
  """A random value of PyTensor type ``t`` (a tensor type: its static shape, 3 where unknown)."""
  shape = tuple(3 if s is None else s for s in getattr(t, "shape", ()))
  dtype = np.dtype(t.dtype)
  if dtype.kind == "f": return rng.normal(size=shape).astype(dtype)
  if dtype.kind == "b": return rng.integers(0, 2, size=shape).astype(dtype)
  return rng.integers(-5, 6, size=shape).astype(dtype)


def compare_values(a: PyTensorNode, b: PyTensorNode, prog: PyTensorNode, n: int = 8, seed: int = 0) -> tuple[str, str]:
  """``(kind, detail)``: ``semantic`` if ``a`` and ``b`` differ on some binding of the inputs, ``syntactic`` if equal on
  every one tried, ``unknown`` if they could not be run."""
  import pytensor
  from pytensor.compile.mode import Mode
  vs = inputs_of(prog, a, b)
  names = ", ".join(str(v.name) for v in vs)
  try:
    f = pytensor.function(vs, [to_pytensor(a), to_pytensor(b)], mode=Mode(linker="py", optimizer=cast(Any, None)), on_unused_input="ignore")
  except Exception as e: return "unknown", f"could not run the graphs: {type(e).__name__}: {e}"
  rng = np.random.default_rng(seed)
  agreed, why = 0, ""
  for _ in range(n if vs else 1):
    values = [random_value(v.type, rng) for v in vs]
    try: va, vb = f(*values)
    except Exception as e:
      why = f"{type(e).__name__}: {e}"
      continue
    if np.shape(va) != np.shape(vb) or not np.allclose(va, vb, equal_nan=True):
      at = ", ".join(f"{v.name}={np.array2string(np.asarray(x), precision=3)}" for v, x in zip(vs, values))
      return "semantic", f"the values differ{' at ' + at if at else ''}: {np.asarray(va)!r} and {np.asarray(vb)!r}"
    agreed += 1
  if not agreed: return "unknown", f"could not evaluate: {why}"
  if not vs: return "syntactic", f"the same value: {np.asarray(va)!r}"
  return "syntactic", f"the same values on {agreed} random binding{'s' * (agreed != 1)} of {names}"
