"""Weights per op: a term weighs the sum of its ops' weights over its tree (every use of a shared node counts).

A rule ``l -> r`` decreases for *every* weight of its variables (each stands for any subterm) when no variable occurs
more often in ``r`` than in ``l`` and what is left, ``sum_op (count_l(op) - count_r(op)) * w(op) + sum_x (occ_l(x) -
occ_r(x)) * least``, is positive, ``least`` being the least weight a term can have (its leaf's: a CONST's or a PARAM's).
Weights may be 0: a stage that keeps every rule's weight (``>= 0``) and lowers some (``> 0``) removes those; the
rest must decrease in the stages after (rule removal, as termination provers do). Found by z3 (maximizing the rules
removed) when it is installed, else by a small search.

>>> from uopc.uop import UOp
>>> x = UOp.param(0)
>>> d = difference(x + x, x * 2, frozenset({x}))
>>> sorted(d.ops.items()), d.variables_ok, d.surplus
([('ADD', 1), ('CONST', -1), ('MUL', -1)], True, 1)
>>> d.holds({"ADD": 2, "MUL": 1, "CONST": 1, "PARAM": 1}, strict=True)
True
"""
from __future__ import annotations

import random
from collections import Counter
from typing import Any, Iterable, NamedTuple

from uopc.limits import NO_LIMITS, Limits
from uopc.uop import UOp

from uopc.termination.path_order import symbol

LEAVES = ("CONST", "PARAM")   # every term has one: the least weight of a term is the least of theirs
CHOICES = (0, 1, 2, 3)        # the search's weights without z3
TRIES = 300                   # weight vectors the search tries per choice of factors (symbolic: 7 s of CPU without z3, 9 s with)
Z3_RLIMIT = 20_000_000        # z3's resource count per query (symbolic's largest: 93,226): a count, not a time, so the answer is the
                              # same on a loaded machine; a bound of the command cannot interrupt z3 inside one (the supervisor can)


class Difference(NamedTuple):
  """``weight(lhs) - weight(rhs)`` of one instance, as a linear form: op counts, and the variables' surplus."""
  ops: Counter[str]
  variables_ok: bool   # no variable occurs more often on the right
  surplus: int         # sum over the variables of occ_l - occ_r (each weighs at least ``least``)

  def value(self, weights: dict[str, int]) -> int:
    least = min(weights.get(f, 0) for f in LEAVES)
    return sum(n * weights.get(f, 0) for f, n in self.ops.items()) + self.surplus * least

  def holds(self, weights: dict[str, int], strict: bool) -> bool:
    """Does the instance keep (``strict``: lower) the weight for every weight of its variables?"""
    if not self.variables_ok: return False
    v = self.value(weights)
    return v > 0 if strict else v >= 0


Coefficients = dict[str, tuple[int, ...]]
"""Per op, a factor per source (1 where not given): a term's weight is its op's weight plus each source's times its
factor, a linear interpretation; factors >= 1 keep it strictly monotone. ``(x + y) * c -> x*c + y*c`` copies ``c`` yet
lowers the weight when MUL's first source counts twice and ADD weighs more than the copy (``[MUL](a, b) = 2a + b``)."""


def _factor(coefficients: Coefficients, f: str, i: int) -> int:
  return k[i] if (k := coefficients.get(f)) is not None and i < len(k) else 1


TreeCounts = tuple[Counter[str], Counter[UOp]]   # a tree's ops and variables, each counted with its factors


def _tree_counts(u: UOp, variables: frozenset[UOp], coefficients: Coefficients, memo: dict[UOp, TreeCounts] | None = None) -> TreeCounts:
  """The ops and variables of ``u``'s tree; ``memo``: the counts of nodes met before under the same ``variables`` and
  ``coefficients`` (the instances observed on a program share most of their nodes: each is counted once)."""
  memo = {} if memo is None else memo
  for n in u.toposort(lambda n: () if n in memo or n in variables else n.src):   # (a node counted before: not walked into)
    if n in memo: continue
    if n in variables: memo[n] = (Counter(), Counter({n: 1})); continue
    f = symbol(n)
    ops, vs = Counter({f: 1}), Counter[UOp]()
    for i, s in enumerate(n.src):
      k = _factor(coefficients, f, i)
      ops.update({g: k * m for g, m in memo[s][0].items()})
      vs.update({x: k * m for x, m in memo[s][1].items()})
    memo[n] = (ops, vs)
  return memo[u]


def difference(lhs: UOp, rhs: UOp, variables: frozenset[UOp], coefficients: Coefficients | None = None,
               memo: dict[UOp, TreeCounts] | None = None) -> Difference:
  """The weight difference of an instance ``lhs -> rhs`` (module doc), its sources weighted by ``coefficients``;
  ``memo`` as ``_tree_counts``'s."""
  memo = {} if memo is None else memo
  (lo, lv), (ro, rv) = _tree_counts(lhs, variables, coefficients or {}, memo), _tree_counts(rhs, variables, coefficients or {}, memo)
  ops = Counter(lo)
  ops.subtract(ro)
  return Difference(Counter({f: n for f, n in ops.items() if n}), all(lv[x] >= n for x, n in rv.items()),
                    sum(lv.values()) - sum(rv.values()))


def weigh(u: UOp, weights: dict[str, int], coefficients: Coefficients | None = None) -> int:
  """The weight of ``u``'s tree (a shared node counts at each use), its sources weighted by ``coefficients``."""
  memo: dict[UOp, int] = {}
  k = coefficients or {}
  for n in u.toposort():
    f = symbol(n)
    memo[n] = weights.get(f, 0) + sum(_factor(k, f, i) * memo[s] for i, s in enumerate(n.src))
  return memo[u]


class Stage(NamedTuple):
  """One weight function (with its sources' factors) and the rules it removes (lowers on every instance; the others
  it keeps)."""
  weights: dict[str, int]
  removes: tuple[str, ...]
  coefficients: Coefficients = {}
  drops: tuple[str, ...] = ()   # rules whose weight it raises: no later component orients them


def _distinct(ds: list[Difference]) -> list[Difference]:
  """Each difference once: instances of one rule often differ only where the weights do not look (their constants)."""
  return list({(tuple(sorted(d.ops.items())), d.variables_ok, d.surplus): d for d in ds}.values())


def coefficient_choices(symbols: Iterable[str]) -> list[Coefficients]:
  """The factors a stage tries: all 1 first, then 2 on one source of ADD and of MUL (where the rules have them)."""
  per_op = [[(f, k) for k in ((1, 1), (2, 1), (1, 2))] for f in ("ADD", "MUL") if f in set(symbols)]
  out: list[Coefficients] = [{}]
  for op_choices in per_op: out = [{**c, f: k} for c in out for f, k in op_choices]
  return [{f: k for f, k in c.items() if k != (1, 1)} for c in out]


def _outcome(rules: dict[str, list[Difference]], weights: dict[str, int]) -> tuple[tuple[str, ...], tuple[str, ...]]:
  """The rules ``weights`` lowers, and those whose weight it raises on some instance."""
  drops = tuple(name for name, ds in rules.items() if not all(d.holds(weights, False) for d in ds))
  return tuple(name for name, ds in rules.items() if name not in drops and all(d.holds(weights, True) for d in ds)), drops


def stage_score(removes: tuple[str, ...], drops: tuple[str, ...], total: int) -> int:
  """A rule lowered counts twice, a rule kept once, a rule dropped not at all."""
  return 2 * len(removes) + total - len(removes) - len(drops)


def find_stage(rules: dict[str, list[tuple[UOp, UOp, frozenset[UOp]]]], symbols: Iterable[str], seed: int = 0,
               limits: Limits = NO_LIMITS, use_z3: bool = True, drops: bool = False) -> Stage | None:
  """Weights (and factors, from ``coefficient_choices``) that keep every rule's weight and lower as many rules as they
  can (None: none lowers any); ``rules``: each rule's instances (lhs, rhs, variables). With ``drops``, a rule's weight may
  rise (the rule is then dropped: no later component can orient it) where that lets more rules be lowered."""
  ops = sorted(set(symbols) | set(LEAVES))
  best: tuple[int, Stage] | None = None
  choices = coefficient_choices(ops) if use_z3 else coefficient_choices(ops)[:2]   # without z3: all ones, and ADD's first twice
  for coefficients in choices:
    if limits.should_stop() is not None: break
    memos: dict[frozenset[UOp], dict[UOp, TreeCounts]] = {}   # per set of variables: the counts of the nodes met
    diffs = {name: _distinct([difference(l, r, v, coefficients, memos.setdefault(v, {})) for l, r, v in inst]) for name, inst in rules.items()}
    if not drops and not all(d.variables_ok for ds in diffs.values() for d in ds): continue   # a rule copies a variable: no weights keep it
    weights = _z3_weights(diffs, ops, drops) if use_z3 else _searched_weights(diffs, ops, seed, limits, drops)
    if weights is None: continue
    removes, dropped = _outcome(diffs, weights)
    if not removes or (dropped and not drops): continue
    score = stage_score(removes, dropped, len(diffs))
    if best is None or score > best[0]: best = (score, Stage(weights, removes, coefficients, dropped))
  return None if best is None else best[1]


def _searched_weights(rules: dict[str, list[Difference]], ops: list[str], seed: int, limits: Limits, drops: bool) -> dict[str, int] | None:
  rng = random.Random(seed)
  best: tuple[int, dict[str, int]] | None = None
  candidates: list[dict[str, int]] = [{f: 1 for f in ops}, {f: 0 if f in LEAVES else 1 for f in ops}]
  for k in range(TRIES):
    if k % 256 == 0 and limits.should_stop() is not None: break
    w = candidates[k] if k < len(candidates) else {f: rng.choice(CHOICES) for f in ops}
    removes, dropped = _outcome(rules, w)
    if not removes or (dropped and not drops): continue
    score = stage_score(removes, dropped, len(rules))
    if best is None or score > best[0]: best = (score, w)
  return None if best is None else best[1]


def _z3_weights(rules: dict[str, list[Difference]], ops: list[str], drops: bool) -> dict[str, int] | None:
  from uopc.smt.solver import require
  z3 = require()
  ctx = z3.Context()   # a fresh context per search: z3's answers depend on what its context saw before
  w = {f: z3.Int(f"w_{f}", ctx) for f in ops}
  least = z3.Int("least", ctx)
  opt = z3.Optimize(ctx=ctx)
  opt.set(rlimit=Z3_RLIMIT)
  opt.add(*[v >= 0 for v in w.values()], *[v <= 8 for v in w.values()], least >= 0, *[least <= w[f] for f in LEAVES])

  def value(d: Difference) -> Any:
    return z3.Sum([n * w[f] for f, n in d.ops.items()] + [z3.IntVal(d.surplus, ctx) * least])
  for ds in rules.values():
    kept = z3.And(*[value(d) >= 0 if d.variables_ok else z3.BoolVal(False, ctx) for d in ds])
    if drops: opt.add_soft(kept, 1, "score")   # a rule kept scores 1, lowered 2 (stage_score)
    else: opt.add(kept)
    opt.add_soft(z3.And(kept, *[value(d) > 0 for d in ds]), 1, "score")
  opt.minimize(z3.Sum(list(w.values())))   # after the rules removed: the smallest weights that remove them, to read
  if opt.check() != z3.sat: return None
  m = opt.model()
  # least: the model's may be below the least leaf weight (only a lower bound is asked): the check uses the real one
  return {f: m.eval(v, model_completion=True).as_long() for f, v in w.items()}
