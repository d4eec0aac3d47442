"""A shard's visited set: fingerprints in NumPy arrays, not a dict.

A 128-bit Python int alone is 44 bytes, before its dict slot, its parent and its step.
Here a state is a row of four arrays: its fingerprint (16 bytes), its parent's (16), its
id (8) and its depth (4), 44 bytes, plus a sorted copy of the fingerprints and its row
(24) for lookups by binary search. States arrive a level at a time, so a level's new
rows are merged into the sorted index once (``np.insert``: linear in the table, a
level's work at most).

>>> import numpy as np
>>> t = Visited()
>>> t.add(np.array([b"b" * 16, b"a" * 16], "S16"), np.array([1, 2]), np.array([b"r" * 16] * 2, "S16"), 1)
>>> t.find(np.array([b"a" * 16, b"c" * 16], "S16")).tolist(), len(t), t.parent_of(b"a" * 16) == b"r" * 16
([2, -1], 2, True)
"""
from __future__ import annotations

import numpy as np

from uopc.relational.cluster.fingerprint import SIZE

FP = f"S{SIZE}"   # NumPy compares and sorts these as bytes; read one back with fp_bytes (NumPy drops trailing zero bytes)


def fp_bytes(x: bytes) -> bytes:
  """A fingerprint read out of an array, whole again (NumPy strips its trailing zero bytes)."""
  return bytes(x).ljust(SIZE, b"\0")


class Visited:
  """Fingerprint -> (id, parent fingerprint, depth), for the states one shard owns."""

  def __init__(self) -> None:
    self.fps = np.empty(0, FP)
    self.parents = np.empty(0, FP)
    self.ids = np.empty(0, np.int64)
    self.depths = np.empty(0, np.int32)
    self._sorted = np.empty(0, FP)      # fps, sorted
    self._rows = np.empty(0, np.int64)  # the row of each sorted fingerprint

  def __len__(self) -> int: return len(self.fps)

  def find(self, fps: np.ndarray) -> np.ndarray:
    """The id of each fingerprint, -1 where it was not visited."""
    out = np.full(len(fps), -1, np.int64)
    if not len(self._sorted) or not len(fps): return out
    at = np.searchsorted(self._sorted, fps)
    ok = at < len(self._sorted)
    hit = np.zeros(len(fps), bool)
    hit[ok] = self._sorted[at[ok]] == fps[ok]
    out[hit] = self.ids[self._rows[at[hit]]]
    return out

  def add(self, fps: np.ndarray, ids: np.ndarray, parents: np.ndarray, depth: int) -> None:
    """Add a level's new states (fingerprints not visited yet, each once)."""
    if not len(fps): return
    first = len(self.fps)
    self.fps = np.concatenate([self.fps, fps.astype(FP)])
    self.parents = np.concatenate([self.parents, parents.astype(FP)])
    self.ids = np.concatenate([self.ids, ids.astype(np.int64)])
    self.depths = np.concatenate([self.depths, np.full(len(fps), depth, np.int32)])
    order = np.argsort(fps, kind="stable")
    new = fps[order]
    at = np.searchsorted(self._sorted, new)
    self._sorted = np.insert(self._sorted, at, new)
    self._rows = np.insert(self._rows, at, first + order)

  def parent_of(self, fp: bytes) -> bytes | None:
    """The parent's fingerprint of a visited state (None for the program, or a state not owned here)."""
    at = int(np.searchsorted(self._sorted, np.array([fp], FP))[0])
    if at >= len(self._sorted) or fp_bytes(self._sorted[at]) != fp: return None
    row = self._rows[at]
    return None if self.depths[row] == 0 else fp_bytes(self.parents[row])

  def nbytes(self) -> int:
    """Bytes held by the arrays."""
    return sum(a.nbytes for a in (self.fps, self.parents, self.ids, self.depths, self._sorted, self._rows))
