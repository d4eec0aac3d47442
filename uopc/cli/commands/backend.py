"""The C backend's commands: ``uopc run --backend c``, ``uopc emit-c``, ``uopc check-rules``.

``uopc.cli`` imports this module only when one of them runs (``uopc.cli.commands.COMMANDS``, and
``uopc run``'s ``--backend c``), so the engine never depends on the backend. Exit codes: each
command's row of ``uopc.cli.commands.COMMANDS`` (``docs/failure-contract.md``).

>>> from uopc.cli.commands import COMMANDS
>>> [c.name for c in COMMANDS if c.target.startswith('uopc.cli.commands.backend:')]
['emit-c', 'check-rules']
"""
from __future__ import annotations

import argparse
import contextlib
import signal
import sys
import threading
from typing import Any, Iterator

from uopc.cli.budget import shielded
from uopc.cli.support import (EXIT_BAD_INPUT, EXIT_BOUND, EXIT_FAILED, EXIT_OK, CLIError, bar_is_up, bind_cli_params, fit_params,
                              load_program, progress_bar, write_out)
from uopc.cli.files import write_atomically
from uopc.rewrite import RewriteLoopError


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
