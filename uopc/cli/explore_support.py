"""What the explorer's commands share when they run: the progress bar of an exploration, ``--cluster``'s checks, the
program in the rules' IR, the canonical engine's result, the exit code, and how much of a term the outputs print.

Their options are declared in ``uopc.cli.options`` and named command by command in ``uopc.cli.commands.COMMANDS``. The
explorer's command modules (``uopc.cli.commands``) and reports (``uopc.cli.reports``) import from it, never the other way.
"""
from __future__ import annotations

import argparse
import contextlib
from typing import Any, Iterator

from uopc.cli.budget import bounded, current, stopped_text
from uopc.cli.support import CLIError, EXIT_BAD_INPUT, EXIT_BOUND, EXIT_FAILED, EXIT_OK, progress_bar
from uopc.term import show
from uopc.lengths import LENGTHS

TERM_LIMIT = LENGTHS.whole   # a term is printed whole up to this, text and JSON alike (uopc.lengths)
# States explored ahead of what a command reads from the stream (``Exploration.iter_ahead``): the native core's largest
# batch. A state at a time cost half as much again as the search; a bound still stops within a batch.
STREAM_BATCH = 4096


def term_text(u: Any) -> str | None:
  """A graph as the explorer's outputs print it (``show`` up to ``TERM_LIMIT`` characters); None for no graph."""
  return None if u is None else show(u, TERM_LIMIT)


@contextlib.contextmanager
def on_cluster(args: argparse.Namespace) -> Iterator[str | None]:
  """The command's ``--cluster`` (None without one); a cluster that cannot run, or a flag it does not run, is one line (exit 2;
  3 for a cluster that ended mid-run, ``ClusterGone``)."""
  spec = getattr(args, "cluster", None)
  if spec is None:
    yield None
    return
  check_cluster_flags(args)
  import importlib.util
  from uopc.relational.cluster import ClusterError
  if (missing := [m for m in ("ray", "numpy") if importlib.util.find_spec(m) is None]):
    raise CLIError(f"uopc: --cluster needs Ray and NumPy ({', '.join(missing)} missing): pip install -e '.[cluster]'")
  try: yield spec
  except ClusterError as e: raise CLIError(f"uopc: {e}", getattr(e, "exit_code", EXIT_BAD_INPUT)) from None   # (gone mid-run: 3)


def check_cluster_flags(args: argparse.Namespace) -> None:
  """A flag ``--cluster`` does not run (``--dfs``, tree semantics, the reduction) is a one-line error (exit 2), before any output."""
  if getattr(args, "cluster", None) is None: return
  for flag, on in (("--dfs", getattr(args, "dfs", False)), ("--semantics tree", getattr(args, "semantics", "graph") == "tree"),
                   ("the default reduction (give --no-reduce)", getattr(args, "reduce", False))):
    if on: raise CLIError(f"uopc: --cluster explores every graph breadth first under graph semantics: not with {flag}")


@contextlib.contextmanager
def exploration_progress(max_states: int | None, what: str) -> Iterator[Any]:
  """The progress bar of an exploration of at most ``max_states`` states (``uopc.cli.support.progress_bar``)."""
  bar = progress_bar(max_states, "state", what)
  try: yield bar
  finally: bar.close()


def program_for_rules(prog: Any, args: argparse.Namespace, name: str | None = None) -> Any:
  """The program in the ``--rules`` set's IR: a ``.uir`` program is built as that IR's nodes where the IR can
  (tinygrad's, over the ops both share); a program and rule set of different IRs otherwise, or a program that
  does not translate, is a one-line error naming both types (or what does not translate)."""
  from uopc.relational.ir import UOPC, ir_of, ir_of_rules, rules_for
  if ir_of(prog) is UOPC and (ir := ir_of_rules(args.rules.pm)[0]) is not UOPC:
    try: prog = ir.from_uopc(prog)
    except TypeError: pass   # the mismatch error below names both types
    except ValueError as e: raise CLIError(f"uopc: {name or args.file}: cannot be built as {ir.name} nodes: {e}") from None
  try: rules_for(prog, args.rules.pm, f"--rules {args.rules.spec}")
  except TypeError as e: raise CLIError(f"uopc: {e}") from None
  return prog


def canonical_for(prog: Any, args: argparse.Namespace) -> tuple[Any, str | None]:
  """The canonical engine's result (or None and why), bounded by ``--max-steps`` and the command's budget."""
  from uopc.relational import canonical
  # --max-steps' default is the library's (uopc.cli.options.EXPLORE_MAX_STEPS): a looping rule set fails in 1-2 s
  found = bounded(lambda: canonical(prog, args.rules.pm, max_steps=args.max_steps), None, grace=True)
  if found is not None: return found
  if (b := current()) is not None: b.report_cut = True   # the output lacks the canonical result: incomplete (exit 3)
  return None, f"not computed: {stopped_text()}"   # the bound named once it stopped it


def marked_if_cut(data: dict[str, Any]) -> dict[str, Any]:
  """A JSON output whose search was complete but whose derived work a bound cut short (the canonical engine:
  ``canonical_for`` sets the budget's ``report_cut``) is incomplete too: its ``complete``, ``bound`` and ``stopped_by``
  (those of them it has) say so."""
  b = current()
  if data.get("complete") and b is not None and b.report_cut and b.reason is not None:
    for key, value in (("complete", False), ("bound", b.reason), ("stopped_by", b.flag_text())):
      if key in data: data[key] = value
  return data


def exit_code(ex: Any) -> int:
  """1 if a rule raised (a stuck step: found something), else 3 if a bound was hit, else 0."""
  return EXIT_FAILED if ex.stuck else EXIT_OK if ex.complete else EXIT_BOUND


# what the search, best and saturate commands print alike
def step_lines(path: list[Any], indent: str = "  ") -> list[str]:
  """A path's steps, numbered: ``rule: node -> result`` each."""
  return [f"{indent}{i}. {e.describe(TERM_LIMIT)}" for i, e in enumerate(path, 1)]


def steps_word(n: int) -> str: return f"{n} step{'s' * (n != 1)}"


def canonical_of(prog: Any, args: argparse.Namespace, cost: Any) -> tuple[Any, Any, str | None]:
  """The canonical engine's result (``--max-steps``, the command's budget), its cost, and why there is none."""
  graph, error = canonical_for(prog, args)
  try: return graph, None if graph is None else cost.of(graph), error
  except Exception as e: raise CLIError(str(e)) from None   # a user cost function that fails


def canonical_line(graph: Any, cost: Any, error: str | None) -> str:
  return f"canonical: {term_text(graph)}   (cost {cost:g})" if graph is not None else f"canonical: none ({error})"
