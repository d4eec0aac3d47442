"""``uopc explore order prog.uir``: does the program's result depend on rule order?

Prints the canonical result (``graph_rewrite``) and every normal form the explorer
reaches (bounded by ``--max-states/--max-depth/--timeout``). For each normal form other
than the canonical one, the **fork**: the last state of the canonical engine's path
from which that normal form is still reachable, the node there, the rule the engine
applied and the competing rule, and the paths from the fork to both results; and
whether the difference is *semantic* (an input where the values differ, bit for bit: ``-0.0`` is
not ``0.0``, replayed through ``run()``), *syntactic* (equal for all inputs, proved by z3 or, for
a closed program, by evaluation), *no difference found* (not proved, and a witness search on edge
values and ``--bindings`` random bindings, seeded by ``--seed``, found none) or *unknown*
(``uopc.smt.classify``).

``--permutations`` also runs the canonical engine with the rules reversed, with each
pair of rules that compete for a node swapped, and rotated, and lists the orders that
change the result and the rules whose relative order matters.

Exit codes: the command's row of ``uopc.cli.commands.COMMANDS`` (its ``--help`` ends with them): 0 whether
one normal form or several.

>>> from uopc.cli.commands import COMMANDS
>>> [c.name for c in COMMANDS if c.target.startswith('uopc.cli.commands.order:')]
['explore order']
"""
from __future__ import annotations

import argparse
import sys
from typing import Any, TextIO

from uopc.cli.explore_support import TERM_LIMIT
from uopc.cli.budget import LIMITS, bounded, shielded, stopped, stopped_text
from uopc.cli.support import EXIT_BOUND, EXIT_FAILED, load_program, progress_bar


def cmd_order(args: argparse.Namespace) -> int:
  from uopc.cli.explore_support import program_for_rules
  prog = load_program(args.file)   # a bound here stops the command: nothing to report yet
  prog = program_for_rules(prog, args)
  with shielded(): return _order(prog, args)   # from here only the bounded work can be interrupted: the report is whole


def _order(prog: Any, args: argparse.Namespace) -> int:
  from uopc import collector
  from uopc.cli.explore_support import STREAM_BATCH, exit_code, exploration_progress
  from uopc.cli.reports.sampled import sample_after
  from uopc.relational.space.cycles import unsure_cycles
  from uopc.relational.analyses.order import diagnose_order, order_exploration, permutation_trials
  pm = args.rules.pm
  max_steps = args.max_steps   # None: the library's default, so a looping rule set fails fast (uopc.cli.options.EXPLORE_MAX_STEPS)

  def explore_order(reduce: bool) -> Any:
    def make(reduce: bool) -> Any:
      return order_exploration(prog, pm, max_states=args.max_states, max_depth=args.max_depth, timeout=args.timeout,
                               reduce=reduce, limits=LIMITS)
    # the reduction replays the canonical engine first (its path is expanded fully): a bound there means no reduction
    ex = (bounded(lambda: make(True), None, grace=True) if reduce else None) or make(False)
    with exploration_progress(ex.max_states, "exploring") as bar:
      def run() -> None:
        with collector.paused(settle=True):   # batches, as commands/explore.py streams (and settles) them: a state at a time costs half as much again
          for _ in ex.iter_ahead(STREAM_BATCH, graphs=False):
            if not bar.disable: bar.update()
      bounded(run, None, grace=True)
    return ex
  ex = explore_order(args.reduce)
  if ex.reduced and unsure_cycles(ex) and not stopped():   # a cycle through a reduced state may have an exit: explore every graph
    ex = explore_order(False)
  with progress_bar(len(ex.states), "state", "finding forks") as bar:   # a search over every state and step
    report = bounded(lambda: diagnose_order(prog, pm, bindings=args.bindings, seed=args.seed, exploration=ex, max_steps=max_steps,
                                            progress=bar.update), None, grace=True)
  cut = report is None   # the bound cut the canonical engine or the forks short: report the exploration alone
  if report is None:   # nothing more that takes time: termination too is not established
    from uopc.relational.space.termination import Termination
    report = diagnose_order(prog, pm, bindings=args.bindings, seed=args.seed, exploration=ex,
                            recorded=(None, f"not computed: {stopped_text()}", []), terminating=Termination(None, None))
  sample = sample_after(prog, ex, args)   # a bound stopped the exploration: random runs
  witness = None
  if sample is not None:
    from uopc.relational.analyses.order import sampled_witness
    witness = bounded(lambda: sampled_witness(report, sample, args.bindings, args.seed), None, grace=True)
  trials = None
  if args.permutations:
    with progress_bar(None, "order", "trying rule orders") as bar:
      trials = bounded(lambda: permutation_trials(prog, pm, report, max_orders=args.max_orders, max_steps=max_steps,
                                                  progress=bar.update), None, grace=True)
    cut = cut or trials is None
  if args.format in ("json", "html"):
    from uopc.cli.reports import html
    data = to_json(report, args.rules.spec, pm, trials, sample, witness)
    if cut: data.update(complete=False, bound=stopped(), stopped_by=(stopped_text() or "a bound").removeprefix("stopped by "))
    html.emit(args, data, "order")
  else:
    write_text(report, args.rules.spec, pm, sys.stdout, trials, sample, witness)
    if cut and trials is None and args.permutations: print(f"other rule orders: not tried ({stopped_text()})")
  if cut: return EXIT_BOUND
  return EXIT_FAILED if report.canonical is None else exit_code(ex)


def _show(u: Any) -> str:
  from uopc.term import show
  return show(u, TERM_LIMIT)


def _stuck_groups(ex: Any) -> dict[str, Any]:
  """``stuck_groups`` where a rule raised, else nothing: the order page does not draw them, so it shows them as another
  field only when there are some."""
  from uopc.cli.reports.exploration import stuck_groups_json   # deferred: it imports the explorer
  return {"stuck_groups": stuck_groups_json(ex.stuck)} if ex.stuck else {}


def _steps(edges: list[Any], out: TextIO, indent: str = "    ") -> None:
  for k, e in enumerate(edges, 1): print(f"{indent}{k}. {e.describe(TERM_LIMIT)}", file=out)


def _plural(n: int, word: str) -> str: return f"{n} {word}{'s' * (n != 1)}"


def verdict_of(report: Any, sample: Any = None, witness: Any = None) -> Any:
  """What the search established (``uopc.relational.analyses.verdicts.order_verdict``)."""
  from uopc.cli.reports.exploration import sampled_extra_forms as extra_forms
  from uopc.relational.analyses.verdicts import order_verdict
  forms = len(report.normal_forms) + (len(extra_forms(sample, report.normal_forms)) if sample is not None else 0)
  return order_verdict(report.complete, forms, len(report.forks), witness is not None, sample.runs if sample is not None else 0,
                       terminates=report.termination.terminates)


def write_text(report: Any, spec: str, pm: Any, out: TextIO, trials: list[Any] | None = None, sample: Any = None,
               witness: Any = None) -> None:
  """The text report of ``uopc explore order`` (``sample``, ``witness``: what sampled runs found after a bound)."""
  from uopc.cli.reports.exploration import (bound_text, cycles_text, engine_of, found_text, reduced_text, sampled_at_least_line, sampled_extra_forms,
                                   sampled_summary, stuck_lines)
  ex = report.exploration
  print(f"program: {_show(report.program)}", file=out)
  print(f"rules: {spec}", file=out)
  print(f"explored {len(ex.states)} states, {ex.edge_count} edges: {bound_text(ex)} ({ex.elapsed:.2f} s){reduced_text(ex)}",
        file=out)
  if report.canonical is None: print(f"canonical: none ({report.canonical_error})", file=out)
  else:
    steps = "" if not report.path.complete else f" ({_plural(len(report.path.edges), 'step')})"
    print(f"canonical ({engine_of(report.canonical)}): {_show(report.canonical)}{steps}", file=out)
    if report.path.note: print(f"  canonical path: {report.path.note}", file=out)
  forms = report.normal_forms
  print(f"{found_text(len(forms), report.complete)}{':' if forms else ''}", file=out)
  for k, s in enumerate(forms, 1):
    print(f"  [{k}] {s.term(TERM_LIMIT)}" + ("   <- canonical" if s is report.canonical_state else ""), file=out)
  extra = sampled_extra_forms(sample, forms) if sample is not None else []
  if sample is not None:
    print(sampled_summary(sample, len(extra)) + (":" if extra else ""), file=out)
    for k, f in enumerate(extra, len(forms) + 1):
      print(f"  [{k}] {f.term(TERM_LIMIT)}   (sampled)" + ("   <- canonical" if f.graph is report.canonical else ""), file=out)
    if forms or extra: print(sampled_at_least_line(len(forms) + len(extra)), file=out)
  cycles_text(ex, out)
  if report.canonical is not None and report.canonical_state is None and all(f.graph is not report.canonical for f in extra):
    print("  (the canonical result was not reached within the bounds)", file=out)
  for line in stuck_lines(ex.stuck): print(line, file=out)
  from uopc.cli.reports.termination import termination_text
  termination_text(report.termination, report.strategies, out)   # the loop, where some order never ends
  verdict = verdict_of(report, sample, witness)
  if not report.forks:
    if report.canonical is not None or verdict.kind != "unknown": print(verdict.text, file=out)
    if witness is not None: _witness_text(witness, [*forms, *extra], report.basis, out)
  else:
    from uopc.relational.analyses.verdicts import kinds_text, verdict_words
    head, loops, rest = verdict.text.partition("; and not every")   # the forks' kinds beside their count, before termination's clause
    print(f"{head} ({kinds_text([f.kind for f in report.forks])}){loops}{rest}", file=out)
    print(f"values: {report.basis}", file=out)
    for f in report.forks:
      k = forms.index(f.normal_form) + 1
      print(f"fork to [{k}] {f.normal_form.term(TERM_LIMIT)}: {verdict_words(f.kind, f.detail)}", file=out)
      print(f"  at state #{f.fork.id}: {f.fork.term(TERM_LIMIT)}", file=out)
      print(f"  node: {_show(f.node)}", file=out)
      if f.canonical_step is not None: print(f"  canonical rule: {f.canonical_step.rule}", file=out)
      else: print("  canonical rule: (the canonical path is cut short here by a bound)", file=out)
      there = "" if f.competing_step.node is f.node else f" @ {_show(f.competing_step.node)}"
      print(f"  competing rule: {f.competing_step.rule}{there}", file=out)
      print(f"  canonical path from the fork ({_plural(len(f.canonical_path), 'step')}):", file=out)
      _steps(f.canonical_path, out)
      print(f"  competing path from the fork ({_plural(len(f.competing_path), 'step')}):", file=out)
      _steps(f.competing_path, out)
  if trials is not None: _trials_text(trials, pm, out)


def _witness_text(w: Any, forms: list[Any], basis: str, out: TextIO) -> None:
  """The sampled witness: which result differs from which, how, and the run's path."""
  graphs = [s.graph for s in forms]
  k = graphs.index(w.form.graph) + 1
  against = "the canonical result" if w.other_state is None else f"[{graphs.index(w.other) + 1}], which another run reaches"
  print(f"values: {basis}", file=out)
  from uopc.relational.analyses.verdicts import verdict_words
  print(f"witness (sampled): a run reaches [{k}] {w.form.term(TERM_LIMIT)}, not {against}: {verdict_words(w.kind, w.detail)}", file=out)
  path = w.form.path()
  print(f"  the run's path ({_plural(len(path), 'step')}):", file=out)
  _steps(path, out)


def _trials_text(trials: list[Any], pm: Any, out: TextIO) -> None:
  from uopc.relational.analyses.order import order_matters
  changed = [t for t in trials if t.changed]
  print(f"other rule orders: {len(trials)} tried, {len(changed)} change the result", file=out)
  width = max((len(t.label) for t in changed), default=0)
  for t in changed:
    result = _show(t.result) if t.result is not None else f"error: {t.error}"
    print(f"  {t.label:<{width}}  -> {result}", file=out)
  matters = order_matters(trials)
  if matters:
    print("rules whose relative order matters:", file=out)
    for i, j in matters: print(f"  #{i} {pm.name_of(pm.rules[i])}  and  #{j} {pm.name_of(pm.rules[j])}", file=out)
  elif not changed: print("no order tried changes the result", file=out)


def to_json(report: Any, spec: str, pm: Any, trials: list[Any] | None = None, sample: Any = None,
            witness: Any = None) -> dict[str, Any]:
  """The report as a JSON-ready dict: ``canonical``, ``normal_forms`` (the exploration's), ``forks``, ``verdict``,
  ``exhaustive``, ``sampled_normal_forms`` and ``sampled_witness`` (and ``permutations``)."""
  from uopc.cli.reports import sampled
  from uopc.cli.reports.exploration import NodeTable, bound_flag, cycles_json, steps_json, with_nodes
  from uopc.relational.analyses.verdicts import kinds_count
  def term(u: Any) -> str | None: return None if u is None else _show(u)
  table = NodeTable()   # the paths' graphs, each distinct node once (format 2)
  def steps(path: list[Any]) -> list[dict[str, Any]]: return steps_json(path, table)
  ex = report.exploration
  forms = report.normal_forms
  data: dict[str, Any] = {
    "program": term(report.program), "rules": spec, "complete": report.complete, "bound": report.bound,
    "stopped_by": None if report.bound is None else bound_flag(report.bound, ex.max_states, ex.max_depth, ex.timeout),
    "states": len(ex.states), "canonical": term(report.canonical), "canonical_error": report.canonical_error,
    **_stuck_groups(ex),   # the rules that raised, as the text groups them
    "canonical_index": forms.index(report.canonical_state) if report.canonical_state in forms else None,
    "canonical_path": steps(report.path.edges), "canonical_path_complete": report.path.complete,
    "normal_forms": [s.term(TERM_LIMIT) for s in forms], "cycles": cycles_json(ex), "reduced": ex.reduced,
    "basis": report.basis, "fork_kinds": kinds_count([f.kind for f in report.forks]),
    "forks": [{"normal_form": f.normal_form.term(TERM_LIMIT), "normal_form_index": forms.index(f.normal_form),
               "fork_term": f.fork.term(TERM_LIMIT), "fork_state": f.fork.id, "node": term(f.node),
               "canonical_rule": None if f.canonical_step is None else f.canonical_step.rule,
               "competing_rule": f.competing_step.rule, "competing_node": term(f.competing_step.node),
               "kind": f.kind, "detail": f.detail, "canonical_path": steps(f.canonical_path),
               "competing_path": steps(f.competing_path)} for f in report.forks],
  }
  verdict = verdict_of(report, sample, witness)
  data.update(sampled.to_json(sample, report.complete), verdict=verdict.kind, verdict_text=verdict.text)
  from uopc.cli.reports.termination import termination_json
  data.update(one_normal_form=verdict.one_form, termination=termination_json(report.termination, report.strategies, steps))
  data["sampled_witness"] = None if witness is None else {
    "normal_form": witness.form.term(TERM_LIMIT), "path": steps_json(witness.form.path()), "other": term(witness.other),
    "other_is_canonical": witness.other_state is None, "kind": witness.kind, "detail": witness.detail}
  if trials is not None:
    from uopc.relational.analyses.order import order_matters
    data["permutations"] = {
      "tried": len(trials),
      "changed": [{"label": t.label, "order": list(t.order), "result": term(t.result), "error": t.error,
                   "pairs": [[pm.name_of(pm.rules[i]), pm.name_of(pm.rules[j])] for i, j in t.pairs]}
                  for t in trials if t.changed],
      "order_matters": [[pm.name_of(pm.rules[i]), pm.name_of(pm.rules[j])] for i, j in order_matters(trials)],
    }
  return with_nodes(data, table)
