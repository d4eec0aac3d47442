"""Instances of an overlap: concrete, well-typed graphs on which both rules may fire.

An overlap's term still has holes (logic variables with a ``Domain``). Each hole gets
candidates: a free variable a fresh PARAM first, then edge constants (rule functions
often test what their pattern does not say: folding needs constant sources), then a
small STACK; a hole that must be a constant the edge constants of ``EDGE_CONSTANTS``
that fit its dtype and args; a hole with an op set a small sample node of each op.
A pattern constant (``arg=0``) takes every pool value ``== 0`` of its dtype, since
``UPat`` compares args with ``==``; the value written in the pattern comes first.

Candidates are combined in order of increasing cost (the position of each choice,
and a penalty for an arg that only ``==`` the written one), dtype by dtype, so the
plainest instances come first. Ill-typed combinations raise ``UOpError`` and are
skipped and counted. Fresh PARAMs have arbitrary slots: ``renumbering`` and ``renumber``
number them in order of appearance for reports.

>>> from uopc import UPat, PatternMatcher, show, symbolic
>>> from uopc.relational.analyses.overlaps import overlaps
>>> o = next(o for o in overlaps(symbolic) if (o.outer, o.inner, o.path) == (3, 0, ()))   # fold vs x + 0.0
>>> gen = Instances(o.term, o.domains, max_instances=64)
>>> insts = [show(renumber(u, renumbering(u))) for u in gen]
>>> insts[:3], 'add(-0.0, 0.0)' in insts
(['add(p0, False)', 'add(p0, 0)', 'add(p0, 0.0)'], True)
"""
from __future__ import annotations

import itertools
from typing import Any, Iterator

from unification.variable import Var

from uopc.dtype import DType, dtypes, truncate, value_key
from uopc.evaluate import substitute_scoped
from uopc.probe_values import EDGE, FAILED, by_cost, round_robin
from uopc.ops import BINARY, COMPARISON, Ops, UNARY
from uopc.relational.logic.bridge import Head, UExpr
from uopc.relational.logic.encoding import Domain, args_match, term_vars
from uopc.uop import UOp, UOpError, call_params, make_uop, node_memo

__all__ = ["EDGE_CONSTANTS", "Instances", "UopcOverlaps", "renumber", "renumbering"]

# the edge values (``uopc.probe_values.EDGE``) a constant hole takes, dtype by dtype: f32's without -1.0, which pairs has
# never tried (with it every report's instances and counts change)
EDGE_CONSTANTS: dict[DType, tuple[Any, ...]] = {dt: tuple(v for v in EDGE[dt] if not (dt is dtypes.f32 and v == -1.0)) for dt in EDGE}
ALL_DTYPES = (dtypes.bool, dtypes.i32, dtypes.f32)
INEXACT_ARG_COST = 3          # a constant that only == the pattern's arg comes after the written one
MAX_ASSIGNMENTS = 512         # dtype (and op) combinations tried per overlap
TRIES_PER_INSTANCE = 16       # builds tried per instance wanted (most failures are ill-typed combinations)


_const_cache: dict[tuple, list[tuple[int, UOp]]] = node_memo()   # holds constants: emptied when the node tables are collected


def _consts(dt: DType, args: tuple) -> list[tuple[int, UOp]]:
  """(cost, constant) of dtype ``dt`` equal (``==``) to every one of ``args``; the written values first."""
  try: key: Any = (dt, tuple(value_key(a) for a in args))
  except TypeError: key = None
  if key is not None and (hit := _const_cache.get(key)) is not None: return hit
  out = _make_consts(dt, args)
  if key is not None: _const_cache[key] = out
  return out


def _make_consts(dt: DType, args: tuple) -> list[tuple[int, UOp]]:
  exact: list[Any] = []   # values
  for a in args:   # the pattern's own value, in this dtype, if it stays == to it
    try: v = truncate(dt, a)
    except (TypeError, ValueError, OverflowError): continue
    if all(args_match(v, b) for b in args) and value_key(v) not in {value_key(e) for e in exact}: exact.append(v)
  out = [(0, UOp.const(v, dt)) for v in exact]
  seen = {value_key(v) for v in exact}
  for k, v in enumerate(EDGE_CONSTANTS.get(dt, ())):
    if value_key(v) in seen or not all(args_match(v, a) for a in args): continue
    seen.add(value_key(v))
    out.append((len(exact) + k + (INEXACT_ARG_COST if args else 0), UOp.const(v, dt)))
  return out


class _Params:
  """Fresh PARAM slots for one instance (renumbered afterwards, so any distinct slots do)."""
  def __init__(self, base: int) -> None: self.next = base
  def __call__(self, dt: DType, shape: tuple[int, ...] = ()) -> UOp:
    self.next += 1
    return UOp.param(self.next - 1, dt, shape)


def _samples(op: Ops, dt: DType, p: _Params) -> list[UOp]:
  """Small nodes of ``op`` and dtype ``dt`` over fresh PARAMs (for a hole such as ``UPat(Ops.INDEX)``)."""
  out: list[UOp] = []
  try:
    if op is Ops.PARAM: out.append(p(dt))
    elif op in COMPARISON: out.append(UOp(op, (p(dtypes.i32), p(dtypes.i32))))
    elif op in BINARY: out.append(UOp(op, (p(dt), p(dt))))
    elif op in UNARY: out.append(UOp(op, (p(dt),)))
    elif op is Ops.CAST: out.append(p(dtypes.f32 if dt is not dtypes.f32 else dtypes.i32).cast(dt))
    elif op is Ops.WHERE: out.append(p(dtypes.bool).where(p(dt), p(dt)))
    elif op is Ops.STACK: out.append(UOp.stack(p(dt), p(dt)))
    elif op is Ops.INDEX: out += [UOp.stack(p(dt), p(dt)).index(p(dtypes.i32)), p(dt, (2,)).index(0)]
    elif op is Ops.RANGE: out.append(UOp(Ops.RANGE, (p(dtypes.i32),)))
    elif op is Ops.RESHAPE: out.append(p(dt, (2,)).reshape((1, 2)))
    elif op is Ops.EXPAND: out.append(p(dt, (1,)).expand((2,)))
    elif op is Ops.PERMUTE: out.append(p(dt, (2, 1)).permute((1, 0)))
    elif op is Ops.SHRINK: out.append(p(dt, (3,)).shrink(((0, 2),)))
    elif op is Ops.REDUCE: out.append(p(dt, (2,)).reduce(Ops.ADD))
    elif op is Ops.CALL: out.append(UOp.param(0, dt).call(p(dt)))
  except UOpError: pass
  return [u for u in out if u.dtype is dt]


def _hole_groups(v: Var, d: Domain, p: _Params) -> list[tuple[Any, list[tuple[int, UOp]]]]:
  """The candidates of a term hole, grouped by dtype: ``[(dtype, [(cost, node), ...]), ...]``."""
  groups = []
  for dt in (d.dtypes and sorted(d.dtypes, key=ALL_DTYPES.index)) or ALL_DTYPES:
    cands: list[tuple[int, UOp]] = []
    if d.ops is None or Ops.PARAM in d.ops:
      if not d.args: cands.append((0, p(dt)))
    if d.ops is None or Ops.CONST in d.ops: cands += [(c + 1, u) for c, u in _consts(dt, d.args)]
    if d.ops is not None:
      cands += [(len(cands) + k, u) for op in sorted(d.ops - {Ops.CONST, Ops.PARAM}, key=lambda o: o.value)
                for k, u in enumerate(_samples(op, dt, p))]
    elif not d.args: cands += [(len(cands) + 1, u) for u in _samples(Ops.STACK, dt, p)]   # shaped values, for STACK rules
    if cands: groups.append((dt, sorted(cands, key=lambda c: c[0])))
  return groups


class Instances:
  """Iterate the instances of an overlap term (at most ``max_instances`` distinct ones).

  After iterating, ``ill_typed`` counts the combinations that were not well typed and
  ``tried`` the well-typed instances produced; ``why_none`` says why there are none, if so.
  """

  def __init__(self, term: Any, domains: dict[Var, Domain], max_instances: int = 64) -> None:
    self.term, self.domains, self.max_instances = term, domains, max_instances
    self.ill_typed = 0
    self.tried = 0
    self.why_none: str | None = None

  def __iter__(self) -> Iterator[UOp]:
    if type(self.term) is UOp:
      self.tried = 1
      yield self.term
      return
    holes, choices = self._holes()
    if choices is None: return
    self._compile(holes)
    # 1. which dtype (and op) combinations are well typed: build each with its first candidates
    assignments = []
    for combo in itertools.islice(itertools.product(*[range(len(c)) for c in choices]), MAX_ASSIGNMENTS):
      groups = [choices[h][g][1] for h, g in enumerate(combo)]
      try: self._build(holes, tuple(g[0][1] for g in groups))
      except UOpError: self.ill_typed += 1; continue
      assignments.append(by_cost(groups))
    if not assignments:
      self.why_none = "no well-typed instance"
      return
    # 2. round robin over the well-typed combinations, each in order of cost
    for u in round_robin([self._built(holes, picks) for picks in assignments], self.max_instances, self.max_instances * TRIES_PER_INSTANCE):
      self.tried += 1
      yield u

  def _built(self, holes: list[Var], picks: Iterator[tuple]) -> Iterator[UOp]:
    """The instance of each pick, ``FAILED`` (counted in ``ill_typed``) for one that is not well typed."""
    for pick in picks:
      try: yield self._build(holes, pick)
      except UOpError:
        self.ill_typed += 1
        yield FAILED

  def _holes(self) -> tuple[list[Var], list[list[tuple[Any, list[tuple[int, Any]]]]] | None]:
    """The choice points of the term and their candidate groups (None if one has no candidate)."""
    holes: list[Var] = []
    choices: list = []
    params = _Params(1000)
    kids, heads = self._roles()
    for v in term_vars(self.term):
      d = self.domains.get(v, Domain())
      groups: list[tuple[Any, list[tuple[int, Any]]]]   # (value, [(cost, candidate)])
      if v in kids: groups = _hole_groups(v, d, params)
      elif v in heads["op"]:
        ops = sorted(d.ops, key=lambda o: o.value) if d.ops is not None else [o for o in Ops if o not in (Ops.CONST, Ops.PARAM)]
        groups = [(op, [(0, op)]) for op in ops]
      elif v in heads["cast"]: groups = [(dt, [(0, dt)]) for dt in (d.dtypes and sorted(d.dtypes, key=ALL_DTYPES.index)) or ALL_DTYPES]
      elif v in heads["dtype"]: continue   # inferred from the sources when the node is built
      elif v in heads["call"]: groups = [(None, [(0, None)])]
      else:
        self.why_none = "a pattern arg that cannot be guessed"
        return holes, None
      if not groups:
        self.why_none = "a hole with no candidate"
        return holes, None
      holes.append(v)
      choices.append(groups)
    return holes, choices

  def _roles(self) -> tuple[set[Var], dict[str, set[Var]]]:
    kids: set[Var] = set()
    heads: dict[str, set[Var]] = {"op": set(), "dtype": set(), "cast": set(), "call": set(), "arg": set()}
    stack = [self.term]
    if type(self.term) is Var: kids.add(self.term)
    while stack:
      t = stack.pop()
      if type(t) is not UExpr: continue
      h: Head = t._tuple[0]
      if type(h.op) is Var: heads["op"].add(h.op)
      if type(h.dtype) is Var: heads["cast" if h.op is Ops.CAST or type(h.op) is Var else "dtype"].add(h.dtype)
      if type(h.arg) is Var: heads["call" if h.op is Ops.CALL else "arg"].add(h.arg)
      for k in t._tuple[1:]:
        if type(k) is Var: kids.add(k)
        else: stack.append(k)
    return kids, heads

  def _compile(self, holes: list[Var]) -> None:
    """The term as a list of node builds in post-order over slots: the holes' values, then the nodes."""
    slot: dict[Any, int] = {v: k for k, v in enumerate(holes)}
    plan: list[tuple] = []
    stack: list[tuple[Any, bool]] = [(self.term, False)]
    while stack:   # a pattern is shallow, but the walk is iterative anyway
      t, ready = stack.pop()
      if id(t) in slot or type(t) is Var: continue
      if type(t) is UOp:
        slot[id(t)] = len(holes) + len(plan)
        plan.append((None, t, (), None, None, None))
        continue
      if not ready:
        stack.append((t, True))
        stack.extend((k, False) for k in reversed(t._tuple[1:]))
        continue
      h = t._tuple[0]
      src = tuple(slot[k] if type(k) is Var else slot[id(k)] for k in t._tuple[1:])
      op = ("hole", slot[h.op]) if type(h.op) is Var else h.op
      dtype = ("hole", slot[h.dtype]) if type(h.dtype) is Var and h.dtype in slot else None if type(h.dtype) is Var else h.dtype
      arg = ("hole", slot[h.arg]) if type(h.arg) is Var and h.arg in slot else h.arg
      d = self.domains.get(h.dtype) if type(h.dtype) is Var else None
      slot[id(t)] = len(holes) + len(plan)
      plan.append((op, None, src, dtype, arg, d.dtypes if d is not None else None))
    self._plan = plan
    self._root = slot[self.term] if type(self.term) is Var else slot[id(self.term)]

  def _build(self, holes: list[Var], values: tuple) -> UOp:
    vals = list(values)
    for op, fixed, src, dtype, arg, allowed in self._plan:
      if fixed is not None: vals.append(fixed); continue
      if type(op) is tuple: op = vals[op[1]]
      if type(dtype) is tuple: dtype = vals[dtype[1]]
      if type(arg) is tuple and len(arg) == 2 and arg[0] == "hole": arg = vals[arg[1]]
      try: u = make_uop(op, tuple([vals[k] for k in src]), arg, dtype)
      except TypeError as e: raise UOpError(str(e)) from None
      if allowed is not None and u.dtype not in allowed: raise UOpError(f"dtype {u.dtype.name} outside the pattern's")
      vals.append(u)
    return vals[self._root]


def renumbering(u: UOp) -> dict[UOp, UOp]:
  """PARAM renaming that numbers ``u``'s free PARAMs 0, 1, ... in order of appearance (apply with ``renumber``).

  Instances use arbitrary fresh slots; reports renumber a witness and everything derived from it alike.
  """
  return {p: UOp.param(k, p.dtype, p.shape, p.arg.addrspace) for k, p in enumerate(call_params(u))}


def renumber(u: UOp, mapping: dict[UOp, UOp]) -> UOp:
  """``u`` with PARAMs renamed by ``mapping`` (from ``renumbering``)."""
  if all(a is b for a, b in mapping.items()): return u
  return substitute_scoped(u, mapping)


class UopcOverlaps:
  """uopc's overlaps for ``critical_pairs`` (the ``IR.overlaps`` protocol): etuple unification of its ``UPat``s
  (``uopc.relational.analyses.overlaps``), instances by ``Instances``; every rule is analyzed (``skipped`` is empty).

  >>> from uopc import symbolic
  >>> src = UopcOverlaps(symbolic)
  >>> (3, 0, ()) in src.groups, src.skipped
  (True, [])
  """

  def __init__(self, pm: Any) -> None:
    from collections import defaultdict

    from uopc.relational.analyses.overlaps import overlaps
    groups: dict[tuple[int, int, tuple[int, ...]], list[Any]] = defaultdict(list)
    for o in overlaps(pm): groups[(o.outer, o.inner, o.path)].append(o)
    self.groups = dict(groups)
    self.skipped: list[tuple[str, str]] = []

  def text(self, o: Any) -> str:
    from uopc.relational.analyses.overlaps import pattern_text
    return pattern_text(o.term)

  def instances(self, group: list[Any], max_instances: int) -> tuple[list[tuple[UOp, tuple[int, ...], Any]], int, set[str | None]]:
    """Distinct instances of a group of overlaps (one pair), taken round robin; the ill-typed count; why there are none."""
    gens = [(Instances(o.term, o.domains, max_instances), o) for o in group]
    out = list(round_robin([zip(g, itertools.repeat(o.actual), itertools.repeat(o)) for g, o in gens], max_instances, key=lambda i: i[0]))
    return out, sum(g.ill_typed for g, _ in gens), {g.why_none for g, _ in gens}

  def renaming(self, u: UOp) -> Any:
    m = renumbering(u)
    return lambda x: renumber(x, m)
