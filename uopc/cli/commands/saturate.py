"""``uopc saturate``: the cheapest graph equal to a program under the rules (equality saturation).

``uopc saturate prog.uir [--rules R] [--cost C] [--format text|json]`` saturates the
program's e-graph with the rules (``uopc.egraph``), extracts the cheapest graph under
the cost, and prints it with its cost, the canonical engine's result and its cost,
the saturation statistics, and whether directed rewriting reaches the best graph
(``reachable``: yes with a path, no, or unknown when the search hit its bound): the
e-graph proves equalities, it does not promise a rewrite sequence.

Its front end sits with the canonical engine's commands; the reachability check and the path it prints are the
explorer's (``uopc.relational.analyses.search``, ``uopc.cli.reports.exploration``).
"""
from __future__ import annotations

import argparse
from typing import Any

from uopc.cli.budget import LIMITS, bounded, shielded, stopped, stopped_text
from uopc.cli.support import EXIT_BOUND, EXIT_OK, CLIError, load_program, uopc_rules
from uopc.cli.reports.html import emit
from uopc.cli.reports.stopped import write_nothing_found
from uopc.cli.explore_support import canonical_line, canonical_of, marked_if_cut, step_lines, steps_word, term_text

def reachability(prog: Any, graph: Any, pm: Any, max_states: int) -> tuple[bool | None, list[Any], int, str | None]:
  """Whether directed rewriting reaches ``graph`` from ``prog`` (None: not known within the bound), a path, graphs searched,
  and the bound that stopped the search."""
  from uopc.relational.analyses.search import Target, search
  r = search(prog, Target.graph(graph), pm, max_states=max_states, limits=LIMITS)
  return (True if r.found else None if r.bound is not None else False), r.path, r.searched, r.bound


def cmd_saturate(args: argparse.Namespace) -> int:
  from uopc.cost import CostError
  from uopc.egraph import saturate
  prog, pm, cost = load_program(args.file), uopc_rules(args, "saturate"), args.cost   # the e-graph matches uopc's patterns only
  with shielded():   # only the bounded work can be interrupted: the report is whole
    try:
      r = bounded(lambda: saturate(prog, pm, cost, max_iterations=args.max_iterations, max_enodes=args.max_enodes,
                                   timeout=args.timeout), None, grace=True)
      if r is None:   # a rule call that never returned
        if args.format == "text": print(f"best: none ({stopped_text()})")
        else: write_nothing_found(args, prog)
        return EXIT_BOUND
      canon, canon_cost, error = canonical_of(prog, args, cost)
    except CostError as e: raise CLIError(str(e)) from None
    reach = bounded(lambda: reachability(prog, r.best, pm, args.max_states), None, grace=True) or (None, [], 0, stopped())
    return _report(prog, args, r, canon, canon_cost, error, *reach)


def _report(prog: Any, args: argparse.Namespace, r: Any, canon: Any, canon_cost: Any, error: str | None,
            reachable: bool | None, path: list[Any], searched: int, reach_bound: str | None) -> int:
  from uopc.cli.reports.exploration import NodeTable, steps_json, stopped_by, with_nodes   # deferred: it imports the explorer
  cost = args.cost
  conflicts = [f"{term_text(a)} = {term_text(b)}" for a, b in dict.fromkeys(r.egraph.conflicts)]
  if args.format in ("json", "html"):
    table = NodeTable()   # the path's graphs, each distinct node once (format 2)
    emit(args, marked_if_cut(with_nodes({"program": term_text(prog), "rules": args.rules.spec, "cost_function": cost.name,
                "best": term_text(r.best), "cost": r.cost, "canonical": term_text(canon),
                "canonical_cost": canon_cost, "canonical_error": error, "complete": r.complete, "stop": r.stop,
                "stopped_by": stopped_by(None if r.complete else r.stop, args),
                "reachable": reachable, "path": steps_json(path, table) if reachable else None, "reach_searched": searched,
                "reach_stopped_by": stopped_by(reach_bound, args),
                "iterations": r.iterations, "enodes": r.enodes, "eclasses": r.eclasses, "applied": r.applied,
                "matches": r.matches, "rejected": r.rejected, "conflicts": conflicts, "native": r.native,
                "elapsed": round(r.elapsed, 4)}, table)), "saturate")
  else:
    print(f"program: {term_text(prog)}   (cost {cost.of(prog):g})")
    print(f"rules: {args.rules.spec}; cost: {cost.name}")
    print(f"best: {term_text(r.best)}   (cost {r.cost:g})")
    print(canonical_line(canon, canon_cost, error))
    if reachable: print(f"reachable: yes, by rewriting ({steps_word(len(path))}){':' if path else ''}")
    elif reachable is False: print(f"reachable: no, only equal (all {searched} reachable graphs searched)")
    else: print(f"reachable: unknown ({_unknown_why(searched, reach_bound, args)})")
    for line in step_lines(path): print(line)
    stop = "saturated" if r.complete else f"stopped by {stopped_by(r.stop, args)}"
    print(f"saturation: {stop} after {r.iterations} iteration{'s' * (r.iterations != 1)}; {r.enodes} e-nodes in "
          f"{r.eclasses} e-classes; {r.applied} rule results added ({r.matches} matches, {r.rejected} rejected)")
    if conflicts: print(f"conflicts: the rules claim {', '.join(conflicts)}; refused (constants are compared bit for bit)")
  return EXIT_OK if r.complete else EXIT_BOUND


def _unknown_why(searched: int, bound: str | None, args: argparse.Namespace) -> str:
  """Why reachability is unknown: the graphs searched and the bound that stopped the search (the time's is not --max-states).

  >>> _unknown_why(3, "max_states", argparse.Namespace(max_states=3)), _unknown_why(0, "timeout", argparse.Namespace(timeout=2))
  ('not among the first 3 graphs; --max-states 3', 'not searched: stopped by --timeout 2 s')
  """
  from uopc.cli.reports.exploration import stopped_by   # deferred: it imports the explorer
  if bound == "max_states" or bound is None: return f"not among the first {searched} graphs; --max-states {args.max_states}"
  return f"{f'not among the first {searched} graphs' if searched else 'not searched'}: stopped by {stopped_by(bound, args)}"
