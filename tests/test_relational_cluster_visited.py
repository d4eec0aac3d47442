"""The cluster's visited set (``uopc.relational.cluster.visited``): looked up by the fingerprints' first 8 bytes, it finds
exactly what a dict of whole fingerprints finds, also where fingerprints share those bytes (made so here: real ones
are hashes and almost never do), added level after level."""
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from uopc.relational.cluster.visited import FP, Visited

heads = st.sampled_from([bytes(8), b"\x01" * 8, b"\xff" * 8, b"ab" + bytes(6)])
tails = st.binary(min_size=0, max_size=8).map(lambda b: b.ljust(8, b"\0"))
fingerprints = st.one_of(st.tuples(heads, tails).map(lambda t: t[0] + t[1]), st.binary(min_size=16, max_size=16))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(fingerprints, max_size=12), min_size=1, max_size=4), st.lists(fingerprints, max_size=12))
def test_a_visited_set_finds_what_a_dict_finds(levels, strangers):
  v, want, next_id = Visited(), {}, 0
  for level in levels:
    new = [f for f in dict.fromkeys(level) if f not in want]
    if not new: continue
    ids = np.arange(next_id, next_id + len(new))
    v.add(np.array(new, FP), ids, np.array(new, FP), np.zeros(len(new), np.int32), 1)
    want.update(zip(new, ids.tolist()))
    next_id += len(new)
  probe = list(want) + strangers
  assert v.find(np.array(probe, FP)).tolist() == [want.get(f, -1) for f in probe]
  assert len(v) == len(want)
