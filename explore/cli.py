"""``uopc explore``: the relational explorer on the command line.

``uopc explore reachable prog.uir`` streams every graph reachable from the program
(breadth first; ``--dfs`` for depth first); ``uopc explore normal-forms prog.uir``
prints every normal form with one shortest rewrite path and marks the one the
canonical engine (``graph_rewrite``) produces. Both take ``--rules``,
``--max-states`` (default 10,000), ``--max-depth`` (default 50), ``--timeout``
(default 30 s) and ``--format text|json|dot``.

Exit codes: 0 the space was explored completely, 3 a bound was hit (the partial
result is still printed), 2 bad input. Progress goes to stderr, only when it is a
terminal and the run takes more than a second.

>>> import argparse
>>> sub = argparse.ArgumentParser().add_subparsers()
>>> register(sub)
>>> sorted(sub.choices)
['explore']
"""
from __future__ import annotations

import argparse
import contextlib
import sys
from typing import Any, Iterator, NamedTuple

from uopc.cli import EXIT_BOUND, EXIT_OK, load_program, positive_int, rules_arg

DEFAULT_MAX_STATES = 10_000
DEFAULT_MAX_DEPTH = 50
DEFAULT_TIMEOUT = 30.0
PROGRESS_DELAY = 1.0   # seconds before a progress bar appears: short runs print none


class NamedRules(NamedTuple):
  """A ``--rules`` value: what the user typed, and the matcher it names."""
  spec: str
  pm: Any


def _rules(spec: str) -> NamedRules: return NamedRules(spec, rules_arg(spec))


def _depth(text: str) -> int:
  try: n = int(text)
  except ValueError: n = -1
  if n < 0: raise argparse.ArgumentTypeError(f"expected a non-negative integer, got {text!r}")
  return n


def _seconds(text: str) -> float:
  try: t = float(text)
  except ValueError: t = 0.0
  if not t > 0 or t == float("inf"): raise argparse.ArgumentTypeError(f"expected a positive number of seconds, got {text!r}")
  return t


def _common(p: argparse.ArgumentParser, formats: tuple[str, ...]) -> None:
  p.add_argument("file", help=".uir program (- for stdin)")
  p.add_argument("--rules", type=_rules, default="symbolic", metavar="NAME",
                 help="rule set: symbolic (default), fold, symbolic+evaluate, module:attr, or file.py:attr")
  p.add_argument("--max-states", type=positive_int, default=DEFAULT_MAX_STATES, metavar="N",
                 help=f"stop after N states (default {DEFAULT_MAX_STATES:,})")
  p.add_argument("--max-depth", type=_depth, default=DEFAULT_MAX_DEPTH, metavar="D",
                 help=f"do not go more than D steps from the program (default {DEFAULT_MAX_DEPTH})")
  p.add_argument("--timeout", type=_seconds, default=DEFAULT_TIMEOUT, metavar="S",
                 help=f"stop exploring after S seconds (default {DEFAULT_TIMEOUT:g})")
  p.add_argument("--format", choices=formats, default="text", help="output format (default text)")


def no_reduce_arg(p: argparse.ArgumentParser) -> None:
  """``--no-reduce``: visit every reachable graph instead of a reduced set that keeps every normal form."""
  p.add_argument("--no-reduce", dest="reduce", action="store_false",
                 help="explore every reachable graph (default: skip orderings that reach no other normal form; "
                      "see docs/reduction.md)")


def register(sub: Any) -> None:
  """Add ``explore`` (with ``reachable`` and ``normal-forms``) to the ``uopc`` subcommands."""
  p = sub.add_parser("explore", help="the relational explorer: every rewrite ordering",
                     description="Explore every graph that any ordering of rewrites reaches. Exit codes: 0 complete, "
                                 "3 a bound was hit (partial output), 2 bad input.")
  esub = p.add_subparsers(dest="explore_command", required=True, metavar="SUBCOMMAND")

  r = esub.add_parser("reachable", help="every reachable graph (bounded, streamed)",
                      description="Stream every graph reachable from the program, with the step that first reached it.")
  _common(r, ("text", "json", "dot"))
  r.add_argument("--dfs", action="store_true", help="depth first instead of breadth first")
  r.set_defaults(func=cmd_reachable)

  n = esub.add_parser("normal-forms", help="every normal form, with a path to each",
                      description="Every normal form of the program with one shortest rewrite path, and which one "
                                  "the canonical engine (graph_rewrite) produces.")
  _common(n, ("text", "json", "dot"))
  no_reduce_arg(n)
  n.set_defaults(func=cmd_normal_forms)

  from explore import search_cli   # uopc explore search (issue 5)
  search_cli.register(esub)
  from explore import order_cli, pairs_cli   # uopc explore order / pairs (issue 4)
  order_cli.register(esub); pairs_cli.register(esub)  # noqa: E702


@contextlib.contextmanager
def _progress(ex: Any, what: str) -> Iterator[Any]:
  """A tqdm bar on stderr: only on a terminal, and only once a run has taken a second."""
  from tqdm import tqdm   # deferred: ``uopc run`` never pays for it
  bar = tqdm(total=ex.max_states, unit="state", desc=what, file=sys.stderr, delay=PROGRESS_DELAY, leave=False,
             disable=not _isatty(sys.stderr), dynamic_ncols=True)
  try: yield bar
  finally: bar.close()


def _isatty(f: Any) -> bool:
  try: return bool(f.isatty())
  except (AttributeError, ValueError): return False


def _explore(prog: Any, args: argparse.Namespace, order: str, stream_text: bool) -> Any:
  from uopc.relational import explore   # deferred: kanren and friends load only for explore commands
  from explore.report import state_line
  ex = explore(prog, args.rules.pm, max_states=args.max_states, max_depth=args.max_depth, timeout=args.timeout, order=order,
               reduce=getattr(args, "reduce", False))
  out = sys.stdout
  with _progress(ex, "exploring") as bar:
    for s in ex:
      if not bar.disable: bar.update()
      if stream_text:
        line = state_line(s)
        if bar.disable: print(line, file=out)
        else: bar.write(line, file=out)
  return ex


def cmd_reachable(args: argparse.Namespace) -> int:
  from explore import report
  from uopc.relational import canonical
  from uopc.term import show
  text = args.format == "text"
  prog = load_program(args.file)
  if text:   # the header goes out before exploring, so the states stream after it
    print(f"program: {show(prog, report.TEXT_TERM_LIMIT)}")
    print(f"rules: {args.rules.spec}; {'depth' if args.dfs else 'breadth'} first")
  ex = _explore(prog, args, "dfs" if args.dfs else "bfs", stream_text=text)
  canon, err = canonical(prog, args.rules.pm)
  if text:
    for line in report.summary_lines(ex, canon, err, args.rules.spec): print(line)
  elif args.format == "json": print(report.json_text(report.to_json(ex, prog, args.rules.spec, canon, err)))
  else: print(report.to_dot(ex, canon, args.rules.spec))
  return EXIT_OK if ex.complete else EXIT_BOUND


def cmd_normal_forms(args: argparse.Namespace) -> int:
  from explore import report
  from uopc.relational import NormalForms, canonical
  from uopc.relational.cycles import unsure_cycles
  prog = load_program(args.file)
  ex = _explore(prog, args, "bfs", stream_text=False)
  if ex.reduced and unsure_cycles(ex):   # a cycle through a reduced state may have an exit: explore every graph
    args.reduce = False
    ex = _explore(prog, args, "bfs", stream_text=False)
  nf = NormalForms(ex, *canonical(prog, args.rules.pm))
  if args.format == "text": report.normal_forms_text(nf, prog, args.rules.spec, sys.stdout)
  elif args.format == "json":
    print(report.json_text(report.to_json(ex, prog, args.rules.spec, nf.canonical, nf.canonical_error, paths=True)))
  else: print(report.to_dot(ex, nf.canonical, args.rules.spec))
  return EXIT_OK if nf.complete else EXIT_BOUND
