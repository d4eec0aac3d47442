"""E-matching: the graphs in an e-class that a ``UPat`` matches, and what a rule makes of them.

A pattern is matched against e-classes the way ``UPat.match`` matches nodes: its op
set, dtype and arg constraints select e-nodes of the class, tuple sources match in
order and list sources in every order, ``allow_any_len`` lets a node have more
sources, and a name used twice must meet one class. A pattern with no op and no
sources (``UPat.var("x")``) matches a whole class, standing for its representative:
the cheapest graph of the class, so a class that holds a constant shows it.

Each match is turned into a concrete graph (``instances``), and the rule is then run
on that graph by the engine itself: ``compile_match`` gives the bindings exactly as
``PatternMatcher`` gets them, and the rule's function is called on them exactly as
``PatternMatcher`` calls it (``fn(**bindings)``, plus ``ctx=ctx`` when there is a
ctx). The e-matcher only chooses which graphs of the e-graph to show the rule.

>>> from uopc.uop import UOp
>>> from uopc.upat import UPat
>>> from uopc.egraph.egraph import EGraph
>>> from uopc.egraph.extract import extract_all
>>> from uopc.cost import Cost
>>> p0 = UOp.param(0)
>>> eg = EGraph()
>>> c = eg.add(p0 * 2)
>>> reps = {k: b.graph for k, b in extract_all(eg, Cost.nodes()).items()}
>>> [u is p0 * 2 for u in instances(eg, UPat.var("x") * 2, c, reps)]
[True]
>>> results(UPat.var("x") * 2, lambda x: x + x, p0 * 2) == [p0 + p0]
True
"""
from __future__ import annotations

from typing import Any, Callable

from uopc.egraph.egraph import EGraph, enode_arg, to_uop
from uopc.upat import UPat
from uopc.upat_compile import compile_match
from uopc.uop import UOp, UOpError

Env = dict[str, tuple[int, UOp]]   # name -> (class, the graph it stands for)
MAX_INSTANCES = 1000   # graphs per (pattern, class): a commutative pattern on a wide class multiplies


Memo = dict[tuple[int, int], list[tuple[Env, UOp]]]   # (id of a sub-pattern, class) -> its matches, env-free


def instances(eg: EGraph, pat: UPat, c: int, reps: dict[int, UOp], memo: Memo | None = None,
              limit: int = MAX_INSTANCES) -> list[UOp]:
  """The distinct graphs of class ``c`` (made from its e-nodes and representatives) that ``pat`` matches.

  ``memo`` keeps the matches of sub-patterns per class across calls; it is valid while
  the e-graph and ``reps`` do not change (one saturation iteration).
  """
  out: dict[UOp, None] = {}
  for _, u in _match(eg, pat, eg.find(c), reps, {} if memo is None else memo):
    out[u] = None
    if len(out) >= limit: break
  return list(out)


def _match(eg: EGraph, p: UPat, c: int, reps: dict[int, UOp], memo: Memo) -> list[tuple[Env, UOp]]:
  """Every way ``p`` matches class ``c``: the names it binds, and the matched graph (memoized).

  It recurses on the pattern, never on the graph: patterns are a few levels deep.
  """
  if (hit := memo.get(key := (id(p), c))) is not None: return hit
  cls = eg.classes[c]
  out: list[tuple[Env, UOp]] = []
  if p.dtype is not None and cls.dtype not in p.dtype: pass
  elif p.op is None and p.src is None:   # any graph of the class: its representative
    if (u := reps.get(c)) is not None and (p.arg is None or not (u.arg != p.arg)): out.append(({}, u))
  else:
    for n in cls.nodes:
      if p.op is not None and n[0] not in p.op: continue
      if p.arg is not None and enode_arg(n) != p.arg: continue
      out.extend(_match_enode(eg, p, n, reps, memo))
  if p.name is not None:
    named: list[tuple[Env, UOp]] = []
    for e, u in out:
      if (m := _merge(e, {p.name: (c, u)})) is not None: named.append((m, u))
    out = named
  memo[key] = out
  return out


def _merge(a: Env, b: Env) -> Env | None:
  """Both sets of bindings, or None if they bind one name differently (a repeated name: one class, one graph)."""
  if not a: return b
  if not b: return a
  for name, (c, u) in b.items():
    if (bound := a.get(name)) is not None and (bound[0] != c or bound[1] is not u): return None
  return {**a, **b}


def _match_enode(eg: EGraph, p: UPat, n: tuple, reps: dict[int, UOp], memo: Memo) -> list[tuple[Env, UOp]]:
  kids = [eg.find(k) for k in n[3]]
  done: list[tuple[Env, list[UOp]]] = []   # (bindings, the graphs of the e-node's children)
  if p.src is None:   # the pattern stops at this node: its children are their classes' representatives
    src = [reps[k] for k in kids if k in reps]
    if len(src) == len(kids): done.append(({}, src))
  else:
    for order in p._orders:
      if len(order) != len(kids) and not (p.allow_any_len and len(order) <= len(kids)): continue
      partial: list[tuple[Env, list[UOp]]] = [({}, [])]
      for sp, k in zip(order, kids):   # a join over the sources, as UPat.match does
        partial = [(m, us + [u]) for e, us in partial for e2, u in _match(eg, sp, k, reps, memo)
                   if (m := _merge(e, e2)) is not None]
        if not partial: break
      rest = [reps[k] for k in kids[len(order):] if k in reps]   # the sources allow_any_len lets through
      if len(rest) == len(kids) - len(order): done.extend((e, us + rest) for e, us in partial)
  out: list[tuple[Env, UOp]] = []
  for e, src in done:
    try: out.append((e, to_uop(n, src)))
    except UOpError: continue
  return out


def results(pat: UPat, fn: Callable[..., Any], u: UOp, ctx: Any = None) -> list[Any]:
  """What rule ``(pat, fn)`` returns on graph ``u``: one result per binding that gives a new one (not None, not ``u``).

  Called exactly as ``PatternMatcher`` calls a rule; every binding, not just the
  first, since in an e-graph each result is one more equality.
  """
  out = []
  for b in compile_match(pat)(u):
    r = fn(**b) if ctx is None else fn(**b, ctx=ctx)
    if r is not None and r is not u: out.append(r)
  return out
