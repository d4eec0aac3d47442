"""Rules proved, not sampled: does a rewrite keep the program's value for *all* inputs?

``prove_rewrite(lhs, rhs)`` asks z3 whether some value of the PARAMs makes ``lhs`` defined (its C program does not
trap, ``encode``) and ``rhs`` undefined or different (bit for bit: -0.0 is not 0.0, NaN is NaN). The answer is a
``Verdict``: "proved" (no such input), "refuted" (with one, replayed through ``run()``), or "unknown" (with the
reason: the solver's timeout, or a counterexample that rests on an uninterpreted libm value ``run()`` does not
confirm). A rewrite may make a program *more* defined (``x * 0 -> 0`` drops a trap in ``x``), never less.

``prove_rule(pattern, fn, dtype)`` builds the rule's left side with a variable at every leaf and a *symbolic
constant* at every constant hole (``concolic``), runs the rule's Python function on it once per path (each ``if`` on
a constant forks), and proves each path's rewrite under that path's condition: "proved" holds for every value of the
variables and of the constants. Where the symbolic run cannot follow the function (``int()`` of a constant, float
arithmetic on one), the constants are tried at edge values instead, which can refute the rule but not prove it.
A fourth status, "inapplicable", says that the pattern's leaves cannot have the dtype asked for.

Each query is asked with i32 as bit-vectors, or, where the rewrite divides, as Ints (``sorts``: the same values;
division by a constant is linear there, where a bit-blasted divider times out), and in the other theory if the
first gives up.

>>> from uopc.dtype import dtypes
>>> from uopc.upat import UPat
>>> x = UPat.var("x")
>>> prove_rule(x * 2, lambda x: x + x, dtypes.i32).status
'proved'
>>> v = prove_rule(x + 0.0, lambda x: x, dtypes.f32)
>>> v.status, v.counterexample, v.replay
('refuted', {0: -0.0}, ('0.0', '-0.0'))
>>> from uopc.dtype import truncate
>>> c1, c2 = UPat.cvar("c1"), UPat.cvar("c2")
>>> prove_rule((x * c1) * c2, lambda x, c1, c2: x * truncate(dtypes.i32, c1.arg * c2.arg), dtypes.i32).status
'proved'
"""
from __future__ import annotations

from functools import partial
from typing import Any, Callable, NamedTuple

from uopc.dtype import DType, dtypes, same_value
from uopc.evaluate import bind_params, run, to_python
from uopc.footprint import footprint_of
from uopc.lengths import LENGTHS
from uopc.matcher import PatternMatcher
from uopc.ops import CONST, FLOORDIV, FLOORMOD, PARAM
from uopc.rewrite import ProgramError, RewriteLoopError
from uopc.term import show
from uopc.upat import UPat
from uopc.uop import UOp, UOpError, log_mark

from uopc.smt.concolic import (FEASIBLE_MS, Path, Symbolic, Unfollowable, bounded_leaves, concrete_leaf, explore, forget,
                               hole_range, leaf_constraints)
from uopc.smt.encode import Encoder, Encoding
from uopc.smt.instance import Inapplicable, NoLeftSide, constant_holes, holes_of, left_sides
from uopc.smt.model import nest
from uopc.smt.solver import Fresh, require, session
from uopc.smt.sorts import python_value, variable

TIMEOUT_MS = 2000   # one rewrite's queries together, in z3's work units (solver.budget): past it, "unknown (out of budget)"


class Verdict(NamedTuple):
  """What the prover says of one rewrite or rule."""
  status: str                                # "proved", "refuted", "unknown" or "inapplicable"
  reason: str = ""                           # why, in one line
  counterexample: dict[int, Any] | None = None   # PARAM values (refuted, or unknown with a candidate)
  lhs: UOp | None = None                     # the instance the verdict is about
  rhs: UOp | None = None
  replay: tuple[str, str] | None = None      # run() of lhs and of rhs at the counterexample
  seconds: float = 0.0                       # the time it took (prove_rules fills it in)


def _outcome(u: UOp, values: dict[int, Any]) -> tuple[bool, Any]:
  try: return True, to_python(run(bind_params(u, values)))
  except (ValueError, IndexError, UOpError, ProgramError, RewriteLoopError) as e: return False, f"error: {e}"


def replay(lhs: UOp, rhs: UOp, values: dict[int, Any]) -> tuple[tuple[str, str], bool]:
  """``run()`` of both sides at ``values`` (as text), and whether they differ (a value each, bit for bit, or not)."""
  (lok, lv), (rok, rv) = _outcome(lhs, values), _outcome(rhs, values)
  shown = (repr(lv) if lok else lv, repr(rv) if rok else rv)
  return shown, not (lok == rok and (not lok or same_value(lv, rv)))


def _differ(z3: Any, lhs: Encoding, rhs: Encoding) -> Any:
  if (lhs.dtype, lhs.shape) != (rhs.dtype, rhs.shape): return z3.BoolVal(True)
  return z3.Or(z3.Not(rhs.defined), *[z3.Not(a == b) for a, b in zip(lhs.elements, rhs.elements)])


def _values(model: Any, sides: list[Encoding], params: list[UOp]) -> dict[int, Any]:
  """The PARAM values of a model (every PARAM of both sides), as ``run()`` takes them."""
  variables = {slot: consts for enc in sides for slot, consts in enc.variables.items()}
  return {p.arg.slot: nest([python_value(model.eval(c, model_completion=True), p.dtype) for c in variables[p.arg.slot]], p.shape)
          for p in params}


def _divides(*us: UOp) -> bool:
  return any(n.op is FLOORDIV or n.op is FLOORMOD for u in us for n in u.toposort())


class _Answer(NamedTuple):
  status: str              # "proved", "refuted" or "unknown"
  reason: str = ""         # why the solver gave up
  model: Any = None        # a counterexample (refuted)
  sides: list[Encoding] = []
  ints: bool = False       # the theory of the model


def purify(formulas: list[Any]) -> list[Any]:
  """``formulas`` with each Int division by a non-constant replaced by a fresh quotient ``q`` and its definition,
  ``b*q <= a < b*q + |b|`` (b != 0): the form in which z3's nonlinear arithmetic relates a quotient to its divisor
  (``(x % c1) % c2`` with ``c1`` a multiple of ``c2`` is proved in it, and times out as ``div`` terms)."""
  z3 = require()
  found: dict[int, Any] = {}
  stack, seen = list(formulas), set()
  while stack:
    t = stack.pop()
    if t.get_id() in seen: continue
    seen.add(t.get_id())
    if z3.is_app_of(t, z3.Z3_OP_IDIV) and not z3.is_int_value(t.arg(1)): found[t.get_id()] = t
    stack.extend(t.children())
  if not found: return formulas
  pairs = [(t, z3.Int(f"quotient!{k}")) for k, t in enumerate(found.values())]
  defs = [z3.Implies(t.arg(1) != 0, z3.And(t.arg(1) * q <= t.arg(0), t.arg(0) < t.arg(1) * q + z3.If(t.arg(1) > 0, t.arg(1), -t.arg(1))))
          for t, q in pairs]
  return [z3.substitute(f, *pairs) for f in formulas + defs]


IN_CONTEXT = ("simplify", "propagate-ineqs", "ctx-solver-simplify", "simplify", "solve-eqs", "smt")
"""z3's tactics for a division's query: each subformula simplified under the others (the path's signs pick a branch of
every floor division's sign cases, and the query often simplifies to False), then the default solver."""
# (i32 as Ints, quotients purified, tactic, share of the budget), in order
DIVIDING = ((True, False, None, 0.1), (True, True, None, 0.25), (True, False, IN_CONTEXT, 0.45), (False, False, None, 0.2))
NOT_DIVIDING = ((False, False, None, 0.75), (True, False, None, 0.25))
NONLINEAR = ((True, False, None, 0.75), (False, False, None, 0.25))   # a product of two symbolic values: 64-bit multipliers blasted are slow


def _nonlinear(formulas: list[Any], products: bool) -> bool:
  """Do ``formulas`` (Int theory) divide (or, with ``products``, multiply) two terms neither of which is a number? A
  path's products of symbolic bounds (``bounds-const``) and a constant's quotient of two constants (``lt-mul-const``)
  are 64-bit multipliers and dividers once bit-blasted; a constant's product (``c1 * c2``, wrapped) is not slow there."""
  z3 = require()
  stack, seen = list(formulas), set()
  while stack:
    t = stack.pop()
    if t.get_id() in seen: continue
    seen.add(t.get_id())
    if products and z3.is_mul(t) and sum(not z3.is_int_value(a) for a in t.children()) >= 2: return True
    if (z3.is_idiv(t) or z3.is_mod(t)) and not z3.is_int_value(t.arg(1)): return True
    stack.extend(t.children())
  return False


def _solve(lhs: UOp, rhs: UOp, given: Callable[[bool], list[Any] | None], timeout_ms: int) -> _Answer:
  """Is there an input (under ``given(ints)``, the constraints in each theory) where ``lhs`` is defined and ``rhs``
  undefined or different? Asked in the theory that suits the rewrite first (Ints where it divides, then with its
  quotients purified), then the other; ``timeout_ms`` is shared among them."""
  z3 = require()
  constants = [n.arg.i for u in (lhs, rhs) for n in u.toposort() if n.op is CONST and isinstance(n.arg, Symbolic)]
  nonlinear = _nonlinear(given(True) or [], products=True) or _nonlinear(constants, products=False)
  attempts = DIVIDING if _divides(lhs, rhs) else NONLINEAR if nonlinear else NOT_DIVIDING
  reasons = []
  for ints, purified, tactic, share in attempts:
    extra = given(ints)
    if extra is None: continue   # a constant past 64 bits has no bit-vector term
    enc = Encoder(ints)
    try: left, right = enc.encode(lhs), enc.encode(rhs)
    except Unfollowable: continue
    formulas = [*left.assumptions, *right.assumptions, *extra, left.defined, _differ(z3, left, right)]
    if purified:
      if (pure := purify(formulas)) is formulas: continue   # no quotient to purify: the plain query was this one
      formulas = pure
    s = Fresh(ms=int(timeout_ms * share), tactic=tactic, alone=tactic is not None)   # z3's tactics: a fragile search, kept apart
    s.add(*formulas)
    answer = s.check()
    if answer == "unsat": return _Answer("proved")
    if answer == "sat": return _Answer("refuted", "", s.model(), [left, right], ints)
    why = s.reason_unknown()
    why = "out of budget" if "resource" in why or why in ("timeout", "canceled") else why   # the rlimit, or the clock's safety net
    reasons.append(f"{why} with i32 as {'Ints' if ints else 'bit-vectors'}{' (quotients purified)' if purified else ''}"
                   f"{' (simplified in context)' if tactic else ''}")
  return _Answer("unknown", "; ".join(reasons) or "no theory has terms for these constants")


def _refuted(lhs: UOp, rhs: UOp, answer: _Answer) -> Verdict:
  """The verdict on a model of a concrete rewrite: confirmed by ``run()``, or resting on an uninterpreted libm value."""
  params = [n for n in {*lhs.toposort(), *rhs.toposort()} if n.op is PARAM]
  values = _values(answer.model, answer.sides, params)
  shown, differs = replay(lhs, rhs, values)
  libm = sorted(op.name for op in answer.sides[0].uninterpreted | answer.sides[1].uninterpreted)
  if libm and not differs:
    return Verdict("unknown", f"a candidate counterexample rests on {', '.join(libm)}, whose values are uninterpreted, and run() "
                   "does not confirm it", values, lhs, rhs, shown)
  return Verdict("refuted", "different values" if differs else "different values (run() rewrites the left side with rules of its own)",
                 values, lhs, rhs, shown)


def prove_rewrite(lhs: UOp, rhs: UOp, timeout_ms: int = TIMEOUT_MS) -> Verdict:
  """Is ``lhs -> rhs`` sound for every value of the PARAMs (see the module's docstring)?"""
  require()
  if (lhs.dtype, lhs.shape) != (rhs.dtype, rhs.shape):
    return Verdict("refuted", f"the rewrite changes the type: {lhs.dtype.name}{list(lhs.shape)} -> {rhs.dtype.name}{list(rhs.shape)}",
                   {}, lhs, rhs)
  answer = _solve(lhs, rhs, lambda ints: [], timeout_ms)
  if answer.status == "proved": return Verdict("proved", "equal for all inputs wherever the left side is defined", None, lhs, rhs)
  if answer.status == "unknown": return Verdict("unknown", f"the solver gave up: {answer.reason}", None, lhs, rhs)
  return _refuted(lhs, rhs, answer)


def concretize(u: UOp, value_of: Callable[[Any], Any], ints: bool, leaves: dict[UOp, UOp] | None = None) -> UOp:
  """``u`` with each symbolic constant replaced by its value (``value_of``: a term of the theory ``ints`` -> its value
  term, as a model or a substitution gives it), and each bounded leaf by ``leaves``' copy of it."""
  new: dict[UOp, UOp] = dict(leaves or {})
  for n in u.toposort():
    if n in new: continue
    if n.op is CONST and isinstance(n.arg, Symbolic):
      new[n] = UOp.const(python_value(value_of(n.arg.smt_term(n.dtype, ints)), n.dtype), n.dtype)
    elif any(new[s] is not s for s in n.src): new[n] = n.replace(src=tuple(new[s] for s in n.src))
    else: new[n] = n
  return new[u]


def _one_line(term: Any) -> str:
  """A z3 term as one line of at most ``LENGTHS.message`` characters (z3 prints long ones over several)."""
  text = " ".join(str(term).split())
  return text if len(text) <= LENGTHS.message else text[:LENGTHS.message - 1] + "…"


def _fire(rule: PatternMatcher, u: UOp) -> UOp | None:
  try: return rule.rewrite(u)
  except Exception: return None   # the concrete run raised where the symbolic one returned: they differ


class _LeftSide(NamedTuple):
  """A left side with symbolic parts: its constant holes and its bounded leaves (each with the holes of its bounds)."""
  u: UOp
  holes: list[UOp]
  leaves: dict[UOp, tuple[UOp, UOp]]

  @property
  def variables(self) -> list[UOp]:
    """Every hole: the constants' and the bounds'."""
    return self.holes + [h for pair in self.leaves.values() for h in pair]

  def constraints(self, ints: bool) -> list[Any]:
    """What the holes range over and how a bounded leaf's value relates to its bounds, in the theory ``ints``."""
    def value(leaf: UOp) -> Any: return variable(f"p{leaf.arg.slot}", dtypes.i32, ints)
    return [*[hole_range(h, ints) for h in self.variables],
            *[c for leaf, (lo, hi) in self.leaves.items() for c in leaf_constraints(leaf, lo, hi, value(leaf), ints)]]

  def rewrite(self, rule: PatternMatcher) -> UOp | None:
    """``rule.rewrite`` with no bounds cached on the left side's nodes but its leaves': each run computes them on its
    own path (a cached bound is one path's value, and would take that path's decisions for every other)."""
    for n in self.u.toposort(): n._bounds = None
    for leaf, (lo, hi) in self.leaves.items(): leaf._bounds = (lo.arg, hi.arg)
    return rule.rewrite(self.u)

  def concrete_leaves(self, value_of: Callable[[Any], Any]) -> dict[UOp, UOp]:
    return {leaf: concrete_leaf(leaf, python_value(value_of(lo.arg.i), dtypes.i32), python_value(value_of(hi.arg.i), dtypes.i32))
            for leaf, (lo, hi) in self.leaves.items()}


def _same_run(side: _LeftSide, rhs: UOp, path: Path, rule: PatternMatcher) -> bool:
  """Does the rule, run on one concrete choice of constants (and bounds) on ``path``, return ``rhs`` at those
  constants? A symbolic run may take a branch a concrete one does not (the function looks at a constant's Python type)."""
  z3 = require()
  if path.witness is not None: value_of = lambda t: z3.simplify(z3.substitute(t, *path.witness)) if path.witness else z3.simplify(t)
  else:
    s = Fresh(ms=FEASIBLE_MS)
    s.add(path.condition(True), *side.constraints(True))
    if s.check() != "sat": return True   # no concrete constants take the path (or none found in time): nothing to compare
    m = s.model()
    value_of = lambda t: m.eval(t, model_completion=True)
  leaves = side.concrete_leaves(value_of)
  return _fire(rule, concretize(side.u, value_of, True, leaves)) is concretize(rhs, value_of, True, leaves)


def _prove_path(side: _LeftSide, rhs: UOp, path: Path, rule: PatternMatcher, timeout_ms: int) -> Verdict:
  """One path's rewrite, proved under its condition, or refuted at concrete constants."""
  def given(ints: bool) -> list[Any] | None:
    cond = path.condition(ints)
    return None if cond is None else [cond, *side.constraints(ints)]
  answer = _solve(side.u, rhs, given, timeout_ms)
  if answer.status == "proved":
    if side.variables and not _same_run(side, rhs, path, rule):
      return Verdict("unknown", "the rule returns something else on concrete constants than on symbolic ones (it looks at "
                     "their Python type): the proof is not about the rule")
    return Verdict("proved", "")
  if answer.status == "unknown":
    return Verdict("unknown", f"the solver gave up on the path where {_one_line(path.condition(True))}: {answer.reason}")
  value_of = lambda t: answer.model.eval(t, model_completion=True)
  if side.leaves:
    bounds = ", ".join(f"p{leaf.arg.slot} in [{lo.arg.i}, {hi.arg.i}]" for leaf, (lo, hi) in side.leaves.items())
    values = {leaf.arg.slot: python_value(value_of(variable(f"p{leaf.arg.slot}", dtypes.i32, answer.ints)), dtypes.i32) for leaf in side.leaves}
    instance = show(concretize(side.u, value_of, answer.ints, side.concrete_leaves(value_of)))
    return Verdict("unknown", f"a counterexample where bounds() gives {bounds}: {instance} at {values} "
                   "(not replayed: no graph with those bounds was built)")
  lhs_c, rhs_c = concretize(side.u, value_of, answer.ints), concretize(rhs, value_of, answer.ints)
  if side.holes and (real := _fire(rule, lhs_c)) is not rhs_c:   # the symbolic run left the rule's path: judge what the rule returns
    if real is None: return Verdict("unknown", f"a counterexample at constants where the concrete rule does not fire: {show(lhs_c)}")
    v = prove_rewrite(lhs_c, real, timeout_ms)
    if v.status == "refuted": return v
    return Verdict("unknown", f"the rule returns something else on concrete constants than on symbolic ones (it looks at their "
                   f"Python type), and is not wrong at {show(lhs_c)}")
  return _refuted(lhs_c, rhs_c, answer)


# (forms, constant leaves, bounded leaves, shaped): each pass is tried only if the rule fired on none of the one before
PASSES = ((False, False, False, False), (True, False, False, False), (False, True, False, False),
          (False, False, False, True), (False, True, False, True))                # the last two: shape-generic rules
BOUNDED_PASSES = ((False, False, True, False), (False, True, False, False))    # a rule that reads its leaves' bounds
SHAPED_LIMIT = 24   # shaped left sides per pass: each op and arg of the builder's tables a few times
SHAPES_TRIED = "STACKs of 2 or 3 rows, shaped PARAMs, INDEX by a variable or a constant, each movement op and REDUCE, CALL"


def _prove_symbolic(pattern: UPat, rule: PatternMatcher, dtype: DType, limit: int, timeout_ms: int) -> Verdict:
  """The rule on left sides with symbolic constants, every path proved (see the module's docstring)."""
  sides: list[_LeftSide] = []
  mark = log_mark()
  fired, paths, unknown = 0, 0, None
  forms = constant_leaves = bounded = shaped = False
  built: list[UOp] = []
  unfollowed: dict[str, str] = {}   # the root op of each left side the symbolic run cannot follow -> why
  reads_bounds = footprint_of(rule.rules[0][1], "pattern") == "bounds"
  try:
    for forms, constant_leaves, bounded, shaped in BOUNDED_PASSES if reads_bounds else PASSES:
      try: built = list(left_sides(pattern, dtype, min(limit, SHAPED_LIMIT) if shaped else limit, forms, symbolic=True,
                                   constant_leaves=constant_leaves, bounded=bounded, shaped=shaped))
      except NoLeftSide: continue   # the pattern wants shapes (or only scalars)
      for lhs in built:
        side = _LeftSide(lhs, holes_of(lhs), bounded_leaves(lhs))
        sides.append(side)
        assumptions = tuple(lo.arg.i <= hi.arg.i for lo, hi in side.leaves.values())
        try: found = explore(partial(_LeftSide.rewrite, side, rule), side.variables, assumptions=assumptions)
        except Unfollowable as e:   # this left side only: the others (a rule over every ALU op, say) may still be proved
          unfollowed.setdefault(lhs.op.name, str(e))
          continue
        for path in found:
          if path.raised is not None:
            unknown = unknown or Verdict("unknown", f"the rule raised {type(path.raised).__name__}: {path.raised} where "
                                         f"{_one_line(path.condition(True))}")
            continue
          if path.outcome is None: continue
          fired, paths = fired + 1, paths + 1
          v = _prove_path(side, path.outcome, path, rule, timeout_ms)
          if v.status == "refuted": return v
          if v.status == "unknown" and unknown is None: unknown = v
          if unknown is not None and fired >= 2: return unknown   # timeouts add up: two queries are enough to say so
      if fired: break
  except Unfollowable as e: return Verdict("unknown", f"the symbolic run cannot follow the rule: {e}")
  finally: forget(mark)
  n = len(sides[0].holes) if sides else 0
  return _closing_verdict(dtype, (forms, constant_leaves, bounded, shaped), unfollowed, unknown, fired, paths, n, len(built))


def _closing_verdict(dtype: DType, mode: tuple[bool, bool, bool, bool], unfollowed: dict[str, str], unknown: Verdict | None,
                     fired: int, paths: int, n: int, built: int) -> Verdict:
  """The verdict of a symbolic run that refuted nothing: the last pass's ``mode`` (a row of ``PASSES``), the left sides
  it could not follow, the first unknown, how many paths fired, ``n`` constant holes, ``built`` left sides."""
  forms, constant_leaves, bounded, shaped = mode
  if unfollowed and (unknown is None or unknown.status != "refuted"):
    why = "; ".join(f"{w} (at {', '.join(sorted(op for op, x in unfollowed.items() if x == w))})" for w in sorted(set(unfollowed.values())))
    followed = f": {paths} path(s) of its other left sides proved" if fired and unknown is None else ""
    return Verdict("unknown", f"the symbolic run cannot follow the rule: {why}{followed}")
  if not fired: return Verdict("unknown", "the rule fired on no left side the builder made (it may look at its leaves' structure or bounds "
                               "beyond the shapes tried, or need constants it was not given)")
  if unknown is not None: return unknown
  consts = f" and all values of its {n} constant(s)" if n else ""
  if shaped: consts += f" on each of {built} shaped left sides (values of up to 6 elements: {SHAPES_TRIED})"
  if forms: return Verdict("unknown", f"no counterexample: proved for all values of the variables{consts}, at {paths} path(s) of "
                           "left sides with structured leaves (the rule looks into its leaves)")
  if constant_leaves: return Verdict("proved", f"equal for all {dtype.name} constants at every leaf ({paths} path(s)): the rule fires on "
                                     "no left side with a variable leaf the builder made")
  if bounded: return Verdict("proved", f"equal for all {dtype.name} inputs{consts} and all bounds of its leaves that hold their values "
                             f"({paths} path(s): the rule reads bounds, computed here on symbolic ones)")
  return Verdict("proved", f"equal for all {dtype.name} inputs{consts} wherever the left side is defined ({paths} path(s))")


def _prove_at_edge_values(pattern: UPat, rule: PatternMatcher, dtype: DType, holes: list[DType], limit: int, timeout_ms: int) -> Verdict:
  """The rule at edge values of its constants: it can be refuted, and proved only if it has no constant hole."""
  fired, forms, shaped, unknown = 0, False, False, None
  for forms, shaped in ((False, False), (True, False), (False, True)):
    try: built = list(left_sides(pattern, dtype, min(limit, SHAPED_LIMIT) if shaped else limit, forms, shaped=shaped))
    except NoLeftSide: continue
    for lhs in built:
      if (rhs := rule.rewrite(lhs)) is None: continue
      fired += 1
      v = prove_rewrite(lhs, rhs, timeout_ms)
      if v.status == "refuted": return v
      if v.status == "unknown" and unknown is None: unknown = v
      if unknown is not None and fired >= 2: return unknown
    if fired: break
  if not fired:
    return Verdict("unknown", "the rule fired on no left side the builder made (it may look at its leaves' structure or bounds "
                   "beyond the shapes tried, or need constants it was not given)")
  if unknown is not None: return unknown
  if holes or forms or shaped:
    what = f"each of {fired} left sides" + (" with structured leaves" if forms else " with shapes" if shaped else "")
    return Verdict("unknown", f"no counterexample: proved for all values of the variables at {what} "
                   f"({len(holes)} constant hole(s) from edge values)")
  return Verdict("proved", f"equal for all {dtype.name} inputs wherever the left side is defined")


def _constant_holes(pattern: UPat, dtype: DType) -> list[DType]:
  """``constant_holes`` of a scalar left side, or of a shaped one where the pattern wants shapes."""
  try: return constant_holes(pattern, dtype)
  except Inapplicable: raise
  except NoLeftSide: return constant_holes(pattern, dtype, shaped=True)


def prove_rule(pattern: UPat, fn: Callable[..., UOp | None], dtype: DType, limit: int = 64, timeout_ms: int = TIMEOUT_MS) -> Verdict:
  """Is the rule ``pattern -> fn`` sound at ``dtype`` (its leaves' dtype, where the pattern leaves it free)?

  Tries up to ``limit`` left sides (``instance.left_sides``: one per choice of ops; if the rule fires on none, left
  sides whose i32 leaves are small expressions, then left sides whose leaves are constants), each with symbolic
  constants and every path of the rule's function; the first refuted path is the verdict. "proved": every path of
  every left side is; "inapplicable": the pattern's leaves cannot have ``dtype``. Where the symbolic run cannot
  follow the function, the constants are tried at edge values (``unknown`` then says why, unless refuted). Its queries
  share one z3 session (``solver.session``: one context, asked-again queries answered from its memo)."""
  with session(): return _prove_rule(pattern, fn, dtype, limit, timeout_ms)


def _prove_rule(pattern: UPat, fn: Callable[..., UOp | None], dtype: DType, limit: int, timeout_ms: int) -> Verdict:
  try: holes = _constant_holes(pattern, dtype)
  except Inapplicable as e: return Verdict("inapplicable", str(e))
  except NoLeftSide as e: return Verdict("unknown", f"no left side: {e}")
  rule = PatternMatcher([(pattern, fn, "rule")], name="prove")
  v = _prove_symbolic(pattern, rule, dtype, limit, timeout_ms)
  if v.status != "unknown" or not v.reason.startswith(("the symbolic run cannot follow", "the rule fired on no left side")): return v
  edge = _prove_at_edge_values(pattern, rule, dtype, holes, limit, timeout_ms)
  if edge.status != "unknown": return edge
  return v if v.reason.startswith("the symbolic run") else edge


def rule_status(by_dtype: dict[DType, Verdict]) -> str:
  """One status for a rule over its dtypes: refuted at any, proved at all (and at least one), else unknown."""
  statuses = [v.status for v in by_dtype.values()]
  if "refuted" in statuses: return "refuted"
  return "proved" if statuses and all(s == "proved" for s in statuses) else "unknown"


def describe(v: Verdict) -> str:
  """One line: the status, the instance, the counterexample and its replay."""
  where = f" on {show(v.lhs, LENGTHS.message)} -> {show(v.rhs, LENGTHS.message)}" if v.lhs is not None and v.rhs is not None else ""
  ce = f" at {v.counterexample}" if v.counterexample else ""
  seen = f" (run(): {v.replay[0]} vs {v.replay[1]})" if v.replay else ""
  return f"{v.status}{where}{ce}{seen}: {v.reason}"
