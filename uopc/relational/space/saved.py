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

__all__ = ["LoadError", "NodeTexts", "Saved", "SavedEdge", "SavedState", "kind_of", "load", "step_texts", "texts_of"]


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
    return [self.states_by_id[i] for i in self.data.get("normal_form_ids", [])]

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
  saved = Saved(kind, data)
  if kind in ("reachable", "normal-forms"):
    try:
      texts = texts_of(data)
      saved.states = [SavedState(s["id"], s["depth"], s["parent"], s["rule"], texts(s["node"]),
                                 texts(s["graph"]) if "graph" in s else s["term"], s["normal"], s["error"], texts(s.get("result")))
                      for s in data["states"]]
      saved.edges = [SavedEdge(e["from"], e["to"], e["rule"], e.get("rule_index"), texts(e["node"]), texts(e.get("result")), e.get("error"))
                     for e in data["edges"]]
      _ = saved.normal_forms   # every normal form id names a state (the property raises on a dangling id)
    except (TypeError, KeyError, ValueError) as e:
      raise LoadError(f"{path}: a state or edge is malformed ({type(e).__name__}: {e})") from None
  return saved
