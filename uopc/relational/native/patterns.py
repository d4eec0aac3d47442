"""Rules' patterns as tables the native core matches on its own nodes (``_space_patterns.c``: ``Space.patterns``).

The core calls Python for a node only if some rule's pattern may match it. With only the
one-level signature check (``PatternMatcher.may_rewrite``: the node's op and its sources'
ops), a pattern two levels deep sends every node of its root op and first source's op to
Python: on a chain of ``+`` under ``(x + 0) + y``, every node of every state. So each
pattern the core can express is compiled here into a table of pattern nodes, one per
position in the pattern's tree (a ``UPat`` used twice is two entries), which the core
matches whole, with backtracking over commutative orders and repeated names:

- ``ops``: the op codes the node may have (None: any op);
- ``check``: an index into ``Compiled.checks``, the node's dtype and arg constraint (-1: none); the core
  asks Python once per check and label (``Compiled.check``), since dtypes and args live in Python;
- ``slot``: where its name is bound (-1: no name); a name seen again must bind the same node;
- ``n_src``: how many sources the pattern names (-1: the sources are not constrained), and ``any_len``: at least that many;
- ``orders``: the orders to try the sources in (``UPat._orders``: every permutation of a list), as table indices.

A rule the core cannot express stays on the signature check and Python, by itself
(``Compiled.python``): a ``UPat`` subclass (it may match differently), more than
``MAX_NODES`` nodes, more than ``MAX_ORDERS`` source orders in all, sources that are
neither a tuple nor a list. A ``PatternMatcher`` subclass that changes how rules are
found (``every_candidate``, ``may_rewrite``, ``match_fn``) keeps them all in Python.

The core's answer is "maybe" where a check is unsure (a dtype or arg comparison that
raises: the Python matcher makes that a stuck step), never "no" where ``UPat.match``
finds a binding.

>>> from uopc import UPat, PatternMatcher
>>> x, y = UPat.var("x"), UPat.var("y")
>>> c = compile_rules(PatternMatcher([((x + 0) + y, lambda x, y: (x + y) + 0), (x + x, lambda x: x * 2)]))
>>> len(c.tables), c.python
(2, ())
>>> [n[2:5] for n in c.tables[1]]   # x + x: the root, then x twice, bound to one slot
[(-1, 2, 0), (0, -1, 0), (0, -1, 0)]
>>> c.tables[1][0][5]   # a list: both orders
((1, 2), (2, 1))
"""
from __future__ import annotations

import itertools
import math
import weakref
from typing import Any, Callable, NamedTuple

from uopc.dtype import DType
from uopc.matcher import PatternMatcher, may_match
from uopc.ops import Ops
from uopc.upat import UPat

CODES: dict[Ops, int] = {op: i for i, op in enumerate(Ops)}   # an op as the core stores it (one byte)
MAX_NODES = 64     # pattern nodes per rule: the core's matcher recurses once per node matched, so this bounds its depth
MAX_ORDERS = 4096  # source orders tried per match, all lists' permutations multiplied: past it, Python's matcher

# one pattern node: (ops, check, slot, n_src, any_len, orders); see the module's doc
PatNode = tuple[tuple[int, ...] | None, int, int, int, int, tuple[tuple[int, ...], ...]]


class Check(NamedTuple):
  """A pattern node's dtype and arg constraint, as ``UPat.match`` tests them (None: no constraint)."""
  dtype: frozenset[DType] | None
  arg: Any


class Compiled(NamedTuple):
  """A matcher's rules as the core takes them: ``tables`` (one per compiled rule, in rule order, with its index in
  ``rules``), the ``checks`` they name, ``python``: the indices of the rules left to the signature check, and ``names``:
  per table, its pattern's names in the order of their slots."""
  tables: tuple[tuple[PatNode, ...], ...]
  rules: tuple[int, ...]
  checks: tuple[Check, ...]
  python: tuple[int, ...]
  names: tuple[tuple[str, ...], ...] = ()

  def check(self, c: int, dtype: DType, arg: Any) -> int:
    """1 if a node of this dtype and arg may pass check ``c``, 0 if it cannot (what the core asks, once per label).

    A comparison that raises is a 2 (may pass): the Python matcher then raises there too, and makes it a stuck step, so
    the core leaves such a node's redexes to Python (``_space_templates.c``).

    >>> from uopc import dtypes
    >>> c = Compiled((), (), (Check(None, 0), Check(frozenset([dtypes.bool]), None)), ())
    >>> c.check(0, dtypes.i32, 0), c.check(0, dtypes.i32, 1), c.check(1, dtypes.i32, 0)
    (1, 0, 0)
    """
    dtypes, want = self.checks[c]
    try:
      if dtypes is not None and dtype not in dtypes: return 0
      if want is not None and arg != want: return 0
    except Exception: return 2   # BoundHit and interrupts are BaseExceptions: they go on up
    return 1


def _finds_rules_its_own_way(pm: PatternMatcher) -> bool:
  """A subclass that changes how a node's rules are found or matched: the signature check and Python decide."""
  cls = type(pm)
  return any(getattr(cls, name) is not getattr(PatternMatcher, name) for name in ("every_candidate", "may_rewrite", "match_fn"))


_kept: weakref.WeakKeyDictionary[PatternMatcher, tuple[tuple[int, ...], Compiled]] = weakref.WeakKeyDictionary()


def compile_rules(pm: PatternMatcher, codes: dict[Ops, int] | None = None) -> Compiled:
  """The tables of ``pm``'s rules that the core can match, and the indices of the others (see the module's doc).

  Kept per matcher while its rules are the same objects (a search of a few states would spend more compiling
  ``symbolic``'s 38 rules than exploring):

  >>> from uopc import symbolic
  >>> compile_rules(symbolic) is compile_rules(symbolic)
  True
  """
  codes = codes if codes is not None else CODES
  rules = tuple(map(id, pm.rules))
  if (kept := _kept.get(pm)) is not None and kept[0] == rules and codes is CODES: return kept[1]
  compiled = _compile_rules(pm, codes)
  if codes is CODES: _kept[pm] = (rules, compiled)
  return compiled


def _compile_rules(pm: PatternMatcher, codes: dict[Ops, int]) -> Compiled:
  if _finds_rules_its_own_way(pm): return Compiled((), (), (), tuple(range(len(pm.rules))))
  tables: list[tuple[PatNode, ...]] = []
  compiled: list[int] = []
  python: list[int] = []
  checks: list[Check] = []
  names: list[tuple[str, ...]] = []
  for i, rule in enumerate(pm.rules):
    slots: dict[str, int] = {}
    table = compile_pattern(rule[0], codes, checks, slots)
    if table is None: python.append(i)
    else: tables.append(table); compiled.append(i); names.append(tuple(slots))
  return Compiled(tuple(tables), tuple(compiled), tuple(checks), tuple(python), tuple(names))


def compile_pattern(pat: UPat, codes: dict[Ops, int], checks: list[Check], slots: dict[str, int] | None = None) -> tuple[PatNode, ...] | None:
  """One pattern's table (its root first), or None if the core cannot express it; new checks are appended to ``checks``,
  and its names to ``slots`` (name -> slot, in slot order).

  >>> from uopc import UPat
  >>> from uopc.ops import Ops
  >>> checks = []
  >>> compile_pattern(UPat.var("x") + 0, {Ops.ADD: 1, Ops.CONST: 2}, checks)   # + takes its sources in either order
  (((1,), -1, -1, 2, 0, ((1, 2), (2, 1))), (None, -1, 0, -1, 0, ()), ((2,), 0, -1, -1, 0, ()))
  >>> checks
  [Check(dtype=None, arg=0)]
  """
  # the tree's positions, breadth first (iterative: a pattern may be deep, though MAX_NODES stops it early)
  nodes: list[UPat] = [pat]
  kids: list[list[int]] = []   # per position: its sources' positions
  k = 0
  while k < len(nodes):
    p = nodes[k]
    if type(p) is not UPat or not (p.src is None or type(p.src) in (tuple, list)): return None
    kids.append([])
    if p.src is not None:
      for s in p.src:
        kids[k].append(len(nodes))
        nodes.append(s)
    if len(nodes) > MAX_NODES: return None
    k += 1
  if math.prod(len(p._orders) for p in nodes if p.src is not None) > MAX_ORDERS: return None
  slots = {} if slots is None else slots
  table: list[PatNode] = []
  for k, p in enumerate(nodes):
    ops = None if p.op is None else tuple(sorted(codes[op] for op in p.op))
    check = -1
    if p.dtype is not None or p.arg is not None:
      check = len(checks)
      checks.append(Check(p.dtype, p.arg))
    slot = -1 if p.name is None else slots.setdefault(p.name, len(slots))
    orders: tuple[tuple[int, ...], ...] = ()
    if p.src is not None:   # UPat._orders by position: every permutation of a list's sources, a tuple's as given
      orders = tuple(itertools.permutations(kids[k])) if type(p.src) is list else (tuple(kids[k]),)
    table.append((ops, check, slot, -1 if p.src is None else len(p.src), int(p.allow_any_len), orders))
  return tuple(table)


def python_may(pm: PatternMatcher, rules: tuple[int, ...]) -> Callable[[Ops, tuple[Ops, ...] | None, int], bool]:
  """``pm.may_rewrite`` over only the rules left to Python (all of them, for a subclass that finds rules its own way).

  >>> from uopc import UPat, PatternMatcher
  >>> x = UPat.var("x")
  >>> pm = PatternMatcher([(x + 0, lambda x: x)])
  >>> python_may(pm, ())(Ops.ADD, (Ops.PARAM, Ops.CONST), 2), python_may(pm, (0,))(Ops.ADD, (Ops.PARAM, Ops.CONST), 2)
  (False, True)
  """
  if len(rules) == len(pm.rules): return pm.may_rewrite
  pats = [pm.rules[i][0] for i in rules]
  return lambda op, src_ops, n: any((p.op is None or op in p.op) and may_match(p, src_ops, n) for p in pats)
