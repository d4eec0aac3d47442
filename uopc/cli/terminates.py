"""``uopc check-rules --terminates RULES``: a measure every rule lowers, or the rules none was found for, each with a
program on which the rules loop (found by the explorer) or "unknown".

For a uopc rule set the measure is searched (``uopc.termination.find_measure``); the left sides of each rule that is
not oriented, and every ``--on`` program, are explored (``--max-states`` each) for a loop
(``uopc.relational.analyses.loop_witness``), and the steps explored on the ``--on`` programs are checked as instances
of their rules too (the only ones of a rule whose left sides the builder cannot make, as ``evaluate``'s). Another
IR's rule set (``tinygrad:symbolic``) gets the loop search on the ``--on`` programs only: left sides are built for
uopc's IR (docs/termination.md).

Exit codes: 0 every rule oriented (terminating) and no loop found; 1 a rule not oriented or a loop found; 2 bad input;
3 a bound was hit (what was done is printed, marked incomplete).
"""
from __future__ import annotations

import argparse
from typing import Any

from uopc.cli.budget import LIMITS, bounded, enter, shielded, stopped, stopped_text
from uopc.cli.support import EXIT_BOUND, EXIT_FAILED, EXIT_OK, load_program, progress_bar, write_out

LOOP_TRIES = 3   # left sides of a rule that is not oriented, explored for a loop


def _loop_lines(loop: Any, indent: str) -> list[str]:
  """A loop as text: the way from the program to it, then the steps around it."""
  if loop is None: return []
  prog = loop.exploration.states[0].term()
  out = [f"{indent}program: {prog}"]
  if loop.path: out.append(f"{indent}reaches {loop.entry.term()} in {len(loop.path)} step(s): {', '.join(e.rule for e in loop.path)}")
  what = "a cycle" if loop.kind == "cycle" else "a step to a graph that holds it, so the same steps repeat inside, forever"
  out.append(f"{indent}loops by {what}:")
  out.append(f"{indent}  {loop.entry.term()}")
  out += [f"{indent}  -> {e.target.term()}   [{e.rule}]" for e in loop.steps]
  out.append(f"{indent}rules on the loop: {', '.join(dict.fromkeys(e.rule for e in loop.steps))}")
  return out


def _search(prog: Any, pm: Any, args: argparse.Namespace) -> tuple[Any, Any]:
  """The loop (or None) and the exploration (None if a bound stopped it before it ended)."""
  from uopc.relational.analyses.loop_witness import search_loop
  return bounded(lambda: search_loop(prog, pm, max_states=args.max_states, limits=LIMITS), (None, None), grace=True)


def cmd_terminates(args: argparse.Namespace) -> int:
  from uopc.cli.explore_support import program_for_rules
  from uopc.relational.ir import UOPC, ir_of_rules
  pm = args.rules.pm
  programs = [(f, program_for_rules(load_program(f), args, f)) for f in args.on]
  from uopc.relational.analyses.loop_witness import search_loop  # noqa: F401  (imported before the search: its time is the start-up's)
  from uopc.termination import find_measure
  uopc_rules = ir_of_rules(pm)[0] is UOPC
  enter("search")
  n = len(pm.rules) if uopc_rules else len(pm.patterns)
  lines = [f"rules: {args.rules.spec} ({n} rule{'s' if n != 1 else ''})"]
  failed = False
  with progress_bar(len(pm.rules) + 2 if uopc_rules else len(programs), "step", "terminates") as bar:
    def progress(what: str) -> None:
      bar.update()
      bar.set_postfix_str(what[:60], refresh=False)
    searched = []   # the --on programs' loops, and their explored steps: instances of the rules too
    for f, prog in programs:
      progress(f)
      searched.append((f, *_search(prog, pm, args)))
    if uopc_rules:
      observed = [(e.rule, e.node, e.result) for _, _, ex in searched if ex is not None for e in ex.edges if e.result is not None]
      t = bounded(lambda: find_measure(pm, observed=observed, limits=LIMITS, seed=args.seed, progress=progress), None, grace=True)
      if t is None: return _stopped(lines)
      lines += _measure_lines(t, pm, args, progress)
      failed = bool(t.unoriented)
      if t.stopped is not None: return _stopped(lines)
    else:
      lines.append("measure: not searched (left sides are built as uopc nodes only): loops are looked for on the --on programs")
      failed = True   # not proved
    for f, loop, ex in searched:
      lines.append(f"--on {f}: " + ("loops" if loop else "no loop: every order reaches a normal form (explored completely)"
                                    if ex is not None and ex.complete else f"unknown (no loop within {args.max_states:,} states)"))
      lines += _loop_lines(loop, "  ")
      failed |= loop is not None
  if stopped(): return _stopped(lines)
  verdict = "terminates: every rule lowers the measure" if not failed else "not proved to terminate"
  lines.append(f"verdict: {verdict}")
  with shielded(): write_out("\n".join(lines) + "\n")
  return EXIT_FAILED if failed else EXIT_OK


def _measure_lines(t: Any, pm: Any, args: argparse.Namespace, progress: Any) -> list[str]:
  """The measure, what its checks covered, and each rule not oriented with its loop (or "unknown")."""
  lines = [f"measure ({t.solver}; lexicographic: the first component that differs decides):", *["  " + l for l in t.measure.lines()]]
  by_name = {r.name: r for r in t.rules}
  oriented = [r for r in t.rules if r.status == "oriented"]
  every = sum(r.scope == "every instance" for r in oriented)
  sizes = sorted(len(_instances_of(r)) for r in oriented if r.scope != "every instance")
  lines.append(f"oriented: {len(oriented)} of {len(t.rules)} rules; checked on every instance: {every}"
               + (f", on instances only: {len(sizes)} ({_span(sizes)} each)" if sizes else ""))
  if t.unoriented: lines.append(f"not oriented: {len(t.unoriented)} rule(s)")
  for name in t.unoriented:
    r = by_name[name]
    lines.append(f"  {name} ({r.scope or r.status}): {r.by}")
    lines += _rule_loop(name, pm, args, progress)
  return lines


def _rule_loop(name: str, pm: Any, args: argparse.Namespace, progress: Any) -> list[str]:
  """A loop of the rule set from one of rule ``name``'s left sides, or "loop: unknown"."""
  from uopc.termination.instances import rule_instances
  rule = next(r for r in pm.rules if pm.name_of(r) == name)
  if not (made := rule_instances(rule[0], rule[1], name).instances): return ["    loop: unknown (no left side to explore)"]
  for inst in made[:LOOP_TRIES]:
    progress(f"loop: {name}")
    if (loop := _search(inst.lhs, pm, args)[0]) is not None: return _loop_lines(loop, "    ")
    if stopped(): break
  return [f"    loop: unknown (none within {args.max_states:,} states from {LOOP_TRIES} of its left sides)"]


def _span(sizes: list[int]) -> str:
  return f"{sizes[0]}" if sizes[0] == sizes[-1] else f"{sizes[0]} to {sizes[-1]}"


def _instances_of(r: Any) -> range:
  """The instances a verdict's scope ("on N instances") counts, as a range of N."""
  return range(int(r.scope.split()[1]))


def _stopped(lines: list[str]) -> int:
  lines.append(f"incomplete: {stopped_text()}")
  with shielded(): write_out("\n".join(lines) + "\n")
  return EXIT_BOUND
