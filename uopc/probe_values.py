"""The values rules and programs are tried on: each dtype's edge values, random values, and the cheapest-first combinations
and round robin that build instances. ``check-rules`` (``uopc.backend``), ``order``'s comparison of two results, ``pairs``'
instances and the IR adapters' value generators all draw from here, so an edge value added is tried everywhere.

The tables are tuples in a fixed order: seeded draws index them (``rng.choice``), and a report's instances come in their
order, so appending changes outputs and reordering changes every seeded draw.

>>> import random
>>> EDGE[dtypes.f32][:4], random_scalar(random.Random(0), dtypes.i32) in range(-100, 101)
((0.0, -0.0, 1.0, -1.0), True)
>>> list(by_cost([[(0, "a"), (1, "b")], [(0, "x"), (2, "y")]]))
[('a', 'x'), ('b', 'x'), ('a', 'y'), ('b', 'y')]
"""
from __future__ import annotations

import math
import random
import struct
from typing import Any, Callable, Hashable, Iterable, Iterator, Sequence, TypeVar

from uopc.dtype import DType, dtypes, truncate

T = TypeVar("T")

# what rules get wrong at the edges: zero and its sign, one, the limits, infinities, NaN
EDGE: dict[DType, tuple[Any, ...]] = {
  dtypes.i32: (0, 1, -1, 2, 2**31 - 1, -2**31),
  dtypes.f32: (0.0, -0.0, 1.0, -1.0, math.inf, -math.inf, math.nan),
  dtypes.bool: (True, False),
}

# check-rules' wider table: the edge values and what arithmetic rules trip over besides (small powers of two, halves,
# the f32 limits, the smallest subnormal and normal, the first integer f32 cannot hold), in the order its draws index
EDGE_WIDE: dict[DType, tuple[Any, ...]] = {
  dtypes.i32: (0, 1, -1, 2, 3, 4, 7, 8, 16, 100, -2, -4, -7, 2**31 - 1, -2**31, 2**30, -2**30, 2**16),
  dtypes.f32: (0.0, -0.0, 1.0, -1.0, 2.0, 0.5, -3.0, 100.0, 1e-3, math.inf, -math.inf, math.nan,
               3.4028234663852886e38, -3.4028234663852886e38, 1.401298464324817e-45, 1.1754943508222875e-38, 16777217.0),
  dtypes.bool: (True, False),
}


def edge_or(rng: random.Random, edges: Sequence[T], draw: Callable[[], T]) -> T:
  """One of ``edges`` about a third of the time, else ``draw()``: how a random binding meets the edges often enough.

  >>> edge_or(random.Random(1), (0, 10), lambda: 5)
  0
  """
  return rng.choice(edges) if rng.random() < 0.3 else draw()


def random_scalar(rng: random.Random, dt: DType) -> Any:
  """A value of ``dt``: an edge value (``EDGE``) about a third of the time, else a small one (floats in quarters: exact in
  f32, and short to print)."""
  return edge_or(rng, EDGE[dt], lambda: rng.random() < 0.5 if dt is dtypes.bool else rng.randint(-100, 100) if dt is dtypes.i32 else
                 rng.randint(-400, 400) / 4)


def random_bindings(params: Iterable[Any], n: int = 8, seed: int = 0) -> list[dict[int, Any]]:
  """``n`` seeded random bindings ``{slot: value}`` of these PARAMs (``random_scalar`` each, nested lists for a shape).

  >>> from uopc.uop import UOp
  >>> [sorted(b) for b in random_bindings([UOp.param(0), UOp.param(2, dtypes.f32)], n=2)]
  [[0, 2], [0, 2]]
  """
  params = list(params)
  rng = random.Random(seed)

  def value(dt: DType, shape: tuple[int, ...]) -> Any:
    return random_scalar(rng, dt) if not shape else [value(dt, shape[1:]) for _ in range(shape[0])]
  return [{p.arg.slot: value(p.dtype, p.shape) for p in params} for _ in range(n)]


def random_value(rng: random.Random, dtype: DType) -> Any:
  """check-rules' value: a wide edge value (``EDGE_WIDE``) half of the time, else a random one (small, or anywhere in
  the dtype: any f32 bit pattern, NaNs included).

  >>> r = random.Random(0)
  >>> all(type(random_value(r, dtypes.i32)) is int for _ in range(100))
  True
  """
  if rng.random() < 0.5: return rng.choice(EDGE_WIDE[dtype])
  if dtype is dtypes.bool: return rng.random() < 0.5
  if dtype is dtypes.i32: return rng.randint(-20, 20) if rng.random() < 0.5 else rng.randint(-2**31, 2**31 - 1)
  if rng.random() < 0.5: return truncate(dtypes.f32, rng.uniform(-10, 10))
  v = struct.unpack("<f", struct.pack("<I", rng.getrandbits(32)))[0]
  return truncate(dtypes.f32, v)


def by_cost(groups: list[list[tuple[int, T]]]) -> Iterator[tuple[T, ...]]:
  """Every combination of one candidate per group (``(cost, candidate)`` pairs), in order of increasing total cost:
  the plainest instances first."""
  levels: list[dict[int, list[T]]] = [{} for _ in groups]   # per group: cost -> its candidates
  for lv, g in zip(levels, groups):
    for c, x in g: lv.setdefault(c, []).append(x)
  costs = [sorted(lv) for lv in levels]
  top = sum(c[-1] for c in costs)
  for total in range(top + 1):
    yield from _with_total(levels, costs, 0, total, ())


def _with_total(levels: list[dict], costs: list[list[int]], k: int, total: int, acc: tuple) -> Iterator[tuple]:
  # recursion depth is the number of holes of one pattern (a handful)
  if k == len(levels):
    if total == 0: yield acc
    return
  rest_max = sum(c[-1] for c in costs[k + 1:])
  for c in costs[k]:
    if c > total: break
    if total - c > rest_max: continue
    for x in levels[k][c]: yield from _with_total(levels, costs, k + 1, total - c, acc + (x,))


FAILED: Any = object()   # what a stream of ``round_robin`` gives for a draw that built nothing (it counts against the budget)
_END = object()


def round_robin(streams: Iterable[Iterator[T]], most: int, budget: int | None = None,
                key: Callable[[T], Hashable] = lambda x: x) -> Iterator[T]:
  """One item from each stream in turn, again and again (a stream that ends drops out), each distinct item (by ``key``)
  once, until ``most`` of them; with ``budget``, also until that many draws (checked after an item is given, and before
  each round). How instances are taken from several generators, so each contributes its plainest first.

  >>> list(round_robin([iter("aab"), iter("xy")], 3))
  ['a', 'x', 'y']
  """
  live = list(streams)
  seen: set[Hashable] = set()
  left = math.inf if budget is None else budget
  while live and len(seen) < most and left > 0:
    for s in list(live):
      x: Any = next(s, _END)
      if x is _END:
        live.remove(s)
        continue
      left -= 1
      if x is FAILED or (k := key(x)) in seen: continue
      seen.add(k)
      yield x
      if len(seen) >= most or left <= 0: break
