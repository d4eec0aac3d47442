"""An encoding with values for its variables, back to a Python value: the differential tests' and the
counterexamples' way from a z3 term to what ``run()`` and the C backend print.

>>> from uopc.uop import UOp
>>> from uopc.smt.encode import encode
>>> e = encode(UOp.param(0, shape=(2,)) * 3)
>>> evaluate(e, {0: [2**30, -1]})
(True, [-1073741824, -3])
>>> evaluate(encode(UOp.param(0) // 0), {0: 7})
(False, None)
"""
from __future__ import annotations

from typing import Any

from uopc.dtype import DType, dtypes
from uopc.uop import Shape, prod

from uopc.smt.encode import Encoding
from uopc.smt.solver import require
from uopc.smt.sorts import python_value, value_term


def flat_values(value: Any, shape: Shape) -> list[Any]:
  """A scalar or nested lists of ``shape`` as one row-major list."""
  out, stack = [], [(value, len(shape))]
  while stack:
    v, rank = stack.pop()
    if rank == 0: out.append(v)
    else: stack.extend((e, rank - 1) for e in reversed(v))
  return out


def nest(flat: list[Any], shape: Shape) -> Any:
  """The inverse of ``flat_values``."""
  if not shape: return flat[0]
  step = prod(shape[1:])
  return [nest(flat[i * step:(i + 1) * step], shape[1:]) for i in range(shape[0])]


def substitution(enc: Encoding, values: dict[int, Any], dtypes_of: dict[int, DType]) -> list[tuple[Any, Any]]:
  """(variable, value term) pairs binding every PARAM slot in ``values`` (``dtypes_of``: each slot's dtype)."""
  pairs = []
  for slot, consts in enc.variables.items():
    if slot not in values: continue
    v = values[slot]
    flat = flat_values(v, _shape_of(v)) if isinstance(v, list) else [v]
    pairs += [(c, value_term(v, dtypes_of[slot], require().is_int(c))) for c, v in zip(consts, flat)]
  return pairs


def _shape_of(v: Any) -> Shape:
  shape = []
  while isinstance(v, list): shape.append(len(v)); v = v[0]
  return tuple(shape)


def evaluate(enc: Encoding, values: dict[int, Any]) -> tuple[bool, Any]:
  """(True, the value) if the program is defined with its PARAMs bound to ``values``, else (False, None).
  ``ValueError`` if the result depends on an uninterpreted function (``ops.UNINTERPRETED``) at these values."""
  z3 = require()
  dtypes_of = {slot: _dtype_of(consts[0]) for slot, consts in enc.variables.items()}
  pairs = substitution(enc, values, dtypes_of)
  defined = z3.simplify(z3.substitute(enc.defined, *pairs) if pairs else enc.defined)
  if z3.is_false(defined): return False, None
  if not z3.is_true(defined): raise ValueError(f"definedness does not reduce to a value: {str(defined)[:200]}")
  flat = [python_value(z3.substitute(t, *pairs) if pairs else t, enc.dtype) for t in enc.elements]
  return True, nest(flat, enc.shape)


def _dtype_of(const: Any) -> DType:
  z3 = require()
  if z3.is_bool(const): return dtypes.bool
  return dtypes.i32 if z3.is_bv(const) or z3.is_int(const) else dtypes.f32
