"""A report's own cut: decided item by item, by the budget's time and memory, while the report is built.

A report built from what a search found (the states of an exploration, its steps, the normal forms and their paths) asks
``ItemCut`` before each item. The question costs a clock read: the budget itself (``uopc.cli.budget.report_cut``, which
reads the memory from ``/proc``) is asked at most every ``CHECK_EVERY`` seconds, so a report of a million items asks it a
few hundred times, and a report whose items are slow to build (a 5,000-node graph each) still stops within a tenth of a
second of its cut, not after 1,024 of them.

The memory is weighed before it is spent: the text a report becomes (JSON, a page: ``WRITE_COPIES`` times the JSON) is
estimated from a sample of the items built (``ListSize``), and the items stop where what is resident now and that
text together would pass ``--max-memory``: the output is then smaller, whole, and marked incomplete, instead of a
command killed from outside while it writes.
"""
from __future__ import annotations

import json
import time
from typing import Any, Iterable, TypeVar

from uopc.cli.budget import current, report_cut

T = TypeVar("T")
CHECK_EVERY = 0.01   # seconds between two questions to the budget (a /proc read each: about 30 microseconds)
SAMPLE_EVERY = 64    # an item in this many is encoded to weigh the report's text
# copies of the JSON text held at once while it is written: json_text's and the newline's, the bytes written; a page's
# chunks, the page, its bytes (five_params' whole space as a page, 2.3 GB at the most, planned with 5 copies for 3.6);
# a drawing's lines joined, their bytes
WRITE_COPIES = {"json": 3.0, "html": 3.0, "dot": 2.0}
HEADROOM = 0.85      # of --max-memory: what the report plans to reach at the most (the rest: what the estimate misses)


class CutShort(Exception):
  """Raised while one item is built (a graph of a million nodes) once the cut says so: ``until_cut`` leaves that item out."""


class ListSize:
  """The JSON text a report's list of items will take, estimated from every ``SAMPLE_EVERY``-th item, encoded when asked.

  >>> items = [{"id": 7}] * 128   # {"id":7} and a comma: 9 characters each
  >>> ListSize(items).chars
  1152.0
  """

  def __init__(self, items: list[Any]) -> None:
    self.items = items
    self._at = 0   # the next item to sample
    self._sampled = 0
    self._sampled_chars = 0

  @property
  def chars(self) -> float:
    """The estimated characters of the items' JSON (each with its comma)."""
    n = len(self.items)
    while self._at < n:
      self._sampled += 1
      self._sampled_chars += len(json.dumps(self.items[self._at], ensure_ascii=False, separators=(",", ":"))) + 1
      self._at += SAMPLE_EVERY
    return 0.0 if not self._sampled else self._sampled_chars / self._sampled * n


class ItemCut:
  """Asked before each item of a report: True once the report must stop adding items (see the module doc).

  ``fmt`` is the output's format (``json``, ``html``, ``text``): how many copies of the text the write holds.
  ``sizes`` are the ``ListSize``s of the text the report will hold (its items, its node table's rows).

  >>> cut = ItemCut()
  >>> cut(), cut.reason
  (False, None)
  """

  def __init__(self, fmt: str = "text", sizes: Iterable[ListSize] = ()) -> None:
    self.reason: str | None = None   # the flag that cut the report: ``--timeout 5 s``, ``--max-memory 4 GiB``
    self.bound: str | None = None    # ... and the bound's name, as a JSON's ``bound`` says it: ``timeout``, ``max_memory``
    self._next = 0.0
    self._copies = WRITE_COPIES.get(fmt, 1.0)
    self._sizes = list(sizes)

  def __call__(self) -> bool:
    if self.reason is not None: return True
    now = time.monotonic()
    if now < self._next: return False
    self._next = now + CHECK_EVERY
    b = current()
    if b is None: return False
    self.bound = report_cut()
    if self.bound is not None: self.reason = b.flag_text()
    elif b.max_memory is not None and self._sizes:
      planned = b.memory() + self._copies * sum(s.chars for s in self._sizes)
      if planned > HEADROOM * b.max_memory: self.reason, self.bound = b.cut_report("max_memory"), "max_memory"
    return self.reason is not None


def until_cut(items: Iterable[T], cut: ItemCut, out: list[T] | None = None, bar: Any = None) -> list[T]:
  """``items`` appended to ``out`` (a new list by default) and returned, or their first ones once ``cut`` says so
  (asked before each item is built): a report of millions of states is written within its bounds, saying how much of it
  there is. ``bar``: a progress bar (``uopc.cli.support.progress_bar``) told of each 1,024.

  >>> until_cut(iter(range(5)), ItemCut())
  [0, 1, 2, 3, 4]
  """
  kept: list[T] = [] if out is None else out
  it = iter(items)
  while not cut():
    try: kept.append(next(it))
    except (StopIteration, CutShort): break   # the end, or an item too big to finish within the cut
    if bar is not None and len(kept) % 1024 == 0 and not bar.disable: bar.update(1024)
  return kept


def cut_text(cut: ItemCut | None = None) -> str:
  """The flag that ended a report's detail: ``--timeout 5 s``, ``--max-memory 4 GiB``, ``an interrupt (SIGINT)``."""
  if cut is not None and cut.reason is not None: return cut.reason
  b = current()
  return b.flag_text() if b is not None and b.reason is not None else "a bound"
