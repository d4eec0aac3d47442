"""Parse the one-line term form that ``uopc.term.show`` prints, as search targets with holes.

>>> from uopc.uop import UOp
>>> t = parse_term("add(mul(?x, 3), ?c)")
>>> m = t.match(UOp.param(0) * 3 + 11)
>>> m["x"] is UOp.param(0), m["c"].arg
(True, 11)

``?x`` binds a hole (a name used twice must bind one node), ``_`` matches anything
(also as the trailing arg of a movement op, REDUCE or CAST), ``pN`` is PARAM slot N of
any dtype, literals are CONSTs of exactly their dtype (``3`` i32, ``3.0`` f32,
``True`` bool; ``0``, ``0.0``, ``-0.0`` and ``False`` are four different constants).
A term without holes builds its graph with ``to_uop``. Parsing, matching, building and
printing are iterative, so a deep term is fine.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Mapping, NamedTuple, cast

from uopc.dtype import DType, dtypes, same_value, truncate, value_key
from uopc.ops import BINARY, MOVEMENT, REDUCE_OPS, UNARY, Ops
from uopc.uir import Token, TokenCursor, UIRError, arity, parse_literal, tokenize, unknown_op_message
from uopc.term import ELLIPSIS, RESERVED_NAMES, let_form, op_parts
from uopc.uop import ParamArg, UOp, UOpError, call_params


class _AnyArg:
  """The ``_`` in an arg position: any shape tuple, reduce op, count or dtype."""
  def __repr__(self) -> str: return "ANY_ARG"
  def __reduce__(self): return "ANY_ARG"


ANY_ARG = _AnyArg()


class Term:
  """A parsed term; every subterm is a pattern of its own."""
  __slots__ = ()

  def match(self, u: UOp) -> dict[str, UOp] | None:
    """The hole bindings if ``u`` has this shape, else None.

    >>> from uopc.uop import UOp
    >>> parse_term("add(?x, ?x)").match(UOp.param(1) + UOp.param(1))
    {'x': UOp(Ops.PARAM, arg=ParamArg(slot=1, dtype=dtypes.i32, shape=(), addrspace=None))}
    >>> parse_term("add(?x, ?x)").match(UOp.param(1) + 1) is None
    True
    """
    return _match(self, u)

  def to_uop(self, params: Mapping[int, UOp] | None = None, filename: str = "<target>") -> UOp:
    """The graph of a term without holes.

    A term does not say a PARAM's type: ``params`` maps top-level slots to a node of
    the wanted dtype and shape (usually the program's own PARAMs, which are then used
    as they are). A CALL body's PARAMs take the types of the call's arguments (with no
    addrspace: a term cannot say one). A slot
    not in ``params`` takes the type of its operand neighbours, so ``add(p0, 2.0)``
    has an f32 p0; with no clue it is an i32 scalar.

    >>> parse_term("mul(add(p0, 2), 3)").to_uop() is (UOp.param(0) + 2) * 3
    True
    >>> parse_term("add(p0, 2.0)").to_uop().dtype
    dtypes.f32
    """
    return _build(self, params or {}, filename)

  @property
  def holes(self) -> tuple[str, ...]:
    """The hole names, in order of first appearance.

    >>> parse_term("where(?c, ?a, add(?a, _))").holes
    ('c', 'a')
    """
    seen: dict[str, None] = {}
    for t in _walk(self):
      if isinstance(t, Hole): seen.setdefault(t.name)
    return tuple(seen)

  @property
  def is_ground(self) -> bool:
    """True if the term has no holes, ``_`` or wildcard args, so ``to_uop`` can build it."""
    return not any(isinstance(t, (Hole, Wild)) or isinstance(t, TermNode) and _has_any(t.arg) for t in _walk(self))

  def __str__(self) -> str: return _show(self)
  def __repr__(self) -> str: return f"parse_term({_show(self)!r})"


TermPattern = Term   # what parse_term returns


@dataclass(frozen=True, repr=False)
class Hole(Term):
  """``?name``: matches any node, the same node wherever the name appears."""
  name: str
  col: int = field(default=0, compare=False)


@dataclass(frozen=True, repr=False)
class Wild(Term):
  """``_``: matches any node and binds nothing."""
  col: int = field(default=0, compare=False)


@dataclass(frozen=True, repr=False)
class TermParam(Term):
  """``pN``: the PARAM of slot N, whatever its dtype and shape."""
  slot: int
  col: int = field(default=0, compare=False)


@dataclass(frozen=True, repr=False, eq=False)
class TermConst(Term):
  """A literal: a CONST of exactly this dtype and value (floats compared by bits)."""
  value: Any
  dtype: DType
  col: int = field(default=0, compare=False)

  def __post_init__(self) -> None: object.__setattr__(self, "value", truncate(self.dtype, self.value))
  def key(self) -> tuple: return (self.dtype, value_key(self.value))
  def __eq__(self, other: object) -> bool: return isinstance(other, TermConst) and self.key() == other.key()
  def __hash__(self) -> int: return hash(self.key())


@dataclass(frozen=True, repr=False)
class TermNode(Term):
  """``op(args...)``; ``arg`` is the shape tuple, ``(reduce op, k)``, CAST dtype or CALL name.

  A CALL's args are ``(body, *call_args)`` and its arg is the name. ``call[...]`` has the
  name None and matches the CALLs ``show`` prints that way: named None, ``""`` or ``"call"``.
  """
  op: Ops
  args: tuple[Term, ...]
  arg: Any = None
  col: int = field(default=0, compare=False)


def _has_any(arg: Any) -> bool: return arg is ANY_ARG or isinstance(arg, tuple) and any(a is ANY_ARG for a in arg)


def _walk(t: Term) -> list[Term]:
  """Every subterm once (a let name's term is one object however often it is used), root first."""
  out, stack, seen = [], [t], set()
  while stack:
    t = stack.pop()
    if id(t) in seen: continue
    seen.add(id(t))
    out.append(t)
    if isinstance(t, TermNode): stack.extend(reversed(t.args))
  return out


# ---- matching

def _arg_matches(t: TermNode, u: UOp) -> bool:
  a = t.arg
  if a is ANY_ARG: return True
  if t.op is Ops.CAST: return u.dtype is a
  if t.op is Ops.CALL: return u.arg in (None, "", "call") if a is None else u.arg == a   # all print as call[...]
  if t.op is Ops.REDUCE:
    return all(x is ANY_ARG or (x is y if isinstance(y, Ops) else type(x) is type(y) and x == y) for x, y in zip(a, u.arg))
  if t.op in MOVEMENT: return u.arg == a
  return True


def _match(term: Term, u: UOp) -> dict[str, UOp] | None:
  binds: dict[str, UOp] = {}
  at: dict[int, UOp] = {}   # the node each subterm met: a let name is one node, and a shared subterm is matched once
  stack: list[tuple[Term, UOp]] = [(term, u)]   # never deeper into u than the term goes
  while stack:
    t, n = stack.pop()
    if id(t) in at:
      if at[id(t)] is not n: return None
      continue
    at[id(t)] = n
    if isinstance(t, Wild): continue
    if isinstance(t, Hole):
      if binds.setdefault(t.name, n) is not n: return None
    elif isinstance(t, TermParam):
      if n.op is not Ops.PARAM or n.arg.slot != t.slot: return None
    elif isinstance(t, TermConst):
      if n.op is not Ops.CONST or n.dtype is not t.dtype or not same_value(n.arg, t.value): return None
    elif isinstance(t, TermNode):
      if n.op is not t.op or len(n.src) != len(t.args) or not _arg_matches(t, n): return None
      stack.extend(zip(t.args, n.src))
    else: raise TypeError(f"not a term: {t!r}")
  return binds


# ---- printing (the syntax show prints)

def _arg_text(t: TermNode) -> str | None:
  a = t.arg
  if a is ANY_ARG: return "_"
  if t.op in MOVEMENT: return repr(a)
  if t.op is Ops.REDUCE: return ", ".join("_" if x is ANY_ARG else x.name.lower() if isinstance(x, Ops) else str(x) for x in a)
  if t.op is Ops.CAST: return a.name
  return None


def _term_parts(t: Term) -> str | list[Term | str]:
  """A term as the let form prints it (``uopc.term.node_parts`` for a parsed term)."""
  if isinstance(t, Hole): return f"?{t.name}"
  if isinstance(t, Wild): return "_"
  if isinstance(t, TermParam): return f"p{t.slot}"
  if isinstance(t, TermConst): return repr(t.value)
  assert isinstance(t, TermNode)   # the last kind of term
  if t.op is Ops.CALL: return op_parts(t.arg or "call", t.args[1:], None, t.args[0])
  return op_parts(t.op.name.lower(), t.args, _arg_text(t))


def _show(root: Term) -> str:
  """The term as ``show`` prints graphs: a subterm a let name shares is named once."""
  return cast(str, let_form(root, _term_parts))


# ---- parsing

_TERM_OPS = {op.name.lower(): op for op in Ops if op not in (Ops.CONST, Ops.PARAM, Ops.CALL)}


class _Bare(NamedTuple):
  """A bare name as an operand: only valid as a REDUCE op or a CAST dtype."""
  text: str
  col: int


class _TupleArg(NamedTuple):
  value: tuple
  col: int


class _Frame:
  """An op or call whose ``(...)`` is still open."""
  __slots__ = ("tok", "op", "name", "items", "in_body", "body")

  def __init__(self, tok: Token, op: Ops, name: str | None = None, in_body: bool = False) -> None:
    self.tok, self.op, self.name, self.in_body = tok, op, name, in_body
    self.items: list[Any] = []
    self.body: Term | None = None


_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_PARAM = re.compile(r"p([0-9]{1,9})")


def _leaf(cur: _TermCursor, tok: Token) -> Any:
  text = tok.text
  if text == "_": return Wild(tok.col)
  if m := _PARAM.fullmatch(text): return TermParam(int(m.group(1)), tok.col)
  try:
    value, dtype = parse_literal(text)
    return TermConst(value, dtype, tok.col)
  except ValueError as e:
    if (let := cur.use(text)) is not None: return let
    if _NAME.fullmatch(text): return _Bare(text, tok.col)
    raise cur.error(tok.col, str(e)) from None


def _describe(item: Any) -> str:
  if isinstance(item, _Bare): return repr(item.text)
  if isinstance(item, _TupleArg): return "a tuple"
  return repr(str(item))


def _item_col(item: Any) -> int: return item.col


def _term_item(cur: _TermCursor, item: Any) -> Term:
  if isinstance(item, Term): return item
  if isinstance(item, _Bare) and item.text == cur.defining:
    raise cur.error(item.col, f"let name {item.text!r} is used in its own definition")
  if isinstance(item, _Bare) and item.text in cur.defined_at:
    raise cur.error(item.col, f"let name {item.text!r} is used before its definition (column {cur.defined_at[item.text]})")
  if isinstance(item, _Bare) and _NAME.fullmatch(item.text) and item.text not in RESERVED_NAMES:
    raise cur.error(item.col, f"unknown name {item.text!r}: expected ?hole, _, pN, a literal, op(...) or a let name")
  raise cur.error(item.col, f"expected a term (?hole, _, pN, a literal or op(...)), got {_describe(item)}")


def _close(cur: _TermCursor, f: _Frame) -> Term:
  """Check an op's operands and make its TermNode."""
  op, items, name = f.op, f.items, f.tok.text
  if op is Ops.CALL:
    assert f.body is not None   # a call's frame takes its body before its args
    return TermNode(op, (f.body, *(_term_item(cur, i) for i in items)), f.name, f.tok.col)
  n_arg = 2 if op is Ops.REDUCE else 1 if op in MOVEMENT or op is Ops.CAST else 0
  lo, hi = arity(op)
  lo, hi = lo + n_arg, None if hi is None else hi + n_arg
  if len(items) < lo or hi is not None and len(items) > hi:
    want = str(lo) if lo == hi else f"at least {lo}"
    col = _item_col(items[hi]) if hi is not None and len(items) > hi else f.tok.col
    raise cur.error(col, f"{name} takes {want} operand{'s' * (lo != 1)}, got {len(items)}")
  srcs = tuple(_term_item(cur, i) for i in items[:len(items) - n_arg])
  extra = items[len(items) - n_arg:]
  arg: Any = None
  if op in MOVEMENT: arg = _movement_arg(cur, op, name, extra[0])
  elif op is Ops.CAST: arg = _cast_arg(cur, extra[0])
  elif op is Ops.REDUCE: arg = _reduce_arg(cur, *extra)
  return TermNode(op, srcs, arg, f.tok.col)


def _movement_arg(cur: _TermCursor, op: Ops, name: str, a: Any) -> Any:
  """A movement op's last operand: its shape tuple (SHRINK's ``((begin, end), ...)``), or ``_``."""
  if isinstance(a, Wild): return ANY_ARG
  pairs = op is Ops.SHRINK
  if isinstance(a, _TupleArg) and all(isinstance(x, tuple) and len(x) == 2 if pairs else isinstance(x, int) for x in a.value): return a.value
  want = "((begin, end), ...)" if pairs else "a tuple of integers"
  raise cur.error(_item_col(a), f"expected {want} or _ as {name}'s last operand, got {_describe(a)}")


def _cast_arg(cur: _TermCursor, a: Any) -> Any:
  """CAST's last operand: a dtype, or ``_``."""
  if isinstance(a, Wild): return ANY_ARG
  if isinstance(a, _Bare) and (d := dtypes.from_name(a.text)) is not None: return d
  raise cur.error(_item_col(a), f"expected a dtype ({', '.join(d.name for d in dtypes.all)}) or _ as cast's last operand, got {_describe(a)}")


def _reduce_arg(cur: _TermCursor, r: Any, k: Any) -> tuple[Any, Any]:
  """REDUCE's last two operands: its op (add, mul, max) and its axis count, each or ``_``."""
  if isinstance(r, Wild): r_arg: Any = ANY_ARG
  elif isinstance(r, _Bare) and r.text in _TERM_OPS and _TERM_OPS[r.text] in REDUCE_OPS: r_arg = _TERM_OPS[r.text]
  else: raise cur.error(_item_col(r), f"expected add, mul, max or _ as reduce's op, got {_describe(r)}")
  if isinstance(k, Wild): k_arg: Any = ANY_ARG
  elif isinstance(k, TermConst) and k.dtype is dtypes.i32: k_arg = k.value
  else: raise cur.error(_item_col(k), f"expected an integer or _ as reduce's count, got {_describe(k)}")
  return (r_arg, k_arg)


def parse_term(text: str, filename: str = "<target>") -> TermPattern:
  """Parse a term such as ``add(mul(p0, 3), ?c)``; errors are ``UIRError`` at line 1.

  The let form ``show`` prints parses too: ``let a = add(p0, 0) in mul(a, a)`` (a name
  is one node; see docs/uir-format.md).

  >>> parse_term("sq[mul(p0, p0)](7)")
  parse_term('sq[mul(p0, p0)](7)')
  >>> t = parse_term("let a = add(p0, 0) in mul(a, a)")
  >>> t, t.to_uop() is (UOp.param(0) + 0) * (UOp.param(0) + 0)
  (parse_term('let a = add(p0, 0) in mul(a, a)'), True)
  >>> try: parse_term("add(p0, 1")
  ... except UIRError as e: print(e)
  <target>:1:10: expected ',' or ')', got end of line
  """
  if not isinstance(text, str): raise TypeError(f"parse_term needs a str, got {type(text).__name__}")
  if (cut := text.find(ELLIPSIS)) >= 0:
    raise UIRError(filename, 1, cut + 1, "a term cut short with '…' is a label, not a term: it cannot be read back")
  cur = _TermCursor(tokenize(text, 1, filename), 1, filename)
  if cur.peek().kind == "word" and cur.peek().text == "let":
    cur.next()
    while True:
      name = cur.next()
      cur.define(name)
      cur.expect("=", f"'=' after the let name {name.text!r}")
      cur.defining = name.text
      cur.lets[name.text] = _Let(_read_term(cur), name.col)   # defined after its term: it cannot use itself
      cur.defining = None
      t = cur.next()
      if t.kind == ",": continue
      if t.kind == "word" and t.text == "in": break
      raise cur.error(t.col, f"expected ',' or 'in' after a let definition, got {t.describe()}")
  root = _read_term(cur)
  if (t := cur.peek()).kind != "end": raise cur.error(t.col, f"expected end of term, got {t.describe()}")
  for text, let in cur.lets.items():
    if not let.used: raise cur.error(let.col, f"let name {text!r} is never used")
  return root


class _Let:
  """A let name's term, where it is defined, and whether anything used it."""
  __slots__ = ("term", "col", "used")

  def __init__(self, term: Term, col: int) -> None: self.term, self.col, self.used = term, col, False


class _TermCursor(TokenCursor):
  """A term's tokens, and the let names defined so far."""

  def __init__(self, toks: list[Token], lineno: int, filename: str) -> None:
    super().__init__(toks, lineno, filename)
    self.lets: dict[str, _Let] = {}
    self.defining: str | None = None   # the let name whose term is being read
    # every name the let part defines, known up front so a use before its definition says so
    self.defined_at = {t.text: t.col for t, after in zip(toks, toks[1:]) if t.kind == "word" and after.kind == "="}

  def define(self, tok: Token) -> None:
    """Check that ``tok`` may be a new let name."""
    if tok.kind != "word" or not _NAME.fullmatch(tok.text): raise self.error(tok.col, f"expected a let name, got {tok.describe()}")
    if tok.text in self.lets: raise self.error(tok.col, f"let name {tok.text!r} is defined twice (first at column {self.lets[tok.text].col})")
    if tok.text in RESERVED_NAMES or tok.text == "_" or _PARAM.fullmatch(tok.text) or _is_literal(tok.text):
      raise self.error(tok.col, f"{tok.text!r} cannot be a let name: it already means an op, a dtype, a PARAM, a literal or _")

  def use(self, name: str) -> Term | None:
    """The term of the let name ``name``, if one is defined."""
    if (let := self.lets.get(name)) is None: return None
    let.used = True
    return let.term


def _is_literal(text: str) -> bool:
  try: parse_literal(text)
  except ValueError: return False
  return True


def _read_term(cur: _TermCursor) -> Term:
  """One term, up to the token after it (which the caller checks)."""
  frames: list[_Frame] = []   # the open ops, innermost last: iterative, so any depth parses
  while True:
    # read one operand, or open an op or call and go read its first operand
    tok = cur.next()
    if tok.kind == "(":
      cur.i -= 1
      item: Any = _TupleArg(cur.int_tuple(), tok.col)
    elif tok.kind == "hole": item = Hole(tok.text[1:], tok.col)
    elif tok.kind == "word" and cur.peek().kind == "(":
      if tok.text not in _TERM_OPS:
        raise cur.error(tok.col, "call needs a body: call[body](args)" if tok.text == "call" else unknown_op_message(tok.text, list(_TERM_OPS)))
      cur.next()
      frames.append(_Frame(tok, _TERM_OPS[tok.text]))
      if cur.peek().kind != ")": continue
      cur.next()
      item = _close(cur, frames.pop())
    elif tok.kind == "word" and cur.peek().kind == "[":
      if not _NAME.fullmatch(tok.text): raise cur.error(tok.col, f"expected a call name before '[', got {tok.describe()}")
      cur.next()
      frames.append(_Frame(tok, Ops.CALL, None if tok.text == "call" else tok.text, in_body=True))
      continue
    elif tok.kind == "word" and tok.text == "let": raise cur.error(tok.col, "'let' only begins a whole term: let a = ..., b = ... in term")
    elif tok.kind == "word": item = _leaf(cur, tok)
    else: raise cur.error(tok.col, f"expected a term, got {tok.describe()}")
    # hand the operand to the innermost open op; each ')' closes one and hands it on
    while True:
      if not frames: return _term_item(cur, item)
      f = frames[-1]
      if f.in_body:
        f.body, f.in_body = _term_item(cur, item), False
        cur.expect("]", "']' after the call body")
        cur.expect("(", "'(' after the call body")
        if cur.peek().kind != ")": break
        cur.next()
      else:
        f.items.append(item)
        t = cur.next()
        if t.kind == ",": break
        if t.kind != ")": raise cur.error(t.col, f"expected ',' or ')', got {t.describe()}")
      item = _close(cur, frames.pop())


# ---- another IR's terms: the shape only

_SHAPE_TOKEN = re.compile(r"\s*(?:(\?[A-Za-z_]\w*)|([(),])|([^\s(),]+))")


def parse_shape(text: str, filename: str = "<target>") -> Any:
  """The one-line form read for its shape only, as another IR's terms are (their heads are not uopc's ops, and may be
  ``ExpandDims{axis=0}``): nested ``(head, [args])``, a leaf as its text (``?x`` a hole, ``_`` a wildcard). Errors are
  ``UIRError`` at line 1.

  >>> parse_shape("add(?x, ExpandDims{axis=0}(2))")
  ('add', ['?x', ('ExpandDims{axis=0}', ['2'])])
  >>> try: parse_shape("add(a,")
  ... except UIRError as e: print(e)
  <target>:1:7: ')' expected
  """
  toks: list[tuple[int, str, str]] = []
  pos = 0
  while pos < len(text):
    if not text[pos:].strip(): break
    if (m := _SHAPE_TOKEN.match(text, pos)) is None or m.end() == pos: raise UIRError(filename, 1, pos + 1, f"unexpected {text[pos]!r}")
    kind = "hole" if m.group(1) else "punct" if m.group(2) else "word"
    toks.append((m.start(m.lastindex or 0) + 1, kind, m.group(m.lastindex or 0)))
    pos = m.end()
  k = 0

  def term() -> Any:
    nonlocal k
    if k >= len(toks): raise UIRError(filename, 1, len(text) + 1, "the term ends early")
    col, kind, t = toks[k]
    k += 1
    if kind == "punct": raise UIRError(filename, 1, col, f"unexpected {t!r}")
    if kind == "hole" or k >= len(toks) or toks[k][2] != "(": return t
    k += 1
    args: list[Any] = []
    while k < len(toks) and toks[k][2] != ")":
      args.append(term())
      if k < len(toks) and toks[k][2] == ",": k += 1
    if k >= len(toks): raise UIRError(filename, 1, len(text) + 1, "')' expected")
    k += 1
    return (t, args)
  root = term()
  if k != len(toks): raise UIRError(filename, 1, toks[k][0], f"unexpected {toks[k][2]!r} after the term")
  return root


# ---- building a graph from a term without holes

class _Pending(NamedTuple):
  """A PARAM whose type is not known yet: slot ``slot`` of scope ``scope`` (0 is the top)."""
  scope: int
  slot: int


class _Item(NamedTuple):
  term: Term
  scope: int               # the PARAM scope the term is in
  kids: tuple[int, ...]    # positions of its sources in the item list, in the term's order
  inner: int               # for a CALL: the scope its body opens


def _flatten(root: Term) -> tuple[list[_Item], dict[int, tuple[int, ...]]]:
  """Terms in build order (sources first; a CALL's args before its body), and each scope's arg positions."""
  items: list[_Item] = []
  scope_args: dict[int, tuple[int, ...]] = {}
  done: list[int] = []
  n_scopes = 1
  at: dict[tuple[int, int], int] = {}   # (term, scope) -> its item: a let name's term is built once a scope
  stack: list[tuple[Term, int, int, bool]] = [(root, 0, 0, False)]
  while stack:
    t, scope, inner, leaving = stack.pop()
    if not leaving and (id(t), scope) in at: done.append(at[id(t), scope])
    elif not isinstance(t, TermNode):
      items.append(_Item(t, scope, (), 0)); done.append(at.setdefault((id(t), scope), len(items) - 1))
    elif not leaving:
      if t.op is Ops.CALL and t.args:
        inner, n_scopes = n_scopes, n_scopes + 1
        stack.append((t, scope, inner, True))
        stack.append((t.args[0], inner, 0, False))
        stack.extend((a, scope, 0, False) for a in reversed(t.args[1:]))
      else:
        stack.append((t, scope, 0, True))
        stack.extend((a, scope, 0, False) for a in reversed(t.args))
    else:
      k = len(t.args)
      kids = tuple(done[len(done) - k:])
      del done[len(done) - k:]
      if t.op is Ops.CALL and kids:
        kids = (kids[-1], *kids[:-1])
        scope_args[inner] = kids[1:]
      items.append(_Item(t, scope, kids, inner)); done.append(at.setdefault((id(t), scope), len(items) - 1))
  return items, scope_args


class _Builder:
  """Builds a term bottom-up, learning PARAM types from neighbours (see ``Term.to_uop``)."""

  def __init__(self, root: Term, params: Mapping[int, UOp | ParamArg], filename: str) -> None:
    self.items, self.scope_args = _flatten(root)
    self.given = {slot: p if isinstance(p, UOp) and p.op is Ops.PARAM and p.arg.slot == slot else
                  UOp(Ops.PARAM, (), p._replace(slot=slot)) if isinstance(p, ParamArg) else UOp.param(slot, p.dtype, p.shape)
                  for slot, p in params.items()}
    self.table: dict[tuple[int, int], list] = {}   # (scope, slot) -> [dtype or None, shape or None]
    self.filename = filename
    self.vals: list[Any] = []

  def build(self) -> UOp:
    # learn until nothing new is learnt; then build, defaulting what is still unknown
    for _ in range(len(self.items) + 1):
      before = {k: tuple(v) for k, v in self.table.items()}
      if isinstance(root := self.run(final=False), UOp): return root   # every PARAM was typed: done
      if {k: tuple(v) for k, v in self.table.items()} == before: break
    root = self.run(final=True)
    assert root is not None   # a final pass builds every node or raises
    return root

  def param(self, scope: int, slot: int) -> UOp | _Pending:
    if scope == 0 and slot in self.given: return self.given[slot]
    if scope != 0:   # a CALL body's PARAM has its argument's type
      args = self.scope_args.get(scope, ())
      if slot < len(args) and isinstance(a := self.vals[args[slot]], UOp): return UOp.param(slot, a.dtype, a.shape)
    typ = self.table.get((scope, slot))
    if typ is not None and None not in typ: return UOp.param(slot, typ[0], typ[1])
    return _Pending(scope, slot)

  def teach(self, k: Any, dtype: DType | None, shape: tuple[int, ...] | None) -> None:
    if isinstance(k, _Pending):
      typ = self.table.setdefault((k.scope, k.slot), [None, None])
      if typ[0] is None: typ[0] = dtype
      if typ[1] is None: typ[1] = shape

  def learn(self, op: Ops, kids: list[Any]) -> None:
    """Give pending PARAM sources the types their neighbours imply."""
    nodes = [k for k in kids if isinstance(k, UOp)]
    if op in BINARY or op is Ops.STACK:
      if nodes:
        for k in kids: self.teach(k, nodes[0].dtype, nodes[0].shape)
    elif op is Ops.WHERE:
      branch = next((k for k in kids[1:] if isinstance(k, UOp)), None)
      shape = nodes[0].shape if nodes else None
      self.teach(kids[0], dtypes.bool, shape)
      for k in kids[1:]: self.teach(k, branch.dtype if branch else None, shape)
    elif op in UNARY: self.teach(kids[0], dtypes.f32, None)
    elif op is Ops.INDEX:
      for k in kids[1:]: self.teach(k, dtypes.i32, ())
    elif op is Ops.RANGE: self.teach(kids[0], dtypes.i32, ())
    elif op is Ops.CALL and isinstance(kids[0], UOp):
      params = {p.arg.slot: p for p in call_params(kids[0])}
      for i, k in enumerate(kids[1:]):
        if i in params: self.teach(k, params[i].dtype, params[i].shape)

  def resolve(self, k: Any, final: bool) -> Any:
    if not isinstance(k, _Pending): return k
    if isinstance(u := self.param(k.scope, k.slot), UOp) or not final: return u
    # no clue anywhere: an i32 scalar, recorded so every later use agrees
    typ = self.table.setdefault((k.scope, k.slot), [None, None])
    typ[:] = [typ[0] or dtypes.i32, () if typ[1] is None else typ[1]]
    return UOp.param(k.slot, typ[0], typ[1])

  def run(self, final: bool) -> UOp | None:
    """One bottom-up pass; None (only when not ``final``) if some node could not be built yet."""
    vals: list[UOp | _Pending | None] = [None] * len(self.items)
    self.vals = vals
    for i, (t, scope, kids_at, _) in enumerate(self.items):
      if isinstance(t, TermConst): vals[i] = UOp.const(t.value, t.dtype)
      elif isinstance(t, TermParam): vals[i] = self.param(scope, t.slot)
      elif isinstance(t, TermNode):
        kids = [vals[k] for k in kids_at]
        self.learn(t.op, kids)
        resolved = [self.resolve(k, final) for k in kids]
        if not all(isinstance(k, UOp) for k in resolved): continue
        try: vals[i] = _construct(t, tuple(resolved))
        except UOpError as e:
          if final: raise UIRError(self.filename, 1, t.col, str(e)) from None
      else: raise TypeError(f"not a term: {t!r}")
    root = self.resolve(vals[-1], final)
    return root if isinstance(root, UOp) else None


def _construct(t: TermNode, kids: tuple[UOp, ...]) -> UOp:
  if t.op is Ops.CAST: return UOp(Ops.CAST, kids, None, t.arg)
  if t.op in MOVEMENT or t.op in (Ops.REDUCE, Ops.CALL): return UOp(t.op, kids, t.arg)
  return UOp(t.op, kids)


def _build(root: Term, params: Mapping[int, UOp | ParamArg], filename: str) -> UOp:
  for t in _walk(root):
    if isinstance(t, (Hole, Wild)) or isinstance(t, TermNode) and _has_any(t.arg):
      raise UIRError(filename, 1, t.col, f"cannot build a graph from a term with holes: {_show(t) if not isinstance(t, TermNode) else '_'}")
  return _Builder(root, params, filename).build()
