"""Sampled normal forms in ``normal-forms`` and ``order``: when a bound stops the exploration, random runs in the time left.

Their text is part of the reports (``uopc/cli/reports/exploration.py``: ``sampled_summary``, ``sampled_forms_text``, ...), which
this module builds on; the JSON keys are made here.

The exploration gets ``EXPLORE_SHARE`` of ``--timeout`` when it may be followed by
sampling; if it stops at a bound (any bound: ``--max-states``, ``--max-depth``, the time
share), ``sample_after`` runs the random strategies of ``uopc.relational.analyses.sample``
until ``--samples`` runs, the end of the time (a ``SAMPLE_RESERVE`` is left for the
report), or the runs stop finding new forms. Every form a run reaches is a real normal
form with its path (``replay`` accepts it); together with the exploration's they are a
lower bound, "at least N", never a count.
"""
from __future__ import annotations

import argparse
from typing import Any

from uopc.cli.budget import LIMITS, bounded, current
from uopc.cli.explore_support import TERM_LIMIT

EXPLORE_SHARE = 0.5    # of --timeout, for the exhaustive search when sampling may follow it (--help says "half")
SAMPLE_RESERVE = 0.1   # of --timeout (at most 1 s), left after sampling for the report


def explore_timeout(args: argparse.Namespace) -> float | None:
  """The exploration's share of ``--timeout``: all of it when no sampling follows (``--samples 0``)."""
  if args.timeout is None or args.samples == 0: return args.timeout
  return args.timeout * EXPLORE_SHARE


def sample_after(prog: Any, ex: Any, args: argparse.Namespace) -> Any:
  """The sampled normal forms when ``ex`` stopped at a bound (a ``Sample``, maybe empty), else None."""
  if ex.complete or args.samples == 0: return None
  from uopc.relational.analyses.sample import Sample, sample_normal_forms
  out = Sample(args.seed)
  left = None
  if args.timeout is not None:
    b = current()
    spent = b.elapsed if b is not None else ex.elapsed
    left = max(0.0, args.timeout - spent - min(1.0, SAMPLE_RESERVE * args.timeout))
  # a bound interrupts the runs where they are: ``into`` keeps what they found
  bounded(lambda: sample_normal_forms(prog, args.rules.pm, seed=args.seed, max_runs=args.samples, timeout=left,
                                      patience=None if args.samples is not None else 1_000, stepper=ex.stepper,
                                      semantics=getattr(args, "semantics", "graph"), into=out, limits=LIMITS), None)
  if args.timeout is not None: ex.timeout = args.timeout   # the user's flag, for the report (the exploration had its share)
  return out


def to_json(s: Any, complete: bool) -> dict[str, Any]:
  """``exhaustive``, ``sampled_normal_forms`` (term, path as ``replay`` takes it, the run) and ``sampling``."""
  from uopc.cli.reports.exploration import sampled_stopped_why, steps_json
  if s is None: return {"exhaustive": complete, "sampled_normal_forms": [], "sampling": None}
  return {"exhaustive": complete,
          "sampled_normal_forms": [{"term": f.term(TERM_LIMIT), "path": steps_json(f.path()), "run": run, "strategy": how}
                                   for f, run, how in zip(s.forms, s.found_at, s.strategies)],
          "sampling": {"runs": s.runs, "seed": s.seed, "elapsed": round(s.elapsed, 4), "stuck_runs": s.stuck, "cut_runs": s.cut,
                       "stopped": sampled_stopped_why(s)}}
