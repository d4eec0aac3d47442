"""A search target on any IR's nodes: a term with holes matched against the one-line term form (``IR.parts``).

uopc's own targets are kanren patterns (``uopc.relational.logic.target``); another IR's nodes are
not kanren terms, so ``search`` on them matches the term text piece by piece: ``op(a, b)`` matches
a node whose term is ``op(...)`` with matching sources (a last extra argument matches the node's
trailing arg text, ``CAST``'s dtype say), a leaf matches a node whose term is that text (a
constant's value, a variable's name), ``?x`` binds a node (twice: one node), ``_`` matches anything.

>>> from tinygrad.uop.ops import UOp
>>> a = UOp.variable("a", 0, 10)
>>> t = PartsTarget.parse("add(?x, mul(?x, 2))")
>>> t.match(a + a * 2)["x"] is a, t.match(a + (a + 1) * 2), PartsTarget.parse("mul(a, _)").match(a * 3)
(True, None, {})
"""
from __future__ import annotations

import re
from typing import Any, Callable

from uopc.relational.ir import ir_of
from uopc.lengths import LENGTHS

_TOKEN = re.compile(r"\s*(?:(\?[A-Za-z_]\w*)|([(),])|([^\s(),]+))")


class TargetSyntaxError(ValueError):
  """A target that does not parse: ``<target>:1:COL: message``."""


def _parse(text: str) -> Any:
  """``text`` as nested ``(head, [args])``, leaves as strings (``?x`` a hole, ``_`` a wildcard)."""
  toks: list[tuple[int, str, str]] = []
  pos = 0
  while pos < len(text):
    if not text[pos:].strip(): break
    if (m := _TOKEN.match(text, pos)) is None or m.end() == pos: raise TargetSyntaxError(f"<target>:1:{pos + 1}: unexpected {text[pos]!r}")
    kind = "hole" if m.group(1) else "punct" if m.group(2) else "word"
    toks.append((m.start(m.lastindex or 0) + 1, kind, m.group(m.lastindex or 0)))
    pos = m.end()
  k = 0

  def term() -> Any:
    nonlocal k
    if k >= len(toks): raise TargetSyntaxError(f"<target>:1:{len(text) + 1}: the term ends early")
    col, kind, t = toks[k]
    k += 1
    if kind == "punct": raise TargetSyntaxError(f"<target>:1:{col}: unexpected {t!r}")
    if kind == "hole" or k >= len(toks) or toks[k][2] != "(": return t
    k += 1
    args: list[Any] = []
    while k < len(toks) and toks[k][2] != ")":
      args.append(term())
      if k < len(toks) and toks[k][2] == ",": k += 1
    if k >= len(toks): raise TargetSyntaxError(f"<target>:1:{len(text) + 1}: ')' expected")
    k += 1
    return (t, args)
  root = term()
  if k != len(toks): raise TargetSyntaxError(f"<target>:1:{toks[k][0]}: unexpected {toks[k][2]!r} after the term")
  return root


class PartsTarget:
  """What ``search`` looks for on another IR's nodes: ``text``, ``holes``, ``match(graph)`` (the bindings, or None)."""

  def __init__(self, pattern: Any, text: str, holes: tuple[str, ...], exact: Any = None) -> None:
    self.pattern, self.text, self.holes, self._exact = pattern, text, holes, exact

  @staticmethod
  def parse(text: str) -> PartsTarget:
    pattern = _parse(text)
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
    from uopc.term import show
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


def target_for(prog: Any, target: Any) -> Any:
  """The target of a search from ``prog``: uopc's kanren ``Target`` for uopc's nodes, else a ``PartsTarget``."""
  from uopc.relational.ir import UOPC
  if ir_of(prog) is UOPC:
    from uopc.relational.logic.target import Target
    return Target.of(target)
  if isinstance(target, PartsTarget): return target
  if isinstance(target, str): return PartsTarget.parse(target)
  if type(target) is type(prog): return PartsTarget.graph(target)
  raise TypeError(f"a target on a {type(prog).__module__}.{type(prog).__qualname__} program is a term string or a node of its IR, "
                  f"got {type(target).__name__}")
