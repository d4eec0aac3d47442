"""The codec's native path (``Codec.encode_native``, ``Records.encode_native``: ``Space.rows`` in ``_space_rows.c``) against
its Python path (``Codec.encode``, ``Records.encode`` on the same graphs' ``UOp``s): the same ``Encoded``, field by field."""
import pickle
from array import array

import pytest
from hypothesis import assume, example, given
from hypothesis import strategies as st

from tests.strategies import graphs
from tests.test_relational_native_drive import RULESETS, ZERO, add0_chain, chains, sums_of_terms
from uopc import UOp, symbolic
from uopc.ops import Ops
from uopc.relational.cluster.codec import Codec, Encoded, PackedRows, Records
from uopc.relational.native.space import NativeSpace, NotNative
from uopc.relational.space.step import Stepper
from uopc.uop import make_uop


def has_call(g: UOp) -> bool:
  return any(u.op is Ops.CALL for u in g.toposort())


def same(a: Encoded, b: Encoded) -> None:
  """Field by field, and each row's fields by identity where the Python path's are interned (op, dtype): exact."""
  assert a.rows == b.rows
  assert [(type(r[2]), r[3]) for r in a.rows] == [(type(r[2]), r[3]) for r in b.rows]   # 1 and 1.0 and True are ==
  assert a.roots == b.roots and a.fps == b.fps


# a family of i32 graphs over p0, p1, p2 that share subgraphs (sums, chains, chain + chain), and random graphs of every dtype
FAMILY = sums_of_terms() | chains() | chains().map(lambda c: c + c) | st.builds(add0_chain, st.integers(1, 12))
PROGRAMS = FAMILY | graphs(max_ops=8)


@st.composite
def batch(draw: st.DrawFn) -> tuple[UOp, list[UOp | None], list[UOp]]:
  """A program, and a batch of roots: subgraphs of it and of other graphs (sharing its nodes and each other's), sums of two
  of them, None, a root repeated; and the pool they came from."""
  program = draw(PROGRAMS)
  others = draw(st.lists(FAMILY, max_size=3))
  assume(not has_call(program))
  pool = [u for g in (program, *others) for u in g.toposort()]
  i32 = [u for g in others for u in g.toposort()]   # scalar i32 graphs over p0, p1, p2: any two add
  if len(i32) >= 2: pool += [a + b for a, b in draw(st.lists(st.tuples(st.sampled_from(i32), st.sampled_from(i32)), max_size=3))]
  roots = draw(st.lists(st.sampled_from(pool) | st.none(), max_size=10))
  if roots and draw(st.booleans()): roots.append(roots[0])
  return program, roots, pool


def native_ids(space: NativeSpace, roots: list[UOp | None]) -> list[int]:
  return [-1 if u is None else space.to_id(u) for u in roots]


@given(batch(), st.booleans())
def test_a_batch_is_the_python_batch(b, as_uops):
  program, roots, _ = b
  codec = Codec(program.toposort())
  space = NativeSpace(Stepper(symbolic))
  space.to_id(program)
  got = codec.encode_native(space, roots if as_uops else native_ids(space, roots))   # UOps are indexed, ints are nodes
  same(got, codec.encode(roots))
  assert codec.decode(got) == roots
  # stream 0 forgets after each call: the same batch again is written again, whole
  same(codec.encode_native(space, native_ids(space, roots)), codec.encode(roots))


@given(st.lists(batch(), min_size=1, max_size=5), st.sampled_from([0, 3, 12, 250_000]), st.data())
def test_the_records_stream_is_the_python_stream(bs, limit, data):
  # several records on one program, epochs past a small limit, and batches to other shards between them on the same core
  # (the shard's Codec and Records share it: setting the same base up again must not reset the stream)
  program = bs[0][0]
  base = program.toposort()
  py, nat, codec = Records(base, limit), Records(base, limit), Codec(base)
  space = NativeSpace(Stepper(symbolic))
  space.to_id(program)
  written_py, written_nat = [], []
  for _, roots, _ in bs:
    a, b = py.encode(roots), nat.encode_native(space, native_ids(space, roots))
    same(b[0], a[0])
    assert b[1] == a[1]
    written_py.append(a); written_nat.append(b)
    if data.draw(st.booleans()): same(codec.encode_native(space, native_ids(space, roots)), codec.encode(roots))
  assert nat.reader().read(written_nat) == [roots for _, roots, _ in bs]
  assert nat.epoch == py.epoch and nat.count == py.count


@given(PROGRAMS, st.sampled_from(sorted(RULESETS)), st.sampled_from(["graph", "tree"]))
def test_the_graphs_steps_make_are_written_from_their_labels(g, name, semantics):
  # targets the core made itself have no UOp: their rows come from the labels, and encoding makes none
  assume(not has_call(g))
  space = NativeSpace(Stepper(RULESETS[name], semantics=semantics))
  codec, records, py = Codec(g.toposort()), Records(g.toposort(), limit=20), Records(g.toposort(), limit=20)
  todo, seen, targets = [space.to_id(g)], set(), []
  while todo and len(targets) < 256:   # breadth first, as a worker's levels
    got = space.core.successors(todo.pop(0))
    if got is None: continue
    for t in got[1]:
      targets.append(t)
      if t not in seen: seen.add(t); todo.append(t)
  bound = space.core.counts["bound"]
  enc, recs = codec.encode_native(space, targets), [records.encode_native(space, targets[k:k + 32]) for k in range(0, len(targets), 32)]
  assert space.core.counts["bound"] == bound   # no UOp made
  uops = [space.uop(t) for t in targets]
  same(enc, codec.encode(uops))
  for k, (e, epoch) in zip(range(0, len(uops), 32), recs):
    a = py.encode(uops[k:k + 32])
    same(e, a[0])
    assert epoch == a[1]


def test_a_20000_node_chain_is_written_without_recursion():
  p0 = UOp.param(0)
  g = add0_chain(20_000)
  space = NativeSpace(Stepper(ZERO))
  codec, records = Codec([p0]), Records([p0])
  i = space.to_id(g)
  enc = codec.encode_native(space, [i, i])
  assert len(enc.rows) == 20_001 and enc.roots == [20_000, 20_000]   # the 0 and each +, the chain's root last
  same(enc, codec.encode([g, g]))
  rec, epoch = records.encode_native(space, [i])
  same(rec, enc._replace(roots=[20_000]))
  assert records.encode_native(space, [i, space.to_id(g + 0)])[0].rows == [(Ops.ADD, p0.dtype, None, (20_000, 0))]


def test_an_epoch_starts_the_native_stream_again():
  p0 = UOp.param(0)
  a, b = p0 + 1, (p0 + 1) * 2
  space = NativeSpace(Stepper(symbolic))
  ra, rb = space.to_id(a), space.to_id(b)
  records = Records([p0], limit=2)
  batches = [records.encode_native(space, r) for r in ([ra], [ra], [rb], [rb])]
  assert [(len(e.rows), e.roots, epoch) for e, epoch in batches] == [(2, [1], 0), (0, [1], 0), (2, [3], 0), (4, [3], 1)]
  # past 2 rows a new epoch: p0 + 1 again, after the 2 (fill_bottom_up makes the last source first)
  assert [(r[0], r[2]) for r in batches[3][0].rows] == [(Ops.CONST, 2), (Ops.CONST, 1), (Ops.ADD, None), (Ops.MUL, None)]
  assert records.reader().read(batches) == [[a], [a], [b], [b]]


def test_another_core_writes_the_stream_on_and_a_reader_reads_the_same_graphs():
  # a worker's forget() makes a new core: its stream starts from the base, numbering on from the records' count
  p0 = UOp.param(0)
  g, h = (p0 + 1) * 2, ((p0 + 1) * 2) + 3
  records = Records([p0])
  one, two = NativeSpace(Stepper(symbolic)), NativeSpace(Stepper(symbolic))
  batches = [records.encode_native(one, [one.to_id(g)]), records.encode_native(two, [two.to_id(h)]), records.encode_native(two, [two.to_id(g)])]
  assert [len(b[0].rows) for b in batches] == [4, 6, 0] and {b[1] for b in batches} == {0}
  batches.append(records.encode([g]))   # the Python path's refs know nothing the cores wrote: g again, numbered on
  assert len(batches[-1][0].rows) == 4 and batches[-1][0].roots == [13]
  assert records.reader().read(batches) == [[g], [h], [g], [g]]


def test_a_call_is_encoded_in_python():
  p0 = UOp.param(0)
  call = UOp(Ops.CALL, (p0 + 1, p0 * 2))
  space = NativeSpace(Stepper(symbolic))
  with pytest.raises(NotNative): space.to_id(call)
  codec, records = Codec([p0]), Records([p0])
  i = space.to_id(p0 * 2)
  same(codec.encode_native(space, [i, call, None]), codec.encode([p0 * 2, call, None]))
  enc, epoch = records.encode_native(space, [call])
  same(enc, Records([p0]).encode([call])[0])
  assert records.reader().read([(enc, epoch), records.encode_native(space, [i, call])]) == [[call], [p0 * 2, call]]


def test_bad_arguments_are_errors_and_write_nothing():
  p0 = UOp.param(0)
  space = NativeSpace(Stepper(symbolic))
  i = space.to_id(p0 + 1)
  with pytest.raises(RuntimeError): space.core.rows([i], 0, 0)   # before rows_setup
  with pytest.raises(RuntimeError): space.core.rows_reset(1)
  space.rows_setup([p0])
  for roots, stream, first, error in [([i], 32, 0, ValueError), ([i], -1, 0, ValueError), ([i], 1, -1, ValueError), ([i, 10**6], 1, 0, IndexError),
                                      ([i, -2], 1, 0, IndexError), ([i, "x"], 1, 0, AttributeError), (3, 1, 0, TypeError)]:
    with pytest.raises(error): space.core.rows(roots, stream, first)
  with pytest.raises(IndexError): space.core.rows_setup([10**6], [])
  with pytest.raises(ValueError): space.core.rows_reset(32)
  # a root that failed wrote nothing: the stream still knows nothing but the base
  assert space.core.rows([i], 1, 0) == ([(Ops.CONST, p0.dtype, 1, ()), (Ops.ADD, p0.dtype, None, (-1, 0))], [1])
  assert space.core.rows([i, -1, None], 1, 2) == ([], [1, None, None])


def test_a_new_base_forgets_both_streams():
  p0, p1 = UOp.param(0), UOp.param(1)
  space = NativeSpace(Stepper(symbolic))
  i = space.to_id(p0 + p1)
  space.rows_setup([p0])
  assert space.core.rows([i], 1, 0)[1] == [1]   # p1, then the +
  space.rows_setup([p0])   # the same base again: the stream goes on
  assert space.core.rows([i], 1, 2) == ([], [1])
  space.rows_setup([p1, p0])
  assert space.core.rows([i], 1, 0) == ([(Ops.ADD, p0.dtype, None, (-2, -1))], [0])


def test_an_error_mid_walk_forgets_the_stream():
  # what a failed call wrote is not known after it (nor what the stream wrote before: forgetting is always safe)
  p0 = UOp.param(0)
  space = NativeSpace(Stepper(symbolic))
  a, b = space.to_id(p0 + 1), space.to_id((p0 * 5) + 7)
  labels = list(space._labels)   # an inner node's fields: taken away below, so that b's walk fails past its first leaf
  space.core.rows_setup([space.to_id(p0)], labels)
  assert space.core.rows([a], 1, 0)[1] == [1]
  labels.clear()
  with pytest.raises(IndexError): space.core.rows([b], 1, 2)
  labels.extend(space._labels)   # the same list: the same setup
  rows, refs = space.core.rows([b, a], 1, 2)
  assert [(r[0], r[2]) for r in rows] == [(Ops.CONST, 7), (Ops.CONST, 5), (Ops.MUL, None), (Ops.ADD, None), (Ops.CONST, 1), (Ops.ADD, None)]
  assert refs == [5, 7]


@given(batch(), st.integers(0, 5))
def test_packed_rows_are_the_rows(b, first):
  # Space.rows(..., packed=True): the same rows as (fields, int32 data, count), fields once each; PackedRows reads them back
  program, roots, _ = b
  space = NativeSpace(Stepper(symbolic))
  space.rows_setup(program.toposort())
  ids = native_ids(space, roots)
  rows, refs = space.core.rows(ids, 1, first)
  space.core.rows_reset(1)
  (fields, data, n), packed_refs = space.core.rows(ids, 1, first, True)
  assert packed_refs == refs and n == len(rows) and PackedRows(fields, data) == rows
  assert len({id(f) for f in fields}) == len(fields) and len(data) == 4 * sum(2 + len(r[3]) for r in rows)
  assert pickle.loads(pickle.dumps(PackedRows(fields, data, n))) == rows


def test_bad_packed_rows_are_errors_and_extend_nothing():
  p0 = UOp.param(0)
  space = NativeSpace(Stepper(symbolic))
  space.rows_setup([p0])
  add = (Ops.ADD, p0.dtype, None)
  def data(*xs: int) -> bytes: return array("i", xs).tobytes()
  for rows, error in [(([add], data(0, 2, -1)), ValueError), (([add], data(1, 2, -1, -1)), ValueError), (([add], data(0, -1)), ValueError),
                      (([add], data(0, 2, -1, -1)[:-1]), TypeError), (([add], data(0, 2, -1, 5)), IndexError),
                      (([add, 3], data(1, 1, -1)), TypeError), (([add], "x"), TypeError), (([add], data(0, 2, -1, -1), 1), TypeError)]:
    made: list = []
    with pytest.raises(error): space.core.intern_rows(rows, made, make_uop)
    assert made == []
  made = []
  two = data(0, 2, -1, -1, 0, 2, 0, -1)   # p0 + p0, then (row 0) + p0
  assert space.core.intern_rows(([add], two), made, make_uop) == made == [space.to_id(p0 + p0), space.to_id((p0 + p0) + p0)]


P0 = UOp.param(0)
MOVES = st.lists(st.tuples(st.booleans(), st.integers(1, 2), st.booleans()), min_size=6, max_size=6)   # a batch's (restart, reads, a new core)


@given(st.lists(batch(), min_size=1, max_size=6), st.sampled_from([0, 4, 250_000]), MOVES)
# a row sent before the receiving core was replaced, sent as a root after it: read as the new core's node, not its UOp
@example([(P0, [], []), (P0 * P0 * P0, [P0 + 0], []), (P0 + 0, [(P0 + 0).src[1]], []), (P0, [], [])], 4,
         [(False, 1, False), (False, 1, True), (False, 1, False), (False, 1, False)] + [(False, 1, False)] * 2)
def test_a_delta_stream_reads_as_its_graphs_on_either_core(bs, limit, moves):
  # a shard's batches to one other shard (codec.Deltas): each read as the graphs sent, on the Python core and the native one,
  # with batches read twice (a call sent again), new epochs past a small limit or after a restart (a sender's batches went
  # unread), a second stream on the same core between them, and the receiving core replaced mid-stream (rebind)
  from uopc.relational.cluster.codec import Deltas, Reader
  program = bs[0][0]
  base = program.toposort()
  sender, other, send_space = Deltas(base, 2, limit), Deltas(base, 3), NativeSpace(Stepper(symbolic))
  send_space.to_id(program)
  python, native, space = Reader(Codec(base)), Reader(Codec(base)), NativeSpace(Stepper(symbolic))
  space.to_id(program)
  for (_, roots, _), (restart, reads, new_core) in zip(bs, moves):
    other.send(send_space, native_ids(send_space, roots[::-1]))
    if restart: sender.restart()
    delta = sender.send(send_space, native_ids(send_space, roots))
    for _ in range(reads):
      assert python.take(None, delta) == roots
      assert native.take(space, delta) == [None if u is None else space.to_id(u) for u in roots]
    if new_core:
      native.rebind(space.uop)
      space = NativeSpace(Stepper(symbolic))
      space.to_id(program)
  if sender.count:   # a batch past the rows read is an error, not wrong graphs
    enc, epoch, first = sender.send(send_space, native_ids(send_space, bs[0][1]))
    with pytest.raises(ValueError): Reader(Codec(base)).take(None, (enc, epoch, first + 1))
