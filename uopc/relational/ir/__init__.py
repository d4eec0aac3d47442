"""The bottom of the explorer: the node and rule protocols (``protocol``), uopc's own IR (``uopc_ir``), the adapters of
other IRs found without importing them (``discovery``), and the registry that finds a node's or rule set's IR
(``registry``). It depends on the engine only; everything above reaches IRs through it (``docs/ir-protocol.md``).

The names load on first use (``uopc.lazy``): the command line's help reads the adapters' declarations
(``discovery``) without loading the registry and uopc's IR.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from uopc.lazy import lazy_names

if TYPE_CHECKING:   # the same names, for the type checker
  from uopc.relational.ir.protocol import IR, type_name
  from uopc.relational.ir.registry import host_node, ir_named, ir_of, ir_of_rules, register, resolve_rules, rules_for
  from uopc.relational.ir.uopc_ir import UOPC

_WHERE = {"IR": "uopc.relational.ir.protocol", "type_name": "uopc.relational.ir.protocol", "UOPC": "uopc.relational.ir.uopc_ir",
          **{name: "uopc.relational.ir.registry" for name in ("host_node", "ir_named", "ir_of", "ir_of_rules", "register", "resolve_rules",
                                                               "rules_for")}}
__getattr__, __dir__ = lazy_names(__name__, _WHERE)

__all__ = ["IR", "UOPC", "host_node", "ir_named", "ir_of", "ir_of_rules", "register", "resolve_rules", "rules_for", "type_name"]
