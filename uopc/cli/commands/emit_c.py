"""``uopc emit-c``: the standalone C program of a ``.uir`` program (its canonical form, CALLs inlined).

>>> from uopc.cli.commands import COMMANDS
>>> [c.name for c in COMMANDS if c.target.startswith('uopc.cli.commands.emit_c:')]
['emit-c']
"""
from __future__ import annotations

import argparse

from uopc.cli.backend_support import backend_error, sigterm_cleans_up
from uopc.cli.files import write_atomically
from uopc.cli.support import EXIT_FAILED, EXIT_OK, CLIError, load_program, write_out
from uopc.rewrite import RewriteLoopError


def cmd_emit_c(args: argparse.Namespace) -> int:
  from uopc.backend.driver import program_source
  from uopc.backend.errors import BackendError
  prog = load_program(args.file)
  try: source, _ = program_source(prog, simplify=not args.no_simplify)
  except BackendError as e: raise backend_error(args.file, e) from None
  except RewriteLoopError as e: raise CLIError(f"{args.file}: {type(e).__name__}: {e}", EXIT_FAILED) from None
  if args.output is None: write_out(source)
  else:
    try:
      with sigterm_cleans_up(): write_atomically(args.output, source)
    except OSError as e: raise CLIError(f"{args.output}: cannot write: {e.strerror or e}") from None
  return EXIT_OK
