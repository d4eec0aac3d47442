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

A shard's level records are one stream (``Records``): a record holds only the nodes no
earlier record of the stream had, so a node shared by many levels' states is written once,
and the stream is read in the order it was written (``Records.reader``), each record's
batches in turn. Past ``limit`` rows the stream starts again (a new epoch, whose first
record refers to nothing earlier): what the writer and a reader hold stays bounded.

>>> out = Records([p0])
>>> first, second = out.encode([p0 + 0]), out.encode([(p0 + 0) * 2])
>>> len(second[0].rows), out.reader().read([first, second]) == [[p0 + 0], [(p0 + 0) * 2]]   # the 2 and the MUL: p0 + 0 was written
(2, True)

A shard's batches to another shard are a stream too (``Deltas``, one a receiver): a batch holds only the rows the
stream has not sent before in its epoch, so a node the receiver was sent at an earlier level goes as a reference, not
again, and the receiver interns each node it is sent once. Its reader (``Reader.take``) reads a batch sent again (a
call run again) as it did the first time. An epoch starts from a random token: a replaced sender's stream is a new one.

>>> sent, got = Deltas([p0], 2), Reader(Codec([p0]))
>>> a, b = sent.send(None, [p0 + 0]), sent.send(None, [(p0 + 0) * 2])
>>> len(b[0].rows), got.take(None, a) == [p0 + 0], got.take(None, b) == got.take(None, b) == [(p0 + 0) * 2]
(2, True, True)

A worker on the native core holds its graphs as the core's nodes: ``encode_native`` (a batch) and
``Records.encode_native`` (the stream) write the same rows from them in C (``Space.rows``,
``native/_space_rows.c``), with no ``UOp`` walked or made; a root may be a native node, a ``UOp``
or None. The receiver's ``decode`` is the same; a receiver on the native core reads a batch straight into its nodes with
``decode_native`` (``Space.intern_rows``, ``native/_space_decode.c``), the ids ``to_id`` gives the decoded graphs.

>>> from uopc import symbolic
>>> from uopc.relational.native import available
>>> from uopc.relational.native.space import NativeSpace
>>> from uopc.relational.space.step import Stepper
>>> if available():
...   space = NativeSpace(Stepper(symbolic))
...   ids = [space.to_id(g) for g in (p0 + 0, (p0 + 0) * 2)]
...   enc = codec.encode_native(space, [*ids, None])
...   enc == codec.encode([p0 + 0, (p0 + 0) * 2, None]), codec.decode_native(space, enc) == [*ids, None]
... else: True, True
(True, True)
"""
from __future__ import annotations

import os
import weakref
from array import array
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator, NamedTuple

from uopc.relational.space.fingerprint import SIZE, Fingerprints

from uopc.uop import fill_bottom_up, make_uop

if TYPE_CHECKING:
  from uopc.relational.native.space import NativeSpace


Row = tuple[Any, Any, Any, tuple[int, ...]]   # (op, dtype, arg, source refs)


class PackedRows:
  """Rows as the native core writes them (``Space.rows(..., packed=True)``): ``fields``, the distinct (op, dtype, arg)
  of the batch, and ``data``, int32s a row: its field's index, its number of sources, their refs. A list of tuples costs
  a tuple and an int a source to make, and pickle walks each; these are one bytes and a short list. Read as the rows
  they stand for (``len``, iteration, ``==`` against a list); ``Space.intern_rows`` reads them as they are.

  >>> import pickle
  >>> from uopc.ops import Ops
  >>> rows = PackedRows([(Ops.ADD, None, None)], array("i", [0, 2, -1, -2]).tobytes())
  >>> len(rows), rows == [(Ops.ADD, None, None, (-1, -2))], pickle.loads(pickle.dumps(rows)) == rows
  (1, True, True)
  """
  __slots__ = ("fields", "data", "_n")

  def __init__(self, fields: list[tuple[Any, Any, Any]], data: bytes, n: int = -1) -> None:
    self.fields, self.data, self._n = fields, data, n

  def __reduce__(self) -> tuple[Any, ...]: return PackedRows, (self.fields, self.data, self._n)

  def __iter__(self) -> Iterator[Row]:
    fields, d = self.fields, array("i", self.data)
    at, end = 0, len(d)
    while at < end:
      n = d[at + 1]
      op, dtype, arg = fields[d[at]]
      yield op, dtype, arg, tuple(d[at + 2:at + 2 + n])
      at += 2 + n

  def __len__(self) -> int:
    if self._n < 0: self._n = sum(1 for _ in self)
    return self._n

  def __eq__(self, other: object) -> bool:
    if isinstance(other, PackedRows): other = list(other)
    return list(self) == other if isinstance(other, list) else NotImplemented

  __hash__ = None  # type: ignore[assignment]  # mutable-compare, as a list

  def __repr__(self) -> str: return f"PackedRows({list(self)!r})"


class Encoded(NamedTuple):
  """A batch of graphs: ``rows`` (op, dtype, arg, source refs; packed where the native core wrote them), ``roots`` (a
  ref per graph, None for no graph), and ``fps`` (each row's fingerprint, 16 bytes a row, or empty when the sender did
  not compute them)."""
  rows: list[Row] | PackedRows
  roots: list[int | None]
  fps: bytes


class Codec:
  """Encode and decode graphs against ``base`` (the program's nodes, known to both ends in the same order)."""

  def __init__(self, base: list[Any]) -> None:
    self.base = base
    self.base_ref = {u: -1 - i for i, u in enumerate(base)}
    self._rows_space: Callable[[], Any] | None = None   # the native space set up with this base (a weak reference)

  def encode(self, roots: Iterable[Any], fps: Fingerprints | None = None, refs: dict[Any, int] | None = None, first: int = 0) -> Encoded:
    """The rows of every node of ``roots`` outside the base (iteratively, sources first); ``fps``: send each row's
    fingerprint. ``refs``: the nodes written before (a stream's, ``Records``), their
    rows numbered from 0 and these from ``first``; extended with these."""
    if refs is None: refs = dict(self.base_ref)
    rows: list[tuple[Any, Any, Any, tuple[int, ...]]] = []
    order: list[Any] = []
    out: list[int | None] = []

    def row(u: Any, src: tuple[int, ...]) -> int:   # a node's row, its sources' refs made before it
      rows.append((u.op, u.dtype, u.arg, src))
      order.append(u)
      return first + len(rows) - 1
    for root in roots:
      if root is None: out.append(None); continue
      if (known := refs.get(root)) is not None: out.append(known); continue   # most steps' nodes and results: sent already
      out.append(fill_bottom_up(root, refs, row))
    # each row's fingerprint, known already or made again (past its limit ``fps`` forgets all it knew, maybe mid-level)
    return Encoded(rows, out, b"".join(map(fps.of, order)) if fps is not None else b"")

  def encode_native(self, space: NativeSpace, roots: Iterable[Any]) -> Encoded:
    """``encode`` of the roots' ``UOp``s (without fingerprints), its rows made in C from ``space``'s nodes (``Space.rows``,
    stream 0: a batch of its own), the very same ``Encoded``. A root is a native node (an ``int``), a ``UOp`` (indexed
    into ``space``) or None; a graph the core does not take (a CALL) makes the whole batch ``encode``'s."""
    from uopc.relational.native.space import NotNative
    roots = roots if isinstance(roots, list) else list(roots)
    try: packed, out = self.rows_core(space).rows(roots, 0, 0, True)
    except NotNative: return self.encode(_uops(space, roots))
    return Encoded(PackedRows(*packed), out, b"")

  def rows_core(self, space: NativeSpace) -> Any:
    """``space``'s core, set up for ``Space.rows`` with this base (once a space: a worker's new core after ``forget`` again)."""
    if self._rows_space is None or self._rows_space() is not space:
      space.rows_setup(self.base)
      self._rows_space = weakref.ref(space)
    return space.core

  def decode(self, enc: Encoded, fps: Fingerprints | None = None, made: list[Any] | None = None) -> list[Any]:
    """The graphs of a batch (None where it sent none); ``fps``: remember the rows' fingerprints there. ``made``: the
    rows read before (a stream's, ``Records``), extended with these."""
    base = self.base
    if made is None: made = []
    first = len(made)
    for op, dtype, arg, src in enc.rows:
      made.append(make_uop(op, tuple(made[r] if r >= 0 else base[-1 - r] for r in src), arg, dtype))
    if fps is not None and enc.fps:
      for i, u in enumerate(made[first:]): fps.seed(u, enc.fps[i * SIZE:(i + 1) * SIZE])
    return [None if r is None else made[r] if r >= 0 else base[-1 - r] for r in enc.roots]

  def decode_native(self, space: NativeSpace, enc: Encoded, made: list[Any] | None = None) -> list[Any]:
    """``decode``, then each root's native node in ``space`` (``to_id``), with no ``UOp`` made for an inner node: the rows
    are interned in C (``Space.intern_rows``, ``native/_space_decode.c``), the very ids ``to_id`` gives. None for a root of
    None; a graph the core does not take (a CALL) stays its ``UOp``, as a worker holds it. ``made``: the rows read before
    (a stream's, ``Reader.decode_native``) as nodes (or ``UOp``s where the core took none, or read into a core replaced
    since: ``Reader.rebind``; a root's is made its node here), extended with these."""
    from uopc.relational.native.space import NotNative
    if made is None: made = []
    rows = enc.rows
    try: self.rows_core(space).intern_rows((rows.fields, rows.data) if isinstance(rows, PackedRows) else rows, made, make_uop)
    except NotNative: return self._decode_ids(space, enc, made)   # a CALL: the batch in Python (C extended nothing)
    return _roots_native(space, self.base, enc.roots, made)

  def _decode_ids(self, space: NativeSpace, enc: Encoded, made: list[Any]) -> list[Any]:
    """``decode_native`` of a batch the core does not take, in Python: ``decode`` (the rows read before made ``UOp``s
    from their nodes) and each row's node, its ``UOp`` where it has none (a CALL's graph)."""
    first, base, uop = len(made), self.base, space.uop
    new: list[Any] = []

    def node(r: int) -> Any:   # a ref's UOp
      return new[r - first] if r >= first else (uop(made[r]) if made[r].__class__ is int else made[r]) if r >= 0 else base[-1 - r]
    for op, dtype, arg, src in enc.rows: new.append(make_uop(op, tuple(node(r) for r in src), arg, dtype))
    made.extend(_id_or_uop(space, u) for u in new)
    return _roots_native(space, base, enc.roots, made)


class Records:
  """One shard's records as a stream of rows (module doc): ``encode`` a batch of graphs, in the order a reader reads them."""

  stream = 1   # the native core's stream (``Space.rows``) that writes it

  def __init__(self, base: list[Any], limit: int = 250_000) -> None:
    self.codec, self.limit = Codec(base), limit
    self.refs: dict[Any, int] = dict(self.codec.base_ref)
    self.count, self.epoch = 0, 0
    self._stream: tuple[Callable[[], Any], int] | None = None   # the native space writing this stream (weakly) and its epoch

  def start(self) -> int:
    """Begin a record: past ``limit`` rows a new epoch (nothing before it referred to); the record's epoch."""
    if self.count > self.limit:
      self.refs, self.count = dict(self.codec.base_ref), 0
      self.epoch += 1
    return self.epoch

  def encode(self, roots: Iterable[Any]) -> tuple[Encoded, int]:
    """The rows of ``roots`` not written before in this epoch, and the epoch (``start`` first, at each record)."""
    epoch = self.start()
    enc = self.codec.encode(roots, refs=self.refs, first=self.count)
    self.count += len(enc.rows)
    return enc, epoch

  def encode_native(self, space: NativeSpace, roots: Iterable[Any]) -> tuple[Encoded, int]:
    """``encode`` of the roots' ``UOp``s, its rows made in C from ``space``'s nodes (``Space.rows``' stream 1: one
    ``Records`` a core), the very same batch and epoch; roots as ``Codec.encode_native`` takes them. The core's stream
    starts again with each epoch, and with another core (a worker's ``forget``): a node written before in the epoch is
    then written again, and the reader, which has both rows, reads the same graphs."""
    from uopc.relational.native.space import NotNative
    epoch = self.start()
    roots = roots if isinstance(roots, list) else list(roots)
    try:
      core = self.codec.rows_core(space)
      if self._stream is None or self._stream[1] != epoch or self._stream[0]() is not space:
        core.rows_reset(self.stream)
        self._stream = (weakref.ref(space), epoch)
      packed, out = core.rows(roots, self.stream, self.count, True)
    except NotNative: return self.encode(_uops(space, roots))   # a CALL: this record in Python (its refs know what they wrote)
    rows = PackedRows(*packed)
    self.count += len(rows)
    return Encoded(rows, out, b""), epoch

  def reader(self) -> Reader:
    """A reader of this stream, from its first record."""
    return Reader(self.codec)


Delta = tuple[Encoded, int, int]   # a batch of a Deltas stream: its rows and roots, its epoch, its first row's number


class Deltas(Records):
  """A shard's batches to one other shard, as a stream of rows (module doc) written by the native core's stream
  ``stream`` (2 and up: one a receiver)."""

  def __init__(self, base: list[Any], stream: int, limit: int = 250_000) -> None:
    super().__init__(base, limit)
    self.stream = stream
    self.epoch = int.from_bytes(os.urandom(6), "little") << 16   # (a new stream's: a replaced sender's are others)

  def send(self, space: NativeSpace | None, roots: list[Any]) -> Delta:
    """The batch of ``roots`` (a native core's nodes in ``space``, or ``UOp``s where ``space`` is None)."""
    self.start()
    first = self.count
    enc, epoch = self.encode(roots) if space is None else self.encode_native(space, roots)
    return enc, epoch, first

  def restart(self) -> None:
    """A new epoch from the next batch: the receiver did not read the last ones (their sender's expansion went unused)."""
    self.count = self.limit + 1


class Reader:
  """Reads one ``Records`` stream in its order: ``decode`` each batch as it was encoded."""

  def __init__(self, codec: Codec) -> None:
    self.codec = codec
    self.made: list[Any] = []
    self.epoch = 0
    self._space: Callable[[], Any] | None = None   # the native space decode_native reads into (weakly): made's nodes are its

  def decode(self, batch: tuple[Encoded, int]) -> list[Any]:
    enc, epoch = batch
    if epoch != self.epoch: self.made, self.epoch = [], epoch
    return self.codec.decode(enc, made=self.made)

  def decode_native(self, space: NativeSpace, batch: tuple[Encoded, int]) -> list[Any]:
    """``decode`` each batch's roots as ``space``'s nodes (``Codec.decode_native``); a reader reads with one of the two,
    into one space (the nodes it keeps mean nothing in another)."""
    enc, epoch = batch
    if epoch != self.epoch: self.made, self.epoch = [], epoch
    if self._space is None or self._space() is not space:
      if any(m.__class__ is int for m in self.made): raise ValueError("Reader.decode_native: this stream's nodes are another space's")
      self._space = weakref.ref(space)
    return self.codec.decode_native(space, enc, made=self.made)

  def read(self, batches: Iterable[tuple[Encoded, int]]) -> list[list[Any]]:
    return [self.decode(b) for b in batches]

  def take(self, space: NativeSpace | None, batch: Delta) -> list[Any]:
    """The graphs of a ``Deltas`` batch, as ``space``'s nodes (``UOp``s where it is None), in the order they were sent; a
    batch read before (a call sent again) is read again as it was. ValueError for a batch past the rows read."""
    enc, epoch, first = batch
    if epoch != self.epoch: self.made, self.epoch = [], epoch
    if first < len(self.made): del self.made[first:]
    if first != len(self.made): raise ValueError(f"Reader.take: a batch from row {first:,d} of a stream read to row {len(self.made):,d}")
    return self.decode((enc, epoch)) if space is None else self.decode_native(space, (enc, epoch))

  def rebind(self, uop: Callable[[int], Any]) -> None:
    """The rows read as ``UOp``s (``uop`` of each native node): its space's core is about to be replaced. The next
    space's nodes are made from them as batches refer to them, as a source or as a root."""
    self.made = [uop(m) if m.__class__ is int else m for m in self.made]
    self._space = None


def _id_or_uop(space: NativeSpace, u: Any) -> Any:
  """``u``'s native node, or ``u`` where the core takes none (a CALL)."""
  from uopc.relational.native.space import NotNative
  try: return space.to_id(u)
  except NotNative: return u


def _roots_native(space: NativeSpace, base: list[Any], roots: list[int | None], made: list[Any]) -> list[Any]:
  """Each root ref's node in ``space`` (``_id_or_uop``; None for None). A row read before may be held as its ``UOp``
  (``Reader.rebind``: its space's core was replaced since): its node in ``space`` now, kept in ``made`` for the next."""
  def now(r: int) -> Any:
    made[r] = m = _id_or_uop(space, made[r])
    return m
  return [None if r is None else (m if (m := made[r]).__class__ is int else now(r)) if r >= 0 else _id_or_uop(space, base[-1 - r])
          for r in roots]


def _uops(space: NativeSpace, roots: list[Any]) -> list[Any]:
  """The roots as ``UOp``s (native nodes made ``UOp``s; -1 and None are None): a batch the native core does not take."""
  return [(space.uop(r) if r >= 0 else None) if r.__class__ is int else r for r in roots]
