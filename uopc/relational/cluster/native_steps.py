"""A worker's steps and fingerprints from the native core, where it applies.

A shard's expansion spends most of its time making step maps (the ``Stepper``) and
fingerprinting each successor (``fingerprint.py``, a BLAKE2b a new node). The native core
(``uopc/relational/native``) does both in C over its own nodes: ``Space.successors`` gives
a graph's steps (the keys the Python core keys them by, and the nodes of the graphs they
make, in ``steps_of``'s order) and ``Space.fingerprint`` a node's fingerprint, the very
bytes ``Fingerprints`` gives. A graph the core stops at (a rule raised, a map Python
enumerates lazily) is stepped in Python, as one process's explorer does.

``NativeSteps`` also stands in for ``Fingerprints`` where the codec and the shard read one
(``of``, ``seed``, ``keep``, ``forget``, ``full``): a node's fingerprint is the core's, so
the two never disagree. What it holds grows with the nodes it made; past ``limit`` nodes
``forget`` starts a new core (the program indexed again), as ``Fingerprints`` forgets.

>>> from uopc import UOp, UPat, PatternMatcher
>>> from uopc.relational.cluster.fingerprint import Fingerprints
>>> from uopc.relational.native import available
>>> from uopc.relational.space.step import Stepper
>>> g = (UOp.param(0) + 0) * (UOp.param(1) + 0)
>>> x = UPat.var("x")
>>> if available():
...   steps = NativeSteps(Stepper(PatternMatcher([(x + 0, lambda x: x)])), g)
...   node, keys, targets = steps.steps(g)
...   p0, p1 = UOp.param(0), UOp.param(1)
...   [steps.uop(t) for t in targets] == [p0 * (p1 + 0), (p0 + 0) * p1], steps.of(g) == Fingerprints().of(g)
... else: True, True
(True, True)
"""
from __future__ import annotations

from typing import Any, Callable

from uopc.relational.native.space import NativeSpace, NotNative


class NativeSteps:
  """The steps and fingerprints of one worker's graphs, from a native core made for ``stepper`` and ``program`` (module
  doc); ``NotNative`` if the program is not one the core takes (a CALL)."""

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

  def steps(self, g: Any) -> tuple[int, list[Any], list[int]] | None:
    """The steps out of graph ``g`` (a ``UOp``): its native node, the steps' keys (``Redex`` or ``At``) and the native nodes of
    the graphs they make, in ``steps_of``'s order; None where the core stops (the caller steps ``g`` in Python), or where
    ``g`` has a CALL."""
    space = self.space
    try: i = space.to_id(g)
    except NotNative: return None   # a CALL a rule made
    got = self.core.successors(i)
    if got is None: return None
    keys = self.keys
    return i, [keys[k] for k in got[0]], got[1]

  def node_or_none(self, g: Any) -> int | None:
    """The native node of ``g`` (a ``UOp``), or None where it has a CALL (a rule made one)."""
    try: return self.space.to_id(g)
    except NotNative: return None

  def uop(self, i: int) -> Any:
    """The ``UOp`` of native node ``i``."""
    return self.space.uop(i)

  # ---- the Fingerprints interface (codec.py, shard.py)

  def of(self, u: Any) -> bytes:
    """The fingerprint of the graph rooted at ``u`` (a ``UOp``)."""
    return self.space.fingerprint(self.space.to_id(u))

  def seed(self, node: Any, fp: bytes) -> None:
    """(A received node's fingerprint: the core makes its own, the same.)"""

  def keep(self, root: Any) -> bytes:
    """The fingerprint of ``root`` (the program, which a new core indexes again)."""
    return self.of(root)

  @property
  def full(self) -> bool:
    """True once the core holds ``limit`` nodes (a shard forgets at a level's end then)."""
    return self.core.counts["nodes"] > self.limit

  def forget(self) -> None:
    """A new core: the nodes, maps and ``UOp``s the old one held may go."""
    self._start()
