"""Every option more than one command takes, declared once (``uopc.cli.spec.Option``): the program, ``--rules``,
the bounds, the output, and the explorer's options. ``uopc.cli.commands.COMMANDS`` names them command by command.

>>> [o.flags[0] for o in explore_options(("text", "json"))][:4]
['file', '--rules', '--max-states', '--max-depth']
"""
from __future__ import annotations

import argparse
from typing import Any

from uopc.cli.budget import DEFAULT_MAX_MEMORY, memory_text
from uopc.cli.spec import Option, option
from uopc.cli.support import RULES_HELP, integer_arg, memory_arg, natural_int, param_arg, positive_int, rules_arg, seconds_arg

# A default run is bounded by counts of work, so that it gives the same output on a loaded machine as on an idle one;
# time is only a safety net far above what a default run takes. 50,000 states: 0.6-1.3 s of exploring for
# examples/five_params.uir, doubling.uir or sum30.uir on an idle machine (2 cores), 4 s for best (its states cost more),
# and room above stack_five_params.uir's 12,262. A report of that many (five_params' JSON: 55 MB) takes a few seconds more.
DEFAULT_MAX_STATES = 50_000
DEFAULT_MAX_DEPTH = 50
DEFAULT_TIMEOUT = 300.0   # seconds, of the explorer's commands and saturate: the safety net (a rule that never returns)
# --samples by default: random runs after a bound until they have made this many graphs (each step of a run makes every
# successor of its graph): a count of their work, as --max-states is of the exploration's. five_params' 16 normal forms
# are all found by run 1,893, 508,709 graphs (1.2 s); sum30's runs make 6,700 graphs each (10 us a graph: 6 s in all)
DEFAULT_SAMPLE_GRAPHS = 600_000
# ... ending sooner once this many runs in a row (and twice as many as it took to find the last new form) found none:
# doubling.uir's one normal form is found by the first run, and its runs are costly (40 us a graph: 51 runs, 9 s)
SAMPLE_PATIENCE = 50


def cost_arg(spec: str) -> Any:
  """argparse type for ``--cost`` (``uopc.cost.Cost.parse``)."""
  from uopc.cost import Cost, CostError
  try: return Cost.parse(spec)
  except CostError as e: raise argparse.ArgumentTypeError(str(e)) from None


def cluster_arg(text: str) -> str:
  """argparse type for ``--cluster``: ``local:N`` with N >= 1, or a Ray address (``uopc.relational.cluster.parse_cluster``)."""
  from uopc.relational.cluster import ClusterError, parse_cluster   # only when --cluster is given: it needs no Ray to parse
  try: parse_cluster(text)
  except ClusterError as e: raise argparse.ArgumentTypeError(str(e).removeprefix(f"--cluster {text.strip()}: ")) from None
  return text.strip()


PROGRAM = option("file", help=".uir program (- for stdin)")
RULES = option("--rules", type=rules_arg, default="symbolic", metavar="NAME", help=RULES_HELP)
EACH_RULES = option("--rules", type=rules_arg, default=None, metavar="NAME", help=RULES_HELP)   # check's: default, each graph's own
RULESET = option("rules", nargs="?", default="symbolic", type=rules_arg, metavar="RULESET", help=RULES_HELP)   # the positional form
PARAM = option("--param", action="append", default=[], type=param_arg, metavar="SLOT=VALUE", help="bind a PARAM (repeatable)")
MAX_STEPS = option("--max-steps", type=positive_int, default=None, metavar="N",
                   help="rule lookups before giving up on a looping rule set (default: 1,000,000 + 100 per node)")
# the explorer's canonical engine: the library's default (uopc.relational.canonical), so a looping rule set fails in 1-2 s
EXPLORE_MAX_STEPS = option("--max-steps", type=positive_int, default=None, metavar="N",
                           help="rule lookups of the canonical engine before it is reported as not converging (default: "
                                "200,000 + 20 per node)")


def output(what: str = "write to FILE, whole or not at all (default stdout)") -> Option:
  """``-o``/``--output``, its help saying what is written."""
  return option("-o", "--output", metavar="FILE", help=what)


OUTPUT = output()
COST = option("--cost", type=cost_arg, default="nodes", metavar="C",
              help="nodes (distinct nodes, default), OP=W,... (op weights, *=W for the rest), or file.py:fn (fn(node, src_costs))")
SEED = option("--seed", type=integer_arg, default=0, help="seed of the random choices (default 0: the output is reproducible)")
MAX_MEMORY = option("--max-memory", type=memory_arg, default=DEFAULT_MAX_MEMORY, metavar="SIZE",
                    help=f"stop when resident memory exceeds SIZE (512M, 2G; 0: no bound; default {memory_text(DEFAULT_MAX_MEMORY)})")


def timeout(default: float | None = None) -> Option:
  """``--timeout``, with the command's default (None: no bound; a default is a safety net: the counts bound a default run)."""
  return option("--timeout", type=seconds_arg, default=default, metavar="S",
                help="stop after S seconds and report what was done, exit 3 ("
                     + ("default: none)" if default is None else f"default {default:g}: a safety net, the counts bound a default run)"))


def bounds(default_timeout: float | None = None) -> tuple[Option, Option]:
  """``--timeout`` and ``--max-memory``: the bounds of a long-running command (``uopc.cli.budget``)."""
  return timeout(default_timeout), MAX_MEMORY


def formats(*choices: str, text: str = "") -> Option:
  """``--format``, the first choice the default; ``text`` says more of them."""
  return option("--format", choices=choices, default=choices[0], help=f"output format (default {choices[0]}){text}")


# the explorer's
def max_states(default: int | None, what: str) -> Option:
  """``--max-states``, with the command's default and what its states are."""
  return option("--max-states", type=positive_int, default=default, metavar="N", help=what)


MAX_STATES = max_states(DEFAULT_MAX_STATES, f"stop after N states (default {DEFAULT_MAX_STATES:,}: a default run is bounded by this "
                                            "count, so it gives the same output however busy the machine is)")
MAX_DEPTH = option("--max-depth", type=natural_int, default=DEFAULT_MAX_DEPTH, metavar="D",
                   help=f"do not go more than D steps from the program (default {DEFAULT_MAX_DEPTH})")
DOT = (option("--dot-max-nodes", type=positive_int, default=None, metavar="N",
              help="--format dot: draw at most N states (the program, the canonical path and the normal forms first)"),
       option("--dot-paths", action="store_true", help="--format dot: only the normal forms and the paths to them"))
NO_REDUCE = option("--no-reduce", dest="reduce", action="store_false",
                   help="explore every reachable graph (default: skip orderings that reach no other normal form; see docs/reduction.md)")
SEMANTICS = option("--semantics", choices=("graph", "tree"), default="graph",
                   help="graph (default): a step rewrites a node at every use, as graph_rewrite does; "
                        "tree: a step rewrites one occurrence (docs/relational.md)")
CLUSTER = option("--cluster", type=cluster_arg, metavar="local:N|ADDRESS", default=None,
                 help="explore on a Ray cluster, with the same results: local:N starts N workers here and stops them after, "
                      "ADDRESS joins a cluster started by `ray start --head` (docs/scaling.md; needs pip install -e '.[cluster]')")
SAMPLES = option("--samples", type=natural_int, default=None, metavar="N",
                 help=f"if a bound stops the exploration: N random rewrite runs, each to a normal form, seeded by --seed (default: "
                      f"runs until their steps have made {DEFAULT_SAMPLE_GRAPHS:,} graphs, or {SAMPLE_PATIENCE} runs in a row, and twice as many "
                      f"as it took to find the last new one, found none: counts, so the same runs on any machine; 0: none)")


def explore_options(fmts: tuple[str, ...], canonical: bool = True) -> tuple[Option, ...]:
  """What every exploring command takes: the program, ``--rules``, the bounds, ``--format`` (with ``-o``, and the DOT options
  when it draws DOT); ``canonical``: it also runs the canonical engine (``--max-steps``)."""
  return (PROGRAM, RULES, MAX_STATES, MAX_DEPTH, *bounds(DEFAULT_TIMEOUT), *((EXPLORE_MAX_STEPS,) if canonical else ()),
          formats(*fmts), OUTPUT, *(DOT if "dot" in fmts else ()))
