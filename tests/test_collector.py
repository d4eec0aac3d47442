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
