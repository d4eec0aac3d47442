"""``uopc trace``: every rule lookup of the canonical engine, or (``--stats``) per-rule statistics."""
from __future__ import annotations

import argparse
import sys

from uopc.cli.support import EXIT_OK, PROGRAM_FAILURES, bind_cli_params, load_program, max_steps_for, program_failed, uopc_rules, write_out
from uopc.cli.reports.firings import rewrite_report
from uopc.rewrite import graph_rewrite
from uopc.term import show
from uopc.trace import TERM_LIMIT, StatsMatcher, TracingMatcher


def cmd_trace(args: argparse.Namespace) -> int:
  uopc_rules(args, "trace")   # the canonical engine runs uopc's rules only
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
