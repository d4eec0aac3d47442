"""Shrinking a counterexample's inputs: the simplest PARAM values on which a rewrite still fails.

A deterministic greedy shrinker toward 0: each round tries, for every scalar (a PARAM, or
one element of a shaped PARAM), simpler values at once (0, 1, -1, the value halved again
and again, ladders of 63 steps toward 0, each 64 times finer than the last, its integer part), keeps the simplest change
that still fails, and stops when no change does. ``still_fails`` runs a whole round's candidates in one call, so a
round compiles once.

>>> fails = lambda cands: [v[0] > 10 for v in cands]   # "fails" for p0 > 10
>>> shrink({0: 1730881924}, fails)
{0: 11}
"""
from __future__ import annotations

import math
from typing import Any, Callable

MAX_ROUNDS = 16   # each round moves at least one scalar to a simpler value; a round compiles once
LADDER = 64       # steps of each ladder from an int toward 0


def simplicity(v: Any) -> tuple:
  """A sort key, smaller is simpler: False < True; finite < inf < nan; integral first; then by magnitude; + before -.

  >>> sorted([-1, 2, 0, 1, -2], key=simplicity)
  [0, 1, -1, 2, -2]
  """
  if isinstance(v, bool): return (0, False, int(v), False)
  if isinstance(v, float) and v != v: return (2, False, 0, False)
  if isinstance(v, float) and math.isinf(v): return (1, False, 0, v < 0)
  return (0, isinstance(v, float) and not v.is_integer(), abs(v), math.copysign(1, v) < 0)


def simpler_values(v: Any) -> list[Any]:
  """The values simpler than ``v`` of its type, simplest first.

  >>> simpler_values(12), simpler_values(-2.5), simpler_values(True)
  ([0, 1, -1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11], [0.0, -0.0, 1.0, -1.0, -2.0, -3.0, -0.3125, -0.625, -1.25], [False])
  """
  if isinstance(v, bool): return [False] if v else []
  if isinstance(v, int):   # and ladders from v toward 0, each 64 times finer: a round narrows the gap to the edge of the failing range 64-fold
    cands: list[Any] = [0, 1, -1, v - (v > 0) + (v < 0), *(int(v / 2**k) for k in range(1, 32)),
             *(v - int(v * j / LADDER**k) for k in range(1, 6) for j in range(1, LADDER))]
  elif math.isfinite(v): cands = [0.0, -0.0, 1.0, -1.0, float(math.trunc(v)), float(math.floor(v)), *(v / 2**k for k in range(1, 4))]
  else: cands = [0.0, -0.0, 1.0, -1.0, math.copysign(3.4028234663852886e38, v)]   # nan, inf: the largest f32
  unique = {repr(c): c for c in cands if simplicity(c) < simplicity(v)}   # by repr: 0.0 and -0.0 are two values
  return sorted(unique.values(), key=simplicity)


def _scalars(value: Any) -> list[tuple[int, ...]]:
  """The positions of the scalars in a (nested list) value."""
  out: list[tuple[int, ...]] = []
  stack: list[tuple[tuple[int, ...], Any]] = [((), value)]
  while stack:
    pos, v = stack.pop()
    if isinstance(v, list): stack.extend(((*pos, i), e) for i, e in reversed(list(enumerate(v))))
    else: out.append(pos)
  return out


def _get(value: Any, pos: tuple[int, ...]) -> Any:
  for i in pos: value = value[i]
  return value


def _with(value: Any, pos: tuple[int, ...], new: Any) -> Any:
  if not pos: return new
  out = list(value)
  out[pos[0]] = _with(value[pos[0]], pos[1:], new)
  return out


def shrink(inputs: dict[int, Any], still_fails: Callable[[list[dict[int, Any]]], list[bool]]) -> dict[int, Any]:
  """Simplest inputs found, starting from ``inputs``, on which ``still_fails`` holds (see the module doc)."""
  return shrink_all([inputs], lambda cands: still_fails([c for _, c in cands]))[0]


def shrink_all(inputs: list[dict[int, Any]], still_fails: Callable[[list[tuple[int, dict[int, Any]]]], list[bool]]) -> list[dict[int, Any]]:
  """``shrink`` of several counterexamples in lockstep: one ``still_fails`` call a round for all of them.

  ``still_fails`` gets ``(counterexample number, candidate inputs)`` pairs.
  """
  inputs = list(inputs)
  active = set(range(len(inputs)))
  for _ in range(MAX_ROUNDS):
    cands = [(i, {**inputs[i], slot: _with(inputs[i][slot], pos, new)}) for i in sorted(active)
             for slot in sorted(inputs[i]) for pos in _scalars(inputs[i][slot]) for new in simpler_values(_get(inputs[i][slot], pos))]
    if not cands: break
    best: dict[int, dict[int, Any]] = {}
    for (i, c), bad in zip(cands, still_fails(cands)):
      if bad and (i not in best or _key(c) < _key(best[i])): best[i] = c
    active &= set(best)
    if not best: break
    for i, c in best.items(): inputs[i] = c
  return inputs


def _key(inputs: dict[int, Any]) -> list[tuple]:
  return [simplicity(_get(inputs[s], p)) for s in sorted(inputs) for p in _scalars(inputs[s])]
