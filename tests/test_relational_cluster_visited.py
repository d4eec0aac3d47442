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


@settings(max_examples=30, deadline=None)
@given(st.lists(st.lists(fingerprints, max_size=8), min_size=1, max_size=4), st.data())
def test_states_added_by_node_read_as_those_added_by_fingerprint(levels, data):
  # the only shard's (add_nodes): a node for each fingerprint, each parent an earlier state's id; what every read gives
  # is what the same states added with their fingerprints give
  root = b"\x07" * 16
  by_fp, by_node, fps, nodes, asked = Visited(), Visited(), [root], {}, []
  for v in (by_fp, by_node): v.add(np.array([root], FP), np.zeros(1, np.int64), np.array([b""], FP), np.full(1, -1, np.int32), 0)
  for depth, level in enumerate(levels, 1):
    new = [f for f in dict.fromkeys(level) if f not in fps]
    if not new: continue
    ids = np.arange(len(fps), len(fps) + len(new))[::-1].copy()   # (not in id order: add sorts them)
    par = np.array([data.draw(st.integers(0, len(fps) - 1)) for _ in new], np.int64)
    pos = np.arange(len(new), dtype=np.int32)
    nodes.update({100 + len(fps) + k: f for k, f in enumerate(new)})
    by_fp.add(np.array(new, FP), ids, np.array([fps[p] for p in par], FP), pos, depth)
    by_node.add_nodes(np.array([100 + len(fps) + k for k in range(len(new))]), ids, par, pos, depth,
                      lambda ns: (asked.extend(ns), [nodes[n] for n in ns])[1])
    fps.extend(new[::-1])   # id order
  assert not asked   # nothing read yet: no fingerprint made
  probe = np.array(fps + [b"\x09" * 16], FP)
  got, want = by_node.lookup(probe), by_fp.lookup(probe)
  assert all(a.tolist() == b.tolist() for a, b in zip(got, want))
  assert by_node.fps.tolist() == by_fp.fps.tolist() and by_node.parents.tolist() == by_fp.parents.tolist()
  assert sorted(asked) == sorted(nodes)   # each node's fingerprint asked once
