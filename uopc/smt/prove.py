"""Rules proved, not sampled: does a rewrite keep the program's value for *all* inputs?

``prove_rewrite(lhs, rhs)`` asks z3 whether some value of the PARAMs makes ``lhs`` defined (its C program does not
trap, ``encode``) and ``rhs`` undefined or different (bit for bit: -0.0 is not 0.0, NaN is NaN). The answer is a
``Verdict``: "proved" (no such input), "refuted" (with one, replayed through ``run()``), or "unknown" (with the
reason: the solver's timeout, or a counterexample that rests on an uninterpreted libm value ``run()`` does not
confirm). A rewrite may make a program *more* defined (``x * 0 -> 0`` drops a trap in ``x``), never less.

``prove_rule(pattern, fn, dtype)`` builds the rule's left side with symbolic leaves (``instance.left_sides``), runs
the rule, and proves each rewrite. Constants are not symbolic yet: a rule with constant holes is tried at each
choice of edge values for them, so it can be refuted, and otherwise is "unknown" (proved at those constants only).
A fourth status, "inapplicable", says that the pattern's leaves cannot have the dtype asked for.

>>> from uopc.dtype import dtypes
>>> from uopc.upat import UPat
>>> x = UPat.var("x")
>>> prove_rule(x * 2, lambda x: x + x, dtypes.i32).status
'proved'
>>> v = prove_rule(x + 0.0, lambda x: x, dtypes.f32)
>>> v.status, v.counterexample, v.replay
('refuted', {0: -0.0}, ('0.0', '-0.0'))
"""
from __future__ import annotations

from typing import Any, Callable, NamedTuple

from uopc.dtype import DType, dtypes, same_value
from uopc.evaluate import bind_params, run, to_python
from uopc.lengths import LENGTHS
from uopc.matcher import PatternMatcher
from uopc.ops import PARAM
from uopc.rewrite import ProgramError, RewriteLoopError
from uopc.term import show
from uopc.upat import UPat
from uopc.uop import UOp, UOpError

from uopc.smt.encode import Encoder, Encoding
from uopc.smt.instance import Inapplicable, NoLeftSide, constant_holes, left_sides
from uopc.smt.model import nest
from uopc.smt.solver import require
from uopc.smt.sorts import python_value

TIMEOUT_MS = 5000   # one solver query; past it the verdict is "unknown (timeout)"


class Verdict(NamedTuple):
  """What the prover says of one rewrite or rule."""
  status: str                                # "proved", "refuted", "unknown" or "inapplicable"
  reason: str = ""                           # why, in one line
  counterexample: dict[int, Any] | None = None   # PARAM values (refuted, or unknown with a candidate)
  lhs: UOp | None = None                     # the instance the verdict is about
  rhs: UOp | None = None
  replay: tuple[str, str] | None = None      # run() of lhs and of rhs at the counterexample


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


def prove_rewrite(lhs: UOp, rhs: UOp, timeout_ms: int = TIMEOUT_MS) -> Verdict:
  """Is ``lhs -> rhs`` sound for every value of the PARAMs (see the module's docstring)?"""
  z3 = require()
  enc = Encoder()
  left, right = enc.encode(lhs), enc.encode(rhs)
  if (left.dtype, left.shape) != (right.dtype, right.shape):
    return Verdict("refuted", f"the rewrite changes the type: {left.dtype.name}{list(left.shape)} -> {right.dtype.name}{list(right.shape)}",
                   {}, lhs, rhs)
  s = z3.Solver()
  s.set(timeout=timeout_ms)
  s.add(*left.assumptions, *right.assumptions, left.defined, _differ(z3, left, right))
  answer = s.check()
  if answer == z3.unsat: return Verdict("proved", "equal for all inputs wherever the left side is defined", None, lhs, rhs)
  if answer != z3.sat: return Verdict("unknown", f"the solver gave up: {s.reason_unknown()}", None, lhs, rhs)
  params = [n for n in {*lhs.toposort(), *rhs.toposort()} if n.op is PARAM]
  values = _values(s.model(), [left, right], params)
  shown, differs = replay(lhs, rhs, values)
  libm = sorted(op.name for op in left.uninterpreted | right.uninterpreted)
  if libm and not differs:
    return Verdict("unknown", f"a candidate counterexample rests on {', '.join(libm)}, whose values are uninterpreted, and run() "
                   "does not confirm it", values, lhs, rhs, shown)
  return Verdict("refuted", "different values" if differs else "different values (run() rewrites the left side with rules of its own)",
                 values, lhs, rhs, shown)


def prove_rule(pattern: UPat, fn: Callable[..., UOp | None], dtype: DType, limit: int = 64, timeout_ms: int = TIMEOUT_MS) -> Verdict:
  """Is the rule ``pattern -> fn`` sound at ``dtype`` (its leaves' dtype, where the pattern leaves it free)?

  Tries up to ``limit`` left sides (``instance.left_sides``: one per choice of constants; if the rule fires on none,
  left sides whose i32 leaves are small expressions); the first refuted one is the verdict. "proved" needs a left
  side that stands for every instance: leaves that are all variables, no constant holes. "inapplicable": the
  pattern's leaves cannot have ``dtype``."""
  try: holes = constant_holes(pattern, dtype)
  except Inapplicable as e: return Verdict("inapplicable", str(e))
  except NoLeftSide as e: return Verdict("unknown", f"no left side: {e}")
  rule = PatternMatcher([(pattern, fn, "rule")], name="prove")
  fired, forms, unknown = 0, False, None
  for forms in (False, True):
    for lhs in left_sides(pattern, dtype, limit, forms):
      if (rhs := rule.rewrite(lhs)) is None: continue
      fired += 1
      v = prove_rewrite(lhs, rhs, timeout_ms)
      if v.status == "refuted": return v
      if v.status == "unknown" and unknown is None: unknown = v
      if unknown is not None and fired >= 2: return unknown   # timeouts add up: two queries are enough to say so
    if fired: break
  if not fired:
    return Verdict("unknown", "the rule fired on no left side the builder made (it may look at its leaves' structure or bounds "
                   "beyond the shapes tried, or need constants it was not given)")
  if unknown is not None: return unknown
  if holes or forms:
    what = f"each of {fired} left sides" + (" with structured leaves" if forms else "")
    return Verdict("unknown", f"no counterexample: proved for all values of the variables at {what} "
                   f"({len(holes)} constant hole(s) from edge values: constants are not symbolic yet)")
  return Verdict("proved", f"equal for all {dtype.name} inputs wherever the left side is defined")


def prove_rules(pm: PatternMatcher, at: tuple[DType, ...] = dtypes.all, timeout_ms: int = TIMEOUT_MS) -> dict[str, dict[DType, Verdict]]:
  """Every rule of ``pm`` at every dtype of ``at`` where it applies: rule name -> dtype -> verdict.

  >>> from uopc.upat import UPat
  >>> v = prove_rules(PatternMatcher([(UPat.var("x", dtype=dtypes.i32) * 1, lambda x: x, "mul-1")]))
  >>> {name: {d.name: x.status for d, x in by_dtype.items()} for name, by_dtype in v.items()}
  {'mul-1': {'i32': 'proved'}}
  """
  out: dict[str, dict[DType, Verdict]] = {}
  for rule in pm.rules:
    verdicts = {d: prove_rule(rule[0], rule[1], d, timeout_ms=timeout_ms) for d in at}
    out[pm.name_of(rule)] = {d: v for d, v in verdicts.items() if v.status != "inapplicable"}
  return out


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
