"""The one-line term form of a graph, as traces and reports print it.

``add(mul(p0, 3), 11)``: ops in lower case, ``pN`` for the PARAM of slot N, literals
for constants, ``name[body](args)`` for a CALL (its name made ``printable``), and the arg of a movement op, REDUCE
or CAST as a last argument.

>>> from uopc.uop import UOp
>>> show((UOp.param(0) + 2) * 3)
'mul(add(p0, 2), 3)'

A term expands sharing, so a DAG's term can be exponentially long: ``limit`` stops
after that many characters with an ellipsis.
"""
from __future__ import annotations

from contextlib import contextmanager
from itertools import count, islice, product
from string import ascii_lowercase
from typing import TYPE_CHECKING, Any, Callable, Iterator, Sequence, TypeVar, cast

from uopc import native_switch
from uopc.dtype import DType, dtypes
from uopc.ops import MOVEMENT, Ops
if TYPE_CHECKING: from uopc.uop import UOp   # annotations only: uop.py imports this module for UOp.__repr__

ELLIPSIS = "…"
N = TypeVar("N")   # a node of any kind the let form prints: a UOp, a parsed term
T = TypeVar("T")   # what _Memo remembers of a subterm


def printable(name: str) -> str:
  r"""A name as it may reach a terminal: unprintable characters (controls, escapes) and
  the backslash written as in a Python literal, so a name cannot move the cursor,
  recolour or retitle the terminal.

  >>> print(printable("sq"), printable("a\x1b[2J\\b"))
  sq a\x1b[2J\\b
  """
  if name.isprintable() and "\\" not in name: return name
  return "".join(c if c.isprintable() and c != "\\" else repr(c)[1:-1] for c in name)


def leaf_text(u: UOp) -> str | None:
  """The text of a node that prints without parentheses, else None."""
  if u.op is Ops.CONST: return repr(u.arg)
  if u.op is Ops.PARAM: return f"p{u.arg.slot}"
  return None


def arg_text(u: UOp) -> str | None:
  """The trailing argument a node prints after its sources, if any."""
  return head_arg_text(u.op, u.dtype, u.arg)


def head_arg_text(op: Ops, dtype: Any, arg: Any, field: Callable[[Any], str] = repr) -> str | None:
  """The trailing argument of a node (or a pattern of one) with this op, dtype and arg, if it prints one.

  A movement op's arg, a REDUCE's op and axis count, a CAST's dtype: the one text terms
  and patterns share. ``field`` prints a field that is no value (a pattern's variable).

  >>> from uopc.dtype import dtypes
  >>> head_arg_text(Ops.REDUCE, None, (Ops.ADD, 1)), head_arg_text(Ops.CAST, dtypes.f32, None), head_arg_text(Ops.ADD, None, None)
  ('add, 1', 'f32', None)
  """
  if op in MOVEMENT: return field(arg)
  if op is Ops.REDUCE: return f"{arg[0].name.lower()}, {arg[1]}" if isinstance(arg, tuple) else field(arg)
  if op is Ops.CAST: return dtype.name if isinstance(dtype, DType) else field(dtype)
  return None


def node_parts(u: UOp) -> str | list[UOp | str]:
  """A leaf's text, or a node's text as pieces: strings, and its sources where they print.

  >>> from uopc.uop import UOp
  >>> node_parts(UOp.param(0) + 2) == ["add(", UOp.param(0), ", ", UOp.const(2), ")"], node_parts(UOp.const(2))
  (True, '2')
  """
  if (head := _HEADS.get(u.op)) is not None and len(src := u.src) == 2: return [head, src[0], ", ", src[1], ")"]   # most nodes
  if (leaf := leaf_text(u)) is not None: return leaf
  if u.op is Ops.CALL: return op_parts(printable(u.arg) if u.arg else "call", u.src[1:], None, u.src[0])
  return op_parts(u.op.name.lower(), u.src, arg_text(u))


# the ops that print as ``name(sources...)``, nothing after: not a leaf (leaf_text), a CALL, or one with an arg (head_arg_text)
_HEADS: dict[Ops, str] = {op: f"{op.name.lower()}(" for op in Ops
                          if op not in (Ops.CONST, Ops.PARAM, Ops.CALL, Ops.REDUCE, Ops.CAST) and op not in MOVEMENT}


def op_parts(name: str, args: Sequence[N], trailing: str | None, body: N | None = None) -> list[N | str]:
  """The pieces of ``name(args..., trailing)``, or of ``name[body](args...)`` for a CALL: one layout for graphs and parsed terms.

  >>> op_parts("reduce", ["x"], "add, 1"), op_parts("sq", ["7"], None, "b")
  (['reduce(', 'x', ', add, 1', ')'], ['sq[', 'b', '](', '7', ')'])
  """
  if body is None and trailing is None and len(args) == 2: return [f"{name}(", args[0], ", ", args[1], ")"]   # most nodes: no loop
  parts: list[N | str] = [f"{name}("] if body is None else [f"{name}[", body, "]("]
  for i, a in enumerate(args):
    if i: parts.append(", ")
    parts.append(a)
  if trailing is not None: parts.append(f", {trailing}" if args else trailing)
  parts.append(")")
  return parts


# words a let name must not be: they read as an op, a dtype, a literal or the let form itself
RESERVED_NAMES = frozenset({op.name.lower() for op in Ops} | {d.name for d in dtypes.all} | {"call", "let", "in", "inf", "nan"})


def let_names() -> Iterator[str]:
  """The names the let form gives shared subterms: ``a`` ... ``z``, ``aa``, ``ab`` ..., never a reserved word.

  >>> names = let_names(); [next(names) for _ in range(28)][-3:]
  ['z', 'aa', 'ab']
  """
  for n in count(1):
    for letters in product(ascii_lowercase, repeat=n):
      if (name := "".join(letters)) not in RESERVED_NAMES: yield name


def let_form(root: N, parts: Callable[[N], str | list[N | str]], max_nodes: int | None = None) -> str | None:
  """``root`` with each shared subterm named once: ``let a = add(p0, 0), b = add(a, a) in add(b, b)``.

  ``parts`` gives a leaf's text or a node's pieces (strings and children, as ``node_parts``).
  A subterm is shared when its parents use it more than once (``add(a, a)`` counts twice);
  leaves are never named, and a subterm used once stays inline. Definitions come sources
  first, so a name is defined before it is used. Linear in the number of distinct nodes,
  iterative; None when there are more than ``max_nodes`` of them.
  """
  if (walked := _walk(root, parts, max_nodes)) is None: return None
  order, pieces = walked[0], walked[1]
  names = let_names()
  named = {id(x): next(names) for x in _shared(*walked)}
  def parts_of(x: Any) -> Any: return pieces[id(x)]
  text = _inline(root, parts_of, named)
  if not named: return text
  defs = ", ".join(f"{named[id(x)]} = {_inline(x, parts_of, named, top=True)}" for x in order if id(x) in named)
  return f"let {defs} in {text}"


def tree_text(root: N, parts: Callable[[N], str | list[N | str]], limit: int | None = None) -> str:
  """``root`` written out whole, sharing expanded (no let names), cut at ``limit`` characters with an ellipsis: the walk
  a renderer of another kind of term (a pattern, a unified pattern) gives its ``parts`` to. ``parts`` is called on each
  node as the text reaches it, left to right, so a renderer may name variables in order of appearance; it may also give
  a function of the room left (None: no limit; else one more than fits) for a text that is a label of its own (a graph
  inside a pattern: ``show(node, room)``).

  >>> tree_text(("add", 1, 2), lambda x: str(x) if isinstance(x, int) else op_parts(x[0], x[1:], None))
  'add(1, 2)'
  """
  return _inline(root, parts, {}, limit=limit)


def _walk(root: Any, parts: Callable[[Any], Any], max_nodes: int | None) -> tuple[list[Any], dict[int, Any], dict[int, int]] | None:
  """The let form's walk: the distinct nodes, sources first, left to right; each one's pieces and how often parents
  use it (``add(a, a)`` counts twice), by id; None past ``max_nodes`` distinct nodes. Iterative."""
  pieces: dict[int, Any] = {}
  uses: dict[int, int] = {}
  order: list[Any] = []
  stack: list[tuple[Any, bool]] = [(root, False)]
  while stack:
    x, ready = stack.pop()
    if ready:
      order.append(x)
      continue
    if id(x) in pieces: continue
    if max_nodes is not None and len(pieces) >= max_nodes: return None
    pieces[id(x)] = p = parts(x)
    stack.append((x, True))
    if isinstance(p, str): continue
    kids = [c for c in p if not isinstance(c, str)]
    for c in kids: uses[id(c)] = uses.get(id(c), 0) + 1
    stack.extend((c, False) for c in reversed(kids))
  return order, pieces, uses


def _shared(order: list[Any], pieces: dict[int, Any], uses: dict[int, int]) -> list[Any]:
  """The nodes the let form names, in ``_walk``'s order: used more than once, and not a leaf."""
  return [x for x in order if uses.get(id(x), 0) > 1 and not isinstance(pieces[id(x)], str)]


def _inline(x: Any, parts: Callable[[Any], Any], named: dict[int, str], top: bool = False, limit: int | None = None) -> str:
  """``x`` written out, a named subterm as its name (``x`` itself too unless ``top``), cut at ``limit`` characters."""
  out: list[str] = []
  size = 0
  stack: list[Any] = [x]
  while stack:
    item = stack.pop()
    if isinstance(item, str): text = item
    elif id(item) in named and not (top and item is x): text = named[id(item)]
    elif isinstance(p := parts(item), str): text = p
    elif callable(p): text = p(None if limit is None else max(limit - size, 0) + 1)   # a text made for the room left
    else:
      stack.extend(reversed(p))
      continue
    out.append(text)
    size += len(text)
    if limit is not None and size > limit: return "".join(out)[:limit] + ELLIPSIS
  return "".join(out)


# node type -> its ``node_parts``, for nodes of another IR the explorer shows (uopc.relational.ir registers them)
PARTS: dict[type, Callable[[Any], Any]] = {}


class _Memo:
  """What ``show`` remembers inside ``memo()``: each node's pieces, the tree text of each subterm without sharing,
  and each answer. A report prints graphs that share most of their nodes (a state and its successors), so a term
  costs a walk over its distinct nodes plus the text of the nodes the step made, not a fresh let form. Graphs of
  more than ``MAX_NODES`` distinct nodes print as ``show`` prints them: their subterms' texts would not be small."""

  MAX_NODES = 2000
  MAX_CHARS = 50_000_000   # of remembered text: past it, start again
  MAX_FREE = 64   # inner nodes of a subterm whose set is remembered (``_free``)

  def __init__(self, max_entries: int) -> None:
    self.max_entries, self.chars = max_entries, 0
    self.parts: dict[Any, Any] = {}
    self.plain: dict[Any, str] = {}     # the tree text of a subterm that shares nothing
    self.free: dict[Any, frozenset | None] = {}   # a small subterm that shares nothing -> its inner nodes; else None
    self.answers: dict[tuple[Any, int | None], str] = {}
    self.native = _native if native_switch.enabled() else None   # the C walk, asked once a memo

  def show(self, root: Any, limit: int | None) -> str:
    # a subterm that shares nothing, printed before (a step's node and result, a chain's states): its text is the answer
    if (text := self.plain.get(root)) is not None and (limit is None or len(text) <= limit): return text
    if (answer := self.answers.get((root, limit))) is not None: return answer
    if self.chars > self.MAX_CHARS: self.__init__(self.max_entries)   # type: ignore[misc]  # bounded: start again
    elif len(self.answers) > self.max_entries: self.answers.clear()   # the subterms' texts stay: they are what new states reuse
    if text is None:   # (else a plain text past the limit: its label below)
      if self.native is not None and _hash_consed(type(root)): text = self._native_let(root)   # the same text, from C
      else: text = self._plain(root) if self._free(root) is not None else self._let(root)
    if text is None: text = _show(root, limit)   # too big to remember
    elif limit is not None and len(text) > limit: text = _inline(root, self._pieces, {}, limit=limit)   # the tree's prefix, as _show
    self.chars += len(text)   # (counted either way: the memo starts again as often, at the same size)
    if self.plain.get(root) is not text: self.answers[(root, limit)] = text   # else the first test answers it next time
    return text

  def _native_let(self, root: Any) -> str | None:
    """``_let`` (or ``_plain`` where nothing is shared) in C (``uopc/_term.c``, the walk ``uopc/_letform.c``'s): the same walk, names and texts, with
    ``parts`` and ``plain`` filled as Python fills them; None past ``MAX_NODES`` distinct nodes."""
    assert self.native is not None
    found = self.native.let_text(root, self.parts, _make_parts, self.plain, _let_names_list(self.MAX_NODES), self.MAX_NODES)
    if found is None: return None
    text, chars = found
    self.chars += chars
    return text

  def _pieces(self, u: Any) -> Any:
    if (p := self.parts.get(u)) is None: self.parts[u] = p = parts_for(u)(u)
    return p

  def _bottom_up(self, root: Any, done: dict[Any, T], make: Callable[[Any, Any], T]) -> T:
    """``done[root]``, filling ``done`` first for each node below ``root`` not in it yet, sources first:
    ``make(node, its pieces)`` reads its sources' entries (a leaf's pieces are its text)."""
    stack: list[tuple[Any, bool]] = [(root, False)]
    while stack:
      x, ready = stack.pop()
      if x in done: continue
      p = self._pieces(x)
      if isinstance(p, str) or ready: done[x] = make(x, p)
      else:
        stack.append((x, True))
        stack.extend((c, False) for c in p if not isinstance(c, str) and c not in done)
    return done[root]

  def _free(self, root: Any) -> frozenset | None:
    """The inner nodes of ``root`` if it is small and no subterm of it other than a leaf is used twice, else None:
    from its sources' answers, so a state whose step made k nodes costs k small set unions, not a walk."""
    free = self.free

    def make(x: Any, p: Any) -> frozenset | None:
      if isinstance(p, str): return frozenset()
      kids = [free[c] for c in p if not isinstance(c, str)]
      sets = [k for k in kids if k is not None]
      if len(sets) < len(kids): return None   # a source shares a node, or is big
      inner = frozenset().union(*sets)
      if len(inner) != sum(map(len, sets)) or len(inner) >= self.MAX_FREE: return None   # two sources share a node, or big
      return inner | {x}
    return self._bottom_up(root, free, make)

  def _plain(self, root: Any) -> str:
    """The tree text of a subterm that shares nothing, each of its subterms' remembered."""
    plain = self.plain

    def make(x: Any, p: Any) -> str:
      t = p if isinstance(p, str) else "".join(c if isinstance(c, str) else plain[c] for c in p)
      self.chars += len(t)
      return t
    return self._bottom_up(root, plain, make)

  def _let(self, root: Any) -> str | None:
    """``let_form(root)`` from remembered pieces and subterm texts, or None past ``MAX_NODES`` distinct nodes."""
    pieces = self._pieces
    if (walked := _walk(root, pieces, self.MAX_NODES)) is None: return None   # let_form's walk, over remembered pieces
    order = walked[0]
    names = let_names()
    named = {x: next(names) for x in _shared(*walked)}
    if not named: return self._plain(root)   # nothing shared, only big: texts bottom up, each subterm's remembered
    naming: set[Any] = set()   # the subterms with a named node in them: written piece by piece
    for x in order:
      if x in named or (not isinstance(p := pieces(x), str) and any(c in naming for c in p if not isinstance(c, str))): naming.add(x)
    text = self._inline(root, named, naming)
    return f"let {', '.join(f'{named[x]} = {self._inline(x, named, naming, top=True)}' for x in order if x in named)} in {text}"

  def _inline(self, x: Any, named: dict[Any, str], naming: set[Any], top: bool = False) -> str:
    """``_inline`` with names; a subterm without one is its remembered text where there is one."""
    out: list[str] = []
    stack: list[Any] = [x]
    while stack:
      item = stack.pop()
      if isinstance(item, str): out.append(item)
      elif item in named and not (top and item is x): out.append(named[item])
      elif item not in naming and item in self.plain: out.append(self.plain[item])
      elif isinstance(p := self._pieces(item), str): out.append(p)
      else: stack.extend(reversed(p))
    return "".join(out)


_memo: _Memo | None = None

try: from uopc import _term as _native   # the let form's walk in C (setup.py builds it; optional)
except ImportError: _native = None   # type: ignore[assignment]
_names: list[str] = []


def _let_names_list(n: int) -> list[str]:
  """The first ``n`` (at least) let names, as a list (``let_names``), made once."""
  if len(_names) < n: _names[:] = list(islice(let_names(), n))
  return _names


def _make_parts(u: Any) -> Any: return parts_for(u)(u)


_consed: dict[type, bool] = {}


def _hash_consed(t: type) -> bool:
  """Whether ``t`` is uopc's node type, whose nodes are hash-consed (the C walk tells nodes apart by identity). By name:
  uop.py imports this module."""
  if (known := _consed.get(t)) is None: known = _consed[t] = (t.__module__, t.__qualname__) == ("uopc.uop", "UOp")
  return known


@contextmanager
def memo(max_entries: int = 200_000) -> Iterator[None]:
  """Within it, ``show`` remembers what it printed (``_Memo``): a report that prints many graphs sharing their
  nodes (every state of an exploration, each step's node and result) pays for each node's text once. Bounded:
  past ``max_entries`` answers it starts again. The texts are exactly ``show``'s.

  >>> from uopc.uop import UOp
  >>> a = UOp.param(0) + 0
  >>> with memo(): show((a + a) + 1), show(a * 2, 6)
  ('let a = add(p0, 0) in add(add(a, a), 1)', 'mul(ad…')
  """
  global _memo
  outer, _memo = _memo, _Memo(max_entries)
  try: yield
  finally: _memo = outer


def parts_for(root: Any) -> Callable[[Any], Any]:
  """The ``node_parts`` of ``root``'s IR: uopc's, or another IR's registered in ``PARTS``."""
  return PARTS.get(type(root), node_parts) if PARTS else node_parts


def show(root: UOp, limit: int | None = None) -> str:
  """``root`` in the one-line term form, each shared subterm named once (``let_form``).

  With ``limit`` it is a label of at most ``limit`` characters: the same text when it
  fits, else the tree form (sharing written out, so the root's op comes first) when that
  fits, else its first ``limit`` characters and an ellipsis. A label costs O(``limit``),
  however big the graph.

  >>> from uopc.uop import UOp
  >>> a = UOp.param(0) + 0
  >>> show((a + a) + (a + a))
  'let a = add(p0, 0), b = add(a, a) in add(b, b)'
  >>> show((a + a) + (a + a), limit=30)
  'add(add(add(p0, 0), add(p0, 0)…'
  """
  if _memo is not None: return _memo.show(root, limit)
  return _show(root, limit)


def _show(root: UOp, limit: int | None) -> str:
  parts = parts_for(root)
  if limit is None: return cast(str, let_form(root, parts))
  # every distinct node prints at least one character, so more than ``limit`` of them cannot fit
  if (text := let_form(root, parts, max_nodes=limit)) is not None and len(text) <= limit: return text
  return _inline(root, parts, {}, limit=limit)
