"""Compiled e-matching: a pattern as nested loops of Python over e-classes, for the patterns most rules have.

``compile_ematch(pat)`` turns a pattern whose structured nodes are unnamed and cannot be
a CALL (ops given, no ``allow_any_len``) into one generated function: a loop over a
class's e-nodes per structured node, a branch per order of a list's sources, a variable
as a local holding its class id (a repeated name compares ids: one class, one
representative). It finds exactly what ``uopc.egraph.seminaive.SemiNaive`` finds (the
same footprints, the same new matches) as tuples of class ids in the order of the
pattern's sorted names, without a dict per partial match. Other patterns give None.

>>> from uopc.uop import UOp
>>> from uopc.upat import UPat
>>> from uopc.egraph.egraph import EGraph
>>> eg = EGraph()
>>> c = eg.add(UOp.param(0) * 2)
>>> f = compile_ematch(UPat.var("x") * 2)
>>> reps = dict.fromkeys(eg.classes)
>>> f(c, eg.classes, {}, {}, -1, reps) == [(eg.add(UOp.param(0)),)]
True
"""
from __future__ import annotations

from typing import Any, Callable

from uopc.egraph.egraph import enode_arg
from uopc.egraph.seminaive import names
from uopc.ops import Ops
from uopc.upat import UPat

Compiled = Callable[[int, dict, dict, dict, int, dict], list[tuple[int, ...]]]


def compilable(p: UPat) -> bool:
  """Whether ``compile_ematch`` handles ``p``."""
  if p.op is None and p.src is None: return True
  if p.op is None or Ops.CALL in p.op or p.name is not None or p.allow_any_len: return False
  return all(compilable(s) for s in p.src or ())


def compile_ematch(p: UPat, reads_reps: bool = True) -> Compiled | None:
  """``f(c, classes, nstamp, rstamp, since, reps)``: the new matches of ``p`` at class ``c``, distinct, as tuples of class ids.

  As ``SemiNaive``: an e-node is new if ``nstamp`` stamps it after ``since``, a variable if
  ``rstamp`` stamps its class's representative so (only if ``reads_reps``).
  """
  if (hit := _CACHE.get((id(p), reads_reps))) is not None and hit[0] is p: return hit[1]
  fn = _compile(p, reads_reps) if compilable(p) else None
  _CACHE[(id(p), reads_reps)] = (p, fn)   # the pattern is kept: its id is not reused
  return fn


_CACHE: dict[tuple[int, bool], tuple[UPat, Compiled | None]] = {}


def _compile(p: UPat, reads_reps: bool) -> Compiled:
  consts: dict[str, Any] = {"enode_arg": enode_arg}
  counter = [0]
  order = names(p)

  def fresh(stem: str) -> str:
    counter[0] += 1
    return f"{stem}{counter[0]}"

  def const(v: Any) -> str:
    k = fresh("K")
    consts[k] = v
    return k

  def gen(q: UPat, c: str, d: str, bound: dict[str, str], cont: Callable[[str, dict[str, str], int], list[str]],
          ind: int) -> list[str]:
    sp = "  " * ind
    lines: list[str] = []
    if q.dtype is not None:
      lines.append(f"{sp}if classes[{c}].dtype in {const(q.dtype)}:")
      ind += 1
      sp = "  " * ind
    if q.op is None and q.src is None:   # a variable: its class, standing for its representative
      d2 = d
      if reads_reps:
        d2 = fresh("d")
        lines.append(f"{sp}{d2} = {d} or rstamp_get({c}, 0) > since")
      if q.arg is not None: lines.append(f"{sp}if (u := reps_get({c})) is not None and not (u.arg != {const(q.arg)}):")
      else: lines.append(f"{sp}if {c} in reps:")
      ind += 1
      sp = "  " * ind
      if q.name is not None and q.name in bound:
        lines.append(f"{sp}if {bound[q.name]} == {c}:")
        return lines + cont(d2, bound, ind + 1)
      if q.name is not None: bound = {**bound, q.name: c}
      return lines + cont(d2, bound, ind)
    n = fresh("n")
    lines.append(f"{sp}for {n} in classes[{c}].nodes:")
    test = f"{n}[0] in {const(q.op)}"
    if q.arg is not None: test += f" and enode_arg({n}) == {const(q.arg)}"
    lines.append(f"{sp}  if {test}:")
    ind += 2
    sp = "  " * ind
    k, d2 = fresh("k"), fresh("d")
    lines.append(f"{sp}{k} = {n}[3]; {d2} = {d} or nstamp_get({n}, 0) > since")
    if q.src is None:   # stops here: the sources are their classes' representatives
      lines.append(f"{sp}if all(x in reps for x in {k}):")
      return lines + cont(d2, bound, ind + 1)
    for subs in q._orders:
      lines.append(f"{sp}if len({k}) == {len(subs)}:")
      kids = [fresh("c") for _ in subs]
      lines.append(f"{sp}  " + "; ".join(f"{kc} = {k}[{j}]" for j, kc in enumerate(kids)))

      def chain(j: int, dd: str, bb: dict[str, str], ii: int, subs: tuple = subs, kids: list = kids) -> list[str]:
        if j == len(subs): return cont(dd, bb, ii)
        return gen(subs[j], kids[j], dd, bb, lambda d_, b_, i_: chain(j + 1, d_, b_, i_), ii)
      lines += chain(0, d2, bound, ind + 1)
    return lines

  def emit(d: str, bound: dict[str, str], ind: int) -> list[str]:
    sp = "  " * ind
    return [f"{sp}if {d}: out[({''.join(bound[nm] + ', ' for nm in order)})] = None"]

  body = gen(p, "c0", "False", {}, emit, 1)
  src = "def match(c0, classes, nstamp, rstamp, since, reps):\n  nstamp_get, rstamp_get, reps_get = nstamp.get, rstamp.get, reps.get\n" + \
    "  out = {}\n" + \
    "\n".join(body) + "\n  return list(out)\n"
  scope = dict(consts)
  exec(compile(src, f"<ematch {p.pretty()}>", "exec"), scope)
  fn: Compiled = scope["match"]
  return fn
