"""Strongly connected components of a graph of ids: the state graph's, for cycles (``space/cycles.py``).

Its own module so that the exploration (``stream.py``, which finds the closed components) and the cycles
built from them (``cycles.py``, which imports the exploration) need not import each other.
"""
from __future__ import annotations

from typing import Iterable


def components(ids: Iterable[int], succ: dict[int, list[int]]) -> list[list[int]]:
  """Tarjan's strongly connected components of the graph ``succ`` over ``ids``, iteratively (explorations are deep).

  >>> components(range(4), {0: [1], 1: [0, 2], 2: [3]})
  [[3], [2], [1, 0]]
  """
  index: dict[int, int] = {}
  low: dict[int, int] = {}
  on_stack: set[int] = set()
  stack: list[int] = []
  out: list[list[int]] = []
  for root in ids:
    if root in index: continue
    work = [(root, 0)]
    while work:
      v, i = work.pop()
      if i == 0:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
      targets = succ.get(v, ())
      if i < len(targets):
        work.append((v, i + 1))
        w = targets[i]
        if w not in index: work.append((w, 0))
        elif w in on_stack: low[v] = min(low[v], index[w])
        continue
      if low[v] == index[v]:
        comp = []
        while True:
          w = stack.pop()
          on_stack.discard(w)
          comp.append(w)
          if w == v: break
        out.append(comp)
      if work: low[work[-1][0]] = min(low[work[-1][0]], low[v])
  return out
