"""The e-graph: e-classes of equal graphs, e-nodes over e-classes, congruence by deferred rebuilding.

An e-node is a tuple ``(op, dtype, arg, children)`` whose children are e-class ids. A
CONST's ``arg`` is the CONST node itself: hash consing keeps constants apart by their
bits, so ``-0.0`` and ``0.0`` (and NaNs of different bits) are different e-nodes and
are never merged by congruence. ``union`` merges two e-classes and defers the repair
of the hash-cons table (egg's rebuild): ``rebuild`` restores the invariants, merging
the users that became equal (congruence closure), all at once.

>>> from uopc.uop import UOp
>>> p0, p1 = UOp.param(0), UOp.param(1)
>>> eg = EGraph()
>>> a, b = eg.add(p0 + 1), eg.add(p1 + 1)
>>> eg.union(eg.add(p0), eg.add(p1)), eg.find(a) == eg.find(b)
(True, False)
>>> eg.rebuild(); eg.find(a) == eg.find(b)          # congruence: p0 = p1, so p0 + 1 = p1 + 1
True
>>> zero, negzero = eg.add(UOp.const(0.0)), eg.add(UOp.const(-0.0))
>>> zero == negzero, eg.union(zero, negzero), len(eg.conflicts)     # bit-exact constants are never merged
(False, False, 1)
"""
from __future__ import annotations

from typing import Any, Iterator, NamedTuple

from uopc.egraph.unionfind import UnionFind
from uopc.ops import Ops
from uopc.uop import Shape, UOp, fill_bottom_up, make_uop

ENode = tuple   # (op, dtype, arg, children): children are e-class ids; a CONST's arg is the CONST node


class EClass(NamedTuple):
  """The e-nodes of one class, its users ``(e-node, class)``, and the dtype and shape all its graphs share."""
  nodes: list[ENode]
  parents: list[tuple[ENode, int]]
  dtype: Any
  shape: Shape


def enode_arg(n: ENode) -> Any:
  """The ``arg`` a node of ``n`` has (a CONST's value, not its node)."""
  return n[2].arg if n[0] is Ops.CONST else n[2]


def enode_key(u: UOp) -> Any:
  """What an e-node of ``u`` holds as its ``arg``: a CONST's node itself (its bits), else the arg."""
  return u if u.op is Ops.CONST else u.arg


def to_uop(n: ENode, src: list[UOp] | tuple[UOp, ...]) -> UOp:
  """The node of e-node ``n`` on the graphs ``src`` of its children (may raise ``UOpError``)."""
  return n[2] if n[0] is Ops.CONST else make_uop(n[0], tuple(src), n[2], n[1])


class EGraph:
  """E-classes by id; ``add`` a graph, ``union`` two classes, ``rebuild`` before reading again."""

  def __init__(self) -> None:
    self.uf = UnionFind()
    self.memo: dict[ENode, int] = {}       # canonical e-node -> its class (canonical after rebuild)
    self.classes: dict[int, EClass] = {}   # canonical id -> class
    self.pending: list[int] = []           # classes merged since the last rebuild
    self._added: dict[UOp, int] = {}       # graphs added already (their class, maybe not canonical)
    self.consts: dict[int, UOp] = {}       # canonical id -> the CONST in that class
    self.conflicts: list[tuple[UOp, UOp]] = []   # refused unions of two different constants
    self.touched: set[int] = set()         # classes made or merged since the last take_touched (semi-naive e-matching)
    self.fresh: list[ENode] = []           # e-nodes made, moved to another class or changed by rebuild since then
    self.unions: list[tuple[int, int]] = []   # (kept, gone) of every merge since the last take_touched, in order
    self._stale: set[int] = set()          # classes whose e-node lists may hold non-canonical e-nodes (rebuild fixes them)

  def find(self, c: int) -> int: return self.uf.find(c)

  def canonical(self, n: ENode) -> ENode:
    """``n`` with its children's canonical ids."""
    if not n[3]: return n
    find = self.uf.find
    return (n[0], n[1], n[2], tuple([find(c) for c in n[3]]))

  def add_enode(self, n: ENode, dtype: Any, shape: Shape) -> int:
    """The class of e-node ``n`` (made if new)."""
    if (c := self.memo.get(n)) is not None: return self.uf.find(c)   # a key not canonical any more still names its class
    n = self.canonical(n)
    if (c := self.memo.get(n)) is not None: return self.uf.find(c)
    c = self.uf.make()
    self.memo[n] = c
    self.classes[c] = EClass([n], [], dtype, shape)
    self.touched.add(c)
    self.fresh.append(n)
    if n[0] is Ops.CONST: self.consts[c] = n[2]
    for child in set(n[3]): self.classes[child].parents.append((n, c))
    return c

  def add(self, root: UOp) -> int:
    """The class of graph ``root``, adding each of its nodes (iteratively: any depth)."""
    add = self.add_enode
    fill_bottom_up(root, self._added, lambda u, kids: add((u.op, u.dtype, enode_key(u), kids), u.dtype, u.shape))
    return self.uf.find(self._added[root])

  def union(self, a: int, b: int) -> bool:
    """Merge two classes (of one dtype and shape); False if they were one already.

    Two classes holding different constants (bit for bit) are never merged: such a
    union is refused and recorded in ``conflicts`` (a rule claimed ``-0.0 = 0.0``, say).
    """
    a, b = self.uf.find(a), self.uf.find(b)
    if a == b: return False
    ka, kb = self.consts.get(a), self.consts.get(b)
    if ka is not None and kb is not None:   # ka is not kb: one constant is one class
      self.conflicts.append((ka, kb))
      return False
    ca, cb = self.classes[a], self.classes[b]
    if (ca.dtype, ca.shape) != (cb.dtype, cb.shape):
      raise ValueError(f"cannot merge a {ca.dtype.name}{list(ca.shape)} class with a {cb.dtype.name}{list(cb.shape)} one")
    root = self.uf.union(a, b)
    keep, gone = (ca, cb) if root == a else (cb, ca)
    keep.nodes.extend(gone.nodes)
    self.fresh.extend(gone.nodes)
    keep.parents.extend(gone.parents)
    gone_id = b if root == a else a
    del self.classes[gone_id]
    if (k := self.consts.pop(gone_id, None)) is not None: self.consts[root] = k
    self.pending.append(root)
    self.touched.add(root)
    self.unions.append((root, gone_id))
    self._stale.add(root)
    return True

  def rebuild(self) -> None:
    """Restore the invariants after unions: canonical hash-cons table, congruent users merged."""
    while self.pending:
      todo = dict.fromkeys([self.uf.find(c) for c in self.pending])   # in order: the C core repairs them so
      self.pending = []
      for c in todo: self._repair(self.uf.find(c))
    # only the merged classes and the users of merged classes can hold a non-canonical or repeated e-node
    stale, self._stale = {self.uf.find(c) for c in self._stale}, set()
    fresh = self.fresh
    for c in stale:
      cls = self.classes[c]
      nodes = [self.canonical(n) for n in cls.nodes]
      fresh.extend(m for n, m in zip(cls.nodes, nodes) if m != n)
      cls.nodes[:] = dict.fromkeys(nodes)

  def take_touched(self) -> tuple[set[int], list[tuple[int, int]], set[ENode]]:
    """Since the last call (after ``rebuild``): the canonical classes made or merged, the merges (kept, gone) in order,
    and the e-nodes made, moved to another class or changed (canonical); all three are reset."""
    touched, unions = {self.uf.find(c) for c in self.touched}, self.unions
    fresh = {self.canonical(n) for n in self.fresh}
    self.touched, self.unions, self.fresh = set(), [], []
    return touched, unions, fresh

  def _repair(self, c: int) -> None:
    memo, find = self.memo, self.uf.find
    cls = self.classes[c]
    for n, _ in cls.parents: memo.pop(n, None)
    users: dict[ENode, int] = {}
    congruent: list[tuple[int, int]] = []
    stale = self._stale
    for n, pc in cls.parents:
      stale.add(pc)
      n = self.canonical(n)
      if n in users: congruent.append((pc, users[n]))   # two users became the same e-node
      else: users[n] = memo[n] = find(pc)
    cls.parents[:] = list(users.items())
    for a, b in congruent: self.union(a, b)   # after the list is set: a union extends it

  # ---- reading

  def __len__(self) -> int: return len(self.classes)

  @property
  def enode_count(self) -> int:
    """The number of distinct e-nodes (after ``rebuild``)."""
    return sum(len(cls.nodes) for cls in self.classes.values())

  def items(self) -> Iterator[tuple[int, EClass]]:
    """``(id, class)`` for every class."""
    return iter(list(self.classes.items()))
