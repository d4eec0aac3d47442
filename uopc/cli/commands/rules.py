"""``uopc rules RULESET --corpus CORPUS``: how often each rule fires across a corpus, and the rules that never do.

For each rule: its firings under the canonical order (the IR's own engine) and under any order (the steps of every
graph's bounded exploration), and for a rule that never fires canonically whether it is **shadowed** (it fires in another
order: other rules take its redexes first; a witness graph and node), **declined** (its pattern matches, its function
never rewrites) or **unreached** (no graph of the corpus reaches its pattern). ``uopc.relational.analyses.rule_usage``
computes it.

A corpus is a ``uopc capture`` file (JSON Lines, ``uopc.corpus``), a ``.uir`` file, a ``file.py:attr`` program, or a
directory of those; graphs of another IR than the rule set's are left out and counted (a ``.uir`` program is built as the
rule set's nodes where it can, as ``--rules`` takes it elsewhere).

Exit codes: the command's row of ``uopc.cli.commands.COMMANDS``: 0 every graph explored completely, 3 a bound cut an
exploration or the run short (the counts cover what was explored), 2 bad input.
"""
from __future__ import annotations

import argparse
import importlib
import os
import sys
from typing import Any

from uopc.cli.budget import LIMITS, bounded, shielded, stopped_text
from uopc.cli.support import CLIError, EXIT_BOUND, EXIT_OK, load_program, progress_bar

STATUS_WORDS = {"fires": "fires", "shadowed": "shadowed", "declined": "matched, never rewrote", "unreached": "pattern never reached"}


class Corpus:
  """The corpus' graphs in the rule set's IR (``programs``, with ``where`` each: file and line or entry), and what was
  left out (``skipped``: why -> how many)."""

  def __init__(self) -> None:
    self.programs: list[Any] = []
    self.where: list[str] = []
    self.skipped: dict[str, int] = {}

  def skip(self, why: str) -> None: self.skipped[why] = self.skipped.get(why, 0) + 1


def _is_corpus_file(path: str) -> bool:
  if path.endswith(".jsonl"): return True
  try:
    with open(path, "rb") as f: return f.read(16).startswith(b'{"uopc-corpus"')
  except OSError: return False


def _files(path: str) -> list[str]:
  if not os.path.isdir(path): return [path]
  names = sorted(n for n in os.listdir(path) if n.endswith((".uir", ".jsonl")))
  if not names: raise CLIError(f"uopc rules: --corpus {path}: a directory without .uir or .jsonl files")
  return [os.path.join(path, n) for n in names]


def load_corpus(paths: list[str], pm: Any) -> Corpus:
  """The graphs of ``paths`` (module doc) as nodes of ``pm``'s IR; a ``CLIError`` for one that cannot be read."""
  from uopc.relational.ir import UOPC, ir_of, ir_of_rules
  ir = ir_of_rules(pm)[0]
  corpus = Corpus()

  def add(prog: Any, where: str) -> None:
    if ir_of(prog) is UOPC and ir is not UOPC:
      try: prog = ir.from_uopc(prog)
      except (TypeError, ValueError):
        corpus.skip(f"cannot be built as {ir.name} nodes")
        return
    if ir_of(prog) is not ir:
      corpus.skip(f"a {ir_of(prog).name} graph")
      return
    corpus.programs.append(prog)
    corpus.where.append(where)
  for path in paths:
    for file in _files(path):
      if not _is_corpus_file(file):
        add(load_program(file), file)
        continue
      try: formats = importlib.import_module("uopc.corpus.format")   # the capture helper's (uopc capture, docs/gate.md)
      except ImportError: raise CLIError(f"uopc rules: --corpus {file}: this uopc cannot read corpus files (no uopc.corpus)") from None
      try: entries = formats.load(file)
      except formats.CorpusError as e: raise CLIError(f"uopc rules: {e}") from None
      for k, entry in enumerate(entries, 2):   # line 1 is the header
        add(entry.program, f"{file}:{k}" + (f" ({entry.where})" if entry.where else ""))
  if not corpus.programs:
    left = "; ".join(f"{n} {why}" for why, n in corpus.skipped.items())
    raise CLIError(f"uopc rules: the corpus has no graph of {ir.name}'s IR" + (f" ({left})" if left else ""))
  return corpus


def cmd_rules(args: argparse.Namespace) -> int:
  corpus = load_corpus(args.corpus, args.rules.pm)
  with shielded(): return _rules(args, corpus)   # only the counting can be interrupted: the report is whole


def _rules(args: argparse.Namespace, corpus: Corpus) -> int:
  from uopc.relational.analyses.rule_usage import RuleUsage, rule_usage
  done: list[RuleUsage] = []
  with progress_bar(len(corpus.programs), "graph", "counting firings") as bar:
    def run() -> None:
      done.append(rule_usage(corpus.programs, args.rules.pm, max_states=args.max_states, max_steps=args.max_steps,
                             progress=bar.update, limits=LIMITS))
    bounded(run, None, grace=True)
  if not done: raise CLIError(f"uopc rules: no graph counted: {stopped_text() or 'stopped'}")
  usage = done[0]
  complete = usage.stopped is None and usage.complete == len(corpus.programs) and stopped_text() is None
  if args.format == "json":
    from uopc.cli.reports import html
    html.emit(args, to_json(usage, args, corpus, complete), "rules")
  else: write_text(usage, args, corpus, complete)
  return EXIT_OK if complete else EXIT_BOUND


def _plural(n: int, word: str) -> str: return f"{n:,} {word}{'s' * (n != 1)}"


def _rule_text(c: Any) -> str:
  return c.name if c.location in c.name else f"{c.name} ({c.location})"


def write_text(usage: Any, args: argparse.Namespace, corpus: Corpus, complete: bool) -> None:
  from uopc.cli.explore_support import term_text
  out = sys.stdout
  rules = usage.rules
  print(f"rules: {args.rules.spec} ({len(rules)} rules)", file=out)
  left = "".join(f"; {n:,} left out ({why})" for why, n in corpus.skipped.items())
  print(f"corpus: {', '.join(args.corpus)}: {_plural(len(corpus.programs), 'graph')}{left}", file=out)
  cut = usage.cut
  stops = (f", {cut:,} stopped by --max-states {args.max_states:,}" if cut else "") + \
    ("" if usage.stopped is None and stopped_text() is None else f"; {stopped_text() or usage.stopped}")
  print(f"explored {_plural(usage.explored, 'graph')}, {usage.complete:,} completely{stops}", file=out)
  if usage.canonical_errors:
    print(f"the canonical engine failed on {_plural(len(usage.canonical_errors), 'graph')} (its firings until then count)", file=out)
  width = max(len(_rule_text(c)) for c in rules)
  print(f"{'#':>4}  {'rule':<{width}}  {'canonical (graphs)':>18}  {'any order (graphs)':>18}  status", file=out)
  for c in rules:
    print(f"{c.index:>4}  {_rule_text(c):<{width}}  {f'{c.canonical:,} ({c.canonical_graphs:,})':>18}  "
          f"{f'{c.any_order:,} ({c.any_graphs:,})':>18}  {STATUS_WORDS[c.status]}" + (f", raised {c.raised:,}x" if c.raised else ""), file=out)
  kinds = [c.status for c in rules]
  print("; ".join(f"{STATUS_WORDS[k]}: {kinds.count(k)}" for k in STATUS_WORDS) + ("" if complete else " (within the bounds)"), file=out)
  shadowed = [c for c in rules if c.status == "shadowed"]
  if shadowed: print("shadowed (fires only in other orders than the canonical one), with a witness:", file=out)
  for c in shadowed:
    w = c.witness
    by = "the canonical engine never rewrote that node (it rewrote around it first)" if w.taken_by is None else \
      f"the canonical engine fires #{w.taken_by} {_rule_text(rules[w.taken_by])} there"
    print(f"  #{c.index} {_rule_text(c)}: on {term_text(w.node)} in graph {w.graph + 1} ({corpus.where[w.graph]}): {by}", file=out)


def to_json(usage: Any, args: argparse.Namespace, corpus: Corpus, complete: bool) -> dict[str, Any]:
  from uopc.cli.explore_support import term_text
  def witness(c: Any) -> dict[str, Any] | None:
    if (w := c.witness) is None: return None
    return {"graph": w.graph, "where": corpus.where[w.graph], "program": term_text(usage.programs[w.graph]), "state": term_text(w.state),
            "node": term_text(w.node), "taken_by": None if w.taken_by is None else usage.rules[w.taken_by].name}
  return {"rules": args.rules.spec, "corpus": list(args.corpus), "graphs": len(corpus.programs), "left_out": corpus.skipped,
          "explored": usage.explored, "explored_completely": usage.complete, "max_states": args.max_states, "complete": complete,
          "stopped_by": None if complete else (stopped_text() or (f"--max-states {args.max_states}" if usage.stopped is None else usage.stopped)),
          "canonical_errors": [{"graph": k, "where": corpus.where[k], "error": e} for k, e in usage.canonical_errors.items()],
          "usage": [{"index": c.index, "name": c.name, "location": c.location, "canonical": c.canonical, "canonical_graphs": c.canonical_graphs,
                     "any_order": c.any_order, "any_graphs": c.any_graphs, "raised": c.raised, "matched": c.matched, "status": c.status,
                     "witness": witness(c)} for c in usage.rules]}
