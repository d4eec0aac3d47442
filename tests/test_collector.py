"""``uopc.collector``: the cycle collector paused around work, and restored as it was."""
import gc

import pytest

from uopc.collector import paused


def test_paused_restores_the_collector_as_it_was_even_after_an_error():
  assert gc.isenabled()
  with pytest.raises(KeyError), paused():
    assert not gc.isenabled()
    with paused(): assert not gc.isenabled()
    assert not gc.isenabled()   # the inner pause found it paused: it leaves it so
    raise KeyError
  assert gc.isenabled()
  gc.disable()
  try:
    with paused(): pass
    assert not gc.isenabled()   # disabled before: not enabled by the pause
  finally: gc.enable()


def test_settle_moves_what_the_body_made_to_the_oldest_generation():
  gc.collect()
  with paused(settle=True):
    made = [[i] for i in range(5000)]   # lists: tracked by the collector
  young = {id(o) for g in (0, 1) for o in gc.get_objects(generation=g)}
  assert not any(id(o) in young for o in made)
  assert gc.get_count()[0] < 100   # the new objects no longer count towards the next pass
  oldest = {id(o) for o in gc.get_objects(generation=2)}
  assert all(id(o) in oldest for o in made[::500])
  assert gc.get_freeze_count() == 0


def test_settle_leaves_frozen_objects_frozen():
  gc.collect()
  kept = [[1]]
  gc.freeze()
  try:
    frozen = gc.get_freeze_count()
    with paused(settle=True): made = [[i] for i in range(100)]
    assert gc.get_freeze_count() == frozen   # someone's freeze is kept: nothing was moved
    assert any(o is made[0] for o in gc.get_objects(generation=0))
  finally: gc.unfreeze()
  assert kept
