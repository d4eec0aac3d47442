"""A shard's levels (``uopc.relational.cluster.shard``) on the native core (``Space.expand_level``, ``native_steps.py``)
against the Python core's: the same states, ids, parents, positions, fingerprints and steps in every level's record.

The shards run here, in this process, driven level by level as the coordinator drives them (no Ray): what differs
between the two runs is only the core each shard steps with.
"""
import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from tests.test_relational_native_drive import sums_of_terms
from tests.test_relational_native_successors import PROGRAMS, RULES, has_call
from uopc import PatternMatcher, UOp, UPat
from uopc.relational.cluster.codec import Codec
from uopc.relational.cluster.coordinator import ship
from uopc.relational.cluster.deferred import is_light
from uopc.relational.cluster.shard import Shard, rules_of, step_targets, unpack
from uopc.relational.cluster.visited import FP


def levels(g: UOp, pm, shards: int, native: bool, most: int = 400, light: list[list[bytes]] | None = None,
           replace: tuple[int, str] | None = None) -> tuple[list[list[dict]], list[Shard]]:
  """Each level's record of each shard, level by level as the coordinator runs them, until no frontier is left or ``most``
  states are made: the full ones, each shard's written when asked (its commits give light ones, kept in ``light``).
  ``replace``: at that (depth, phase), the last shard's worker is replaced by a new one, made from its light records and
  brought to the phase as the coordinator does (``Coordinator._revive``)."""
  program, blob = Codec([]).encode([g]), ship(pm, "the rule set")

  def loaded(j: int) -> Shard:
    s = Shard()
    assert s.load(j, shards, program, blob, None, run="test", native=native) is None
    return s
  def replaced() -> Shard:
    run[-1] = loaded(shards - 1)
    run[-1].restore(*blobs[-1])
    return run[-1]
  run = [loaded(j) for j in range(shards)]
  started = [s.start() for s in run]
  blobs, summaries, count, depth = [[r] for _, r in started], [m for m, _ in started], 1, 0
  while any(m["frontier"] for m in summaries) and count < most:
    if replace == (depth, "expand"): replaced()
    batches = [s.expand(depth, False)[1:] for s in run]
    keys = [s.absorb(*[batches[i][j] for i in range(shards)]) for j, s in enumerate(run)]
    if replace == (depth, "commit"):   # the other shards read the batches of the one replaced: its streams start again
      again = replaced()
      again.expand(depth, False)
      again.restart_deltas()
      keys[-1] = again.absorb(*[batches[i][-1] for i in range(shards)])
    done = [s.commit(count, None, *keys) for s in run]
    summaries = [m for m, _ in done]
    for j, (_, r) in enumerate(done): blobs[j].append(r)
    count += summaries[0]["made"]
    depth += 1
  assert all(is_light(r) and "graphs" not in r for b in blobs for r in map(unpack, b))
  if light is not None: light.extend(blobs)
  return [list(map(unpack, s.full_records("test"))) for s in run], run


def comparable(rec: dict, reader) -> tuple:
  """A record by value: its states, their graphs, and each step as (state, target fingerprint, stuck position, rule, error),
  in state order (a native shard lists the graphs its core stops at after the others)."""
  reader.decode(rec["step_nodes"])
  graphs = reader.decode(rec["graphs"])
  states = sorted(zip(rec["ids"].tolist(), rec["fps"].tolist(), rec["parents"].tolist(), rec["pos"].tolist(), rec["parent_fps"].tolist(), graphs))
  st = rec["steps"]
  if "counts" not in st: return states, [], sorted(rec["stuck"])
  owners = np.repeat(st["sids"], st["counts"]).tolist()
  table = rules_of(st)
  rules = [table[i] for i in st["redex"].tolist()]
  order = np.argsort(np.repeat(st["sids"], st["counts"]), kind="stable") if len(owners) else []
  targets = step_targets(st)
  steps = [(owners[i], targets[i], int(st["stuck"][i]), rules[i]) for i in order]
  return states, steps, sorted(rec["stuck"]), sorted(st["sids"].tolist()), sorted(zip(st["sids"].tolist(), st["counts"].tolist()))


def same_levels(g: UOp, pm, shards: int) -> tuple[list[Shard], list[Shard]]:
  a, py = levels(g, pm, shards, native=False)
  b, nat = levels(g, pm, shards, native=True)
  assert len(a) == len(b) and all(len(x) == len(y) for x, y in zip(a, b))
  for j in range(shards):
    ra, rb = py[j].written.reader(), nat[j].written.reader()
    for x, y in zip(a[j], b[j]):
      assert x["depth"] == y["depth"]
      assert comparable(x, ra) == comparable(y, rb)
  assert all(s.native is not None for s in nat) and all(s.native is None for s in py)
  return py, nat


@settings(max_examples=max(8, settings().max_examples // 5), deadline=None)   # 12 by default, 400 with --slow
@given(PROGRAMS | sums_of_terms(), st.sampled_from(sorted(RULES)), st.integers(1, 3))
def test_a_native_shard_makes_the_levels_a_python_shard_makes(g, name, shards):
  assume(not has_call(g))
  same_levels(g, RULES[name], shards)


@pytest.mark.parametrize("shards", [1, 2])   # (the only shard's records are written when asked: deferred.py)
def test_the_graphs_the_core_stops_at_are_stepped_in_python_in_the_same_level(shards):
  p0, p1 = UOp.param(0), UOp.param(1)
  g = ((p0 + 0) * 1 + (p1 + 0)) * 1 + 0   # BOOM: x * 1 raises, a stuck step in every graph with a MUL
  py, nat = same_levels(g, RULES["boom"], shards)
  assert 0 < sum(s.in_python for s in nat) and sum(s.in_python for s in py) == 0
  assert sum(len(s.stuck_kept) for s in nat) == sum(len(s.stuck_kept) for s in py) > 0


@pytest.mark.parametrize("shards", [1, 2])   # (the only shard's first level keyed by node, the later ones by fingerprint)
def test_the_candidates_table_forgets_and_the_levels_stay_the_same(monkeypatch, shards):
  from tests.test_relational_native_drive import ZERO, add0_chain
  from uopc.relational.cluster import shard
  monkeypatch.setattr(shard, "CANDIDATES_KEPT", 3)   # both cores' tables of candidates empty at every level
  g = add0_chain(3) + (UOp.param(1) + 0 + 0) * UOp.param(2)
  py, nat = same_levels(g, ZERO, shards)
  assert sum(len(s.visited) for s in nat) == sum(len(s.visited) for s in py) == 12


@pytest.mark.parametrize("shards", [1, 2])
def test_a_shard_that_forgets_its_nodes_every_level_makes_the_same_levels(monkeypatch, shards):
  from tests.test_relational_native_drive import sum_of_add0
  from uopc.relational.cluster import native_steps, shard
  monkeypatch.setattr(shard, "FINGERPRINTS_KEPT", 4)   # past it (at every level's end) a shard forgets its nodes,
  monkeypatch.setattr(shard, "NATIVE_NODES_KEPT", 4)   # and a native one starts a new core
  started = []
  real = native_steps.NativeSteps._start
  monkeypatch.setattr(native_steps.NativeSteps, "_start", lambda self: (started.append(1), real(self)))
  py, nat = same_levels(sum_of_add0(0, 5) * UOp.param(7), RULES["symbolic"], shards)
  assert len(started) >= shards * 4 and sum(len(s.visited) for s in nat) == sum(len(s.visited) for s in py) > 30


def test_a_python_shard_keeps_one_process_first_discoveries_where_a_state_is_a_subterm_of_another():
  # a = p0 * 0 is a state and inside later ones; a shard that forgot each expanded root's map made a's redexes anew
  # under the old ones (a * p0)'s map held, so (a * p0) * a had a fifth step and state 37 the wrong parent
  from uopc.relational import explore
  p0 = UOp.param(0)
  a = p0 * 0
  g = (((p0 * a) * p0) * (p0 + 0)) * a
  one = explore(g, RULES["symbolic"], max_states=None, native=False).run()
  records, _ = levels(g, RULES["symbolic"], 1, native=False, most=10**6)
  parents = {i: p for rec in records[0][1:] for i, p in zip(rec["ids"].tolist(), rec["parents"].tolist())}
  assert len(parents) + 1 == len(one.states) == 55
  assert parents == {s.id: s.parent.id for s in one.states[1:]}


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(st.tuples(st.integers(0, 20), st.integers(0, 6)), max_size=12, unique=True), min_size=1, max_size=4)
       .filter(lambda shards: len({k for s in shards for k in s}) == sum(map(len, shards))),
       st.integers(1, 50), st.one_of(st.none(), st.integers(0, 60)))
def test_rank_numbers_every_shards_states_in_one_process_order_and_cuts_at_max_states(shards, count, max_states):
  from uopc.relational.cluster.shard import rank
  keys = tuple((np.array([p for p, _ in s], np.int64), np.array([q for _, q in s], np.int32), np.array([False])) for s in shards)
  ids, made, dropped_at = rank(keys, count, max_states)
  every = sorted(k for s in shards for k in s)   # one process's order: by parent id, then position
  room = len(every) if max_states is None else max(0, min(len(every), max_states - count))
  want = {k: count + i if i < room else -1 for i, k in enumerate(every)}
  assert [a.tolist() for a in ids] == [[want[k] for k in s] for s in shards]
  assert made == room and dropped_at == (every[room][0] if room < len(every) else None)


def test_native_shards_whose_cores_start_again_every_level_make_the_same_levels(monkeypatch):
  # past its limit a native worker starts a new core at a level's end; its delta streams to the others go on (their rows
  # are written again from the new core) and what it read of theirs is kept as UOps (Reader.rebind): the same records
  from uopc.relational.cluster import shard
  monkeypatch.setattr(shard, "NATIVE_NODES_KEPT", 4)
  p0, p1, p2 = UOp.param(0), UOp.param(1), UOp.param(2)
  for shards in (2, 3):
    _, nat = same_levels((p0 + 0) + (p1 + 0) + (p2 + 0) + (p0 + 0), RULES["comm"], shards)
    assert all(s.deltas and s.readers for s in nat)


@pytest.mark.parametrize("native", [True, False])
def test_shards_made_again_from_their_light_records_write_the_records_they_wrote(native):
  # a worker gone for good is made again in the coordinator from its light records: each level's expansion again, the
  # batches its shard read read again (their streams refer to rows of earlier levels' batches), its commit's ids
  p0, p1, p2 = UOp.param(0), UOp.param(1), UOp.param(2)
  g = (p0 + 0) + (p1 + 0) + (p2 + 0) + (p0 + 0)
  light: list[list[bytes]] = []
  full, run = levels(g, RULES["comm"], 2, native, light=light)
  assert len(full[0]) > 4 and all(len(r["ids"]) for r in full[1][2:4])
  for j, s in enumerate(run):
    again = Shard()
    assert again.load(j, 2, Codec([]).encode([g]), ship(RULES["comm"], "the rule set"), None, run="test", native=native) is None
    again.restore(*light[j])
    ra, rb = s.written.reader(), again.written.reader()
    assert [comparable(x, ra) for x in full[j]] == [comparable(unpack(y), rb) for y in again.full_records("test")]
    assert again.visited.ids.tolist() == s.visited.ids.tolist() and again.frontier.ids.tolist() == s.frontier.ids.tolist()


@pytest.mark.parametrize("phase", ["expand", "commit"])
def test_a_shard_replaced_mid_run_by_one_made_from_its_light_records_makes_the_same_levels(phase):
  # the replacement's streams start again where the others read the dead worker's batches: later levels the same
  p0, p1, p2 = UOp.param(0), UOp.param(1), UOp.param(2)
  g = (p0 + 0) + (p1 + 0) + (p2 + 0) + (p0 + 0)
  want, unbroken = levels(g, RULES["comm"], 2, True)
  for at in (2, 4):
    got, run = levels(g, RULES["comm"], 2, True, replace=(at, phase))
    assert len(got) == len(want) and len(want[0]) > 5
    for j in range(2):
      ra, rb = run[j].written.reader(), unbroken[j].written.reader()
      assert [comparable(x, ra) for x in got[j]] == [comparable(x, rb) for x in want[j]]


def test_native_shards_call_the_rules_for_a_node_once_between_them(monkeypatch):
  # rules the core calls Python for (a guard makes them no template): each shard's states share most inner nodes with the
  # other's, whose core sends the nodes it matched with their redexes (native_steps.py); without that each matched them
  from uopc.ops import Ops
  from uopc.relational import explore
  from uopc.relational.cluster.native_steps import NativeSteps
  from uopc.relational.space.step import Stepper
  x, y, z = UPat.var("x"), UPat.var("y"), UPat.var("z")
  pm = PatternMatcher([(x + y, lambda x, y: y + x if x.op is not Ops.SIN else None),
                       ((x + y) + z, lambda x, y, z: x + (y + z) if x.op is not Ops.SIN else None)], name="guarded")
  g = UOp.param(0) + UOp.param(1) + UOp.param(2) + UOp.param(3) + UOp.param(4)
  same_levels(g, pm, 2)
  matched: list[UOp] = []
  real = Stepper._match
  monkeypatch.setattr(Stepper, "_match", lambda self, u: (matched.append(u), real(self, u))[1])
  assert len(explore(g, pm, max_states=None, native=True).run().states) == 1680   # the shards' core, whatever UOPC_NATIVE says
  one = len(matched)   # (a node matched once; the Python core would match the leaves too, which the native core rules out)
  matched.clear()
  levels(g, pm, 2, native=True, most=10**6)
  shared = len(matched)
  matched.clear()
  monkeypatch.setattr(NativeSteps, "give", lambda self, *a: None)
  levels(g, pm, 2, native=True, most=10**6)
  alone = len(matched)
  assert len(set(matched)) == one and shared < 1.05 * one < 1.1 * one < alone, (one, shared, alone)


def test_a_level_keyed_by_node_is_the_level_by_fingerprint_with_nodes_for_fingerprints():
  # the only shard's expand_level (keyed): no fingerprint made; the same steps and candidates, the targets' table and the
  # candidates as nodes whose fingerprints are the unkeyed call's, level after level (each core its own)
  from uopc.relational.cluster.native_steps import NativeSteps
  from uopc.relational.native import available
  from uopc.relational.space.step import Stepper
  if not available(): pytest.fail("the native core is not built")
  g = UOp.param(0) + UOp.param(1) + UOp.param(2) + UOp.param(3)
  by_fp, by_node = NativeSteps(Stepper(RULES["comm"]), g), NativeSteps(Stepper(RULES["comm"]), g)
  a, b = [by_fp.node_or_none(g)], [by_node.node_or_none(g)]
  with pytest.raises(ValueError): by_node.core.expand_level(b, 2, True)
  levels = 0
  while a:
    x, y = by_fp.core.expand_level(a, 1), by_node.core.expand_level(b, 1, True)
    assert [x[i] for i in (0, 1, 4, 5, 9, 10)] == [y[i] for i in (0, 1, 4, 5, 9, 10)]
    assert len(x[3]) == 16 * len(a) and len(x[8]) == len(x[4]) and (y[3], y[7], y[8], y[11]) == (b"", b"", b"", b"")
    table = np.frombuffer(x[11], FP)   # each step's target: an index into it, or keyed, its node
    assert table[np.frombuffer(x[2], np.int32)].tolist() == by_node.fingerprints(np.frombuffer(y[2], np.int32).tolist())
    assert len(table) == len(set(table.tolist())) > 0
    a, b = np.frombuffer(x[6], np.int32).tolist(), np.frombuffer(y[6], np.int32).tolist()
    assert b"".join(by_node.fingerprints(b)) == x[7]
    levels += 1
  assert levels == 4   # (4 terms under comm: 8 states, frontiers of 1, 3, 3 and 1)


def test_the_only_native_shard_makes_fingerprints_only_when_they_are_read():
  # keyed by node (visited.py): none while it runs, none for a report of no normal form that checks nothing; its reports
  # and lookups give what a Python shard's give
  p = [UOp.param(i) for i in range(4)]
  g = (p[0] + p[1]) + (p[2] + p[3])
  program, blob = Codec([]).encode([g]), ship(RULES["comm"], "the rule set")
  run, asked = {}, []
  for native in (False, True):
    s = run[native] = Shard()
    assert s.load(0, 1, program, blob, None, run="test", native=native) is None
    if native:
      real = s.native.fingerprints
      s.native.fingerprints = lambda nodes, real=real: (asked.extend(nodes), real(nodes))[1]
    summary, count, depth = s.start()[0], 1, 0
    while summary["frontier"]:
      summary = s.commit(count, None, s.absorb(*s.expand(depth, False)[1:]))[0]
      count, depth = count + summary["made"], depth + 1
    assert count == 8 and not asked
  for check in (False, True):   # (a report that checks the last level's targets reads their fingerprints, and the states')
    py, nat = run[False].report("test", None, check), run[True].report("test", None, check)
    assert bool(asked) == check and [a.tolist() for a in nat["normal"]] == [a.tolist() for a in py["normal"]]
    assert (nat["edges"], nat["maybe_cycle"]) == (py["edges"], py["maybe_cycle"]) == (24, True)
  fps = run[False].visited.fps
  assert all(a.tolist() == b.tolist() for a, b in zip(run[True].lookup("test", fps), run[False].lookup("test", fps)))
