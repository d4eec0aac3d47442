"""kanren's conjunction, made linear: ``lall(g1, g2)`` costs one step per answer of ``g1``.

kanren conjoins goals with ``bind(stream, goal)``, which interleaves one stream per
state of ``stream`` with ``toolz.interleave``. That interleave wraps one more layer
of ``cycle``/``takewhile`` around its iterators each time a stream ends, so when most
states' streams are empty (``reacho(pm, g, q), eq(q, pattern)``: most reachable
graphs do not match) every answer walks through all the earlier empty streams:
quadratic time, and memory for every layer (16k states took 10.8 s and 1 GB).

``fair_bind`` is the same round robin kept in a deque: each stream gives one answer
in turn, in the order the states came, streams are dropped when they end, and a
stream is opened only when its state arrives (an infinite ``stream`` stays lazy). It
yields the answers in the same order as kanren's ``bind``; it only stops paying for
the streams that already ended. A stream that is a tuple or list iterator (``eq``'s
answer, a membership question's) is dropped as soon as it has none left, without
another turn: one answer per candidate holds nothing until the outer stream ends.
Importing ``uopc.relational`` installs it as
``kanren.core.bind``, which every ``lall``/``lconj``/``conde``/``run`` uses.

A goal made by kanren's ``eq`` answers each state at most once, so binding it is a filter: each state unified in
turn, no stream per state. A stream that can do that filter itself, faster (an ``EqFilterable``: ``reacho``'s answers
against a pattern, matched before any substitution is made), is asked to.

>>> from kanren import run, var, eq, conde, lall
>>> q, r = var(), var()
>>> run(0, (q, r), lall(conde([eq(q, 1)], [eq(q, 2)]), conde([eq(r, "a")], [eq(r, "b")])))
((1, 'a'), (2, 'a'), (1, 'b'), (2, 'b'))
"""
from __future__ import annotations

from collections import deque
from operator import length_hint
from typing import Any, Iterator

import kanren.core
from kanren.core import GoalType, StateStreamType


# iterators whose length_hint is exact and asking it runs nothing: an ended one can be dropped without a next()
_SIZED: tuple[type, ...] = (type(iter(())), type(iter([])))


# the code of the goals kanren's ``eq`` makes: ``eq_goal(s)`` answers ``unify(u, v, s)`` if it is not False
_EQ_CODE = kanren.core.eq(None, None).__code__


class EqFilterable:
  """A stream of states that may answer ``bind(self, eq(u, v))`` itself: ``filtered(u, v)`` is that stream (the same
  answers in the same order), or None where it has no better way than unifying each state."""
  __slots__ = ()

  def filtered(self, u: Any, v: Any) -> StateStreamType | None: return None


def fair_bind(z: StateStreamType, g: GoalType) -> StateStreamType:
  """Every answer of ``g`` on every state of ``z``, round robin: linear in the states and answers."""
  if getattr(g, "__code__", None) is _EQ_CODE:
    sides = dict(zip(_EQ_CODE.co_freevars, (cell.cell_contents for cell in getattr(g, "__closure__", None) or ())))
    if isinstance(z, EqFilterable) and (answers := z.filtered(sides["u"], sides["v"])) is not None: return answers
    return _unified(z, sides["u"], sides["v"])
  return _round_robin(z, g)


def _unified(z: StateStreamType, u: Any, v: Any) -> Iterator[Any]:
  """``bind(z, eq(u, v))``: each state of ``z`` unified as ``eq``'s goal does (with ``kanren.core.unify``), kept if it
  unifies. The round robin's answers in its order: each stream has at most one answer, given at the state's turn."""
  unify = kanren.core.unify
  for S in z:
    if (S2 := unify(u, v, S)) is not False: yield S2


def _round_robin(z: StateStreamType, g: GoalType) -> Iterator[Any]:
  live: deque[StateStreamType] = deque()
  sized = _SIZED
  for S in z:   # the first round opens each state's stream as the state arrives
    it = iter(g(S))
    for answer in it:
      yield answer
      if type(it) not in sized or length_hint(it): live.append(it)
      break
  while live:   # then one answer from each live stream in turn
    it = live.popleft()
    for answer in it:
      yield answer
      if type(it) not in sized or length_hint(it): live.append(it)
      break


def install() -> None:
  """Make kanren's conjunction use ``fair_bind`` (idempotent)."""
  kanren.core.bind = fair_bind


install()

__all__ = ["EqFilterable", "fair_bind", "install"]
