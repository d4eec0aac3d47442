"""Soundness of rewrite rules, tested against compiled C: ``uopc check-rules``.

For every rule of a ``PatternMatcher``: build random instances of its pattern
(``uopc.backend.instances``), apply the rule the way ``PatternMatcher.fire`` does (the
first binding whose function returns a new node), then compile the instance before and
after the rewrite to C and run both on the same random PARAM values. All kernels of all
rules go into a few C files (``Batch``), so a whole rule set costs a few compilations.

Outcomes are compared bit-exactly (``-0.0`` is not ``0.0``; NaN equals NaN). A runtime
error counts as undefined behaviour, the way ``exec_alu`` treats it: a rewrite may turn
an instance that traps into one with a value (it *refines* UB; counted, not unsound), but
not the reverse. The one unsoundness the chapter accepts, ``x + 0.0 -> x`` at
``x = -0.0``, is reported apart as *accepted*, for the chapter's own two rules only
(``uopc.symbolic.ADD_ZERO``, by identity): a rule of yours that does it is unsound.

>>> from uopc.upat import UPat
>>> from uopc.matcher import PatternMatcher
>>> x = UPat.var("x")
>>> pm = PatternMatcher([(x * 0, lambda x: x.const_like(0)), (x // 1, lambda x: x)])
>>> report = check_rules(pm, samples=10, inputs=2, seed=1)
>>> [(r.verdict, r.counterexample is not None) for r in report.rules]
[('unsound', True), ('sound', False)]
"""
from __future__ import annotations

import collections
import inspect
import math
import random
import time
from dataclasses import dataclass, field
from typing import Any, Callable

from uopc.limits import BoundHit
from uopc.dtype import dtypes
from uopc.matcher import PatternMatcher, Rule
from uopc.ops import Ops
from uopc.rewrite import ProgramError, rewrite_problem
from uopc.symbolic import ADD_ZERO
from uopc.term import show
from uopc.upat_compile import rule_results
from uopc.uop import UOp, call_params

from uopc.backend.driver import Batch, Outcome
from uopc.backend.errors import RenderError
from uopc.backend.instances import NoInstance, Synth, random_input
from uopc.backend.shrink import shrink_all
from uopc.backend.values import same_value
from uopc.lengths import LENGTHS

ACCEPTED = "x + 0.0 -> x at x = -0.0 (the chapter accepts it)"
TERM_LIMIT = LENGTHS.instance


@dataclass
class Counterexample:
  """An instance where the rewrite changed the outcome."""
  before: UOp
  after: UOp
  inputs: dict[int, Any]
  before_out: Outcome
  after_out: Outcome
  static: str = ""   # a problem visible without running (the rewrite changed dtype or shape)

  def lines(self) -> list[str]:
    def out(o: Outcome) -> str: return repr(o.value) if o.ok else f"runtime error: {o.error}"
    lines = [f"instance: {show(self.before, TERM_LIMIT)}", f"rewrite:  {show(self.after, TERM_LIMIT)}"]
    if self.static: return lines + [f"problem:  {self.static}"]
    inputs = ", ".join(f"p{s} = {v!r}" for s, v in sorted(self.inputs.items())) or "(none: a closed program)"
    return lines + [f"inputs:   {inputs}", f"before:   {out(self.before_out)}", f"after:    {out(self.after_out)}"]


@dataclass
class RuleReport:
  """What testing one rule found."""
  name: str
  location: str           # file:line of the rule's function
  built: int = 0          # distinct instances of the pattern
  applied: int = 0        # ... on which the rule rewrote
  declined: int = 0       # ... on which it returned None (does not apply)
  raised: collections.Counter = field(default_factory=collections.Counter)   # ProgramError type -> count
  error: str = ""         # the first exception of another kind: the rule's bug
  errors: int = 0         # ... and how many instances raised one
  evals: int = 0          # (instance, input) pairs compared
  refined: int = 0        # the instance trapped, its rewrite did not
  trapped: int = 0        # both trapped
  mismatches: int = 0
  accepted: int = 0       # mismatches of the accepted kind
  counterexample: Counterexample | None = None
  accepted_example: Counterexample | None = None
  reason: str = ""        # why there are no instances
  cut: bool = False       # a bound stopped the check before this rule's instances ran
  excused: bool = False   # one of the chapter's x + 0 rules: its -0.0 mismatch is accepted

  @property
  def verdict(self) -> str:
    """``raises``, ``unsound``, ``accepted``, ``sound``, ``not checked`` (a bound stopped the check first),
    ``no instances`` or ``never ran``."""
    if self.error: return "raises"
    if self.mismatches > self.accepted: return "unsound"
    if self.accepted: return "accepted"
    if self.evals: return "sound"
    if self.cut: return "not checked"
    return "no instances" if not self.applied else "never ran"

  def notes(self) -> str:
    out = []
    if self.verdict == "no instances": out.append(self.reason)
    if self.cut: out.append("stopped before its instances ran")
    if self.declined: out.append(f"declined {self.declined}")
    if self.error: out.append(f"raised {self.error} ({self.errors}x)")
    out += [f"{n} raised {k}" for k, n in sorted(self.raised.items())]
    if self.refined: out.append(f"removed a trap {self.refined}x")
    if self.trapped: out.append(f"both trapped {self.trapped}x")
    if self.verdict == "accepted": out.append(ACCEPTED)
    return "; ".join(out)


@dataclass
class Report:
  """The soundness report of a rule set."""
  rules: list[RuleReport]
  samples: int
  inputs: int
  seed: int
  seconds: float = 0.0
  kernels: int = 0
  stopped: str = ""       # what a bound (--timeout, --max-memory, an interrupt) stopped, if one did: the report is partial

  @property
  def unsound(self) -> list[RuleReport]: return [r for r in self.rules if r.verdict == "unsound"]
  @property
  def bad(self) -> list[RuleReport]:
    """The rules that raised something other than a ``ProgramError``: bugs, whatever the instance."""
    return [r for r in self.rules if r.verdict == "raises"]

  def table(self) -> str:
    """The report as text: one row per rule, then each counterexample."""
    w = max([len(r.name) for r in self.rules] + [4])
    head = f"{'rule':{w}}  {'verdict':12} {'instances':>9} {'applied':>7} {'runs':>7}  notes"
    rows = [head, "-" * len(head)]
    for r in self.rules:
      rows.append(f"{r.name:{w}}  {r.verdict:12} {r.built:9d} {r.applied:7d} {r.evals:7d}  {r.notes()}".rstrip())
    counts = collections.Counter(r.verdict for r in self.rules)
    rows.append("")
    rows.append(", ".join(f"{n} {v}" for v, n in sorted(counts.items())) +
                f"  ({self.kernels} kernels compiled and run in {self.seconds:.1f} s; seed {self.seed})")
    if self.stopped: rows.append(f"incomplete: stopped while {self.stopped}")
    for title, pick in (("unsound", lambda r: r.counterexample if r.verdict == "unsound" else None),
                        ("accepted", lambda r: r.accepted_example)):
      for r in self.rules:
        if (cx := pick(r)) is None: continue
        rows += ["", f"{title}: {r.name}  ({r.location})" + (f"  [{ACCEPTED}]" if title == "accepted" else "")]
        rows += ["  " + line for line in cx.lines()]
    return "\n".join(rows)


def is_accepted(before: UOp, b: Outcome, a: Outcome) -> bool:
  """Is this mismatch the accepted one: an f32 ``x + 0.0`` gave 0.0 where its rewrite gave -0.0?

  >>> is_accepted(UOp.param(0, dtypes.f32) + 0.0, Outcome(True, 0.0), Outcome(True, -0.0))
  True
  """
  if not (b.ok and a.ok and isinstance(b.value, float) and isinstance(a.value, float)): return False
  if not (b.value == 0.0 == a.value and math.copysign(1, b.value) > 0 > math.copysign(1, a.value)): return False
  return before.op is Ops.ADD and before.dtype is dtypes.f32 and any(
    s.op is Ops.CONST and s.arg == 0.0 and math.copysign(1, s.arg) > 0 for s in before.src)


def is_excused(rule: Rule) -> bool:
  """Whether ``rule`` is one of the chapter's own ``x + 0`` rules (``uopc.symbolic.ADD_ZERO``), the only ones the
  accepted mismatch is excused for: by the identity of its function, so a user's rule of the same shape is not."""
  return any(rule[1] is fn for _, fn, _ in ADD_ZERO)


def _apply(rule: Rule, u: UOp) -> UOp | None:
  """What the rule rewrites ``u`` to, as ``PatternMatcher.fire`` would; exceptions propagate."""
  return next(rule_results(*rule, u), None)


def _needs_ctx(fn: Callable) -> bool:
  try: return "ctx" in inspect.signature(fn).parameters
  except (TypeError, ValueError): return False


Progress = Callable[[str, int, int], None]
"""``progress(what, done, total)``: the step that starts and how many of ``total`` are done. A step is building one
rule's instances, compiling and running one C file, or shrinking (``total`` grows once the files are known)."""


def check_rules(pm: PatternMatcher, samples: int = 100, inputs: int = 24, seed: int = 0, progress: Progress | None = None) -> Report:
  """Test every rule of ``pm`` on up to ``samples`` rewritten instances, each run on ``inputs`` random inputs.

  Instances are built until ``samples`` of them were rewritten (at most ``20 * samples``
  tries per rule). Deterministic for a given ``seed``.
  """
  t0 = time.perf_counter()
  rng = random.Random(seed)
  batch = Batch()
  reports = [RuleReport(pm.name_of(rule), rule.location, excused=is_excused(rule)) for rule in pm.rules]
  pending: list[tuple[RuleReport, UOp, UOp, dict[int, Any], int, int]] = []   # (report, before, after, inputs, kb, ka)
  stopped, judged = "", False
  # A bound (--timeout, --max-memory, an interrupt) lands as BoundHit wherever the work is; what was found
  # before it is reported, marked incomplete, instead of nothing.
  try:
    n, files = len(reports), 0
    for i, (rule, r) in enumerate(zip(pm.rules, reports)):
      stopped = f"building instances of {r.name}"
      if progress: progress(r.name, i, n + 1)
      _build(rule, r, samples, inputs, rng, batch, pending)
    queries = [q for (_, _, _, values, kb, ka) in pending for q in ((kb, values), (ka, values))]
    stopped = f"compiling {len(batch.kernels)} kernels and running {len(queries)} queries"

    def ran(k: int, m: int) -> None:
      nonlocal files
      files = m
      if progress: progress(f"compiled and ran {k} of {m} C files ({len(batch.kernels):,} kernels)", n + k, n + m + 1)
    outcomes = batch.run(queries, ran) if queries else []
    _judge(pending, outcomes)
    judged = True
    stopped = "shrinking the counterexamples"
    if progress: progress(stopped, n + files, n + files + 1)
    _shrink_counterexamples(reports)
    stopped = ""
  except BoundHit:   # the rules whose instances did not all run are not checked (unless already found out)
    for r in reports: r.cut = not judged and not r.error and not r.mismatches and not r.reason
  return Report(reports, samples, inputs, seed, time.perf_counter() - t0, len(batch.kernels) if judged else 0, stopped)


def _build(rule: Rule, r: RuleReport, samples: int, inputs: int, rng: random.Random, batch: Batch,
           pending: list[tuple[RuleReport, UOp, UOp, dict[int, Any], int, int]]) -> None:
  """Build up to ``samples`` rewritten instances of one rule into ``batch``, each with its inputs in ``pending``."""
  if _needs_ctx(rule[1]):
    r.reason = "the rule needs a ctx (a rewrite context)"
    return
  synth = Synth(random.Random(rng.getrandbits(64)))
  seen: set[UOp] = set()
  for _ in range(20 * samples):
    if r.applied >= samples: break
    try: u = synth.instance(rule[0])
    except NoInstance as e:
      r.reason = f"cannot build one: {e}"
      break
    if u in seen: continue
    seen.add(u)
    r.built += 1
    try: m = _apply(rule, u)
    except ProgramError as e:   # the instance is a program that fails (an index out of bounds): not the rule's fault
      r.raised[type(e).__name__] += 1
      continue
    except Exception as e:   # anything else (NameError, UOpError: a bad node, ...) is a bug in the rule
      r.errors += 1
      r.error = r.error or f"{type(e).__name__}: {e}"
      continue
    if m is None:
      r.declined += 1
      continue
    r.applied += 1
    if (static := _static_problem(u, m)):
      r.mismatches += 1
      r.counterexample = r.counterexample or Counterexample(u, m if isinstance(m, UOp) else u, {}, Outcome(False), Outcome(False), static)
      continue
    try: kb, ka = batch.add(u), batch.add(m)
    except RenderError as e:
      r.raised[f"RenderError ({e})"] += 1
      continue
    params = call_params(u)
    for k in range(inputs if params else 1):
      # the first half walks every PARAM through the edge values (offset per PARAM), the rest is random
      values = {p.arg.slot: random_input(synth.rng, p, k + 5 * j if 2 * k < inputs else None) for j, p in enumerate(params)}
      pending.append((r, u, m, values, kb, ka))
  if not r.built and not r.reason: r.reason = "cannot build one"
  elif not r.applied and not r.reason: r.reason = "the rule declined every instance"


def _judge(pending: list[tuple[RuleReport, UOp, UOp, dict[int, Any], int, int]], outcomes: list[Outcome]) -> None:
  """Compare each instance's outcome with its rewrite's, into the rules' reports."""
  for i, (r, u, m, values, _, _) in enumerate(pending):
    b, a = outcomes[2 * i], outcomes[2 * i + 1]
    r.evals += 1
    if not b.ok:
      if a.ok: r.refined += 1
      else: r.trapped += 1
      continue
    if a.ok and same_value(a.value, b.value): continue
    r.mismatches += 1
    cx = Counterexample(u, m, values, b, a)
    if r.excused and is_accepted(u, b, a):
      r.accepted += 1
      r.accepted_example = r.accepted_example or cx
    elif r.counterexample is None: r.counterexample = cx



def _shrink_counterexamples(reports: list[RuleReport]) -> None:
  """Each run counterexample with the simplest inputs on which the rewrite still fails (``shrink``)."""
  todo = [(r, cx) for r in reports if (cx := r.counterexample) is not None and not cx.static and cx.inputs]
  if not todo: return
  batch = Batch()   # just these kernels: a round compiles them once
  kernels = [(batch.add(cx.before), batch.add(cx.after)) for _, cx in todo]

  def runs(queries: list[tuple[int, dict[int, Any]]]) -> list[tuple[Outcome, Outcome]]:
    outs = batch.run([(k, values) for i, values in queries for k in kernels[i]])
    return [(outs[2 * j], outs[2 * j + 1]) for j in range(len(queries))]

  def still_fails(cands: list[tuple[int, dict[int, Any]]]) -> list[bool]:
    return [_fails(todo[i][1].before, b, a, todo[i][0].excused) for (i, _), (b, a) in zip(cands, runs(cands))]

  shrunk = shrink_all([cx.inputs for _, cx in todo], still_fails)
  for (r, cx), values, (b, a) in zip(todo, shrunk, runs(list(enumerate(shrunk)))):
    r.counterexample = Counterexample(cx.before, cx.after, values, b, a)


def _fails(before: UOp, b: Outcome, a: Outcome, excused: bool) -> bool:
  """The instance ran and its rewrite did not give the same value (bit for bit), and not in the accepted way (``excused``)."""
  return b.ok and not (a.ok and same_value(a.value, b.value)) and not (excused and is_accepted(before, b, a))


def _static_problem(u: UOp, m: Any) -> str:
  """A rewrite that is wrong before running anything: not a node, another type, a new PARAM."""
  if (problem := rewrite_problem(u, m)) is not None: return f"the rule {problem}"
  if extra := {p.arg.slot for p in call_params(m)} - {p.arg.slot for p in call_params(u)}:
    return f"the rewrite uses PARAM slot {min(extra)}, which the instance does not have"
  return ""


