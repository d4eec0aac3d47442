"""UPat: patterns over UOps, the left-hand sides of rewrite rules.

A pattern constrains a node's op, dtype, arg and sources, and may bind a name.
Sources given as a tuple match in order; as a list, in any order (for commutative
ops). ``match`` returns every binding:

>>> from uopc.uop import UOp
>>> x = UOp.param(0)
>>> pat = UPat.var("x") + UPat.cvar("c")          # list sources: either order
>>> [sorted(b) for b in pat.match(3 + x, {})]
[['c', 'x']]
>>> pat.match(x * 3, {})
[]
"""
from __future__ import annotations

import itertools
import keyword
from typing import Any

from uopc.dtype import DType, dtypes
from uopc.ops import ALU, COMMUTATIVE, Ops
from uopc.term import tree_text
from uopc.uop import UOp

Bindings = dict[str, UOp]


class UPatError(ValueError):
  """A pattern that cannot be built: a name that is not a Python identifier."""


def _check_name(name: Any) -> None:
  # a name is a keyword argument of the rule's function, and the compiled matcher (uopc.upat_compile) writes it as one
  if type(name) is not str or not name.isidentifier() or keyword.iskeyword(name):
    raise UPatError(f"a UPat name must be a Python identifier (its rule function's parameter), got {name!r}")


def _one_or_many(value: Any, kind: type, what: str, namespace: str, members: Any) -> frozenset | None:
  """``value`` (None, one ``kind``, or a tuple, list or set of them) as a frozenset. Anything else is a TypeError naming what to
  write: a string is iterable, so ``UPat("ADD")`` would otherwise match the op set {'A', 'D'}, which no node has."""
  if value is None: return None
  if isinstance(value, kind): return frozenset([value])
  if isinstance(value, (tuple, list, set, frozenset)) and all(isinstance(v, kind) for v in value): return frozenset(value)
  wrong = value if not isinstance(value, (tuple, list, set, frozenset)) else next(v for v in value if not isinstance(v, kind))
  named = isinstance(wrong, str) and isinstance(getattr(members, wrong, None), kind)   # "ADD": Ops has a member of that name
  hint = f": write {namespace}.{wrong} (from uopc import {namespace})" if named else ""
  raise TypeError(f"a UPat's {what} must be {namespace}.<name> or a tuple or set of them, not {wrong!r}{hint}")


class UPat:
  """``UPat(op, src, name, arg, dtype, allow_any_len)``; every constraint is optional."""
  __slots__ = ("op", "src", "name", "arg", "dtype", "allow_any_len", "_orders", "_compiled")

  def __init__(self, op: Ops | tuple[Ops, ...] | set[Ops] | frozenset[Ops] | None = None,
               src: tuple[UPat, ...] | list[UPat] | None = None, name: str | None = None, arg: Any = None,
               dtype: DType | tuple[DType, ...] | None = None, allow_any_len: bool = False):
    self.op: frozenset[Ops] | None = _one_or_many(op, Ops, "op", "Ops", Ops)
    self.dtype: frozenset[DType] | None = _one_or_many(dtype, DType, "dtype", "dtypes", dtypes)
    if name is not None: _check_name(name)
    self.src, self.name, self.arg, self.allow_any_len = src, name, arg, allow_any_len
    # the source orders to try, computed once: every permutation of a list, the tuple itself
    self._orders: tuple[tuple[UPat, ...], ...] = () if src is None else \
      tuple(itertools.permutations(src)) if isinstance(src, list) else (tuple(src),)
    self._compiled: dict | None = None   # generated matchers, made on first use (uopc.upat_compile)

  # generated matchers are not picklable, and are remade on first use: leave them out of copies
  def __getstate__(self) -> tuple[None, dict[str, Any]]:
    return None, {k: getattr(self, k) for k in self.__slots__ if k != "_compiled"}
  def __setstate__(self, state: tuple[None, dict[str, Any]]) -> None:
    for k, v in state[1].items(): setattr(self, k, v)
    self._compiled = None

  @staticmethod
  def var(name: str | None = None, dtype: DType | tuple[DType, ...] | None = None) -> UPat:
    """Any node, bound to ``name``."""
    return UPat(name=name, dtype=dtype)

  @staticmethod
  def cvar(name: str | None = None, dtype: DType | tuple[DType, ...] | None = None) -> UPat:
    """Any CONST, bound to ``name``."""
    return UPat(Ops.CONST, name=name, dtype=dtype)

  def __repr__(self) -> str: return f"UPat({self.op and set(self.op)}, name={self.name})"

  def match(self, u: UOp, store: Bindings) -> list[Bindings]:
    """All ways this pattern matches ``u`` extending ``store``, each a dict of bindings."""
    if self.op is not None and u.op not in self.op: return []
    if self.dtype is not None and u.dtype not in self.dtype: return []
    if self.arg is not None and u.arg != self.arg: return []
    if self.name is not None:
      bound = store.get(self.name)
      if bound is not None:
        if bound is not u: return []   # the same name must bind the same node
      else: store = {**store, self.name: u}
    if self.src is None: return [store]
    out: list[Bindings] = []
    src = u.src
    n = len(src)
    for pats in self._orders:
      if len(pats) != n and not (self.allow_any_len and len(pats) <= n): continue
      stores = [store]
      for p, s in zip(pats, src):
        # a join over sources: each binding so far, extended by this source's matches
        stores = p.match(s, stores[0]) if len(stores) == 1 else [m for st in stores for m in p.match(s, st)]
        if not stores: break
      out.extend(stores)
    return out

  # ---- sugar, so rules read like the math: UPat.var("x") + UPat.cvar("c")
  def _bin(self, op: Ops, other: Any, swap: bool = False) -> UPat:
    other = other if isinstance(other, UPat) else UPat(Ops.CONST, arg=other)
    src = [other, self] if swap else [self, other]
    return UPat(op, src if op in COMMUTATIVE else tuple(src))
  def __add__(self, o: Any) -> UPat: return self._bin(Ops.ADD, o)
  def __radd__(self, o: Any) -> UPat: return self._bin(Ops.ADD, o, swap=True)
  def __mul__(self, o: Any) -> UPat: return self._bin(Ops.MUL, o)
  def __rmul__(self, o: Any) -> UPat: return self._bin(Ops.MUL, o, swap=True)
  def __floordiv__(self, o: Any) -> UPat: return self._bin(Ops.FLOORDIV, o)
  def __mod__(self, o: Any) -> UPat: return self._bin(Ops.FLOORMOD, o)
  def __lt__(self, o: Any) -> UPat: return self._bin(Ops.CMPLT, o)
  def ne(self, o: Any) -> UPat: return self._bin(Ops.CMPNE, o)
  def max(self, o: Any) -> UPat: return self._bin(Ops.MAX, o)

  # ---- reading patterns back
  def pretty(self) -> str:
    """The pattern as math-like text: ``(x:i32 + c1) + c2``, ``where(_, x, x)`` (a renderer for the term walk,
    ``uopc.term.tree_text``)."""
    text = tree_text(self, _pretty_parts)
    return text[1:-1] if text.startswith("(") and text.endswith(")") and _balanced(text[1:-1]) else text


def _pretty_parts(p: UPat) -> str | list[UPat | str]:
  """``pretty``'s text of a leaf pattern, or the pieces of a pattern with sources: infix for a binary op it names
  alone, else ``name=op:dtype{arg=...}(sources)`` (``[...]`` for a list: any order; ``, ...`` for more)."""
  dt = "" if p.dtype is None else ":" + "|".join(sorted(d.name for d in p.dtype))
  if p.op == _CONST_SET and p.src is None: return repr(p.arg) + dt if p.arg is not None else f"const({p.name or '_'}){dt}"
  if p.op is None and p.src is None: return f"{p.name or '_'}{dt}"
  ops = "alu" if p.op == ALU else "any" if p.op is None else \
    next(iter(p.op)).name.lower() if len(p.op) == 1 else "{" + ",".join(sorted(o.name.lower() for o in p.op)) + "}"
  src = list(p.src or ())
  if p.op is not None and len(p.op) == 1 and next(iter(p.op)) in _INFIX and len(src) == 2 and p.name is None and p.arg is None:
    return ["(", src[0], f" {_INFIX[next(iter(p.op))]} ", src[1], f"){dt}"]
  head = f"{p.name}=" if p.name else ""
  arg = "" if p.arg is None else f"{{arg={p.arg!r}}}"
  if p.src is None: return f"{head}{ops}{dt}{arg}"
  bracket = "[]" if isinstance(p.src, list) else "()"
  pieces: list[UPat | str] = [f"{head}{ops}{dt}{arg}{bracket[0]}"]
  for i, q in enumerate(src): pieces += [", ", q] if i else [q]
  return pieces + [(", ..." if p.allow_any_len else "") + bracket[1]]


_CONST_SET = frozenset([Ops.CONST])
_INFIX = {Ops.ADD: "+", Ops.MUL: "*", Ops.FLOORDIV: "//", Ops.FLOORMOD: "%", Ops.CMPLT: "<"}


def _balanced(s: str) -> bool:
  depth = 0
  for ch in s:
    depth += ch == "("
    depth -= ch == ")"
    if depth < 0: return False
  return depth == 0
