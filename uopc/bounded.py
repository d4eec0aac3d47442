"""One base for results a bound may cut short: ``bound`` says which bound stopped the work (None: none did) and
``complete`` is read from it, here, once.

A subclass gives ``bound`` as it holds it: an attribute (``SearchResult``, ``MeetResult``), a property
(``Exploration``, ``Saturation``), or a field. A ``NamedTuple`` result keeps its tuple behaviour (unpacking,
indexing, ``_replace``) by declaring its fields in a ``NamedTuple`` of their own and subclassing that and
``Bounded`` (``__slots__ = ()``: no instance dict), as ``BestResult`` and ``OrderReport`` do; a ``NamedTuple``
cannot take a second base itself.

>>> from typing import NamedTuple
>>> class _Fields(NamedTuple):
...   value: int
...   bound: str | None
>>> class Answer(_Fields, Bounded):
...   __slots__ = ()
>>> a = Answer(3, None)
>>> a.complete, Answer(3, "timeout").complete, tuple(a), a._replace(bound="max_states").complete
(True, False, (3, None), False)
"""
from __future__ import annotations

from typing import Any


class Bounded:
  """A result with ``bound`` (which bound stopped the work, or None) and ``complete`` (no bound did: the answer is definitive)."""
  __slots__ = ()
  bound: Any

  @property
  def complete(self) -> bool:
    """True if no bound cut the work short."""
    return self.bound is None
