"""The etuples bridge: UOps take part in unification and miniKanren directly.

A node is the S-expression ``(head . sources)``: its head is a ``Head`` holding
``(op, dtype, arg)``, a callable that rebuilds the node from its sources. ``cons``'s
``car``/``cdr`` and ``unification``'s ``_unify``/``_reify`` are registered for nodes, so an
etuple pattern with logic variables unifies with a node in either order, without
etuplizing the node, and reification rebuilds nodes:

>>> from unification import var, unify, reify
>>> from uopc import UOp
>>> p0 = UOp.param(0)
>>> x = var("x")
>>> s = unify(pat.add(x, 11), p0 * 3 + 11, {})
>>> s[x] is p0 * 3
True
>>> reify(pat.add(x, 11), {x: p0}) is p0 + 11          # a ground reification is the node itself
True
>>> etuplize(p0 + 11).evaled_obj is p0 + 11               # the evaluation cache is pre-seeded
True

Nothing here recurses on the depth of a graph: etuplize, unification against a node,
reification, hashing and repr of the etuples made here are iterative.
"""
from __future__ import annotations

import gc
import sys
from collections.abc import Generator, Mapping
from typing import Any, Iterable

import kanren.core
from cons.core import ConsPair, _car, _cdr
from etuples import etuple
from etuples import etuplize as _etuples_etuplize
from etuples.core import ExpressionTuple
from unification import isvar, reify, unify, var
from unification.core import _reify, _unify, assoc, construction_sentinel, stream_eval
from unification.variable import Var

from uopc.dtype import dtypes, same_value, value_key
from uopc.ops import ARGLESS, Ops
from uopc.term import head_arg_text, op_parts, show, tree_text
from uopc.uop import UOp, UOpError
from uopc.lengths import LENGTHS
from uopc.relational.logic.plan_compile import FIELD_VAR, NODE, VAR, GroundMatch, compile_plan

_NOT_SET = ExpressionTuple.null


class Head:
  """The operator of a node's S-expression: ``(op, dtype, arg)``; calling it builds the node.

  Ground heads are interned, so equal heads are the same object. A head may hold logic
  variables (an *open* head, in patterns): it unifies field by field. An open ``dtype``
  is inferred from the sources when the head is called.

  The intern table holds heads strongly (a lookup is a plain dict get, on every node
  etuplized) and drops the ones nothing else holds when it has doubled (``_sweep``), as
  the node tables do: a long-lived process keeps the heads of its live etuples only.

  >>> h = Head(Ops.ADD, dtypes.i32)
  >>> h is Head(Ops.ADD, dtypes.i32), h(UOp.param(0), UOp.const(1)) is UOp.param(0) + 1
  (True, True)
  """
  __slots__ = ("op", "dtype", "arg", "ground", "__weakref__")
  op: Any      # an Ops, or a logic variable in an open head
  dtype: Any   # a DType, None, or a logic variable
  arg: Any
  ground: bool
  _interned: dict[tuple, Head] = {}
  _sweep_at = 10_000   # an intern table this big is swept

  def __new__(cls, op: Any, dtype: Any = None, arg: Any = None) -> Head:
    ground = not (isvar(op) or isvar(dtype) or isvar(arg))
    if ground:
      try: key = (op, dtype, value_key(arg))   # 0, 0.0, -0.0 and False are four constants (Python's == says one)
      except TypeError: key = None
      if key is not None and (h := cls._interned.get(key)) is not None: return h
    h = object.__new__(cls)
    h.op, h.dtype, h.arg, h.ground = op, dtype, arg, ground
    if ground and key is not None:
      if len(cls._interned) >= cls._sweep_at: _sweep_heads()
      cls._interned[key] = h
    return h

  def __call__(self, *src: UOp) -> UOp:
    if isvar(self.op) or isvar(self.arg): raise ValueError(f"cannot build a node from the open head {self!r}")
    return UOp(self.op, src, self.arg, None if isvar(self.dtype) or self.dtype is None else self.dtype)

  def __repr__(self) -> str:
    op = self.op.name.lower() if isinstance(self.op, Ops) else repr(self.op)
    dt = "" if self.dtype is None else f":{self.dtype.name}" if not isvar(self.dtype) else f":{self.dtype!r}"
    arg = "" if self.arg is None else f"[{self.arg!r}]"
    return f"{op}{dt}{arg}"

  def __reduce__(self): return (Head, (self.op, self.dtype, self.arg))


def head_of(u: UOp) -> Head:
  """The (interned) head of a node: ``car`` of the node's S-expression."""
  arg = u.arg
  try: h = _INTERNED.get((u.op, u.dtype, value_key(arg)))
  except TypeError: h = None
  return h if h is not None else Head(u.op, u.dtype, arg)   # a node's fields are never logic variables


_INTERNED = Head._interned


def _sweep_heads() -> None:
  """Drop the interned heads nothing but the table holds; sweep again when the table has doubled."""
  refcount = sys.getrefcount
  table = _INTERNED
  for key in [key for key in table if refcount(table[key]) <= 2]: del table[key]   # held by the table and refcount's argument only
  Head._sweep_at = max(10_000, 2 * len(_INTERNED))


def live_heads() -> int:
  """How many heads are interned now (after collecting garbage and dropping unused heads).

  >>> from uopc.relational.logic.bridge import etuplize
  >>> keep = etuplize(UOp.param(0) + 1)
  >>> before = live_heads()
  >>> t = etuplize(UOp.param(0) + 98765)
  >>> live_heads() - before    # the head of the new constant
  1
  >>> del t
  >>> live_heads() - before
  0
  """
  gc.collect()   # an etuple may be part of a reference cycle
  _sweep_heads()
  return len(_INTERNED)


# ---- etuples of nodes

class UExpr(ExpressionTuple):
  """An etuple whose head is a ``Head``: the etuple form of a node, or a pattern of one.

  Differences from a plain ``ExpressionTuple``, all for deep graphs: the hash is
  computed once (children first, so never recursively), ``repr`` is the bounded
  one-line term form, a ground etuple made by ``etuplize`` compares by its node, and
  evaluation and reification are iterative. Reifying a pattern whose holes are all
  bound gives the node itself, not an etuple.
  """
  __slots__ = ("_hash", "_plan")   # _plan: the pattern flattened for match_ground, made at its first match

  def __init__(self, seq: Iterable[Any] = (), evaled_obj: Any = _NOT_SET) -> None:
    self._tuple = tuple(seq)  # type: ignore[misc]  # a slot of the untyped ExpressionTuple
    self._evaled_obj = evaled_obj  # type: ignore[misc]  # a slot of the untyped ExpressionTuple
    self._parent = None  # type: ignore[misc]  # a slot of the untyped ExpressionTuple
    self._hash = hash(self._tuple)   # children are UExprs with a cached hash, or nodes, heads, vars
    self._plan: _Plan | None = None

  def __hash__(self) -> int: return self._hash

  def __eq__(self, other: Any) -> Any:
    if self is other: return True
    if type(other) is UExpr and self._evaled_obj is not _NOT_SET and other._evaled_obj is not _NOT_SET:
      return self._evaled_obj is other._evaled_obj
    return super().__eq__(other)

  def __ne__(self, other: Any) -> Any:
    r = self.__eq__(other)
    return r if r is NotImplemented else not r

  @property
  def evaled_obj(self) -> Any:
    """The node this etuple stands for (built iteratively, children first)."""
    if self._evaled_obj is not _NOT_SET: return self._evaled_obj
    return _evaluate(self)

  def __repr__(self) -> str: return f"e⟨{show_pattern(self, LENGTHS.repr)}⟩"
  def __str__(self) -> str: return show_pattern(self, LENGTHS.repr)


def _evaluate(root: UExpr) -> Any:
  """Evaluate a UExpr DAG bottom-up without recursion; caches each sub-etuple's node."""
  stack: list[tuple[Any, bool]] = [(root, False)]
  while stack:
    e, expanded = stack.pop()
    if e._evaled_obj is not _NOT_SET: continue
    kids = [a for a in e._tuple if isinstance(a, ExpressionTuple) and a._evaled_obj is _NOT_SET]
    if not expanded and kids:
      stack.append((e, True))
      stack.extend((k, False) for k in kids if type(k) is UExpr)
      continue
    vals = [a.evaled_obj if isinstance(a, ExpressionTuple) else a for a in e._tuple]
    if not vals or not callable(vals[0]): raise ValueError(f"cannot evaluate {e!r}: it is not a node (no callable head: an operand list?)")
    op, args = vals[0], vals[1:]
    if type(op) is Head and (hole := next((a for a in args if isvar(a)), None)) is not None:
      raise ValueError(f"cannot build a node from {e!r}: it holds the logic variable {hole!r} (reify it first)")
    e._evaled_obj = op(*args)
  return root._evaled_obj


def etuplize(u: UOp, holes: Mapping[UOp, Any] | None = None) -> UExpr:
  """The etuple of a node: ``e(head, *etuples of sources)``, one etuple per distinct node.

  Evaluating it gives back ``u`` itself. ``holes`` maps subgraphs to what stands in
  their place (usually logic variables), which makes a pattern:

  >>> from unification import var, unify
  >>> p0, x = UOp.param(0), var()
  >>> e = etuplize(p0 * 3 + 11)
  >>> e.evaled_obj is p0 * 3 + 11, str(e)
  (True, 'add(mul(p0, 3), 11)')
  >>> unify(etuplize(p0 * 3 + 11, holes={p0 * 3: x}), p0 * 3 + 11, {})[x] is p0 * 3
  True
  """
  memo: dict[UOp, Any] = {}
  if not holes:
    for n in u.toposort(): memo[n] = UExpr((head_of(n), *[memo[s] for s in n.src]), evaled_obj=n)
    return memo[u]
  for n in u.toposort(lambda n: () if n in holes else n.src):
    if n in holes: memo[n] = holes[n]; continue
    kids = [memo[s] for s in n.src]
    ground = all(type(k) is UExpr and k._evaled_obj is not _NOT_SET for k in kids)
    memo[n] = UExpr((head_of(n), *kids), evaled_obj=n if ground else _NOT_SET)
  return memo[u]


_etuples_etuplize.add((UOp,), lambda u, **kw: etuplize(u))


def sources_of(u: UOp) -> UExpr:
  """``cdr`` of a node: its sources as an etuple, so that ``cons(car(u), cdr(u))`` evaluates to ``u``.

  Shallow (the sources stay nodes) and O(number of sources): the etuple remembers the
  node's one-level etuple as its parent, and etuples' ``cons`` gives that parent back.

  >>> from cons import car, cdr, cons
  >>> u = UOp.param(0) + 1
  >>> str(cdr(u)), cons(car(u), cdr(u)).evaled_obj is u
  ('e(p0, 1)', True)
  """
  whole = UExpr((head_of(u), *u.src), evaled_obj=u)
  return whole[1:]   # etuples.etuplize(node) is ours too


def as_node(x: Any) -> UOp | None:
  """``x`` as a node if it stands for one, else None: the node ``x.evaled_obj`` builds, None where evaluation refuses.

  A node stands for itself; so does an etuple whose only logic variables are open
  dtypes (``pat.add(p0, 1)``), which building infers. An operand list (a ``cdr``), a
  pattern with a hole, an open op or arg, or an ill-typed one is not a node.

  >>> from unification import var
  >>> from cons import cdr
  >>> as_node(pat.add(UOp.param(0), 1)) is UOp.param(0) + 1, as_node(pat.add(var(), 1)), as_node(cdr(UOp.param(0)))
  (True, None, None)
  """
  if type(x) is UOp: return x
  if isinstance(x, ExpressionTuple) and isground_term(x, open_dtypes=True):
    try: v = x.evaled_obj
    except (UOpError, ValueError, TypeError): return None
    return v if type(v) is UOp else None
  return None


def isground_term(x: Any, open_dtypes: bool = False) -> bool:
  """True if ``x`` holds no logic variable (iterative; nodes are always ground).

  ``open_dtypes`` allows a head's open dtype, which building the node infers (``as_node``).
  """
  stack, seen = [x], set()
  while stack:
    t = stack.pop()
    if type(t) is UOp: continue
    if isvar(t): return False
    if type(t) is Head:
      if not t.ground and not (open_dtypes and isground_term((t.op, t.arg))): return False
      continue
    if isinstance(t, ExpressionTuple):
      if t._evaled_obj is not _NOT_SET or id(t) in seen: continue
      seen.add(id(t))
      stack.extend(t._tuple)
    elif isinstance(t, (tuple, list)): stack.extend(t)
    elif type(t) is ConsPair: stack.extend((t.car, t.cdr))
  return True


# ---- patterns: pat.add(x, 11), pat.const(c), pat.param(0)

def _operand(x: Any, dtype: Any = None) -> Any:
  if isinstance(x, (UOp, ExpressionTuple)) or isvar(x): return x
  if isinstance(x, (bool, int, float)): return UOp.const(x, dtype if dtype is not None and not isvar(dtype) else None)
  raise TypeError(f"a pattern operand must be a node, an etuple, a logic variable or a literal, got {x!r}")


class _Patterns:
  """``pat.OP(*sources, dtype=None, arg=None)`` builds an etuple pattern of an OP node.

  Literals become constants (``11`` is an i32 CONST); an omitted dtype is open (a fresh
  logic variable, inferred when the pattern is built into a node); an omitted arg is
  None for ops whose arg is always None, else open. ``pat.const(v)`` is a CONST whose
  value (or dtype) may be a logic variable; ``pat.param(slot)`` a PARAM.

  >>> from unification import var, unify
  >>> c = var("c")
  >>> unify(pat.mul(UOp.param(0), pat.const(c)), UOp.param(0) * 7, {})[c]
  7
  """
  def node(self, op: Ops, *src: Any, dtype: Any = None, arg: Any = ...) -> UExpr:
    """A pattern of an ``op`` node with these sources."""
    if arg is ...: arg = None if op in ARGLESS else var()
    return UExpr((Head(op, var() if dtype is None else dtype, arg), *(_operand(s, dtype) for s in src)))

  def const(self, value: Any, dtype: Any = None) -> Any:
    """A CONST pattern; a ground value is just the constant node."""
    if not isvar(value) and not isvar(dtype): return UOp.const(value, dtype)
    return UExpr((Head(Ops.CONST, var() if dtype is None else dtype, value),))

  def param(self, slot: Any, dtype: Any = dtypes.i32) -> Any:
    """A PARAM: ``pat.param(0)`` is ``UOp.param(0)``; a logic-variable slot or dtype makes a pattern."""
    if not isvar(slot) and not isvar(dtype): return UOp.param(slot, dtype)
    return UExpr((Head(Ops.PARAM, dtype, var()),))

  def __getattr__(self, name: str) -> Any:
    try: op: Ops = Ops[name.upper()]   # annotated, or mypy reads Ops[...] as a type alias
    except KeyError: raise AttributeError(f"no op named {name!r}") from None
    return lambda *src, dtype=None, arg=...: self.node(op, *src, dtype=dtype, arg=arg)


pat = _Patterns()


def term_pattern(text: str) -> Any:
  """An etuple pattern from the one-line term syntax: ``?x`` is the logic variable ``var("x")``.

  ``_`` is a fresh variable, ``pN`` the PARAM of slot N (any dtype), literals are
  constants of exactly their dtype. Bad syntax raises ``UIRError``.

  >>> from unification import var, unify
  >>> s = unify(term_pattern("add(mul(?x, 3), ?c)"), UOp.param(0) * 3 + 11, {})
  >>> s[var("x")] is UOp.param(0), s[var("c")].arg
  (True, 11)
  """
  from uopc import termparse as tp   # deferred: the parser is only needed here
  from uopc.uop import ParamArg
  root = tp.parse_term(text)
  memo: dict[int, Any] = {}
  stack: list[tuple[Any, bool]] = [(root, False)]
  while stack:
    t, ready = stack.pop()
    if id(t) in memo: continue   # a let name's term: one pattern, so one node wherever the name is used
    if isinstance(t, tp.TermNode) and not ready:
      stack.append((t, True))
      stack.extend((a, False) for a in t.args)
      continue
    if isinstance(t, tp.Hole): out: Any = var(t.name)
    elif isinstance(t, tp.Wild): out = var()
    elif isinstance(t, tp.TermParam): out = UExpr((Head(Ops.PARAM, var(), ParamArg(t.slot, var(), var(), var())),))
    elif isinstance(t, tp.TermConst): out = UOp.const(t.value, t.dtype)
    else:
      arg = t.arg
      if arg is tp.ANY_ARG: arg = var()
      elif isinstance(arg, tuple): arg = tuple(var() if a is tp.ANY_ARG else a for a in arg)
      if t.op is Ops.CAST: h = Head(Ops.CAST, var() if arg is None or isvar(arg) else arg, None)
      else: h = Head(t.op, var(), arg)
      out = UExpr((h, *[memo[id(a)] for a in t.args]))
    memo[id(t)] = out
  return memo[id(root)]


def show_pattern(x: Any, limit: int | None = None) -> str:
  """A node, etuple or pattern in the one-line term form; logic variables print as ``~name`` (a renderer for the term
  walk, ``uopc.term.tree_text``)."""
  return tree_text(x, _pattern_parts, limit)


def _pattern_parts(item: Any) -> Any:
  """``show_pattern``'s pieces of one item: a node as ``show`` labels it in the room left, an operand list (a ``cdr``)
  as ``e(...)``, a pattern node laid out as ``show`` lays out a node (``uopc.term.op_parts``), anything else its ``str``."""
  if type(item) is UOp: return lambda room: show(item, room)
  if isinstance(item, ExpressionTuple) and (node := item._evaled_obj) is not _NOT_SET: return lambda room: show(node, room)   # evaluated: its node
  if not isinstance(item, ExpressionTuple): return str(item)
  if not item._tuple or type(item._tuple[0]) is not Head:   # not a node: an operand list, empty at a leaf
    pieces: list[Any] = ["e("]
    for i, a in enumerate(item._tuple): pieces += [", ", a] if i else [a]
    return pieces + [")"]
  h, args = item._tuple[0], list(item._tuple[1:])
  if h.op is Ops.CONST and not args: return repr(h.arg)
  if h.op is Ops.PARAM and not args and not isvar(h.arg) and not isvar(h.arg[0]): return f"p{h.arg[0]}"
  if h.op is Ops.CALL and args: return op_parts(h.arg if isinstance(h.arg, str) and h.arg else "call", args[1:], None, args[0])
  return op_parts(h.op.name.lower() if isinstance(h.op, Ops) else str(h), args, _trailing_arg(h))


def _trailing_arg(h: Any) -> str | None:
  """What a pattern head prints after its sources: as ``show`` prints the node (``reduce(~x, add, 1)``, ``cast(~x, f32)``)."""
  if type(h) is not Head: return None
  if isinstance(h.op, Ops) and (text := head_arg_text(h.op, h.dtype, h.arg)) is not None: return text
  return None if h.arg is None or h.op is Ops.CALL else repr(h.arg)


# ---- unification and reification dispatch

def _unify_nodes(u: UOp, v: UOp, s: Mapping) -> Any:
  return s if u is v else False   # hash consing: structural equality is identity


def _unify_heads(u: Head, v: Head, s: Mapping) -> Any:
  if u is v: return s
  if u.ground and v.ground: return False   # interned: different objects are different heads
  return _unify_open_heads(u, v, s)


def _unify_open_heads(u: Head, v: Head, s: Mapping) -> Any:
  s = yield _unify(u.op, v.op, s)
  if s is False: return
  s = yield _unify(u.dtype, v.dtype, s)
  if s is False: return
  a, b = u.arg, v.arg
  if isvar(a) or isvar(b) or isinstance(a, tuple) or isinstance(b, tuple): yield _unify(a, b, s)
  else: yield s if same_value(a, b) else False


def _unify_expr_node(e: ExpressionTuple, u: UOp, s: Mapping) -> Any:
  if e._evaled_obj is not _NOT_SET: return s if e._evaled_obj is u else False
  t = e._tuple
  if len(t) != len(u.src) + 1: return False
  h = t[0]
  if type(h) is Head and h.op is not u.op and type(h.op) is Ops: return False   # most nodes fail here, cheaply
  if type(s) is dict and type(e) is UExpr and (r := match_ground(e, u, s)) is not None: return r
  return _unify(t, (head_of(u), *u.src), s)


_NODE, _VAR, _FIELD_VAR = NODE, VAR, FIELD_VAR


class _Plan:
  """A pattern flattened for ``match_ground``: its positions in preorder and its variables in order of first use.

  ``steps[i]`` is ``(parent, child, kind, data)``: the node at position i is source ``child`` of the node at position
  ``parent``; ``kind`` is a node pattern (``data``: its head and source count), a variable's slot, or a ground node."""
  __slots__ = ("steps", "variables", "slots", "fallback", "compiled")

  def __init__(self, pattern: UExpr):
    self.steps: list[tuple[int, int, int, Any]] = []
    self.variables: list[Var] = []
    self.slots: dict[Any, int] = {}   # a variable's token -> its slot
    self.fallback = False

    def slot(v: Var) -> int:
      if (k := self.slots.get(v.token)) is None:
        k = self.slots[v.token] = len(self.variables)
        self.variables.append(v)
      return k

    todo: list[tuple[int, int, Any]] = [(-1, 0, pattern)]
    while todo:
      parent, child, p = todo.pop()
      here = len(self.steps)
      if type(p) is Var: self.steps.append((parent, child, _VAR, slot(p)))
      elif type(p) is UOp: self.steps.append((parent, child, _NODE, p))   # a ground operand: the node itself
      elif type(p) is UExpr and p._evaled_obj is not _NOT_SET: self.steps.append((parent, child, _NODE, p._evaled_obj))
      elif type(p) is UExpr and type(h := p._tuple[0]) is Head and (h.ground or not isinstance(h.arg, tuple)):
        fields = tuple((_FIELD_VAR, slot(f)) if type(f) is Var else (_NODE, f) for f in (h.op, h.dtype, h.arg))
        self.steps.append((parent, child, _NODE, (h if h.ground else None, fields, len(p._tuple) - 1)))
        todo.extend((here, k, q) for k, q in reversed(list(enumerate(p._tuple[1:]))))
      else:
        self.fallback = True   # an operand list, an open head's tuple arg: the generic path
        break
    self.compiled: GroundMatch | None = None if self.fallback else compile_plan(self.steps, self.variables, head_of)


def _plan(pattern: UExpr) -> _Plan:
  if (plan := pattern._plan) is None: plan = pattern._plan = _Plan(pattern)
  return plan


def match_ground(pattern: UExpr, node: UOp, s: dict) -> dict | bool | None:
  """``unify(pattern, node, s)`` for a pattern against a ground node, without unification's generic machinery: the
  extended substitution, False, or None where the pattern holds what only the generic path handles (an operand list, a
  tuple arg, a variable bound to a pattern). The pattern is flattened once (``_Plan``); a call looks each of its
  variables up in ``s`` once, and copies ``s`` once: ``reacho(pm, g, q), eq(q, pattern)`` pays this once per
  reachable graph, and once per answer.

  >>> from unification import var
  >>> x = var()
  >>> s = match_ground(pat.add(x, 1), UOp.param(0) + 1, {})
  >>> s[x] is UOp.param(0), match_ground(pat.add(x, x), UOp.param(0) + 1, {})
  (True, False)
  """
  plan = pattern._plan or _plan(pattern)
  if plan.fallback: return None
  if plan.compiled is not None and _binds_none(plan, s): return plan.compiled(node, s)
  variables = plan.variables
  values = _bound(plan, s)
  fresh = [k for k, x in enumerate(values) if x is _NOT_SET]
  nodes: list[Any] = []
  for parent, child, kind, data in plan.steps:
    n = node if parent < 0 else nodes[parent].src[child]
    nodes.append(n)
    if kind == _VAR:
      v = values[data]
      if v is _NOT_SET: values[data] = n
      elif v is not n:
        if type(v) is UOp: return False
        return None   # bound to a pattern or to another variable: the generic path
    elif type(data) is UOp:
      if data is not n: return False
    else:
      ground_head, fields, arity = data
      if len(n.src) != arity: return False
      if ground_head is not None:
        if ground_head is not head_of(n): return False
        continue
      if (r := _open_head(values, fields, n)) is not True: return r
  if not fresh: return s
  out = s.copy()
  for k in fresh: out[variables[k]] = values[k]
  return out


def ground_matcher(pattern: Any, s: dict, other: Var) -> GroundMatch | None:
  """``match_ground``'s compiled matcher for ``pattern``, good for ``s`` and every extension of it by ``other``: where
  the pattern is an open etuple pattern that compiles and neither ``s`` nor ``other`` is one of its variables; else None.

  >>> from unification import var
  >>> q, y = var(), var()
  >>> ground_matcher(pat.add(y, 1), {}, q)(UOp.param(0) + 1, {})[y] is UOp.param(0), ground_matcher(pat.add(q, 1), {}, q)
  (True, None)
  """
  if type(pattern) is not UExpr or pattern._evaled_obj is not _NOT_SET: return None
  plan = _plan(pattern)
  if plan.compiled is None or other.token in plan.slots or not _binds_none(plan, s): return None
  return plan.compiled


def _binds_none(plan: _Plan, s: dict) -> bool:
  """``s`` binds none of the plan's variables (the usual case: the compiled matcher's); scanned as ``_bound`` does."""
  if len(s) > 2 * len(plan.variables): return all(v not in s for v in plan.variables)
  slots = plan.slots
  for key in s:
    if type(key) is Var and key.token in slots: return False
  return True


def _bound(plan: _Plan, s: dict) -> list[Any]:
  """The values ``s`` binds the plan's variables to (``_NOT_SET`` where free). Var's hash is a Python function, about
  as dear as the rest of a match: a small substitution is scanned by its keys' tokens (strings, whose hash is cached)."""
  if len(s) > 2 * len(plan.variables): return [s.get(v, _NOT_SET) for v in plan.variables]
  values = [_NOT_SET] * len(plan.variables)
  slots = plan.slots
  for key, value in s.items():
    if type(key) is Var and (k := slots.get(key.token)) is not None: values[k] = value
  return values


def _open_head(values: list[Any], fields: tuple, n: UOp) -> bool | None:
  """An open head's fields against node ``n``'s: True if they agree (binding the field variables), else False, or None
  for the generic path."""
  (op_kind, op), (dtype_kind, dtype), (arg_kind, arg) = fields
  if op_kind == _NODE:
    if op is not n.op: return False
  elif (r := _field(values, op, n.op)) is not True: return r
  if dtype_kind == _NODE:
    if dtype is not n.dtype and dtype != n.dtype: return False
  elif (r := _field(values, dtype, n.dtype)) is not True: return r
  if arg_kind == _NODE:
    if arg is not n.arg and not same_value(arg, n.arg): return False   # an arg bit for bit, as heads unify
  elif (r := _field(values, arg, n.arg)) is not True: return r
  return True


def _field(values: list[Any], k: int, value: Any) -> bool | None:
  """A head field's variable (slot ``k``) meets the node's ``value``: True if it binds or agrees, else False, or None
  for the generic path."""
  v = values[k]
  if v is _NOT_SET: values[k] = value
  elif type(v) is Var or isinstance(v, tuple): return None
  elif not v == value: return False   # a bound variable compares as unification's default does: ==
  return True


def _unify_node_expr(u: UOp, e: ExpressionTuple, s: Mapping) -> Any: return _unify_expr_node(e, u, s)


def _unify_uexprs(a: UExpr, b: UExpr, s: Mapping) -> Any:
  if a is b: return s
  if a._evaled_obj is not _NOT_SET and b._evaled_obj is not _NOT_SET: return s if a._evaled_obj is b._evaled_obj else False
  if a._evaled_obj is not _NOT_SET: return _unify_expr_node(b, a._evaled_obj, s)
  if b._evaled_obj is not _NOT_SET: return _unify_expr_node(a, b._evaled_obj, s)
  return _unify(a._tuple, b._tuple, s)


def _reify_head(h: Head, s: Mapping) -> Any:
  return h if h.ground else _reify_open_head(h, s)


def _reify_open_head(h: Head, s: Mapping) -> Any:
  op = yield _reify(h.op, s)
  dtype = yield _reify(h.dtype, s)
  arg = yield _reify(h.arg, s)
  yield construction_sentinel
  yield Head(op, dtype, arg)


def _reify_uexpr(e: UExpr, s: Mapping) -> Any:
  return e if e._evaled_obj is not _NOT_SET else _reify_pattern(e, s)   # etuplized: ground by construction, O(1)


def _reify_pattern(e: UExpr, s: Mapping) -> Any:
  res = []
  for a in e._tuple:
    r = _reify(a, s)
    if isinstance(r, Generator): r = yield r   # trampolined by unification's stream_eval: no recursion
    res.append(r)
  yield construction_sentinel
  # nothing was bound: the etuple itself, which keeps its parent (``cons(car(e), cdr(e))`` gives ``e`` back)
  yield e if all(r is a for r, a in zip(res, e._tuple)) else _rebuild(res)


def _rebuild(res: list[Any]) -> Any:
  """A reified etuple: the node itself when everything is ground, else a new pattern (or operand list)."""
  if not res or type(res[0]) is not Head: return UExpr(res)   # a ``cdr``: the sources, not a node
  h = res[0]
  src = [a._evaled_obj if type(a) is UExpr and a._evaled_obj is not _NOT_SET else a for a in res[1:]]
  if type(h) is Head and not isvar(h.op) and not isvar(h.arg) and all(type(a) is UOp for a in src):
    try: return h(*src)
    except (UOpError, ValueError): pass   # an ill-typed instance stays an etuple
  return UExpr(res)


def _unify_top(u: Any, v: Any, s: Mapping) -> Any:
  """``unify(u, v, s)`` when one side is a node or one of our etuples: the common cases without the generic machinery.

  A goal like ``eq(q, pattern)`` runs once per reachable graph, so its cost is the
  explorer's cost per state: a variable already bound to a node is looked up and the
  node compared with the pattern directly. Anything else takes the generic path.
  """
  if u is v: return s
  while type(u) is Var and (w := s.get(u, u)) is not u: u = w   # walk, without unification's try/except
  while type(v) is Var and (w := s.get(v, v)) is not v: v = w
  r: Any = None
  if type(u) is UOp:
    if type(v) is UOp: return s if u is v else False
    if type(v) is UExpr: r = _unify_expr_node(v, u, s)
  elif type(v) is UOp and type(u) is UExpr: r = _unify_expr_node(u, v, s)
  if r is not None: return stream_eval(r) if isinstance(r, Generator) else r   # most answers are settled already: no generator to run
  if type(u) is Var or type(v) is Var:   # a fresh variable meets a node or an etuple: bind it (what ``assoc`` does)
    if type(u) is not Var: u, v = v, u
    return s if u is v else assoc(s, u, v)
  return stream_eval(_unify(u, v, s))


def _reify_top(x: Any, s: Mapping) -> Any:
  """``reify(x, s)`` for a variable or a node: walked without unification's generators; a node reifies to itself.

  ``run`` reifies its query variable once per answer, so this is paid once per state a
  conjunction yields; a variable bound to anything but a node takes the generic path.
  """
  while type(x) is Var and (w := s.get(x, x)) is not x: x = w
  if type(x) is UOp or type(x) is Var or not s: return x
  return stream_eval(_reify(x, s))


# The type pairs ``unify`` sends to ``_unify_top`` (registered below), and ``unify_nodes`` sends there itself.
_TOP_PAIRS = frozenset({(Var, UOp), (UOp, Var), (Var, UExpr), (UExpr, Var), (UOp, UExpr), (UExpr, UOp), (UOp, UOp)})


def unify_nodes(u: Any, v: Any, s: Mapping) -> Any:
  """``unify(u, v, s)``: where one side is a node or one of our etuples, straight to what ``unify`` would dispatch to.

  multipledispatch costs about a microsecond a call, as much as the rest of a failing
  ``eq(q, pattern)`` against a node; conjunctions call it once per reachable graph.
  """
  if type(s) is dict and (type(u), type(v)) in _TOP_PAIRS: return _unify_top(u, v, s)
  return unify(u, v, s)


def reify_nodes(x: Any, s: Mapping) -> Any:
  """``reify(x, s)``: a variable or a node straight to what ``reify`` would dispatch to (see ``unify_nodes``)."""
  if type(s) is dict and (type(x) is Var or type(x) is UOp): return _reify_top(x, s)
  return reify(x, s)


_unify.add((UOp, UOp, Mapping), _unify_nodes)
_unify.add((Head, Head, Mapping), _unify_heads)
_unify.add((ExpressionTuple, UOp, Mapping), _unify_expr_node)
_unify.add((UOp, ExpressionTuple, Mapping), _unify_node_expr)
_unify.add((UExpr, UExpr, Mapping), _unify_uexprs)
_reify.add((UOp, Mapping), lambda u, s: u)
_reify.add((Head, Mapping), _reify_head)
_reify.add((UExpr, Mapping), _reify_uexpr)
# The fronts take plain dicts (kanren's states) only: a ``Mapping`` would be as specific as kanren.constraints'
# (object, object, ConstrainedState), an ambiguity multipledispatch warns of, and could win over it (skipping a ``neq``).
reify.add((Var, dict), _reify_top)
reify.add((UOp, dict), _reify_top)
for _a, _b in _TOP_PAIRS:
  unify.add((_a, _b, dict), _unify_top)
_car.add((UOp,), head_of)
_cdr.add((UOp,), lambda u: sources_of(u))
# kanren's ``eq`` and ``run`` look ``unify`` and ``reify`` up in kanren.core when they run: the same answers, without the dispatch
kanren.core.unify, kanren.core.reify = unify_nodes, reify_nodes


def _self_check() -> None:
  """Fail loudly at import if the dispatch this module relies on is not registered.

  etuples registers its own unify/reify rules only if ``packaging`` imports; without
  it, etuple unification silently answers False.
  """
  x = var()
  probe = etuple(_self_check, x)
  if unify(probe, etuple(_self_check, 1), {}) is False:
    raise ImportError("uopc.relational: etuples' unification rules are not registered (is the 'packaging' "
                      "distribution installed? etuples needs it but does not declare it)")
  node = UOp.param(0) + 1
  s = unify(pat.add(x, 1), node, {})
  if s is False or s.get(x) is not UOp.param(0) or unify(node, pat.add(x, 1), {}) is False \
      or reify(pat.add(x, 1), s) is not node:
    raise ImportError("uopc.relational: unifying etuple patterns with UOps does not work "
                      "(an incompatible 'unification', 'cons' or 'etuples' version?)")


_self_check()

__all__ = ["Head", "UExpr", "as_node", "etuplize", "head_of", "isground_term", "pat", "reify_nodes", "show_pattern", "term_pattern",
           "unify_nodes", "Var"]
