"""Rules declared as data (``uopc/rule_data.py``: ``Fold``, ``Pinned``, ``Guarded``) compiled for the native core.

``_space_folds.c`` runs them on the core's nodes: a fold of an ALU op over constants, a node pinned by its bounds,
and guards choosing between templates, with no Python call per redex. Here each table's form becomes what the core
reads (``rule_forms``): the slot of the form's name, and each expression as a postfix program of ``(opcode,
operand)`` pairs (a read names a slot: the pattern's names first, then a ``Guarded`` form's constants). A form the
core cannot hold (a name the pattern does not bind, a ``then`` that is no template, more than four constants or
arguments, a program past 64 steps) leaves its rule's function to Python, as before.

>>> from uopc import UPat, PatternMatcher
>>> from uopc.rule_data import Guarded, as_data
>>> from uopc.relational.native.patterns import compile_rules
>>> x, c = UPat.var("x"), UPat.cvar("c")
>>> pm = PatternMatcher([(x // c, as_data(Guarded((">", ("value", "c"), 0), lambda x: x))(lambda x, c: x if c.arg > 0 else None))])
>>> specs, _ = rule_forms(pm, compile_rules(pm), True)
>>> specs[0]   # (rule, then's slots, orelse's, (kind, slot, guard, constants)); x is slot 0, c slot 1
(0, (0,), None, (3, -1, ((1, 1), (0, 0), (19, 0)), ()))
"""
from __future__ import annotations

from typing import Any

from uopc.dtype import DType
from uopc.egraph.template import Template
from uopc.matcher import PatternMatcher
from uopc.ops import ALU, Ops
from uopc.relational.native.patterns import CODES, Compiled
from uopc.relational.native.templates import DTYPE_CODES, rule_slots
from uopc.rule_data import Fold, Guarded, Pinned, Rebuild, data_of

OPCODES = {"+": 10, "-": 11, "*": 12, "//": 13, "%": 14, "<": 15, "<=": 16, "==": 17, "!=": 18, ">": 19, ">=": 20,
           "and": 21, "or": 22, "not": 23, "wrap_i32": 24}
READ_CODES = {"value": 1, "dtype": 2, "const?": 3, "lo": 4, "hi": 5}
# the op codes the core's folds read, in _space_folds.h's OC_* order, and every ALU op's
FOLD_OPS = (Ops.CONST, Ops.RANGE, Ops.ADD, Ops.MUL, Ops.MAX, Ops.CMPLT, Ops.CMPNE, Ops.FLOORDIV, Ops.FLOORMOD, Ops.WHERE, Ops.CAST)
FOLD_CODES = (tuple(CODES[o] for o in FOLD_OPS), tuple(sorted(CODES[o] for o in ALU)))
MAX_CONSTS, MAX_PARAMS, MAX_PROGRAM = 4, 4, 64
KINDS = {Fold: 1, Pinned: 2, Guarded: 3}
REBUILD = 4   # a Guarded form whose `then` is a Rebuild: _space_folds.h's FOLD_REBUILD

Spec = tuple[int, Any, Any, Any]


class NotCompiled(Exception):
  """A form the core cannot hold: its rule's function is called in Python."""


def program(e: Any, slots: dict[str, int]) -> tuple[tuple[int, int], ...]:
  """Expression ``e`` (``rule_data``'s language) as a postfix program over ``slots`` (name -> slot)."""
  out: list[tuple[int, int]] = []
  todo: list[tuple[Any, bool]] = [(e, False)]   # (expression, its operands done): iterative, no recursion
  while todo:
    e, done = todo.pop()
    if isinstance(e, DType): out.append((0, DTYPE_CODES.get(e, 3)))
    elif type(e) is int:
      if not -2**63 <= e < 2**63: raise NotCompiled(f"a literal past int64: {e}")
      out.append((0, e))
    elif e[0] in READ_CODES:
      if e[1] not in slots: raise NotCompiled(f"{e[1]!r} is not bound")
      out.append((READ_CODES[e[0]], slots[e[1]]))
    elif done: out.append((OPCODES[e[0]], 0))
    else:
      todo.append((e, True))
      todo.extend((a, False) for a in reversed(e[1:]))
  if len(out) > MAX_PROGRAM: raise NotCompiled("a program past 64 steps")
  return tuple(out)


def _params(t: Template | None, slots: dict[str, int]) -> tuple[int, ...]:
  if t is None or len(t.params) > MAX_PARAMS or any(p not in slots for p in t.params): raise NotCompiled("not a template of bound names")
  return tuple(slots[p] for p in t.params)


def _spec(rule: int, form: Any, names: tuple[str, ...]) -> tuple[Spec, Template | None, Template | None]:
  """Table's spec for the core, and its `then` and `orelse` templates; NotCompiled where the core cannot hold it."""
  slots = {n: i for i, n in enumerate(names)}
  if not isinstance(form, Guarded):
    if form.name not in slots: raise NotCompiled(f"{form.name!r} is not bound")
    return (rule, None, None, (KINDS[type(form)], slots[form.name], (), ())), None, None
  if isinstance(form.then, Rebuild):   # the sources' slots where a template's arguments' are
    rb = form.then
    if form.orelse is not None or form.consts or rb.name not in slots or len(rb.src) > MAX_PARAMS or any(n not in slots for n in rb.src):
      raise NotCompiled("a rebuild of bound names, alone")
    return (rule, tuple(slots[n] for n in rb.src), None, (REBUILD, slots[rb.name], program(form.guard, slots), ())), None, None
  if len(form.consts) > MAX_CONSTS: raise NotCompiled("more than four constants")
  consts = []
  for _, like, e in form.consts:
    if isinstance(like, DType): ref = -1 - DTYPE_CODES[like]
    elif like in slots: ref = slots[like]
    else: raise NotCompiled(f"{like!r} is not bound")
    consts.append((ref, program(e, slots)))
  wide = {**slots, **{name: len(names) + j for j, (name, _, _) in enumerate(form.consts)}}
  then, orelse = Template.of(form.then, True), None if form.orelse is None else Template.of(form.orelse, True)
  then_slots = _params(then, wide)
  orelse_slots = None if form.orelse is None else _params(orelse, slots)
  return (rule, then_slots, orelse_slots, (3, -1, program(form.guard, slots), tuple(consts))), then, orelse


def rule_forms(pm: PatternMatcher, compiled: Compiled, applies: bool) -> tuple[tuple[Spec, ...], list[Template | None]]:
  """Per compiled table, what the core reads (``Space.templates``): (rule index, its template's argument slots or None,
  its ``orelse`` template's or None, its form or None); and the templates, table k's at k and its ``orelse`` at n + k.
  ``applies``: uopc's own IR and no ctx (else every rule's function is called, as the Stepper calls it)."""
  plain = rule_slots(pm, compiled, applies)
  n = len(plain)
  specs: list[Spec] = []
  templates: list[Template | None] = [None] * (2 * n)
  for k, ((rule, slots), names) in enumerate(zip(plain, compiled.names)):
    form = data_of(pm.rules[rule][1]) if applies else None
    if form is not None:
      try:
        spec, templates[k], templates[n + k] = _spec(rule, form, tuple(names))
        specs.append(spec)
        continue
      except NotCompiled: pass
    specs.append((rule, slots, None, None))
    templates[k] = Template.of(pm.rules[rule][1]) if slots is not None else None
  return tuple(specs), templates
