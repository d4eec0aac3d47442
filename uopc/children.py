"""The child processes the backend starts (the C compiler, a compiled program): held to a memory bound, and stopped at
once when the work they serve is stopped.

The bound is the caller's (``limit_children``: the command line sets its ``--max-memory`` while its budget is on); the
library only applies it, to each child as it starts.

>>> limit_children(None); adopt_child(2 ** 22 + 1); release_child(2 ** 22 + 1); sorted(_children)
[]
"""
from __future__ import annotations

import os
import signal

_children: set[int] = set()      # adopted child processes still running (``adopt_child``)
_limit: list[int | None] = [None]   # bytes of address space each child may take (None: no bound)


def limit_children(max_memory: int | None) -> int | None:
  """Hold the children started from now on to ``max_memory`` bytes of address space (None: no bound); returns the
  limit it replaces, for a caller that puts it back."""
  before, _limit[0] = _limit[0], max_memory
  return before


def adopt_child(pid: int) -> None:
  """A child process the command started (the C compiler, a compiled program): held to ``limit_children``'s bound
  of address space, it and what it starts, and stopped by ``stop_children`` when a bound stops the work. The limit
  is set from outside (``prlimit``) right after the child starts, not by a ``preexec_fn``, which is not safe in a
  process with threads (check-rules has them)."""
  _children.add(pid)
  if (limit := _limit[0]) is None: return
  import resource
  try: resource.prlimit(pid, resource.RLIMIT_AS, (limit, limit))
  except (OSError, ValueError, AttributeError): pass   # gone already, or not Linux: the supervisor still counts it


def release_child(pid: int) -> None:
  """The child ``pid`` was waited for: nothing left to stop."""
  _children.discard(pid)


def stop_children() -> None:
  """SIGKILL every adopted child still running, with its process group where it leads one: what worker
  threads run (check-rules' compilers) ends at once, so the threads can be joined."""
  for pid in list(_children):
    try: os.killpg(pid, signal.SIGKILL)
    except OSError:
      try: os.kill(pid, signal.SIGKILL)
      except OSError: pass
