"""bench/distributed.py: the delta codec (only the nodes the receiver lacks cross) and the 2-process prototype's state count."""
from bench import distributed
from bench.distributed import DeltaDecoder, DeltaEncoder, Fingerprints, Workload, add0_sum, partitioned
from bench.maude_gen import matcher
from uopc import UOp
from uopc.relational import explore


def test_deltas_carry_only_new_nodes_and_decode_to_the_same_graph():
  prog = add0_sum(4, 0)
  encoder, decoder = DeltaEncoder(prog), DeltaDecoder(prog)
  assert encoder.encode(prog) == ([], len(prog.toposort()) - 1)   # the receiver has the program: nothing new
  states = [s.graph for s in explore(prog, matcher(["add0"]), max_states=None).states]
  assert len(states) == 16
  sent = 0
  for g in states:
    new, root = encoder.encode(g)
    sent += len(new)
    assert decoder.decode((new, root)) is g
    assert encoder.encode(g) == ([], root)   # a graph sent once is a bare number the second time
  known = set(prog.toposort())
  assert sent == len({u for g in states for u in g.toposort()} - known)


def test_fingerprints_are_structural():
  fps = Fingerprints()
  p0, p1 = UOp.param(0), UOp.param(1)
  a, b = (p0 + 0) * p1, (p1 + 0) * p0
  assert fps.of(a) == fps.of(a) != fps.of(b)
  assert fps.memo[a] == hash((a.op, a.dtype, a.arg, (fps.memo[p0 + 0], fps.memo[p1])))
  assert len(fps.memo) == len(set(a.toposort()) | set(b.toposort()))


def test_two_processes_find_every_state_once(monkeypatch):
  # fresh PARAM slots each run give other fingerprints, so other partitions: a rank that left while its last message
  # still gave the other rank states hung the other for good about one run in thirty (the fix: both must be done)
  monkeypatch.setattr(distributed, "RESULT_TIMEOUT", 60.0)
  for k in (4, 5, 5, 5, 6, 6):
    work = Workload(f"sum of {k}", lambda k=k: add0_sum(k, 0), lambda: matcher(["add0"]))
    states, sent, _, _ = partitioned(work, 2)
    assert states == 2 ** k
    assert 0 < sent <= states
  assert partitioned(work, 1)[:2] == (2 ** 6, 0)
