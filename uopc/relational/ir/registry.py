"""The IRs the explorer works on, one per node type: uopc's own, and the adapters' (``uopc.relational.ir.discovery``).

The explorer core (the Stepper, ``Exploration``, normal forms, the reports) reaches nodes and rules only through an
``IR`` (``uopc.relational.ir.protocol``). ``ir_of(node)`` finds it by the node's type, once per exploration, as kanren
finds a term type's rules; an adapter's IR is imported the first time one of its nodes, rule sets or named rule sets
shows up, so nothing here imports tinygrad or PyTensor until then (``docs/ir-protocol.md``).

>>> from uopc import UOp
>>> ir_of(UOp.param(0)).name
'uopc'
>>> ir_of(3)   # doctest: +ELLIPSIS
Traceback (most recent call last):
...
TypeError: an int is not a node of any IR the explorer knows (uopc.uop.UOp, ...PyTensorNode, tinygrad.uop.ops.UOp)
"""
from __future__ import annotations

import importlib
from typing import Any

from uopc.relational.ir.discovery import Adapter, adapter_named, adapter_owning, adapters, rule_types
from uopc.relational.ir.protocol import IR, type_name
from uopc.relational.ir.uopc_ir import UOPC
from uopc.rulesets import RuleSetError, add_rules, resolve_rules as resolve_uopc_rules, rule_object

_registry: dict[type, IR] = {UOPC.node_type: UOPC}


def register(ir: IR) -> IR:
  """Make ``ir`` the IR of its ``node_type`` (an adapter's ``ir`` module calls this once, at import)."""
  _registry[ir.node_type] = ir
  return ir


def _load(adapter: Adapter) -> IR:
  """The IR of ``adapter``, its module imported (which registers it)."""
  importlib.import_module(adapter.module)
  return next(ir for ir in _registry.values() if ir.name == adapter.name)


def _node_adapter(t: type) -> Adapter | None:
  """The adapter that declares ``t`` its node type, or None."""
  name = type_name(t)
  return next((a for a in adapters() if name in a.node_types), None)


def ir_named(name: str) -> IR:
  """The IR called ``name`` (``uopc``, or an adapter's, imported on demand); a KeyError for none."""
  if name == UOPC.name: return UOPC
  if (adapter := adapter_named(name)) is None: raise KeyError(f"no IR named {name!r}")
  return _load(adapter)


def ir_of(node: Any) -> IR:
  """The IR of ``node``, found by its type; a TypeError for an object of no known IR."""
  t = type(node)
  if (ir := _registry.get(t)) is not None: return ir
  if (adapter := _node_adapter(t)) is not None:
    _load(adapter)
    if (ir := _registry.get(t)) is not None: return ir
  names = [type_name(UOPC.node_type), *(n for a in adapters() for n in a.node_types)]   # a fixed order, whichever are imported
  known = ", ".join(names + [n for n in map(type_name, _registry) if n not in names])
  given = type_name(t)
  article = "an" if given[0] in "aeioAEIO" else "a"
  raise TypeError(f"{article} {given} is not a node of any IR the explorer knows ({known})")


def ir_of_rules(pm: Any, what: str = "pm") -> tuple[IR, Any]:
  """``(IR, rule protocol)`` of a rule set without a program: an IR's rule protocol itself (it names its ``ir``), a rule
  set type some adapter declares (its IR imported on demand), else uopc's (whose checks say what is wrong with ``pm``).

  >>> from uopc import symbolic
  >>> ir, rules = ir_of_rules(symbolic)
  >>> ir.name, rules is symbolic
  ('uopc', True)
  """
  if isinstance(ir := getattr(pm, "ir", None), IR): return ir, pm
  if (name := rule_types().get(type_name(type(pm)))) is None and (adapter := adapter_owning(pm)) is not None:
    ir = _load(adapter)   # the library's own objects (a list of PyTensor rewriters), taken as they are
    return ir, ir.adopt_rules(pm, what)
  ir = ir_named(name or UOPC.name)
  return ir, ir.rules(pm, what, None)


def rules_for(node: Any, pm: Any, what: str = "pm") -> Any:
  """``pm`` as the rule protocol of ``node``'s IR (uopc's ``PatternMatcher`` is its own); a one-line TypeError naming
  both types, with their modules, when they are of different IRs."""
  return ir_of(node).rules(pm, what, node)


def host_node(obj: Any) -> Any:
  """``obj`` as a node of some IR: a node as it is, an object of an adapter's library that stands for a graph (a PyTensor
  variable) as that IR's node, else None."""
  t = type(obj)
  if t in _registry or _node_adapter(t) is not None: return obj
  return None if (adapter := adapter_owning(obj)) is None else _load(adapter).host_node(obj)


def resolve_rules(spec: str) -> Any:
  """A ``--rules`` value as the rule set it names, of any IR: uopc's names and files (``uopc.rulesets.resolve_rules``),
  an adapter's named sets (``tinygrad:sym``, ``pytensor:canonicalize``), ``module:attr`` naming another IR's rule set
  (taken as it is), or a sum of one IR's sets (``a+b``). A ``RuleSetError`` says what is wrong, in one line.

  >>> len(resolve_rules("symbolic+evaluate").rules)
  44
  """
  parts = [p.strip() for p in spec.split("+")]
  sets = [_resolve_one(p) for p in parts]
  if len(sets) == 1: return sets[0][1]
  names = [ir.name for ir, _ in sets]
  if len(set(names)) > 1:
    first = next(n for n in names if n != UOPC.name)
    raise RuleSetError(f"{spec}: a sum of {first} and {' and '.join(sorted(set(names) - {first}))} rule sets "
                       "(each rewrites only its own IR's nodes)")
  ir = sets[0][0]
  if ir is UOPC: return add_rules(spec, [s for _, s in sets])
  try: return ir.sum_rules([s for _, s in sets], spec)
  except TypeError as e: raise RuleSetError(str(e)) from None


def _resolve_one(spec: str) -> tuple[IR, Any]:
  prefix, _, attr = spec.rpartition(":")
  if (adapter := adapter_named(prefix)) is not None:   # tinygrad:symbolic, pytensor:canonicalize
    try: ir = _load(adapter)
    except ModuleNotFoundError as e:
      if e.name == prefix: raise RuleSetError(f"{spec}: {adapter.name} is not installed ({adapter.install})") from None
      raise
    try: return ir, ir.named_rules(attr)
    except KeyError as e: raise RuleSetError(str(e.args[0])) from None
  if not prefix: return UOPC, resolve_uopc_rules(spec)
  obj = rule_object(spec, installs={a.name: a.install for a in adapters()})
  if (adapter := adapter_owning(obj)) is None: return UOPC, resolve_uopc_rules(spec, obj)
  ir = _load(adapter)   # another IR's rule set, taken as it is
  try: return ir, ir.adopt_rules(obj, spec)
  except TypeError as e: raise RuleSetError(str(e)) from None

