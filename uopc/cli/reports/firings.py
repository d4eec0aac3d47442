"""``--format json|html`` of ``simplify`` and ``trace``: every firing of the canonical engine with the graph before and after."""
from __future__ import annotations

import argparse
import json

from uopc.cli.support import EXIT_FAILED, EXIT_OK, max_steps_for
from uopc.cli.reports.page import write_page, write_text
from uopc.trace import rewrite_json
from uopc.uop import UOp


def rewrite_report(prog: UOp, args: argparse.Namespace, command: str) -> int:
  """The firings as JSON (``uopc.trace.rewrite_json``) or their page; exit 1 if the rewrite failed."""
  data = rewrite_json(prog, args.rules.pm, max_steps_for(prog, args.max_steps), args.rules.spec)
  if args.format == "json": write_text(args.output, json.dumps(data, indent=1, ensure_ascii=False) + "\n")
  else: write_page(args.output, data, "trace", f"uopc {command}: {args.file}")
  return EXIT_OK if data["error"] is None else EXIT_FAILED
