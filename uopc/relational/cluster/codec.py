"""Graphs as rows of nodes, for crossing between processes: deltas against the program.

Every shard has the program; a batch of graphs is sent as the nodes it holds that are
not the program's, each once, sources first (a row: op, dtype, arg and its sources as
references: ``-1 - i`` for the program's node ``i``, ``j`` for the batch's row ``j``),
with each row's fingerprint, so the receiver never walks the graph again. Pickling a
``UOp`` instead recurses once per level of the graph and sends shared nodes again in
every message; rows do neither. Decoding makes each node with the engine's
constructor, so hash consing gives the very nodes the receiver already has.

>>> from uopc import UOp
>>> p0 = UOp.param(0)
>>> codec = Codec([p0])
>>> enc = codec.encode([p0 + 0, (p0 + 0) * 2, None])
>>> len(enc.rows), codec.decode(enc) == [p0 + 0, (p0 + 0) * 2, None]
(4, True)
"""
from __future__ import annotations

from typing import Any, Iterable, NamedTuple

from uopc.relational.cluster.fingerprint import SIZE, Fingerprints

from uopc.uop import fill_bottom_up, make_uop


class Encoded(NamedTuple):
  """A batch of graphs: ``rows`` (op, dtype, arg, source refs), ``roots`` (a ref per graph, None for no graph), and
  ``fps`` (each row's fingerprint, 16 bytes a row, or empty when the sender did not compute them)."""
  rows: list[tuple[Any, Any, Any, tuple[int, ...]]]
  roots: list[int | None]
  fps: bytes


class Codec:
  """Encode and decode graphs against ``base`` (the program's nodes, known to both ends in the same order)."""

  def __init__(self, base: list[Any]) -> None:
    self.base = base
    self.base_ref = {u: -1 - i for i, u in enumerate(base)}

  def encode(self, roots: Iterable[Any], fps: Fingerprints | None = None) -> Encoded:
    """The rows of every node of ``roots`` outside the base (iteratively, sources first); ``fps``: send each row's
    fingerprint (each must be known to it already)."""
    refs: dict[Any, int] = dict(self.base_ref)
    rows: list[tuple[Any, Any, Any, tuple[int, ...]]] = []
    order: list[Any] = []
    out: list[int | None] = []

    def row(u: Any, src: tuple[int, ...]) -> int:   # a node's row, its sources' refs made before it
      rows.append((u.op, u.dtype, u.arg, src))
      order.append(u)
      return len(rows) - 1
    for root in roots:
      if root is None: out.append(None); continue
      if (known := refs.get(root)) is not None: out.append(known); continue   # most steps' nodes and results: sent already
      out.append(fill_bottom_up(root, refs, row))
    memo = fps.memo if fps is not None else None
    return Encoded(rows, out, b"".join(memo[u] for u in order) if memo is not None else b"")

  def decode(self, enc: Encoded, fps: Fingerprints | None = None) -> list[Any]:
    """The graphs of a batch (None where it sent none); ``fps``: remember the rows' fingerprints there."""
    base = self.base
    made: list[Any] = []
    for op, dtype, arg, src in enc.rows:
      made.append(make_uop(op, tuple(made[r] if r >= 0 else base[-1 - r] for r in src), arg, dtype))
    if fps is not None and enc.fps:
      for i, u in enumerate(made): fps.seed(u, enc.fps[i * SIZE:(i + 1) * SIZE])
    return [None if r is None else made[r] if r >= 0 else base[-1 - r] for r in enc.roots]
