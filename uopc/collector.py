"""``paused()``: CPython's cycle collector held off while many lasting, acyclic objects are made.

Parsing a program, rewriting it and exploring its rewrites make thousands of nodes that all
survive (the hash-consing table holds them) and form a DAG, with no reference cycle among
them. The collector's passes over them find nothing, and each pass promotes them towards the
full collections that walk every object of the process: in a process that holds a big
exploration, parsing 100,000 nodes took half as long again. A paused collector still counts
the new objects, so its next pass, after the work, sees them once: ``paused(settle=True)``
moves them to the oldest generation instead, where two passes would have put them.

>>> import gc
>>> with paused(): gc.isenabled()
False
>>> gc.isenabled()
True
"""
from __future__ import annotations

import gc
from contextlib import contextmanager
from typing import Iterator


@contextmanager
def paused(settle: bool = False) -> Iterator[None]:
  """Disable the cycle collector in the body, if it was enabled (and enable it again after).

  ``settle``: after a body that completes, the objects it made (and the few young ones from
  before) go to the oldest generation without a pass over them: ``gc.freeze`` then
  ``gc.unfreeze``, two list splices. A pass over 300,000 lasting nodes costs 50 to 100 ms
  and frees nothing; the oldest generation's passes, which are rare, still see them. Skipped
  when anything is frozen (that is someone's ``gc.freeze``, which this would undo).
  """
  was = gc.isenabled()
  if was: gc.disable()
  try:
    yield
    if settle and was and gc.get_freeze_count() == 0:
      gc.freeze()
      gc.unfreeze()
  finally:
    if was: gc.enable()
