"""What a rule's function reads: its *footprint*, declared next to the rule and checked by the tests.

A rule's function is opaque to the explorer: a step anywhere below a node may change what
the node's rules make of it. A footprint says less is read, and the reduction
(``docs/reduction.md``, "Footprints") uses it:

- ``"pattern"``: the function reads only the nodes its pattern matched at constrained
  positions (any attribute), and of a node at an unconstrained position (``UPat.var``, an
  unnamed ``UPat()``, the sources of a pattern node without ``src``) only its ``dtype`` and
  ``shape``; it may build its result from such nodes. Replacing them by other nodes of their
  dtype and shape gives the result with the same replacement.
- ``"bounds"``: as ``"pattern"``, and it may also read the value bounds (``uopc.bounds``) of any
  node it gets: replacing an unconstrained node by one of the same bounds changes nothing else.
- ``"sources"``: as ``"pattern"``, but it also reads the head (op, arg) of a node at an
  unconstrained position, not below it (``fold``'s ``_fold`` reads whether its sources are constants).
- ``"opaque"``: anything (the default: a rule that declares nothing).

A rule set declares a default for its rules (``PatternMatcher(rules, reads="pattern")``); a
function declares its own with ``@reads(...)``, which wins, in any rule set it is used in:

>>> from uopc.matcher import PatternMatcher
>>> from uopc.upat import UPat
>>> x = UPat.var("x")
>>> @reads("opaque")
... def walk(x): return None
>>> pm = PatternMatcher([(x + 0, lambda x: x), (x * 1, walk)], reads="pattern")
>>> [r.footprint for r in pm.rules], PatternMatcher([(x + 0, lambda x: x)]).rules[0].footprint
(['pattern', 'opaque'], 'opaque')
"""
from __future__ import annotations

from typing import Callable, TypeVar

__all__ = ["FOOTPRINTS", "reads", "footprint_of"]

FOOTPRINTS = ("pattern", "bounds", "sources", "opaque")

F = TypeVar("F", bound=Callable)


def reads(kind: str) -> Callable[[F], F]:
  """Declare what a rule's function reads (one of ``FOOTPRINTS``); returns the function itself, so its identity is kept."""
  if kind not in FOOTPRINTS: raise ValueError(f"unknown footprint {kind!r}: one of {', '.join(FOOTPRINTS)}")

  def declare(fn: F) -> F:
    fn.footprint = kind  # type: ignore[attr-defined]
    return fn
  return declare


def footprint_of(fn: Callable, default: str = "opaque") -> str:
  """The footprint ``fn`` declares, else ``default``."""
  kind = getattr(fn, "footprint", None)
  return kind if kind in FOOTPRINTS else default
