"""Union-find over e-class ids: ``find`` with path halving (no recursion), ``union`` by size.

>>> uf = UnionFind()
>>> a, b, c = uf.make(), uf.make(), uf.make()
>>> uf.union(a, b) == uf.find(b), uf.find(a) == uf.find(b), uf.find(c) == uf.find(a)
(True, True, False)
"""
from __future__ import annotations


class UnionFind:
  """Disjoint sets of the ids ``0..n-1``."""
  __slots__ = ("parent", "size")

  def __init__(self) -> None:
    self.parent: list[int] = []
    self.size: list[int] = []

  def make(self) -> int:
    """A new singleton set; its id."""
    self.parent.append(len(self.parent))
    self.size.append(1)
    return len(self.parent) - 1

  def find(self, i: int) -> int:
    """The representative id of ``i``'s set."""
    parent = self.parent
    while (p := parent[i]) != i:
      parent[i] = i = parent[p]   # path halving: point at the grandparent, move there
    return i

  def union(self, a: int, b: int) -> int:
    """Merge the sets of ``a`` and ``b``; the representative of the result (the larger set's)."""
    a, b = self.find(a), self.find(b)
    if a == b: return a
    if self.size[a] < self.size[b]: a, b = b, a
    self.parent[b] = a
    self.size[a] += self.size[b]
    return a

  def __len__(self) -> int: return len(self.parent)
