"""The C backend's commands: ``uopc run --backend c``, ``uopc emit-c``, ``uopc check-rules``.

``uopc.cli`` imports this module lazily (``COMMAND_MODULES``, and ``cmd_run`` for
``--backend c``), so the engine never depends on the backend. Exit codes follow
``uopc.cli`` (``docs/failure-contract.md``): 0 success, 1 the program failed (runtime
error, compiler failure) or an unsound rule was found, 2 bad input (a bad rule too).

>>> import argparse
>>> sub = argparse.ArgumentParser().add_subparsers()
>>> register(sub)
>>> sorted(sub.choices)
['check-rules', 'emit-c']
"""
from __future__ import annotations

import argparse
import contextlib
import signal
import sys
import threading
from typing import Any, Iterator

from uopc.budget import shielded
from uopc.cli_support import (EXIT_BAD_INPUT, EXIT_BOUND, EXIT_FAILED, EXIT_OK, CLIError, add_bounds, bar_is_up, bind_cli_params, fit_params,
                              integer_arg, load_program, positive_int, progress_bar, add_program, add_rules, write_out)
from uopc.files import write_atomically
from uopc.rewrite import RewriteLoopError


def register(sub: Any) -> None:
  """Add ``emit-c`` and ``check-rules`` to the ``uopc`` subcommands."""
  p = sub.add_parser("emit-c", help="the C program of a .uir program",
                     description="Print the standalone C program of a .uir program (its canonical form, CALLs inlined). "
                                 "Build it with: cc -std=gnu99 -O1 -ffp-contract=off prog.c -lm; run it with the PARAM "
                                 "values as arguments (slot order, row-major) or on stdin.")
  add_program(p)
  p.add_argument("--no-simplify", action="store_true", help="lower the program as written, not simplify(program)")
  p.add_argument("-o", "--output", metavar="FILE", help="write the C source to FILE instead of stdout")
  p.set_defaults(func=cmd_emit_c)

  p = sub.add_parser("check-rules", help="test each rule's soundness against compiled C",
                     description="Build random instances of every rule's pattern, rewrite them, compile both sides to C "
                                 "and compare them bit for bit on random inputs. Exit 1 if a rule is unsound or raises.")
  add_rules(p, positional=True)
  p.add_argument("--samples", type=positive_int, default=100, metavar="N", help="rewritten instances per rule (default 100)")
  p.add_argument("--inputs", type=positive_int, default=24, metavar="K",
                 help="inputs per instance (default 24): half walk through edge values, half random")
  p.add_argument("--seed", type=integer_arg, default=0, help="random seed (default 0)")
  add_bounds(p)
  p.set_defaults(func=cmd_check_rules)


@contextlib.contextmanager
def sigterm_cleans_up() -> Iterator[None]:
  """While a backend command runs, SIGTERM raises ``SystemExit(143)`` in the main thread:
  like Ctrl-C, it unwinds, so the compiler is killed, temporary sources are removed and no
  half-installed binary is left (by default SIGTERM ends Python without any cleanup).
  """
  if threading.current_thread() is not threading.main_thread(): yield; return

  def stop(signum: int, frame: Any) -> None:
    print("uopc: terminated", file=sys.stderr)
    raise SystemExit(128 + signum)

  previous = signal.signal(signal.SIGTERM, stop)
  try: yield
  finally: signal.signal(signal.SIGTERM, previous)


def _backend_error(path: str, e: Exception) -> CLIError:
  from uopc.backend.errors import CInputError, CRuntimeError
  if isinstance(e, CInputError): return CLIError(f"{path}: --param: {e}", EXIT_BAD_INPUT)
  if isinstance(e, CRuntimeError): return CLIError(f"{path}: runtime error: {e}", EXIT_FAILED)
  return CLIError(f"{path}: {e}", EXIT_FAILED)


def cmd_run_c(args: argparse.Namespace) -> int:
  """``uopc run --backend c``: compile (cached), run, print the value like ``uopc run``."""
  from uopc.backend.driver import run_c
  from uopc.backend.errors import BackendError
  prog = load_program(args.file)
  bind_cli_params(prog, args.param, args.file)   # the same checks (and messages) as the Python backend
  try:
    with sigterm_cleans_up(): value = run_c(prog, fit_params(prog, args.param, args.file))
  except BackendError as e: raise _backend_error(args.file, e) from None
  except RewriteLoopError as e: raise CLIError(f"{args.file}: {type(e).__name__}: {e}", EXIT_FAILED) from None
  write_out(repr(value) + "\n")
  return EXIT_OK


def cmd_emit_c(args: argparse.Namespace) -> int:
  from uopc.backend.driver import program_source
  from uopc.backend.errors import BackendError
  prog = load_program(args.file)
  try: source, _ = program_source(prog, simplify=not args.no_simplify)
  except BackendError as e: raise _backend_error(args.file, e) from None
  except RewriteLoopError as e: raise CLIError(f"{args.file}: {type(e).__name__}: {e}", EXIT_FAILED) from None
  if args.output is None: write_out(source)
  else:
    try:
      with sigterm_cleans_up(): write_atomically(args.output, source)
    except OSError as e: raise CLIError(f"{args.output}: cannot write: {e.strerror or e}") from None
  return EXIT_OK


def cmd_check_rules(args: argparse.Namespace) -> int:
  from uopc.backend.errors import BackendError
  from uopc.backend.soundness import check_rules
  pm = args.rules.pm
  bar = progress_bar(len(pm.rules) + 1, "step", "check-rules")

  def progress(what: str, done: int, total: int) -> None:   # a step per rule, per C file, then the shrinking
    bar.total, bar.n = total, done
    bar.set_postfix_str(what[:60], refresh=False)
    if bar_is_up(bar): bar.refresh()   # drawn at every step once past its delay: compiling is most of the time

  try: report = check_rules(pm, samples=args.samples, inputs=args.inputs, seed=args.seed, progress=progress)   # SIGTERM: the budget's
  except BackendError as e: raise CLIError(f"check-rules: {e}", EXIT_FAILED) from None
  finally: bar.close()
  with shielded(): write_out(report.table() + "\n")   # printed whole, even after a bound stopped the check
  if report.stopped: return EXIT_BOUND
  return EXIT_FAILED if report.unsound or report.bad else EXIT_OK
