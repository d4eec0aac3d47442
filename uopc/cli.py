"""The ``uopc`` command line: ``run``, ``simplify``, ``trace``, and the ``explore`` family.

What the commands share (exit codes, argument types, loading programs and rules) is in
``uopc.cli_support``. Exit codes (``docs/failure-contract.md``): 0 success, 1 the program failed (out-of-bounds
index, did not evaluate, rules loop) or the command found something (a non-joinable pair,
an unsound rule), 2 bad input (unreadable file, parse or type error, bad flag, a bad rule
or rules file), 3 a bound was hit before the work was complete. Errors are one line on
stderr, never a traceback.
"""
from __future__ import annotations

import argparse
import difflib
import importlib
import importlib.metadata
import json
import signal
import sys
from typing import Callable, Sequence, Any

from uopc.budget import DEFAULT_MAX_MEMORY, Budget, BoundHit
from uopc.cli_support import (EXIT_BAD_INPUT, EXIT_CODES, EXIT_BOUND, EXIT_FAILED, EXIT_OK, PROGRAM_FAILURES, CLIError, add_bounds,
                              add_max_steps, bind_cli_params, load_program, load_rules, max_steps_for, param_arg, program_failed,
                              add_program, add_rules, run_command, write_out)
from uopc.evaluate import UndefinedError, run, to_python
from uopc.rewrite import RuleError, graph_rewrite
from uopc.term import memo as term_memo, show
from uopc.trace import TERM_LIMIT, StatsMatcher, TracingMatcher, rewrite_json
from uopc.uir import to_uir
from uopc.uop import UOp

# Command groups that live outside the engine register themselves through these modules'
# ``register(subparsers)``; importing them is cheap (their heavy imports are deferred).
COMMAND_MODULES: list[str] = ["uopc.backend.cli", "uopc.explore.cli", "uopc.explore.saturate_cli"]

def cmd_run(args: argparse.Namespace) -> int:
  if args.backend == "c":
    from uopc.backend.cli import cmd_run_c   # lazy: the engine never imports the backend
    return cmd_run_c(args)
  prog = bind_cli_params(load_program(args.file), args.param, args.file)
  try: value = to_python(run(prog, max_steps_for(prog, args.max_steps)))
  except UndefinedError as e: raise CLIError(f"{args.file}: runtime error: {e}", EXIT_FAILED) from None   # as --backend c says it
  except (*PROGRAM_FAILURES, ValueError) as e: raise program_failed(args.file, e) from None
  write_out(repr(value) + "\n")   # a Python literal: [11, 42, 93], -0.0, nan
  return EXIT_OK


def cmd_simplify(args: argparse.Namespace) -> int:
  prog = load_program(args.file)
  if args.format != "uir": return rewrite_report(prog, args, "simplify")
  try: out = graph_rewrite(prog, args.rules.pm, max_steps=max_steps_for(prog, args.max_steps))
  except PROGRAM_FAILURES as e: raise program_failed(args.file, e) from None
  write_out(to_uir(out))
  return EXIT_OK


def cmd_trace(args: argparse.Namespace) -> int:
  prog = load_program(args.file)
  if args.param: prog = bind_cli_params(prog, args.param, args.file)
  if args.format != "text": return rewrite_report(prog, args, "trace")
  pm = StatsMatcher(args.rules.pm) if args.stats else TracingMatcher(args.rules.pm, out=sys.stdout)
  print(f"program: {show(prog, TERM_LIMIT)}")
  try: out = graph_rewrite(prog, pm, max_steps=max_steps_for(prog, args.max_steps))
  except PROGRAM_FAILURES as e:
    if isinstance(pm, StatsMatcher): write_out(pm.table() + "\n")   # where a looping rewrite spent its rule lookups
    raise program_failed(args.file, e) from None
  write_out(f"result: {show(out, TERM_LIMIT)}\n" + (pm.table() + "\n" if isinstance(pm, StatsMatcher) else ""))
  return EXIT_OK


def rewrite_report(prog: UOp, args: argparse.Namespace, command: str) -> int:
  """``--format json|html`` of ``simplify`` and ``trace``: every firing of the canonical engine with the graph before and after."""
  data = rewrite_json(prog, args.rules.pm, max_steps_for(prog, args.max_steps), args.rules.spec)
  from uopc.page import write_page, write_text
  if args.format == "json": write_text(args.output, json.dumps(data, indent=1, ensure_ascii=False) + "\n")
  else: write_page(args.output, data, "trace", f"uopc {command}: {args.file}")
  return EXIT_OK if data["error"] is None else EXIT_FAILED


def add_rewrite_formats(p: argparse.ArgumentParser, first: str) -> None:
  """``--format`` (``first``, json or html) and ``-o`` of ``simplify`` and ``trace``."""
  p.add_argument("--format", choices=(first, "json", "html"), default=first,
                 help=f"output format (default {first}); json and html: every firing with the graph before and after")
  p.add_argument("-o", "--output", metavar="FILE", help="write to FILE, whole or not at all (default stdout)")


def build_parser() -> argparse.ArgumentParser:
  parser = OneLineErrorParser(prog="uopc", description="A tinygrad-style UOp compiler with a relational rewrite explorer.")
  parser.add_argument("--version", action="version", version=f"uopc {_version()}")
  sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

  p = sub.add_parser("run", help="value of a closed program", description="Evaluate a program by rewriting and print its value.")
  add_program(p)
  p.add_argument("--param", action="append", default=[], type=param_arg, metavar="SLOT=VALUE", help="bind a PARAM (repeatable)")
  p.add_argument("--backend", choices=("python", "c"), default="python",
                 help="python: evaluate by rewriting (default); c: compile the simplified program with the system C compiler and run it")
  add_max_steps(p)
  add_bounds(p)
  p.set_defaults(func=cmd_run)

  p = sub.add_parser("simplify", help="canonical normal form, as .uir", description="Rewrite a program to its canonical normal form.")
  add_program(p)
  add_rules(p)
  add_max_steps(p)
  add_bounds(p)
  add_rewrite_formats(p, "uir")
  p.set_defaults(func=cmd_simplify)

  p = sub.add_parser("trace", help="each rule firing of the canonical engine", description="Print every rule lookup of graph_rewrite.")
  add_program(p)
  add_rules(p)
  p.add_argument("--param", action="append", default=[], type=param_arg, metavar="SLOT=VALUE", help="bind a PARAM first")
  p.add_argument("--stats", action="store_true", help="per-rule tries/matches/fires/time instead of the trace")
  add_max_steps(p)
  add_bounds(p)
  add_rewrite_formats(p, "text")
  p.set_defaults(func=cmd_trace)

  for module in COMMAND_MODULES: importlib.import_module(module).register(sub)
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
  try:
    with budget:
      load_rules(args)   # inside the budget: a rules file that hangs at import is bounded too
      with term_memo(): code = run_command(func, args)   # -o FILE for every format; each node's text made once
  except BoundHit:
    budget.close()
    if code is None: code = EXIT_BOUND   # stopped before the command had anything to report (else: a tick as it ended)
  except CLIError as e: return _fail(str(e), e.code)
  except RuleError as e: return _fail(f"uopc: {e}", EXIT_BAD_INPUT)
  except KeyboardInterrupt: return _fail("uopc: interrupted", 130)
  except BrokenPipeError: return EXIT_OK
  except RecursionError: return _fail("uopc: internal error: recursion too deep (please report this)", 4)
  except Exception as e:   # never a traceback: a one-line report of the unexpected
    return _fail(f"uopc: internal error: {type(e).__name__}: {e}", 4)
  return _stopped_code(budget, code)


def _stopped_code(budget: Budget, code: int) -> int:
  """A command cut short by its budget: one line on stderr with the time in all, output included;
  exit 3, or 128 + the signal for an interrupt."""
  if budget.report_cut and code == EXIT_OK: code = EXIT_BOUND   # the work was done, but its report holds part of it
  if not budget.cut or code != EXIT_BOUND: return code   # the bound cut nothing short (or came during the report)
  print(f"uopc: stopped by {budget.flag_text()}; {budget.elapsed:.2f} s in all, output included", file=sys.stderr)
  if budget.reason == "interrupted": return 128 + (budget.signum or signal.SIGINT)
  return code


def _fail(message: str, code: int) -> int:
  print(message, file=sys.stderr)
  return code
