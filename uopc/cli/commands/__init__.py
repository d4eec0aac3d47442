"""Every ``uopc`` command, one row each (``uopc.cli.spec.Command``): the function it runs, its help, its options (the shared
ones from ``uopc.cli.options``, declared once) and what each exit code means for it. ``uopc.cli.main.build_parser`` makes the
parser from this table; ``tests/test_commands.py`` checks the exit codes against ``docs/failure-contract.md``.

Each command's module lives in this package: the canonical engine's (``run``, ``simplify``, ``trace``, ``saturate``), the C
backend's (``backend``) and the explorer's (``explore``, ``order``, ``pairs``, ``search``, ``best``; ``explore view`` is
``uopc.cli.reports.html``'s); a command's module is imported only when it runs.

>>> [c.name for c in COMMANDS][:5]
['run', 'simplify', 'trace', 'emit-c', 'check-rules']
"""
from __future__ import annotations

import argparse

from uopc.cli.options import (CLUSTER, COST, DEFAULT_TIMEOUT, EACH_RULES, EXPLORE_MAX_STEPS, MAX_DEPTH, MAX_STEPS, NO_REDUCE, OUTPUT, PARAM,
                              PROGRAM, RULES, RULESET, SAMPLES, SEED, SEMANTICS, bounds, explore_options, formats, max_states, output)
from uopc.cli.spec import Command, option
from uopc.cli.support import positive_int, seconds_arg

REACH_MAX_STATES = 10_000   # graphs saturate's reachability check of its best graph looks at: a side question, not the command's search

BAD = (2, "bad input")
BOUND = (3, "a bound was hit")
EXPLORED = ((0, "the space was explored completely"), (1, "a rule raised (its stuck steps are printed)"), BAD,
            (3, "a bound was hit (the partial result is printed)"))
FIRINGS = " and html: every firing with the graph before and after"

GROUPS = {"explore": ("the relational explorer: every rewrite ordering", "Explore every graph that any ordering of rewrites reaches.")}
"""Commands with subcommands: their help and description."""

COMMANDS: tuple[Command, ...] = (
  Command("run", "uopc.cli.commands.run:cmd_run", "value of a closed program", "Evaluate a program by rewriting and print its value.",
          (PROGRAM, PARAM,
           option("--backend", choices=("python", "c"), default="python",
                  help="python: evaluate by rewriting (default); c: compile the simplified program with the system C compiler and run it"),
           MAX_STEPS, *bounds()),
          ((0, "the value was printed"), (1, "the program failed (out-of-bounds index, did not evaluate, rules loop, a C runtime error)"),
           BAD, BOUND)),
  Command("simplify", "uopc.cli.commands.simplify:cmd_simplify", "canonical normal form, as .uir", "Rewrite a program to its canonical normal form.",
          (PROGRAM, RULES, MAX_STEPS, *bounds(), formats("uir", "json", "html", text="; json" + FIRINGS), OUTPUT),
          ((0, "simplified"), (1, "the program failed (the rules loop, a rule found it out of bounds)"), BAD, BOUND)),
  Command("trace", "uopc.cli.commands.trace:cmd_trace", "each rule firing of the canonical engine", "Print every rule lookup of graph_rewrite.",
          (PROGRAM, RULES, PARAM, option("--stats", action="store_true", help="per-rule tries/matches/fires/time instead of the trace"),
           MAX_STEPS, *bounds(), formats("text", "json", "html", text="; json" + FIRINGS), OUTPUT),
          ((0, "traced"), (1, "the program failed (the rules loop, a rule found it out of bounds)"), BAD, BOUND)),
  Command("emit-c", "uopc.cli.commands.emit_c:cmd_emit_c", "the C program of a .uir program",
          "Print the standalone C program of a .uir program (its canonical form, CALLs inlined). Build it with: "
          "cc -std=gnu99 -O1 -ffp-contract=off prog.c -lm; run it with the PARAM values as arguments (slot order, row-major) or on stdin.",
          (PROGRAM, option("--no-simplify", action="store_true", help="lower the program as written, not simplify(program)"),
           output("write the C source to FILE instead of stdout")),
          ((0, "written"), (1, "the program failed (it cannot be lowered, the rules loop)"), BAD)),
  Command("check-rules", "uopc.cli.commands.check_rules:cmd_check_rules", "test each rule's soundness against compiled C",
          "Build random instances of every rule's pattern, rewrite them, compile both sides to C and compare them bit for bit on random inputs.",
          (RULESET, option("--samples", type=positive_int, default=100, metavar="N", help="rewritten instances per rule (default 100)"),
           option("--inputs", type=positive_int, default=24, metavar="K",
                  help="inputs per instance (default 24): half walk through edge values, half random"),
           SEED, option("--prove", action="store_true",
                        help="prove each rule for all inputs of each dtype with z3, or refute it with a counterexample that run() and C "
                             "confirm; unknown with the reason (docs/prove.md; needs pip install -e '.[prove]')"),
           option("--terminates", action="store_true",
                  help="prove termination instead: a measure every rule lowers, or the rules not oriented, each with a program on which "
                       "the rules loop or 'unknown' (docs/termination.md)"),
           option("--on", action="append", default=[], metavar="FILE",
                  help="--terminates: also look for a loop on this program (.uir or file.py:attr; repeatable; the only check of "
                       "another IR's rule set, e.g. tinygrad:symbolic)"),
           max_states(2_000, "--terminates: explore at most N states of each program looking for a loop (default 2,000)"),
           formats("text", "json", text="; json with --prove or --terminates"), *bounds()),
          ((0, "every rule is sound (--prove: none refuted; each proved, or unknown with its reason; --terminates: every rule "
               "oriented, no loop found)"),
           (1, "a rule is unsound or raises, or the C compiler failed (--prove: a rule is refuted; --terminates: a rule not oriented, "
               "or a loop found)"),
           (2, "bad input (--prove: z3 is not installed)"), BOUND)),
  Command("explore reachable", "uopc.cli.commands.explore:cmd_reachable", "every reachable graph (bounded, streamed)",
          "Stream every graph reachable from the program, with the step that first reached it.",
          (*explore_options(("text", "json", "dot", "html")), option("--dfs", action="store_true", help="depth first instead of breadth first"),
           SEMANTICS, CLUSTER),
          EXPLORED),
  Command("explore normal-forms", "uopc.cli.commands.explore:cmd_normal_forms", "every normal form, with a path to each",
          "Every normal form of the program with one shortest rewrite path, and which one the canonical engine (graph_rewrite) produces.",
          (*explore_options(("text", "json", "dot", "html")), NO_REDUCE, SEMANTICS, SAMPLES, SEED, CLUSTER),
          EXPLORED),
  Command("explore search", "uopc.cli.commands.search:cmd_search", "a shortest rewrite sequence to a target (or --to: a common graph)",
          "Find the shortest rewrite sequence from the program to a graph matching a target term (?x binds a hole, the same name twice "
          "binds one node, _ matches anything), or with --to a graph both programs rewrite to.",
          (*explore_options(("text", "json", "html"), canonical=False),
           option("--target", group="what", metavar="TERM", help="a term with holes, e.g. 'add(mul(p0, 3), ?c)'"),
           option("--target-file", group="what", metavar="FILE", help="a .uir program: search for exactly this graph"),
           option("--to", group="what", metavar="FILE", help="a second .uir program: search for a graph both rewrite to"),
           option("--to-term", group="what", metavar="TERM",
                  help="--to with the second program as a term without holes, as the explorer prints one (e.g. 'let a = add(p0, 0) in add(a, a)')"),
           option("--all", action="store_true", help="stream every match, nearest first (not with --to)"), CLUSTER),
          ((0, "found"), (1, "not found (the whole space was searched)"), BAD, (3, "not found before a bound"))),
  Command("explore order", "uopc.cli.commands.order:cmd_order", "does the result depend on rule order? forks, with both paths",
          "The canonical result, every normal form, and for each other normal form the fork where its path leaves the canonical engine's path.",
          (*explore_options(("text", "json", "html")), NO_REDUCE,
           option("--permutations", action="store_true", help="also try other rule orders with the canonical engine"),
           option("--max-orders", type=positive_int, default=200, metavar="N", help="rule orders tried by --permutations (default 200)"),
           option("--bindings", type=positive_int, default=8, metavar="N",
                  help="random bindings of free PARAMs a witness search tries after the edge values where z3 does not decide (default 8)"),
           SEED, SAMPLES),
          ((0, "complete"), (1, "the canonical engine failed, or a step is stuck (a rule raised)"), BAD, BOUND)),
  Command("explore pairs", "uopc.cli.commands.pairs:cmd_pairs", "critical pairs of a rule set, joinable or not, with witnesses",
          "Unify every rule's pattern with every non-variable position of every rule's pattern, instantiate each overlap (fresh PARAMs, "
          "edge constants), apply both rules and check that the results join.",
          (RULESET, formats("text", "json", "html"), OUTPUT, option("--all", action="store_true", help="also list the joinable pairs (text)"),
           option("--max-instances", type=positive_int, default=64, metavar="N", help="instances tried per pair (default 64)"),
           max_states(2_000, "states per side when searching for a common reduct (default 2,000)"),
           option("--max-steps", type=positive_int, default=10_000, metavar="N",
                  help="rule lookups per normalization by the canonical engine (default 10,000)"),
           *bounds(600.0)),
          ((0, "all joinable"), (1, "some pair not joinable or a rule raised"), BAD, (3, "undecided (a bound was hit)"))),
  Command("rules", "uopc.cli.commands.rules:cmd_rules", "how often each rule fires on a corpus; dead and shadowed rules",
          "For each rule: how often it fires across a corpus under the canonical order and under any order (each graph explored), "
          "and for one the canonical engine never fires: shadowed (it fires in another order: other rules take its redexes first; "
          "with a witness), matched but never rewrote, or its pattern never reached by a graph of the corpus.",
          (RULESET, option("--corpus", nargs="+", required=True, metavar="CORPUS",
                           help="a uopc capture corpus (.jsonl), .uir files, file.py:attr programs, or directories of those"),
           max_states(2_000, "states explored per graph (default 2,000)"), EXPLORE_MAX_STEPS, *bounds(DEFAULT_TIMEOUT),
           formats("text", "json"), OUTPUT),
          ((0, "every graph explored completely"), BAD, (3, "a bound cut an exploration or the run short (the counts cover what was explored)"))),
  Command("explore best", "uopc.cli.commands.best:cmd_best", "the cheapest graph reachable by rewriting, with its path",
          "Search best first for the cheapest graph the rules reach from the program (directed rewriting; cycles are fine).",
          (*explore_options(("text", "json", "html")), COST),
          ((0, "proven cheapest"), BAD, BOUND)),
  Command("explore view", "uopc.cli.reports.html:cmd_view", "the page of a saved --format json output",
          "Write the --format html page of a saved --format json output of an explorer command (reachable, normal-forms, order, "
          "search, pairs, best), of saturate or of trace/simplify.",
          (option("file", help="the saved JSON"), output("write the page to FILE (default stdout)")),
          ((0, "written"), BAD)),
  Command("saturate", "uopc.cli.commands.saturate:cmd_saturate", "the cheapest equal graph, by equality saturation",
          "Apply every rule in every way in an e-graph, then extract the cheapest graph under a cost.",
          (PROGRAM, RULES, COST, option("--max-iterations", type=positive_int, default=30, metavar="N", help="saturation iterations (default 30)"),
           option("--max-enodes", type=positive_int, default=10_000, metavar="N", help="e-nodes (default 10,000)"),
           *bounds(DEFAULT_TIMEOUT), EXPLORE_MAX_STEPS,
           max_states(REACH_MAX_STATES, f"graphs the reachability search may look at (default {REACH_MAX_STATES:,})"),
           formats("text", "json", "html"), OUTPUT),
          ((0, "saturated"), BAD, (3, "a bound cut saturation short (the best graph so far is printed)"))),
  Command("capture", "uopc.cli.commands.capture:cmd_capture", "record the rewrite passes' input graphs while a program runs",
          "Run a program (after --) with a hook in its Python processes that records the input graph of every tinygrad graph_rewrite "
          "pass and PyTensor rewriter pass, and write them, deduplicated, to a corpus (JSON Lines) for uopc check. Sets tinygrad's "
          "CACHELEVEL=0 PARALLEL=0 so that its passes run in the process.",
          (option("-o", "--output", required=True, metavar="CORPUS", help="the corpus file to write (JSON Lines)"),
           option("command", nargs=argparse.REMAINDER, metavar="-- PROGRAM ...", help="the program to run, after --"),
           *bounds()),
          ((0, "captured"), (1, "the program failed (the corpus holds what ran)"), BAD,
           (3, "a bound stopped the program (the corpus holds what ran)"))),
  Command("check", "uopc.cli.commands.check:cmd_check", "check a captured corpus for rule-order findings",
          "Explore every graph of a corpus (uopc capture) in every rewrite order within a per-graph budget, and report each cause "
          "found once: rules that raise, orders that never end, results that depend on rule order, results that differ in value; "
          "and the graphs no search decided. --rules checks every graph under that rule set; without it, each graph under the "
          "rule set of the pass that saw it (graphs of unnamed rule sets are skipped and counted).",
          (option("corpus", help="a corpus file (uopc capture -o)"),
           EACH_RULES,
           max_states(2_000, "states per graph (default 2,000)"), MAX_DEPTH,
           option("--graph-timeout", type=seconds_arg, default=5.0, metavar="S", help="seconds per graph (default 5)"),
           option("--bindings", type=positive_int, default=8, metavar="N", help="random bindings for comparing values (default 8)"), SEED,
           option("--baseline", metavar="FILE", help="compare with FILE (only new findings fail), or write it if it does not exist"),
           option("--update-baseline", action="store_true", help="with --baseline: rewrite FILE with this run's findings"),
           option("--minimize", action="store_true", help="shrink each finding's example to the smallest graph that still shows it"),
           option("--jobs", type=positive_int, default=1, metavar="N", help="check N graphs at a time, in N processes (default 1)"),
           option("--cycles", action="store_true",
                  help="a cycle some orders go round, where others end, is a finding (default: counted; the rules of a shortest cycle)"),
           *bounds(), formats("text", "json", "html"), OUTPUT),
          ((0, "no finding (with --baseline: no new one)"), (1, "findings (with --baseline: new ones)"), BAD,
           (3, "a bound stopped the check before every graph was checked (the findings so far are printed)"))),
)
