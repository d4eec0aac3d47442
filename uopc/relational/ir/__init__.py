"""The IRs the explorer works on: a node protocol and a rule protocol, one implementation per node type.

The explorer core (the Stepper, ``Exploration``, normal forms, the reports) reaches nodes and
rules only through an ``IR`` (``uopc.relational.ir.protocol``). Each node type registers one,
as kanren registers term types: ``ir_of(node)`` finds it by the node's type, once per
exploration. uopc's own ``UOp`` is the default; tinygrad's ``UOp`` registers lazily, by name,
so nothing here imports tinygrad until a tinygrad node shows up (``docs/ir-protocol.md``).

>>> from uopc import UOp
>>> ir_of(UOp.param(0)).name
'uopc'
>>> ir_of(3)
Traceback (most recent call last):
...
TypeError: an int is not a node of any IR the explorer knows (uopc.uop.UOp, tinygrad.uop.ops.UOp, uopc.relational.ir.pytensor_nodes.PyTensorNode)
"""
from __future__ import annotations

import importlib
from typing import Any

from uopc.relational.ir.protocol import IR, RULE_TYPES, type_name
from uopc.relational.ir.uopc_ir import UOPC

_registry: dict[type, IR] = {UOPC.node_type: UOPC}
# the IRs that register themselves when their module is imported: IR name -> the module; and their node types by name
_modules: dict[str, str] = {"tinygrad": "uopc.relational.ir.tinygrad", "pytensor": "uopc.relational.ir.pytensor"}
_lazy: dict[str, str] = {"tinygrad.uop.ops.UOp": _modules["tinygrad"], "uopc.relational.ir.pytensor_nodes.PyTensorNode": _modules["pytensor"]}


def register(ir: IR) -> IR:
  """Make ``ir`` the IR of its ``node_type`` (a third IR calls this once, at import)."""
  _registry[ir.node_type] = ir
  return ir


def ir_of(node: Any) -> IR:
  """The IR of ``node``, found by its type; a TypeError for an object of no known IR."""
  t = type(node)
  if (ir := _registry.get(t)) is not None: return ir
  if (module := _lazy.get(type_name(t))) is not None:
    importlib.import_module(module)   # registers it
    if (ir := _registry.get(t)) is not None: return ir
  names = [type_name(UOPC.node_type), *_lazy]   # in a fixed order, whichever IRs are imported yet
  known = ", ".join(names + [n for n in map(type_name, _registry) if n not in names])
  given = type_name(t)
  article = "an" if given[0] in "aeioAEIO" else "a"
  raise TypeError(f"{article} {given} is not a node of any IR the explorer knows ({known})")


def ir_of_rules(pm: Any, what: str = "pm") -> tuple[IR, Any]:
  """``(IR, rule protocol)`` of a rule set without a program: an IR's rule protocol itself (it names its ``ir``), a rule
  set type of ``RULE_TYPES`` (its IR imported on demand), else uopc's (whose checks say what is wrong with ``pm``).

  >>> from uopc import symbolic
  >>> ir, rules = ir_of_rules(symbolic)
  >>> ir.name, rules is symbolic
  ('uopc', True)
  """
  if isinstance(ir := getattr(pm, "ir", None), IR): return ir, pm
  name = RULE_TYPES.get(type_name(type(pm)), "uopc")
  if name != "uopc":
    importlib.import_module(_modules[name])   # registers it
    for ir in _registry.values():
      if ir.name == name: return ir, ir.rules(pm, what, None)
  return UOPC, UOPC.rules(pm, what, None)


def rules_for(node: Any, pm: Any, what: str = "pm") -> Any:
  """``pm`` as the rule protocol of ``node``'s IR (uopc's ``PatternMatcher`` is its own); a one-line TypeError naming
  both types, with their modules, when they are of different IRs."""
  return ir_of(node).rules(pm, what, node)


__all__ = ["IR", "ir_of", "ir_of_rules", "register", "rules_for", "type_name", "UOPC"]
