"""``uopc check-rules``: every rule of a rule set against compiled C on random instances, bit for bit; with ``--prove``,
every rule proved for all inputs with z3 (``uopc.smt``), or refuted with a counterexample ``run()`` and C confirm.

>>> from uopc.cli.commands import COMMANDS
>>> [c.name for c in COMMANDS if c.target.startswith('uopc.cli.commands.check_rules:')]
['check-rules']
"""
from __future__ import annotations

import argparse
import json
import os
from typing import Any, Callable

from uopc.cli.budget import enter, shielded
from uopc.cli.support import EXIT_BAD_INPUT, EXIT_BOUND, EXIT_FAILED, EXIT_OK, CLIError, bar_is_up, progress_bar, write_out


def _progress(bar: Any) -> Callable[[str, int, int], None]:
  def progress(what: str, done: int, total: int) -> None:   # a step per rule, per C file, then the shrinking
    bar.total, bar.n = total, done
    bar.set_postfix_str(what[:60], refresh=False)
    if bar_is_up(bar): bar.refresh()   # drawn at every step once past its delay: compiling is most of the time
  return progress


def cmd_check_rules(args: argparse.Namespace) -> int:
  if args.prove and args.terminates: raise CLIError("check-rules: --prove and --terminates are two checks: give one")
  if args.format != "text" and not (args.prove or args.terminates):
    raise CLIError("check-rules: --format json needs --prove or --terminates (the soundness check prints a table)")
  if args.prove: return _prove(args)
  if args.terminates:   # a proof of termination, not of soundness (uopc.cli.terminates)
    from uopc.cli.terminates import cmd_terminates
    return cmd_terminates(args)
  from uopc.backend.errors import BackendError
  from uopc.backend.soundness import check_rules
  pm = args.rules.pm
  bar = progress_bar(len(pm.rules) + 1, "step", "check-rules")
  enter("search")   # the checks are the search: --timeout counts them, not the start-up (uopc.cli.budget)
  try: report = check_rules(pm, samples=args.samples, inputs=args.inputs, seed=args.seed, progress=_progress(bar))   # SIGTERM: the budget's
  except BackendError as e: raise CLIError(f"check-rules: {e}", EXIT_FAILED) from None
  finally: bar.close()
  with shielded(): write_out(report.table() + "\n")   # printed whole, even after a bound stopped the check
  if report.stopped: return EXIT_BOUND
  return EXIT_FAILED if report.unsound or report.bad else EXIT_OK


PROVE_WORKERS = min(2, os.cpu_count() or 1)   # each rule in a process of its own, this many at once


def _prove(args: argparse.Namespace) -> int:
  """``--prove``: exit 1 if a rule is refuted (the chapter's accepted x + 0 at -0.0 aside), 3 if a bound stopped the
  proofs (the rules proved so far are printed), else 0: every rule proved, or unknown with its reason."""
  from uopc.smt.solver import MISSING, available
  if not available(): raise CLIError(f"check-rules --prove: {MISSING}", EXIT_BAD_INPUT)
  from uopc.backend.errors import BackendError
  from uopc.smt.report import prove_rules
  pm = args.rules.pm
  bar = progress_bar(len(pm.rules) + 1, "rule", "check-rules --prove")
  enter("search")
  try: report = prove_rules(pm, progress=_progress(bar), workers=PROVE_WORKERS)
  except BackendError as e: raise CLIError(f"check-rules --prove: the C replay failed: {e}", EXIT_FAILED) from None
  finally: bar.close()
  text = json.dumps(report.to_json(), indent=1, ensure_ascii=False) if args.format == "json" else report.table()
  with shielded(): write_out(text + "\n")
  if report.stopped: return EXIT_BOUND
  return EXIT_FAILED if report.refuted else EXIT_OK
