"""Rule sets by name, as the command line's ``--rules`` takes them.

>>> len(resolve_rules("symbolic+evaluate").rules)
44
>>> resolve_rules("uopc.symbolic:fold") is resolve_rules("fold")
True
"""
from __future__ import annotations

import importlib
import importlib.util
import os
import sys
import weakref
from types import ModuleType

from uopc.evaluate import evaluate
from uopc.matcher import PatternMatcher
from uopc.symbolic import fold, symbolic

NAMED: dict[str, PatternMatcher] = {"fold": fold, "symbolic": symbolic, "evaluate": evaluate}


class RuleSetError(ValueError):
  """A ``--rules`` value that names no rule set."""


def resolve_rules(spec: str) -> PatternMatcher:
  """``symbolic``, ``fold``, ``evaluate``, sums of them (``symbolic+evaluate``), ``module:attr`` or ``file.py:attr``."""
  if ":" in spec:
    module, _, attr = spec.rpartition(":")
    try: obj = getattr(_load_file(module) if module.endswith(".py") else importlib.import_module(module), attr)
    except Exception as e: raise RuleSetError(f"cannot load rule set {spec!r}: {type(e).__name__}: {e}") from None
    if not isinstance(obj, PatternMatcher): raise RuleSetError(f"{spec} is a {type(obj).__name__}, not a PatternMatcher")
    return obj
  parts = [p.strip() for p in spec.split("+")]
  if unknown := [p for p in parts if p not in NAMED]:
    raise RuleSetError(f"unknown rule set {unknown[0]!r}: expected one of {', '.join(NAMED)}, a sum like symbolic+evaluate, or module:attr")
  if len(parts) == 1: return NAMED[parts[0]]
  if (pm := _sums.get(spec)) is None: pm = _sums[spec] = PatternMatcher([r for p in parts for r in NAMED[p].rules])
  return pm


# A sum is shared while something uses it (one matcher, one set of compiled rules), and
# dropped with its last user: a long-lived process may resolve any number of them.
_sums: weakref.WeakValueDictionary[str, PatternMatcher] = weakref.WeakValueDictionary()


def _load_file(path: str) -> ModuleType:
  """The module of a rules file, run once under a name of its own."""
  if not os.path.isfile(path): raise FileNotFoundError(f"no file {path}")
  name = "uopc_rules_" + os.path.splitext(os.path.basename(path))[0]
  spec = importlib.util.spec_from_file_location(name, path)
  module = importlib.util.module_from_spec(spec)
  sys.modules[name] = module   # the rules' module is importable by name while it runs (dataclasses, pickling)
  spec.loader.exec_module(module)
  return module
