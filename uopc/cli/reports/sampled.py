"""Sampled normal forms in ``normal-forms`` and ``order``: when a bound stops the exploration, a fixed number of random runs.

Their text is part of the reports (``uopc/cli/reports/exploration.py``: ``sampled_summary``, ``sampled_forms_text``, ...), which
this module builds on; the JSON keys are made here.

If the exploration stops at a bound (any bound: ``--max-states``, ``--max-depth``, ``--timeout``), ``sample_after`` runs the
random strategies of ``uopc.relational.analyses.sample``: ``--samples`` runs, or by default runs until their steps have made
``DEFAULT_SAMPLE_GRAPHS`` graphs (their work), ending sooner once ``SAMPLE_PATIENCE`` runs in a row found no new form. These
are counts and the runs are seeded (``--seed``), so a default
run samples the same forms on a loaded machine as on an idle one; the time is not shared out (the command's ``--timeout``
is a safety net that may still stop the runs, and says so). Every form a run reaches is a real normal form with its path
(``replay`` accepts it); together with the exploration's they are a lower bound, "at least N", never a count.
"""
from __future__ import annotations

import argparse
from typing import Any

from uopc.cli.budget import LIMITS, bounded
from uopc.cli.explore_support import TERM_LIMIT
from uopc.cli.options import DEFAULT_SAMPLE_GRAPHS, SAMPLE_PATIENCE
from uopc.cli.support import bar_to, progress_bar


def sample_after(prog: Any, ex: Any, args: argparse.Namespace) -> Any:
  """The sampled normal forms when ``ex`` stopped at a bound (a ``Sample``, maybe empty), else None: ``--samples`` runs,
  or by default runs until they made ``DEFAULT_SAMPLE_GRAPHS`` graphs, with ``SAMPLE_PATIENCE``; counts, not time (the module doc)."""
  if ex.complete or args.samples == 0: return None
  from uopc.relational.analyses.sample import Sample, sample_normal_forms
  out = Sample(args.seed)
  runs, patience, graphs = (args.samples, None, None) if args.samples is not None else (None, SAMPLE_PATIENCE, DEFAULT_SAMPLE_GRAPHS)
  # the bar counts what bounds the runs: the runs asked for, or the graphs they make (patience may end them sooner)
  bar = progress_bar(runs, "run", "sampling") if runs is not None else progress_bar(graphs, "graph", "sampling")
  def progress(s: Sample) -> None: bar_to(bar, s.runs if runs is not None else s.graphs)
  # a bound interrupts the runs where they are: ``into`` keeps what they found
  try:
    bounded(lambda: sample_normal_forms(prog, args.rules.pm, seed=args.seed, max_runs=runs, patience=patience, max_graphs=graphs,
                                        stepper=ex.stepper, semantics=getattr(args, "semantics", "graph"), into=out, limits=LIMITS,
                                        progress=progress), None)
  finally: bar.close()
  return out


def to_json(s: Any, complete: bool) -> dict[str, Any]:
  """``exhaustive``, ``sampled_normal_forms`` (term, path as ``replay`` takes it, the run) and ``sampling``."""
  from uopc.cli.reports.exploration import sampled_stopped_why, steps_json
  if s is None: return {"exhaustive": complete, "sampled_normal_forms": [], "sampling": None}
  return {"exhaustive": complete,
          "sampled_normal_forms": [{"term": f.term(TERM_LIMIT), "path": steps_json(f.path()), "run": run, "strategy": how}
                                   for f, run, how in zip(s.forms, s.found_at, s.strategies)],
          "sampling": {"runs": s.runs, "graphs": s.graphs, "seed": s.seed, "elapsed": round(s.elapsed, 4), "stuck_runs": s.stuck, "cut_runs": s.cut,
                       "stopped": sampled_stopped_why(s)}}
