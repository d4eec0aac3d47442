"""Overlaps of tinygrad's own ``UPat``s and their instances as tinygrad nodes: ``critical_pairs`` on tinygrad rule sets.

A ``UPat`` is read as tinygrad's ``UPat.match`` reads it: an op set, a dtype set (tinygrad compares
dtypes exactly, so ``dtypes.weakint`` is one dtype among the others), an arg (compared with ``==``),
a name (a name bound twice is one node), and sources: a tuple, a list (every permutation: the
commutative sources), one ``UPat`` for any number of sources, ``allow_any_len`` (at least that many);
``UPat.any`` is each of its alternatives. Each alternative of a pattern is a tree; an overlap of rule
``inner`` at a node position of rule ``outer``'s tree is their unification (union-find over the two
trees, renamed apart: op sets and dtype sets intersect, args must be ``==``, source lists merge by
position, names join nodes), rejected when a node would contain itself.

An overlap's instances are tinygrad nodes built from it: a free hole is a variable
(``UOp.variable`` with bounds [0, 10], then [-5, 5]) or an edge constant of its dtype, a hole with
an op set a small node of one of its ops, the dtypes chosen per class of holes an ALU ties together
(both sources of ``add``, the branches of ``where``), plainest first. Nothing here decides whether
a rule applies: ``critical_pairs`` asks tinygrad's own matcher (through the explorer's stepper).

A rule none of whose own pattern's instances its pattern matches cannot be analyzed; it is listed in
``skipped`` with the reason (a node of an op no instance can be built of, a tag, ...).

>>> from tinygrad.uop.ops import UOp, UPat, Ops, PatternMatcher
>>> from uopc.relational.adapters.tinygrad.ir import adapt
>>> x = UPat.var("x")
>>> pm = adapt(PatternMatcher([(x + 0, lambda x: x), ((x + UPat.cvar("c")) + UPat.var("y"), lambda x, c, y: (x + y) + c)]))
>>> src = TinygradOverlaps(pm)
>>> sorted(src.groups)
[(0, 0, ()), (1, 0, ()), (1, 0, (0,)), (1, 1, ()), (1, 1, (0,))]
>>> src.text(src.groups[(1, 0, (0,))][0])
'add(add(~x, 0), ~y)'
>>> from uopc.term import show
>>> [show(u) for u, _, _ in src.instances(src.groups[(1, 0, (0,))], 3)[0]]
['add(add(a, 0), b)', 'add(add(0, 0), a)', 'add(add(0, a), b)']
"""
from __future__ import annotations

import itertools
import math
from typing import Any, Callable, Iterator

from tinygrad.dtype import dtypes
from tinygrad.uop.ops import GroupOp, Ops, UOp, UPat, dtype_from_uop

from uopc.dtype import dtypes as uopc_dtypes
from uopc.term import op_parts, tree_text
from uopc.probe_values import EDGE, FAILED, by_cost, round_robin

MAX_ALTERNATIVES = 64      # trees per pattern (UPat.any and commutative source lists multiply)
MAX_ASSIGNMENTS = 64       # dtype assignments (one per class of tied holes) tried per overlap
TRIES_PER_INSTANCE = 16    # builds tried per instance wanted
REPEAT = 2                 # sources built for a pattern of any number of sources (UPat(src=UPat(...)))
DOMAIN = (dtypes.weakint, dtypes.bool, dtypes.int32, dtypes.float32)   # a hole's dtypes when its pattern says none
BOUNDS = ((0, 10), (-5, 5))   # a variable's bounds: the plain one first
# the edge values (``uopc.probe_values.EDGE``) by tinygrad dtype family: an int's the ones every int dtype holds; a bool's
# and a float's in tinygrad's own order, plain before signed (False first; no -inf), which its reports' witnesses follow
_EDGE = {"int": EDGE[uopc_dtypes.i32][:4], "bool": (False, True), "float": (0.0, 1.0, -0.0, -1.0, math.inf, math.nan)}

_SAME = (GroupOp.Binary - GroupOp.Comparison) | {Ops.MULACC}   # the node and its sources share a dtype
_CMP, _UNARY = set(GroupOp.Comparison), set(GroupOp.Unary)


class Tree:
  """One alternative of a ``UPat``: op set, dtype set, args (each ``==`` the node's), name, sources (None: any),
  ``strict`` (exactly that many sources), ``written`` (each source's index as the pattern writes it)."""
  __slots__ = ("ops", "dts", "args", "name", "src", "strict", "written", "tag")

  def __init__(self, p: UPat, src: tuple[Tree, ...] | None, written: tuple[int, ...]) -> None:
    self.ops = None if p.op is None else frozenset(p.op)
    self.dts = None if p.match_dtype is None else frozenset(p.match_dtype)
    self.args = () if p.arg is None else (p.arg,)
    self.name, self.src, self.strict, self.written, self.tag = p.name, src, p.strict_length, written, p.match_tag


def alternatives(p: UPat) -> list[Tree]:
  """Every tree ``p`` stands for (``UPat.any``'s alternatives, each permutation of a source list), at most
  ``MAX_ALTERNATIVES``; recursion is as deep as the pattern is written (a handful of levels)."""
  if p.is_any: return list(itertools.islice((t for q in p.src[0] for t in alternatives(q)), MAX_ALTERNATIVES))
  if p.src is None: return [Tree(p, None, ())]
  out: list[Tree] = []
  if isinstance(p._in_src, UPat):   # any number of sources, each matching it: built with REPEAT of them
    for t in alternatives(p._in_src): out.append(Tree(p, (t,) * REPEAT, tuple(range(REPEAT))))
    for t in out: t.strict = False
    return out[:MAX_ALTERNATIVES]
  written_src = list(p._in_src or ())
  for vp in p.src:
    written = tuple(range(len(vp))) if len(p.src) == 1 else _written(written_src, vp)
    for kids in itertools.product(*[alternatives(q) for q in vp]):
      out.append(Tree(p, tuple(kids), written))
      if len(out) >= MAX_ALTERNATIVES: return out
  return out


def _written(written_src: list[UPat], vp: tuple[UPat, ...]) -> tuple[int, ...]:
  """The index of each source of permutation ``vp`` in the list as written (by identity: a permutation holds the same UPats)."""
  taken: set[int] = set()
  out = []
  for q in vp:
    k = next(j for j, w in enumerate(written_src) if w is q and j not in taken)
    taken.add(k)
    out.append(k)
  return tuple(out)


def positions(t: Tree) -> Iterator[tuple[tuple[int, ...], tuple[int, ...], Tree]]:
  """``(actual path, written path, subtree)`` of every node position of ``t`` (a subtree with an op set)."""
  todo: list[tuple[tuple[int, ...], tuple[int, ...], Tree]] = [((), (), t)]
  while todo:
    actual, written, s = todo.pop(0)
    if s.ops is not None: yield actual, written, s
    for k, c in enumerate(s.src or ()): todo.append((actual + (k,), written + (s.written[k],), c))


class Unified:
  """Two (or one) trees unified: union-find cells with merged constraints; ``root`` and ``ok``."""

  def __init__(self) -> None:
    self.parent: list[int] = []
    self.ops: list[frozenset | None] = []
    self.dts: list[frozenset | None] = []
    self.args: list[tuple] = []
    self.src: list[list[int] | None] = []
    self.strict: list[bool] = []
    self.tagged = False
    self.names: dict[str, int] = {}
    self.ok = True

  def add(self, t: Tree, prefix: str) -> tuple[int, dict[int, int]]:
    """The cells of tree ``t`` (its names prefixed, so two rules' names stay apart); the root cell and each subtree's
    cell by ``id``."""
    cell_of: dict[int, int] = {}
    order: list[Tree] = []
    todo = [t]
    while todo:
      s = todo.pop()
      order.append(s)
      todo.extend(s.src or ())
    for s in reversed(order):   # sources first
      c = len(self.parent)
      self.parent.append(c)
      self.ops.append(s.ops)
      self.dts.append(s.dts)
      self.args.append(s.args)
      self.src.append(None if s.src is None else [cell_of[id(k)] for k in s.src])
      self.strict.append(s.strict)
      self.tagged |= s.tag is not None
      cell_of[id(s)] = c
      if s.name is not None:
        if (other := self.names.setdefault(prefix + s.name, c)) != c: self.union(other, c)
    return cell_of[id(t)], cell_of

  def find(self, c: int) -> int:
    while self.parent[c] != c:
      self.parent[c] = self.parent[self.parent[c]]
      c = self.parent[c]
    return c

  def union(self, a: int, b: int) -> bool:
    """Merge cells ``a`` and ``b`` (and their sources, position by position); False (and ``ok`` False) if they conflict."""
    todo = [(a, b)]
    while todo and self.ok:
      x, y = todo.pop()
      x, y = self.find(x), self.find(y)
      if x == y: continue
      ops = _meet(self.ops[x], self.ops[y])
      dts = _meet(self.dts[x], self.dts[y])
      args = self.args[x] + tuple(v for v in self.args[y] if not any(_same_arg(v, w) for w in self.args[x]))
      if ops == frozenset() or dts == frozenset() or not _args_agree(args):
        self.ok = False
        break
      sx, sy = self.src[x], self.src[y]
      if sx is not None and sy is not None:
        nx, ny = len(sx), len(sy)
        if (self.strict[x] and self.strict[y] and nx != ny) or (self.strict[x] and ny > nx) or (self.strict[y] and nx > ny):
          self.ok = False
          break
        todo.extend(zip(sx, sy))
        src: list[int] | None = sx if nx >= ny else sy
      else: src = sx if sx is not None else sy
      self.parent[y] = x
      self.ops[x], self.dts[x], self.args[x], self.src[x] = ops, dts, args, src
      self.strict[x] = self.strict[x] or self.strict[y]
    return self.ok

  def cells(self, root: int) -> list[int] | None:
    """The cells reachable from ``root``, sources before their users; None if a cell contains itself."""
    out: list[int] = []
    state: dict[int, int] = {}   # 1 on the walk, 2 done
    todo: list[tuple[int, bool]] = [(self.find(root), False)]
    while todo:
      c, done = todo.pop()
      if done:
        state[c] = 2
        out.append(c)
        continue
      if state.get(c) == 2: continue
      if state.get(c) == 1: return None   # a cycle: x unified with a term containing x
      state[c] = 1
      todo.append((c, True))
      for k in reversed(self.src[c] or []):
        k = self.find(k)
        if state.get(k) == 1: return None
        if state.get(k) != 2: todo.append((k, False))
    return out


def _meet(a: frozenset | None, b: frozenset | None) -> frozenset | None:
  return b if a is None else a if b is None else a & b


def _same_arg(v: Any, w: Any) -> bool:
  try: return type(v) is type(w) and bool(v == w)
  except Exception: return False


def _args_agree(args: tuple) -> bool:
  """Can one value ``==`` every one of ``args``? (tinygrad compares a pattern's arg with ``!=``.)"""
  try: return all(bool(a == b) for a, b in itertools.combinations(args, 2))
  except Exception: return False


class Overlap:
  """Rule ``inner`` at written path ``path`` of rule ``outer``: the unified cells, their root, and ``actual`` (the path of
  the inner redex in an instance)."""
  __slots__ = ("outer", "inner", "path", "actual", "u", "root")

  def __init__(self, outer: int, inner: int, path: tuple[int, ...], actual: tuple[int, ...], u: Unified, root: int) -> None:
    self.outer, self.inner, self.path, self.actual, self.u, self.root = outer, inner, path, actual, u, root


def _unify(outer: Tree, at: tuple[int, ...] | None, inner: Tree | None) -> tuple[Unified, int] | None:
  """``outer`` with ``inner`` unified at its subtree at actual path ``at`` (``inner`` None: ``outer`` alone)."""
  u = Unified()
  root, cells = u.add(outer, "o:")
  if inner is not None and at is not None:
    s = outer
    for k in at: s = s.src[k]   # type: ignore[index]
    iroot, _ = u.add(inner, "i:")
    if not u.union(cells[id(s)], iroot): return None
  if not u.ok or u.cells(root) is None: return None
  return u, root


def _compatible(a: frozenset | None, b: frozenset | None) -> bool: return a is None or b is None or bool(a & b)


class TinygradOverlaps:
  """The ``IR.overlaps`` protocol for a tinygrad rule set (``TinygradRules``): ``groups``, ``skipped``, ``text``,
  ``instances`` and ``renaming``."""

  def __init__(self, pm: Any) -> None:
    pats = [p for p, _ in pm.pm.patterns]
    alts = [alternatives(p) for p in pats]
    self.skipped: list[tuple[str, str]] = []
    ok: list[int] = []
    for i, (p, ts) in enumerate(zip(pats, alts)):
      if (why := _why_not(p, ts)) is None: ok.append(i)
      else: self.skipped.append((pm.name_of(pm.rules[i]), why))
    self.groups: dict[tuple[int, int, tuple[int, ...]], list[Overlap]] = {}
    for j in ok:
      for i in ok:
        for k, to in enumerate(alts[j]):
          for actual, written, s in positions(to):
            if actual == () and i > j: continue   # at the root each unordered pair once (inner the earlier rule)
            for m, ti in enumerate(alts[i]):
              if i == j and actual == () and m != k: continue   # a rule with itself: one alternative's several bindings
              if not _compatible(ti.ops, s.ops): continue
              if (hit := _unify(to, actual, ti)) is None: continue
              self.groups.setdefault((j, i, written), []).append(Overlap(j, i, written, actual, *hit))

  def text(self, o: Overlap) -> str: return _text(o.u, o.root)

  def instances(self, group: list[Overlap], max_instances: int) -> tuple[list[tuple[UOp, tuple[int, ...], Overlap]], int, set[str | None]]:
    """Distinct instances of a group of overlaps, taken round robin; the ill-typed count; why there are none."""
    gens = [(Builder(o.u, o.root), o) for o in group]
    streams = [zip(g.instances(max_instances), itertools.repeat(o.actual), itertools.repeat(o)) for g, o in gens]
    out = list(round_robin(streams, max_instances, key=lambda i: i[0]))
    untyped = ("no dtype fits", "no well-typed")   # an overlap without a well-typed instance is not a pair (critical_pairs)
    return out, sum(g.ill_typed for g, _ in gens), {"no well-typed instance" if w and w.startswith(untyped) else w for g, _ in gens
                                                     for w in (g.why_none,)}

  def renaming(self, u: UOp) -> Any:
    """Name the witness's variables ``a, b, c, ...`` in order of appearance (bounds kept)."""
    from uopc.relational.adapters.tinygrad.smt import NAMED as _NAMED
    seen = [n for n in u.toposort() if n.op in _NAMED and isinstance(getattr(n.arg, "name", None), str)]
    mapping = {v: UOp.variable(chr(ord("a") + k), v.vmin, v.vmax, v.dtype, param=v.op is Ops.PARAM) for k, v in enumerate(seen[:26])}
    if all(k.arg.name == v.arg.name for k, v in mapping.items()): return lambda x: x
    return lambda x: x.substitute(mapping)


def _why_not(p: UPat, trees: list[Tree]) -> str | None:
  """Why no instance of rule pattern ``p`` can be built that ``p`` matches (None: one can)."""
  why = "its pattern has no well-typed instance"
  for t in trees[:8]:
    if (hit := _unify(t, None, None)) is None:
      why = "its pattern binds a name to a node containing it"
      continue
    b = Builder(*hit)
    for u in b.instances(8):
      if p.match(u, {}): return None
      why = "its pattern matches none of the instances built of it"
    if b.why_none is not None: why = b.why_none
  return why


def _text(u: Unified, root: int) -> str:
  """The unified pattern as a term: ``add(~x, 0)``; holes ``~name`` (``~_`` unnamed), op sets ``{add,or}`` (a renderer
  for the term walk, ``uopc.term.tree_text``, over cells)."""
  if u.cells(root) is None: return "?"
  names: dict[int, str] = {}
  for n, c in u.names.items(): names.setdefault(u.find(c), n.split(":", 1)[1])

  def parts(c: int) -> str | list[int | str]:
    ops, src = u.ops[c], u.src[c]
    if ops is not None and ops <= {Ops.CONST} and u.args[c] and src is None: return _arg_text(u.args[c][0])
    if ops is None and src is None: return f"~{names.get(c, '_')}"
    head = "?" if ops is None else next(iter(ops)).name.lower() if len(ops) == 1 else "{" + ",".join(sorted(o.name.lower() for o in ops)) + "}"
    if src is None: return f"{head}:{names[c]}" if c in names else head
    return op_parts(head, [u.find(k) for k in src], _arg_text(u.args[c][0]) if u.args[c] else None)
  return tree_text(u.find(root), parts)


def _arg_text(v: Any) -> str: return repr(v) if not isinstance(v, float) or math.isfinite(v) else str(v)


def _kind(ops: frozenset | None) -> str | None:
  """How an op set ties dtypes: ``same`` (node and sources), ``cmp``, ``where``, ``unary``; None when its ops differ."""
  if ops is None: return None
  kinds = {"same" if o in _SAME else "cmp" if o in _CMP else "where" if o is Ops.WHERE else "unary" if o in _UNARY else None for o in ops}
  return kinds.pop() if len(kinds) == 1 else None


class Builder:
  """The instances of one unified pattern, plainest first (see the module doc); ``ill_typed`` and ``why_none`` after."""

  def __init__(self, u: Unified, root: int) -> None:
    self.u, self.root = u, u.find(root)
    self.ill_typed = 0
    self.why_none: str | None = None
    self._choice_memo: dict[tuple, list[tuple[int, Any]]] = {}

  def _classes(self, cells: list[int]) -> tuple[dict[int, int], dict[int, frozenset | None]]:
    """Dtype classes: cells an ALU ties to one dtype share a class; each class's allowed dtypes (None: any)."""
    u, parent = self.u, {c: c for c in cells}

    def find(c: int) -> int:
      while parent[c] != c: c = parent[c]
      return c

    def tie(a: int, b: int) -> None:
      ra, rb = find(a), find(b)
      if ra != rb: parent[rb] = ra
    fixed: dict[int, frozenset] = {}
    for c in cells:
      src = [u.find(k) for k in (u.src[c] or [])]
      kind = _kind(u.ops[c])
      if kind == "same":
        for k in src: tie(c, k)
      elif kind == "unary" and src: tie(c, src[0])
      elif kind == "cmp":
        fixed[c] = frozenset([dtypes.bool])
        for k in src[1:]: tie(src[0], k)
      elif kind == "where" and len(src) == 3:
        fixed[src[0]] = frozenset([dtypes.bool])
        tie(c, src[1])
        tie(c, src[2])
    allowed: dict[int, frozenset | None] = {}
    for c in cells:
      r = find(c)
      allowed[r] = _meet(allowed.get(r), _meet(u.dts[c], fixed.get(c)))
    return {c: find(c) for c in cells}, allowed

  def instances(self, max_instances: int) -> Iterator[UOp]:
    if self.u.tagged:
      self.why_none = "its pattern matches a tag (instances carry none)"
      return
    cells = self.u.cells(self.root)
    assert cells is not None
    if not (gens := self._assignments(cells)):
      self.why_none = self.why_none or "no well-typed instance"
      return
    self.why_none = None
    made = 0
    for node in round_robin([self._built(cells, picks) for picks in gens], max_instances, max_instances * TRIES_PER_INSTANCE):
      made += 1
      yield node
    if not made: self.why_none = "no well-typed instance"

  def _assignments(self, cells: list[int]) -> list[Iterator[tuple]]:
    """For each dtype assignment (one dtype per class of tied cells, plainest first) whose every cell has a choice, the
    combinations of choices by cost; ``why_none`` says why a cell had none."""
    cls, allowed = self._classes(cells)
    roots = sorted(set(cls.values()))
    if (domains := self._domains(roots, allowed)) is None: return []
    gens = []
    holes = [c for c in cells if self.u.src[c] is None and self.u.ops[c] is None]
    letters = {c: chr(ord("a") + k % 26) for k, c in enumerate(holes)} | {c: f"s{k}" for k, c in enumerate(cells) if self.u.ops[c] is not None}
    assigns = sorted(itertools.islice(itertools.product(*[range(len(d)) for d in domains]), MAX_ASSIGNMENTS * 8), key=sum)
    for combo in assigns[:MAX_ASSIGNMENTS]:
      dt = {r: domains[k][combo[k]] for k, r in enumerate(roots)}
      groups = [self._choices(c, dt[cls[c]], letters.get(c, "v")) for c in cells]   # memoized: assignments share most
      if any(not g for g in groups):
        if self.why_none is None: self.why_none = next(self._no_choice(c) for c, g in zip(cells, groups) if not g)
        continue
      gens.append(by_cost(groups))
    return gens

  def _domains(self, roots: list[int], allowed: dict[int, frozenset | None]) -> list[list[Any]] | None:
    """Each class's dtypes, ``DOMAIN``'s first; None (and ``why_none``) if a class has none."""
    domains = []
    for r in roots:
      a = allowed[r]
      dom = list(DOMAIN) if a is None else [d for d in DOMAIN if d in a] + sorted(a - set(DOMAIN), key=lambda d: d.name)[:2]
      if not dom:
        self.why_none = "no dtype fits its pattern"
        return None
      domains.append(dom)
    return domains

  def _built(self, cells: list[int], picks: Iterator[tuple]) -> Iterator[UOp]:
    """The instance of each pick, ``FAILED`` (counted in ``ill_typed``) where tinygrad's typing refuses it."""
    for pick in picks:
      if (node := self._build(cells, pick)) is None:
        self.ill_typed += 1
        yield FAILED
      else: yield node

  def _no_choice(self, c: int) -> str:
    ops = self.u.ops[c]
    if ops is None: return "a node of its pattern has sources but no op"
    return f"no node of {'/'.join(sorted(o.name for o in ops))} can be built for it"

  def _choices(self, c: int, dt: Any, letter: str) -> list[tuple[int, Any]]:
    """``(cost, how to build cell c)`` for dtype ``dt``: ``("leaf", node)`` or ``("op", op, dtype)``."""
    if (hit := self._choice_memo.get(key := (c, dt, letter))) is None: hit = self._choice_memo[key] = self._make_choices(c, dt, letter)
    return hit

  def _make_choices(self, c: int, dt: Any, letter: str) -> list[tuple[int, Any]]:
    u = self.u
    ops, args, src = u.ops[c], u.args[c], u.src[c]
    out: list[tuple[int, Any]] = []
    if src is None:
      if ops is None or Ops.CONST in ops: out += [(k + 1, ("leaf", n)) for k, n in enumerate(_consts(dt, args))]
      if ops is None and not args: out += [(0 if k == 0 else 4 + k, ("leaf", v)) for k, v in enumerate(_variables(letter, dt))]
      if ops is not None:
        k = len(out)
        for op in sorted(ops - {Ops.CONST}, key=lambda o: o.value):
          for n in _samples(op, dt, letter, args):
            out.append((k, ("leaf", n)))
            k += 1
      return out
    if ops is None: return []
    arg = args[0] if args else None
    for k, op in enumerate(sorted(ops, key=lambda o: o.value)):
      a = dt if op in (Ops.CAST, Ops.BITCAST) else arg if args or op not in _NEEDS_ARG else _NEEDS_ARG[op]   # a cast's arg is its dtype
      out.append((k, ("op", op, dt, a)))
    return out

  def _build(self, cells: list[int], pick: tuple) -> UOp | None:
    """The instance of one choice per cell, or None if tinygrad's own typing refuses a node of it (its dtype production
    rules, ``dtype_from_uop``, raise, or its ``spec_shared`` says no)."""
    u = self.u
    built: dict[int, UOp] = {}
    for c, how in zip(cells, pick):
      if how[0] == "leaf":
        built[c] = how[1]
        continue
      _, op, dt, arg = how
      src = tuple(built[u.find(k)] for k in u.src[c] or [])
      if op is Ops.BITCAST and not (dt not in dtypes.weaks and src[0].dtype not in dtypes.weaks and src[0].dtype.itemsize == dt.itemsize):
        return None   # tinygrad's bitcast refuses these (mixin/dtype.py); its spec does not say
      if (node := _typed_node(op, dt, src, arg)) is None: return None
      if (want := u.dts[c]) is not None and node.dtype not in want: return None
      built[c] = node
    return built[self.root]


_spec_memo: list = []
_nodes: dict[tuple, UOp | None] = {}   # (op, dtype, src, arg) -> the node tinygrad's typing accepts, or None: instances share nodes


def _typed_node(op: Any, dt: Any, src: tuple[UOp, ...], arg: Any) -> UOp | None:
  """The node ``op(*src)`` (dtype by tinygrad's ``dtype_from_uop``, else ``dt``), or None if tinygrad's typing refuses it:
  ``dtype_from_uop`` raises, or ``spec_shared`` has rules for the op and none accepts the node (``type_verify`` would fail)."""
  try: key: tuple | None = (op, dt, src, arg)
  except TypeError: key = None
  if key is not None and key in _nodes: return _nodes[key]
  try:
    node: UOp | None = UOp(op, dtype_from_uop(op, src, arg) or dt, src, arg)
    spec = _spec()
    if spec.rewrite(node) is not True and op in spec.pdict: node = None   # its spec has rules for the op and none says yes
  except Exception: node = None
  if key is not None:
    if len(_nodes) > 100_000: _nodes.clear()   # bounded: a long analysis keeps only the recent ones
    _nodes[key] = node
  return node


def _spec() -> Any:
  """tinygrad's ``spec_shared``: what its ``type_verify`` checks of every node of a tensor graph or program."""
  if not _spec_memo:
    from tinygrad.uop.spec import spec_shared
    _spec_memo.append(spec_shared)
  return _spec_memo[0]


_NEEDS_ARG: dict[Any, Any] = {}   # an op whose node needs an arg the pattern does not give: the one to build it with
try:
  from tinygrad.uop.ops import AxisType
  _NEEDS_ARG[Ops.RANGE] = (0, AxisType.LOOP)
except ImportError: pass


def _family(dt: Any) -> str | None:
  return "bool" if dt is dtypes.bool else "int" if dtypes.is_int(dt) else "float" if dtypes.is_float(dt) else None


_leaves: dict[tuple, list[UOp]] = {}   # (kind, ...) -> the leaves: the same holes come back in every overlap


def _memo(kind: str, f: Any, *key: Any) -> list[UOp]:
  """``f(*key)``, once per key (the types of a trailing tuple of args count: ``0 == 0.0 == False``)."""
  args = key[-1] if isinstance(key[-1], tuple) else ()
  k = (kind, *key, tuple(type(a) for a in args))
  try: hit = _leaves.get(k)
  except TypeError: return f(*key)   # an unhashable pattern arg
  if hit is None: hit = _leaves[k] = f(*key)
  return hit


def _consts(dt: Any, args: tuple) -> list[UOp]:
  """Constants of dtype ``dt`` ``==`` every one of ``args``: the written ones first, then the edge constants."""
  return _memo("const", _make_consts, dt, args)


def _make_consts(dt: Any, args: tuple) -> list[UOp]:
  fam = _family(dt)
  if fam is None and not args: return []
  values: list[Any] = []
  for v in list(args) + list(_EDGE.get(fam or "", ())):
    try:
      if not all(bool(v == a) for a in args): continue
    except Exception: continue
    if any(type(w) is type(v) and (w == v or (v != v and w != w)) and math.copysign(1, w) == math.copysign(1, v)
           if isinstance(v, float) else type(w) is type(v) and w == v for w in values): continue
    values.append(v)
  out = []
  for v in values:
    try: out.append(UOp.const(v, dt))
    except Exception: continue
  return out


def _variables(letter: str, dt: Any) -> list[UOp]:
  """Variables of dtype ``dt`` (``UOp.variable``, named for their hole), each bounds of ``BOUNDS``."""
  return _memo("var", _make_variables, letter, dt)


def _make_variables(letter: str, dt: Any) -> list[UOp]:
  fam = _family(dt)
  try:
    if fam == "int": return [UOp.variable(letter if k == 0 else f"{letter}{k}", lo, hi, dt) for k, (lo, hi) in enumerate(BOUNDS)]
    if fam == "bool": return [UOp.variable(letter, False, True, dt)]
    if fam == "float": return [UOp.variable(letter, float(BOUNDS[1][0]), float(BOUNDS[1][1]), dt)]
  except Exception: pass
  return []


def _samples(op: Any, dt: Any, letter: str, args: tuple) -> list[UOp]:
  """Small nodes of ``op`` and dtype ``dt`` over fresh variables, for a hole with an op set (``UPat(Ops.RANGE)``)."""
  return _memo("sample", _make_samples, op, dt, letter, args)


def _make_samples(op: Any, dt: Any, letter: str, args: tuple) -> list[UOp]:
  if (recipe := _sample_recipe(op, dt, letter, args)) is None: return []
  over, make = recipe
  try:
    vs = [_variables(f"{letter}{k}", d) for k, d in enumerate(over)]
    return [] if any(not v for v in vs) else make(*[v[0] for v in vs])
  except Exception: return []


def _sample_recipe(op: Any, dt: Any, letter: str, args: tuple) -> tuple[tuple[Any, ...], Callable[..., list[UOp]]] | None:
  """The dtypes of the variables a small node of ``op`` and dtype ``dt`` is made over, and how to make it; None for none."""
  wi = dtypes.weakint
  if op in _SAME: return (dt, dt), lambda x, y: [UOp(op, dt, (x, y))]
  if op in _CMP: return ((wi, wi), lambda x, y: [UOp(op, dtypes.bool, (x, y))]) if dt is dtypes.bool else None
  if op in _UNARY: return (dt,), lambda x: [UOp(op, dt, (x,))]
  if op is Ops.WHERE: return (dtypes.bool, dt, dt), lambda c, x, y: [c.where(x, y)]
  if op is Ops.CAST: return (wi if dt is not wi else dtypes.int32,), lambda x: [x.cast(dt)]
  if op is Ops.RANGE: return ((dt,), lambda e: [UOp.range(e, 0), UOp.range(4, 0)]) if dt is wi else None
  if op is Ops.STACK: return (dt, dt), lambda x, y: [UOp(Ops.STACK, src=(x, y))]
  if op is Ops.INDEX: return (dt, dt, wi), lambda x, y, i: [UOp(Ops.STACK, src=(x, y)).index(i)]
  if op is Ops.AFTER: return (dt,), lambda x: [UOp(Ops.AFTER, dt, (x, UOp.range(4, 0)))]
  if op in (Ops.SINK, Ops.GROUP): return (dt,), lambda x: [UOp(op, dtypes.void, (x,))]
  if op is Ops.BUFFER and args == (): return (dt,), lambda x: [x]
  if op is Ops.PARAM and args == () and _family(dt) == "int": return (), lambda: [UOp.variable(f"{letter}0", 0, 10, dt, param=True)]
  return None
