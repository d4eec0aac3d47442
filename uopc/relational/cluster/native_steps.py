"""A worker's native core, where it applies: its levels, fingerprints and rows in C.

A shard's expansion spends most of its time making step maps (the ``Stepper``) and
fingerprinting each successor (``fingerprint.py``, a BLAKE2b a new node). The native core
(``uopc/relational/native``) does both over its own nodes: ``Space.expand_level`` gives a
whole level's steps (the keys the Python core keys them by, in ``Stepper.successors``' order), their
targets' fingerprints (the very bytes ``Fingerprints`` gives) and the candidates to send, and
``Space.rows`` writes graphs as the codec's rows (``codec.Codec.encode_native``). A graph the
core stops at (a rule raised, a map Python enumerates lazily) is stepped in Python, as one
process's explorer does (``Shard._expand_python``).

What the core holds grows with the nodes it made; past ``limit`` nodes ``forget`` starts a new
core (the program indexed again), as ``Fingerprints`` forgets. A graph is a native node of the
core (an ``int``) or a ``UOp``; ``node_or_none`` takes either.

>>> from uopc import UOp, UPat, PatternMatcher
>>> from uopc.relational.space.fingerprint import Fingerprints
>>> from uopc.relational.native import available
>>> from uopc.relational.space.step import Stepper
>>> g = (UOp.param(0) + 0) * (UOp.param(1) + 0)
>>> x = UPat.var("x")
>>> if available():
...   steps = NativeSteps(Stepper(PatternMatcher([(x + 0, lambda x: x)])), g)
...   node = steps.node_or_none(g)
...   keys, targets = steps.core.successors(node)
...   p0, p1 = UOp.param(0), UOp.param(1)
...   [steps.uop(t) for t in targets] == [p0 * (p1 + 0), (p0 + 0) * p1], steps.fingerprint(node) == Fingerprints().of(g)
... else: True, True
(True, True)
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from uopc.relational.native.space import NativeSpace, NotNative


class NativeSteps:
  """The native core of one worker's graphs, made for ``stepper`` and ``program`` (module doc); ``NotNative`` if the
  program is not one the core takes (a CALL)."""

  def __init__(self, stepper: Any, program: Any, limit: int = 500_000) -> None:
    self.stepper, self.program, self.limit = stepper, program, limit
    self._start()

  def _start(self) -> None:
    self.space = NativeSpace(self.stepper)
    self.space.fingerprint(self.space.to_id(self.program))   # (sets the core's fingerprints up)
    self.keys, self.core = self.space.keys, self.space.core
    # the core's own methods, called once a state or a step: no Python frame between
    self.fingerprint: Callable[[int], bytes] = self.core.fingerprint   # a native node's fingerprint (``Fingerprints.of``'s)
    self.fingerprints: Callable[[list[int]], list[bytes]] = self.core.fingerprints   # each node's
    self._rules = np.empty(0, np.int32)        # per redex id (graph semantics' keys): its rule index,
    self._nodes = np.empty((0, 2), np.int32)   # and its node's and its result's native nodes (redex_arrays),
    self._read = 0                             # for the first _read redexes (the arrays' room doubles: read once a run)

  def node_or_none(self, g: Any) -> int | None:
    """The native node of ``g`` (a ``UOp``, or a native node already), or None where it has a CALL (a rule made one)."""
    if g.__class__ is int: return g
    try: return self.space.to_id(g)
    except NotNative: return None

  def uop(self, i: int) -> Any:
    """The ``UOp`` of native node ``i``."""
    return self.space.uop(i)

  def redex_arrays(self, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """Each key's rule index, and its redex's node and result as native nodes (interleaved: a record writes both), from
    arrays extended with the redexes made since the last call (the core's ``redex_rows``: each redex read once a run,
    not once a level); None under tree semantics, whose keys are positions."""
    space = self.space
    if space.keys is not space.redexes: return None
    if (done := self._read) < (made := len(space.redexes)):
      new = np.frombuffer(space.core.redex_rows(done, made), np.int32).reshape(-1, 3)
      if made > len(self._rules):
        room = max(made, 2 * len(self._rules))
        self._rules = np.concatenate([self._rules[:done], np.empty(room - done, np.int32)])
        self._nodes = np.concatenate([self._nodes[:done], np.empty((room - done, 2), np.int32)])
      self._rules[done:made], self._nodes[done:made] = new[:, 2], new[:, :2]
      self._read = made
    return self._rules[keys], self._nodes[keys].ravel()

  @property
  def full(self) -> bool:
    """True once the core holds ``limit`` nodes (a shard forgets at a level's end then)."""
    return self.core.counts["nodes"] > self.limit

  def forget(self) -> None:
    """A new core: the nodes, maps and ``UOp``s the old one held may go (a node of the old one means nothing now)."""
    self._start()
