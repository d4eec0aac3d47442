"""A rule's ``UPat`` as etuple pattern terms: the one translation of rule patterns into kanren terms.

Each ``UPat`` becomes etuple *forms* with logic variables (one form per op of an op set,
per order of a list of sources, per extra source of ``allow_any_len``). What etuple
unification cannot say is kept beside the term as a ``Domain`` per variable: the op
set, the dtype set and the args a node must equal (``UPat`` compares args with ``==``,
so the ``0`` of ``x + 0`` also matches ``0.0``, ``-0.0`` and ``False``). ``solve``
merges the domains along a substitution. Backward search (``logic.patterns``) and the
critical pairs (``analyses.overlaps``) both read rules through ``encode``.

>>> from uopc import UPat
>>> [pattern_text(f.term) for f in forms_of(UPat.var("x") + 0)]
['add(~x, ~_)', 'add(~_, ~x)']
"""
from __future__ import annotations

import itertools
from typing import Any, Callable, Collection, Iterator, NamedTuple

from unification import reify, unify, var
from unification.core import walk
from unification.variable import Var

from uopc.dtype import DType, same_value
from uopc.ops import ARGLESS, Ops
from uopc.relational.logic.bridge import Head, UExpr
from uopc.term import head_arg_text, show, tree_text
from uopc.upat import UPat
from uopc.uop import UOp

__all__ = ["ANY_LEN_EXTRA", "Domain", "Encoded", "Form", "Position", "args_match", "cyclic", "encode", "forms_of", "node_fits", "pattern_text",
           "solve", "term_vars"]


# extra sources tried for an ``allow_any_len`` pattern (its prefix plus 0, 1 or 2 more)
ANY_LEN_EXTRA = 2
_CONST = frozenset([Ops.CONST])


class Domain(NamedTuple):
  """What a variable may stand for: ``ops`` and ``dtypes`` (None: any) and ``args`` (values its arg must ``==``)."""
  ops: frozenset | None = None
  dtypes: frozenset | None = None
  args: tuple = ()

  def merge(self, other: Domain) -> Domain | None:
    """Both constraints at once; None if nothing satisfies them."""
    ops = self.ops if other.ops is None else other.ops if self.ops is None else self.ops & other.ops
    dts = self.dtypes if other.dtypes is None else other.dtypes if self.dtypes is None else self.dtypes & other.dtypes
    if ops is not None and not ops or dts is not None and not dts: return None
    args = self.args + tuple(a for a in other.args if not any(same_value(a, b) for b in self.args))
    if not all(args_match(a, b) for a, b in itertools.combinations(args, 2)): return None
    return Domain(ops, dts, args)


def args_match(a: Any, b: Any) -> bool:
  """Equal as ``UPat`` compares a pattern's arg with a node's (Python's ``==``: ``0 == 0.0 == -0.0``), not bit-exact."""
  try: return bool(a == b)
  except Exception: return False


class Position(NamedTuple):
  """A non-variable position of a form: ``path`` as the pattern is written (a list source by
  its written index), ``actual`` the child indices in this form's term, and the subterm there."""
  path: tuple[int, ...]
  actual: tuple[int, ...]
  term: Any


class Form(NamedTuple):
  """One etuple form of a rule's pattern, its variables' domains and its non-variable positions."""
  rule_index: int
  term: Any
  domains: dict[Var, Domain]
  positions: tuple[Position, ...]


def _leaf_domain(p: UPat) -> Domain:
  return Domain(p.op, p.dtype, () if p.arg is None else (p.arg,))


def _name_counts(p: UPat) -> dict[str, int]:
  counts: dict[str, int] = {}
  stack = [p]
  while stack:
    q = stack.pop()
    if q.name is not None: counts[q.name] = counts.get(q.name, 0) + 1
    if q.src is not None: stack.extend(q.src)
  return counts


def forms_of(p: UPat, rule_index: int = 0) -> list[Form]:
  """Every etuple form of ``p``, with fresh variables on every call (so two calls are renamed apart).

  >>> from uopc import UPat
  >>> [pattern_text(f.term) for f in forms_of(UPat.var("x") + 0)]
  ['add(~x, ~_)', 'add(~_, ~x)']
  >>> [f.path for f in forms_of(UPat.var("x") + 0)[1].positions]   # the root, and the constant as written
  [(), (1,)]
  """
  names: dict[str, Var] = {}
  domains: dict[Var, Domain] = {}
  # a name given to a node pattern and used again elsewhere stands for the same node: an equation
  shared = {k for k, c in _name_counts(p).items() if c > 1}
  out = []
  for term, positions, equations in encode(p, names, domains, shared):
    if equations:
      s = unify(tuple(v for v, _ in equations), tuple(t for _, t in equations), {})
      if s is False or cyclic(s): continue
      doms = solve(s, domains)
      if doms is None: continue
      term = reify(term, s)
      positions = [pos._replace(term=reify(pos.term, s)) for pos in positions]
    else: doms = domains
    out.append(Form(rule_index, term, {v: doms[v] for v in term_vars(term) if v in doms}, tuple(positions)))
  return out


Encoded = tuple[Any, list[Position], list[tuple[Var, Any]]]


def _name_var(names: dict[str, Var], name: str) -> Var:
  # var(name) would be the one global variable of that name: a prefix keeps each form's own
  if (v := names.get(name)) is None: v = names[name] = var(prefix=name)
  return v


def encode(p: UPat, names: dict[str, Var], domains: dict[Var, Domain], shared: Collection[str] = (), path: tuple = (),
           actual: tuple = (), literal_consts: bool = False, name_var: Callable[[dict[str, Var], str], Var] = _name_var) -> list[Encoded]:
  """Every etuple form of ``p`` (the one translation of a ``UPat`` into kanren patterns): ``(term, positions, equations)``.

  Each leaf becomes a variable whose constraints (op, dtype, arg) go into ``domains``, a
  node pattern a term per op in its op set, per order of a list (commutative) source and
  per number of extra sources ``allow_any_len`` allows (up to ``ANY_LEN_EXTRA``); a dtype
  set is the domain of a dtype variable. A name used in ``shared`` (a node pattern named
  twice) gives an equation. ``literal_consts`` makes a literal constant (the ``0`` of
  ``x + 0``) that exact constant instead of a hole; ``name_var`` gives a name its variable.
  """
  # patterns are a few levels deep: plain recursion is fine here
  if p.src is None: return _encode_leaf(p, names, domains, path, actual, literal_consts, name_var)
  out: list[Encoded] = []
  written = list(enumerate(p.src))
  orders = [tuple(o) for o in itertools.permutations(written)] if isinstance(p.src, list) else [tuple(written)]
  extras = range(ANY_LEN_EXTRA + 1) if p.allow_any_len else range(1)
  for op in (sorted(p.op, key=lambda o: o.value) if p.op is not None else [None]):
    for order in orders:
      for extra in extras:
        kid_alts = [encode(q, names, domains, shared, path + (i,), actual + (j,), literal_consts, name_var) for j, (i, q) in enumerate(order)]
        for kids in itertools.product(*kid_alts):
          term = UExpr((_head(p, op, domains), *[k[0] for k in kids], *[var() for _ in range(extra)]))
          equations = [e for k in kids for e in k[2]]
          if p.name is not None and p.name in shared: equations.append((name_var(names, p.name), term))
          positions = [Position(path, actual, term)] + [pos for k in kids for pos in k[1]]
          out.append((term, positions, equations))
  return out


def _encode_leaf(p: UPat, names: dict[str, Var], domains: dict[Var, Domain], path: tuple, actual: tuple, literal_consts: bool,
                 name_var: Callable[[dict[str, Var], str], Var]) -> list[Encoded]:
  """``encode`` of a pattern without sources: a variable with its domain (none if the domains conflict), or with
  ``literal_consts`` a literal constant as that constant."""
  if literal_consts and p.name is None and p.op == _CONST and p.arg is not None:
    const_dtype = next(iter(p.dtype)) if p.dtype is not None and len(p.dtype) == 1 else var()
    return [(UExpr((Head(Ops.CONST, const_dtype, p.arg),)), [], [])]
  v = name_var(names, p.name) if p.name is not None else var()
  d = _leaf_domain(p)
  old = domains.get(v)
  merged = d if old is None else old.merge(d)
  if merged is None: return []
  domains[v] = merged
  return [(v, [Position(path, actual, v)] if p.op is not None else [], [])]


def _head(p: UPat, op: Ops | None, domains: dict[Var, Domain]) -> Head:
  """The head of one form of node pattern ``p`` with op ``op`` (None: any op). Each form gets its own head variables:
  forms are alternatives, never unified with each other."""
  if op is None:
    opv: Any = var()
    domains[opv] = Domain()
    arg: Any = p.arg if p.arg is not None else var()
  else: opv, arg = op, p.arg if p.arg is not None else None if op in ARGLESS else var()
  if p.dtype is not None and len(p.dtype) == 1: dtype: Any = next(iter(p.dtype))
  else:
    dtype = var()
    domains[dtype] = Domain(dtypes=p.dtype)
  return Head(opv, dtype, arg)


# ---- unification with domains

def term_vars(t: Any) -> list[Var]:
  """The logic variables of a pattern term, in order of first appearance (heads included)."""
  out: list[Var] = []
  seen: set = set()
  stack = [t]
  while stack:
    x = stack.pop()
    if type(x) is Var:
      if x not in seen: seen.add(x); out.append(x)
    elif type(x) is UExpr: stack.extend(reversed(x._tuple))
    elif type(x) is Head: stack.extend((x.arg, x.dtype, x.op))
    elif type(x) is tuple: stack.extend(reversed(x))
  return out


def cyclic(s: dict) -> bool:
  """True if the substitution binds a variable to a term containing itself (unification has no occurs check)."""
  state: dict[Var, int] = {}   # 1: on the current walk, 2: done
  for root in list(s):
    if state.get(root): continue
    stack: list[tuple[Var, Iterator[Var]]] = [(root, iter(term_vars(s[root])))]
    state[root] = 1
    while stack:
      v, it = stack[-1]
      nxt = next(it, None)
      if nxt is None:
        state[v] = 2
        stack.pop()
        continue
      if nxt not in s: continue
      st = state.get(nxt)
      if st == 1: return True
      if st is None:
        state[nxt] = 1
        stack.append((nxt, iter(term_vars(s[nxt]))))
  return False


def solve(s: dict, domains: dict[Var, Domain]) -> dict[Var, Domain] | None:
  """The domains of the variables left free by ``s``, merged along it; None if one is empty.

  A term variable bound to a node pattern passes its op set to the node's op, its dtype
  set to the node's dtype and its args to the node's arg.
  """
  out: dict[Var, Domain] = {}
  todo = list(domains.items())
  while todo:
    v, d = todo.pop()
    w = walk(v, s)
    if type(w) is Var:
      old = out.get(w)
      merged = d if old is None else old.merge(d)
      if merged is None: return None
      out[w] = merged
    elif type(w) is UExpr:
      h = w._tuple[0]
      if d.ops is not None: todo.append((h.op, Domain(ops=d.ops)))
      if d.dtypes is not None: todo.append((h.dtype, Domain(dtypes=d.dtypes)))
      if d.args: todo.append((h.arg, Domain(args=d.args)))
    elif type(w) is UOp:   # a ground node (a fully bound subpattern)
      if not node_fits(w, d): return None
    elif not _value_ok(w, d): return None   # a ground op, dtype or arg
  return out


def node_fits(u: UOp, d: Domain) -> bool:
  """``u`` is in domain ``d``: its op in the op set, its dtype in the dtype set, its arg ``==`` each arg."""
  return (d.ops is None or u.op in d.ops) and (d.dtypes is None or u.dtype in d.dtypes) and all(args_match(u.arg, a) for a in d.args)


def _value_ok(w: Any, d: Domain) -> bool:
  """A ground head field against a domain: an op against its op set, a dtype against its dtype set, an arg against its args."""
  if isinstance(w, Ops): return d.ops is None or w in d.ops
  if isinstance(w, DType): return d.dtypes is None or w in d.dtypes
  return all(args_match(w, a) for a in d.args)


def pattern_text(t: Any, s: dict | None = None, exact: bool = False) -> str:
  """A pattern term (seen through substitution ``s``) with readable variables.

  ``~x`` is a variable of the rule's ``x``, ``~_`` an anonymous one. ``exact`` text
  names every variable by its order of appearance and shows dtypes and args, so two
  terms have the same exact text iff they are equal up to renaming.

  >>> from uopc import UPat
  >>> [pattern_text(f.term) for f in forms_of(UPat.var("x") + 0)]
  ['add(~x, ~_)', 'add(~_, ~x)']
  """
  return tree_text(t, _PatternParts(s or {}, exact))


class _PatternParts:
  """``pattern_text``'s renderer for the term walk (``uopc.term.tree_text``): a pattern term's text or pieces, its
  variables named as the text reaches them."""

  def __init__(self, s: dict, exact: bool) -> None:
    self.s, self.exact = s, exact
    self.names: dict[Var, str] = {}
    self.used: set[str] = set()

  def __call__(self, x: Any) -> Any:
    if type(x) is Var: x = walk(x, self.s)
    if type(x) is Var: return "~" + self._name(x)
    if type(x) is UOp: return show(x)
    if type(x) is UExpr: return self._node(x)
    return repr(x)

  def _name(self, v: Var) -> str:
    if (name := self.names.get(v)) is None:
      base = v.token.rsplit("_", 1)[0] if type(v.token) is str else ""
      name = f"?{len(self.names)}" if self.exact else base or "_"
      while not self.exact and name != "_" and name in self.used: name += "'"
      self.used.add(name)
      self.names[v] = name
    return name

  def _node(self, x: UExpr) -> list[Any]:
    s, h = self.s, x._tuple[0]
    op, dtype, arg = walk(h.op, s), walk(h.dtype, s), walk(h.arg, s)
    args = list(x._tuple[1:])
    parts: list[Any] = [op.name.lower() if type(op) is not Var else op]
    if self.exact: parts += [":", dtype.name if type(dtype) is not Var else dtype]
    elif op is Ops.CALL and args and type(arg) is not Var:   # as show prints a call: name[body](args)
      parts = [arg or "call", "[", args[0], "]"]
      args, arg = args[1:], None
    parts.append("(")
    for k, a in enumerate(args):
      if k: parts.append(", ")
      parts.append(a)
    trailing = head_arg_text(op, dtype, arg, lambda v: v) if not self.exact and type(op) is not Var else None
    if trailing is None and arg is not None: trailing = arg if type(arg) is Var else repr(arg)
    if trailing is not None: parts += [", " if args else "", trailing]
    parts.append(")")
    return parts
