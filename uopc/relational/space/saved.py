"""Saved explorations: the ``--format json`` output of an explorer command, loaded back.

``load(path)`` reads what ``uopc explore reachable|normal-forms|order|search|pairs``
or ``uopc trace|simplify`` printed with ``--format json`` and returns a ``Saved``:
the command's dict (``data``), which command wrote it (``kind``) and, for an
exploration, its states, edges, normal forms and paths as records, graphs as one-line terms; nothing is re-explored.
It reads both formats (docs/visualize.md): format 2 (``"format": 2``) names each distinct node once in ``nodes``
and refers to graphs by row, and ``NodeTexts`` writes a row back as the term ``uopc.term.show`` gives; the
files written before it (no ``format`` key) hold each graph as text, cut at 10,000 characters.

>>> import json, tempfile
>>> d = {"program": "add(p0, 0)", "states": [
...   {"id": 0, "depth": 0, "parent": None, "rule": None, "node": None, "term": "add(p0, 0)", "normal": False, "error": None},
...   {"id": 1, "depth": 1, "parent": 0, "rule": "x + 0", "node": "add(p0, 0)", "term": "p0", "normal": True, "error": None}],
...   "edges": [{"from": 0, "to": 1, "rule": "x + 0", "node": "add(p0, 0)", "result": "p0"}], "normal_form_ids": [1]}
>>> with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f: json.dump(d, f)
>>> saved = load(f.name)
>>> saved.kind, [s.term for s in saved.normal_forms], [s.term for s in saved.path_to(saved.normal_forms[0])]
('reachable', ['p0'], ['add(p0, 0)', 'p0'])
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any, Callable

from uopc.json_input import JSONInputError, parse_json
from uopc.term import let_form

__all__ = ["LoadError", "NodeTexts", "Saved", "SavedEdge", "SavedState", "check_exploration", "check_fields", "incomplete", "kind_of", "load",
           "step_texts", "texts_of"]


class LoadError(ValueError):
  """A file that is not the JSON of an explorer command; the message is ``file:line:col: why`` or ``file: why``."""


@dataclass(frozen=True)
class SavedState:
  """One state of a saved exploration (the JSON's ``states`` entry)."""
  id: int
  depth: int
  parent: int | None
  rule: str | None
  node: str | None
  term: str
  normal: bool | None
  error: str | None
  result: str | None = None   # what the step that reached it made of its node (absent in files saved before it was printed)


@dataclass(frozen=True)
class SavedEdge:
  """One step of a saved exploration: ``source`` to ``target`` (state ids) by ``rule`` rewriting ``node`` into ``result``."""
  source: int
  target: int
  rule: str
  rule_index: int | None
  node: str
  result: str | None
  error: str | None


@dataclass
class Saved:
  """A loaded ``--format json`` output. ``states``, ``edges`` and ``normal_forms`` are empty unless it is an exploration."""
  kind: str
  data: dict[str, Any]
  states: list[SavedState] = field(default_factory=list)
  edges: list[SavedEdge] = field(default_factory=list)

  @property
  def normal_forms(self) -> list[SavedState]:
    """The normal forms the file holds (an incomplete file may name some past the states it lists: ``check_exploration``)."""
    by_id = self.states_by_id
    return [by_id[i] for i in self.data.get("normal_form_ids", []) if i in by_id]

  @property
  def states_by_id(self) -> dict[int, SavedState]:
    return {s.id: s for s in self.states}

  def path_to(self, state: SavedState) -> list[SavedState]:
    """The states from the program to ``state`` through parents (the first way each was reached)."""
    by_id, out = self.states_by_id, [state]
    while out[-1].parent is not None: out.append(by_id[out[-1].parent])
    return out[::-1]


class _Row:
  """One node of a format-2 table, its pieces holding its sources' ``_Row`` objects (``let_form`` tells nodes apart by identity)."""
  __slots__ = ("parts",)
  def __init__(self, parts: Any) -> None: self.parts = parts


class NodeTexts:
  """The terms of a format-2 ``nodes`` table: ``texts(i)`` is row ``i``'s graph in the one-line form (``show``, uncut).

  >>> t = NodeTexts(["p0", "0", ["add(", 0, ", ", 1, ")"], ["add(", 2, ", ", 2, ")"]])
  >>> t(3), t(None)
  ('let a = add(p0, 0) in add(a, a)', None)
  """
  def __init__(self, rows: Any) -> None:
    if not isinstance(rows, list): raise ValueError("nodes is not a list")
    self.rows: list[_Row] = []
    for i, r in enumerate(rows):
      if isinstance(r, str): self.rows.append(_Row(r))
      elif isinstance(r, list) and r and all(isinstance(c, str) or (type(c) is int and 0 <= c < i) for c in r):
        self.rows.append(_Row([c if isinstance(c, str) else self.rows[c] for c in r]))
      else: raise ValueError(f"node {i} is neither a text nor pieces naming earlier nodes")
    self._texts: dict[int, str] = {}

  def __call__(self, i: Any) -> str | None:
    if i is None: return None
    if type(i) is not int or not 0 <= i < len(self.rows): raise ValueError(f"no node {i!r}")
    if (t := self._texts.get(i)) is None: t = self._texts[i] = str(let_form(self.rows[i], lambda r: r.parts))
    return t


def texts_of(data: dict[str, Any]) -> Callable[[Any], Any]:
  """What turns a graph field of ``data`` into its term: a row's text (``NodeTexts``) in format 2, the field itself in format 1."""
  return NodeTexts(data["nodes"]) if data.get("format") == 2 else lambda t: t


def step_texts(data: dict[str, Any], steps: list[dict[str, Any]]) -> list[dict[str, Any]]:
  """A path of ``data`` (``order``'s, ``search``'s, ``best``'s, ``saturate``'s ``path`` ...) with its graphs as terms, in
  either format: each step's ``node``, ``result``, ``before`` and ``after`` (what ``uopc.relational.replay`` reads).

  >>> step_texts({"format": 2, "nodes": ["p0", "0", ["add(", 0, ", ", 1, ")"]]},
  ...            [{"rule_index": 2, "node": 2, "result": 0, "before": 2, "after": 0}])
  [{'rule_index': 2, 'node': 'add(p0, 0)', 'result': 'p0', 'before': 'add(p0, 0)', 'after': 'p0'}]
  """
  text = texts_of(data)
  return [{**s, **{k: text(s[k]) for k in ("node", "result", "before", "after") if k in s}} for s in steps]


# the keys that tell the commands' JSON apart, most specific first
KINDS = (("pairs", ("pairs", "summary")), ("order", ("forks", "canonical_path")), ("trace", ("steps", "result")),
         ("saturate", ("best", "cost", "iterations")), ("best", ("best", "cost", "seen")),
         ("normal-forms", ("states", "edges", "paths")), ("reachable", ("states", "edges")), ("search", ("found", "path")))


def kind_of(data: Any) -> str | None:
  """Which command printed ``data`` (a page kind of ``uopc.cli.reports.html``), or None."""
  if not isinstance(data, dict): return None
  return next((kind for kind, keys in KINDS if all(k in data for k in keys)), None)


def load(path: str | os.PathLike[str]) -> Saved:
  """Read a saved ``--format json`` output; ``LoadError`` for anything else, a ``TypeError`` for a path that is not one.

  >>> load(5)   # open() would read file descriptor 5
  Traceback (most recent call last):
  TypeError: load() takes a path (str or os.PathLike) of a saved --format json output, not int: 5
  """
  if not isinstance(path, (str, os.PathLike)):
    raise TypeError(f"load() takes a path (str or os.PathLike) of a saved --format json output, not {type(path).__name__}: {path!r}")
  path = os.fspath(path)
  try:
    with open(path, encoding="utf-8") as f: text = f.read()
  except (OSError, UnicodeError) as e: raise LoadError(f"{path}: cannot read: {getattr(e, 'strerror', None) or e}") from None
  try: data = parse_json(text, path)   # NaN, a lone surrogate, a 5,000-digit int or deep nesting: refused, with its place
  except JSONInputError as e: raise LoadError(str(e)) from None
  kind = kind_of(data)
  if kind is None: raise LoadError(f"{path}: not the --format json output of a uopc explorer command")
  if data.get("format", 1) not in (1, 2): raise LoadError(f"{path}: format {data['format']!r}: this uopc reads formats 1 and 2")
  check_fields(data, kind, path)
  saved = Saved(kind, data)
  if kind in ("reachable", "normal-forms"):
    try:
      check_exploration(data, path)
      texts = texts_of(data)
      saved.states = [SavedState(s["id"], s["depth"], s["parent"], s["rule"], texts(s["node"]),
                                 texts(s["graph"]) if "graph" in s else s["term"], s["normal"], s["error"], texts(s.get("result")))
                      for s in data["states"]]
      saved.edges = [SavedEdge(e["from"], e["to"], e["rule"], e.get("rule_index"), texts(e["node"]), texts(e.get("result")), e.get("error"))
                     for e in data["edges"]]
    except LoadError: raise
    except (TypeError, KeyError, ValueError) as e:
      raise LoadError(f"{path}: a state or edge is malformed ({type(e).__name__}: {e})") from None
  return saved


# what each page's view reads without a guard (uopc/cli/reports/static/viewer.js), with its type: a file without one is refused
# (a graph may be None: a bound that stops a command before it has one leaves the output with nothing found yet)
TERM, NUMBER = (str, type(None)), (int, float, type(None))
FIELDS: dict[str, dict[str, type | tuple[type, ...]]] = {
  "reachable": {"states": list, "edges": list}, "normal-forms": {"states": list, "edges": list, "paths": dict},
  "order": {"program": TERM, "normal_forms": list, "canonical_path": list, "forks": list},
  "search": {"program": TERM, "found": bool, "searched": int, "path": list}, "pairs": {"pairs": list, "summary": dict},
  "trace": {"program": TERM, "steps": list, "result": TERM},
  "saturate": {"program": TERM, "best": TERM, "cost": NUMBER}, "best": {"program": TERM, "best": TERM, "cost": NUMBER}}


def check_fields(data: dict[str, Any], kind: str, path: str) -> None:
  """``LoadError`` unless ``data`` has each field its page reads (``FIELDS``), of its type, and a list of records where it has one."""
  for key, kinds in FIELDS[kind].items():
    value = data.get(key)
    if key not in data or not isinstance(value, kinds) or isinstance(value, bool) is not (kinds is bool):
      raise LoadError(f"{path}: not a whole {kind} output: {key!r} is {'missing' if key not in data else type(value).__name__}")
    if isinstance(value, list) and key != "normal_forms" and not all(isinstance(x, dict) for x in value):
      raise LoadError(f"{path}: not a whole {kind} output: {key!r} holds something other than records")


def incomplete(data: dict[str, Any]) -> bool:
  """True if the file says it is not the whole exploration: a bound stopped the search (``complete`` false), maybe before the
  program was a state, or the report's detail was cut (``report``), so it may name states past those it lists."""
  report = data.get("report")
  return data.get("complete") is False or (isinstance(report, dict) and report.get("complete") is False)


def check_exploration(data: dict[str, Any], path: str) -> None:
  """``LoadError`` unless the states are listed by id from 0 (the program, state 0, first: it is in every complete file), each
  reached from an earlier one, and every step and every state named elsewhere is one of them (an incomplete file may name
  states past those it lists)."""
  states, edges, cut = data["states"], data["edges"], incomplete(data)
  def below(x: Any, n: int) -> bool: return type(x) is int and 0 <= x < n   # a state id under n (not a bool, not 1.0)
  if not states and not cut:
    raise LoadError(f"{path}: an exploration with no state: a complete one holds at least its program (state 0)")
  for i, s in enumerate(states):
    if not (below(s.get("id"), i + 1) and s["id"] == i):
      raise LoadError(f"{path}: state {i} has id {s.get('id')!r}: the states are listed by id, from 0")
    parent = s.get("parent")
    if (parent is None) != (i == 0) or (parent is not None and not below(parent, i)):
      raise LoadError(f"{path}: state {i} has parent {parent!r}: state 0 is the program, every other one is reached from an earlier one")
  for e in edges:
    if not (below(e.get("from"), len(states)) and below(e.get("to"), len(states))):
      raise LoadError(f"{path}: a step from {e.get('from')!r} to {e.get('to')!r} names a state the file does not hold")
  named = {"normal_form_ids": data.get("normal_form_ids", []), "canonical_state": [data.get("canonical_state")],
           "stuck": [x.get("id") if isinstance(x, dict) else x for x in data.get("stuck", [])],
           "cycles": [i for c in data.get("cycles", []) for i in (c.get("states", []) if isinstance(c, dict) else [c])],
           "paths": list(data.get("paths", {}))}
  for key, refs in named.items():
    for ref in refs:
      state = int(ref) if isinstance(ref, str) and ref.isdigit() else ref
      if ref is None and key == "canonical_state": continue
      if not below(state, len(states) if not cut else state + 1):
        raise LoadError(f"{path}: {key} names state {ref!r}, which the file does not hold")
  if "normal_forms" in data and len(data["normal_forms"]) != len(data.get("normal_form_ids", [])):
    raise LoadError(f"{path}: normal_forms and normal_form_ids differ in length")
