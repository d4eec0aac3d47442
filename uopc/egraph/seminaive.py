"""Semi-naive e-matching: only the matches that can be new since a rule last ran, as bindings, without building graphs.

A match's *footprint* is the e-classes it looked at: the class of each pattern node and
the class each variable stands for (a variable stands for its class's representative,
as in ``uopc.egraph.ematch``). Saturation stamps each class with the iteration it last
changed in (made, merged, or its representative changed). A match that a rule could
have seen when it last ran, at iteration ``since``, has a footprint of classes stamped
``since`` or earlier: so only matches with a class stamped later are new. Those are
found by trying as roots only the classes within the pattern's height above a changed
class (``roots``), and keeping only matches whose footprint has a changed class, as
egglog's relational e-matching keeps only the joins that touch a table's new rows.

A match is the rule's bindings: a variable's class (its representative is the graph),
or for a named pattern node with structure, that node's graph, built only then (and
for a CALL, which is only well-formed on some bodies); nothing else of a match is built.
``matches(pat, c, since=-1)`` are every match at ``c`` (all of them count as new), the
full re-matching that ``uopc.egraph.ematch.instances`` does graph by graph.

>>> from uopc.uop import UOp
>>> from uopc.upat import UPat
>>> from uopc.egraph.egraph import EGraph
>>> p0 = UOp.param(0)
>>> eg = EGraph()
>>> c = eg.add(p0 * 2)
>>> reps = {k: v.graph for k, v in extract_all(eg, Cost.nodes()).items()}
>>> m = SemiNaive(eg, reps, {k: 0 for k in eg.classes}, since=-1)
>>> [m.bindings(e) for e in m.matches(UPat.var("x") * 2, c)] == [{"x": p0}]
True
>>> SemiNaive(eg, reps, {k: 0 for k in eg.classes}, since=0).matches(UPat.var("x") * 2, c)   # nothing changed since 0
[]
"""
from __future__ import annotations

from typing import Any

from uopc.cost import Cost  # noqa: F401   (the doctest)
from uopc.egraph.egraph import EGraph, enode_arg, to_uop
from uopc.egraph.extract import extract_all  # noqa: F401   (the doctest)
from uopc.ops import Ops
from uopc.upat import UPat
from uopc.uop import UOp, UOpError

Env = dict[str, Any]   # name -> a class id (a variable: the class's representative) or (class, graph) of a named node
Found = list[tuple[Env, bool, Any]]   # (bindings, whether the footprint changed since, the matched graph or None)


def height(p: UPat) -> int:
  """How many levels below its root a pattern looks (a variable: 0)."""
  return 0 if not p.src else 1 + max(height(s) for s in p.src)


def names(p: UPat) -> tuple[str, ...]:
  """The names a pattern binds, sorted (a rule's bindings, in a fixed order)."""
  out: set[str] = set()
  stack = [p]
  while stack:
    q = stack.pop()
    if q.name is not None: out.add(q.name)
    stack.extend(q.src or ())
  return tuple(sorted(out))


class SemiNaive:
  """Matches against one state of the e-graph, new since iteration ``since`` (memoized: make one per iteration)."""

  def __init__(self, eg: EGraph, reps: dict[int, UOp], stamp: dict[int, int], since: int) -> None:
    self.eg, self.reps, self.stamp, self.since = eg, reps, stamp, since
    self.memo: dict[tuple[int, int, bool], Found] = {}

  def changed(self, c: int) -> bool:
    """Whether class ``c`` changed after iteration ``since``."""
    return self.stamp.get(c, 0) > self.since

  def roots(self, depth: int, among: Any = None) -> set[int]:
    """The classes a new match of a pattern of height ``depth`` can be rooted at: up to ``depth`` levels above a changed class."""
    classes, find = self.eg.classes, self.eg.find
    frontier = {c for c in (classes if among is None else among) if self.changed(c)}
    out = set(frontier)
    for _ in range(depth):
      frontier = {p for c in frontier for _, pc in classes[c].parents if (p := find(pc)) not in out}
      out |= frontier
    return out

  def matches(self, pat: UPat, c: int) -> list[Env]:
    """The bindings of every new match of ``pat`` rooted at class ``c`` (canonical), distinct."""
    out: dict[tuple, Env] = {}
    for e, new, _ in self._match(pat, c, False):
      if new: out.setdefault(tuple(sorted(e.items(), key=lambda kv: kv[0])), e)
    return list(out.values())

  def bindings(self, env: Env) -> dict[str, UOp]:
    """The graphs a rule's function is called with."""
    reps = self.reps
    return {k: reps[v] if type(v) is int else v[1] for k, v in env.items()}

  def _merge(self, a: Env, b: Env) -> Env | None:
    if not a: return b
    if not b: return a
    for name, v in b.items():
      if (w := a.get(name)) is not None and w != v and not self._same(w, v): return None
    return {**a, **b}

  def _same(self, w: Any, v: Any) -> bool:   # one name, one class and one graph (a variable's graph is its representative)
    cw, gw = (w, self.reps.get(w)) if type(w) is int else w
    cv, gv = (v, self.reps.get(v)) if type(v) is int else v
    return cw == cv and gw is gv

  def _match(self, p: UPat, c: int, build: bool) -> Found:
    """Every way ``p`` matches class ``c``: bindings, whether new, and (if ``build``) the graph."""
    if (hit := self.memo.get(key := (id(p), c, build))) is not None: return hit
    cls = self.eg.classes[c]
    new = self.stamp.get(c, 0) > self.since
    out: Found = []
    if p.dtype is not None and cls.dtype not in p.dtype: pass
    elif p.op is None and p.src is None:   # any graph of the class: its representative
      if (u := self.reps.get(c)) is not None and (p.arg is None or not (u.arg != p.arg)):
        out.append(({} if p.name is None else {p.name: c}, new, u))
      self.memo[key] = out
      return out
    else:
      build_here = build or p.name is not None
      for n in cls.nodes:
        if p.op is not None and n[0] not in p.op: continue
        if p.arg is not None and enode_arg(n) != p.arg: continue
        out.extend(self._match_enode(p, n, new, build_here or n[0] is Ops.CALL))
    if p.name is not None:
      out = [(m, d, g) for e, d, g in out if (m := self._merge(e, {p.name: (c, g)})) is not None]
    self.memo[key] = out
    return out

  def _match_enode(self, p: UPat, n: tuple, new: bool, build: bool) -> Found:
    kids, reps, stamp, since = n[3], self.reps, self.stamp, self.since
    if p.src is None:   # the pattern stops at this node: its children are their classes' representatives
      if any(k not in reps for k in kids): return []
      return self._made(n, [({}, new or any(stamp.get(k, 0) > since for k in kids), [reps[k] for k in kids])], build)
    done: list[tuple[Env, bool, list[UOp]]] = []
    for order in p._orders:
      if len(order) != len(kids) and not (p.allow_any_len and len(order) <= len(kids)): continue
      partial: list[tuple[Env, bool, list[UOp]]] = [({}, new, [])]
      for sp, k in zip(order, kids):   # a join over the sources, as UPat.match does
        subs = self._match(sp, k, build)
        partial = [(m, d or d2, us + [u]) for e, d, us in partial for e2, d2, u in subs if (m := self._merge(e, e2)) is not None]
        if not partial: break
      if not partial: continue
      rest = kids[len(order):]   # the sources allow_any_len lets through: their representatives
      if any(k not in reps for k in rest): continue
      more = any(stamp.get(k, 0) > since for k in rest)
      done.extend((e, d or more, us + [reps[k] for k in rest]) for e, d, us in partial)
    return self._made(n, done, build)

  @staticmethod
  def _made(n: tuple, done: list[tuple[Env, bool, list[UOp]]], build: bool) -> Found:
    if not build: return [(e, d, None) for e, d, _ in done]
    out: Found = []
    for e, d, src in done:
      try: out.append((e, d, to_uop(n, src)))
      except UOpError: continue
    return out
