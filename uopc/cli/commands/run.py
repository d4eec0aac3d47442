"""``uopc run``: the value of a closed program, by rewriting (``--backend c``: compiled by the C backend).

>>> import argparse, contextlib, io
>>> out = io.StringIO()
>>> with contextlib.redirect_stdout(out): code = cmd_run(argparse.Namespace(file="examples/vector.uir", param=[], backend="python", max_steps=None))
>>> code, out.getvalue()
(0, '[11, 42, 93]\\n')
"""
from __future__ import annotations

import argparse

from uopc.cli.support import (EXIT_FAILED, EXIT_OK, PROGRAM_FAILURES, CLIError, bind_cli_params, fit_params, load_program, max_steps_for,
                              program_failed, write_out)
from uopc.cli.backend_support import backend_error, sigterm_cleans_up
from uopc.evaluate import UndefinedError, run, to_python
from uopc.rewrite import RewriteLoopError


def cmd_run(args: argparse.Namespace) -> int:
  if args.backend == "c":
    return _run_c(args)
  prog = bind_cli_params(load_program(args.file), args.param, args.file)
  try: value = to_python(run(prog, max_steps_for(prog, args.max_steps)))
  except UndefinedError as e: raise CLIError(f"{args.file}: runtime error: {e}", EXIT_FAILED) from None   # as --backend c says it
  except (*PROGRAM_FAILURES, ValueError) as e: raise program_failed(args.file, e) from None
  write_out(repr(value) + "\n")   # a Python literal: [11, 42, 93], -0.0, nan
  return EXIT_OK


def _run_c(args: argparse.Namespace) -> int:
  """``uopc run --backend c``: compile (cached), run, print the value like ``uopc run`` (the backend imported only here)."""
  from uopc.backend.driver import run_c
  from uopc.backend.errors import BackendError
  prog = load_program(args.file)
  bind_cli_params(prog, args.param, args.file)   # the same checks (and messages) as the Python backend
  try:
    with sigterm_cleans_up(): value = run_c(prog, fit_params(prog, args.param, args.file))
  except BackendError as e: raise backend_error(args.file, e) from None
  except RewriteLoopError as e: raise CLIError(f"{args.file}: {type(e).__name__}: {e}", EXIT_FAILED) from None
  write_out(repr(value) + "\n")
  return EXIT_OK
