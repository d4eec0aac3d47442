"""Overlaps of rule patterns: the terms on which two rules can both fire (critical pair positions).

Rules are read as etuple forms with domains (``uopc.relational.logic.encoding``). Two
forms overlap when ``unification.unify`` unifies them and the domains of every
variable, merged along the substitution, stay non-empty.

An overlap of rule ``inner`` at position ``path`` of rule ``outer``: the most general
term that ``outer`` matches at its root while ``inner`` matches its subterm at ``path``.

>>> from uopc import UPat, PatternMatcher, Ops
>>> x = UPat.var("x")
>>> pm = PatternMatcher([(UPat(Ops.MUL, src=[x, UPat(Ops.CONST, arg=0)]), lambda x: x.const_like(0)),
...                      (UPat(Ops.MUL, src=(UPat(Ops.ADD, src=(x, UPat.var("y"))), UPat.cvar("c"))), lambda x, y, c: x * c + y * c)])
>>> sorted({(o.outer, o.inner, o.path) for o in overlaps(pm)})
[(0, 0, ()), (1, 0, ()), (1, 1, ())]
>>> o = next(o for o in overlaps(pm) if (o.outer, o.inner) == (1, 0))
>>> pattern_text(o.term)
'mul(add(~x, ~y), ~c)'
>>> sorted(o.domains[o.term._tuple[2]].args)    # the constant must be == 0
[0]
"""
from __future__ import annotations

from typing import Any, Iterator, NamedTuple

from unification import reify, unify
from unification.variable import Var

from uopc.matcher import PatternMatcher
from uopc.relational.logic.bridge import UExpr
from uopc.relational.logic.encoding import Domain, Form, Position, cyclic, forms_of, pattern_text, solve, term_vars

__all__ = ["Domain", "Form", "Overlap", "Position", "forms_of", "overlaps", "pattern_text", "term_vars"]   # the encoding's names, as before


class Overlap(NamedTuple):
  """Rule ``inner`` matching at ``path`` inside rule ``outer``'s pattern: ``term`` (with the
  remaining variables' ``domains``) is the most general such instance; ``actual`` locates
  the inner redex in ``term``."""
  outer: int
  inner: int
  path: tuple[int, ...]
  actual: tuple[int, ...]
  term: Any
  domains: dict[Var, Domain]


def _ops(t: Any, domains: dict[Var, Domain]) -> frozenset | None:
  """The ops a term's root may have (None: any)."""
  if type(t) is UExpr:
    op = t._tuple[0].op
    return domains[op].ops if type(op) is Var and op in domains else None if type(op) is Var else frozenset([op])
  if type(t) is Var: return domains[t].ops if t in domains else None
  return None


def _may_unify(a: Any, b: Any) -> bool:
  """A cheap necessary condition for unifying two forms: ground ops and arities agree where both are nodes."""
  stack = [(a, b)]
  while stack:
    x, y = stack.pop()
    if type(x) is not UExpr or type(y) is not UExpr: continue
    if len(x._tuple) != len(y._tuple): return False
    ox, oy = x._tuple[0].op, y._tuple[0].op
    if type(ox) is not Var and type(oy) is not Var and ox is not oy: return False
    stack.extend(zip(x._tuple[1:], y._tuple[1:]))
  return True


def _compatible(a: frozenset | None, b: frozenset | None) -> bool: return a is None or b is None or bool(a & b)


def overlaps(pm: PatternMatcher) -> Iterator[Overlap]:
  """Every overlap of ``pm``'s rules: ``inner`` at a non-variable position of ``outer``.

  At the root each unordered pair is tried once (inner is the earlier rule), and each
  rule with itself (its peaks are the distinct results of that one rule on one node:
  a list pattern may match in several ways). Non-variable positions are node patterns
  and leaves with an op constraint (``UPat.cvar``, ``UPat(Ops.INDEX)``).
  """
  n = len(pm.rules)
  # two separate encodings: every inner form is renamed apart from every outer one
  outer_forms = [forms_of(p, j) for j, (p, _) in enumerate(pm.rules)]
  inner_all = [forms_of(p, i) for i, (p, _) in enumerate(pm.rules)]
  inner_ops = [[_ops(f.term, f.domains) for f in fs] for fs in inner_all]
  for j in range(n):
    for i in range(n):
      inner_forms = inner_all[i]
      seen: set = set()
      for k, fo in enumerate(outer_forms[j]):
        for pos in fo.positions:
          if pos.actual == () and i > j: continue
          ops_here = _ops(pos.term, fo.domains)
          for m, fi in enumerate(inner_forms):
            if i == j and pos.actual == () and m != k: continue
            if not _compatible(inner_ops[i][m], ops_here) or not _may_unify(fi.term, pos.term): continue
            s = unify(fi.term, pos.term, {})
            if s is False or cyclic(s): continue
            doms = solve(s, {**fo.domains, **fi.domains})
            if doms is None: continue
            key = (pos.path, pattern_text(fo.term, s, exact=True))
            if key in seen: continue
            seen.add(key)
            term = reify(fo.term, s)
            yield Overlap(j, i, pos.path, pos.actual, term, {v: doms[v] for v in term_vars(term) if v in doms})
