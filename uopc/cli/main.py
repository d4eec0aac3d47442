"""The ``uopc`` command line: the parser made from the table of commands (``uopc.cli.commands.COMMANDS``), and ``main``.

What the commands share (exit codes, argument types, loading programs and rules) is in ``uopc.cli.support``, the
options they share in ``uopc.cli.options``. Exit codes (``docs/failure-contract.md``, ``EXIT_MEANINGS``): 0 success,
1 the program failed (out-of-bounds index, did not evaluate, rules loop) or the command found something (a
non-joinable pair, an unsound rule), 2 bad input (unreadable file, parse or type error, bad flag, a bad rule or rules
file) or output that cannot be written (a full disk, stdout closed), 3 a bound was hit before the work was complete,
128 + N an interrupt by signal N. Errors are one line on stderr, never a traceback.

The command runs under its ``Budget`` (``uopc.cli.budget``) from its start-up on: loading the rules is its first
phase, the work its ``bounded`` calls do is the search, and its output is written in the ``write`` phase (by
``uopc.cli.support``), where no time or memory bound cuts it.

>>> sorted(build_parser()._subparsers._group_actions[0].choices)
['capture', 'check', 'check-rules', 'emit-c', 'explore', 'rules', 'run', 'saturate', 'simplify', 'trace']
"""
from __future__ import annotations

import argparse
import difflib
import importlib.metadata
import signal
import sys
from typing import Callable, Sequence, Any

from uopc.cli.budget import DEFAULT_MAX_MEMORY, Budget, BoundHit
from uopc.cli.reports.stopped import Returned, write_stopped
from uopc.cli.spec import add_command
from uopc.cli.support import EXIT_BAD_INPUT, EXIT_BOUND, EXIT_CODES, EXIT_INTERNAL, EXIT_OK, CLIError, load_rules, run_command
from uopc.cli.commands import COMMANDS, GROUPS
from uopc.rewrite import RuleError
from uopc.term import memo as term_memo


def build_parser() -> argparse.ArgumentParser:
  """The ``uopc`` parser: a subcommand for each row of ``COMMANDS`` (``explore search`` under ``explore``), each help ending
  with the exit codes."""
  parser = OneLineErrorParser(prog="uopc", description="A tinygrad-style UOp compiler with a relational rewrite explorer.")
  parser.add_argument("--version", action="version", version=f"uopc {_version()}")
  sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
  groups: dict[str, Any] = {}
  for cmd in COMMANDS:
    group, _, _ = cmd.name.rpartition(" ")
    if group and group not in groups:
      summary, description = GROUPS[group]
      names = [c.name.rpartition(" ")[2] for c in COMMANDS if c.name.startswith(group + " ")]
      g = sub.add_parser(group, help=f"{summary} ({', '.join(names)})", description=description)
      groups[group] = g.add_subparsers(dest=f"{group}_command", required=True, metavar="SUBCOMMAND")
    add_command(groups[group] if group else sub, cmd)
  _set_epilog(parser)
  return parser


class OneLineErrorParser(argparse.ArgumentParser):
  """argparse, but a bad flag is one line (exit 2), as every other bad input; subcommands inherit it."""
  def error(self, message: str) -> Any:
    self.exit(EXIT_BAD_INPUT, f"{self.prog}: error: {message} (see {self.prog} --help)\n")

  def _check_value(self, action: argparse.Action, value: Any) -> None:
    # a mistyped command gets the closest one (argparse before 3.14 lists them all)
    if isinstance(action, argparse._SubParsersAction) and value not in action.choices:
      close = difflib.get_close_matches(value, list(action.choices), n=1)
      hint = f"did you mean {close[0]!r}?" if close else f"see {self.prog} --help"
      self.exit(EXIT_BAD_INPUT, f"{self.prog}: unknown command {value!r} ({hint})\n")
    super()._check_value(action, value)


def _version() -> str:
  try: return importlib.metadata.version("uopc")
  except importlib.metadata.PackageNotFoundError: return "(not installed)"


def _set_epilog(parser: argparse.ArgumentParser) -> None:
  """``EXIT_CODES`` as the epilog of ``parser`` and of every (sub)command under it."""
  todo = [parser]
  while todo:
    p = todo.pop()
    p.epilog = p.epilog or EXIT_CODES
    todo.extend(c for a in p._actions if isinstance(a, argparse._SubParsersAction) for c in a.choices.values())


def main(argv: Sequence[str] | None = None) -> int:
  """Entry point of the ``uopc`` console script."""
  args = build_parser().parse_args(argv)
  func: Callable[[argparse.Namespace], int] = args.func
  budget = Budget(getattr(args, "timeout", None), getattr(args, "max_memory", DEFAULT_MAX_MEMORY))
  code: int | None = None
  wrote = True
  command = Returned(func)   # what the command returned, if it did: a tick as it ended may raise after it
  try:
    with budget:
      load_rules(args)   # inside the budget: a rules file that hangs at import is bounded too
      with term_memo(): code = run_command(command, args)   # -o FILE for every format; each node's text made once
  except BoundHit:
    budget.close()
    if code is None: code = command.code
    if code is None:   # stopped before the command had anything to report: its output, empty, marked incomplete
      code = EXIT_BOUND
      try: wrote = write_stopped(args, budget.reason, budget.flag_text(), _phase_words(budget))
      except CLIError as e: return _fail(str(e), e.code)
      except BrokenPipeError: wrote = False   # the reader is gone: the bound's code all the same
      except (OSError, ValueError) as e: return _fail(f"uopc: cannot write the output: {e}", EXIT_BAD_INPUT)   # a full disk, stdout closed
  except CLIError as e: return _fail(str(e), e.code)
  except RuleError as e: return _fail(f"uopc: {e}", EXIT_BAD_INPUT)
  except KeyboardInterrupt: return _fail("uopc: interrupted", 128 + (budget.signum or signal.SIGINT))   # a second one: its signal
  except BrokenPipeError: return EXIT_OK
  except RecursionError: return _fail("uopc: internal error: recursion too deep (please report this)", EXIT_INTERNAL)
  except Exception as e:   # never a traceback: a one-line report of the unexpected
    return _fail(f"uopc: internal error: {type(e).__name__}: {e}", EXIT_INTERNAL)
  return _stopped_code(budget, code, wrote)


def _phase_words(budget: Budget) -> str:
  """``the start-up``: the phase a bound stopped the command in, as the output says it."""
  return f"the {budget.hit_phase or budget.phase}"


def _stopped_code(budget: Budget, code: int, wrote: bool = True) -> int:
  """A command cut short by its budget, or interrupted: one line on stderr with the time in all, output included (or
  that its format has no output for a command stopped before any result: nothing written); exit 3, or 128 + the signal
  for an interrupt. An interrupt that came once the work was done (in the report, the write, or a grace the work
  finished within) cut nothing, but is the caller's word all the same: its code and its line, never a silent 0. A
  finding (1) and bad input (2) keep their codes."""
  if budget.report_cut and code == EXIT_OK: code = EXIT_BOUND   # the work was done, but its report holds part of it
  cut = budget.cut and code == EXIT_BOUND
  interrupted = budget.reason == "interrupted" and code in (EXIT_OK, EXIT_BOUND)
  if not (cut or interrupted): return code   # the bound cut nothing short (or came during the report)
  output = "output included" if wrote else "nothing written"   # a format with no empty form (a .uir program, a value), stdout closed
  late = "" if cut else " once the work was done"
  print(f"uopc: stopped by {budget.flag_text()}{late}; {budget.elapsed:.2f} s in all, {output}", file=sys.stderr)
  if budget.reason == "interrupted": return 128 + (budget.signum or signal.SIGINT)
  return code


def _fail(message: str, code: int) -> int:
  print(message, file=sys.stderr)
  return code
