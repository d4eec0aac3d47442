"""One base for results a bound may cut short: ``bound`` says which bound stopped the work (None: none did) and
``complete`` is read from it, here, once; and ``StopReason``, the one vocabulary of why any work stopped.

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

from typing import Any, Literal

StopReason = Literal[
  "saturated",      # not a bound: equality saturation stopped because an iteration changed nothing (``Saturation.stop``)
  "iterations",     # saturation's ``max_iterations``
  "enodes",         # saturation's ``max_enodes``
  "max_states",     # a search's ``max_states`` (``--max-states``)
  "max_depth",      # a search's ``max_depth`` (``--max-depth``): states that deep were not expanded further
  "timeout",        # a loop's own ``timeout``, or the command's ``--timeout``
  "max_memory",     # the command's ``--max-memory`` (its process, its child processes, a cluster's workers)
  "interrupted",    # SIGINT or SIGTERM
  "workers_lost",   # a cluster worker died and could not be replaced (``uopc.relational.cluster``)
]


class Bounded:
  """A result with ``bound`` (which bound stopped the work, or None) and ``complete`` (no bound did: the answer is definitive)."""
  __slots__ = ()
  bound: Any   # a ``StopReason`` or None, held as the subclass holds it (an attribute, a property, a field)

  @property
  def complete(self) -> bool:
    """True if no bound cut the work short."""
    return self.bound is None
