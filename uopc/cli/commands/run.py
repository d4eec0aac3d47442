"""``uopc run``: the value of a closed program, by rewriting (``--backend c``: compiled by the C backend).

>>> import argparse, contextlib, io
>>> out = io.StringIO()
>>> with contextlib.redirect_stdout(out): code = cmd_run(argparse.Namespace(file="examples/vector.uir", param=[], backend="python", max_steps=None))
>>> code, out.getvalue()
(0, '[11, 42, 93]\\n')
"""
from __future__ import annotations

import argparse

from uopc.cli.support import EXIT_FAILED, EXIT_OK, PROGRAM_FAILURES, CLIError, bind_cli_params, load_program, max_steps_for, program_failed, write_out
from uopc.evaluate import UndefinedError, run, to_python


def cmd_run(args: argparse.Namespace) -> int:
  if args.backend == "c":
    from uopc.cli.commands.backend import cmd_run_c   # lazy: the engine never imports the backend
    return cmd_run_c(args)
  prog = bind_cli_params(load_program(args.file), args.param, args.file)
  try: value = to_python(run(prog, max_steps_for(prog, args.max_steps)))
  except UndefinedError as e: raise CLIError(f"{args.file}: runtime error: {e}", EXIT_FAILED) from None   # as --backend c says it
  except (*PROGRAM_FAILURES, ValueError) as e: raise program_failed(args.file, e) from None
  write_out(repr(value) + "\n")   # a Python literal: [11, 42, 93], -0.0, nan
  return EXIT_OK
