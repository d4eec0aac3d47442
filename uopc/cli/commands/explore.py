"""``uopc explore``: the relational explorer on the command line.

``uopc explore reachable prog.uir`` streams every graph reachable from the program
(breadth first; ``--dfs`` for depth first); ``uopc explore normal-forms prog.uir``
prints every normal form with one shortest rewrite path and marks the one the
canonical engine (``graph_rewrite``) produces. Both take ``--rules``,
``--max-states`` (default 50,000: a default run is bounded by counts, ``uopc.cli.options``), ``--max-depth``
(default 50), ``--timeout`` (default 300 s, a safety net), ``--max-memory`` (default 4 GiB; ``uopc.cli.budget``),
``--max-steps`` (the canonical engine's) and ``--format text|json|dot|html`` (``-o FILE`` for json and html).
When a bound stops ``normal-forms`` before it exhausts the space, a fixed number of seeded random runs sample
more normal forms (``uopc/cli/reports/sampled.py``; ``--samples``, ``--seed``).

Exit codes: the command's row of ``uopc.cli.commands.COMMANDS`` (its ``--help`` ends with them); a bound or an interrupt
still prints the partial result. Progress goes to stderr, only when it is a terminal and
the run takes more than a second.

>>> from uopc.cli.commands import COMMANDS
>>> [c.name for c in COMMANDS if c.target.startswith('uopc.cli.commands.explore:')]
['explore reachable', 'explore normal-forms']
"""
from __future__ import annotations

import argparse
import sys
import time
from typing import Any, Literal

from uopc import collector
from uopc.cli.budget import LIMITS, bounded, enter, shielded, stopped
from uopc.cli.support import bar_is_up, bar_to, isatty, load_program
from uopc.cli.explore_support import (STREAM_BATCH, TERM_LIMIT, canonical_for, check_cluster_flags, exit_code, exploration_progress,
                                     marked_if_cut, on_cluster, program_for_rules)
from uopc.cli.reports.sampled import sample_after


def _explore(prog: Any, args: argparse.Namespace, order: Literal["bfs", "dfs"], stream_text: bool) -> Any:
  """Run the exploration under the command's budget; a bound keeps what was reached (``ex.bound`` says why)."""
  with on_cluster(args) as cluster: return _explore_on(prog, args, order, stream_text, cluster)


def _explore_on(prog: Any, args: argparse.Namespace, order: Literal["bfs", "dfs"], stream_text: bool, cluster: str | None) -> Any:
  from uopc.relational import explore   # deferred: kanren and friends load only for explore commands
  from uopc.cli.reports.exploration import state_line
  out = sys.stdout
  with exploration_progress(args.max_states, "exploring") as bar:
    ex = explore(prog, args.rules.pm, max_states=args.max_states, max_depth=args.max_depth, timeout=args.timeout, order=order,
                 reduce=getattr(args, "reduce", False), semantics=getattr(args, "semantics", "graph"), cluster=cluster,
                 limits=LIMITS, progress=lambda count: bar_to(bar, count))   # (a cluster run's count after each level)
    # a line goes around the bar only when both share a terminal and the bar is up: tqdm.write
    # draws the bar (before its delay too) and redraws it after every line
    terminal = isatty(out)
    pending: list[str] = []   # lines not yet printed: a few at a time (blocking the signals once a line costs a tenth of it)
    flushed = [time.monotonic(), 0]   # when last written, and the characters pending since

    def flush() -> None:
      if pending:
        with shielded():   # whole lines, each once
          out.write("\n".join(pending))   # (no + "\n": a copy of what may be a megabyte)
          out.write("\n")
          pending.clear()
      flushed[0], flushed[1] = time.monotonic(), 0

    def stream() -> None:
      if not stream_text and (bar.disable or cluster is not None):   # nothing shown per state (a cluster's bar: per level)
        ex.run()   # explored as the library explores, no state taken
        return
      # explored ahead a batch at a time, the collector paused (no user code runs here but the rules): options.STREAM_BATCH;
      # settled after, or the first pass once it is on walks every node, state and text piece made (1.3 s for five_params)
      with collector.paused(settle=True):
        # a line's texts need no graph (a native state's are made in C: NativeState.term); a cluster's states are
        # streamed from the shards' records only when lines are printed (graphs), not for a progress bar alone
        for s in ex.iter_ahead(STREAM_BATCH, graphs=stream_text and cluster is not None):
          # a cluster's states come once its run has ended: listing them is writing the output, which no time or memory
          # bound cuts (a run stopped by --max-memory with 600,000 states to list was stopped from outside as it wrote)
          if cluster is not None: enter("write")
          line_for(s)
      flush()

    def line_for(s: Any) -> None:
      if not bar.disable and cluster is None: bar.update()
      if stream_text:
        line = state_line(s)
        if terminal and bar_is_up(bar):
          flush()
          with shielded(): bar.write(line, file=out)
        else:
          pending.append(line)
          flushed[1] += len(line)   # a chain's lines are its whole graph: 256 of 1,000 nodes were 6 MB, twice over in the join
          if len(pending) >= 256 or flushed[1] > 1 << 18 or time.monotonic() - flushed[0] > 0.1: flush()
    bounded(stream, None, grace=True)
    flush()   # the lines a bound left
  return ex


def cmd_reachable(args: argparse.Namespace) -> int:
  check_cluster_flags(args)
  prog = program_for_rules(load_program(args.file), args)   # a bound here stops the command: nothing to report yet
  with shielded(): return _reachable(prog, args)   # from here only the bounded work can be interrupted: the report is whole


def _reachable(prog: Any, args: argparse.Namespace) -> int:
  from uopc.cli.reports import html, exploration as report
  from uopc.term import memo, show
  text = args.format == "text"
  if text:   # the header goes out before exploring, so the states stream after it
    # in a memo of its own, gone after: the native core makes the states' texts itself, and the program's subterms' kept
    # here too were as much again (4 MB of a chain of 1,000's 36)
    with memo(): print(f"program: {show(prog, TERM_LIMIT)}")
    print(f"rules: {args.rules.spec}; {'depth' if args.dfs else 'breadth'} first"
          + ("; tree semantics" if args.semantics == "tree" else ""))
  ex = _explore(prog, args, "dfs" if args.dfs else "bfs", stream_text=text)
  canon, err = canonical_for(prog, args)
  if text:
    for line in report.summary_lines(ex, canon, err, args.rules.spec): print(line)
  elif args.format in ("json", "html"):
    from uopc.cli.reports import stream
    if stream.is_big(ex): stream.emit_exploration(args, "reachable", ex, prog, args.rules.spec, canon, err)   # written as it is read
    else: html.emit(args, marked_if_cut(report.to_json(ex, prog, args.rules.spec, canon, err, fmt=args.format)), "reachable")
  else: print(report.to_dot(ex, canon, args.rules.spec, args.dot_max_nodes, args.dot_paths).source, end="")
  return exit_code(ex)


def cmd_normal_forms(args: argparse.Namespace) -> int:
  check_cluster_flags(args)
  prog = program_for_rules(load_program(args.file), args)
  with shielded(): return _normal_forms(prog, args)


def _termination(prog: Any, args: argparse.Namespace, nf: Any) -> tuple[Any, list[Any]] | None:
  """Whether every order terminates, and how the IR engine's runs end (its variants run here, within the command's
  bounds), for the report; None if a bound stopped it first."""
  from uopc.relational.ir import ir_of
  from uopc.cli.budget import current
  from uopc.relational.space.termination import strategies, termination
  from uopc.term import show
  ex = nf.exploration
  def work() -> tuple[Any, list[Any]]:
    variants = ir_of(prog).canonical_variants(prog, args.rules.pm)
    ends = termination(ex)
    return ends, strategies(ir_of(prog).engine, nf.canonical, nf.canonical_error, variants, None, ends, lambda u: show(u, TERM_LIMIT))
  if (found := bounded(work, None, grace=True)) is None and (b := current()) is not None: b.report_cut = True   # said incomplete
  return found


def _normal_forms(prog: Any, args: argparse.Namespace) -> int:
  from uopc.cli.reports import html, exploration as report
  from uopc.cli.reports.termination import termination_json, termination_text
  from uopc.relational import NormalForms
  from uopc.relational.space.cycles import unsure_cycles
  ex = _explore(prog, args, "bfs", stream_text=False)
  if ex.reduced and unsure_cycles(ex) and not stopped():   # a cycle through a reduced state may have an exit: explore every graph
    args.reduce = False
    ex = _explore(prog, args, "bfs", stream_text=False)
  nf = NormalForms(ex, *canonical_for(prog, args))
  sample = sample_after(prog, ex, args) if args.format != "dot" else None   # a bound stopped it: random runs
  loops = _termination(prog, args, nf) if args.format != "dot" else None
  if args.format == "text":
    report.normal_forms_text(nf, prog, args.rules.spec + ("; tree semantics" if args.semantics == "tree" else ""), sys.stdout, sample)
    if loops is not None: termination_text(*loops, sys.stdout, always=True)
  elif args.format in ("json", "html"):
    from uopc.cli.reports import sampled, stream
    extra = sampled.to_json(sample, ex.complete)
    if loops is not None: extra["termination"] = termination_json(*loops, report.steps_json)
    if stream.is_big(ex):   # written as it is read
      stream.emit_exploration(args, "normal-forms", ex, prog, args.rules.spec, nf.canonical, nf.canonical_error, paths=True, extra=extra)
    else:
      data = report.to_json(ex, prog, args.rules.spec, nf.canonical, nf.canonical_error, paths=True, fmt=args.format)
      data.update(extra)
      html.emit(args, marked_if_cut(data), "normal-forms")
  else: print(report.to_dot(ex, nf.canonical, args.rules.spec, args.dot_max_nodes, args.dot_paths).source, end="")
  return exit_code(ex)


