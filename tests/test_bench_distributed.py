"""bench/distributed.py: the delta codec (only the nodes the receiver lacks cross) and its cost measure."""
from bench.distributed import DeltaDecoder, DeltaEncoder, add0_sum, send_cost
from bench.maude_gen import matcher
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


def test_every_state_sent_arrives_and_costs_something():
  states = [s.graph for s in explore(add0_sum(4, 0), matcher(["add0"]), max_states=None).states]
  for mode in ("delta", "pickle"):
    sender, receiver, nbytes = send_cost(states, states[0], mode, 4)   # the receiver counts what it decoded: all 16
    assert sender > 0 and receiver > 0 and nbytes > 0
