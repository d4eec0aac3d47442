"""A worker's native core, where it applies: its levels, fingerprints and rows in C.

A shard's expansion spends most of its time making step maps (the ``Stepper``) and
fingerprinting each successor (``fingerprint.py``, a BLAKE2b a new node). The native core
(``uopc/relational/native``) does both over its own nodes: ``Space.expand_level`` gives a
whole level's steps (the keys the Python core keys them by, in ``Stepper.successors``' order), their
targets' fingerprints (the very bytes ``Fingerprints`` gives; the only shard's level, keyed, gives
their nodes and makes no fingerprint: ``visited.py``) and the candidates to send, and
``Space.rows`` writes graphs as the codec's rows (``codec.Codec.encode_native``). A graph the
core stops at (a rule raised, a map Python enumerates lazily) is stepped in Python, as one
process's explorer does (``Shard._expand_python``).

The rules' Python work is shared: a node's own redexes are the same in every worker's core,
and two workers' states share most of their inner nodes (a state's subterms are in states
either owns), so each worker would call the rules on nearly every node. A worker notes the
nodes its core matched in Python while it expanded a level (``Matched``, the frontier's own
roots left out: another worker owns none of them), sends them with their redexes in its
batches, and a receiver's core takes them as they are (``give``: ``NativeSpace.given``), no
rule called again for them.

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

from itertools import chain
from typing import Any, Callable, NamedTuple

import numpy as np

from uopc.relational.native.space import NativeSpace, NotNative


GIVEN_KEPT = 2_000_000   # nodes' redexes a core holds from other workers, unasked yet (past it they go: only a saving)


class Matched(NamedTuple):
  """Nodes a core matched in Python, with their own redexes: per node its redex count, per redex its rule index, and the
  nodes as one list, for a batch's rows: the matched nodes, then their redexes' results (in the nodes' order)."""
  counts: np.ndarray
  rules: np.ndarray
  nodes: list[int]


NO_MATCHES = Matched(np.empty(0, np.int32), np.empty(0, np.int32), [])


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

  def level(self, nodes: list[int], shards: int, share: bool, keyed: bool = False) -> tuple[Any, Matched]:
    """``Space.expand_level`` of the frontier's ``nodes`` (``keyed``: by node, no fingerprint made: the only shard's),
    and where ``share``, the nodes the core matched in Python meanwhile (module doc), the frontier's own left out."""
    space = self.space
    if not share: return self.core.expand_level(nodes, shards, keyed), NO_MATCHES
    heads: list[int] = []
    outs: list[list[tuple[int, int]]] = []
    space.matched = (heads, outs, set(nodes))   # (the frontier's own roots, most of the matches, are not noted)
    try: out = self.core.expand_level(nodes, shards)
    finally: space.matched = None
    if not heads: return out, NO_MATCHES
    counts = np.fromiter(map(len, outs), np.int32, len(outs))   # (a C pass or two each, not Python a node)
    pairs = np.fromiter(chain.from_iterable(chain.from_iterable(outs)), np.int32, 2 * int(counts.sum())).reshape(-1, 2)
    return out, Matched(counts, pairs[:, 0].copy(), heads + pairs[:, 1].tolist())

  def give(self, counts: np.ndarray, rules: np.ndarray, nodes: list[Any]) -> None:
    """Another worker's ``Matched``, its nodes read into this core: their redexes taken as they are where this core has
    not matched the node yet (a node this core does not take, a ``UOp``, is left out with its redexes)."""
    given = self.space.given
    if len(given) > GIVEN_KEPT: given.clear()
    k = len(counts)
    pairs = list(zip(rules.tolist(), nodes[k:]))
    ends = np.cumsum(counts).tolist()
    each = zip(nodes[:k], (pairs[e - n:e] for n, e in zip(counts.tolist(), ends)))
    if all(x.__class__ is int for x in nodes): given.update(each)
    else: given.update((x, r) for x, r in each if x.__class__ is int and all(h.__class__ is int for _, h in r))

  @property
  def full(self) -> bool:
    """True once the core holds ``limit`` nodes (a shard forgets at a level's end then)."""
    return self.core.counts["nodes"] > self.limit

  def forget(self) -> None:
    """A new core: the nodes, maps and ``UOp``s the old one held may go (a node of the old one means nothing now)."""
    self._start()
