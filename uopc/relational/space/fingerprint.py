"""Stable 128-bit fingerprints of graphs: the same in every process on every machine.

Python's ``hash`` is salted per process, so two shards would disagree on who owns a
graph. A node's fingerprint is the BLAKE2b digest (16 bytes) of its own fields, written
out canonically (op name, dtype name, the arg's type and ``repr``), followed by its
sources' fingerprints: hash consing makes a node its fields and its sources, so equal
graphs get equal fingerprints and (up to a 2^-128 collision) only they do. A graph's
fingerprint is its root's. ``Fingerprints`` remembers each node's, so a state costs
only the nodes its step made; the walk is iterative (a 20,000-node chain is fine).

>>> from uopc import UOp
>>> fps = Fingerprints()
>>> a, b = fps.of(UOp.param(0) + 0), Fingerprints().of(UOp.param(0) + 0)
>>> a == b, len(a), a == fps.of(UOp.param(0) + 1)
(True, 16, False)
>>> owner(a, 4) == int.from_bytes(a[:8], "little") % 4
True
"""
from __future__ import annotations

from hashlib import blake2b
from typing import Any

from uopc.uop import fill_bottom_up

SIZE = 16   # bytes: at 10^9 states two share one with probability about 10^-21 (docs/scaling.md)


def node_fields(u: Any) -> bytes:
  """The node's own fields, canonically: ``ADD|i32|NoneType|None`` (the arg's type keeps ``1``, ``1.0`` and ``True`` apart)."""
  dt = u.dtype
  return f"{u.op.name}|{getattr(dt, 'name', dt)!r}|{type(u.arg).__name__}|{u.arg!r}".encode()


_plain: dict[tuple[Any, Any], bytes] = {}   # (op, dtype) -> node_fields of a node with no arg (most inner nodes): one f-string each


def _digest(u: Any, src: tuple[bytes, ...]) -> bytes:
  """A node's fingerprint from its fields and its sources' fingerprints (one BLAKE2b call: the same bytes as
  ``node_fields`` followed by the sources')."""
  if u.arg is None:   # keyed by op and dtype only: an arg would need its type and repr (1 == 1.0 == True, 0.0 == -0.0)
    if (f := _plain.get((u.op, u.dtype))) is None: f = _plain[u.op, u.dtype] = node_fields(u)
  else: f = node_fields(u)
  return blake2b(f + b"".join(src) if src else f, digest_size=SIZE).digest()


def owner(fp: bytes, shards: int) -> int:
  """The shard that owns a fingerprint: its first 8 bytes (little endian) mod ``shards``."""
  return int.from_bytes(fp[:8], "little") % shards


class Fingerprints:
  """Each node's fingerprint, remembered; past ``limit`` remembered nodes all but the ``keep`` ones are forgotten."""

  def __init__(self, limit: int = 2_000_000) -> None:
    self.limit = limit
    self.memo: dict[Any, bytes] = {}
    self.kept: dict[Any, bytes] = {}   # never forgotten (the program's nodes)

  def keep(self, root: Any) -> bytes:
    """The fingerprint of ``root``, its nodes remembered for good."""
    fp = self.of(root)
    self.kept.update(self.memo)
    return fp

  def seed(self, node: Any, fp: bytes) -> None:
    """Remember a fingerprint computed elsewhere (a node received with its sender's fingerprint)."""
    self.memo[node] = fp

  def forget(self) -> None:
    """Forget every fingerprint but the ``keep`` ones (the nodes they kept alive may go)."""
    self.memo.clear()
    self.memo.update(self.kept)

  @property
  def full(self) -> bool:
    """True once half the limit is remembered (a shard forgets at a level's end then, not mid-level)."""
    return len(self.memo) > self.limit // 2

  def of(self, root: Any) -> bytes:
    """The fingerprint of the graph rooted at ``root``."""
    memo = self.memo
    if (fp := memo.get(root)) is not None: return fp
    if len(memo) > self.limit: self.forget()
    return fill_bottom_up(root, memo, _digest)
