"""Hash-consed UOps: immutable ``(op, dtype, src, arg)`` nodes of a program DAG.

Building a node equal to an existing one returns the existing object, so ``a is b``
is structural equality and a dict keyed by node is a memo table:

>>> p0 = UOp.param(0)
>>> (p0 + 2) * 3 is (p0 + 2) * 3
True
>>> UOp.const(0.0) is UOp.const(-0.0), UOp.const(0) is UOp.const(False)
(False, False)

Construction type-checks and infers dtype and shape; a bad node raises ``UOpError``.
Nothing here recurses on the depth of a graph.
"""
from __future__ import annotations

import struct
import sys
from typing import Any, Callable, Iterable, NamedTuple

from uopc.dtype import BOOL, F32, I32, DType, dtypes, truncate
from uopc.ops import (ADD, ALU, BINARY, CAST, CMPLT, CMPNE, COMPARISON, CONST, FLOORDIV, FLOORMOD, MAX, MOVEMENT, MUL, PARAM, RANGE,  # noqa: F401
                      REDUCE_OPS, STACK, UNARY, WHERE, Ops)   # (ALU: the chapter imports it from here)

Shape = tuple[int, ...]
_F64 = struct.Struct("<d")


class UOpError(Exception):
  """A node that cannot exist: wrong dtypes, shapes, arity or args."""


class ParamArg(NamedTuple):
  """The arg of a PARAM: which argument slot it is, and its type."""
  slot: int
  dtype: DType
  shape: Shape = ()
  addrspace: str | None = None


def prod(xs: Iterable[int]) -> int:
  """Product of a sequence of ints (1 for an empty one)."""
  out = 1
  for x in xs: out *= x
  return out


# The hash-consing tables. A node is found by its sources in the table of its (op, dtype,
# arg): its src tuple is the key, so a node costs no key object of its own. A constant is
# found by its value alone in its dtype's table, a float by its bits (0.0 == -0.0 and
# nan != nan in Python). The tables hold nodes strongly (no weakref and __del__ per node,
# the costliest part of making one), and _log lists every other node oldest first, so
# that _collect can drop users before their sources; it runs when the log has doubled.
_tables: dict[tuple, dict[tuple, UOp]] = {}
_consts: dict[DType, dict[Any, UOp]] = {d: {} for d in dtypes.all}
_log: list[UOp] = []
_cache_limit = 100_000   # a log or constant table this big triggers _collect
_memos: list[dict] = []   # memo tables keyed by nodes (node_memo): emptied by _collect, so they never keep a node alive


def node_memo() -> dict:
  """A new memo table keyed by nodes that each collection of the node tables empties.

  A module-level memo would otherwise keep every node it ever saw alive (and so every
  node below it) for as long as the process runs; emptied here, it lives no longer than
  the nodes the tables would keep anyway.

  >>> memo = node_memo()
  >>> memo[UOp.param(0) + 12345] = True
  >>> _ = live_nodes()   # collects
  >>> memo
  {}
  """
  memo: dict = {}
  _memos.append(memo)
  return memo


def _collect() -> None:
  """Drop the nodes that only the tables refer to; users first (newest first), so their sources go too."""
  global _cache_limit, _log
  for memo in _memos: memo.clear()
  log, tables, refcount, keep, u = _log, _tables, sys.getrefcount, [], None   # locals: this loop visits every node
  while log:
    u = log.pop()   # popped: the log no longer holds it, so a dropped node is freed before its sources are looked at
    if refcount(u) <= 3: del tables[u.op, u.dtype, u.arg][u.src]   # its table's reference, u, and getrefcount's argument
    else: keep.append(u)
  u = None   # the last node looked at is freed too, if it was dropped
  keep.reverse()
  _log = log = keep   # (built by appends, it has room to grow)
  for key in [key for key, table in tables.items() if not table]: del tables[key]   # a PARAM's, say, once it is gone
  for consts in _consts.values():   # constants last: they have no sources, but users hold them
    for value in list(consts):
      if refcount(consts[value]) <= 2: del consts[value]
  _cache_limit = max(100_000, 2 * len(log), *(2 * len(t) for t in _consts.values()))


def log_mark() -> int:
  """Where the node log is now: ``forget_since`` drops what was made after it."""
  return len(_log)


def forget_since(mark: int, foreign: Callable[[UOp], bool]) -> int:
  """Drop from the tables and the log, now, every ``foreign`` leaf (a constant whose arg is no value) and every node
  made since ``mark`` that stands on one: the prover's nodes over symbolic constants (``uopc.smt.concolic``), whose
  args are z3 terms that no other node may ever meet or keep alive. Returns how many were dropped."""
  global _log
  start = mark if mark <= len(_log) else 0   # a collection since compacted the log: look at all of it
  gone: set[UOp] = set()
  for consts in _consts.values():
    for key in [k for k in consts if type(k) not in (int, float, bool, bytes) and foreign(consts[k])]: gone.add(consts.pop(key))
  for u in _log[start:]:
    if any(s in gone or (not s.src and foreign(s)) for s in u.src):
      gone.add(u)
      table = _tables_get((u.op, u.dtype, u.arg))
      if table is not None and table.get(u.src) is u: del table[u.src]
  if gone: _log = _log[:start] + [u for u in _log[start:] if u not in gone]
  return len(gone)


def live_nodes() -> int:
  """How many nodes the hash-consing tables hold now (after dropping unused ones)."""
  _collect()
  return len(_log) + sum(map(len, _consts.values()))


class UOp:
  """One node of a program: ``UOp(op, src=(), arg=None, dtype=None)``.

  ``dtype`` is inferred when omitted (CAST is the one op that needs it).
  """
  __slots__ = ("op", "dtype", "src", "arg", "shape", "_bounds")
  op: Ops
  dtype: DType
  src: tuple[UOp, ...]
  arg: Any
  shape: Shape
  _bounds: Any   # bounds.py's cache of the node's value range, None until asked

  def __new__(cls, op: Ops, src: tuple[UOp, ...] = (), arg: Any = None, dtype: DType | None = None) -> UOp:
    if op is CONST and not src: return UOp.const(arg, dtype)   # a literal, checked as one
    return make_uop(op, src, arg, dtype)

  # nodes are values: copying returns the node itself
  def __copy__(self) -> UOp: return self
  def __deepcopy__(self, memo: dict) -> UOp: return self
  def __reduce__(self) -> tuple[Any, ...]:
    # pickle nests a few C frames a level of sources, under Python's recursion limit: a node not higher than
    # PICKLE_NESTED_HEIGHT pickles as itself (its sources by pickle's memo, shared with the rest of what is pickled), a
    # higher one as a flat list whose higher part is never nested (``_flat_graph``), so a graph of any depth pickles
    if (_heights.get(self) or _height(self)) <= PICKLE_NESTED_HEIGHT: return (UOp, (self.op, self.src, self.arg, self.dtype))
    return (_from_flat_graph, (_flat_graph(self),))

  def __repr__(self) -> str:
    if not self.src: return f"UOp({self.op!r}, arg={self.arg!r})" if self.op is not Ops.CONST or self.dtype is dtypes.of(self.arg) \
      else f"UOp({self.op!r}, arg={self.arg!r}, dtype={self.dtype!r})"
    from uopc.lengths import LENGTHS
    from uopc.term import show
    return f"UOp({self.op!r}, {self.dtype!r}, {show(self, limit=LENGTHS.repr)})"

  def _repr_svg_(self) -> str:
    """Jupyter draws a UOp as its DAG (``uopc.draw``: each shared node once)."""
    from uopc.draw import dag_svg
    return dag_svg(self)

  # ---- constructors
  @staticmethod
  def const(v: Any, dtype: DType | None = None) -> UOp:
    """A scalar constant; its dtype is ``dtype`` or the literal's (3: i32, 3.0: f32, True: bool).

    ``v`` must be a value of the dtype (an f32 is rounded to the nearest, past its largest to inf): an
    out-of-range literal is an error, never wrapped. The engine wraps what it computes, through ``make_uop``.

    >>> UOp.const(2**40)
    Traceback (most recent call last):
      ...
    uopc.uop.UOpError: CONST: 1099511627776 is out of range for i32: -2147483648 to 2147483647 (uopc.dtype.truncate(dtypes.i32, v) wraps it)
    """
    if dtype is None: dtype = _literal_dtype(v)
    if (problem := _literal_problem(v, dtype)) is not None: raise UOpError(f"CONST: {problem}")
    return make_uop(CONST, (), v, dtype)

  @staticmethod
  def param(slot: int, dtype: DType = dtypes.i32, shape: Shape = (), addrspace: str | None = None) -> UOp:
    """The PARAM for argument ``slot``: ``UOp.param(0)`` is p0."""
    return UOp(Ops.PARAM, (), ParamArg(slot, dtype, tuple(shape), addrspace))

  def const_like(self, v: Any) -> UOp:
    """A constant of this node's dtype, broadcast to this node's shape.

    ``v`` must be a value of that dtype, as a ``.uir`` literal is (an int may stand for
    an f32, 0 and 1 for a bool): ``UOp.param(0) * 2.5`` is an error, not ``mul(p0, 2)``.
    """
    if not _fits(v, self.dtype):
      got = f"{dtypes.of(v).name} literal" if isinstance(v, (int, float)) else type(v).__name__
      raise UOpError(f"expected {'a' if self.dtype is dtypes.bool else 'an'} {self.dtype.name} constant, got {got} {v!r}")
    c = make_uop(CONST, (), v, self.dtype)
    return c.broadcast(self.shape) if self.shape else c

  def broadcast(self, shape: Shape) -> UOp:
    """A scalar made into ``shape`` by RESHAPE to all ones and EXPAND (the ``.uir`` literal sugar)."""
    if self.shape == tuple(shape): return self
    if self.shape != (): raise UOpError(f"EXPAND: cannot broadcast shape {self.shape} to {tuple(shape)}")
    return self.reshape((1,) * len(shape)).expand(tuple(shape))

  def replace(self, **kw: Any) -> UOp:
    """This node with some of ``op``, ``src``, ``arg``, ``dtype`` changed."""
    return make_uop(kw.get("op", self.op), kw.get("src", self.src), kw.get("arg", self.arg), kw.get("dtype", self.dtype))

  # ---- operator sugar: a non-UOp operand becomes a constant like self. Rules build their
  # results with it, so the binary ones call make_uop directly (with module-global ops).
  def _operand(self, o: Any) -> UOp: return o if isinstance(o, UOp) else self.const_like(o)
  def alu(self, op: Ops, *others: Any) -> UOp:
    """``self`` op ``others``, with Python numbers turned into constants of ``self``'s dtype."""
    return make_uop(op, (self, *[self._operand(o) for o in others]))
  def __add__(self, o: Any) -> UOp: return make_uop(ADD, (self, o if isinstance(o, UOp) else self.const_like(o)))
  def __radd__(self, o: Any) -> UOp: return make_uop(ADD, (self._operand(o), self))
  def __mul__(self, o: Any) -> UOp: return make_uop(MUL, (self, o if isinstance(o, UOp) else self.const_like(o)))
  def __rmul__(self, o: Any) -> UOp: return make_uop(MUL, (self._operand(o), self))
  def __sub__(self, o: Any) -> UOp: return self + self._operand(o) * -1
  def __neg__(self) -> UOp: return self * -1
  def __floordiv__(self, o: Any) -> UOp: return make_uop(FLOORDIV, (self, o if isinstance(o, UOp) else self.const_like(o)))
  def __mod__(self, o: Any) -> UOp: return make_uop(FLOORMOD, (self, o if isinstance(o, UOp) else self.const_like(o)))
  def __lt__(self, o: Any) -> UOp: return make_uop(CMPLT, (self, o if isinstance(o, UOp) else self.const_like(o)))
  def __gt__(self, o: Any) -> UOp: return make_uop(CMPLT, (self._operand(o), self))
  def ne(self, o: Any) -> UOp: return make_uop(CMPNE, (self, o if isinstance(o, UOp) else self.const_like(o)))
  def max(self, o: Any) -> UOp: return make_uop(MAX, (self, o if isinstance(o, UOp) else self.const_like(o)))
  def where(self, a: Any, b: Any) -> UOp:
    """``self ? a : b``; a Python number takes the dtype of the other branch."""
    if not isinstance(a, UOp) and not isinstance(b, UOp): a = UOp.const(a).broadcast(self.shape)
    if not isinstance(a, UOp): a = b.const_like(a)
    if not isinstance(b, UOp): b = a.const_like(b)
    return UOp(Ops.WHERE, (self, a, b))
  def cast(self, dtype: DType) -> UOp: return UOp(Ops.CAST, (self,), None, dtype)
  def recip(self) -> UOp: return UOp(Ops.RECIP, (self,))
  def exp2(self) -> UOp: return UOp(Ops.EXP2, (self,))
  def log2(self) -> UOp: return UOp(Ops.LOG2, (self,))
  def sqrt(self) -> UOp: return UOp(Ops.SQRT, (self,))
  def sin(self) -> UOp: return UOp(Ops.SIN, (self,))
  def index(self, *idx: Any) -> UOp:
    """INDEX into the leading dims; ints become i32 constants."""
    return UOp(Ops.INDEX, (self, *(i if isinstance(i, UOp) else UOp.const(i, dtypes.i32) for i in idx)))
  def reshape(self, shape: Shape) -> UOp: return UOp(Ops.RESHAPE, (self,), tuple(shape))
  def expand(self, shape: Shape) -> UOp: return UOp(Ops.EXPAND, (self,), tuple(shape))
  def permute(self, order: Shape) -> UOp: return UOp(Ops.PERMUTE, (self,), tuple(order))
  def shrink(self, bounds: tuple[tuple[int, int], ...]) -> UOp: return UOp(Ops.SHRINK, (self,), tuple(map(tuple, bounds)))
  def reduce(self, op: Ops, k: int = 1) -> UOp: return UOp(Ops.REDUCE, (self,), (op, k))
  @staticmethod
  def stack(*elems: Any) -> UOp:
    """A STACK of nodes or Python literals."""
    return UOp(Ops.STACK, tuple(e if isinstance(e, UOp) else UOp.const(e) for e in elems))
  def call(self, *args: Any, name: str | None = None) -> UOp:
    """CALL this body with ``args`` bound to its PARAM slots 0, 1, ..."""
    return UOp(Ops.CALL, (self, *(a if isinstance(a, UOp) else UOp.const(a) for a in args)), name)

  # ---- graph walks (iterative: graphs can be far deeper than Python's stack)
  def toposort(self, enter: Callable[[UOp], Iterable[UOp]] | None = None) -> list[UOp]:
    """Every node reachable from here, sources before users, left to right.

    ``enter(u)`` chooses which sources of ``u`` to walk into (default: all).
    """
    return toposort(self, enter)

  def substitute(self, mapping: dict[UOp, UOp], build: Callable[[UOp, tuple[UOp, ...]], UOp] | None = None) -> UOp:
    """Replace nodes everywhere below (including inside CALL bodies: see ``inline_call``). ``build(u, src)`` makes a
    node on its new sources (default ``u.replace(src=src)``; the engine's ``uopc.rewrite.rebuild`` keeps a CALL's body
    as written where the new one lost a PARAM, as a rewrite does)."""
    new: dict[UOp, UOp] = {}
    for u in self.toposort():
      if u in mapping: new[u] = mapping[u]; continue
      src = tuple(new[s] for s in u.src)
      new[u] = u if src == u.src else u.replace(src=src) if build is None else build(u, src)
    return new[self]


def toposort(root: Any, enter: Callable[[Any], Iterable[Any]] | None = None) -> list[Any]:
  """``UOp.toposort`` for any hash-consed node with ``src`` (another IR's too): every node reachable from ``root``,
  sources before users, left to right, each once; iterative. ``enter(u)``: the sources of ``u`` to walk into."""
  order: list[Any] = []
  seen: set[Any] = set()
  stack: list[tuple[Any, bool]] = [(root, False)]
  while stack:
    u, expanded = stack.pop()
    if expanded: order.append(u); continue
    if u in seen: continue
    seen.add(u)
    stack.append((u, True))
    stack.extend((s, False) for s in reversed(u.src if enter is None else tuple(enter(u))) if s not in seen)
  return order


def fill_bottom_up(root: Any, done: dict[Any, Any], make: Callable[[Any, tuple], Any]) -> Any:
  """``done[root]``, first setting ``done[u] = make(u, its sources' entries)`` for each node ``u`` below ``root`` not in
  ``done``, sources first: a post-order walk (iterative: any depth) that stops at what is done, so a graph met before
  costs only its new part. The last source is made first (the e-graph's class ids depend on this order).

  >>> p0 = UOp.param(0)
  >>> sizes = {p0: 1}   # p0 is done: the walk does not enter it
  >>> fill_bottom_up((p0 + 1) * p0, sizes, lambda u, kids: 1 + sum(kids)), len(sizes)   # the tree's size; 4 distinct nodes
  (5, 4)
  """
  stack = [(root, False)]
  while stack:
    u, ready = stack.pop()
    if u in done: continue
    if not ready:
      stack.append((u, True))
      stack.extend((s, False) for s in u.src if s not in done)
      continue
    done[u] = make(u, tuple([done[s] for s in u.src]))
  return done[root]


# ---- pickling (UOp.__reduce__): a node above this height goes as a flat list; pickle nests ~3 frames a level below it
PICKLE_NESTED_HEIGHT = 64
_heights: dict[UOp, int] = node_memo()   # each node's height (a leaf's is 0), kept until the node tables are next collected


def _height(u: UOp) -> int:
  return fill_bottom_up(u, _heights, lambda _, kids: 1 + max(kids, default=-1))


def _flat_graph(root: UOp) -> list[tuple[Ops, Any, DType, tuple[Any, ...]]]:
  """The nodes of ``root``'s graph higher than ``PICKLE_NESTED_HEIGHT``, sources first, ``root`` last, each as ``(op, arg,
  dtype, sources)``: a source is an earlier entry's index, or a node low enough to pickle as itself."""
  high = toposort(root, lambda u: [s for s in u.src if _height(s) > PICKLE_NESTED_HEIGHT])
  index = {u: i for i, u in enumerate(high)}
  return [(u.op, u.arg, u.dtype, tuple(index.get(s, s) for s in u.src)) for u in high]


def _from_flat_graph(entries: list[tuple[Ops, Any, DType, tuple[Any, ...]]]) -> UOp:
  """The graph ``_flat_graph`` wrote, made again (hash-consed: the very nodes, where they exist)."""
  made: list[UOp] = []
  for op, arg, dtype, src in entries: made.append(UOp(op, tuple(made[s] if type(s) is int else s for s in src), arg, dtype))
  return made[-1]


def call_body_scope(u: UOp) -> tuple[UOp, ...]:
  """Sources that belong to ``u``'s scope: a CALL's body is a binder of its own."""
  return u.src[1:] if u.op is Ops.CALL else u.src


def call_params(body: UOp) -> list[UOp]:
  """The PARAMs of a function body, not descending into nested CALL bodies."""
  return [u for u in body.toposort(call_body_scope) if u.op is Ops.PARAM]


def _fits(v: Any, dtype: DType) -> bool:
  """Whether ``v`` is a value of ``dtype`` as it is (no rounding to an int, no wrapping, no truth test)."""
  t = type(v)
  if dtype is F32: return t is float or t is int or _fits_symbolic(v, dtype)
  if dtype is I32: return (t is int and -0x80000000 <= v <= 0x7FFFFFFF) or _fits_symbolic(v, dtype)
  return t is bool or (t is int and v in (0, 1)) or _fits_symbolic(v, dtype)


def _fits_symbolic(v: Any, dtype: DType) -> bool:
  """A symbolic constant of the prover (``uopc.smt.concolic``) says itself whether it fits (it may fork on it)."""
  return type(v) not in (int, float, bool) and hasattr(v, "__uopc_fits__") and v.__uopc_fits__(dtype)


def _literal_problem(v: Any, dtype: DType) -> str | None:
  """Why the Python value ``v`` is not a literal of ``dtype`` (one ``truncate`` keeps as it is, or rounds, for f32), or None.

  Values of another kind (a string) are left to ``make_uop``, which names them.
  """
  t = type(v)
  if t is not int and t is not float and t is not bool: return None
  if dtype is I32:
    if t is float and not v.is_integer():
      return f"{_number_text(v)} is not an i32 value: an integer from -2147483648 to 2147483647"
    if not -0x80000000 <= v <= 0x7FFFFFFF:
      return f"{_number_text(v)} is out of range for i32: -2147483648 to 2147483647 (uopc.dtype.truncate(dtypes.i32, v) wraps it)"
  elif dtype is BOOL:
    if v not in (0, 1): return f"{_number_text(v)} is not a bool value: True, False, 1 or 0"
  elif dtype is F32 and t is int:
    try: float(v)
    except OverflowError: return f"{_number_text(v)} is out of range for f32: it rounds to no f32 value"
  return None


def _number_text(v: Any, n: int = 40) -> str:
  """A number for a message, its first ``n`` digits if longer (Python refuses to print an int of 4,300 digits or more)."""
  if type(v) is float or abs(v) < 10**n: return repr(v) if type(v) is float else str(v)
  try: return str(v)[:n] + "..."
  except ValueError: return f"a {v.bit_length()}-bit integer"


def make_uop(op: Ops, src: tuple[UOp, ...] = (), arg: Any = None, dtype: DType | None = None) -> UOp:
  """``UOp(op, src, arg, dtype)`` without the cost of a class call (hot paths use this).

  A hit in the hash-consing table costs a key and a lookup. A new node is type-checked;
  the two kinds that rewriting makes most, constants and well-typed binary ALU nodes,
  are checked inline, everything else (and every error) by ``_check``.
  """
  if type(src) is not tuple: src = tuple(src)
  if op is CONST and not src:
    if dtype is None: dtype = _literal_dtype(arg)
    if dtype is not I32 or type(arg) is not int or not -0x80000000 <= arg <= 0x7FFFFFFF:   # else arg is an i32 already
      try: arg = truncate(dtype, arg)
      except (TypeError, ValueError): raise UOpError(f"CONST: {arg!r} is not a valid {getattr(dtype, 'name', dtype)} value") from None
    return make_const(arg, dtype)   # truncate accepted dtype: it is a DType
  shape: Shape | None = None   # None: _check decides
  if len(src) == 2 and op in BINARY:
    try:
      a, b = src
      dt = a.dtype
      if op in COMPARISON:   # operands of one dtype, a bool result
        if dtype is None: dtype = BOOL
        if dtype is BOOL and b.dtype is dt and a.shape == b.shape: shape = a.shape
      else:                   # operands and result of one dtype
        if dtype is None: dtype = dt
        if dt is dtype and b.dtype is dt and (dt is I32 or op not in _DIVMOD) and a.shape == b.shape: shape = a.shape
    except AttributeError:   # not UOps: _check says so
      if dtype is None: dtype = _infer_dtype(op, src, arg)
  elif dtype is None: dtype = _infer_dtype(op, src, arg)
  try: table = _tables_get(key := (op, dtype, arg))
  except TypeError: raise UOpError(f"{op.name}: arg {arg!r} is not hashable") from None
  if table is not None and (u := table.get(src)) is not None: return u
  if shape is None: shape = _check(op, dtype, src, arg)   # before a table is made: a bad node leaves nothing behind
  if table is None: table = _tables[key] = {}
  return _intern(table, op, dtype, src, arg, shape)


_NO_NODES: dict[tuple, UOp] = {}   # the table of an (op, dtype, arg) nothing was made with (shared; never written)


def existing_nodes(op: Ops, dtype: DType, arg: Any) -> Callable[[tuple[UOp, ...]], UOp | None]:
  """Look up nodes without making any: ``existing_nodes(op, dtype, arg)(src)`` is the node that
  ``make_uop(op, src, arg, dtype)`` would return if it already exists, else None.

  For callers that rebuild many graphs most of whose nodes exist (the explorer's steps): one
  dict lookup instead of a constructor call. Constants are not in these tables (``UOp.const``
  finds them by value), so they are always None here. An unhashable ``arg`` raises TypeError.

  >>> x = UOp.param(0) + 1
  >>> existing_nodes(x.op, x.dtype, x.arg)(x.src) is x, existing_nodes(x.op, x.dtype, x.arg)((x, x))
  (True, None)
  """
  return (_tables_get((op, dtype, arg)) or _NO_NODES).get


def make_checked(op: Ops, dtype: DType, src: tuple[UOp, ...], arg: Any, shape: Shape) -> UOp:
  """``make_uop(op, src, arg, dtype)`` for a caller that has type-checked the node itself and knows its ``shape``.

  Trusted, and internal: nothing is checked, so a node ``make_uop`` would refuse must never get
  here. The ``.uir`` parser's plain lines use it (their well-typed binary nodes and scalar PARAMs,
  checked as they are read); every user-facing constructor keeps its checks.

  >>> make_checked(Ops.ADD, dtypes.i32, (UOp.param(0), UOp.const(1)), None, ()) is UOp.param(0) + 1
  True
  """
  if (table := _tables_get(key := (op, dtype, arg))) is None: table = _tables[key] = {}
  elif (u := table.get(src)) is not None: return u
  return _intern(table, op, dtype, src, arg, shape)


def _intern(table: dict[tuple, UOp], op: Ops, dtype: DType, src: tuple[UOp, ...], arg: Any, shape: Shape) -> UOp:
  """A new node, type-checked already, into its table and the log."""
  u = _new_uop(UOp)
  u.op = op; u.dtype = dtype; u.src = src; u.arg = arg; u.shape = shape; u._bounds = None
  table[src] = u
  _log.append(u)
  if len(_log) > _cache_limit: _collect()
  return u


def make_const(value: Any, dtype: DType) -> UOp:
  """The CONST node of ``value``, which is already in ``dtype``'s value set (as ``truncate`` and ``exec_alu`` return).

  Constant folding makes one per folded node, so it skips ``make_uop``'s checks.

  >>> make_const(7, dtypes.i32) is UOp.const(7), make_const(-0.0, dtypes.f32) is UOp.const(0.0)
  (True, False)
  """
  table = _consts[dtype]
  key = _F64.pack(value) if dtype is F32 and type(value) is float else value   # (a prover's symbolic f32 by identity)
  if (u := table.get(key)) is not None: return u
  u = _new_uop(UOp)
  u.op = CONST; u.dtype = dtype; u.src = (); u.arg = value; u.shape = (); u._bounds = None
  table[key] = u
  if len(table) > _cache_limit: _collect()
  return u


def stack_rows(op: Ops, columns: list[tuple[UOp, ...]], arg: Any = None, dtype: DType | None = None) -> UOp:
  """The STACK of ``op`` on each row of ``columns`` side by side: element i is ``make_uop(op, (c0[i], c1[i], ...), arg, dtype)``.

  This is how an op is pushed through STACKs. Each column's nodes share one dtype and
  one shape (the elements of a STACK do, and so do INDEXes of one node), so the first
  row's type check holds for every row and for the STACK: the rest is hash consing.

  >>> a, b = UOp.stack(1, 2), UOp.stack(10, 20)
  >>> stack_rows(Ops.ADD, [a.src, b.src]) is UOp.stack(a.src[0] + b.src[0], a.src[1] + b.src[1])
  True
  """
  rows = zip(*columns)
  first = make_uop(op, next(rows), arg, dtype)
  dtype, shape, out = first.dtype, first.shape, [first]
  table, log_append = _tables[op, dtype, arg], _log.append   # the first row made the table
  for src in rows:
    if (u := table.get(src)) is None:
      u = _new_uop(UOp)
      u.op = op; u.dtype = dtype; u.src = src; u.arg = arg; u.shape = shape; u._bounds = None
      table[src] = u
      log_append(u)
    out.append(u)
  elems = tuple(out)
  if (stacks := _tables_get(key := (STACK, dtype, None))) is None: stacks = _tables[key] = {}
  elif (stack := stacks.get(elems)) is not None: return stack
  return _intern(stacks, STACK, dtype, elems, None, (len(elems), *shape))   # collects, if due, with every new node held


# Module globals for hot paths: in CPython 3.11 a class attribute (Ops.CONST, dtypes.i32)
# is a dictionary walk on every use, a module global is a cached load.
_new_uop, _tables_get = object.__new__, _tables.get   # bound once: a method lookup per node costs more than the lookup


# ---- dtype inference and type checking (run once per distinct node)

def _literal_dtype(arg: Any) -> DType:
  try: return dtypes.of(arg)
  except TypeError as e: raise UOpError(f"CONST: {e}") from None


def _infer_dtype(op: Ops, src: tuple[UOp, ...], arg: Any) -> DType:
  if op is PARAM:
    if not isinstance(arg, ParamArg): raise UOpError(f"PARAM: arg must be a ParamArg, got {arg!r}")
    return arg.dtype
  if op in COMPARISON: return BOOL
  if op is RANGE: return I32
  if op is CAST: raise UOpError("CAST: needs a dtype")
  if not src: raise UOpError(f"{op.name}: needs at least one {'element' if op is STACK else 'source'}")
  return src[1].dtype if op is WHERE and len(src) == 3 else src[0].dtype


def _arity(op: Ops, src: tuple, n: int) -> None:
  if len(src) != n: raise UOpError(f"{op.name}: needs {n} source{'s' * (n != 1)}, got {len(src)}")


def _dims(op: Ops, arg: Any, what: str) -> tuple[int, ...]:
  # dims are positive: a value has at least one element (a STACK is never empty)
  if not isinstance(arg, tuple) or not all(type(d) is int and d >= 1 for d in arg):
    raise UOpError(f"{op.name}: {what} must be a tuple of positive ints, got {arg!r}")
  return arg


def _same_dtype(op: Ops, dtype: DType, operands: tuple[UOp, ...], what: str = "its operands'") -> None:
  for s in operands:
    if s.dtype is not dtype: raise UOpError(f"{op.name}: mismatched dtypes {', '.join(o.dtype.name for o in operands)}"
                                            if any(o.dtype is not operands[0].dtype for o in operands)
                                            else f"{op.name}: dtype {dtype.name} differs from {what} {s.dtype.name}")


def _same_shape(op: Ops, src: tuple[UOp, ...]) -> Shape:
  shape = src[0].shape
  for s in src:
    if s.shape != shape: raise UOpError(f"{op.name}: mismatched shapes {', '.join(str(o.shape) for o in src)}")
  return shape


# One checker per op: each type-checks a new node and returns its shape. They run once per
# distinct node (hash-consing hits skip them), but a rewrite creates many nodes, so the
# common ALU cases are kept short.

def _text(what: str, s: Any) -> None:
  """A name must be text: a lone surrogate ("\\ud800") is no character, and no output could hold it."""
  if not isinstance(s, str): raise UOpError(f"{what} must be a string, got {s!r}")
  try: s.encode("utf-8")
  except UnicodeEncodeError as e: raise UOpError(f"{what} is not text: lone surrogate U+{ord(s[e.start]):04X}") from None


def _check_leaf(op: Ops, dtype: DType, src: tuple[UOp, ...], arg: Any) -> Shape:
  _arity(op, src, 0)
  if op is Ops.CONST: return ()
  if arg.addrspace is not None: _text("PARAM: addrspace", arg.addrspace)
  if type(arg.slot) is not int or arg.slot < 0: raise UOpError(f"PARAM: slot must be a non-negative int, got {arg.slot!r}")
  if arg.dtype is not dtype: raise UOpError(f"PARAM: dtype {dtype.name} differs from its arg's {arg.dtype.name}")
  return _dims(op, arg.shape, "shape")


def _check_binary(op: Ops, dtype: DType, src: tuple[UOp, ...], arg: Any) -> Shape:
  if len(src) == 2:   # the common, well-typed case first: no helper calls
    a, b = src
    if a.dtype is b.dtype and a.shape == b.shape and (
        dtype is dtypes.bool if op in COMPARISON else dtype is a.dtype and (dtype is dtypes.i32 or op not in _DIVMOD)):
      return a.shape
  _arity(op, src, 2)
  _same_dtype(op, src[0].dtype, src)
  if op in COMPARISON:
    if dtype is not dtypes.bool: raise UOpError(f"{op.name}: dtype must be bool, got {dtype.name}")
  else:
    _same_dtype(op, dtype, src)
    if op in _DIVMOD and dtype is not dtypes.i32: raise UOpError(f"{op.name}: needs i32 operands, got {dtype.name}")
  return _same_shape(op, src)


_DIVMOD = frozenset({Ops.FLOORDIV, Ops.FLOORMOD})


def _check_unary(op: Ops, dtype: DType, src: tuple[UOp, ...], arg: Any) -> Shape:
  _arity(op, src, 1)
  if op is not Ops.CAST:
    if src[0].dtype is not dtypes.f32: raise UOpError(f"{op.name}: needs an f32 operand, got {src[0].dtype.name}")
    _same_dtype(op, dtype, src)
  return src[0].shape


def _check_where(op: Ops, dtype: DType, src: tuple[UOp, ...], arg: Any) -> Shape:
  _arity(op, src, 3)
  if src[0].dtype is not dtypes.bool: raise UOpError(f"WHERE: condition must be bool, got {src[0].dtype.name}")
  _same_dtype(op, src[1].dtype, src[1:])
  _same_dtype(op, dtype, src[1:])
  return _same_shape(op, src)


def _check_range(op: Ops, dtype: DType, src: tuple[UOp, ...], arg: Any) -> Shape:
  _arity(op, src, 1)
  if src[0].dtype is not dtypes.i32 or src[0].shape != (): raise UOpError("RANGE: end must be an i32 scalar")
  if dtype is not dtypes.i32: raise UOpError(f"RANGE: dtype must be i32, got {dtype.name}")
  return ()


def _check_stack(op: Ops, dtype: DType, src: tuple[UOp, ...], arg: Any) -> Shape:
  if not src: raise UOpError("STACK: needs at least one element")
  shape = src[0].shape
  for s in src:   # the well-typed case, in one pass; the sets below name what is wrong
    if s.dtype is not dtype or s.shape != shape: break
  else: return (len(src), *shape)
  if len({s.dtype for s in src}) != 1: raise UOpError(f"STACK: mismatched dtypes {', '.join(sorted({s.dtype.name for s in src}))}")
  if len({s.shape for s in src}) != 1: raise UOpError(f"STACK: mismatched shapes {', '.join(map(str, sorted({s.shape for s in src})))}")
  _same_dtype(op, dtype, src[:1], "its elements'")
  return (len(src), *src[0].shape)


def _check_index(op: Ops, dtype: DType, src: tuple[UOp, ...], arg: Any) -> Shape:
  if not src: raise UOpError("INDEX: needs a source")
  base, idx = src[0], src[1:]
  if len(idx) > len(base.shape): raise UOpError(f"INDEX: {len(idx)} indices into shape {base.shape}")
  for i in idx:
    if i.dtype is not dtypes.i32 or i.shape != (): raise UOpError(f"INDEX: indices must be i32 scalars, got {i.dtype.name}{list(i.shape)}")
  _same_dtype(op, dtype, src[:1], "its source's")
  return base.shape[len(idx):]


def _check_call(op: Ops, dtype: DType, src: tuple[UOp, ...], arg: Any) -> Shape:
  if not src: raise UOpError("CALL: needs a body")
  if arg is not None: _text("CALL: name", arg)
  body, args = src[0], src[1:]
  params: dict[int, UOp] = {}
  for p in call_params(body):
    if p.arg.slot in params and (params[p.arg.slot].dtype, params[p.arg.slot].shape) != (p.dtype, p.shape):
      raise UOpError(f"CALL: body uses slot {p.arg.slot} with two types")
    params[p.arg.slot] = p
  if sorted(params) != list(range(len(args))):
    raise UOpError(f"CALL needs params 0..{len(args) - 1}, body has {sorted(params)}")
  for slot, p in params.items():
    a = args[slot]
    if (a.dtype, a.shape) != (p.dtype, p.shape):
      raise UOpError(f"CALL: argument {slot} is {a.dtype.name}{list(a.shape)}, the body's PARAM wants {p.dtype.name}{list(p.shape)}")
  _same_dtype(op, dtype, src[:1], "its body's")
  return body.shape


def _check_movement(op: Ops, dtype: DType, src: tuple[UOp, ...], arg: Any) -> Shape:
  _arity(op, src, 1)
  _same_dtype(op, dtype, src, "its source's")
  ishape = src[0].shape
  if op is Ops.RESHAPE:
    if prod(_dims(op, arg, "shape")) != prod(ishape): raise UOpError(f"RESHAPE: cannot reshape {ishape} to {arg}")
    return arg
  if op is Ops.EXPAND:
    _dims(op, arg, "shape")
    if len(arg) != len(ishape) or any(i != o and i != 1 for i, o in zip(ishape, arg)):
      raise UOpError(f"EXPAND: cannot expand {ishape} to {arg}")
    return arg
  if op is Ops.PERMUTE:
    if not isinstance(arg, tuple) or not all(type(d) is int for d in arg) or sorted(arg) != list(range(len(ishape))):
      raise UOpError(f"PERMUTE: {arg!r} is not a permutation of {len(ishape)} dims")
    return tuple(ishape[i] for i in arg)
  if op is Ops.SHRINK:
    if not isinstance(arg, tuple) or len(arg) != len(ishape) or not all(
        isinstance(b, tuple) and len(b) == 2 and all(type(x) is int for x in b) and 0 <= b[0] < b[1] <= d for b, d in zip(arg, ishape)):
      raise UOpError(f"SHRINK: {arg!r} is not a non-empty ((begin, end), ...) inside shape {ishape}")
    return tuple(e - b for b, e in arg)
  if not (isinstance(arg, tuple) and len(arg) == 2 and arg[0] in REDUCE_OPS and type(arg[1]) is int and 1 <= arg[1] <= len(ishape)):
    raise UOpError(f"REDUCE: arg must be (ADD|MUL|MAX, k) with 1 <= k <= {len(ishape)}, got {arg!r}")
  return ishape[:len(ishape) - arg[1]]


_CHECKS: dict[Ops, Callable[[Ops, DType, tuple, Any], Shape]] = {
  **{op: _check_binary for op in BINARY}, **{op: _check_unary for op in UNARY | {Ops.CAST}},
  **{op: _check_movement for op in MOVEMENT | {Ops.REDUCE}},
  Ops.CONST: _check_leaf, Ops.PARAM: _check_leaf, Ops.WHERE: _check_where, Ops.RANGE: _check_range,
  Ops.STACK: _check_stack, Ops.INDEX: _check_index, Ops.CALL: _check_call,
}


def _check(op: Ops, dtype: DType, src: tuple[UOp, ...], arg: Any) -> Shape:
  """Type-check a new node and return its shape."""
  try: check = _CHECKS[op]
  except (KeyError, TypeError): raise UOpError(f"unknown op {op!r}") from None
  if type(dtype) is not DType: raise UOpError(f"{op.name}: dtype must be a DType, got {dtype!r}")
  try: return check(op, dtype, src, arg)
  except AttributeError:
    for s in src:
      if not isinstance(s, UOp): raise UOpError(f"{op.name}: sources must be UOps, got {type(s).__name__}") from None
    raise
