"""A shard's visited set: fingerprints in NumPy arrays, not a dict.

A 128-bit Python int alone is 44 bytes, before its dict slot, its parent and its step.
Here a state is a row of five arrays: its fingerprint (16 bytes), its parent's (16), the
position of the step that made it among its parent's steps (4), its id (8) and its depth
(4), 48 bytes, plus a sorted copy of the fingerprints, their first 8 bytes as an integer and their rows (32)
for lookups by binary search on the integers (a fingerprint is a hash: among a billion states, two share their first
8 bytes with a chance of about 3%), the whole fingerprints compared only where two do. States arrive a level at a
time; the rows added since the last lookup are merged into the sorted index at the next one, at once (``np.insert``:
linear in the table), so a shard that looks nothing up while it runs (the only one: ``Shard.absorb``) sorts once. Rows are
kept in id order (a level's ids follow the last level's), so an id finds its row by
binary search too.

These rows are the records ``path_to`` reads: a state's parent fingerprint and step
position, walked back across shards to the program, and the steps replayed forward
(``paths.py``).

The only shard on the native core adds its states by node (``add_nodes``): a state's fingerprint is a BLAKE2b of each
node it has that no earlier state had, which was a worker's largest cost beside one process's, and that shard looks
nothing up by fingerprint while it runs (``Shard.absorb``). Their fingerprints, and their parents' (read from the
parents' rows: every state's parent is its own), are made when one is first read (``settle``: a lookup, a report,
its core about to start again, after which a node means nothing), or by id (``fps_of``) for those asked only.

>>> import numpy as np
>>> t = Visited()
>>> t.add(np.array([b"b" * 16, b"a" * 16], "S16"), np.array([2, 1]), np.array([b"r" * 16] * 2, "S16"), np.array([0, 3]), 1)
>>> t.find(np.array([b"a" * 16, b"c" * 16], "S16")).tolist(), len(t), t.parent_of(b"a" * 16) == b"r" * 16
([1, -1], 2, True)
>>> [fp_bytes(f)[:1] for f in t.fps_of(np.array([1, 2]))], t.lookup(np.array([b"b" * 16], "S16"))[2].tolist()
([b'a', b'b'], [0])
>>> u = Visited()
>>> u.add(np.array([b"r" * 16], "S16"), np.array([0]), np.array([b""], "S16"), np.array([-1]), 0)
>>> u.add_nodes(np.array([7, 5]), np.array([2, 1]), np.array([0, 0]), np.array([1, 0]), 1, lambda ns: [bytes([97 + n]) * 16 for n in ns])
>>> u.find(np.array([b"h" * 16], "S16")).tolist(), fp_bytes(u.parent_of(b"f" * 16))[:1]
([2], b'r')
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from uopc.relational.space.fingerprint import SIZE

FP = f"S{SIZE}"   # NumPy compares and sorts these as bytes; read one back with fp_bytes (NumPy drops trailing zero bytes)


def fp_bytes(x: bytes) -> bytes:
  """A fingerprint read out of an array, whole again (NumPy strips its trailing zero bytes)."""
  return bytes(x).ljust(SIZE, b"\0")


def heads(fps: np.ndarray) -> np.ndarray:
  """Each fingerprint's first 8 bytes as an integer, in the fingerprints' own order (big endian; a short one padded)."""
  return np.ascontiguousarray(fps.astype(FP, copy=False)).view(">u8")[::SIZE // 8].astype(np.uint64)


class Visited:
  """Fingerprint -> (id, parent fingerprint, step position, depth), for the states one shard owns."""

  def __init__(self) -> None:
    self._n = 0   # rows; the columns' arrays have room for more (doubling: a level's rows are not a copy of the table)
    self._cols = {"fps": np.empty(0, FP), "parents": np.empty(0, FP), "pos": np.empty(0, np.int32), "ids": np.empty(0, np.int64),
                  "depths": np.empty(0, np.int32)}
    self._sorted = np.empty(0, FP)      # fps, sorted
    self._heads = np.empty(0, np.uint64)   # their first 8 bytes (big endian: in the same order)
    self._rows = np.empty(0, np.int64)  # the row of each sorted fingerprint
    self._indexed = 0                   # the rows in the sorted index (the first ones; the rest are merged at a lookup)
    self._unsettled: list[tuple[int, np.ndarray, np.ndarray]] = []   # add_nodes' rows: (first row, nodes, parent ids) each
    self._fingerprints: Callable[[list[int]], list[bytes]] | None = None   # their nodes' fingerprints (a core's)

  @property
  def fps(self) -> np.ndarray:
    self.settle()
    return self._cols["fps"][:self._n]
  @property
  def parents(self) -> np.ndarray:
    self.settle()
    return self._cols["parents"][:self._n]
  @property
  def pos(self) -> np.ndarray: return self._cols["pos"][:self._n]
  @property
  def ids(self) -> np.ndarray: return self._cols["ids"][:self._n]
  @property
  def depths(self) -> np.ndarray: return self._cols["depths"][:self._n]

  def __len__(self) -> int: return self._n

  def find(self, fps: np.ndarray) -> np.ndarray:
    """The id of each fingerprint, -1 where it was not visited."""
    rows = self.rows_of(fps)
    return np.where(rows >= 0, self.ids[rows] if len(self.ids) else -1, -1)

  def rows_of(self, fps: np.ndarray) -> np.ndarray:
    """The row of each fingerprint, -1 where it was not visited."""
    out = np.full(len(fps), -1, np.int64)
    self._index()
    if not len(self._sorted) or not len(fps): return out
    fps = fps.astype(FP, copy=False)
    h = heads(fps)
    at = np.minimum(np.searchsorted(self._heads, h), len(self._heads) - 1)
    hit = self._sorted[at] == fps
    if (again := np.flatnonzero(~hit & (self._heads[at] == h))).size:   # a head shared by two fingerprints: the whole ones
      at[again] = np.minimum(np.searchsorted(self._sorted, fps[again]), len(self._sorted) - 1)
      hit[again] = self._sorted[at[again]] == fps[again]
    out[hit] = self._rows[at[hit]]
    return out

  def lookup(self, fps: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Each visited fingerprint's (id, parent fingerprint, step position, depth); id -1 where it was not visited."""
    rows = self.rows_of(fps)
    hit = rows >= 0
    ids = np.full(len(fps), -1, np.int64)
    parents, pos, depths = np.zeros(len(fps), FP), np.full(len(fps), -1, np.int32), np.full(len(fps), -1, np.int32)
    r = rows[hit]
    ids[hit], parents[hit], pos[hit], depths[hit] = self.ids[r], self.parents[r], self.pos[r], self.depths[r]
    return ids, parents, pos, depths

  def fps_of(self, ids: np.ndarray) -> np.ndarray:
    """The fingerprints of states this shard owns, by id (the rows are in id order); of ``add_nodes``' states only
    those asked made (a report's normal forms: not every state's)."""
    rows = np.searchsorted(self.ids, ids)
    out = self._cols["fps"][rows]
    for first, nodes, _ in self._unsettled:
      if (inside := np.flatnonzero((rows >= first) & (rows < first + len(nodes)))).size:
        out[inside] = np.array(self._fingerprints(nodes[rows[inside] - first].tolist()), FP)   # type: ignore[misc]
    return out

  def add(self, fps: np.ndarray, ids: np.ndarray, parents: np.ndarray, pos: np.ndarray, depth: int) -> None:
    """Add a level's new states (fingerprints not visited yet, each once; their ids above every id here)."""
    if not len(fps): return
    by_id = np.argsort(ids, kind="stable")
    self._append(fps[by_id], ids[by_id], parents[by_id], pos[by_id], depth)

  def add_nodes(self, nodes: np.ndarray, ids: np.ndarray, parent_ids: np.ndarray, pos: np.ndarray, depth: int,
                fingerprints: Callable[[list[int]], list[bytes]]) -> None:
    """``add`` of states named by their nodes (graphs not visited yet, each once), each parent by its id (a state here),
    their fingerprints made by ``fingerprints`` (of a list of nodes) when one is read: ``settle`` (module doc)."""
    if not len(nodes): return
    by_id = np.argsort(ids, kind="stable")
    self._unsettled.append((self._n, nodes[by_id], parent_ids[by_id]))
    self._fingerprints = fingerprints
    self._append(None, ids[by_id], None, pos[by_id], depth)

  def settle(self) -> None:
    """The fingerprints of ``add_nodes``' states, and their parents', made now (while their nodes mean what they did)."""
    if not self._unsettled: return
    chunks, self._unsettled = self._unsettled, []
    fps, ids, parents = self._cols["fps"], self._cols["ids"][:self._n], self._cols["parents"]
    for first, nodes, _ in chunks: fps[first:first + len(nodes)] = np.array(self._fingerprints(nodes.tolist()), FP)   # type: ignore[misc]
    for first, nodes, par in chunks: parents[first:first + len(nodes)] = fps[np.searchsorted(ids, par)]
    self._fingerprints = None

  def _append(self, fps: np.ndarray | None, ids: np.ndarray, parents: np.ndarray | None, pos: np.ndarray, depth: int) -> None:
    """Rows in id order after the last (``fps`` and ``parents`` None: set by ``settle``)."""
    n, k = self._n, len(ids)
    if n + k > len(self._cols["ids"]):
      room = max(n + k, 2 * n)
      for name, col in self._cols.items():
        grown = np.empty(room, col.dtype)
        grown[:n] = col[:n]
        self._cols[name] = grown
    for name, new in (("fps", fps), ("parents", parents), ("pos", pos), ("ids", ids)):
      if new is not None: self._cols[name][n:n + k] = new
    self._cols["depths"][n:n + k] = depth
    self._n = n + k

  def _index(self) -> None:
    """The rows added since the last lookup merged into the sorted index."""
    first = self._indexed
    if first == self._n: return
    fps = self.fps[first:]   # (settled)
    self._indexed = self._n
    h = heads(fps)
    order = np.argsort(h, kind="stable")   # the fingerprints' order where no two share a head (else sorted whole)
    if len(order) > 1 and bool((h[order][1:] == h[order][:-1]).any()): order = np.argsort(fps, kind="stable")
    new, new_heads = fps[order], h[order]
    at = np.searchsorted(self._heads, new_heads)
    known = at < len(self._heads)
    if bool((self._heads[at[known]] == new_heads[known]).any()): at = np.searchsorted(self._sorted, new)   # a head here already
    self._sorted = np.insert(self._sorted, at, new)
    self._heads = np.insert(self._heads, at, new_heads)
    self._rows = np.insert(self._rows, at, first + order)

  def parent_of(self, fp: bytes) -> bytes | None:
    """The parent's fingerprint of a visited state (None for the program, or a state not owned here)."""
    row = int(self.rows_of(np.array([fp], FP))[0])
    return None if row < 0 or self.depths[row] == 0 else fp_bytes(self.parents[row])

  def nbytes(self) -> int:
    """Bytes held by the arrays, the sorted index's as it will be (32 bytes a row not merged into it yet)."""
    return (sum(a.nbytes for a in (*self._cols.values(), self._sorted, self._heads, self._rows)) + 32 * (self._n - self._indexed))
