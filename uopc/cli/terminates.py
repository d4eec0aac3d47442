"""``uopc check-rules --terminates RULES``: a measure every rule lowers, or the rules none was found for, each with a
program on which the rules loop (found by the explorer) or "unknown".

For a uopc rule set the measure is searched (``uopc.termination.find_measure``); the left sides of each rule that is
not oriented, and every ``--on`` program, are explored (``--max-states`` each) for a loop
(``uopc.relational.analyses.loop_witness``), and the steps explored on the ``--on`` programs are checked as instances
of their rules too. Another IR's rule set (``tinygrad:symbolic``) gets the loop search on the ``--on`` programs only:
left sides are built for uopc's IR (docs/termination.md). ``--format json`` gives the same as data (``TerminatesReport``).

Exit codes: 0 every rule oriented (terminating) and no loop found; 1 a rule not oriented or a loop found; 2 bad input;
3 a bound was hit (what was done is printed, marked incomplete).
"""
from __future__ import annotations

import argparse
import json
import time
from dataclasses import dataclass, field
from typing import Any

from uopc.cli.budget import LIMITS, bounded, enter, shielded, stopped, stopped_text
from uopc.cli.support import EXIT_BOUND, EXIT_FAILED, EXIT_OK, load_program, progress_bar, write_out

LOOP_TRIES = 3   # left sides of a rule that is not oriented, explored for a loop


@dataclass
class RuleLoop:
  """The loop search from the left sides of a rule that is not oriented: the loop found, or why none is shown."""
  loop: Any = None
  unknown: str = ""


@dataclass
class ProgramLoop:
  """The loop search on an ``--on`` program: its loop, and whether its exploration ran to the end."""
  file: str
  loop: Any
  complete: bool


@dataclass
class TerminatesReport:
  """What ``--terminates`` found, rendered as text (``lines``) or data (``to_json``)."""
  spec: str
  rules: int
  max_states: int
  termination: Any = None                       # uopc.termination.Termination; None: not searched (another IR's rules)
  loops: dict[str, RuleLoop] = field(default_factory=dict)
  programs: list[ProgramLoop] = field(default_factory=list)
  stopped_by: str | None = None
  started: float = field(default_factory=time.perf_counter)   # the search's start: JSON's "seconds" (the text has no time)

  @property
  def failed(self) -> bool:
    """Not proved: a rule not oriented, no measure searched, or a loop found on a program."""
    return self.termination is None or bool(self.termination.unoriented) or any(p.loop is not None for p in self.programs)

  @property
  def verdict(self) -> str:
    return "terminates: every rule lowers the measure" if not self.failed else "not proved to terminate"

  def lines(self) -> list[str]:
    out = [f"rules: {self.spec} ({self.rules} rule{'s' if self.rules != 1 else ''})"]
    t = self.termination
    if t is None:
      out.append("measure: not searched (left sides are built as uopc nodes only): loops are looked for on the --on programs")
    else: out += _measure_lines(t, self.loops)
    for p in self.programs:
      out.append(f"--on {p.file}: " + _program_outcome(p, self.max_states))
      out += _loop_lines(p.loop, "  ")
    out.append(f"incomplete: {self.stopped_by}" if self.stopped_by else f"verdict: {self.verdict}")
    return out

  def to_json(self) -> dict[str, Any]:
    """The report as data: the measure's components, each rule's verdict (with its loop), each program's loop."""
    t = self.termination
    rules = None if t is None else [_rule_json(r, self.loops.get(r.name)) for r in t.rules]
    oriented = [r for r in t.rules if r.status == "oriented"] if t is not None else []
    summary = {"rules": self.rules, "oriented": len(oriented) if t is not None else None,
               "every_instance": sum(r.scope == "every instance" for r in oriented) if t is not None else None,
               "loops_found": sum(l.loop is not None for l in self.loops.values()) + sum(p.loop is not None for p in self.programs)}
    return {"command": "check-rules --terminates", "rules": self.spec, "measure": None if t is None else _measure_json(t),
            "verdicts": rules, "programs": [{"file": p.file, "outcome": _program_outcome(p, self.max_states).split(":")[0],
                                             "complete": p.complete, "loop": _loop_json(p.loop)} for p in self.programs],
            "summary": summary, "verdict": None if self.stopped_by else ("terminates" if not self.failed else "not proved"),
            "seconds": round(time.perf_counter() - self.started, 3), "complete": self.stopped_by is None, "stopped_by": self.stopped_by}


def _program_outcome(p: ProgramLoop, max_states: int) -> str:
  if p.loop is not None: return "loops"
  return "no loop: every order reaches a normal form (explored completely)" if p.complete else f"unknown (no loop within {max_states:,} states)"


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


def _loop_json(loop: Any) -> dict[str, Any] | None:
  if loop is None: return None
  return {"kind": loop.kind, "program": loop.exploration.states[0].term(), "entry": loop.entry.term(),
          "path": [{"rule": e.rule, "to": e.target.term()} for e in loop.path],
          "steps": [{"rule": e.rule, "to": e.target.term()} for e in loop.steps], "rules": list(dict.fromkeys(e.rule for e in loop.steps))}


def _measure_json(t: Any) -> dict[str, Any]:
  """The measure's components in order (the first that differs decides)."""
  from uopc.termination.interpretation import DEFINITION, Interpretation
  parts: list[dict[str, Any]] = []
  for s in t.measure.stages:
    part: dict[str, Any] = {"kind": "interpretation", "definition": " ".join(DEFINITION)} if isinstance(s, Interpretation) else \
      {"kind": "weights", "weights": {f: n for f, n in sorted(s.weights.items()) if n},
       "factors": {f: list(k) for f, k in sorted(s.coefficients.items())}}
    parts.append({**part, "lowers": list(s.removes), "drops": list(s.drops)})
  if (p := t.measure.path) is not None:
    ranks = sorted(set(p.order.rank.values()), reverse=True)
    parts.append({"kind": "path order", "precedence": [sorted(f for f, r in p.order.rank.items() if r == k) for k in ranks],
                  "right_to_left": sorted(p.order.rtl), "orients": list(p.orients)})
  return {"solver": t.solver, "components": parts}


def _rule_json(r: Any, search: RuleLoop | None) -> dict[str, Any]:
  out: dict[str, Any] = {"rule": r.name, "status": r.status, "by": r.by, "scope": r.scope}
  if search is not None: out.update(loop=_loop_json(search.loop), loop_unknown=search.unknown or None)
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
  report = TerminatesReport(args.rules.spec, len(pm.rules) if uopc_rules else len(pm.patterns), args.max_states)
  with progress_bar(len(pm.rules) + 2 if uopc_rules else len(programs), "step", "terminates") as bar:
    def progress(what: str) -> None:
      bar.update()
      bar.set_postfix_str(what[:60], refresh=False)
    searched = []   # the --on programs' loops, and their explored steps: instances of the rules too
    for f, prog in programs:
      progress(f)
      searched.append((f, *_search(prog, pm, args)))
    report.programs = [ProgramLoop(f, loop, ex is not None and ex.complete) for f, loop, ex in searched]
    if uopc_rules:
      observed = [(e.rule, e.node, e.result) for _, _, ex in searched if ex is not None for e in ex.edges if e.result is not None]
      t = bounded(lambda: find_measure(pm, observed=observed, limits=LIMITS, seed=args.seed, progress=progress), None, grace=True)
      if t is None: return _write(report, args, stopped=True)
      report.termination = t
      if t.stopped is not None: return _write(report, args, stopped=True)
      for name in t.unoriented: report.loops[name] = _rule_loop(name, pm, args, progress)
  return _write(report, args, stopped=stopped() is not None)


def _write(report: TerminatesReport, args: argparse.Namespace, stopped: bool) -> int:
  if stopped: report.stopped_by = stopped_text()
  text = json.dumps(report.to_json(), indent=1, ensure_ascii=False) if args.format == "json" else "\n".join(report.lines())
  with shielded(): write_out(text + "\n")
  if stopped: return EXIT_BOUND
  return EXIT_FAILED if report.failed else EXIT_OK


def _measure_lines(t: Any, loops: dict[str, RuleLoop]) -> list[str]:
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
    search = loops.get(name)
    if search is None: continue   # a bound stopped the search before its loops were looked for
    lines += _loop_lines(search.loop, "    ") if search.loop is not None else [f"    loop: unknown ({search.unknown})"]
  return lines


def _rule_loop(name: str, pm: Any, args: argparse.Namespace, progress: Any) -> RuleLoop:
  """A loop of the rule set from one of rule ``name``'s left sides, or why none is known."""
  from uopc.termination.instances import rule_instances
  rule = next(r for r in pm.rules if pm.name_of(r) == name)
  if not (made := rule_instances(rule[0], rule[1], name).instances): return RuleLoop(unknown="no left side to explore")
  for inst in made[:LOOP_TRIES]:
    progress(f"loop: {name}")
    if (loop := _search(inst.lhs, pm, args)[0]) is not None: return RuleLoop(loop)
    if stopped(): break
  return RuleLoop(unknown=f"none within {args.max_states:,} states from {LOOP_TRIES} of its left sides")


def _span(sizes: list[int]) -> str:
  return f"{sizes[0]}" if sizes[0] == sizes[-1] else f"{sizes[0]} to {sizes[-1]}"


def _instances_of(r: Any) -> range:
  """The instances a verdict's scope ("on N instances") counts, as a range of N."""
  return range(int(r.scope.split()[1]))
