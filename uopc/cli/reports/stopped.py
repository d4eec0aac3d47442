"""The output of a command a bound or an interrupt stopped before it had anything to report: whole, in the command's
format, marked incomplete, with nothing found yet (not 0 bytes, not a line of text where JSON was asked for).

``uopc.cli.main`` writes it when the command ends by a ``BoundHit`` it did not catch (a bound while the rules or the
program load, a rule call that never returns outside the bounded search), and the commands whose search gave nothing at
all (``explore pairs``, ``explore best``, ``saturate``) write it instead of their report. Text is one line; JSON is the
command's keys, empty, with ``"complete": false``, ``"bound"`` and ``"stopped_by"``; ``--format html`` the page of that
JSON; DOT an empty drawing whose label says it. A format that has no incomplete form (``simplify``'s ``.uir``, ``emit-c``'s
C, ``run``'s value) gets nothing, and the closing line on stderr says so.

>>> import argparse
>>> args = argparse.Namespace(command="explore", explore_command="best", format="json", file="p.uir", rules=None)
>>> data = stopped_json(args, "timeout", "--timeout 1 s", "the start-up")
>>> data["complete"], data["stopped_by"], data["best"], data["path"]
(False, '--timeout 1 s', None, [])
"""
from __future__ import annotations

import argparse
import json
import sys
from typing import Any, Callable

# the page (``uopc.cli.reports.page.KINDS``) of each command that writes one
PAGE_KIND = {"explore reachable": "reachable", "explore normal-forms": "normal-forms", "explore order": "order",
             "explore search": "search", "explore pairs": "pairs", "explore best": "best", "saturate": "saturate",
             "simplify": "trace", "trace": "trace"}


class Returned:
  """A command that remembers what it returned: a ``BoundHit`` raised after it returned (a tick due as the command
  ended, once its output was written) must not write the empty output too.

  >>> r = Returned(lambda args: 0)
  >>> r.code, r(None), r.code
  (None, 0, 0)
  """

  def __init__(self, func: Callable[[argparse.Namespace], int]) -> None:
    self.func = func
    self.code: int | None = None

  def __call__(self, args: argparse.Namespace) -> int:
    self.code = self.func(args)
    return self.code


def command_name(args: argparse.Namespace) -> str:
  """``explore search``, ``saturate``: the command ``args`` were parsed for."""
  name = str(getattr(args, "command", "") or "")
  sub = getattr(args, f"{name}_command", None)
  return f"{name} {sub}" if sub else name


def _empty(kind: str) -> dict[str, Any]:
  """What each page's JSON holds when nothing was found (the keys its readers and its page look up)."""
  if kind in ("reachable", "normal-forms"):
    return {"format": 2, "states": [], "edges": [], "normal_forms": [], "normal_form_ids": [], "cycles": [], "stuck": [],
            "canonical": None, "canonical_state": None, "canonical_error": "not computed", "nodes": [],
            **({"paths": {}, "exhaustive": False, "sampled_normal_forms": [], "sampling": None} if kind == "normal-forms" else {})}
  if kind == "order":
    return {"format": 2, "states": 0, "canonical": None, "canonical_error": "not computed", "canonical_index": None,
            "canonical_path": [], "canonical_path_complete": False, "normal_forms": [], "cycles": [], "forks": [], "fork_kinds": {},
            "exhaustive": False, "sampled_normal_forms": [], "sampling": None, "verdict": "unknown", "sampled_witness": None, "nodes": []}
  if kind == "search":
    return {"format": 2, "found": False, "path": [], "bindings": {}, "matches": [], "searched": 0, "stuck": [], "nodes": []}
  if kind == "pairs": return {"pairs": [], "skipped_rules": []}
  if kind in ("best", "saturate"):
    return {"format": 2, "best": None, "cost": None, "path": [], "canonical": None, "canonical_cost": None,
            "canonical_error": "not computed", "nodes": []}
  if kind == "trace": return {"result": None, "error": None, "steps": []}
  return {}


def stopped_json(args: argparse.Namespace, bound: str | None, flag: str, phase: str | None = None, program: Any = None) -> dict[str, Any]:
  """The command's JSON with nothing found: its keys, empty, ``"complete": false`` and what stopped it (and when); the
  ``program`` where it was loaded."""
  from uopc.cli.explore_support import term_text
  rules = getattr(args, "rules", None)
  spec = getattr(rules, "spec", None) or (str(rules) if rules is not None else None)
  name = command_name(args)
  kind = PAGE_KIND.get(name, "")
  found = f"nothing: stopped by {flag}{f' during {phase}' if phase else ''} before anything was found"
  data: dict[str, Any] = {"command": name, "program": term_text(program), "rules": spec,
                          "complete": False, "bound": bound, "stopped_by": flag, "phase": phase, "note": found, **_empty(kind)}
  if kind == "pairs":
    data["ruleset"] = spec
    data["summary"] = {"rules": 0, "overlaps": 0, "complete": False, "timed_out": True, "bound": bound, "line": found}
  return data


def stopped_text(flag: str, phase: str | None = None) -> str:
  """``incomplete: stopped by --timeout 1 s during the start-up, before any result``: the text output's one line."""
  return f"incomplete: stopped by {flag}{f' during {phase}' if phase else ''}, before any result"


def write_stopped(args: argparse.Namespace, bound: str | None, flag: str, phase: str | None = None, program: Any = None) -> bool:
  """The command's output with nothing found, in ``--format``, to ``-o FILE`` or stdout; False for a format that has no
  such output (nothing written)."""
  from uopc.cli.reports.page import write_page, write_text
  fmt = getattr(args, "format", None) or ("text" if command_name(args) == "check-rules" else None)   # run's value, emit-c's C: none
  path = getattr(args, "output", None)
  if path is None and sys.stdout is None: return False   # stdout closed: nowhere to write
  kind = PAGE_KIND.get(command_name(args))
  if fmt == "text": write_text(path, stopped_text(flag, phase) + "\n")
  elif fmt in ("json", "html") and kind is not None:
    data = stopped_json(args, bound, flag, phase, program)
    if fmt == "json": write_text(path, json.dumps(data, indent=1, ensure_ascii=False) + "\n")
    else: write_page(path, data, kind, f"uopc {command_name(args)}: {getattr(args, 'file', None) or ''}")
  elif fmt == "dot":
    label = json.dumps(stopped_text(flag, phase), ensure_ascii=False)
    write_text(path, f"digraph states {{\n  label={label}\n}}\n")
  else: return False
  return True


def write_nothing_found(args: argparse.Namespace, program: Any = None) -> None:
  """``write_stopped`` for the bound of the command's budget: a search that a bound stopped before it found anything."""
  from uopc.cli.budget import current
  b = current()
  reason = None if b is None else b.reason
  write_stopped(args, reason, b.flag_text() if b is not None and reason is not None else "a bound", None, program)
