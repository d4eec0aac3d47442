"""Semi-naive e-matching: only the matches that can be new since a rule last ran, as bindings, without building graphs.

A match's *footprint* is what it read: the e-node each structured pattern node stands on,
and, when the rule's result depends on them, the representatives its variables stand for
(as in ``uopc.egraph.ematch``). Saturation stamps each e-node with the iteration it was
made in, moved to another class in (a merge) or changed in (rebuild, when a child merged),
and each class with the iteration its representative changed in. A match all of whose
footprint is stamped ``since`` or earlier existed, with the same root and bindings, when
the rule last ran at ``since``: only matches with something stamped later are new. Those
are found by trying as roots only the classes within the pattern's height above a class
that changed (``roots``), and keeping the matches whose footprint changed, as egglog's
relational e-matching joins only a table's new rows against the rest.

A match is the rule's bindings: a variable's class (its representative is the graph),
or for a named pattern node with structure, that node's graph, built only then (and for
a CALL, which is only well-formed on some bodies). With ``since=-1`` everything is new:
``matches`` are then every match, the full re-matching ``uopc.egraph.ematch.instances``
does graph by graph.

>>> from uopc.uop import UOp
>>> from uopc.upat import UPat
>>> from uopc.egraph.egraph import EGraph
>>> p0 = UOp.param(0)
>>> eg = EGraph()
>>> c = eg.add(p0 * 2)
>>> reps = {k: v.graph for k, v in extract_all(eg, Cost.nodes()).items()}
>>> nstamp = {n: 0 for cls in eg.classes.values() for n in cls.nodes}
>>> m = SemiNaive(eg, reps, nstamp, {}, since=-1)
>>> [m.bindings(e) for e in m.matches(UPat.var("x") * 2, c)] == [{"x": p0}]
True
>>> SemiNaive(eg, reps, nstamp, {}, since=0).matches(UPat.var("x") * 2, c)   # nothing changed after iteration 0
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
  """Matches against one state of the e-graph, new since iteration ``since`` (memoized: make one per iteration).

  ``nstamp``: e-node -> the iteration it was made, moved to another class or changed in;
  ``rstamp``: class -> the iteration its representative changed in, or None when the rule's
  result depends on the bound classes alone (a template rule), not on their representatives.
  """

  def __init__(self, eg: EGraph, reps: dict[int, UOp], nstamp: dict, rstamp: dict[int, int] | None, since: int) -> None:
    self.eg, self.reps, self.nstamp, self.rstamp, self.since = eg, reps, nstamp, rstamp, since
    self.memo: dict[tuple[int, int, bool], Found] = {}

  def _rep_new(self, c: int) -> bool:
    return self.rstamp is not None and self.rstamp.get(c, 0) > self.since

  def roots(self, depth: int, base: Any) -> set[int]:
    """The classes a new match of a pattern of height ``depth`` can be rooted at: up to ``depth`` levels above ``base``,
    the classes that changed since (a new e-node, or a new representative)."""
    classes, find = self.eg.classes, self.eg.find
    frontier = {find(c) for c in base}
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
    out: Found = []
    if p.dtype is not None and cls.dtype not in p.dtype: pass
    elif p.op is None and p.src is None:   # any graph of the class: its representative
      if (u := self.reps.get(c)) is not None and (p.arg is None or not (u.arg != p.arg)):
        out.append(({} if p.name is None else {p.name: c}, self._rep_new(c), u))
      self.memo[key] = out
      return out
    else:
      build_here = build or p.name is not None
      for n in cls.nodes:
        if p.op is not None and n[0] not in p.op: continue
        if p.arg is not None and enode_arg(n) != p.arg: continue
        out.extend(self._match_enode(p, n, self.nstamp.get(n, 0) > self.since, build_here or n[0] is Ops.CALL))
    if p.name is not None:
      out = [(m, d, g) for e, d, g in out if (m := self._merge(e, {p.name: (c, g)})) is not None]
    self.memo[key] = out
    return out

  def _match_enode(self, p: UPat, n: tuple, new: bool, build: bool) -> Found:
    kids, reps = n[3], self.reps
    if p.src is None:   # the pattern stops at this node: its children are their classes' representatives
      if any(k not in reps for k in kids): return []
      new = new or build and any(self._rep_new(k) for k in kids)   # their graphs are part of the match only if built
      return self._made(n, [({}, new, [reps[k] for k in kids])], build)
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
      more = build and any(self._rep_new(k) for k in rest)
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
