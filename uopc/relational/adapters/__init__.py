"""The IRs beyond uopc's own, one subpackage each: tinygrad's and PyTensor's.

Each subpackage's ``__init__.py`` declares its ``Adapter`` (``uopc.relational.ir.discovery``) and imports nothing of
its library; its ``ir`` module implements the node and rule protocols (``uopc.relational.ir.protocol``) and registers
the IR. The adapters sit above the explorer (``space``, ``logic``, ``analyses``), which reaches them only through the
registry (``docs/ir-protocol.md``: what a third IR provides).
"""
