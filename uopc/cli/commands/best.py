"""``uopc explore best``: the cheapest graph reachable by directed rewriting, with its path.

``uopc explore best prog.uir [--cost C]`` searches best first (``uopc.relational.analyses.best``)
and prints the cheapest reachable graph, its cost, the rewrite path to it, and the
canonical engine's result and its cost. ``--cost`` is ``nodes`` (distinct nodes, the
default), ``OP=W,...`` (op weights; ``*=W`` for the others) or ``file.py:fn``
(``fn(node, src_costs)``). The same cost reporting serves ``uopc saturate``.

Exit codes: the command's row of ``uopc.cli.commands.COMMANDS`` (its ``--help`` ends with them); a bound
still prints the best graph found.

>>> from uopc.cli.commands import COMMANDS
>>> [c.name for c in COMMANDS if c.target.startswith('uopc.cli.commands.best:')]
['explore best']
"""
from __future__ import annotations

import argparse
import sys
from typing import Any

from uopc.cli.reports.html import emit
from uopc.cli.reports.exploration import search_bound_text, stopped_by
from uopc.cli.reports.stopped import write_nothing_found
from uopc.cli.explore_support import canonical_line, canonical_of, marked_if_cut, step_lines, steps_word, term_text
from uopc.cli.budget import bounded, shielded, stopped_text
from uopc.cli.support import EXIT_BOUND, EXIT_OK, CLIError, load_program


def cmd_best(args: argparse.Namespace) -> int:
  from uopc.cost import CostError
  from uopc.cli.explore_support import program_for_rules
  from uopc.relational.analyses.best import best
  prog = load_program(args.file)
  prog = program_for_rules(prog, args)
  with shielded():   # only the bounded search can be interrupted: the report is whole
    try:
      r = bounded(lambda: best(prog, args.rules.pm, args.cost, max_states=args.max_states, timeout=args.timeout), None, grace=True)
      if r is None:   # a rule call that never returned
        if args.format == "text": print(f"best: none found ({stopped_text()})")
        else: write_nothing_found(args, prog)
        return EXIT_BOUND
      canon, canon_cost, error = canonical_of(prog, args, args.cost)
    except CostError as e: raise CLIError(str(e)) from None
    return _report(prog, args, r, canon, canon_cost, error)


def _report(prog: Any, args: argparse.Namespace, r: Any, canon: Any, canon_cost: Any, error: str | None) -> int:
  from uopc.cli.reports.exploration import NodeTable, steps_json, with_nodes
  from uopc.relational.analyses.best import lower_bound
  if args.format in ("json", "html"):
    table = NodeTable()   # the path's graphs, each distinct node once (format 2)
    emit(args, marked_if_cut(with_nodes({"program": term_text(prog), "rules": args.rules.spec, "cost_function": args.cost.name,
                "best": term_text(r.graph), "cost": r.cost, "path": steps_json(r.path, table),
                "canonical": term_text(canon), "canonical_cost": canon_cost, "canonical_error": error,
                "complete": r.complete, "bound": r.bound, "stopped_by": stopped_by(r.bound, args), "seen": r.seen, "expanded": r.expanded,
                "elapsed": round(r.elapsed, 4)}, table)), "best")
  else:
    print(f"program: {term_text(prog)}   (cost {args.cost.of(prog):g})")
    print(f"rules: {args.rules.spec}; cost: {args.cost.name}")
    print(f"best: {term_text(r.graph)}   (cost {r.cost:g})")
    print(f"path ({steps_word(len(r.path))}):" if r.path else "path: none (the program is the cheapest)")
    for line in step_lines(r.path): print(line)
    print(canonical_line(canon, canon_cost, error))
    proven = "proven cheapest: " + ("no graph costs less" if r.cost <= lower_bound(args.cost) else "every reachable graph was seen")
    print(f"searched: {r.seen} graph{'s' * (r.seen != 1)} ({r.expanded} expanded); "
          f"{proven if r.complete else search_bound_text(r.bound, args)}")
  sys.stdout.flush()
  return EXIT_OK if r.complete else EXIT_BOUND
