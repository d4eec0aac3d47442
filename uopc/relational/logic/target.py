"""Search targets: a term with holes, or a concrete graph, as a kanren pattern and a match test (uopc's nodes), or as
the term text matched piece by piece (``PartsTarget``: another IR's); ``target_for`` picks by the program's IR.

A ``Target`` holds the etuple pattern that ``term_pattern`` makes of the one-line
term form (``?x`` is the logic variable ``var("x")``, ``_`` a fresh one), or a plain
node for a concrete target. Matching a graph *is* the kanren goal ``eq(g, pattern)``
(``matcho``): the search and a kanren query answer the same question with the same
unification. A cheap structural pre-check, derived from the same pattern, skips the
unification on graphs it cannot match (a necessary condition only: unification has
the last word).

>>> from uopc import UOp
>>> t = Target.parse("add(mul(p0, 3), ?c)")
>>> t.holes
('c',)
>>> {k: show(v) for k, v in t.match(UOp.param(0) * 3 + 11).items()}
{'c': '11'}
>>> t.match(UOp.param(0) * 4 + 11) is None
True
"""
from __future__ import annotations

from typing import Any, Callable, Mapping, NamedTuple

from etuples.core import ExpressionTuple
from kanren import eq
from kanren.core import GoalType
from unification import isvar, reify, var
from unification.variable import Var

from uopc.dtype import same_value
from uopc.relational.logic.bridge import Head, UExpr, show_pattern, term_pattern
from uopc.term import show
from uopc.relational.ir import UOPC, ir_of, type_name
from uopc.termparse import Term, parse_shape, parse_term
from uopc.uop import UOp
from uopc.lengths import LENGTHS

Goal = GoalType   # kanren's: a state (substitution, or False for none) to a stream of states

_NOT_SET = ExpressionTuple.null


class Target:
  """What a search looks for: ``pattern`` (an etuple pattern or a node) and its hole names.

  Build one with ``Target.parse(text)`` (one-line term form with holes), ``Target.graph(u)``
  (exactly this graph), or ``Target.of(x)`` for any of: a ``Target``, a string, a parsed
  ``Term``, a node, or an etuple pattern of your own (its named variables are the holes).
  """
  __slots__ = ("text", "pattern", "holes", "_vars", "_check", "_from")

  def __init__(self, pattern: Any, holes: tuple[str, ...], text: str) -> None:
    self.pattern, self.holes, self.text = pattern, holes, text
    self._from: tuple[str, Any] | None = None   # how to make it again: ("parse", text) or ("graph", node)
    self._vars = {name: var(name) for name in holes}
    self._check = _prefilter(pattern)

  @staticmethod
  def parse(text: str, filename: str = "<target>") -> Target:
    """A target from the one-line term form; bad syntax raises ``UIRError`` (``<target>:1:COL: ...``).

    >>> Target.parse("add(?x, ?x)").text
    'add(?x, ?x)'
    """
    term = parse_term(text, filename)   # errors name the column in ``text``
    t = Target(term_pattern(text), term.holes, str(term))   # text parses: the same term
    t._from = ("parse", text)
    return t

  @staticmethod
  def graph(u: UOp) -> Target:
    """Exactly the graph ``u`` (hash consing: matching is identity)."""
    t = Target(u, (), show(u, LENGTHS.line))
    t._from = ("graph", u)
    return t

  @staticmethod
  def of(x: Any) -> Target:
    """Whatever names a target, as a ``Target``."""
    if isinstance(x, Target): return x
    if isinstance(x, str): return Target.parse(x)
    if isinstance(x, Term): return Target.parse(str(x))
    if type(x) is UOp: return Target.graph(x)
    if isinstance(x, ExpressionTuple) or isvar(x):
      names = tuple(dict.fromkeys(v.token for v in _vars_in(x) if isinstance(v.token, str) and not v.token.startswith("_")))
      return Target(x, names, show_pattern(x, LENGTHS.line))
    raise TypeError(f"a target is a term string, a parsed Term, a node or an etuple pattern, got {type(x).__name__}")

  def var(self, name: str) -> Var:
    """The logic variable of hole ``name`` (what ``?name`` became in the pattern)."""
    return self._vars[name]

  def could_match(self, g: UOp) -> bool:
    """A cheap necessary condition for ``match``: False means ``g`` certainly does not match."""
    return self._check(g)

  def bindings(self, S: Mapping) -> dict[str, UOp]:
    """The holes' values in a substitution where the pattern was unified."""
    return {name: reify(v, S) for name, v in self._vars.items()}

  def match(self, g: UOp) -> dict[str, UOp] | None:
    """The hole bindings if ``g`` matches (by the goal ``eq(g, pattern)``), else None."""
    if not self._check(g): return None
    S = next(iter(eq(g, self.pattern)({})), None)
    return None if S is None or S is False else self.bindings(S)

  def __repr__(self) -> str: return f"Target({self.text!r})"

  def __reduce__(self) -> tuple[Any, ...]:
    # made again where it is unpickled (a cluster's worker), not copied: a pattern's etuples and the pre-check compare
    # with their modules' sentinels by identity, which a copy does not keep
    if self._from is not None: return (_remade, self._from)
    return (Target, (self.pattern, self.holes, self.text))


def _remade(kind: str, x: Any) -> Target:
  """An unpickled ``Target``: parsed again, or the graph's (``Target.__reduce__``)."""
  return Target.parse(x) if kind == "parse" else Target.graph(x)


def target_pattern(target: Any) -> Any:
  """The kanren pattern of a target (see ``Target.of``): an etuple with logic variables, or a node.

  >>> from unification import var, unify
  >>> from uopc import UOp
  >>> unify(target_pattern("add(?x, 11)"), UOp.param(0) + 11, {})[var("x")] is UOp.param(0)
  True
  """
  return Target.of(target).pattern


def matcho(g: Any, target: Any) -> Goal:
  """A kanren goal: the graph ``g`` matches ``target`` (``eq(g, pattern)``; holes become ``var(name)``).

  >>> from kanren import run, var
  >>> from uopc import UOp
  >>> run(0, var("c"), matcho(UOp.param(0) * 3 + 11, "add(mul(p0, 3), ?c)"))[0].arg
  11
  """
  return eq(g, target_pattern(target))


# ---- the pre-check

_ANY = object()   # a compiled arg check that accepts anything


def _compile_arg(a: Any) -> Any:
  """A head's arg as a check: ``_ANY``, ``("tuple", n, ((i, value), ...))`` or ``("value", a)``.

  A tuple arg unifies element by element (ground elements by ``==``); only its length
  and its ground, non-tuple elements are checked here.
  """
  if isvar(a): return _ANY
  if isinstance(a, tuple):
    return ("tuple", len(a), tuple((i, x) for i, x in enumerate(a) if not isvar(x) and not isinstance(x, tuple)))
  return ("value", a)


def _arg_ok(check: Any, arg: Any) -> bool:
  if check is _ANY: return True
  if check[0] == "value": return not isinstance(arg, tuple) and same_value(check[1], arg)
  if not isinstance(arg, tuple) or len(arg) != check[1]: return False
  return all(not isinstance(arg[i], tuple) and arg[i] == x for i, x in check[2])


class _Op(NamedTuple):
  """A compiled open etuple: what a node must have for the pattern to have a chance."""
  op: Any          # None: any
  dtype: Any       # None: any
  arg: Any         # see _compile_arg
  src: tuple       # compiled sources


def _compile(pattern: Any) -> Any:
  """The pattern as nested ``_Op``s, nodes (identity), variables, and None (anything).

  Built bottom-up without recursion; decisions that need ``isvar`` are made here, once.
  """
  memo: dict[int, Any] = {}
  stack: list[tuple[Any, bool]] = [(pattern, False)]
  while stack:
    p, ready = stack.pop()
    if id(p) in memo: continue
    if type(p) is UExpr and p._evaled_obj is _NOT_SET and type(p._tuple[0]) is Head:
      if not ready:
        stack.append((p, True))
        stack.extend((c, False) for c in p._tuple[1:])
        continue
      h = p._tuple[0]
      memo[id(p)] = _Op(None if isvar(h.op) else h.op, None if isvar(h.dtype) else h.dtype, _compile_arg(h.arg),
                        tuple(memo[id(c)] for c in p._tuple[1:]))
    elif type(p) is UExpr and p._evaled_obj is not _NOT_SET: memo[id(p)] = p._evaled_obj
    elif type(p) is UOp: memo[id(p)] = p
    elif isvar(p): memo[id(p)] = p
    else: memo[id(p)] = None   # a part this check does not understand: anything
  return memo[id(pattern)]


def _prefilter(pattern: Any) -> Callable[[UOp], bool]:
  """A fast test that rejects graphs the pattern cannot unify with (never one it can).

  It walks the compiled pattern against the graph (never deeper than the pattern,
  without recursion): ground parts must be the same nodes, heads must agree on every
  ground field, arities must agree, and a variable met twice must meet one node twice.
  Parts it does not understand (plain etuples of other heads) it leaves to unification.
  """
  root = _compile(pattern)
  if root is None: return lambda g: True
  if type(root) is UOp: return lambda g: g is root

  def check(g: UOp) -> bool:
    seen: dict[int, UOp] = {}   # by id: variables are interned, and Var.__hash__ is slow
    stack: list[tuple[Any, UOp]] = [(root, g)]
    while stack:
      p, u = stack.pop()
      tp = type(p)
      if tp is _Op:
        if p.op is not None and p.op is not u.op: return False
        src = u.src
        if len(p.src) != len(src): return False
        if p.dtype is not None and p.dtype != u.dtype: return False
        a = p.arg
        if a is not _ANY and not (a[0] == "value" and a[1] is u.arg) and not _arg_ok(a, u.arg): return False
        for c, s in zip(p.src, src):
          if c is None: continue
          if type(c) is UOp:
            if c is not s: return False
          else: stack.append((c, s))
      elif tp is UOp:
        if p is not u: return False
      elif p is not None and seen.setdefault(id(p), u) is not u: return False   # a variable met twice: one node
    return True
  return check


def _vars_in(x: Any) -> list[Var]:
  """The logic variables in the sources of a pattern, in order of first appearance (iterative, each once)."""
  out: dict[Var, None] = {}
  seen: set[int] = set()
  stack = [x]
  while stack:
    t = stack.pop()
    if isvar(t): out.setdefault(t)
    elif id(t) in seen: continue
    elif isinstance(t, ExpressionTuple) and t._evaled_obj is _NOT_SET:
      seen.add(id(t))
      stack.extend(reversed(t._tuple[1:]))
  return list(out)


# ---- another IR's nodes: the term text, piece by piece

class PartsTarget:
  """What ``search`` looks for on another IR's nodes, which are not kanren terms: ``text``, ``holes``, ``match(graph)``
  (the bindings, or None). The target's term (``parse_shape``) is matched against the one-line term form (``IR.parts``)
  piece by piece: ``op(a, b)`` matches a node whose term is ``op(...)`` with matching sources (a last extra argument
  matches the node's trailing arg text, ``CAST``'s dtype say), a leaf a node whose term is that text (a constant's value,
  a variable's name), ``?x`` binds a node (twice: one node), ``_`` matches anything.

  >>> from tinygrad.uop.ops import UOp as TinyUOp
  >>> a = TinyUOp.variable("a", 0, 10)
  >>> t = PartsTarget.parse("add(?x, mul(?x, 2))")
  >>> t.match(a + a * 2)["x"] is a, t.match(a + (a + 1) * 2), PartsTarget.parse("mul(a, _)").match(a * 3)
  (True, None, {})
  """

  def __init__(self, pattern: Any, text: str, holes: tuple[str, ...], exact: Any = None) -> None:
    self.pattern, self.text, self.holes, self._exact = pattern, text, holes, exact

  @staticmethod
  def parse(text: str, filename: str = "<target>") -> PartsTarget:
    """A target from the one-line term form; bad syntax raises ``UIRError`` (``<target>:1:COL: ...``)."""
    pattern = parse_shape(text, filename)
    holes: list[str] = []

    def walk(p: Any) -> None:
      if isinstance(p, str):
        if p.startswith("?") and p[1:] not in holes: holes.append(p[1:])
      else:
        for c in p[1]: walk(c)
    walk(pattern)
    return PartsTarget(pattern, text, tuple(holes))

  @staticmethod
  def graph(u: Any) -> PartsTarget:
    """Exactly the graph ``u`` (hash consing: matching is identity)."""
    return PartsTarget(None, show(u, LENGTHS.line), (), exact=u)

  def could_match(self, g: Any) -> bool: return True

  def match(self, g: Any) -> dict[str, Any] | None:
    if self._exact is not None: return {} if g is self._exact else None
    parts: Callable[[Any], Any] = ir_of(g).parts
    bound: dict[str, Any] = {}
    todo = [(self.pattern, g)]
    while todo:
      p, u = todo.pop()
      if isinstance(p, str):
        if p == "_": continue
        if p.startswith("?"):
          if bound.setdefault(p[1:], u) is not u: return None
          continue
        if parts(u) != p: return None
        continue
      pieces = parts(u)
      if isinstance(pieces, str) or pieces[0] != f"{p[0]}(": return None
      head, args = p
      n = len(u.src)
      if len(args) == n + 1:   # the last argument is the trailing arg's text
        trailing = pieces[-2] if len(pieces) > 2 and isinstance(pieces[-2], str) else None
        want = args[-1]
        if trailing is None or (want != "_" and trailing.removeprefix(", ") != want): return None
        args = args[:-1]
      elif len(args) != n: return None
      todo.extend(zip(args, u.src))
    return {h: bound[h] for h in self.holes}

  def __repr__(self) -> str: return f"PartsTarget({self.text!r})"


def target_for(prog: Any, target: Any) -> Target | PartsTarget:
  """The target of a search from ``prog``: a ``Target`` (a kanren pattern) on uopc's nodes (see ``Target.of``), a
  ``PartsTarget`` on another IR's (a term string, or a node of that IR). Bad syntax raises ``UIRError``.

  >>> target_for(UOp.param(0), "add(?x, 1)")
  Target('add(?x, 1)')
  """
  if ir_of(prog) is UOPC: return Target.of(target)
  if isinstance(target, PartsTarget): return target
  if isinstance(target, str): return PartsTarget.parse(target)
  if type(target) is type(prog): return PartsTarget.graph(target)
  raise TypeError(f"a target on a {type_name(type(prog))} program is a term string or a node of its IR, "
                  f"got {type(target).__name__}")


__all__ = ["PartsTarget", "Target", "matcho", "target_for", "target_pattern"]
