"""``uopc simplify``: the canonical normal form of a program, as ``.uir`` (``--format json|html``: every firing)."""
from __future__ import annotations

import argparse

from uopc.cli.support import EXIT_OK, PROGRAM_FAILURES, load_program, max_steps_for, program_failed, uopc_rules, write_out
from uopc.cli.reports.firings import rewrite_report
from uopc.rewrite import graph_rewrite
from uopc.uir import to_uir


def cmd_simplify(args: argparse.Namespace) -> int:
  uopc_rules(args, "simplify")   # the canonical engine runs uopc's rules only
  prog = load_program(args.file)
  if args.format != "uir": return rewrite_report(prog, args, "simplify")
  try: out = graph_rewrite(prog, args.rules.pm, max_steps=max_steps_for(prog, args.max_steps))
  except PROGRAM_FAILURES as e: raise program_failed(args.file, e) from None
  write_out(to_uir(out))
  return EXIT_OK
