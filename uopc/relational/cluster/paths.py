"""States rebuilt from the shards' records: parent fingerprints walked back, steps replayed forward.

A shard keeps, for each state it owns, its parent's fingerprint and the position of the
step that made it among the parent's steps (``visited.py``), not its graph. ``Paths``
asks the owners for a batch of fingerprints at once, then for their parents, and so on
to the program (one call a shard a step of depth, however many states are asked for);
then it replays each path from the program: the parent's steps in the order every
explorer meets them (``Stepper.successors``), the step at the recorded position, whose result
is the child's graph. So a report holds the states it prints (normal forms, stuck
states, matches, with their paths), each once, and nothing else; a path costs one
expansion a step, in this process.

>>> from uopc import UOp
>>> from uopc.relational.space.fingerprint import Fingerprints
>>> from uopc.relational.space.step import stepper_for
>>> from uopc.rulesets import resolve_rules
>>> p0 = UOp.param(0)
>>> prog, pm = (p0 + 0) * 1, resolve_rules("symbolic")
>>> fps = Fingerprints()
>>> one, two = fps.of(prog), fps.of(p0 + 0)
>>> table = {one: (0, b"", -1, 0), two: (1, one, 0, 1)}  # fp -> (id, parent fp, position, depth): what shards answer
>>> paths = Paths(prog, stepper_for(pm), lambda wanted: {f: table[f] for f in wanted})
>>> s = paths.states([two])[two]
>>> s.id, s.term(), [e.rule for e in s.path()] == [s.rule]
(1, 'add(p0, 0)', True)
"""
from __future__ import annotations

from typing import Any, Callable

from uopc.relational.space.states import State, Stuck

Record = tuple[int, bytes, int, int]   # a state's (id, parent fingerprint, step position, depth)
Lookup = Callable[[set[bytes]], dict[bytes, Record]]


class Paths:
  """The states of fingerprints, each with its path (module doc); ``lookup`` asks the shards for a batch of records."""

  def __init__(self, root: Any, stepper: Any, lookup: Lookup) -> None:
    self.stepper, self.lookup = stepper, lookup
    self.records: dict[bytes, Record] = {}
    self.made: dict[int, State] = {}   # id -> state: a state rebuilt once, shared by every path through it
    self.root = root

  def walk(self, fps: list[bytes]) -> None:
    """Learn the records of ``fps`` and of all their ancestors: a batch of lookups a level."""
    want = {f for f in fps if f not in self.records}
    while want:
      got = self.lookup(want)
      missing = want - got.keys()
      assert not missing, f"{len(missing)} states were not found on their shards"
      self.records.update(got)
      want = {r[1] for r in got.values() if r[3] > 0 and r[1] not in self.records}

  def states(self, fps: list[bytes]) -> dict[bytes, State]:
    """The state of each fingerprint (a state the run made), with its parents to the program."""
    self.walk(fps)
    return {f: self._state(f) for f in fps}

  def stuck(self, sid: int, parent: bytes, pos: int, depth: int) -> State:
    """The stuck state ``sid``: step ``pos`` of ``parent``'s state failed."""
    if (s := self.made.get(sid)) is not None: return s
    self.walk([parent])
    p = self._state(parent)
    r, h = list(self.stepper.successors(p.graph))[pos]
    assert type(h) is Stuck, "a stuck state's step is a failed one"
    s = self.made[sid] = State(sid, p.graph, depth, p, r, self.stepper, error=r.error)
    s.normal, s.out = False, ()
    return s

  def _state(self, fp: bytes) -> State:
    chain: list[Record] = []
    f = fp
    while True:   # up to a state made already (the program's is made first)
      rec = self.records[f]
      if rec[0] in self.made or rec[3] == 0: break
      chain.append(rec)
      f = rec[1]
    top = self.records[f]
    s = self.made.get(top[0])
    if s is None: s = self.made[top[0]] = State(0, self.root, 0, None, None, self.stepper)
    for sid, _, pos, depth in reversed(chain):   # replay: the step at the recorded position makes the child
      r, h = list(self.stepper.successors(s.graph))[pos]
      s = self.made[sid] = State(sid, h, depth, s, r, self.stepper)
    return s
