"""``uopc check-rules``: every rule of a rule set against compiled C on random instances, bit for bit.

>>> from uopc.cli.commands import COMMANDS
>>> [c.name for c in COMMANDS if c.target.startswith('uopc.cli.commands.check_rules:')]
['check-rules']
"""
from __future__ import annotations

import argparse

from uopc.cli.budget import enter, shielded
from uopc.cli.support import EXIT_BOUND, EXIT_FAILED, EXIT_OK, CLIError, bar_is_up, progress_bar, write_out


def cmd_check_rules(args: argparse.Namespace) -> int:
  if args.terminates:   # a proof of termination, not of soundness (uopc.cli.terminates)
    from uopc.cli.terminates import cmd_terminates
    return cmd_terminates(args)
  from uopc.backend.errors import BackendError
  from uopc.backend.soundness import check_rules
  pm = args.rules.pm
  bar = progress_bar(len(pm.rules) + 1, "step", "check-rules")

  def progress(what: str, done: int, total: int) -> None:   # a step per rule, per C file, then the shrinking
    bar.total, bar.n = total, done
    bar.set_postfix_str(what[:60], refresh=False)
    if bar_is_up(bar): bar.refresh()   # drawn at every step once past its delay: compiling is most of the time

  enter("search")   # the checks are the search: --timeout counts them, not the start-up (uopc.cli.budget)
  try: report = check_rules(pm, samples=args.samples, inputs=args.inputs, seed=args.seed, progress=progress)   # SIGTERM: the budget's
  except BackendError as e: raise CLIError(f"check-rules: {e}", EXIT_FAILED) from None
  finally: bar.close()
  with shielded(): write_out(report.table() + "\n")   # printed whole, even after a bound stopped the check
  if report.stopped: return EXIT_BOUND
  return EXIT_FAILED if report.unsound or report.bad else EXIT_OK
