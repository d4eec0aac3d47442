"""What a caller's bounds look like from inside a library loop: a ``Limits`` object, passed in.

A loop that can stop cleanly asks ``limits.should_stop()`` between units of work (an explorer between states, a
sampler between runs) and ends with the ``StopReason`` it gets; a loop that runs shielded from interruption and winds up
by itself (the cluster's coordinator, waiting in Ray's C code) asks ``take()`` and runs its waits inside ``shield()``.
``max_memory`` is a memory bound the loop checks itself where it cannot be measured here (the cluster's workers), and
``describe(reason)`` names a bound as the user set it (a report's ``stopped by ...``). A loop with a start-up of its
own (the cluster starting Ray) says where it is with ``phase("start-up")`` and ``phase("search")``: a caller's time bound
counts the search, not the start-up (the command line's phases, ``uopc.cli.budget``). ``NO_LIMITS``, the default of
every loop, never stops; the command line passes its budget's (``uopc.cli.budget.LIMITS``).

Whatever bounds a caller sets may also be raised into the running code as ``BoundHit`` (the command line's budget does,
from a signal handler): library code catches it where it keeps partial results.

>>> NO_LIMITS.should_stop(), NO_LIMITS.take(), NO_LIMITS.describe("timeout"), NO_LIMITS.max_memory, NO_LIMITS.phase("search")
(None, None, 'timeout', None, None)
"""
from __future__ import annotations

from contextlib import AbstractContextManager, nullcontext

from uopc.bounded import StopReason


class BoundHit(BaseException):
  """Raised into the running code once a bound is hit. A ``BaseException``: a rule's
  ``except Exception`` (or the explorer's, which turns a raising rule into a stuck step)
  must not swallow it."""
  def __init__(self, reason: StopReason) -> None:
    super().__init__(reason)
    self.reason = reason


class Limits:
  """A caller's bounds as a library loop sees them (module doc). This base never stops."""

  @property
  def max_memory(self) -> int | None:
    """Bytes a worker the loop watches may hold (None: no bound)."""
    return None

  def should_stop(self) -> StopReason | None:
    """The bound that stops the loop at this clean point, or None."""
    return None

  def take(self) -> StopReason | None:
    """``should_stop`` for a loop that runs inside ``shield()`` and winds up by itself: once it says so, no ``BoundHit``
    is raised into the loop for that bound."""
    return self.should_stop()

  def shield(self) -> AbstractContextManager[None]:
    """A context in which no ``BoundHit`` is raised (Ray's C code, a report being written)."""
    return nullcontext()

  def describe(self, reason: StopReason) -> str:
    """The bound ``reason`` as the user set it (``--timeout 5 s`` for a command's); here its name."""
    return reason

  def phase(self, name: str) -> None:
    """The loop is now in phase ``name`` (``"start-up"``: its own start-up, which a time bound does not count;
    ``"search"``: its work); here nothing."""


NO_LIMITS = Limits()
