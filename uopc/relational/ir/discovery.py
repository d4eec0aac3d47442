"""The adapters of other IRs, found without importing their libraries: each subpackage of ``uopc.relational.adapters``
declares one ``Adapter`` in its ``__init__.py`` (plain data), and the module it names defines and registers the IR.

A third IR is one new subpackage there and no edit elsewhere: its node and rule-set types, the prefix of its named rule
sets on the command line (``NAME:attr``) and how to install its library are read from its ``Adapter``; the IR itself is
imported the first time one of its nodes or rule sets shows up.

>>> sorted(a.name for a in adapters())
['pytensor', 'tinygrad']
>>> rule_types()["tinygrad.uop.ops.PatternMatcher"]
'tinygrad'
"""
from __future__ import annotations

import functools
import importlib
import pkgutil
from dataclasses import dataclass

from uopc.relational.ir.protocol import type_name

ADAPTERS_PACKAGE = "uopc.relational.adapters"


@dataclass(frozen=True)
class Adapter:
  """What the explorer knows of an IR before importing it.

  ``module`` defines the IR and registers it (``uopc.relational.ir.register``) when imported. ``node_types`` and
  ``rule_types`` are type names (``module.qualname``) of its nodes and rule sets; ``host_modules`` the module prefixes
  of its library's own objects (a PyTensor variable, a tinygrad ``PatternMatcher``) that the IR takes as they are.
  ``rules_help`` says what ``NAME:attr`` names on the command line, ``program_help`` what object of the library a
  program given as code (``prog.py:root``) may be; ``install`` how to get the library.
  """
  name: str
  module: str
  node_types: tuple[str, ...]
  rule_types: tuple[str, ...]
  host_modules: tuple[str, ...]
  rules_help: str
  program_help: str
  install: str

  def owns(self, obj: object) -> bool:
    """True for an object of the adapter's library, or of a subclass of one of its classes (a rules file's own
    ``NodeRewriter``), told by the modules of its type's classes: nothing is imported."""
    items = obj if isinstance(obj, (list, tuple)) and obj else [obj]
    return all(any(c.__module__.startswith(self.host_modules) for c in type(o).__mro__) for o in items)


@functools.cache
def adapters() -> tuple[Adapter, ...]:
  """Every adapter of ``uopc.relational.adapters``, in name order (their ``__init__`` modules are plain data)."""
  package = importlib.import_module(ADAPTERS_PACKAGE)
  found = (importlib.import_module(f"{ADAPTERS_PACKAGE}.{m.name}") for m in pkgutil.iter_modules(package.__path__) if m.ispkg)
  return tuple(sorted((m.ADAPTER for m in found if isinstance(getattr(m, "ADAPTER", None), Adapter)), key=lambda a: a.name))


def adapter_named(name: str) -> Adapter | None:
  """The adapter of IR ``name``, or None."""
  return next((a for a in adapters() if a.name == name), None)


def adapter_owning(obj: object) -> Adapter | None:
  """The adapter whose library ``obj`` (or every item of a non-empty list of them) belongs to, or None."""
  return next((a for a in adapters() if a.owns(obj)), None)


@functools.cache
def rule_types() -> dict[str, str]:
  """Rule-set type name -> IR name, for every IR the explorer knows (so telling one from another imports none)."""
  return {"uopc.matcher.PatternMatcher": "uopc", **{t: a.name for a in adapters() for t in a.rule_types}}


def other_ir_rules(pm: object, ir_name: str) -> str | None:
  """The name of the IR ``pm`` is a rule set of, when that is another IR than ``ir_name``; else None."""
  other = rule_types().get(type_name(type(pm)))
  return other if other is not None and other != ir_name else None
