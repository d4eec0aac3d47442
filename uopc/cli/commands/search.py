"""``uopc explore search``: a shortest rewrite sequence to a target, or a proof that two programs are equal.

``uopc explore search prog.uir --target 'add(mul(p0, 3), ?c)'`` prints the steps from
the program to the nearest graph matching the target, the holes' bindings, the
length and how many graphs were searched; ``--target-file t.uir`` takes a concrete
graph instead, and ``--all`` streams every match, nearest first. ``--to b.uir``
(or ``--to-term TERM``: the second program as a term, in the let form the explorer prints)
searches from both programs at once for a graph they both rewrite to.

Everything here formats what ``uopc.relational.analyses.search`` computes (``search``,
``search_all``, ``meet``): the command line and the Python API run the same code.

Exit codes: the command's row of ``uopc.cli.commands.COMMANDS`` (its ``--help`` ends with them); an interrupt
prints what was found so far, and a target that does not parse is reported as ``<target>:1:COL: message``.

>>> from uopc.cli.commands import COMMANDS
>>> [c.name for c in COMMANDS if c.target.startswith('uopc.cli.commands.search:')]
['explore search']
"""
from __future__ import annotations

import argparse
import contextlib
import sys
from typing import Any, Callable, Iterator

from uopc.cli.reports.html import emit
from uopc.cli.reports.exploration import search_bound_text, stopped_by
from uopc.cli.explore_support import TERM_LIMIT, on_cluster, step_lines, steps_word
from uopc.cli.budget import LIMITS, bounded, shielded, stopped
from uopc.cli.support import EXIT_BOUND, EXIT_FAILED, EXIT_OK, CLIError, bar_to, isatty, load_program, progress_bar
from uopc.term import show


# ---- running

@contextlib.contextmanager
def _progress(total: int | None, what: str) -> Iterator[Callable[[int], None] | None]:
  """A progress callback drawing a tqdm bar on stderr, or None when stderr is not a terminal."""
  if not isatty(sys.stderr):
    yield None
    return
  bar = progress_bar(total, "graph", what)
  try: yield lambda n: bar_to(bar, n)
  finally: bar.close()


def _bounds(args: argparse.Namespace) -> dict[str, Any]:
  return {"max_states": args.max_states, "max_depth": args.max_depth, "timeout": args.timeout, "limits": LIMITS}


def _target(args: argparse.Namespace, prog: Any) -> Any:
  from uopc.relational.logic.target import target_for
  from uopc.uir import UIRError
  if args.target_file is not None:
    graph = load_program(args.target_file)
    if type(graph) is not type(prog):
      raise CLIError(f"uopc: --target-file {args.target_file} is a {_type(graph)}, but the program is a {_type(prog)}")
    return target_for(prog, graph)
  try: return target_for(prog, args.target)
  except UIRError as e: raise CLIError(str(e)) from None


def _type(x: Any) -> str:
  from uopc.relational.ir import type_name
  return type_name(type(x))


def _term_program(text: str, prog: Any) -> Any:
  """The graph of ``--to-term``: its PARAMs take the program's types (a term does not print them)."""
  from uopc.termparse import parse_term
  from uopc.uir import UIRError
  from uopc.uop import UOp, call_params
  if type(prog) is not UOp: raise CLIError(f"uopc: --to-term is a uopc term, but the program is a {_type(prog)}: give --to file.py:attr")
  try: return parse_term(text, "<to-term>").to_uop({p.arg.slot: p for p in call_params(prog)}, "<to-term>")
  except UIRError as e: raise CLIError(str(e)) from None


def cmd_search(args: argparse.Namespace) -> int:
  from uopc.cli.explore_support import program_for_rules
  loaded = load_program(args.file)   # a bound while loading stops the command: nothing to report yet
  prog = program_for_rules(loaded, args)
  if args.to is not None or args.to_term is not None:
    if args.cluster is not None: raise CLIError(f"uopc: --cluster does not apply to {'--to' if args.to is not None else '--to-term'}")
    if args.all: raise CLIError(f"--all does not apply to {'--to' if args.to is not None else '--to-term'} (a proof needs one meeting graph)")
    other = program_for_rules(load_program(args.to) if args.to is not None else _term_program(args.to_term, loaded), args, args.to)
    with shielded(): return _cmd_meet(prog, other, args)   # only the search can be interrupted: the report is whole
  target = _target(args, prog)
  with shielded(), on_cluster(args): return _cmd_search_all(prog, target, args) if args.all else _cmd_search(prog, target, args)


def _cmd_search(prog: Any, target: Any, args: argparse.Namespace) -> int:
  from uopc.relational.analyses.search import SearchResult
  from uopc.relational.api import search
  with _progress(args.max_states, "searching") as progress:
    r = bounded(lambda: search(prog, target, args.rules.pm, progress=progress, cluster=args.cluster, **_bounds(args)), None, grace=True) \
      or SearchResult(target, None, 0, stopped(), 0.0)   # interrupted outside its exploration: nothing to keep
  if args.format != "text": emit(args, search_json(r, prog, args), "search")
  else:
    for line in search_text(r, prog, args): print(line)
  return _exit_code(r.found, r.bound, r.stuck)


def _cmd_search_all(prog: Any, target: Any, args: argparse.Namespace) -> int:
  from uopc.relational.api import search_all
  text = args.format == "text"
  matches: list[Any] = []
  if text: print(*_header(prog, target.text, args), sep="\n")
  with _progress(args.max_states, "searching") as progress:
    stream = search_all(prog, target, args.rules.pm, progress=progress, cluster=args.cluster, **_bounds(args))
    def stream_matches() -> None:
      for m in stream:
        with shielded():   # a match is printed whole
          matches.append(m)
          if text:
            for line in match_text(len(matches), m): print(line, flush=True)
    bounded(stream_matches, None, grace=True)
  bound = _stream_bound(stream)
  if text:
    n = len(matches)
    print(f"{n} match{'es' * (n != 1)}; searched {stream.searched} graph{'s' * (stream.searched != 1)}; "
          f"{search_bound_text(bound, args)}")
    from uopc.cli.reports.exploration import stuck_lines   # deferred: it imports the explorer
    for line in stuck_lines(stream.stuck): print(line)
  else:
    from uopc.cli.reports.cut import ItemCut, ListSize, until_cut
    from uopc.cli.reports.exploration import NodeTable, steps_json, with_nodes   # deferred: it imports the explorer
    table = NodeTable()   # the paths' graphs, each distinct node once (format 2)
    rows: list[dict[str, Any]] = []   # a match at a time, while the report's time and memory last (uopc.cli.reports.cut)
    cut = ItemCut(args.format, [ListSize(rows), ListSize(table.rows)])
    until_cut(({"graph": _term(m.graph), "length": m.length, "bindings": _bindings(m.bindings), "searched": m.searched,
                "path": steps_json(m.path, table)} for m in matches), cut, rows)
    data = {"program": _term(prog), "target": target.text, "rules": args.rules.spec, "found": bool(matches),
            "path": rows[0]["path"] if rows else [], "bindings": rows[0]["bindings"] if rows else {}, "matches": rows,
            "searched": stream.searched, "bound": bound, "complete": bound is None, "stopped_by": stopped_by(bound, args),
            "elapsed": round(stream.elapsed, 4), **_stuck(stream.stuck)}
    if cut.reason is not None:   # the output holds part of what was found
      data.update(complete=False, bound=bound or cut.bound, stopped_by=data["stopped_by"] or cut.reason,
                  report={"complete": False, "matches": len(rows), "stopped_by": cut.reason})
    emit(args, with_nodes(data, table), "search")
  return _exit_code(bool(matches), bound, stream.stuck)


def _stream_bound(stream: Any) -> str | None:
  """The bound that ended a search stream, also when the command's bound interrupted it mid-graph."""
  return stream.bound if stream.done else stopped()


def _cmd_meet(a: Any, b: Any, args: argparse.Namespace) -> int:
  from uopc.relational.analyses.meet import MeetResult
  from uopc.relational.analyses.search import meet
  with _progress(args.max_states, "meeting") as progress:
    r = bounded(lambda: meet(a, b, args.rules.pm, progress=progress, **_bounds(args)), None, grace=True) \
      or MeetResult(None, 0, 0, stopped(), 0.0)   # interrupted outside its explorations: nothing to keep
  if args.format != "text": emit(args, meet_json(r, a, b, args), "search")
  else:
    for line in meet_text(r, a, b, args): print(line)
  return _exit_code(r.found, r.bound, r.stuck)


def _exit_code(found: bool, bound: str | None, stuck: list[Any]) -> int:
  """1 if a rule raised (found something) or the whole space holds no match; else 0 found, 3 a bound stopped it."""
  if stuck: return EXIT_FAILED
  return EXIT_OK if found else EXIT_FAILED if bound is None else EXIT_BOUND


# ---- text

def _term(u: Any) -> str: return show(u, TERM_LIMIT)


def _header(prog: Any, target: str, args: argparse.Namespace) -> list[str]:
  return [f"program: {_term(prog)}", f"target: {target}", f"rules: {args.rules.spec}"]


def _bindings_text(bindings: dict[str, Any]) -> str:
  return ", ".join(f"?{k} = {_term(v)}" for k, v in bindings.items()) if bindings else "(no holes)"


def search_text(r: Any, prog: Any, args: argparse.Namespace) -> list[str]:
  """The text report of one search."""
  out = _header(prog, r.target.text, args)
  if r.found:
    out.append(f"found: {_term(r.graph)}")
    out.append(f"path ({steps_word(r.length)}):" if r.path else "path: none needed (the program itself matches)")
    out += step_lines(r.path)
    out.append(f"bindings: {_bindings_text(r.bindings)}")
    out.append(f"length: {steps_word(r.length)}")
  elif r.bound is None: out.append("not found: no reachable graph matches")
  else: out.append("not found within the bounds")
  out.append(f"searched: {r.searched} graph{'s' * (r.searched != 1)}"
             + ("" if r.found else f"; {search_bound_text(r.bound, args)}"))
  from uopc.cli.reports.exploration import stuck_lines   # deferred: it imports the explorer
  return out + stuck_lines(r.stuck)


def match_text(i: int, m: Any) -> list[str]:
  """The lines of the i-th match streamed by ``--all``."""
  holes = f"; {_bindings_text(m.bindings)}" if m.bindings else ""
  return [f"[{i}] {_term(m.graph)}   ({steps_word(m.length)}{holes})", *step_lines(m.path, "    ")]


def meet_text(r: Any, a: Any, b: Any, args: argparse.Namespace) -> list[str]:
  """The text report of ``--to``: both paths to the common graph, or why there is none."""
  out = [f"program a: {_term(a)}", f"program b: {_term(b)}", f"rules: {args.rules.spec}"]
  if r.found:
    out.append(f"equal: both rewrite to {_term(r.meeting)}")
    for name, path in (("a", r.from_a), ("b", r.from_b)):
      out.append(f"from {name} ({steps_word(len(path))}){':' if path else ''}")
      out += step_lines(path)
  elif r.bound is None: out.append("no common graph: both reachable spaces were searched to their end and share none")
  else: out.append("no common graph within the bounds")
  out.append(f"searched: {r.searched} graphs (a: {r.searched_a}, b: {r.searched_b})"
             + ("" if r.found or r.bound is None else f"; {search_bound_text(r.bound, args)}"))
  from uopc.cli.reports.exploration import stuck_lines   # deferred: it imports the explorer
  return out + stuck_lines(r.stuck)


# ---- JSON

def _stuck(stuck: list[Any]) -> dict[str, Any]:
  """The stuck steps (a rule raised) as JSON: ``stuck``, each step's rule, node and error; ``stuck_groups``, one per rule
  and exception type with a count and an example (``uopc.cli.reports.exploration.stuck_groups_json``)."""
  from uopc.cli.reports.exploration import stuck_groups_json   # deferred: it imports the explorer
  return {"stuck": [{"rule": s.rule, "location": s.rule_location, "node": _term(s.node), "error": s.error} for s in stuck],
          "stuck_groups": stuck_groups_json(stuck)}


def _bindings(bindings: dict[str, Any]) -> dict[str, str]: return {k: _term(v) for k, v in bindings.items()}


def search_json(r: Any, prog: Any, args: argparse.Namespace) -> dict[str, Any]:
  """One search as a JSON-ready dict."""
  from uopc.cli.reports.exploration import NodeTable, steps_json, with_nodes   # deferred: it imports the explorer
  table = NodeTable()
  return with_nodes({"program": _term(prog), "target": r.target.text, "rules": args.rules.spec, "found": r.found,
                     "graph": None if r.graph is None else _term(r.graph), "length": r.length,
                     "path": steps_json(r.path, table), "bindings": _bindings(r.bindings), "searched": r.searched, "bound": r.bound,
                     "complete": r.complete, "stopped_by": stopped_by(r.bound, args), "elapsed": round(r.elapsed, 4),
                     **_stuck(r.stuck)}, table)


def meet_json(r: Any, a: Any, b: Any, args: argparse.Namespace) -> dict[str, Any]:
  """``--to`` as a JSON-ready dict; ``path`` is the first program's steps (``paths.from_a``)."""
  from uopc.cli.reports.exploration import NodeTable, steps_json, with_nodes   # deferred: it imports the explorer
  table = NodeTable()
  from_a, from_b = steps_json(r.from_a, table), steps_json(r.from_b, table)
  return with_nodes({"program": _term(a), "to": _term(b), "rules": args.rules.spec, "found": r.found,
          "meeting": None if r.meeting is None else _term(r.meeting), "length": r.length,
          "path": from_a, "paths": {"from_a": from_a, "from_b": from_b}, "bindings": {},
          "searched": r.searched, "searched_a": r.searched_a, "searched_b": r.searched_b, "bound": r.bound,
          "complete": r.complete, "stopped_by": stopped_by(r.bound, args), "elapsed": round(r.elapsed, 4), **_stuck(r.stuck)}, table)
