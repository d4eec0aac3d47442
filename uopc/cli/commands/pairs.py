"""``uopc explore pairs [RULESET]``: the critical pairs of a rule set, joinable or not, with witnesses.

RULESET is ``symbolic`` (default), ``fold``, ``evaluate``, a sum (``symbolic+evaluate``),
``module:attr`` naming a ``PatternMatcher`` (uopc's or tinygrad's: ``tinygrad:symbolic``), or
``path/to/file.py:attr`` (loaded from the file, so your rules need not be importable). Text
output lists every pair that is not joinable (with the verdict on its two results: semantic, with an
input where they differ; syntactic, equal for all inputs, proved; no difference found; or unknown:
``uopc.smt.classify``), raised or is undecided, with its witness; ``--all`` adds the joinable ones; then
the rules that could not be analyzed, with why; the last line is the summary. ``--format json``
prints ``pairs``, ``skipped_rules`` (``{"rule", "reason"}``) and ``summary``.

Exit codes: the command's row of ``uopc.cli.commands.COMMANDS`` (its ``--help`` ends with them); 3 only
when no pair is worse than undecided, and an interrupt prints the pairs checked so far.

>>> from uopc.cli.commands import COMMANDS
>>> [c.name for c in COMMANDS if c.target.startswith('uopc.cli.commands.pairs:')]
['explore pairs']
"""
from __future__ import annotations

import argparse
import sys
from typing import Any, TextIO

from uopc.cli.explore_support import term_text
from uopc.cli.budget import LIMITS, bounded, shielded, stopped_text
from uopc.cli.reports.stopped import write_nothing_found
from uopc.cli.support import CLIError, EXIT_BOUND, EXIT_FAILED, EXIT_OK, bar_to, isatty, progress_bar


def cmd_pairs(args: argparse.Namespace) -> int:
  with shielded(): return _pairs(args)   # only critical_pairs can be interrupted: the report is whole


def _pairs(args: argparse.Namespace) -> int:
  from uopc.relational.analyses.pairs import critical_pairs, has_overlaps
  from uopc.relational.ir import ir_of_rules
  if not has_overlaps(ir := ir_of_rules(args.rules.pm, args.rules.spec)[0]):
    raise CLIError(f"uopc: {args.rules.spec}: critical pairs of {ir.name} rule sets are not computed")
  bar = progress_bar(None, "pair", "critical pairs") if isatty(sys.stderr) else None
  def progress(done: int, total: int) -> None:
    if bar is not None:
      bar.total = total
      bar_to(bar, done)
  try:
    report = bounded(lambda: critical_pairs(args.rules.pm, max_instances=args.max_instances, max_states=args.max_states,
                                            max_steps=args.max_steps, timeout=args.timeout, progress=progress, limits=LIMITS),
                     None, grace=True)
  finally:
    if bar is not None: bar.close()
  if report is None:   # stopped while the overlaps were computed, before any pair
    if args.format == "text": print(f"no pair checked: {stopped_text()}")
    else: write_nothing_found(args)
    return EXIT_BOUND
  if args.format in ("json", "html"):
    from uopc.cli.reports import html
    html.emit(args, to_json(report, args.rules.spec), "pairs")
  else: write_text(report, args.rules.spec, sys.stdout, show_all=args.all)
  return exit_code(report)


def exit_code(report: Any) -> int:
  """0 all joinable, 1 something not joinable or an error, 3 undecided only."""
  if report.count("not-joinable") or report.count("error"): return EXIT_FAILED
  if report.count("undecided"): return EXIT_BOUND
  return EXIT_OK


def position_text(position: tuple[int, ...]) -> str:
  """``root``, or the child indices as written in the first rule's pattern: ``0.1``.

  >>> position_text(()), position_text((0, 1))
  ('root', '0.1')
  """
  return "root" if not position else ".".join(map(str, position))


def pair_lines(p: Any) -> list[str]:
  """The text block of one pair."""
  a, b = p.rules
  where = "both at the root" if not p.position else f"the second at position {position_text(p.position)} of the first's pattern"
  head = {"not-joinable": "NOT JOINABLE", "error": "ERROR", "undecided": "UNDECIDED", "joinable": "joinable"}[p.status]
  if p.status == "joinable":
    return [f"{head}: {a}  |  {b}  ({where}): {p.how} (both apply on {p.applied} of {p.instances} instance{'s' * (p.instances != 1)})"]
  out = [f"{head}: {a}  |  {b}  ({where})", f"  overlap: {p.overlap}"]
  if p.witness is not None: out.append(f"  witness: {term_text(p.witness)}")
  if p.status == "error":
    out.append(f"  {p.error_rule} raised {p.error}")
    return out
  ra, rb = (term_text(r) for r in p.results)
  if ra is not None:
    width = max(len(ra), len(rb or ""))
    out.append(f"  -> {ra:<{width}}  by {a}")
    out.append(f"  -> {rb:<{width}}  by {b}")
    na, nb = (term_text(n) for n in p.normal_forms)
    if (na, nb) != (ra, rb) and na is not None and nb is not None: out.append(f"  normal forms: {na}  and  {nb}")
  out.append(f"  {p.how}")
  if p.verdict is not None:
    from uopc.relational.analyses.verdicts import verdict_words
    out.append(f"  {verdict_words(p.verdict, p.verdict_detail)}")
  return out


def write_text(report: Any, spec: str, out: TextIO, show_all: bool = False) -> None:
  """The text report: the problems (most serious first), the joinable pairs with ``show_all``, the summary line."""
  shown = [p for p in report.pairs if show_all or p.status != "joinable"]
  for p in shown:
    for line in pair_lines(p): print(line, file=out)
  joinable = report.count("joinable")
  if joinable and not show_all: print(f"{joinable} joinable pair{'s' * (joinable != 1)} not listed (--all lists them)", file=out)
  for rule, why in report.skipped: print(f"not analyzed: {rule}: {why}", file=out)
  if report.timed_out: print(f"{_stop_reason(report)}: the pairs not tried are undecided", file=out)
  if (line := report.verdicts_line()) is not None: print(line, file=out)
  from uopc.smt.classify import missing_z3
  if (missing := missing_z3([p.verdict_detail for p in report.pairs])) is not None: print(missing, file=out)
  print(report.summary(spec), file=out)


def _stop_reason(report: Any) -> str:
  """Why the run stopped early, from the first pair it did not try (``not tried: why``)."""
  return next((p.how.removeprefix("not tried: ") for p in report.pairs if p.how.startswith("not tried: ")), "a bound was hit")


def _bound(report: Any) -> str | None:
  """``timeout``, ``max_memory`` or ``interrupted`` (the names of ``explore --format json``), or None."""
  if not report.timed_out: return None
  why = _stop_reason(report)
  return "interrupted" if "interrupt" in why else "max_memory" if "--max-memory" in why else "timeout"


def to_json(report: Any, spec: str) -> dict[str, Any]:
  """The report as a JSON-ready dict: ``pairs`` and ``summary``."""
  pairs = [{"rules": list(p.rules), "rule_indices": list(p.rule_indices), "position": list(p.position),
            "overlap": p.overlap, "status": p.status, "how": p.how, "witness": term_text(p.witness),
            "results": [term_text(r) for r in p.results], "normal_forms": [term_text(n) for n in p.normal_forms],
            "error": p.error, "error_rule": p.error_rule, "instances": p.instances, "applied": p.applied,
            "ill_typed": p.ill_typed, "verdict": p.verdict, "verdict_detail": p.verdict_detail}
           for p in report.pairs]
  summary = {"rules": report.rules, "overlaps": len(report.pairs), "instances": report.instances,
             "ill_typed": report.ill_typed, "joinable": report.count("joinable"),
             "not_joinable": report.count("not-joinable"), "errors": report.count("error"),
             "undecided": report.count("undecided"), "untyped_overlaps": report.untyped,
             "verdicts": report.verdicts(), "verdicts_line": report.verdicts_line(),
             "seconds": round(report.elapsed, 3), "timed_out": report.timed_out, "complete": not report.timed_out,
             "bound": _bound(report),
             "line": report.summary(spec)}
  skipped = [{"rule": rule, "reason": why} for rule, why in report.skipped]
  # the marks every command's JSON has: complete, and what stopped it (the flag the pairs not tried name)
  stopped = _stop_reason(report).removeprefix("stopped by ") if report.timed_out else None
  return {"ruleset": spec, "complete": not report.timed_out, "bound": _bound(report), "stopped_by": stopped, "pairs": pairs,
          "skipped_rules": skipped, "summary": summary}
