"""Whether every rule order terminates, in the reports of ``explore order`` and ``explore normal-forms``: text and JSON.

The analysis is ``uopc.relational.space.termination``; a loop is a reachable cycle (its states and steps, the rules
on them), a shortest path into it, and how the IR engine's runs (tinygrad: top down and bottom up) ended.
"""
from __future__ import annotations

from typing import Any, Callable, TextIO

from uopc.cli.explore_support import TERM_LIMIT
from uopc.relational.space.termination import Strategy, Termination


def _plural(n: int, word: str) -> str: return f"{n} {word}{'s' * (n != 1)}"


def strategy_text(s: Strategy) -> str:
  """``label: terminates (result)``, ``label: loops (error)`` or ``label: fails (error)``, and whether its path went
  through a state on a cycle."""
  through = "" if not s.through_cycle else ("; its path passes through states on a cycle and leaves it" if s.outcome == "terminates"
                                            else "; its path reaches a state on a cycle")
  return f"{s.label}: {s.outcome} ({s.detail}){through}"


def termination_text(t: Termination, strategies: tuple[Strategy, ...] | list[Strategy], out: TextIO, always: bool = False) -> None:
  """The loop, when some order never terminates: the cycle's steps and rules, a shortest path into it, and each engine
  run's outcome. ``always``: a line also when every order terminates, or when that is not established."""
  loop = t.loop
  if loop is None:
    if always: print(f"termination: {t.text}", file=out)
    return
  print(f"termination: {t.text}", file=out)
  into = "the program lies on it" if not loop.path else _plural(len(loop.path), "step")
  print(f"  a shortest path into a cycle ({into}), to state #{loop.entry.id}: {loop.entry.term(TERM_LIMIT)}", file=out)
  for k, e in enumerate(loop.path, 1): print(f"    {k}. {e.describe(TERM_LIMIT)}", file=out)
  print(f"  the cycle ({_plural(len(loop.cycle), 'step')}, in a component of {_plural(loop.component, 'state')}; "
        f"rules: {'; '.join(loop.rules)}):", file=out)
  for k, e in enumerate(loop.cycle, 1): print(f"    {k}. #{e.source.id} {e.describe(TERM_LIMIT)}", file=out)
  for s in strategies: print(f"  {strategy_text(s)}", file=out)


def termination_json(t: Termination, strategies: tuple[Strategy, ...] | list[Strategy],
                     steps: Callable[[list[Any]], list[dict[str, Any]]]) -> dict[str, Any]:
  """``{"terminates": true | false | null, "text", "states_on_cycles", "components", "loop": null | {...}, "strategies"}``;
  ``steps`` makes a path's JSON (the command's ``steps_json``)."""
  loop = t.loop
  return {
    "terminates": t.terminates, "text": t.text,
    "states_on_cycles": 0 if loop is None else loop.on_cycles, "components": 0 if loop is None else loop.components,
    "loop": None if loop is None else {
      "entry_state": loop.entry.id, "entry": loop.entry.term(TERM_LIMIT), "component_states": loop.component,
      "states": [s.id for s in loop.states], "rules": loop.rules, "path": steps(loop.path), "cycle": steps(loop.cycle)},
    "strategies": [{"label": s.label, "outcome": s.outcome, "detail": s.detail, "through_cycle": s.through_cycle} for s in strategies],
  }
