"""The bottom of the explorer: the node and rule protocols (``protocol``), uopc's own IR (``uopc_ir``), the adapters of
other IRs found without importing them (``discovery``), and the registry that finds a node's or rule set's IR
(``registry``). It depends on the engine only; everything above reaches IRs through it (``docs/ir-protocol.md``).
"""
from uopc.relational.ir.protocol import IR, type_name
from uopc.relational.ir.registry import host_node, ir_named, ir_of, ir_of_rules, register, resolve_rules, rules_for
from uopc.relational.ir.uopc_ir import UOPC

__all__ = ["IR", "UOPC", "host_node", "ir_named", "ir_of", "ir_of_rules", "register", "resolve_rules", "rules_for", "type_name"]
