"""``uopc check CORPUS [--rules tinygrad:symbolic] [--baseline FILE]``: every graph of a corpus explored in every rewrite
order, and what was found, grouped by cause (``uopc.corpus.check``).

Each graph gets its own budget (``--max-states``, ``--max-depth``, ``--graph-timeout``); a graph it does not decide is
counted, not a failure. ``--baseline FILE`` writes the findings' keys to FILE when it does not exist, else compares
with it: only findings not in it are new, and only new ones fail (exit 1), so a CI job fails when a change brings a new
cause, not on the ones known. ``--update-baseline`` rewrites FILE with the findings of this run. A run that writes the
baseline exits 0 (its findings are now the known ones); only a whole check writes one.

>>> from uopc.cli.commands import COMMANDS
>>> [c.name for c in COMMANDS if c.target.startswith('uopc.cli.commands.check:')]
['check']
"""
from __future__ import annotations

import argparse
import functools
import json
import os
import sys
from typing import Any

from uopc.cli.budget import LIMITS, bounded, enter, shielded, stopped
from uopc.cli.support import EXIT_BOUND, EXIT_FAILED, EXIT_OK, CLIError, progress_bar, write_file, write_out

BASELINE_VERSION = 1


def cmd_check(args: argparse.Namespace) -> int:
  from uopc.corpus.check import check_corpus, resolve
  from uopc.corpus.format import CorpusError, load, read_header
  try:
    entries = load(args.corpus)
    header = read_header(args.corpus)
  except CorpusError as e: raise CLIError(f"uopc check: {e}") from None
  spec = args.rules.spec if args.rules is not None else None
  sets: dict[str, Any] = resolve(entries) if spec is None else {spec: args.rules.pm}
  known = _read_baseline(args.baseline) if args.baseline and os.path.exists(args.baseline) and not args.update_baseline else None
  enter("search")
  with shielded(), progress_bar(len(entries), "graph", "checking") as bar:
    report = check_corpus(entries, spec, max_states=args.max_states, max_depth=args.max_depth, timeout=args.graph_timeout,
                          bindings=args.bindings, seed=args.seed, limits=LIMITS, progress=bar.update, stop=stopped, rule_sets=sets,
                          run=lambda fn: bounded(fn, None, grace=True), cycles=args.cycles, jobs=args.jobs)
  if args.minimize: _minimize(report, entries, sets, spec)
  new, wrote = None, False
  if known is not None:
    from uopc.corpus.check import mark_new
    new = mark_new(report, known)
  elif args.baseline and report.complete:   # a baseline is written only from a whole check: its findings are then known
    _write_baseline(args.baseline, report)
    wrote = True
  data = to_json(report, args.corpus, spec, header, args, known is not None)
  with shielded():
    if args.format == "text": write_out(text_report(report, args.corpus, spec, header, args, known is not None))
    else:
      from uopc.cli.reports import html
      html.emit(argparse.Namespace(format=args.format, output=args.output, file=args.corpus), data, "check")
  if wrote: print(f"uopc check: wrote the baseline {args.baseline} ({len(report.findings)} findings)", file=sys.stderr)
  failing = new if new is not None else [] if wrote else report.findings
  if failing: return EXIT_FAILED
  return EXIT_OK if report.complete else EXIT_BOUND


def _minimize(report: Any, entries: list, sets: dict[str, Any], spec: str | None) -> None:
  """Each finding's example graph shrunk to the smallest that still shows it, with a test to paste into the rules' project,
  (``uopc.relational.analyses.minimize``); each bounded by the command's budget."""
  from uopc.relational.analyses import minimize as found
  from uopc.term import show
  for f in report.findings:
    if stopped() is not None: break
    e = entries[f.entry]
    rules = spec or e.rules
    if (pm := sets.get(rules)) is None: continue
    question = found.Finding(f.kind, engine=f.engine, error=f.error, rule=f.rule if f.engine == "explore" else None)
    try: m = bounded(functools.partial(found.minimize, e.program, pm, question, limits=LIMITS), None, grace=True)
    except ValueError: continue   # the finding does not show on its own graph alone (an order found by a bounded search)
    if m is None: continue
    f.minimized = show(m.program)
    try: f.regression = found.regression_test(m, rules)
    except ValueError: pass


def _read_baseline(path: str) -> set[str]:
  try:
    with open(path, encoding="utf-8") as f: data = json.load(f)
  except (OSError, ValueError) as e: raise CLIError(f"uopc check: --baseline {path}: {e}") from None
  if not isinstance(data, dict) or data.get("uopc-baseline") != BASELINE_VERSION or not isinstance(data.get("findings"), list):
    raise CLIError(f"uopc check: --baseline {path}: not a uopc check baseline")
  return {str(f["key"]) for f in data["findings"] if isinstance(f, dict) and "key" in f}


def _write_baseline(path: str, report: Any) -> None:
  data = {"uopc-baseline": BASELINE_VERSION, "findings": [{"key": f.key, "title": f.title} for f in report.findings]}
  write_file(path, json.dumps(data, indent=1) + "\n")


def to_json(report: Any, corpus: str, spec: str | None, header: Any, args: argparse.Namespace, compared: bool) -> dict[str, Any]:
  return {"corpus": corpus, "rules": spec or "each graph's own", "complete": report.complete, "bound": report.stopped,
          "captured_with": header.captured_with, "not_kept_at_capture": header.not_checkable,
          "budget": {"max_states": args.max_states, "max_depth": args.max_depth, "graph_timeout": args.graph_timeout},
          "graphs": report.graphs, "checked": report.checked, "states": report.states, "seconds": round(report.seconds, 3),
          "skipped": dict(report.skipped), "undecided": dict(report.undecided),
          "undecided_examples": [{"entry": i, "graph": t} for i, t in report.undecided_examples], "cyclic": report.cyclic,
          "baseline": args.baseline if compared else None,
          "findings": [f.as_json() for f in report.findings]}


def text_report(report: Any, corpus: str, spec: str | None, header: Any, args: argparse.Namespace, compared: bool) -> str:
  """The findings one cause each: its kind, what it is, how often, the smallest example and the entry that has it."""
  versions = ", ".join(f"{k} {v}" for k, v in header.captured_with.items() if k != "python")
  lines = [f"corpus: {corpus}: {report.graphs:,} graphs" + (f" (captured with {versions})" if versions else ""),
           f"rules: {spec or 'each graph its own'}",
           f"checked {report.checked:,} graphs, {report.states:,} states in {report.seconds:.1f} s "
           f"(each at most {args.max_states:,} states, depth {args.max_depth}, {args.graph_timeout:g} s)"]
  new = [f for f in report.findings if f.new] if compared else report.findings
  head = f"{len(report.findings)} finding{'s' * (len(report.findings) != 1)}"
  if compared: head += f", {len(new)} new (not in the baseline {args.baseline})"
  lines.append(head + (":" if report.findings else ""))
  for f in report.findings:
    mark = "NEW " if compared and f.new else ""
    count = f"{f.steps:,} steps in {f.graphs:,} graph{'s' * (f.graphs != 1)}" if f.steps != f.graphs else f"{f.graphs:,} graph{'s' * (f.graphs != 1)}"
    lines.append(f"  {mark}{f.kind}: {f.title}: {count}")
    lines.append(f"    e.g. {f.example}")
    lines.append(f"    reproducer: line {f.entry + 2} of the corpus ({f.program_size} nodes)" +
                 (f"; minimized: {f.minimized}" if f.minimized else ""))
    if f.regression: lines.extend("      " + t for t in f.regression.rstrip().splitlines())
  if report.undecided:
    lines.append(f"undecided: {sum(report.undecided.values()):,} graphs a bound stopped ("
                 + ", ".join(f"{k} {v:,}" for k, v in report.undecided.items()) + "): their findings may be incomplete")
    for i, t in report.undecided_examples[:3]: lines.append(f"    e.g. line {i + 2}: {t}")
  if report.cyclic and not args.cycles:
    many = report.cyclic != 1
    lines.append(f"cycles: {report.cyclic:,} graph{'s' * many} {'have' if many else 'has'} orders that go round a cycle with a way out "
                 "(--cycles: findings)")
  for why, n in report.skipped.items(): lines.append(f"skipped: {n:,} graphs: {why}")
  if header.not_checkable:
    lines.append(f"not kept at capture: {sum(header.not_checkable.values()):,} graphs (not expressions the explorer takes)")
  if not report.complete: lines.append(f"incomplete: stopped by {LIMITS.describe(report.stopped)} after {report.checked:,} of "
                                       f"{report.graphs:,} graphs")
  return "\n".join(lines) + "\n"
