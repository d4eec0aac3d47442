"""The explorer's native core: the Stepper's step maps and the search (breadth or depth first) in C.

``_space.c`` (with the units ``_space.h`` names) keeps nodes in flat arrays of its own (a label and source ids per node, one
hash-consing table), so a state costs a few machine words per rebuilt node instead of a
Python object, a table entry and a dict. Python is called only to find a node's own redexes,
and only for nodes some rule may match. ``Exploration`` uses it by itself where it applies
(uopc's IR, no CALL: either order, graph or tree semantics, reduced searches under graph semantics) and falls back to the pure-Python
Stepper, with the same results, wherever it does not (``docs/native.md``).

>>> from uopc import UOp, UPat, PatternMatcher
>>> from uopc.relational import explore
>>> x = UPat.var("x")
>>> ex = explore((UOp.param(0) + 0) * 1, PatternMatcher([(x + 0, lambda x: x), (x * 1, lambda x: x)]))
>>> [s.term() for s in ex], ex.native if available() else True
(['mul(add(p0, 0), 1)', 'add(p0, 0)', 'mul(p0, 1)', 'p0'], True)
"""
from __future__ import annotations


from uopc import native_switch

_missing: str | None = None
try:
  from uopc.relational.native import _space
  Space: type[_space.Space] | None = _space.Space   # its interface: _space.pyi
except ImportError as e:   # built by `pip install` with the machine's C compiler; without one, the Python core runs
  Space = None
  _missing = f"the C extension is not built ({e}): reinstall with a C compiler (pip install -e .)"


def available() -> bool:
  """True if the C extension is built (``pip install`` compiles it where there is a C compiler)."""
  return Space is not None


def missing() -> str | None:
  """Why the native core is not there, or None if it is."""
  return _missing


def enabled() -> bool:
  """Whether explorations use the native core where it applies: built, and not turned off (``uopc.native_switch``).

  >>> import os
  >>> from unittest import mock
  >>> with mock.patch.dict(os.environ, {"UOPC_NATIVE": "0"}): enabled()
  False
  """
  return available() and native_switch.enabled()
