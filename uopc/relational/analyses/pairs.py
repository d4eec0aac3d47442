"""Critical pairs of a rule set: where two rules overlap, and whether their results join.

For every ordered pair of rules ``(a, b)`` and every non-variable position of ``a``'s
pattern, the overlap (``uopc.relational.analyses.overlaps``: etuple unification with op, dtype
and arg domains) is instantiated with fresh PARAMs and edge constants
(``uopc.relational.analyses.pair_instances``). On each instance ``a`` is applied at the root and
``b`` at the position, each by calling its function with the bindings its pattern
makes (every binding, as the explorer does), and every two different one-step results
(a *peak*) are joined (``uopc.relational.analyses.joinable``). A pair is

- ``not-joinable``: some peak has no common reduct (the first such instance is the witness);
- ``error``: a rule raised on an instance (no non-joinable peak was found);
- ``undecided``: a bound stopped a joinability search (and nothing above was found);
- ``joinable``: every peak on every instance tried joins (``how`` says how the first did).

At the root, ``a`` is the earlier rule of the two, and a rule is also paired with
itself (a list pattern may match one node in several ways, with different results).

>>> from uopc import PatternMatcher, show, symbolic
>>> fold, x_plus_0 = symbolic.rules[0], next(r for r in symbolic.rules if symbolic.name_of(r) == "add-0.0")
>>> report = critical_pairs(PatternMatcher([fold, x_plus_0]))
>>> p = next(p for p in report.pairs if p.rules == ("fold-const", "add-0.0"))
>>> p.status, show(p.witness), [show(r) for r in p.results]
('not-joinable', 'add(-0.0, 0.0)', ['0.0', '-0.0'])
"""
from __future__ import annotations

import functools
import time
from typing import Any, Callable, Literal, NamedTuple

from uopc.limits import NO_LIMITS, BoundHit, Limits
from uopc.matcher import short_name
from uopc.relational.analyses.joinable import join
from uopc.relational.analyses.pair_instances import UopcOverlaps
from uopc.relational.analyses.verdicts import compare_results, kinds_count, kinds_text
from uopc.relational.ir import IR, UOPC, ir_of_rules
from uopc.relational.space.step import Stepper, Stuck, stepper_for

__all__ = ["PairResult", "PairStatus", "PairsReport", "critical_pairs"]

PairStatus = Literal["joinable", "not-joinable", "error", "undecided"]
_RANK = {"not-joinable": 0, "error": 1, "undecided": 2, "joinable": 3}


class PairResult(NamedTuple):
  """One critical pair: rule ``rules[0]`` at the root, ``rules[1]`` at ``position`` (child indices as the
  first rule's pattern is written; ``()`` is the root).

  ``overlap`` is the overlap term the witness instantiates (for an op set or a list of sources, the
  form the witness has; the first form when there is no witness); ``witness`` the instance that
  decided the status (None if no instance had a peak), ``results`` the two one-step results there,
  ``normal_forms`` what the canonical engine makes of them, ``error`` the message of a rule that raised (with ``error_rule``);
  ``instances`` were tried, and on ``applied`` of them both rules applied. A ``not-joinable`` pair's ``verdict`` is the
  kind of its two results (``uopc.smt.classify``): different values at an input (``semantic``), equal for all inputs,
  proved (``syntactic``), ``no-difference-found`` or ``unknown``, in the IR's own semantics over the witness's free
  variables (``IR.compare``), with ``verdict_detail`` in words.
  """
  rules: tuple[str, str]
  rule_indices: tuple[int, int]
  position: tuple[int, ...]
  overlap: str
  status: PairStatus
  how: str
  witness: Any   # a node of the rule set's IR (uopc's UOp, tinygrad's), or None
  results: tuple[Any, Any]
  normal_forms: tuple[Any, Any]
  error: str | None
  error_rule: str | None
  instances: int
  ill_typed: int
  applied: int = 0
  verdict: str | None = None          # a not-joinable pair's two results: semantic, syntactic, no-difference-found, unknown
  verdict_detail: str | None = None   # how the IR's compare decided (a binding where the values differ, ...)

  @property
  def short_rules(self) -> tuple[str, str]:
    """The two rule names, a positional one without its rule set and index (``short_name``)."""
    return tuple(short_name(r) for r in self.rules)   # type: ignore[return-value]


class PairsReport(NamedTuple):
  """Every critical pair of a rule set, most serious first, and the totals.

  ``untyped`` counts the overlaps that unify but have no well-typed instance (e.g. an
  i32 and an f32 source of one ADD): they are not pairs and are not listed.
  """
  rules: int
  pairs: list[PairResult]
  instances: int
  ill_typed: int
  elapsed: float
  timed_out: bool
  untyped: int = 0
  skipped: list[tuple[str, str]] = []   # (rule, why): the rules the IR could not analyze (no pattern instance it can build)

  def count(self, status: PairStatus) -> int:
    """How many pairs have ``status``."""
    return sum(p.status == status for p in self.pairs)

  def summary(self, name: str = "rules") -> str:
    """One line: rules, overlaps, instances, and the count of each status, and the time."""
    return (f"{name}: {self.rules} rules, {len(self.pairs)} overlaps, {self.instances} instances tried "
            f"({self.ill_typed} ill-typed skipped), {self.count('joinable')} joinable, "
            f"{self.count('not-joinable')} not joinable, {self.count('error')} errors, "
            f"{self.count('undecided')} undecided ({self.elapsed:.2f} s)")

  def verdicts(self) -> dict[str, int]:
    """How many not-joinable pairs of each kind (``verdicts.kinds_count``)."""
    return kinds_count([p.verdict for p in self.pairs if p.status == "not-joinable"])

  def verdicts_line(self) -> str | None:
    """The not-joinable pairs' values, counted by kind in words (None without a not-joinable pair):
    ``values of the 33 not-joinable pairs: 14 semantic, 19 syntactic (proved)``."""
    kinds = [p.verdict for p in self.pairs if p.status == "not-joinable"]
    if not kinds: return None
    return f"values of the {len(kinds)} not-joinable pair{'s' * (len(kinds) != 1)}: {kinds_text(kinds) or 'not compared'}"

  def _repr_html_(self) -> str:   # Jupyter (uopc.relational.notebook)
    from uopc.relational.notebook import pairs_html
    return pairs_html(self)


def overlaps_of(ir: IR, pm: Any) -> Any:
  """The overlaps of rule set ``pm`` of ``ir``: uopc's read from its ``UPat``s here (``pair_instances.UopcOverlaps``),
  another IR's by its own ``IR.overlaps``."""
  return UopcOverlaps(pm) if ir is UOPC else ir.overlaps(pm)


def has_overlaps(ir: IR) -> bool:
  """Whether ``critical_pairs`` can read ``ir``'s rule sets: uopc's, or an IR with an ``overlaps`` of its own."""
  return ir is UOPC or type(ir).overlaps is not IR.overlaps


def critical_pairs(pm: Any, *, max_instances: int = 64, max_steps: int = 10_000, max_states: int = 2_000,
                   join_timeout: float | None = None, timeout: float | None = None,
                   progress: Callable[[int, int], Any] | None = None, limits: Limits = NO_LIMITS) -> PairsReport:
  """Every critical pair of ``pm``, classified (see the module doc).

  ``pm`` is a rule set of any IR with overlaps (``IR.overlaps``: uopc's ``PatternMatcher``, tinygrad's). ``max_instances``
  bounds the instances per pair; ``max_steps`` each normalization by the canonical engine; ``max_states`` each search
  for a common reduct (a count, so a verdict does not depend on the machine's speed), and ``join_timeout`` (seconds, off
  by default) as well where given; ``timeout`` the whole run (pairs not reached are ``undecided``), as
  do the caller's ``limits`` (``uopc.limits``: a command's ``--timeout``, ``--max-memory``, interrupts), named in the
  pairs not reached as ``limits.describe`` names them. ``progress(done, total)`` is called after each pair.
  """
  t0 = time.perf_counter()
  deadline = None if timeout is None else t0 + timeout
  ir, pm = ir_of_rules(pm)
  source = overlaps_of(ir, pm)
  stepper = stepper_for(pm)
  memo: dict[Any, Any] = {}   # normal forms, shared by every pair: instances and results repeat
  names = [pm.name_of(r) for r in pm.rules]
  out: list[PairResult] = []
  total_inst = total_ill = untyped = 0
  timed_out = False
  for k, ((outer, inner, path), group) in enumerate(source.groups.items()):
    why = "the --timeout of the whole run was reached" if deadline is not None and time.perf_counter() > deadline else _stopped(limits)
    if why is None:
      try: res, ill = _check(ir, source, pm, stepper, memo, names, outer, inner, path, group, max_instances, max_steps, max_states,
                             join_timeout, limits)
      except BoundHit: why = _stopped(limits)   # the caller's bound interrupted this pair (a rule call that did not return)
    if why is not None:
      timed_out = True
      out.append(_unreached(source, names, outer, inner, path, group, why))
    else:
      total_ill += ill
      if res is None: untyped += 1
      else:
        out.append(res)
        total_inst += res.instances
    if progress is not None: progress(k + 1, len(source.groups))
  out.sort(key=lambda p: (_RANK[p.status], p.rule_indices, p.position))
  return PairsReport(len(pm.rules), out, total_inst, total_ill, time.perf_counter() - t0, timed_out, untyped, list(source.skipped))


def _stopped(limits: Limits) -> str | None:
  """``stopped by --timeout 5 s`` once the caller's bound stopped the run, else None."""
  return None if (why := limits.should_stop()) is None else f"stopped by {limits.describe(why)}"


def _rule_order(outer: int, inner: int, path: tuple[int, ...]) -> tuple[int, int]:
  """The pair's (root rule, position rule); at the root, the earlier rule first."""
  return (inner, outer) if path == () else (outer, inner)


def _unreached(source: Any, names: list[str], outer: int, inner: int, path: tuple, group: list, why: str) -> PairResult:
  a, b = _rule_order(outer, inner, path)
  return PairResult((names[a], names[b]), (a, b), path, source.text(group[0]), "undecided",
                    f"not tried: {why}", None, (None, None), (None, None), None, None, 0, 0)


def _node_at(u: Any, actual: tuple[int, ...]) -> Any:
  for k in actual: u = u.src[k]
  return u


def _results(stepper: Stepper, u: Any, node: Any, rule: int) -> list[tuple[Any, Any]]:
  """Each step of ``rule`` at ``node`` of ``u``: ``(redex, new graph or Stuck)``."""
  rs = [r for r in stepper.redexes_at(node) if r.rule_index == rule]
  if not rs: return []
  if node is u: return [(r, r.value) for r in rs]
  step = stepper.step_map(u)
  if step is not None: return [(r, step.get(r, r.value)) for r in rs]
  steps = dict(stepper.iter_big(u))
  return [(r, steps.get(r, r.value)) for r in rs]


def _check(ir: IR, source: Any, pm: Any, stepper: Stepper, memo: dict, names: list[str], outer: int, inner: int,
           path: tuple[int, ...], group: list, max_instances: int, max_steps: int, max_states: int,
           join_timeout: float | None, limits: Limits) -> tuple[PairResult | None, int]:
  """The pair of one group of overlaps and the ill-typed count; None for a pair without a well-typed instance.

  In stages: the group's instances; the most serious finding over them (``_findings``); what the pair is, then
  (``_outcome``); the witness's fresh variables renamed; and a not-joinable pair's verdict in the IR's semantics."""
  a, b = _rule_order(outer, inner, path)
  insts, ill, why = source.instances(group, max_instances)
  if not insts and why == {"no well-typed instance"}: return None, ill
  joining = functools.partial(join, pm, max_steps=max_steps, max_states=max_states, timeout=join_timeout, stepper=stepper, memo=memo,
                              limits=limits)
  best, first_join, both = _findings(stepper, insts, names, (outer, inner, a, b), joining)
  status, how, u, results, nfs, err, err_rule, shown = _outcome(best, first_join, insts, why, both, group[0])
  if u is not None:   # number (or name) the witness's fresh variables in order, and everything derived from it alike
    rename = source.renaming(u)
    u = rename(u)
    results = tuple(None if x is None else rename(x) for x in results)
    nfs = tuple(None if x is None else rename(x) for x in nfs)
  verdict = None
  if status == "not-joinable" and u is not None and results[0] is not None and results[1] is not None:
    verdict = compare_results(ir, results[0], results[1], u)   # in the IR's own semantics (tinygrad's weak ints do not wrap)
  return PairResult((names[a], names[b]), (a, b), path, source.text(shown), status, how, u, results, nfs, err, err_rule,
                    len(insts), ill, both, *(verdict or (None, None))), ill


def _findings(stepper: Stepper, insts: list, names: list[str], rules: tuple[int, int, int, int],
              joining: Callable) -> tuple[tuple | None, tuple | None, int]:
  """Over the instances, until one is not joinable: the most serious finding (``(rank, status, how, witness, results,
  normal forms, error, error's rule, overlap)``, or None), the first joinable one (``(how, witness, results, normal
  forms, overlap)``, or None), and how many instances both rules apply to."""
  outer, inner, a, b = rules
  best: tuple | None = None
  first_join: tuple | None = None
  both = 0
  for u, actual, o in insts:
    node = _node_at(u, actual)
    ra = _results(stepper, u, u if a == outer else node, a)
    rb = _results(stepper, u, node if b == inner else u, b)
    if not ra or not rb: continue
    both += 1
    if (stuck := next(((r, h) for r, h in ra + rb if type(h) is Stuck), None)) is not None:
      r, h = stuck
      if best is None or best[0] > _RANK["error"]:
        best = (_RANK["error"], "error", h.error, u, (None, None), (None, None), h.error, names[r.rule_index], o)
      continue
    done: set[tuple[Any, Any]] = set()
    for ha, hb in ((ha, hb) for _, ha in ra for _, hb in rb):
      if ha is hb or (hb, ha) in done: continue
      done.add((ha, hb))   # no result is Stuck here (checked above)
      j = joining(ha, hb)
      if j.status == "joinable":
        if first_join is None: first_join = (j.how, u, (ha, hb), j.normal_forms, o)
        continue
      if best is None or best[0] > _RANK[j.status]: best = (_RANK[j.status], j.status, j.how, u, (ha, hb), j.normal_forms, None, None, o)
      if j.status == "not-joinable": return best, first_join, both   # the most serious: nothing can outrank it
  return best, first_join, both


def _outcome(best: tuple | None, first_join: tuple | None, insts: list, why: set, both: int, shown: Any) -> tuple:
  """``(status, how, witness, results, normal forms, error, error's rule, overlap shown)`` of a pair from its findings;
  ``shown`` is the overlap to show where no witness names one."""
  if best is not None:
    _, status, how, u, results, nfs, err, err_rule, shown = best
    return status, how, u, results, nfs, err, err_rule, shown
  if first_join is not None:
    how, u, results, nfs, shown = first_join
    return "joinable", how, u, results, nfs, None, None, shown
  none = (None, (None, None), (None, None), None, None)   # no witness, results, normal forms, error or error's rule
  if not insts: return ("undecided", "cannot instantiate: " + ", ".join(sorted(w for w in why if w)), *none, shown)
  return ("joinable", "the two rules never both apply" if not both else "same result", *none, shown)
