"""Rules as data for the native core: a template rule's result built in C from its match, no Python call per redex.

A rule whose function only combines its arguments with operators (``lambda a, b: b + a``,
``lambda x, y, z: x * y + x * z``) is a *template* (``uopc.egraph.template.Template.of``, the
e-graph core's test, reused here): what it builds depends only on its arguments' dtypes and
shapes. So the core (``_space_templates.c``) asks here once per rule and argument types for
the template's steps (``RuleTemplates.fill``: the function called once on placeholders, as
``Template`` does), and builds each match's result from them on its own nodes. A redex made
there is a ``Redex`` of the Python core only when Python reads it (``NativeSpace.redexes``).

A rule stays with Python (its node's redexes all found there, as before) where its function
is no template, where its names are not exactly its pattern's, under a ``ctx``, for another
IR than uopc's (its check of a result is its own), or where the core's pattern tables do
not hold it (``patterns.py``).

>>> from uopc import UOp, UPat, PatternMatcher
>>> from uopc.relational.native.patterns import compile_rules
>>> a, b = UPat.var("a"), UPat.var("b")
>>> pm = PatternMatcher([(a + b, lambda a, b: b + a), (a * b, lambda a, b: b.const_like(0))])
>>> rule_slots(pm, compile_rules(pm), True)   # the second names an attribute: its function is called per match
((0, (0, 1)), (1, None))
"""
from __future__ import annotations

from typing import Any, Callable

from uopc.dtype import BOOL, F32, I32, DType, truncate
from uopc.egraph.template import NO_RESULT, Template
from uopc.matcher import PatternMatcher
from uopc.ops import Ops
from uopc.relational.native.patterns import CODES, Compiled
from uopc.uop import UOp, make_const

DTYPES: tuple[DType, ...] = (BOOL, I32, F32)   # by _space_folds.h's dtype codes
DTYPE_CODES = {d: i for i, d in enumerate(DTYPES)}

TemplateSteps = tuple[int, int, tuple[tuple[int, int, int, int, tuple[int, ...]], ...]]


def rule_slots(pm: PatternMatcher, compiled: Compiled, applies: bool) -> tuple[tuple[int, tuple[int, ...] | None], ...]:
  """Per compiled table: (its rule's index, the slots of its template's arguments in their order), or (index, None).
  ``applies``: uopc's own IR and no ctx (else every rule's function is called, as the Stepper calls it)."""
  out: list[tuple[int, tuple[int, ...] | None]] = []
  for rule, names in zip(compiled.rules, compiled.names):
    t = Template.of(pm.rules[rule][1]) if applies else None
    ok = t is not None and sorted(t.params) == sorted(names)
    out.append((rule, tuple(names.index(p) for p in t.params) if ok and t is not None else None))
  return tuple(out)


class RuleTemplates:
  """The core's questions about templates (a node's type id, a template's steps for its arguments' types) and folds
  (``folds.py``: a type's dtype code, a constant's value, the constant of a value)."""

  def __init__(self, templates: list[Template | None], uop: Callable[[int], UOp], to_id: Callable[[UOp], int],
               label: Callable[[Ops, DType, Any], int]) -> None:
    self.templates = templates   # per table (folds.rule_forms): its template, or its `orelse`'s at n + table
    self.uop, self.to_id, self.label = uop, to_id, label
    self.types: list[tuple[DType, tuple]] = []   # type id -> (dtype, shape)
    self._type_id: dict[tuple[DType, tuple], int] = {}

  def type_id(self, dtype: DType, shape: tuple) -> int:
    """The number of a (dtype, shape), made on first use."""
    if (t := self._type_id.get(key := (dtype, shape))) is None:
      t = self._type_id[key] = len(self.types)
      self.types.append(key)
    return t

  def type_of(self, i: int) -> int:
    """The type id of native node ``i`` (the core asks where it does not know it: a node Python made)."""
    u = self.uop(i)
    return self.type_id(u.dtype, u.shape)

  def type_info(self, t: int) -> tuple[int, bool]:
    """Type ``t``'s dtype code (``folds.DTYPE_CODES``, 3 for another) and whether it is a scalar's."""
    dtype, shape = self.types[t]
    return DTYPE_CODES.get(dtype, 3), shape == ()

  def value(self, i: int) -> int | float | None:
    """The value of native node ``i``, a constant: an int for an int or bool constant, a float for an f32's (as it
    holds it), else None."""
    u = self.uop(i)
    if u.dtype is F32: return u.arg if type(u.arg) is float else None
    return int(u.arg) if u.dtype in (I32, BOOL) and type(u.arg) in (int, bool) else None

  def const(self, code: int, v: int | float) -> tuple[int, int]:
    """The constant of value ``v`` in the dtype of ``code``, as ``make_uop`` makes it: its native node and type id."""
    dtype = DTYPES[code]
    return self.to_id(make_const(truncate(dtype, v), dtype)), self.type_id(dtype, ())

  def fill(self, table: int, types: tuple[int, ...]) -> TemplateSteps | int | None:
    """Table ``table``'s template for arguments of these types: (result, its type id, steps), 0 where the function
    returns None, None where Python must call it (it raised, returned no node, or made a node the core does not take).

    A step is (node, label, op code, type id, sources): ``node`` an existing node's id (a constant) or -1, a source a
    step's index or ``-1 - j``, the j-th argument; the result is one of those too.
    """
    t = self.templates[table]
    assert t is not None, "the core asks only for a template rule's steps"
    made = t._steps(tuple(self.types[ty] for ty in types))   # the e-graph core's derivation
    if made is None: return None
    steps, result = made
    if result == NO_RESULT: return 0
    out: list[tuple[int, int, int, int, tuple[int, ...]]] = []
    try:
      for op, dtype, arg, src, shape, _ in steps:
        ty = self.type_id(dtype, shape)
        if op is Ops.CONST: out.append((self.to_id(arg), -1, 0, ty, ()))   # the step's arg is the constant's UOp
        elif not src: return None   # a leaf other than a constant: the function named more than its arguments
        else: out.append((-1, self.label(op, dtype, arg), CODES[op], ty, tuple(src)))
    except Exception: return None   # (NotNative: a CALL) Python calls the function, as for any rule
    rtype = out[result][3] if result >= 0 else types[-1 - result]
    return result, rtype, tuple(out)
