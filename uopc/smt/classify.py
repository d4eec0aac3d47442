"""Two results of one program (a fork's two normal forms, a critical pair's two results): equal for all inputs, or not?

``classify(a, b)`` gives one of four kinds, each with its words (``detail``) and, for a difference, the input:

- ``semantic``: an input (a binding of the free PARAMs) at which they differ, *replayed through* ``run()`` *and
  confirmed there*: ``different values at p0=-1.0: 0.0 vs -0.0``. A z3 model that ``run()`` does not confirm is
  never claimed;
- ``syntactic``: equal for all inputs, **proved**: by z3 over every value of the PARAMs (``encode``: i32 as wrapping
  bit-vectors, f32 as IEEE single), or, for a closed program, by evaluating both exactly;
- ``no-difference-found``: not proved (z3 gave up, could not encode a side, or is not installed), and a witness
  search (the dtype's edge values 0, +-1, +-40, +-800, its limits, inf, nan, then seeded random bindings, small ones
  and ones from anywhere in the dtype) found no input where they differ;
- ``unknown``: neither side could be evaluated on any input tried.

Definedness, for a fork: neither side is the reference (a rewrite rule's left side is; ``prove_rewrite`` lets its
right side be *more* defined), so the two are equal at an input when both are defined there with the same value, bit
for bit (``-0.0`` is not ``0.0``, NaN is NaN), or both are undefined there (both trap: a division by zero, an index
out of bounds). A trap on one side only is a difference. z3 decides this in the C backend's semantics (``encode``: a
kernel traps if any node it keeps traps); ``run()`` may drop a dead undefined branch, so a z3 model at which one side
traps in C may be an input where ``run()`` gives both values: such a model is not confirmed, and the search goes on.
An input at which ``run()`` cannot evaluate a side for another reason (no fixed point within its steps) shows nothing.
What z3 proves for ``syntactic`` is the stronger statement: at every input both sides trap in C alike, *and* their
elements' values (what a lazy evaluation gives where it avoids the trap) are equal, so wherever ``run()`` gives both
sides a value, the values are the same.

The solver is bounded by a resource limit (``RLIMIT``), not a time: a verdict is the same on a busy machine.

>>> from uopc.uop import UOp
>>> from uopc.dtype import dtypes
>>> p0 = UOp.param(0)
>>> classify(p0 + p0, p0 * 2)
Classification(kind='syntactic', detail='equal for all inputs (proved by z3)', binding=None)
>>> x = UOp.param(0, dtypes.f32)
>>> v = classify(x * 0.0, x * -0.0)
>>> v.kind, v.binding
('semantic', {0: 0.0})
>>> v.detail
'different values at p0=0.0: 0.0 vs -0.0'
>>> classify(UOp.const(7) // 2, UOp.const(3)).detail
'equal for all inputs (proved: the program is closed, both sides evaluated exactly)'
"""
from __future__ import annotations

import math
import random
from itertools import islice
from typing import Any, Iterator, NamedTuple

from uopc.dtype import DType, dtypes, same_value, truncate
from uopc.evaluate import IndexOutOfBounds, UndefinedError, bind_params, run, to_python
from uopc.probe_values import by_cost, random_bindings, random_value
from uopc.uop import UOp, call_params

from uopc.smt.model import nest
from uopc.smt.solver import MISSING, Fresh, available, require
from uopc.smt.sorts import python_value

KINDS = ("semantic", "syntactic", "no-difference-found", "unknown")
"""The four kinds, in the order reports count them."""

RLIMIT = 2_000_000
"""z3's resource limit per query (a count of its internal steps, so the same on any machine): past it, "gave up"."""
MAX_STEPS = 200_000
"""``run()``'s rule lookups per side and input: a side that does not converge within them shows nothing there."""
EDGE_INPUTS = 64
"""Edge bindings tried (cheapest combinations first) before the random ones."""
MODELS = 3
"""z3 models replayed before its counterexamples are given up as not confirmed by ``run()``."""

NO_Z3 = "z3 is not installed"
"""Why a verdict is not proved when z3 is missing (a report says once how to install it: ``missing_z3``)."""

F32_MAX = 3.4028234663852886e38
SEARCH_EDGES: dict[DType, tuple[Any, ...]] = {
  dtypes.i32: (0, 1, -1, 40, -40, 800, -800, 2**31 - 1, -2**31),
  dtypes.f32: (0.0, -0.0, 1.0, -1.0, 40.0, -40.0, 800.0, -800.0, F32_MAX, -F32_MAX, 1.401298464324817e-45, math.inf, -math.inf,
               math.nan),
  dtypes.bool: (False, True),
}
"""The witness search's edge values per dtype: zero and its sign, one, magnitudes where exp/log overflow, the limits."""

KIND_WORDS = {"semantic": "semantic", "syntactic": "syntactic (proved)", "no-difference-found": "no difference found", "unknown": "unknown"}
"""How a report names each kind where it counts them."""


def kinds_text(kinds: list[str | None]) -> str:
  """How many of each kind, in words, in ``KINDS``' order (kinds outside them, another IR's, after)."""
  order = [*KINDS, *sorted({k for k in kinds if k is not None and k not in KINDS})]
  return ", ".join(f"{kinds.count(k)} {KIND_WORDS.get(k, k)}" for k in order if k in kinds)


def kinds_count(kinds: list[str | None]) -> dict[str, int]:
  """How many of each kind (every one of ``KINDS``, 0 included; another IR's kinds after): a JSON report's counts.

  >>> kinds_count(["semantic", None, "semantic"])
  {'semantic': 2, 'syntactic': 0, 'no-difference-found': 0, 'unknown': 0}
  """
  others = sorted({k for k in kinds if k is not None and k not in KINDS})
  return {k: kinds.count(k) for k in (*KINDS, *others)}


def verdict_words(kind: str | None, detail: str | None) -> str:
  """One verdict as a report prints it: the kind, then its words (a detail that starts with its kind's words, as
  ``unknown: ...`` and ``no difference found ...`` do, alone).

  >>> verdict_words("semantic", "different values at p0=40: -inf vs -40.0")
  'semantic: different values at p0=40: -inf vs -40.0'
  >>> verdict_words("no-difference-found", "no difference found on 9 inputs (not proved: z3 gave up)")
  'no difference found on 9 inputs (not proved: z3 gave up)'
  """
  detail = detail or ""
  if kind is None: return detail
  words = KIND_WORDS.get(kind, kind)
  return detail if detail.startswith(words.removesuffix(" (proved)")) else f"{kind}: {detail}" if detail else kind


class Classification(NamedTuple):
  """``kind`` (one of ``KINDS``), ``detail`` the verdict in words, ``binding`` the input of a ``semantic`` one."""
  kind: str
  detail: str
  binding: dict[int, Any] | None = None


class Outcome(NamedTuple):
  """One side's outcome at one input: ``value``, ``trap`` (undefined, as C traps) or ``error`` (``run()`` cannot tell)."""
  status: str
  value: Any

  def text(self) -> str: return repr(self.value) if self.status == "value" else f"{self.status} ({self.value})"


def outcome(u: UOp, values: dict[int, Any] | None = None, max_steps: int = MAX_STEPS) -> Outcome:
  """``u`` with ``values`` bound to its PARAMs, through ``run()``."""
  try: return Outcome("value", to_python(run(bind_params(u, values) if values else u, max_steps=max_steps)))
  except (UndefinedError, IndexOutOfBounds) as e: return Outcome("trap", str(e))
  except Exception as e: return Outcome("error", f"{type(e).__name__}: {e}")   # no fixed point, a rule's own error, a value too large


def differ(x: Outcome, y: Outcome) -> bool | None:
  """Do two outcomes (``outcome``) differ (a trap on one side only does)? None if either cannot be evaluated."""
  if "error" in (x.status, y.status): return None
  if x.status != y.status: return True
  return x.status == "value" and not same_value(x.value, y.value)


def binding_text(b: dict[int, Any]) -> str:
  """``p0=1, p1=-0.0``."""
  return ", ".join(f"p{k}={v!r}" for k, v in sorted(b.items()))


def free_params(*us: UOp) -> list[UOp]:
  """The free PARAMs of these programs, by slot."""
  seen: dict[UOp, None] = {}
  for u in us:
    for p in call_params(u): seen.setdefault(p)
  return sorted(seen, key=lambda p: p.arg.slot)


def classify(a: UOp, b: UOp, params: list[UOp] | None = None, n: int = 8, seed: int = 0, rlimit: int = RLIMIT) -> Classification:
  """The kind of ``a`` vs ``b`` (see the module's docstring); ``params`` the free PARAMs (of both, by default), ``n``
  random bindings after the edge ones (``seed``).

  Where z3 finds that they are not alike, the witness search runs first and its input is the one shown: z3's models
  depend on what the process asked it before, the search's order does not, so a report is the same however it was
  reached. z3's own models are replayed only where the search finds nothing."""
  params = free_params(a, b) if params is None else params
  if not params: return _closed(a, b)
  if not available(): return _searched(_hunt(a, b, params, n, seed), NO_Z3)
  query = _Query(a, b, rlimit)
  if query.answer == "unsat": return Classification("syntactic", "equal for all inputs (proved by z3)")
  hunt = _hunt(a, b, params, n, seed)
  if hunt.found is not None or query.answer != "sat": return _searched(hunt, query.why)
  return query.confirmed(a, b) or _searched(hunt, "z3's counterexamples are not confirmed by run()")


def _closed(a: UOp, b: UOp) -> Classification:
  x, y = outcome(a), outcome(b)
  d = differ(x, y)
  if d is None: return Classification("unknown", f"unknown: could not evaluate: {(x if x.status == 'error' else y).value}")
  if d: return Classification("semantic", f"different values: {x.text()} vs {y.text()}", {})
  both = "" if x.status == "value" else f"; both trap: {x.value}"
  return Classification("syntactic", f"equal for all inputs (proved: the program is closed, both sides evaluated exactly{both})")


class _Query:
  """z3 asked for an input where ``a`` and ``b`` are not alike: ``answer`` is ``unsat`` (there is none: the proof),
  ``sat``, ``unknown`` or ``no-encoding``, and ``why`` a reason to give if that is not decisive."""

  def __init__(self, a: UOp, b: UOp, rlimit: int) -> None:
    from uopc.smt.encode import Encoder
    z3 = self.z3 = require()
    self.answer, self.why = "no-encoding", ""
    try:
      enc = Encoder()
      left, right = enc.encode(a), enc.encode(b)
    except Exception as e:   # an op or dtype the encoding does not have
      self.why = f"no SMT encoding: {type(e).__name__}: {e}"
      return
    if (left.dtype, left.shape) != (right.dtype, right.shape):
      self.why = "the two sides have different types"
      return
    same = [x == y for x, y in zip(left.elements, right.elements)]   # z3's = on floats: bit for bit, one NaN (sorts.py)
    # the values must agree even where both trap in C: run() is lazier (it drops a dead branch), and where it gives
    # both sides a value, those are the elements' values
    differ = z3.Or(left.defined != right.defined, z3.Not(z3.And(same)))
    self.solver = s = Fresh(rlimit=rlimit)
    s.add(*left.assumptions, *right.assumptions, differ)
    self.variables = {slot: consts for e in (left, right) for slot, consts in e.variables.items()}
    self.answer = s.check()
    if self.answer == "unknown": self.why = f"z3 gave up ({s.reason_unknown()})"

  def confirmed(self, a: UOp, b: UOp) -> Classification | None:
    """Up to ``MODELS`` of z3's inputs replayed through ``run()``: the first it confirms, ``semantic``; else None."""
    z3, s = self.z3, self.solver
    params = {p.arg.slot: p for p in free_params(a, b)}
    for _ in range(MODELS):
      model = s.model()
      values = {slot: nest([python_value(model.eval(c, model_completion=True), p.dtype) for c in self.variables[slot]], p.shape)
                for slot, p in params.items()}
      x, y = outcome(a, values), outcome(b, values)
      if differ(x, y): return _semantic(values, x, y)
      s.add(z3.Or([c != model.eval(c, model_completion=True) for consts in self.variables.values() for c in consts]))   # another input
      if s.check() != "sat": return None
    return None


def _semantic(values: dict[int, Any], x: Outcome, y: Outcome) -> Classification:
  return Classification("semantic", f"different values at {binding_text(values)}: {x.text()} vs {y.text()}", values)


def edge_bindings(params: list[UOp], limit: int = EDGE_INPUTS) -> Iterator[dict[int, Any]]:
  """Up to ``limit`` bindings of edge values (``SEARCH_EDGES``; a shaped PARAM gets one value in every element): each
  value for every PARAM at once first, then every combination, cheapest first."""
  tables = [[truncate(p.dtype, v) for v in SEARCH_EDGES[p.dtype]] for p in params]
  def bind(vs: tuple[Any, ...]) -> dict[int, Any]:
    return {p.arg.slot: nest([v] * _size(p), p.shape) for p, v in zip(params, vs)}
  longest = max(len(t) for t in tables)
  diagonal = [tuple(t[k % len(t)] for t in tables) for k in range(longest)]
  combos = by_cost([list(enumerate(t)) for t in tables]) if len(params) > 1 else iter(())
  seen: set[tuple[int, ...]] = set()
  for vs in islice((*diagonal, *islice(combos, limit)), limit):
    key = tuple(map(_bits, vs))
    if key in seen: continue
    seen.add(key)
    yield bind(vs)


def wide_bindings(params: list[UOp], n: int, seed: int) -> list[dict[int, Any]]:
  """``n`` seeded bindings from anywhere in each dtype (``probe_values.random_value``, check-rules' draw: any f32 bit
  pattern, any i32): where rounding and wraparound show, which small random values seldom reach."""
  rng = random.Random(seed)
  return [{p.arg.slot: nest([random_value(rng, p.dtype) for _ in range(_size(p))], p.shape) for p in params} for _ in range(n)]


def _bits(v: Any) -> Any: return (type(v), repr(v))   # -0.0 and 0.0 two bindings, NaN one


def _size(p: UOp) -> int:
  out = 1
  for d in p.shape: out *= d
  return out


class _Hunt(NamedTuple):
  found: Classification | None   # the first input where the two differ, ``semantic``
  tried: int
  evaluated: int
  last: str                      # why the last input that could not be evaluated could not


def _hunt(a: UOp, b: UOp, params: list[UOp], n: int, seed: int) -> _Hunt:
  """Edge bindings, then ``n`` small random ones, then ``n`` from anywhere in the dtypes: the first where the two
  differ in ``run()``, and how many were tried and evaluated."""
  tried, evaluated, last = 0, 0, ""
  for values in (*edge_bindings(params), *random_bindings(params, n, seed), *wide_bindings(params, n, seed)):
    tried += 1
    x, y = outcome(a, values), outcome(b, values)
    d = differ(x, y)
    if d: return _Hunt(_semantic(values, x, y), tried, evaluated + 1, last)
    if d is None: last = (x if x.status == "error" else y).value
    else: evaluated += 1
  return _Hunt(None, tried, evaluated, last)


def _searched(h: _Hunt, why: str) -> Classification:
  """What a search says: its difference, or that it found none (not proved: ``why``), or that nothing evaluated."""
  if h.found is not None: return h.found
  if not h.evaluated: return Classification("unknown", f"unknown: could not evaluate either side on {h.tried} inputs ({h.last}); not proved: {why}")
  return Classification("no-difference-found", f"no difference found on {h.evaluated} inputs (not proved: {why})")


def missing_z3(details: list[str | None]) -> str | None:
  """The one line a report prints when some of its verdicts were not proved because z3 is missing, else None."""
  return f"values: nothing is proved: {MISSING}" if any(d and d.endswith(f"(not proved: {NO_Z3})") for d in details) else None


def basis_text(params: list[UOp], n: int) -> str:
  """How ``classify`` decides for a program with these free PARAMs, in words (a report's ``values:`` line)."""
  if not params: return "the program is closed: results compared by value (run), bit for bit, exactly"
  names = ", ".join(f"p{p.arg.slot}" for p in params)
  search = f"a search on edge values (0, ±1, ±40, ±800, the limits, inf, nan) and {n} random bindings"
  if not available(): return f"the program has free PARAMs ({names}), and nothing is proved ({MISSING}): {search}, bit for bit"
  return (f"the program has free PARAMs ({names}): z3 proves the results equal for all inputs, or finds an input where run() "
          f"shows them different, bit for bit; where z3 gives up, {search}")
