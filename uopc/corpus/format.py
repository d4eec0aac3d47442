"""The corpus file: JSON Lines, a header, then one graph a line.

  {"uopc-corpus": 1, "captured-with": {"python": "3.11.7", "tinygrad": "0.14.0"}, "not-checkable": {...}}
  {"ir": "tinygrad", "rules": "tinygrad:symbolic", "graph": "%0 = CONST weakint () 5\\n...", "count": 3, "where": "..."}

``graph`` is the IR's stable text form (``uopc.corpus.tinygrad_text``, ``uopc.corpus.pytensor_text``, uopc's ``.uir``),
which loads back to an equal graph (tinygrad's hash-consing makes it the very same ``UOp``); it is parsed, never
evaluated. ``rules`` is a ``--rules`` spec naming the pass's rule set, or ``?file.py:line`` for a pass whose rule set
has no name the explorer knows (kept for the record; ``check`` skips it and counts it). ``count`` is how many times
the graph was seen by passes of that rule set, ``where`` the first pass that saw it. The header's ``not-checkable``
counts the graphs captured but not kept, by reason (``{"tinygrad:sym kernel graph": 12}``): graphs that are not
expressions over variables and constants, which the explorer cannot take.
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from typing import Any, Iterable

FORMAT_VERSION = 1
UNNAMED = "?"   # the first character of the rules of a pass whose rule set has no name


class CorpusError(Exception):
  """A corpus file that cannot be read, in one line: ``file:line: why``."""


@dataclass
class Entry:
  """One graph of a corpus: its IR's name, the rules spec of the pass that saw it, the graph itself (``program``: the
  IR's node), how many times it was seen, where first, and its text form (``text``, as stored)."""
  ir: str
  rules: str
  program: Any
  count: int = 1
  where: str = ""
  text: str = ""

  @property
  def named(self) -> bool:
    """Whether the rule set is one the explorer can resolve (``tinygrad:symbolic``), not an unnamed pass's location."""
    return not self.rules.startswith(UNNAMED)

  def line(self) -> str:
    """This entry as its corpus line (without the newline)."""
    return json.dumps({"ir": self.ir, "rules": self.rules, "graph": self.text, "count": self.count, "where": self.where})


@dataclass
class Header:
  """The first line of a corpus: the versions it was captured with and what was seen but not kept."""
  captured_with: dict[str, str] = field(default_factory=dict)
  not_checkable: dict[str, int] = field(default_factory=dict)

  def line(self) -> str:
    return json.dumps({"uopc-corpus": FORMAT_VERSION, "captured-with": self.captured_with, "not-checkable": self.not_checkable})


def dump_graph(ir: str, program: Any) -> str:
  """The stable text form of ``program``, a node of IR ``ir``; ``Unsupported`` where the graph has no text form."""
  if ir == "tinygrad":
    from uopc.corpus.tinygrad_text import dump
    return dump(program)
  if ir == "pytensor":
    from uopc.corpus.pytensor_text import dump as dump_pytensor
    return dump_pytensor(program)
  if ir == "uopc":
    from uopc.uir import to_uir
    return to_uir(program)
  raise ValueError(f"no IR named {ir!r}")


def parse_graph(ir: str, text: str) -> Any:
  """The graph of IR ``ir`` that ``text`` (``dump_graph``'s form) stands for; ValueError saying why not."""
  if ir == "tinygrad":
    from uopc.corpus.tinygrad_text import parse
    return parse(text)
  if ir == "pytensor":
    from uopc.corpus.pytensor_text import parse as parse_pytensor
    return parse_pytensor(text)
  if ir == "uopc":
    from uopc.uir import UIRError, parse_uir
    try: return parse_uir(text)
    except UIRError as e: raise ValueError(str(e)) from None
  raise ValueError(f"no IR named {ir!r}")


def _field(obj: dict, key: str, kind: type, where: str) -> Any:
  if not isinstance(value := obj.get(key), kind) or isinstance(value, bool) and kind is int:
    raise CorpusError(f"{where}: {key!r} is missing or not a {kind.__name__}")
  return value


def read_header(path: str | os.PathLike[str]) -> Header:
  """The header of corpus ``path``."""
  with open(path, encoding="utf-8") as f: first = f.readline()
  return parse_header(first, f"{os.fspath(path)}:1")


def parse_header(line: str, where: str) -> Header:
  try: obj = json.loads(line)
  except ValueError as e: raise CorpusError(f"{where}: not a uopc corpus (not JSON: {e})") from None
  if not isinstance(obj, dict) or obj.get("uopc-corpus") != FORMAT_VERSION:
    raise CorpusError(f"{where}: not a uopc corpus (its first line is not {{\"uopc-corpus\": {FORMAT_VERSION}, ...}})")
  with_ = obj.get("captured-with") or {}
  skipped = obj.get("not-checkable") or {}
  return Header({str(k): str(v) for k, v in with_.items()}, {str(k): int(v) for k, v in skipped.items()})


def load(path: str | os.PathLike[str], parse: bool = True) -> list[Entry]:
  """The entries of corpus ``path``, each graph parsed into its IR's node (with ``parse=False``, ``program`` is None and
  only ``text`` is read: no IR imported). ``CorpusError`` (``file:line: why``) for a line that is not an entry."""
  name = os.fspath(path)
  try:
    with open(path, encoding="utf-8") as f: lines = f.read().splitlines()
  except (OSError, UnicodeDecodeError) as e: raise CorpusError(f"{name}: {e}") from None
  if not lines: raise CorpusError(f"{name}: empty (a corpus starts with its header line)")
  parse_header(lines[0], f"{name}:1")
  return [parse_entry(line, f"{name}:{n}", parse) for n, line in enumerate(lines[1:], 2) if line.strip()]


def parse_entry(line: str, where: str, parse: bool) -> Entry:
  try: obj = json.loads(line)
  except ValueError as e: raise CorpusError(f"{where}: not JSON ({e})") from None
  if not isinstance(obj, dict): raise CorpusError(f"{where}: not a JSON object")
  ir, rules, text = _field(obj, "ir", str, where), _field(obj, "rules", str, where), _field(obj, "graph", str, where)
  count, site = obj.get("count", 1), obj.get("where", "")
  if not isinstance(count, int) or isinstance(count, bool) or count < 1: raise CorpusError(f"{where}: 'count' is not a positive integer")
  program = None
  if parse:
    try: program = parse_graph(ir, text)
    except ValueError as e: raise CorpusError(f"{where}: {e}") from None
  return Entry(ir, rules, program, count, str(site), text)


def corpus_text(entries: Iterable[Entry], header: Header | None = None) -> str:
  """A corpus as its file's text (header first), each entry's text form made where it has none yet."""
  lines = [(header or Header()).line()]
  for e in entries:
    if not e.text: e.text = dump_graph(e.ir, e.program)
    lines.append(e.line())
  return "\n".join(lines) + "\n"


def write(path: str | os.PathLike[str], entries: Iterable[Entry], header: Header | None = None) -> None:
  """Write a corpus (header first)."""
  with open(path, "w", encoding="utf-8") as f: f.write(corpus_text(entries, header))
