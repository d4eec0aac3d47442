"""One rewrite step, computed in plain Python and memoized per hash-consed node.

Step semantics (term graph rewriting, as ``graph_rewrite`` does it): a step picks a
node ``n`` of the graph and a rule whose pattern matches ``n`` and whose function
returns ``m`` (not None, not ``n``); every use of ``n`` sees ``m``, so the users of
``n`` are rebuilt up to the root and hash consing shares everything else. Each
distinct ``(n, rule, m)`` is a ``Redex``: one edge of the state graph. Under the
``semantics="tree"`` policy a step rewrites one occurrence of ``n`` instead (the edge is
an ``At`` naming its position); only how a node's map is made differs.

>>> from uopc import UOp, UPat, PatternMatcher
>>> x = UPat.var("x")
>>> pm = PatternMatcher([(x + 0, lambda x: x), (x * 1, lambda x: x)])
>>> p0 = UOp.param(0)
>>> sorted(show(h) for _, h in Stepper(pm).successors((p0 + 0) * 1))
['add(p0, 0)', 'mul(p0, 1)']

Why it is cheap: what can be rewritten inside a node, and what the node becomes by
each such rewrite, is a pure function of the node. So each distinct node gets, once,
a map ``{redex below it: the node with that redex rewritten}``, built from its
sources' maps. A new graph differs from its parent only along the rebuilt spine, so
only the spine's new nodes need maps: the work per state is proportional to the
changed spine and the number of redexes, never to the size of the graph.

A node whose map would exceed ``map_limit`` entries (deep chains of redexes) is *big*:
it keeps only its own redexes, and, where that is cheap, its steps grouped by the graph
they make (``GroupedSteps``: in a chain of n ``+ 0`` nodes all n redexes make one graph,
so each node's groups come from its source's in O(1), and a whole exploration of the
chain is linear in n). Under tree semantics the groups hold positions: a source's group
seen from its user is wrapped once (``_Under``), its keys read as ``At`` on demand. The
successors of a big root without groups are enumerated lazily, rebuilding each one along
its spine. Both keep a 20,000-node chain of redexes linear instead of quadratic.

Rules are called as ``fn(**bindings)``, or with ``ctx=ctx`` when the stepper has a
``ctx`` (like ``PatternMatcher.fire``); rules that need a ctx fail (a stuck step)
when there is none. Rules must be pure functions of the matched node, as the
canonical engine already assumes.
"""
from __future__ import annotations

import weakref
from typing import Any, Iterable, Iterator, Literal

from uopc.matcher import PatternMatcher
from uopc.ops import Ops
from uopc.relational.ir import IR, UOPC
from uopc.relational.space.states import Stuck
from uopc.rewrite import graph_rewrite, rewrite_problem
from uopc.term import show
from uopc.uop import UOp, UOpError, existing_nodes
from uopc.lengths import LENGTHS

try: from uopc.uop import make_uop   # the engine's fast constructor, where it has one
except ImportError: make_uop = UOp


_EMPTY: dict = {}        # the map of every node with no redex below it (shared; never mutated)


_BIG = object()          # marks a node whose map is not materialized


class Redex:
  """One way to rewrite one node: rule ``rule_index`` turns ``node`` into ``result``.

  If the rule raised (or returned something that is not a node) ``result`` is None and
  ``error`` says what happened. Redexes are made once per node and compared by identity.
  """
  __slots__ = ("node", "rule_index", "result", "error", "value")
  position: tuple[int, ...] = ()   # tree semantics: the occurrence rewritten, as source indices (here: the node itself)

  def __init__(self, node: UOp, rule_index: int, result: UOp | None, error: str | None = None) -> None:
    self.node, self.rule_index, self.result, self.error = node, rule_index, result, error
    self.value: UOp | Stuck = result if error is None else Stuck(self, error)  # type: ignore[assignment]  # what the node becomes: no error, a result

  def __repr__(self) -> str:
    what = show(self.result, LENGTHS.label) if self.error is None else f"error {self.error!r}"  # type: ignore[arg-type]  # no error: a result
    return f"Redex(rule {self.rule_index} @ {show(self.node, LENGTHS.label)} -> {what})"


class At:
  """Tree semantics: the redex ``redex`` at source ``index`` of a node (nested ``At``s spell its position).

  It reads like the ``Redex`` it wraps (``node``, ``rule_index``, ``result``, ``error``,
  ``value``), so states and edges need not know which semantics made them.
  """
  __slots__ = ("index", "inner", "redex")

  def __init__(self, index: int, inner: Any) -> None:
    self.index, self.inner = index, inner
    self.redex: Redex = inner.redex if type(inner) is At else inner

  def __getattr__(self, name: str) -> Any:
    if name in ("index", "inner", "redex"): raise AttributeError(name)   # its own slots, not set yet (copy, pickle): never recurse
    return getattr(self.redex, name)

  @property
  def position(self) -> tuple[int, ...]:
    """The source indices from the root down to the rewritten occurrence."""
    out, k = [], self
    while type(k) is At: out.append(k.index); k = k.inner
    return tuple(out)

  def __repr__(self) -> str: return f"At({self.position}, {self.redex!r})"


class _Cat:
  """Two groups of steps, one after the other: joining is O(1).

  A group is a key (a ``Redex``, or under tree semantics an ``At``), a ``_Cat``, or an ``_Under``.
  """
  __slots__ = ("left", "right", "first", "size")

  def __init__(self, left: Any, right: Any) -> None:
    self.left, self.right = left, right
    self.first: Any = _first(left)
    self.size: int = _size(left) + _size(right)


class _Under:
  """Tree semantics: a group's keys one source down, each key ``k`` read as ``At(index, k)``: wrapping is O(1)."""
  __slots__ = ("index", "inner", "first", "size")

  def __init__(self, index: int, inner: Any) -> None:
    self.index, self.inner = index, inner
    self.first: At = At(index, inner.first)
    self.size: int = inner.size


def _first(group: Any) -> Any:
  """The first key of a group."""
  return group.first if group.__class__ is _Cat or group.__class__ is _Under else group


def _size(group: Any) -> int:
  """How many keys a group holds."""
  return group.size if group.__class__ is _Cat or group.__class__ is _Under else 1


def _join(group: Any, more: Any) -> Any: return more if group is None else _Cat(group, more)


def _under(index: int, group: Any) -> Any:
  """The group ``group`` of a node's source ``index``, seen from the node (tree semantics)."""
  return _Under(index, group) if group.__class__ is _Cat or group.__class__ is _Under else At(index, group)


def _keys(group: Any) -> Iterator[Any]:
  """The keys of a group, in order (iterative: a chain of redexes makes a deep group)."""
  stack: list[tuple[Any, Any]] = [(group, None)]   # a group and the source indices above it: (index, outer ones) or None
  while stack:
    g, up = stack.pop()
    if g.__class__ is _Cat: stack.append((g.right, up)); stack.append((g.left, up))
    elif g.__class__ is _Under: stack.append((g.inner, (g.index, up)))
    else:
      while up is not None: g = At(up[0], g); up = up[1]
      yield g


class GroupedSteps:
  """The steps out of a big graph, grouped by the graph they make: ``{new root or Stuck: its keys}``.

  Many redexes may make one graph (in a chain of ``+ 0`` nodes every redex makes the
  same shorter chain; under tree semantics, every position of one): the explorer looks
  each new graph up once, with its first key (``firsts``). Iterating gives every
  ``(key, new root)`` pair, as a step map's ``items()`` does, and ``len`` counts them.
  """
  __slots__ = ("groups", "size")

  def __init__(self, groups: dict[Any, Any]) -> None:
    self.groups = groups
    self.size = sum(_size(g) for g in groups.values())

  def __iter__(self) -> Iterator[tuple[Any, UOp | Stuck]]:
    for h, g in self.groups.items():
      if g.__class__ is _Cat or g.__class__ is _Under:
        for k in _keys(g): yield k, h
      else: yield g, h

  def __len__(self) -> int: return self.size

  def counts(self) -> Iterator[tuple[UOp | Stuck, int]]:
    """``(new root or Stuck, how many keys make it)`` once per graph made: the steps counted without listing them."""
    for h, g in self.groups.items(): yield h, _size(g)

  def target_of(self, key: Redex) -> UOp | Stuck | None:
    """The graph that the step ``key`` makes (a redex, compared by identity), or None if it is not one of these steps.

    Each group is searched right to left: a node's own redexes come before those below it, and what looks a step up
    (the canonical engine's replay, which rewrites bottom-up) mostly wants a deep one.
    """
    for h, g in self.groups.items():
      stack = [g]
      while stack:
        g = stack.pop()
        if g is key: return h
        c = g.__class__
        if c is _Cat: stack.append(g.left); stack.append(g.right)
        elif c is _Under: break   # tree semantics: the keys are positions, not redexes
    return None

  def firsts(self) -> Iterator[tuple[Any, UOp | Stuck]]:
    """``(first key, new root or Stuck)`` once per graph made, in the order the pairs first make it."""
    for h, g in self.groups.items(): yield _first(g), h


Semantics = Literal["graph", "tree"]


def _error_text(e: BaseException) -> str: return f"{type(e).__name__}: {e}"


def _ill_typed(op: Ops, src: tuple, arg: Any, dtype: Any, old: tuple, r: Redex, e: UOpError) -> UOp | Stuck | None:
  """What a node becomes when ``op(*src)`` (its sources after the step ``r``) does not type-check.

  A CALL whose rewritten body lost a PARAM keeps the body as written, as the canonical
  engine's ``rebuild`` does: None if nothing else changed (the step does not go through
  this node), else the CALL on its new arguments. Anything else is a stuck step.
  """
  if op is Ops.CALL and src[0] is not old[0]:
    kept = (old[0], *src[1:])
    if all(a is b for a, b in zip(kept, old)): return None
    try: return make_uop(op, kept, arg, dtype)
    except UOpError: pass
  return Stuck(r, _error_text(e))


def _disjoint(maps: list[dict]) -> bool:
  """True if no redex is in two of these maps (no node with a redex is below two of their sources)."""
  seen: set = set()
  for m in maps:
    if not seen.isdisjoint(m): return False
    seen.update(m)
  return True


def _fill_half(out: dict, cm: dict, get: Any, op: Ops, arg: Any, dtype: Any, a: UOp, b: UOp, left: bool,
               make: Any = make_uop, err: Any = UOpError) -> None:
  """``out[r]`` for each redex ``r`` below one source of the binary node ``op(a, b)``.

  ``cm[r]`` is what that source (``a`` if ``left``, else ``b``) becomes; the node on it
  is found with ``get`` (``existing_nodes``) when it exists (most do), else made (``make``, the IR's; ``err``: what it
  raises for an ill-typed node); a Stuck
  (or a node that does not type-check) leaves the successor stuck.
  """
  for r, c in cm.items():
    if c.__class__ is not Stuck:
      if (n := get(src := (c, b) if left else (a, c))) is None:
        try: n = make(op, src, arg, dtype)
        except err as e:
          if (n := _ill_typed(op, src, arg, dtype, (a, b), r, e)) is None: continue
      out[r] = n
    else: out[r] = c


class Stepper:
  """The one-step relation of a ``PatternMatcher``, memoized per node.

  ``successors(g)`` gives ``(redex, h)`` for every step from graph ``g``: ``h`` is the
  new root, or a ``Stuck``. Memo tables hold nodes strongly. Their budget is one total
  for all nodes: ``cache_limit`` entries (each node counts one, and one more per entry of
  its map, per graph its grouped steps make, per redex it keeps when big); past it they are
  dropped whole (between two calls, never during one, nor while a big graph's successors
  are being streamed). Redexes are compared by identity, so a redex from before a drop is
  not found in maps made after it. ``map_limit`` is not a budget but a choice of form: a
  node whose map would pass it keeps its steps grouped by the graph they make, or
  enumerates them lazily.
  """

  def __init__(self, pm: PatternMatcher, ctx: Any = None, map_limit: int = 256, cache_limit: int = 4_000_000,
               semantics: Semantics = "graph") -> None:
    if semantics not in ("graph", "tree"): raise ValueError(f"semantics must be 'graph' or 'tree', got {semantics!r}")
    self.pm, self.ctx, self.map_limit, self.cache_limit, self.semantics = pm, ctx, map_limit, cache_limit, semantics
    # the one place the two semantics differ: how a node's map is made from its sources' maps
    self._compute_map = self._compute if semantics == "graph" else self._compute_tree
    self._by_op = pm.by_op   # the ops some rule is filed under
    # the node protocol of the rules' IR (docs/ir-protocol.md): uopc's own constructor, tables and check, called directly
    self.ir: IR = getattr(pm, "ir", UOPC)
    own = self.ir is UOPC
    self._make: Any = make_uop if own else self.ir.make
    self._existing: Any = existing_nodes if own else self.ir.existing
    self._error: Any = UOpError if own else self.ir.build_error
    self._problem: Any = rewrite_problem if own else self.ir.result_problem
    self._enter: Any = getattr(pm, "enter_state", None)   # rules that read the state's whole graph are told which state
    self._maps: dict[UOp, Any] = {}      # node -> {Redex: rewritten node | Stuck}, _EMPTY, or _BIG
    self._big: dict[UOp, tuple[Redex, ...]] = {}   # big node -> its own redexes
    self._groups: dict[UOp, GroupedSteps] = {}   # big node -> its steps grouped by the graph they make, where known
    self._local: dict[UOp, tuple[Redex, ...]] = {}   # own redexes, for nodes asked about directly
    self._frozen: dict[UOp, bool] = {}   # CALL -> its body is kept as written (see frozen)
    self._body_forms: dict[UOp, UOp] = {}   # a CALL body -> the engine's normal form of it (the body itself if it fails)
    self._pinned = 0   # lazy successor streams in progress: the tables must not be dropped under them
    self._entries = 0   # the tables' size, measured against cache_limit

  def rule_name(self, index: int) -> str:
    """The readable name of rule ``index`` (``add-0``)."""
    return self.pm.name_of(self.pm.rules[index])

  def can_match(self, op: Ops) -> bool:
    """False if no rule's pattern can match a node of ``op``: such a node is never a redex, whatever its sources."""
    return op in self._by_op

  def forget(self, nodes: Iterable[UOp]) -> None:
    """Forget the memoized steps of these nodes (a rule set's ``enter_state`` says they depend on the state they are in)."""
    for n in nodes:
      self._maps.pop(n, None); self._big.pop(n, None); self._groups.pop(n, None); self._local.pop(n, None)

  def clear(self) -> None:
    """Forget every memoized node."""
    self._maps.clear(); self._big.clear(); self._groups.clear(); self._local.clear(); self._frozen.clear()
    self._body_forms.clear()
    self._entries = 0

  # ---- a node's own redexes

  def redexes_at(self, u: UOp) -> tuple[Redex, ...]:
    """The redexes whose node is ``u`` itself (memoized)."""
    if (r := self._local.get(u)) is None:
      if (m := self._maps.get(u)) is not None and m is not _BIG:
        r = tuple(k for k in m if k.node is u)
      elif m is _BIG: r = self._big[u]
      else: r = self._match(u)
      self._local[u] = r
    return r

  def _match(self, u: UOp) -> tuple[Redex, ...]:
    # the canonical engine's matching: its early rejection and its compiled patterns (or the interpreter, as pm says)
    if u.op not in self._by_op or not (rules := self.pm.every_candidate(u)): return ()
    out: list[Redex] = []
    seen: set = set()
    ctx = self.ctx
    for i, match, fn in rules:
      try: bindings = match(u)
      except Exception as e:   # a broken pattern is a stuck step, not a dead stream
        out.append(Redex(u, i, None, f"matching raised {_error_text(e)}")); continue
      for b in bindings:
        try: m = fn(**b) if ctx is None else fn(**b, ctx=ctx)
        except Exception as e:
          key = (i, _error_text(e))
          if key not in seen: seen.add(key); out.append(Redex(u, i, None, key[1]))
          continue
        if m is None or m is u: continue
        if (problem := self._problem(u, m)) is not None:   # the IR's check of a rule's result (uopc: the engine's)
          key = (i, f"the rule {problem}")
          if key not in seen: seen.add(key); out.append(Redex(u, i, None, key[1]))
          continue
        if (i, m) not in seen:   # different bindings may give the same result: one edge
          seen.add((i, m))
          out.append(Redex(u, i, m))
    return tuple(out)

  # ---- maps

  def map_of(self, u: UOp) -> Any:
    """``{redex: u with it rewritten}`` for every redex in ``u``'s graph, or ``_BIG``."""
    maps = self._maps
    if self._enter is not None and (stale := self._enter(u)) and not self._pinned: self.forget(stale)
    if (m := maps.get(u)) is not None: return m
    if self._entries > self.cache_limit and not self._pinned: self.clear()
    for s in u.src:
      if s not in maps: break
    else:   # the common case: a new root over known sources
      m = maps[u] = self._compute_map(u)
      self._entries += 1 if m is _BIG else len(m) + 1
      return m
    stack = [u]
    while stack:   # post-order over the nodes without a map yet: iterative, graphs may be deep
      x = stack[-1]
      if x in maps: stack.pop(); continue
      depth = len(stack)
      for s in x.src:   # (a loop, not a comprehension: on a new spine this runs once or twice per node)
        if s not in maps: stack.append(s)
      if len(stack) > depth: continue
      stack.pop()
      m = maps[x] = self._compute_map(x)
      self._entries += 1 if m is _BIG else len(m) + 1
    return maps[u]

  def _compute(self, x: UOp) -> Any:
    """The step map of ``x`` under graph semantics, in two phases: its own redexes (``local``), then the
    rebuild above its sources' redexes, chosen by how many sources have any: one (``_above_one``), both of
    two in a small map (``_both``), or the general case (``_from_sources``)."""
    local = self._local.get(x) if self._local else None
    if local is None: local = self._match(x)
    src = x.src
    if not src: return {r: r.value for r in local} if local else _EMPTY
    maps = self._maps
    if x.op is Ops.CALL and self.frozen(x): return self._from_sources(x, local, [_EMPTY, *(maps[s] for s in src[1:])])
    if len(src) == 2:   # the hot path (no comprehensions: each is a function call)
      a, b = src
      ma, mb = maps[a], maps[b]
      if not mb or a is b: return self._above_one(x, local, 0, ma)
      if not ma: return self._above_one(x, local, 1, mb)
      if ma is not _BIG and mb is not _BIG and len(ma) + len(mb) + len(local) <= self.map_limit: return self._both(x, local, ma, mb)
      return self._from_sources(x, local, [ma, mb])
    cmaps = [maps[s] for s in src]
    live = [j for j, c in enumerate(cmaps) if c]
    if len(live) > 1: return self._from_sources(x, local, cmaps)
    return self._above_one(x, local, live[0], cmaps[live[0]]) if live else ({r: r.value for r in local} if local else _EMPTY)

  def _above_one(self, x: UOp, local: tuple[Redex, ...], i: int, cm: Any) -> Any:
    """The map of ``x`` when only source ``i`` has redexes below it (its map ``cm``): one new node per redex below."""
    if not cm: return {r: r.value for r in local} if local else _EMPTY
    src = x.src
    if cm is _BIG or len(cm) + len(local) > self.map_limit: return self._make_grouped(x, local, [self._maps[s] for s in src])
    out = {r: r.value for r in local} if local else {}
    op, arg, dtype = x.op, x.arg, x.dtype
    make, err = self._make, self._error
    if len(src) == 2:   # the parent's half of every successor
      a, b = src
      if a is b:
        for r, c in cm.items():
          if c.__class__ is not Stuck:
            try: out[r] = make(op, (c, c), arg, dtype)
            except err as e:
              if (n := _ill_typed(op, (c, c), arg, dtype, src, r, e)) is not None: out[r] = n
          else: out[r] = c
      else: _fill_half(out, cm, self._existing(op, dtype, arg), op, arg, dtype, a, b, i == 0, make, err)
    else:
      pre, post = src[:i], src[i + 1:]
      for r, c in cm.items():
        if c.__class__ is not Stuck:
          try: out[r] = make(op, (*pre, c, *post), arg, dtype)
          except err as e:
            if (n := _ill_typed(op, (*pre, c, *post), arg, dtype, src, r, e)) is not None: out[r] = n
        else: out[r] = c
    return out

  def _from_sources(self, x: UOp, local: tuple[Redex, ...], cmaps: list[Any]) -> Any:
    """The map of ``x`` from its sources' maps ``cmaps`` (the general case: any number of sources with redexes)."""
    src = x.src
    live = [j for j, c in enumerate(cmaps) if c]
    if any(cmaps[j] is _BIG for j in live): return self._make_grouped(x, local, cmaps)
    if len(local) + sum(len(cmaps[j]) for j in live) > self.map_limit:
      keys = {r for j in live for r in cmaps[j]}
      if len(local) + len(keys) > self.map_limit: return self._make_grouped(x, local, cmaps)
    out = {r: r.value for r in local}
    op, arg, dtype = x.op, x.arg, x.dtype
    make, err = self._make, self._error
    # several sources have redexes below (maybe the same node twice): a redex below two of
    # them is rewritten in both, since every use of the rewritten node sees the result
    for i in live:
      for r in cmaps[i]:
        if r in out: continue
        new_src = []
        stuck = None
        for s, cm in zip(src, cmaps):
          c = cm.get(r, s)
          if type(c) is Stuck: stuck = c; break
          new_src.append(c)
        if stuck is not None: out[r] = stuck; continue
        try: out[r] = make(op, tuple(new_src), arg, dtype)
        except err as e:
          if (n := _ill_typed(op, tuple(new_src), arg, dtype, src, r, e)) is not None: out[r] = n
    return out

  def _both(self, x: UOp, local: tuple[Redex, ...], ma: dict, mb: dict) -> dict:
    """The map of a two-source node with redexes below both sources."""
    out = {r: r.value for r in local} if local else {}
    op, arg, dtype = x.op, x.arg, x.dtype
    make, err = self._make, self._error
    a, b = x.src
    get = self._existing(op, dtype, arg)
    if ma.keys().isdisjoint(mb):   # the usual case: no node below both sources
      _fill_half(out, ma, get, op, arg, dtype, a, b, True, make, err)
      _fill_half(out, mb, get, op, arg, dtype, a, b, False, make, err)
      return out
    for r, c in ma.items():
      d = mb.get(r, b)   # a redex below both sources (a shared node) is rewritten in both
      if c.__class__ is not Stuck and d.__class__ is not Stuck:
        n: UOp | Stuck | None = get((c, d))
        if n is None:
          try: n = make(op, (c, d), arg, dtype)
          except err as e:
            if (n := _ill_typed(op, (c, d), arg, dtype, (a, b), r, e)) is None: continue
        out[r] = n
      else: out[r] = d if c.__class__ is not Stuck else c
    _fill_half(out, {r: d for r, d in mb.items() if r not in ma}, get, op, arg, dtype, a, b, False, make, err)
    return out

  def _compute_tree(self, x: UOp) -> Any:
    """Tree semantics: one entry per *occurrence* of a redex below ``x``, the others left as they are.

    A source's entries become ``At(i, entry)`` here, so a node used twice (``a + a``,
    or a subterm shared by hash consing) gives two steps, each rewriting one use.
    """
    local = self._local.get(x) if self._local else None
    if local is None: local = self._match(x)
    maps, src = self._maps, x.src
    cmaps = [maps[s] for s in src]
    if x.op is Ops.CALL and self.frozen(x): cmaps[0] = _EMPTY
    if any(c is _BIG for c in cmaps) or len(local) + sum(len(c) for c in cmaps) > self.map_limit:
      return self._make_grouped(x, local, cmaps)
    if not any(cmaps): return {r: r.value for r in local} if local else _EMPTY
    out: dict[Any, Any] = {r: r.value for r in local}
    op, arg, dtype = x.op, x.arg, x.dtype
    make, err = self._make, self._error
    for i, cm in enumerate(cmaps):
      made: dict[UOp, UOp] = {}   # the node on each graph made below source i (many positions often make one)
      for k, c in cm.items():
        key = At(i, k)
        if c.__class__ is Stuck: out[key] = c; continue
        if (n := made.get(c)) is not None: out[key] = n; continue
        new_src = (*src[:i], c, *src[i + 1:])
        try: out[key] = made[c] = make(op, new_src, arg, dtype)
        except err as e:
          if (v := _ill_typed(op, new_src, arg, dtype, src, k.redex if type(k) is At else k, e)) is not None: out[key] = v
    return out

  def _iter_big_tree(self, root: UOp) -> Iterator[tuple[Any, UOp | Stuck]]:
    """Tree semantics, a big root: every occurrence of a redex, depth first, its spine rebuilt (iterative)."""
    maps, big = self._maps, self._big
    stack: list[tuple[UOp, Any]] = [(root, None)]   # a node and its path from the root: (index, parent path) or None
    while stack:
      u, path = stack.pop()
      m = maps[u]
      if m is _BIG:
        own: Any = [(r, r.value) for r in big[u]]
        skip = 1 if u.op is Ops.CALL and self.frozen(u) else 0
        stack.extend((s, (i, path)) for i, s in reversed(list(enumerate(u.src))) if i >= skip and maps[s])
      else: own = m.items()
      for k, c in own:
        key, p = k, path
        while p is not None:   # up the path: the key's position and the rebuilt spine
          i, p = p
          key = At(i, key)
        yield key, (self._rebuild_path(root, path, c, k) if c.__class__ is not Stuck else c)

  def _rebuild_path(self, root: UOp, path: Any, new: UOp, k: Any) -> UOp | Stuck:
    """``root`` with the node at ``path`` replaced by ``new``, the spine above it rebuilt."""
    spine: list[tuple[UOp, int]] = []
    u = root
    steps: list[int] = []   # typed: mypyc cannot compile a loop over an empty list's unknown items
    p = path
    while p is not None: steps.append(p[0]); p = p[1]
    for i in reversed(steps): spine.append((u, i)); u = u.src[i]
    c: UOp | Stuck = new
    make, err = self._make, self._error
    for u, i in reversed(spine):
      if c.__class__ is Stuck: return c
      new_src = (*u.src[:i], c, *u.src[i + 1:])
      try: c = make(u.op, new_src, u.arg, u.dtype)
      except err as e:
        n = _ill_typed(u.op, new_src, u.arg, u.dtype, u.src, k.redex if type(k) is At else k, e)
        if n is None: return root   # a CALL kept its body: not a step
        c = n
    return c

  def frozen(self, call: UOp) -> bool:
    """True if no step rewrites inside this CALL's body: the canonical engine keeps it as written.

    ``graph_rewrite`` rewrites a CALL's body to its normal form, and when that normal form
    lost a PARAM (the CALL would no longer type-check) it keeps the body *as written*
    (``uopc.rewrite.rebuild``). The explorer does the same, so that the canonical
    result is one of its normal forms: such a body is not rewritten at all.
    """
    if (f := self._frozen.get(call)) is None:
      body = call.src[0]
      # one engine run a body, not a CALL: CALLs of one body differ in their arguments, and a looping body costs the
      # engine's whole 200,000 lookups
      if (nf := self._body_forms.get(body)) is None:
        try: nf = graph_rewrite(body, self.pm, ctx=self.ctx, max_steps=200_000 + 20 * len(body.toposort()))
        except Exception: nf = body   # the engine fails on this body: no opinion, the steps stay
        self._body_forms[body] = nf
      f = False
      if nf is not body:
        try: make_uop(Ops.CALL, (nf, *call.src[1:]), call.arg, call.dtype)
        except UOpError: f = True
      self._frozen[call] = f
    return f

  def _make_big(self, x: UOp, local: tuple[Redex, ...]) -> Any:
    self._big[x] = local
    self._entries += len(local)
    return _BIG

  def _make_grouped(self, x: UOp, local: tuple[Redex, ...], cmaps: list[Any]) -> Any:
    """A node whose map would pass ``map_limit`` entries: big, with its steps grouped by the graph they make where that is cheap.

    Cheap: one source has redexes below it (its steps grouped, or its map small), or several
    have, in small maps that share no redex, and the steps make at most ``map_limit``
    graphs. Then each graph is made once, however many redexes make it. Otherwise (a redex
    below two sources is rewritten in both, or too many graphs) the node is only big: its
    steps are enumerated lazily, one spine at a time. Under tree semantics a step rewrites
    one occurrence, below one source, so every source's groups are cheap: each is the
    source's own, its keys read one source down (``_Under``).
    """
    live = [j for j, c in enumerate(cmaps) if c]
    tree = self.semantics == "tree"
    if not tree and len(live) > 1 and (any(cmaps[j] is _BIG for j in live) or not _disjoint([cmaps[j] for j in live])):
      return self._make_big(x, local)
    out: dict[Any, Any] = {}
    for r in local: out[r.value] = _join(out.get(r.value), r)
    src, op, arg, dtype = x.src, x.op, x.arg, x.dtype
    make, err = self._make, self._error
    get = self._existing(op, dtype, arg) if len(src) == 2 else None
    for j in live:
      if (cm := cmaps[j]) is _BIG:
        if (below := self._groups.get(src[j])) is None: return self._make_big(x, local)
        pairs: Iterable[tuple[Any, Any]] = below.groups.items()
      else: pairs = ((c, r) for r, c in cm.items())
      for c, group in pairs:   # each graph made below source j, and the keys that make it
        if tree: group = _under(j, group)
        if c.__class__ is Stuck: out[c] = _join(out.get(c), group); continue  # a Stuck: one per redex
        new_src = (*src[:j], c, *src[j + 1:])
        if get is None or (n := get(new_src)) is None:
          try: n = make(op, new_src, arg, dtype)
          except err as e:
            for k in _keys(group):   # what the node becomes does not type-check: stuck (or no step), per key
              r = k.redex if k.__class__ is At else k
              if (v := _ill_typed(op, new_src, arg, dtype, src, r, e)) is not None: out[v] = _join(out.get(v), k)
            continue
        out[n] = _join(out.get(n), group)
    if len(out) <= self.map_limit:   # else as many graphs, one spine each: lazily
      self._groups[x] = GroupedSteps(out)
      self._entries += len(out)
    return self._make_big(x, local)

  # ---- successors

  def successors(self, g: UOp) -> Iterable[tuple[Redex, UOp | Stuck]]:
    """``(redex, new root or Stuck)`` for each step from ``g``; lazy when ``g`` is big."""
    m = self.map_of(g)
    return m.items() if m is not _BIG else self.iter_big(g)

  def step_map(self, g: UOp) -> dict[Redex, UOp | Stuck] | None:
    """``{redex: new root or Stuck}`` for every step from ``g`` (do not modify it); None if ``g`` is big."""
    m = self.map_of(g)
    return None if m is _BIG else m

  def grouped_steps(self, g: UOp) -> GroupedSteps | None:
    """The steps from a big ``g`` grouped by the graph they make (do not modify them); None if ``g`` is not big,
    or if its steps are only enumerated lazily (``iter_big``)."""
    return self._groups.get(g) if self.map_of(g) is _BIG else None

  def iter_big(self, g: UOp) -> Iterator[tuple[Redex, UOp | Stuck]]:
    """The steps from a big ``g``, one at a time."""
    if (grouped := self.grouped_steps(g)) is not None: return iter(grouped)
    if self.semantics == "tree": return (kh for kh in self._iter_big_tree(g) if kh[1] is not g)
    return self._iter_big(g)

  def is_normal(self, g: UOp) -> bool:
    """True if no step (not even a failing one) leaves ``g``."""
    m = self.map_of(g)
    return not m if m is not _BIG else next(self.iter_big(g), None) is None

  def _iter_big(self, root: UOp) -> Iterator[tuple[Redex, UOp | Stuck]]:
    self.map_of(root)
    self._pinned += 1
    try:
      maps, big = self._maps, self._big
      seen_nodes: set[UOp] = set()
      seen: set[Redex] = set()
      stack = [root]
      while stack:   # depth first, left to right: each node's own redexes, then its sources'
        u = stack.pop()
        if u in seen_nodes: continue
        seen_nodes.add(u)
        m = maps[u]
        if m is _BIG:
          local = big[u]
          stack.extend(s for s in reversed(u.src[1:] if u.op is Ops.CALL and self.frozen(u) else u.src) if maps[s])
        else: local = m
        for r in local:
          if r not in seen:
            seen.add(r)
            if (h := self._rebuild(root, r)) is not root: yield r, h   # not a step: a CALL kept its body
    finally: self._pinned -= 1

  def _rebuild(self, root: UOp, r: Redex) -> UOp | Stuck:
    """``root`` with ``r.node`` replaced by ``r.result`` everywhere (iterative, memoized per call)."""
    maps, make, err = self._maps, self._make, self._error
    memo: dict[UOp, Any] = {}
    stack: list[tuple[UOp, bool]] = [(root, False)]
    while stack:
      u, ready = stack.pop()
      if u in memo: continue
      m = maps[u]
      if m is not _BIG: memo[u] = m.get(r, u); continue
      if u is r.node: memo[u] = r.value; continue
      if not ready:
        stack.append((u, True))
        stack.extend((s, False) for s in u.src if s not in memo)
        continue
      new_src = [memo[s] for s in u.src]
      if u.op is Ops.CALL and self.frozen(u): new_src[0] = u.src[0]
      if (stuck := next((c for c in new_src if type(c) is Stuck), None)) is not None: memo[u] = stuck; continue
      if all(a is b for a, b in zip(new_src, u.src)): memo[u] = u; continue
      try: memo[u] = make(u.op, tuple(new_src), u.arg, u.dtype)
      except err as e:
        n = _ill_typed(u.op, tuple(new_src), u.arg, u.dtype, u.src, r, e)
        memo[u] = u if n is None else n
    return memo[root]


# (id(pm), semantics) -> its stepper, while something (an exploration, a goal) holds it: its memo
# tables go with their last user. (Keyed weakly by pm they would live as long as pm,
# forever for a module's rule set, since the stepper holds pm.) The id is pm's own as
# long as the stepper, which holds pm, is alive.
_steppers: weakref.WeakValueDictionary[tuple[int, str], Stepper] = weakref.WeakValueDictionary()


def stepper_for(pm: PatternMatcher, ctx: Any = None, semantics: Semantics = "graph") -> Stepper:
  """The stepper of ``pm`` (and ``semantics``) shared by everything using it now (a fresh one when a ``ctx`` is given)."""
  if ctx is not None: return Stepper(pm, ctx, semantics=semantics)
  if (s := _steppers.get((id(pm), semantics))) is None: s = _steppers[id(pm), semantics] = Stepper(pm, semantics=semantics)
  return s


def successors(pm: PatternMatcher, g: UOp, ctx: Any = None) -> list[tuple[Redex, UOp | Stuck]]:
  """Every step from ``g`` under ``pm``: ``(redex, new root)``, or ``(redex, Stuck)`` for a failing rule.

  Two rules rewrite ``p0 + 0`` here (``UPat`` compares constant args with ``==``, and
  ``0 == 0.0``), so there are two edges to the same graph:

  >>> from uopc import UOp, symbolic
  >>> [(symbolic.name_of(symbolic.rules[r.rule_index]), show(h)) for r, h in successors(symbolic, UOp.param(0) + 0)]
  [('add-0', 'p0'), ('add-0.0', 'p0')]
  """
  return list(stepper_for(pm, ctx).successors(g))
