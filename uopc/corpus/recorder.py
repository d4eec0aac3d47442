"""What a capture keeps while the user's program runs: each distinct (rule set, graph) a pass saw, with a count and the
first place it was seen, and the count of graphs seen but not kept (not expressions the explorer can take), by reason.

Graphs are kept as the IR's own nodes while the program runs (tinygrad's are hash-consed: a graph is its root, so a
repeat costs one dict lookup); their text forms are made once, when the corpus is written.
"""
from __future__ import annotations

import sys
import threading
from collections import Counter
from typing import Any

from uopc.corpus.format import Entry, Header, dump_graph


class Recorder:
  """The graphs of one capture: ``keep`` a graph a pass saw, ``skip`` one it cannot keep; ``entries`` at the end."""

  def __init__(self) -> None:
    self._kept: dict[tuple[str, str, Any], Entry] = {}
    self._skipped: set[tuple[str, Any]] = set()   # (rules, graph) not kept: each counted once
    self.not_checkable: Counter[str] = Counter()
    self.passes = 0
    self.versions: dict[str, str] = {"python": sys.version.split()[0]}
    self._lock = threading.Lock()   # a program may rewrite in threads

  def again(self, ir: str, rules: str, program: Any) -> bool:
    """Whether a pass of ``rules`` saw ``program`` before (kept: counted once more; skipped: nothing to do)."""
    with self._lock:
      if (e := self._kept.get((ir, rules, program))) is not None:
        e.count += 1
        return True
      return (rules, program) in self._skipped

  def keep(self, ir: str, rules: str, program: Any, where: str, text: str = "") -> None:
    """A graph ``program`` of IR ``ir`` that a pass of rule set ``rules`` saw (at ``where``) for the first time; ``text``:
    its text form already made (a graph the pass will change in place is kept as its text, which is then ``program``)."""
    with self._lock: self._kept[(ir, rules, program)] = Entry(ir, rules, None if text else program, 1, where, text)

  def skip(self, rules: str, program: Any, reason: str) -> None:
    """A graph a pass of ``rules`` saw that the corpus does not keep, counted under ``reason`` (once per distinct graph)."""
    with self._lock:
      if (rules, program) not in self._skipped:
        self._skipped.add((rules, program))
        self.not_checkable[reason] += 1

  def entries(self) -> list[Entry]:
    """The kept graphs, each with its text form, in the order first seen; a graph with no text form is counted as skipped."""
    out = []
    for e in list(self._kept.values()):
      try: e.text = e.text or dump_graph(e.ir, e.program)
      except ValueError as err:
        self.not_checkable[f"{e.rules} no text form ({err})"] += 1
        continue
      out.append(e)
    return out

  def header(self) -> Header:
    return Header(dict(self.versions), dict(sorted(self.not_checkable.items())))
