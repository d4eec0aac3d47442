"""Rule sets by name, as the command line's ``--rules`` takes them.

>>> len(resolve_rules("symbolic+evaluate").rules)
44
>>> resolve_rules("uopc.symbolic:fold") is resolve_rules("fold")
True
"""
from __future__ import annotations

import importlib

from uopc.evaluate import evaluate
from uopc.matcher import PatternMatcher
from uopc.symbolic import fold, symbolic

NAMED: dict[str, PatternMatcher] = {"fold": fold, "symbolic": symbolic, "evaluate": evaluate}


class RuleSetError(ValueError):
  """A ``--rules`` value that names no rule set."""


def resolve_rules(spec: str) -> PatternMatcher:
  """``symbolic``, ``fold``, ``evaluate``, sums of them (``symbolic+evaluate``), or ``module:attr``."""
  if ":" in spec:
    module, _, attr = spec.partition(":")
    try: obj = getattr(importlib.import_module(module), attr)
    except (ImportError, AttributeError) as e: raise RuleSetError(f"cannot load rule set {spec!r}: {e}") from None
    if not isinstance(obj, PatternMatcher): raise RuleSetError(f"{spec} is a {type(obj).__name__}, not a PatternMatcher")
    return obj
  parts = [p.strip() for p in spec.split("+")]
  if unknown := [p for p in parts if p not in NAMED]:
    raise RuleSetError(f"unknown rule set {unknown[0]!r}: expected one of {', '.join(NAMED)}, a sum like symbolic+evaluate, or module:attr")
  if len(parts) == 1: return NAMED[parts[0]]
  return _sums.setdefault(spec, PatternMatcher([r for p in parts for r in NAMED[p].rules]))


_sums: dict[str, PatternMatcher] = {}
