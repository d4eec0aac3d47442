"""A package's public names loaded on first use (PEP 562), so importing one of its parts loads only that part.

>>> import types, sys
>>> pkg = sys.modules["_lazy_demo"] = types.ModuleType("_lazy_demo")
>>> pkg.__getattr__, pkg.__dir__ = lazy_names("_lazy_demo", {"dedent": "textwrap"})
>>> pkg.dedent("  a"), "dedent" in vars(pkg), "dedent" in dir(pkg)
('a', True, True)
"""
from __future__ import annotations

import importlib
import sys
from typing import Any, Callable, Mapping


def lazy_names(package: str, where: Mapping[str, str]) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
  """``package``'s ``__getattr__`` and ``__dir__``: each name of ``where`` (name -> the module that defines it) imported
  from its module the first time it is asked for, then kept in the package like any attribute."""
  namespace = sys.modules[package].__dict__

  def __getattr__(name: str) -> Any:
    if (module := where.get(name)) is None: raise AttributeError(f"module {package!r} has no attribute {name!r}")
    value = namespace[name] = getattr(importlib.import_module(module), name)
    return value

  def __dir__() -> list[str]: return sorted(set(namespace) | set(where))
  return __getattr__, __dir__
