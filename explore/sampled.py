"""Sampled normal forms in ``normal-forms`` and ``order``: when a bound stops the exploration, random runs in the time left.

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
from typing import Any, TextIO

from uopc.budget import bounded, current, stopped_text
from uopc.cli_support import integer_arg, natural_int
from uopc.explore.options import TERM_LIMIT

EXPLORE_SHARE = 0.5    # of --timeout, for the exhaustive search when sampling may follow it (--help says "half")
SAMPLE_RESERVE = 0.1   # of --timeout (at most 1 s), left after sampling for the report


def sample_options(p: argparse.ArgumentParser, seed: bool = True) -> None:
  """``--samples`` (and ``--seed``, unless the command has one)."""
  p.add_argument("--samples", type=natural_int, default=None, metavar="N",
                 help="if a bound stops the exploration: N random rewrite runs, each to a normal form (default: as many as the "
                      "time left allows, until they stop finding new ones; the exploration has half of --timeout; "
                      "0: none)")
  if seed: p.add_argument("--seed", type=integer_arg, default=0, help="seed of the random runs (default 0: the output is reproducible)")


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
                                      semantics=getattr(args, "semantics", "graph"), into=out), None)
  if args.timeout is not None: ex.timeout = args.timeout   # the user's flag, for the report (the exploration had its share)
  return out


def stopped_why(s: Any) -> str:
  """Why the sampling stopped, in words."""
  if s.bound == "timeout": return "the time --timeout left"
  if s.bound is not None: return stopped_text() or s.bound
  return "--samples runs done" if s.runs == s.max_runs else "the runs stopped finding new normal forms"


def summary(s: Any, new: int) -> str:
  """``sampled 1,893 random runs (seed 0, 0.41 s, ...): 16 normal forms, 14 not found by the exploration``."""
  ends = "".join(f", {n:,} {what}" for n, what in ((s.stuck, "ended in a failing step"), (s.cut, f"gave up after {s.max_steps:,} steps")) if n)
  return (f"sampled {s.runs:,} random run{'s' * (s.runs != 1)} to a normal form (seed {s.seed}, {s.elapsed:.2f} s{ends}; "
          f"stopped: {stopped_why(s)}): {len(s.forms)} normal form{'s' * (len(s.forms) != 1)}, {new} not found by the exploration")


def extra_forms(s: Any, explored: list[Any]) -> list[Any]:
  """The sampled normal states the exploration did not reach, in the order the runs found them."""
  known = {st.graph for st in explored}
  return [f for f in s.forms if f.graph not in known]


def at_least_line(total: int) -> str:
  return f"at least {total} normal form{'s' * (total != 1)} (sampled: the space was not exhausted)"


def write_forms(forms: list[Any], first: int, out: TextIO, canonical: Any = None, indent: str = "") -> None:
  """The sampled forms numbered from ``first``, each with its run's path."""
  from uopc.explore.report import step_line
  for k, f in enumerate(forms, first):
    mark = "   <- canonical (graph_rewrite gives this one)" if canonical is not None and f.graph is canonical else ""
    print(f"{indent}[{k}] {f.term(TERM_LIMIT)}   (sampled){mark}", file=out)
    path = f.path()
    print(f"{indent}    {len(path)} step{'s' * (len(path) != 1)}{':' if path else ' (the program is normal)'}", file=out)
    for j, e in enumerate(path, 1): print(f"{indent}      {j}. {step_line(e)}", file=out)


def to_json(s: Any, complete: bool) -> dict[str, Any]:
  """``exhaustive``, ``sampled_normal_forms`` (term, path as ``replay`` takes it, the run) and ``sampling``."""
  from uopc.explore.report import steps_json
  if s is None: return {"exhaustive": complete, "sampled_normal_forms": [], "sampling": None}
  return {"exhaustive": complete,
          "sampled_normal_forms": [{"term": f.term(TERM_LIMIT), "path": steps_json(f.path()), "run": run, "strategy": how}
                                   for f, run, how in zip(s.forms, s.found_at, s.strategies)],
          "sampling": {"runs": s.runs, "seed": s.seed, "elapsed": round(s.elapsed, 4), "stuck_runs": s.stuck, "cut_runs": s.cut,
                       "stopped": stopped_why(s)}}
