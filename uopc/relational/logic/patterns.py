"""Rule patterns as etuples, and the search for predecessors (steps taken backwards).

``rule_patterns(pm)`` turns each rule's ``UPat`` into etuple patterns with logic
variables: one variable per bound name, a fresh one per anonymous leaf, one
alternative per op of an op set and per order of a list (commutative) source list.

>>> from uopc import UOp, UPat, PatternMatcher, show
>>> from uopc.relational import show_pattern
>>> x = UPat.var("x")
>>> pm = PatternMatcher([(x + 0, lambda x: x)])
>>> [show_pattern(rp.term) for rp in rule_patterns(pm)]
['add(~x, 0)', 'add(0, ~x)']

Going backwards needs a guess for what the rule consumed: the pattern's variables
are tried with the nodes of the target graph (and, for constant holes, a small pool
of edge constants), each candidate is built, rewritten forwards and kept only if that
really gives the target. So every predecessor found is a true one, but only those
whose holes hold nodes of the target graph are found: ``x + 0 -> x``, ``x * 1 -> x``
or a reordering rule run backwards, constant folding does not (``3`` has infinitely
many predecessors). Backward search assumes rules preserve dtype and shape, and is
meant for small terms: its cost grows like (nodes of the target) ** (holes of a rule).

>>> p0 = UOp.param(0)
>>> sorted(show(g) for g, _ in predecessors(pm, p0 + 1))
['add(0, add(p0, 1))', 'add(add(0, p0), 1)', 'add(add(p0, 0), 1)', 'add(add(p0, 1), 0)', 'add(p0, add(0, 1))', 'add(p0, add(1, 0))']
"""
from __future__ import annotations

import itertools
import weakref
from typing import Any, Iterator, NamedTuple

from unification import var
from unification.variable import Var

from uopc.matcher import PatternMatcher
from uopc.ops import Ops
from uopc.relational.logic.bridge import UExpr
from uopc.relational.logic.encoding import Domain, encode, node_fits
from uopc.relational.space.step import Redex, Stepper, stepper_for
from uopc.upat import UPat
from uopc.uop import UOp, UOpError

# constants tried for a constant hole besides the target's own ones
EDGE_CONSTANTS = (0, 1, -1, 2, 0.0, 1.0, -0.0, True, False)
MAX_CANDIDATES = 20_000   # per (position, rule pattern): more is skipped (backward search is for small terms)
MAX_OCCURRENCE_SUBSETS = 64

_CONST = frozenset([Ops.CONST])
_ANY = Domain()


class RulePattern(NamedTuple):
  """One etuple form of a rule's pattern.

  ``term`` is a ``UExpr`` (or a bare variable for a pattern without sources);
  ``leaves`` maps each variable that stands for a node to its ``Domain`` (the op, dtype
  and arg constraints of its leaf); ``names`` maps the rule's binding names to variables.
  """
  rule_index: int
  term: Any
  leaves: dict[Var, Domain]
  names: dict[str, Var]


def upat_etuples(p: UPat, names: dict[str, Var] | None = None, literal_holes: bool = False) -> list[tuple[Any, dict[Var, Domain]]]:
  """Every etuple form of ``p`` (``encoding.encode``): ``(term, {leaf variable: its domain})``.

  A literal constant (the ``0`` of ``x + 0``) becomes a constant pattern of exactly
  that value, which is stricter than ``UPat`` (it compares with ``==``, so it also
  takes ``0.0`` and ``False``); ``literal_holes`` makes it a constrained hole instead.
  A name is the one variable ``var(name)``, so patterns print with their rule's names.

  >>> from uopc.relational import show_pattern
  >>> [show_pattern(t) for t, _ in upat_etuples(UPat(Ops.MAX, src=(UPat.var("x"), UPat.var("x"))))]
  ['max(~x, ~x)']
  """
  names = {} if names is None else names
  domains: dict[Var, Domain] = {}
  out: list[tuple[Any, dict[Var, Domain]]] = []
  seen: set = set()
  for term, _, _ in encode(p, names, domains, literal_consts=not literal_holes, name_var=_named):
    if term in seen: continue   # e.g. both orders of [x, x]
    seen.add(term)
    out.append((term, {v: domains.get(v, _ANY) for v in _leaf_vars(term)}))   # an allow_any_len extra source: any node
  return out


def _named(names: dict[str, Var], name: str) -> Var: return names.setdefault(name, var(name))


def _leaf_vars(term: Any) -> list[Var]:
  """The variables of a pattern term that stand for nodes (not head fields), in order of first appearance."""
  out: list[Var] = []
  stack = [term]
  while stack:
    t = stack.pop()
    if type(t) is Var:
      if t not in out: out.append(t)
    elif type(t) is UExpr: stack.extend(reversed(t._tuple[1:]))
  return out


# matcher -> {literal_holes: its rule patterns}; weakly keyed, so the patterns go with the matcher
_cache: weakref.WeakKeyDictionary[PatternMatcher, dict[bool, list[RulePattern]]] = weakref.WeakKeyDictionary()


def rule_patterns(pm: PatternMatcher, literal_holes: bool = False) -> list[RulePattern]:
  """The etuple patterns of every rule of ``pm``, in rule order (cached per matcher)."""
  by_flag = _cache.get(pm)
  if by_flag is None: by_flag = _cache[pm] = {}
  if (hit := by_flag.get(literal_holes)) is not None: return hit
  out: list[RulePattern] = []
  for i, (p, _) in enumerate(pm.rules):
    names: dict[str, Var] = {}
    out.extend(RulePattern(i, t, leaves, names) for t, leaves in upat_etuples(p, names, literal_holes))
  by_flag[literal_holes] = out
  return out


def _build(term: Any, env: dict[Var, UOp]) -> UOp | None:
  """The node a pattern stands for once its variables are nodes; None if it cannot be built."""
  if isinstance(term, Var): return env.get(term)
  memo: dict[int, UOp] = {}
  stack: list[tuple[UExpr, bool]] = [(term, False)]
  while stack:
    e, ready = stack.pop()
    if id(e) in memo: continue
    kids = [a for a in e._tuple[1:] if isinstance(a, UExpr) and id(a) not in memo]
    if kids and not ready:
      stack.append((e, True))
      stack.extend((k, False) for k in kids)
      continue
    h = e._tuple[0]
    src = []
    for a in e._tuple[1:]:
      v = memo[id(a)] if isinstance(a, UExpr) else env.get(a) if isinstance(a, Var) else a
      if type(v) is not UOp: return None
      src.append(v)
    if isinstance(h.op, Var) or isinstance(h.arg, Var): return None
    try: memo[id(e)] = UOp(h.op, tuple(src), h.arg, None if isinstance(h.dtype, Var) else h.dtype)
    except (UOpError, TypeError): return None
  return memo[id(term)]


def redexes_producing(pm: PatternMatcher, target: UOp, pool: list[UOp], stepper: Stepper | None = None,
                      rule_index: int | None = None) -> Iterator[Redex]:
  """Redexes ``n -> target`` whose holes are filled from ``pool`` (checked by rewriting forwards)."""
  stepper = stepper or stepper_for(pm)
  consts = [c for c in pool if c.op is Ops.CONST]
  consts += [c for c in (UOp.const(v) for v in EDGE_CONSTANTS) if c not in consts]
  seen: set[Redex] = set()
  for rp in rule_patterns(pm, literal_holes=True):   # literal constants as holes: UPat's == semantics
    if rule_index is not None and rp.rule_index != rule_index: continue
    vs = list(rp.leaves)
    domains: list[list[UOp]] = []   # each hole's candidates
    for v in vs:
      d = rp.leaves[v]
      domains.append([c for c in (consts if d.ops == _CONST else pool) if node_fits(c, d)])
    size = 1
    for cands in domains: size *= len(cands)
    if size == 0 or size > MAX_CANDIDATES: continue
    for combo in itertools.product(*domains):
      n = _build(rp.term, dict(zip(vs, combo)))
      if n is None or n is target or n.dtype is not target.dtype or n.shape != target.shape: continue
      for r in stepper.redexes_at(n):
        if r.rule_index == rp.rule_index and r.result is target and r not in seen:
          seen.add(r)
          yield r


def _occurrences(h: UOp, m: UOp) -> list[tuple[UOp, int]]:
  return [(u, i) for u in h.toposort() for i, s in enumerate(u.src) if s is m]


def _put_back(h: UOp, slots: set[tuple[UOp, int]], n: UOp) -> UOp:
  """``h`` with the sources at ``slots`` replaced by ``n`` (users rebuilt; iterative)."""
  new: dict[UOp, UOp] = {}
  for u in h.toposort():
    src = tuple(n if (u, i) in slots else new[s] for i, s in enumerate(u.src))
    new[u] = u if all(a is b for a, b in zip(src, u.src)) else UOp(u.op, src, u.arg, u.dtype)
  return new[h]


def predecessors(pm: PatternMatcher, h: UOp, stepper: Stepper | None = None) -> Iterator[tuple[UOp, Redex]]:
  """Graphs ``g`` with a step ``g -> h``, and that step's redex (see the module doc for limits)."""
  stepper = stepper or stepper_for(pm)
  nodes = h.toposort()
  seen: set[tuple[UOp, Redex]] = set()
  for m in nodes:
    slots = _occurrences(h, m)
    for r in redexes_producing(pm, m, nodes, stepper):
      if m is h: choices: list[set] = [set()]
      elif len(slots) <= 6: choices = [set(c) for k in range(1, len(slots) + 1) for c in itertools.combinations(slots, k)]
      else: choices = [set(slots)] + [{s} for s in slots]
      for chosen in choices[:MAX_OCCURRENCE_SUBSETS]:
        try: g = r.node if m is h else _put_back(h, chosen, r.node)
        except UOpError: continue
        if (g, r) in seen: continue
        seen.add((g, r))
        # the same step, checked forwards (by content: a memo drop may have made new Redex objects)
        if any(hh is h and rr.node is r.node and rr.rule_index == r.rule_index and rr.result is r.result
               for rr, hh in stepper.successors(g)):
          yield g, r
