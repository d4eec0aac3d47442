"""The codec's native decoding (``Codec.decode_native``, ``Reader.decode_native``: ``Space.intern_rows`` in
``_space_decode.c``) against its Python path (``Codec.decode`` then ``NativeSpace.to_id`` of each root): the same ids."""
import pickle

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.test_relational_cluster_codec_native import batch, native_ids
from tests.test_relational_native_drive import ZERO, add0_chain
from uopc import UOp, symbolic
from uopc.dtype import dtypes
from uopc.ops import Ops
from uopc.relational.cluster.codec import Codec, Encoded, Records
from uopc.relational.native.space import NativeSpace, NotNative
from uopc.relational.space.step import Stepper
from uopc.uop import make_uop

EDGES = [UOp.const(v, dtypes.f32) for v in (-0.0, 0.0, float("nan"), float("inf"))]   # leaves apart by sign, nan by itself


def python_ids(space: NativeSpace, roots: list) -> list:
  """What ``decode_native`` stands for: each decoded root's node, or the root where the core takes none (a CALL)."""
  out = []
  for u in roots:
    try: out.append(None if u is None else space.to_id(u))
    except NotNative: out.append(u)
  return out


def fresh(enc: Encoded, crossed: bool) -> Encoded:
  """The batch as a worker receives it (pickled: its fields new objects, no identity shared with the sender's) or as is."""
  return pickle.loads(pickle.dumps(enc)) if crossed else enc


@given(batch(), st.booleans(), st.booleans(), st.booleans(), st.booleans())
def test_a_batch_is_its_decoded_graphs_nodes(b, by_native, crossed, native_first, edges):
  program, roots, _ = b
  if edges: roots = roots + EDGES + [EDGES[0] + EDGES[1], EDGES[2] * EDGES[2]]
  codec = Codec(program.toposort())
  space = NativeSpace(Stepper(symbolic))
  space.to_id(program)
  enc = fresh(codec.encode_native(space, roots) if by_native else codec.encode(roots), crossed)
  # either first: the one after finds every node the first made (a wrong label or source makes another node)
  if native_first: got = codec.decode_native(space, enc); want = python_ids(space, codec.decode(enc))
  else: want = python_ids(space, codec.decode(enc)); got = codec.decode_native(space, enc)
  assert got == want
  assert [None if i is None else space.uop(i) for i in got] == roots   # and the nodes' UOps are the graphs
  nodes = space.core.counts["nodes"]
  assert codec.decode_native(space, fresh(enc, crossed)) == got and space.core.counts["nodes"] == nodes   # again: nothing new


@given(st.lists(batch(), min_size=1, max_size=5), st.sampled_from([0, 3, 12, 250_000]), st.booleans(), st.booleans())
def test_a_records_stream_is_read_as_nodes(bs, limit, by_native, crossed):
  # one program's records over several batches, epochs past a small limit: a reader keeps what it read as nodes
  program = bs[0][0]
  records = Records(program.toposort(), limit)
  sender, space = NativeSpace(Stepper(symbolic)), NativeSpace(Stepper(symbolic))
  sender.to_id(program); space.to_id(program)
  written = [records.encode_native(sender, native_ids(sender, roots)) if by_native else records.encode(roots) for _, roots, _ in bs]
  reader = records.reader()
  got = [reader.decode_native(space, fresh(w, crossed)) for w in written]
  assert got == [python_ids(space, roots) for _, roots, _ in bs]
  assert reader.epoch == written[-1][1]


def test_an_epoch_change_reads_from_the_base_again():
  p0 = UOp.param(0)
  a, b = p0 + 1, (p0 + 1) * 2
  records = Records([p0], limit=2)
  batches = [records.encode(r) for r in ([a], [a], [b], [b])]
  assert [epoch for _, epoch in batches] == [0, 0, 0, 1]
  space = NativeSpace(Stepper(symbolic))
  reader = records.reader()
  got = [reader.decode_native(space, x) for x in batches]
  assert got == [[space.to_id(a)], [space.to_id(a)], [space.to_id(b)], [space.to_id(b)]]
  assert len(reader.made) == 4   # the new epoch's rows only (2, 1, +, *)


def test_a_20000_node_chain_is_interned_without_recursion():
  p0 = UOp.param(0)
  g = add0_chain(20_000)
  codec = Codec([p0])
  enc = codec.encode([g, g])
  space = NativeSpace(Stepper(ZERO))
  got = codec.decode_native(space, enc)
  assert got == [space.to_id(g)] * 2 and space.uop(got[0]) is g
  assert space.core.counts["nodes"] == 20_002   # p0, the 0 and each +


def test_a_call_row_falls_back_to_python():
  p0 = UOp.param(0)
  call = UOp(Ops.CALL, (p0 + 1, p0 * 2))
  codec = Codec([p0])
  enc = codec.encode([p0 * 2, call, None, p0 + 1])
  space = NativeSpace(Stepper(symbolic))
  got = codec.decode_native(space, enc)
  assert got == [space.to_id(p0 * 2), call, None, space.to_id(p0 + 1)]
  # a stream: a later batch on the CALL's row falls back too, and one on the other rows is interned in C
  records = Records([p0])
  batches = [records.encode([call]), records.encode([(call + call)]), records.encode([(p0 + 1) * 3])]
  reader = records.reader()
  got = [reader.decode_native(space, x) for x in batches]
  assert got == [[call], [(call + call)], [space.to_id((p0 + 1) * 3)]]
  assert [m for m in reader.made if m.__class__ is not int] == [call, (call + call)]   # the rows the core took none of


def test_bad_rows_are_errors_and_extend_nothing():
  p0 = UOp.param(0)
  space = NativeSpace(Stepper(symbolic))
  with pytest.raises(RuntimeError): space.core.intern_rows([], [], make_uop)   # before rows_setup
  space.rows_setup([p0])
  i32 = p0.dtype
  add = (Ops.ADD, i32, None, (-1, -1))
  for rows, made, error in [([add, (Ops.ADD, i32, None, (-2, 0))], [], IndexError), ([(Ops.ADD, i32, None, (0, 0))], [], IndexError),
                            ([(Ops.ADD, i32, None, (-1, 1))], [5], IndexError), ([add, (Ops.MUL, i32, None, (1, 0))], [], IndexError),
                            ([(Ops.ADD, i32, None, (0, -1))], [10**6], IndexError), ([(Ops.ADD, i32, None)], [], TypeError),
                            ([(Ops.ADD, i32, None, [-1])], [], TypeError), (["x"], [], TypeError), (3, [], TypeError),
                            ([("ADD", i32, None, (-1,))], [], KeyError), ([(Ops.ADD, i32, None, ("a",))], [], TypeError)]:
    before = list(made)
    with pytest.raises(error): space.core.intern_rows(rows, made, make_uop)
    assert made == before
  made = []
  assert space.core.intern_rows([add], made, make_uop) == made == [space.to_id(p0 + p0)]


def test_rows_of_one_op_and_dtype_apart_by_their_args_are_other_nodes():
  # a label stands for (op, dtype, arg): two reshapes of one node, two casts, crossed (pickled: the args are new objects)
  p = UOp.param(0, dtypes.f32, (2, 3))
  roots = [p.reshape((6,)), p.reshape((3, 2)), p.reshape((3, 2)).reshape((6,)), p.cast(dtypes.i32), p.cast(dtypes.bool)]
  codec = Codec([p])
  for crossed in (False, True):
    space = NativeSpace(Stepper(symbolic))
    got = codec.decode_native(space, fresh(codec.encode(roots), crossed))
    assert [space.uop(i) for i in got] == roots and got == python_ids(space, roots)


def test_a_reader_reads_its_nodes_into_one_space():
  # the nodes it keeps are one space's: another space mid-epoch is refused (its refs would be wrong nodes), a new epoch is not
  p0 = UOp.param(0)
  records = Records([p0], limit=3)
  batches = [records.encode([p0 + 1]), records.encode([(p0 + 1) * 2]), records.encode([p0 * 3])]
  assert [epoch for _, epoch in batches] == [0, 0, 1]
  one, two = NativeSpace(Stepper(symbolic)), NativeSpace(Stepper(symbolic))
  reader = records.reader()
  assert reader.decode_native(one, batches[0]) == [one.to_id(p0 + 1)]
  with pytest.raises(ValueError): reader.decode_native(two, batches[1])
  assert reader.decode_native(one, batches[1]) == [one.to_id((p0 + 1) * 2)]
  assert reader.decode_native(two, batches[2]) == [two.to_id(p0 * 3)]
