"""The ``.uir`` text format: one node a line, scalar constants inline, the last node is the root.

>>> from uopc.uop import UOp
>>> prog = (UOp.param(0) + 2) * 3
>>> print(to_uir(prog), end="")
%0 = param : slot=0 dtype=i32
%1 = add %0, 2
%2 = mul %1, 3
>>> parse_uir(to_uir(prog)) is prog
True

``docs/uir-format.md`` is the reference. Printing and parsing are both iterative, so
graphs of any depth work; bad input raises ``UIRError`` (``file:line:col: message``).
"""
from __future__ import annotations

import os

import difflib
import json
import re
from typing import Any, NamedTuple, cast

from uopc import collector, native_switch
from uopc import uop as _uop
from uopc.dtype import BOOL, I32, DType, dtypes
from uopc.ops import BINARY, COMPARISON, MOVEMENT, REDUCE_OPS, Ops, arity
from uopc.uop import ParamArg, UOp, UOpError, call_params, make_checked


class UIRError(Exception):
  """A parse error, printed as one line: ``file:line:col: message`` (line and col 1-based)."""

  def __init__(self, filename: str, line: int, col: int, message: str) -> None:
    # callers print str(e) as one diagnostic line, so no message may span lines
    message = " ".join(str(message).split("\n"))
    self.filename, self.line, self.col, self.message = filename, line, col, message
    super().__init__(f"{filename}:{line}:{col}: {message}")

  def __reduce__(self): return (UIRError, (self.filename, self.line, self.col, self.message))


# ---- tokens (shared with uopc.termparse)

class Token(NamedTuple):
  """A token of one line: ``kind`` is ref, word, string, hole, end, or the punctuation itself."""
  kind: str
  text: str
  col: int

  def describe(self) -> str:
    return "end of line" if self.kind == "end" else repr(self.text)


_TOKEN = re.compile(r"""
   (?P<space>[ \t\r\f\v]+)
  |(?P<comment>\#.*)
  |(?P<ref>%[A-Za-z0-9_]+)
  |(?P<hole>\?[A-Za-z_][A-Za-z0-9_]*)
  |(?P<string>"(?:[^"\\]|\\.)*")
  |(?P<word>-?[A-Za-z0-9_.]+(?:(?<=[eE])[+-][0-9]+)?)
  |(?P<punct>[=,:()\[\]])
""", re.VERBOSE)
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# a lone surrogate is no character: it cannot be encoded, so printing or writing it fails later
_SURROGATE = re.compile("[\ud800-\udfff]")
_INT = re.compile(r"-?[0-9]+")
_FLOAT = re.compile(r"-?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


def tokenize(line: str, lineno: int, filename: str) -> list[Token]:
  """The tokens of one line, ending with an ``end`` token; ``#`` starts a comment.

  >>> [t.text for t in tokenize("%1 = mul %0, 2  # double", 1, "x")]
  ['%1', '=', 'mul', '%0', ',', '2', '']
  """
  if (bad := _SURROGATE.search(line)) is not None: raise UIRError(filename, lineno, bad.start() + 1, _surrogate_message(bad.group()))
  out: list[Token] = []
  pos = 0
  while pos < len(line):
    m = _TOKEN.match(line, pos)
    if m is None:
      ch = line[pos]
      raise UIRError(filename, lineno, pos + 1, "unterminated string" if ch == '"' else f"unexpected character {ch!r}")
    kind = cast(str, m.lastgroup)   # every alternative of the token pattern is a named group
    if kind == "comment": break
    if kind != "space": out.append(Token(m.group() if kind == "punct" else kind, m.group(), pos + 1))
    pos = m.end()
  out.append(Token("end", "", len(line) + 1))
  return out


def _surrogate_message(c: str) -> str: return f"lone surrogate U+{ord(c):04X} is not a character"


def parse_literal(text: str) -> tuple[Any, DType]:
  """The value and dtype of a literal; ``ValueError`` (with a message) if it is none.

  >>> parse_literal("3"), parse_literal("-0.0"), parse_literal("True"), parse_literal("-0000000000001")
  ((3, dtypes.i32), (-0.0, dtypes.f32), (True, dtypes.bool), (-1, dtypes.i32))
  """
  if text in ("True", "False"): return text == "True", dtypes.bool
  if text in ("inf", "-inf", "nan"): return float(text), dtypes.f32
  if _INT.fullmatch(text):
    # int() of a huge digit string is slow or refused, and past 10 significant digits it is out of range
    digits = text.lstrip("-").lstrip("0") or "0"
    v = (-1 if text[0] == "-" else 1) * int(digits) if len(digits) <= 10 else None
    if v is None or not dtypes.min(dtypes.i32) <= v <= dtypes.max(dtypes.i32):
      raise ValueError(f"integer literal {_clip(text)} is out of the i32 range")
    return v, dtypes.i32
  if _FLOAT.fullmatch(text) and text not in ("-", "."): return float(text), dtypes.f32
  raise ValueError(f"bad literal {_clip(text)!r}: expected an int (3), a float (3.0, inf, nan) or True/False")


def literal_text(c: UOp) -> str:
  """How a scalar CONST prints: by its dtype, so the text alone gives the dtype back.

  >>> literal_text(UOp.const(-0.0)), literal_text(UOp.const(7))
  ('-0.0', '7')
  """
  if c.dtype is dtypes.f32: return repr(float(c.arg))
  if c.dtype is dtypes.i32: return str(int(c.arg))
  return str(bool(c.arg))


def _type_text(p: UOp) -> str: return p.dtype.name + (str(list(p.shape)) if p.shape else "")
def _a(dtype_name: str) -> str: return f"a {dtype_name}" if dtype_name == "bool" else f"an {dtype_name}"   # an i32, an f32
def _clip(text: str, n: int = 40) -> str: return text if len(text) <= n else text[:n] + "..."


class TokenCursor:
  """Reads the tokens of one line and raises positioned errors."""

  def __init__(self, toks: list[Token], lineno: int, filename: str) -> None:
    self.toks, self.i, self.lineno, self.filename = toks, 0, lineno, filename

  def peek(self) -> Token: return self.toks[self.i]
  def next(self) -> Token:
    t = self.toks[self.i]
    if t.kind != "end": self.i += 1
    return t

  def error(self, col: int, message: str) -> UIRError: return UIRError(self.filename, self.lineno, col, message)

  def expect(self, kind: str, what: str) -> Token:
    t = self.next()
    if t.kind != kind: raise self.error(t.col, f"expected {what}, got {t.describe()}")
    return t

  def int_tuple(self, depth: int = 1) -> tuple:
    """A tuple like ``(2, 3)``, ``(3,)``, ``()`` or ``((0, 2), (1, 3))``, at the '('."""
    self.expect("(", "'('")
    items: list[Any] = []
    while True:
      t = self.peek()
      if t.kind == ")": self.next(); break
      if t.kind == "(":
        # deep tuples are never valid args, and hashing one would recurse in C
        if depth >= 2: raise self.error(t.col, "tuples nest at most two deep")
        items.append(self.int_tuple(depth + 1))
      elif t.kind == "word" and _INT.fullmatch(t.text):
        self.next()
        try: items.append(parse_literal(t.text)[0])
        except ValueError as e: raise self.error(t.col, str(e)) from None
      else: raise self.error(t.col, f"expected an integer or ')' in a tuple, got {t.describe()}")
      t = self.next()
      if t.kind == ")": break
      if t.kind != ",": raise self.error(t.col, f"expected ',' or ')' in a tuple, got {t.describe()}")
    return tuple(items)


# ---- printing

_NAMES = {op: op.name.lower() for op in Ops}
_OPS = {name: op for op, name in _NAMES.items()}


def _tuple_text(t: tuple) -> str:
  parts = [_tuple_text(x) if isinstance(x, tuple) else str(int(x)) for x in t]
  return f"({parts[0]},)" if len(parts) == 1 else f"({', '.join(parts)})"


def _name_text(name: str) -> str:
  # identifiers print bare; anything else as a JSON string, which reads back exactly
  return name if _IDENT.fullmatch(name) else json.dumps(name)


def _node_text(u: UOp, ref: dict[UOp, str]) -> str:
  def operand(s: UOp) -> str: return literal_text(s) if s.op is Ops.CONST else ref[s]
  name = _NAMES[u.op]
  if u.op is Ops.PARAM:
    a: ParamArg = u.arg
    text = f"param : slot={a.slot} dtype={a.dtype.name}"
    if a.shape != (): text += f" shape={_tuple_text(a.shape)}"
    if a.addrspace is not None: text += f" addrspace={_name_text(a.addrspace)}"
    return text
  ops = ", ".join(operand(s) for s in u.src)
  if u.op in MOVEMENT: return f"{name} {ops}, {_tuple_text(u.arg)}"
  if u.op is Ops.REDUCE: return f"reduce {ops} : op={_NAMES[u.arg[0]]} pop={u.arg[1]}"
  if u.op is Ops.CAST: return f"cast {ops} : dtype={u.dtype.name}"
  if u.op is Ops.CALL and u.arg is not None: return f"call {ops} : name={_name_text(u.arg)}"
  return f"{name} {ops}" if ops else name


def to_uir(u: UOp) -> str:
  """``u`` as ``.uir`` text: nodes numbered in ``toposort`` order, scalar CONSTs inline.

  >>> print(to_uir(UOp.stack(1.0, 2.0).reduce(Ops.ADD)), end="")
  %0 = stack 1.0, 2.0
  %1 = reduce %0 : op=add pop=1
  >>> to_uir(UOp.const(5))
  '%0 = const 5\\n'
  """
  ref: dict[UOp, str] = {}
  lines: list[str] = []
  for n in u.toposort():
    if n.op is Ops.CONST: continue
    text = _node_text(n, ref)   # before naming n: a node never refers to itself
    ref[n] = f"%{len(ref)}"
    lines.append(f"{ref[n]} = {text}")
  if not lines: return f"%0 = const {literal_text(u)}\n"
  return "\n".join(lines) + "\n"


# ---- parsing

# attribute names each op takes, and which of them it needs
_ATTRS: dict[Ops, tuple[str, ...]] = {Ops.PARAM: ("slot", "dtype", "shape", "addrspace"), Ops.CAST: ("dtype",),
                                      Ops.REDUCE: ("op", "pop"), Ops.CALL: ("name",)}
_REQUIRED: dict[Ops, tuple[str, ...]] = {Ops.PARAM: ("slot", "dtype"), Ops.CAST: ("dtype",), Ops.REDUCE: ("op", "pop")}
_DTYPE_NAMES = ", ".join(d.name for d in dtypes.all)


def unknown_op_message(name: str, valid: list[str]) -> str:
  """``unknown op 'mull'; did you mean mul?``, or the list of valid names when nothing is close."""
  close = difflib.get_close_matches(name, valid, n=3, cutoff=0.6)
  if close: return f"unknown op {_clip(name)!r}; did you mean {' or '.join(close)}?"
  return f"unknown op {_clip(name)!r}; expected one of {', '.join(sorted(valid))}"


# The two lines ``to_uir`` prints for most nodes, read by ``_Parser.plain_line`` without tokens
# (a program of 100,000 nodes parses in about a third of the time); the tokens' own patterns, one space apart.
_OPERAND = r"(%[A-Za-z0-9_]+|-?[A-Za-z0-9_.]+(?:(?<=[eE])[+-][0-9]+)?)"
_LINE_END = r"[ \t\r]*"   # trailing blanks, and the CR of a CRLF file
_PLAIN_NODE = re.compile(rf"(%[A-Za-z0-9_]+) = ([a-z0-9_]+) {_OPERAND}(?:, {_OPERAND})?(?:, {_OPERAND})?{_LINE_END}")
_PLAIN_PARAM = re.compile(rf"(%[A-Za-z0-9_]+) = (param) : slot=([0-9]+) dtype=([A-Za-z0-9_]+){_LINE_END}")
_PLAIN_OPS = {name: op for name, op in _OPS.items() if op not in _ATTRS and op not in MOVEMENT}   # no attributes, no tuple
# The two commonest of those, a binary node and a scalar PARAM, in one pattern for ``_Parser.plain_lines``'s loop
# (a slot of at most 9 digits is an i32 as int() reads it)
_PLAIN_LINE = re.compile(rf"(%[A-Za-z0-9_]+) = (?:([a-z0-9_]+) {_OPERAND}, {_OPERAND}|param : slot=([0-9]{{1,9}}) dtype=([A-Za-z0-9_]+)){_LINE_END}")
_BINARY_OPS = {name: op for name, op in _OPS.items() if op in BINARY}
_DIVMOD = frozenset({Ops.FLOORDIV, Ops.FLOORMOD})
_DTYPES = {d.name: d for d in dtypes.all}


class _Operand(NamedTuple):
  kind: str        # "node", "lit" or "tuple"
  value: Any       # the UOp, the (value, dtype) literal, or the tuple
  tok: Token


class _Parser:
  """Parses a program line by line; ``refs`` maps each %name to its node."""

  def __init__(self) -> None:
    self.refs: dict[str, UOp] = {}
    self.lines_of: list[int] = []   # the line of each of refs, in its order (a list: cheaper to fill than a dict)
    self.params: dict[UOp, tuple[int, int]] = {}   # each PARAM node: the (line, col) that first defines it
    self.root: UOp | None = None   # the last node defined
    self.literals: dict[str, UOp] = {}   # plain_lines' literals: text -> the node last made of it
    self.native = _native if native_switch.enabled() else None   # plain_lines in C, asked once a parse

  def line(self, cur: TokenCursor) -> UOp | None:
    if cur.peek().kind == "end": return None
    ref = cur.expect("ref", "a node definition '%N = op ...'")
    if ref.text in self.refs:
      raise cur.error(ref.col, f"{ref.text} is already defined on line {self.lines_of[list(self.refs).index(ref.text)]}")
    cur.expect("=", f"'=' after {ref.text}")
    op_tok = cur.next()
    if op_tok.kind != "word": raise cur.error(op_tok.col, f"expected an op name after '=', got {op_tok.describe()}")
    if op_tok.text not in _OPS: raise cur.error(op_tok.col, unknown_op_message(op_tok.text, list(_OPS)))
    op = _OPS[op_tok.text]
    operands: list[_Operand] = []
    if cur.peek().kind not in (":", "end"):
      while True:
        operands.append(self.operand(cur))
        t = cur.peek()
        if t.kind == ",": cur.next(); continue
        if t.kind in (":", "end"): break
        raise cur.error(t.col, f"expected ',', ':' or end of line after an operand, got {t.describe()}")
    attrs = self.attrs(cur, op, op_tok) if cur.next().kind == ":" else {}
    for k in _REQUIRED.get(op, ()):
      if k not in attrs: raise cur.error(op_tok.col, f"{op_tok.text} needs the attribute {k}=")
    u = self.build(cur, op, op_tok, operands, attrs)
    self.define(ref.text, u, cur.lineno, op_tok)
    return u

  def define(self, ref: str, u: UOp, lineno: int, op_tok: Token) -> None:
    self.refs[ref], self.root = u, u
    self.lines_of.append(lineno)
    if u.op is Ops.PARAM: self.params.setdefault(u, (lineno, op_tok.col))

  def plain_lines(self, lines: list[str], i: int) -> int:
    """Reads ``lines[i:]`` while each is a binary node of two operands or a scalar PARAM as ``to_uir`` prints them,
    well-typed; the index of the first line that is not (``plain_line`` and ``line`` read it, and say what is wrong).

    The whole of most programs. In C (``uopc/_uir.c``) where it is built, else ``plain_lines_py``: the same nodes,
    the same stop (``tests/test_uir_native.py`` compares them). A line it stops at has changed nothing.
    """
    if self.native is None: return self.plain_lines_py(lines, i)
    stop, u = self.native.plain_lines(lines, i, self.refs, self.lines_of, self.params, self.literals, self.literal)
    if u is not None: self.root = u
    return stop

  def plain_lines_py(self, lines: list[str], i: int) -> int:
    """``plain_lines`` in Python: a line costs one pattern, a few dict lookups, ``make_uop``'s type check of its
    common case and one call (``make_checked``), no tokens."""
    refs, get, lines_of, params, literals = self.refs, self.refs.get, self.lines_of, self.params, self.literals
    match, binary, by_name, divmod_ops, comparison = _PLAIN_LINE.fullmatch, _BINARY_OPS, _DTYPES, _DIVMOD, COMPARISON
    new_param_arg, param, i32, boolean = tuple.__new__, Ops.PARAM, I32, BOOL
    u = None
    for lineno in range(i + 1, len(lines) + 1):   # not lines[i:]: a copy of the rest each time parse_uir comes back here
      if (m := match(lines[lineno - 1])) is None: break
      ref, name, a, b, slot, dname = m.groups()
      if ref in refs: break
      if name is None:
        if (dtype := by_name.get(dname)) is None: break
        # ParamArg(slot, dtype) without its Python-level __new__; a scalar PARAM of a digit slot needs no check
        u = make_checked(param, dtype, (), new_param_arg(ParamArg, (int(slot), dtype, (), None)), ())
        params.setdefault(u, (lineno, len(ref) + 4))   # the op's column: after "%N = "
      else:
        if (op := binary.get(name)) is None: break
        # a literal takes the other operand's dtype and shape (sources); the node last made of its text is reused when
        # it has them, since the text, dtype and shape decide the node
        if (x := get(a)) is None:
          if a[0] == "%" or (y := get(b)) is None: break
          if (x := literals.get(a)) is None or x.dtype is not y.dtype or x.shape != y.shape:
            if (x := self.literal(a, y)) is None: break
        elif (y := get(b)) is None:
          if b[0] == "%": break
          if (y := literals.get(b)) is None or y.dtype is not x.dtype or y.shape != x.shape:
            if (y := self.literal(b, x)) is None: break
        dtype, shape = x.dtype, x.shape
        if y.dtype is not dtype or y.shape != shape or op in divmod_ops and dtype is not i32: break   # make_uop says why
        u = make_checked(op, boolean if op in comparison else dtype, (x, y), None, shape)
      refs[ref] = u
      lines_of.append(lineno)
    else: lineno = len(lines) + 1
    if u is not None: self.root = u
    return lineno - 1

  def literal(self, text: str, like: UOp) -> UOp | None:
    """The literal ``text`` beside the node ``like``, as ``coerce`` makes it (remembered), or None if it is in error."""
    try: value = parse_literal(text)
    except ValueError: return None
    try: c = self.coerce(TokenCursor([], 0, ""), _Operand("lit", value, Token("word", text, 0)), like.dtype, like.shape)
    except (UIRError, UOpError): return None
    self.literals[text] = c
    return c

  def plain_line(self, line: str, lineno: int, filename: str) -> UOp | None:
    """A line as ``to_uir`` prints most nodes, read without tokens; None for any other line and
    for any line in error (``line`` then reads it again, and says what is wrong)."""
    if (m := _PLAIN_NODE.fullmatch(line)) is not None:
      if (op := _PLAIN_OPS.get(m.group(2))) is None: return None
      operands: list[_Operand] = []
      for k in (3, 4, 5):
        if (text := m.group(k)) is None: break
        tok = Token("ref" if text[0] == "%" else "word", text, m.start(k) + 1)
        if tok.kind == "ref":
          if (src := self.refs.get(text)) is None: return None
          operands.append(_Operand("node", src, tok))
        else:
          try: operands.append(_Operand("lit", parse_literal(text), tok))
          except ValueError: return None
      attrs: dict[str, tuple[Any, Token]] = {}
    elif (m := _PLAIN_PARAM.fullmatch(line)) is not None:
      op, operands = Ops.PARAM, []
      if (dtype := dtypes.from_name(m.group(4))) is None: return None
      try: slot = parse_literal(m.group(3))[0]
      except ValueError: return None
      attrs = {"slot": (slot, Token("word", m.group(3), m.start(3) + 1)), "dtype": (dtype, Token("word", m.group(4), m.start(4) + 1))}
    else: return None
    if m.group(1) in self.refs: return None
    op_tok = Token("word", m.group(2), m.start(2) + 1)
    try: u = self.build(TokenCursor([], lineno, filename), op, op_tok, operands, attrs)
    except UIRError: return None
    self.define(m.group(1), u, lineno, op_tok)
    return u

  def check_slots(self, root: UOp, filename: str) -> None:
    """A program is a function body: each of its free PARAM slots has one type, as in a CALL's body.

    (A slot used as i32 and as f32 once ran in Python and failed in C; now neither accepts it.)
    """
    if len({p.arg.slot for p in self.params}) == len(self.params): return   # no slot defined twice: nothing to walk
    seen: dict[int, UOp] = {}
    for p in sorted(call_params(root), key=self.params.__getitem__):
      first = seen.setdefault(p.arg.slot, p)
      if (first.dtype, first.shape) != (p.dtype, p.shape):
        line, col = self.params[p]
        raise UIRError(filename, line, col, f"PARAM slot {p.arg.slot} is {_type_text(p)} here but {_type_text(first)} on line "
                                            f"{self.params[first][0]}: a slot has one type in a program, as in a CALL's body")

  def operand(self, cur: TokenCursor) -> _Operand:
    t = cur.peek()
    if t.kind == "(": return _Operand("tuple", cur.int_tuple(), t)
    cur.next()
    if t.kind == "ref":
      if t.text not in self.refs: raise cur.error(t.col, f"undefined {t.text}")
      return _Operand("node", self.refs[t.text], t)
    if t.kind == "word":
      try: return _Operand("lit", parse_literal(t.text), t)
      except ValueError as e: raise cur.error(t.col, str(e)) from None
    raise cur.error(t.col, f"expected an operand (a %ref, a literal or a tuple), got {t.describe()}")

  def attrs(self, cur: TokenCursor, op: Ops, op_tok: Token) -> dict[str, tuple[Any, Token]]:
    allowed = _ATTRS.get(op, ())
    out: dict[str, tuple[Any, Token]] = {}
    while cur.peek().kind != "end":
      key = cur.expect("word", "an attribute 'name=value'")
      if key.text not in allowed:
        hint = f"expected {', '.join(allowed)}" if allowed else f"{op_tok.text} takes no attributes"
        raise cur.error(key.col, f"unknown attribute {_clip(key.text)!r} for {op_tok.text}; {hint}")
      if key.text in out: raise cur.error(key.col, f"duplicate attribute {key.text!r}")
      cur.expect("=", f"'=' after {key.text}")
      out[key.text] = self.attr_value(cur, key.text)
    return out

  def attr_value(self, cur: TokenCursor, key: str) -> tuple[Any, Token]:
    t = cur.peek()
    if key == "shape":
      if t.kind != "(": raise cur.error(t.col, f"expected a tuple like (2, 3) for shape, got {t.describe()}")
      return cur.int_tuple(), t
    cur.next()
    if key in ("slot", "pop"):
      if t.kind == "word" and _INT.fullmatch(t.text) and not t.text.startswith("-"):
        try: return parse_literal(t.text)[0], t
        except ValueError as e: raise cur.error(t.col, str(e)) from None
      raise cur.error(t.col, f"expected a non-negative integer for {key}, got {t.describe()}")
    if key == "dtype":
      if t.kind == "word" and (d := dtypes.from_name(t.text)) is not None: return d, t
      raise cur.error(t.col, f"expected a dtype ({_DTYPE_NAMES}) for dtype, got {t.describe()}")
    if key == "op":
      if t.kind == "word" and t.text in _OPS and _OPS[t.text] in REDUCE_OPS: return _OPS[t.text], t
      raise cur.error(t.col, f"expected add, mul or max for op, got {t.describe()}")
    # name / addrspace: an identifier or a JSON string
    if t.kind == "word" and _IDENT.fullmatch(t.text): return t.text, t
    if t.kind == "string":
      try: value = json.loads(t.text)
      except ValueError as e: raise cur.error(t.col, f"bad string: {e}") from None
      if (bad := _SURROGATE.search(value)) is not None: raise cur.error(t.col, f"bad string: {_surrogate_message(bad.group())}")
      return value, t
    raise cur.error(t.col, f"expected a name or a \"string\" for {key}, got {t.describe()}")

  # -- building the node

  def build(self, cur: TokenCursor, op: Ops, op_tok: Token, ops: list[_Operand], attrs: dict[str, tuple[Any, Token]]) -> UOp:
    lo, hi = (1, 1) if op is Ops.CONST else arity(op)
    if op in MOVEMENT: lo, hi = 2, 2   # the source and the shape tuple
    if len(ops) < lo or hi is not None and len(ops) > hi:
      want = str(lo) if lo == hi else f"at least {lo}"
      col = ops[hi].tok.col if hi is not None and len(ops) > hi else op_tok.col
      raise cur.error(col, f"{op_tok.text} takes {want} operand{'s' * (lo != 1)}, got {len(ops)}")
    for i, o in enumerate(ops):
      is_arg = op in MOVEMENT and i == 1
      if o.kind == "tuple" and not is_arg: raise cur.error(o.tok.col, "a tuple is only allowed as a movement op's shape")
      if is_arg and o.kind != "tuple": raise cur.error(o.tok.col, f"expected a tuple as {op_tok.text}'s second operand, got {o.tok.describe()}")
      if op is Ops.CONST and o.kind != "lit": raise cur.error(o.tok.col, f"expected a literal after const, got {o.tok.describe()}")
    try:
      return self.node(cur, op, op_tok, ops, attrs)
    except UOpError as e:
      raise cur.error(op_tok.col, str(e)) from None
    except UIRError: raise
    except Exception as e:   # a UOp check that trips over odd input must still be a parse error
      raise cur.error(op_tok.col, f"cannot build {op_tok.text}: {type(e).__name__}: {e}") from None

  def node(self, cur: TokenCursor, op: Ops, op_tok: Token, ops: list[_Operand], attrs: dict[str, tuple[Any, Token]]) -> UOp:
    attr = {k: v for k, (v, _) in attrs.items()}
    if op is Ops.PARAM:
      return UOp.param(attr["slot"], attr["dtype"], attr.get("shape", ()), attr.get("addrspace"))
    if op is Ops.CONST: return UOp.const(*ops[0].value)
    if op in MOVEMENT:
      arg, tok = ops[1].value, ops[1].tok
      pairs = op is Ops.SHRINK
      if not all(isinstance(x, tuple) and len(x) == 2 if pairs else isinstance(x, int) for x in arg):
        raise cur.error(tok.col, f"expected {'((begin, end), ...)' if pairs else 'a tuple of integers'} for {op_tok.text}")
      return UOp(op, (self.natural(ops[0]),), arg)
    srcs = self.sources(cur, op, ops)
    if op is Ops.CAST: return UOp(Ops.CAST, srcs, None, attr["dtype"])
    if op is Ops.REDUCE: return UOp(Ops.REDUCE, srcs, (attr["op"], attr["pop"]))
    if op is Ops.CALL: return UOp(Ops.CALL, srcs, attr.get("name"))
    return UOp(op, srcs)

  def natural(self, o: _Operand) -> UOp:
    return o.value if o.kind == "node" else UOp.const(*o.value)

  def sources(self, cur: TokenCursor, op: Ops, ops: list[_Operand]) -> tuple[UOp, ...]:
    """The sources, with literals typed by their neighbours (see docs/uir-format.md)."""
    nodes = [o.value for o in ops if o.kind == "node"]
    if op in BINARY or op is Ops.STACK:
      ref = nodes[0] if nodes else None
      return tuple(self.coerce(cur, o, ref.dtype if ref else None, ref.shape if ref else ()) for o in ops)
    if op is Ops.WHERE:
      shape = nodes[0].shape if nodes else ()
      branch = next((o.value for o in ops[1:] if o.kind == "node"), None)
      cond = self.coerce(cur, ops[0], dtypes.bool, shape)
      return (cond, *(self.coerce(cur, o, branch.dtype if branch else None, shape) for o in ops[1:]))
    if op is Ops.CALL:
      body = self.natural(ops[0])
      params = {p.arg.slot: p for p in call_params(body)}
      args = [self.coerce(cur, o, params[i].dtype, params[i].shape) if i in params else self.natural(o) for i, o in enumerate(ops[1:])]
      return (body, *args)
    return tuple(self.natural(o) for o in ops)

  def coerce(self, cur: TokenCursor, o: _Operand, dtype: DType | None, shape: tuple[int, ...]) -> UOp:
    """A literal made to fit: an int literal next to an f32 node is f32, and a scalar is broadcast."""
    if o.kind == "node": return o.value
    value, ldtype = o.value
    if dtype is not None and ldtype is not dtype:
      if ldtype is dtypes.i32 and dtype is dtypes.f32: ldtype = dtypes.f32
      else: raise cur.error(o.tok.col, f"expected {_a(dtype.name)} literal here, got {_a(ldtype.name)} literal {o.tok.text}")
    return UOp.const(value, ldtype).broadcast(shape)


try: from uopc import _uir as _native   # plain_lines in C (setup.py builds it; optional)
except ImportError: _native = None   # type: ignore[assignment]
if _native is not None:
  _native.configure(UOp, ParamArg, Ops.PARAM, vars(_uop), [(name, op, op in COMPARISON, op in _DIVMOD) for name, op in _BINARY_OPS.items()],
                    list(_DTYPES.items()), BOOL, I32)


def _decode(data: bytes, filename: str) -> str:
  try: return data.decode("utf-8")
  except UnicodeDecodeError as e:
    line = data.count(b"\n", 0, e.start) + 1
    start = data.rfind(b"\n", 0, e.start) + 1
    col = len(data[start:e.start].decode("utf-8", "replace")) + 1
    raise UIRError(filename, line, col, f"invalid UTF-8 byte 0x{data[e.start]:02x}") from None


def read_uir(path: str | os.PathLike[str]) -> UOp:
  """The program in the ``.uir`` file at ``path`` (its errors say ``file:line:col``); ``parse_uir`` of the file's bytes."""
  with open(path, "rb") as f: return parse_uir(f.read(), os.fspath(path))


def parse_uir(text: str | bytes, filename: str = "<string>") -> UOp:
  """The root (last node) of a ``.uir`` program; any bad input raises ``UIRError``.

  >>> parse_uir("%0 = param : slot=0 dtype=f32 shape=(2,)\\n%1 = mul %0, 2  # 2 is 2.0, broadcast")
  UOp(Ops.MUL, dtypes.f32, mul(p0, expand(reshape(2.0, (1,)), (2,))))
  >>> try: parse_uir("%0 = mull 1, 2", "f.uir")
  ... except UIRError as e: print(e)
  f.uir:1:6: unknown op 'mull'; did you mean mul?
  """
  if isinstance(text, (bytes, bytearray)): text = _decode(bytes(text), filename)
  if not isinstance(text, str): raise TypeError(f"parse_uir needs str or bytes, got {type(text).__name__}")
  if text.startswith("\ufeff"): text = text[1:]   # a byte order mark is not content
  parser = _Parser()
  # split on "\n" only: str.splitlines would also break at \x0c, \u2028, ... and miscount lines
  lines = text.split("\n")
  with collector.paused(settle=True):   # a node a line, all lasting, no cycle: no pass need ever look at them young
    i = 0
    while (i := parser.plain_lines(lines, i)) < len(lines):
      line, lineno = lines[i], i + 1
      if parser.plain_line(line, lineno, filename) is None: parser.line(TokenCursor(tokenize(line, lineno, filename), lineno, filename))
      i += 1
  if (root := parser.root) is not None: parser.check_slots(root, filename)
  if root is None:
    if len(lines) > 1 and lines[-1] == "": lines.pop()   # the end of a file is the end of its last line
    raise UIRError(filename, len(lines), len(lines[-1]) + 1, "expected at least one node '%N = op ...'")
  return root
