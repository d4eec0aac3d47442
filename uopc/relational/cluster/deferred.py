"""A shard's level records, written when a report asks for them, not as the run goes.

A shard's level record is the checkpoint a replaced worker is rebuilt from and what a report that lists every state
reads (``codec.Records``' rows of its graphs and redexes, its steps). The checkpoint need not hold the graphs: a shard's
levels follow from the program and what it was given, so a replaced worker makes them again level by level
(``Shard.restore``), as the run made them: each level's expansion, the other shards' batches its ``absorb`` read (kept
as they were sent), its commit's ids (read from the record: ``shard._ranked``). The batches the replacement sends as it
does go unread: its streams to the others start again after (``Shard.restart_deltas``). So each commit gives the
coordinator a light record (its states' ids, parents and step positions, its stuck states, the arguments its level's
calls were given: ``LIGHT``, and the batches it read) and keeps what the full record is written from here
(``DeferredRecords``): the level's graphs and redexes as the shard holds them, its steps. A report that reads the full
records asks the shard (``Shard.full_records``), which writes the levels not written yet, in order (one
``codec.Records`` stream); a shard whose worker is gone is made again from its light records in the coordinator
(``coordinator.replayed``). A shard writes what is left before what the records name goes: before its native core
starts again (``Shard.expand``).

Writing the records as the run went was a quarter of the only worker's CPU (332,640 states: its rows 0.4 s,
pickling 0.26 s, the redex table 0.12 s, of 4.2 s, 2026-12-02; docs/scaling.md), and 0.87 s of each of two workers'
2.55 s on the guarded rules (2026-12-03).

>>> d = DeferredRecords()
>>> d.add({"depth": 0}); d.add({"depth": 1})
>>> d.written(1, lambda level: f"rec{level['depth']}".encode()), d.pending()
([b'rec0'], [{'depth': 1}])
>>> d.written(5, lambda level: f"rec{level['depth']}".encode())
[b'rec0', b'rec1']
"""
from __future__ import annotations

from typing import Any, Callable

LIGHT = "replay"   # a light record's key: (count, max_states, last), its level's ``commit`` and ``expand`` arguments


def is_light(rec: dict[str, Any]) -> bool:
  """True for a light record (module doc), whose level is made again rather than read."""
  return LIGHT in rec


class DeferredRecords:
  """The levels whose full records are not written yet (what ``Shard._write`` writes each from), and those written."""
  __slots__ = ("_pending", "_full")

  def __init__(self) -> None:
    self._pending: list[dict[str, Any]] = []   # oldest first
    self._full: list[bytes] = []              # written, level 0 first

  def add(self, level: dict[str, Any]) -> None:
    """A committed level, its full record to be written later."""
    self._pending.append(level)

  def pending(self) -> list[dict[str, Any]]:
    """The levels not written yet, oldest first."""
    return self._pending

  def written(self, upto: int, write: Callable[[dict[str, Any]], bytes]) -> list[bytes]:
    """The full records of the first ``upto`` levels (as many as there are), those not written yet written now, in order."""
    while len(self._full) < upto and self._pending: self._full.append(write(self._pending.pop(0)))
    return self._full[:upto]
