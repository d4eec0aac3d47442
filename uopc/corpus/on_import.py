"""Run a function once a module is imported, without importing it: a capture hooks tinygrad or PyTensor only in a
process that uses it (importing either costs a second or more, and tinygrad's import reads its settings).

>>> import sys
>>> seen = []
>>> undo = when_imported("json.tool", lambda m: seen.append(m.__name__))
>>> import json.tool
>>> seen
['json.tool']
>>> undo()
"""
from __future__ import annotations

import importlib.abc
import sys
from typing import Any, Callable


class _Watch(importlib.abc.MetaPathFinder):
  """Finds nothing itself: asks the finders after it for ``name``'s spec and makes its loader call ``then`` after
  executing the module."""

  def __init__(self, name: str, then: Callable[[Any], Any]) -> None:
    self.name, self.then = name, then

  def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> Any:
    if fullname != self.name: return None
    for finder in sys.meta_path:
      if finder is self or not hasattr(finder, "find_spec"): continue
      if (spec := finder.find_spec(fullname, path, target)) is not None and spec.loader is not None:
        spec.loader = _Loader(spec.loader, self)
        return spec
    return None

  def loaded(self, module: Any) -> None:
    """The module has run: stop watching, and call ``then``."""
    self.remove()
    self.then(module)

  def remove(self) -> None:
    if self in sys.meta_path: sys.meta_path.remove(self)


class _Loader(importlib.abc.Loader):
  """The module's own loader, and ``watch.loaded`` once it has run the module."""
  def __init__(self, inner: Any, watch: _Watch) -> None:
    self.inner, self.watch = inner, watch

  def create_module(self, spec: Any) -> Any: return self.inner.create_module(spec)

  def exec_module(self, module: Any) -> None:
    self.inner.exec_module(module)
    self.watch.loaded(module)
  def __getattr__(self, name: str) -> Any: return getattr(self.inner, name)


def when_imported(name: str, then: Callable[[Any], Any]) -> Callable[[], None]:
  """Call ``then(module)`` once module ``name`` is imported (at once if it is already); the function that stops waiting."""
  if (module := sys.modules.get(name)) is not None:
    then(module)
    return lambda: None
  watch = _Watch(name, then)
  sys.meta_path.insert(0, watch)
  return watch.remove
