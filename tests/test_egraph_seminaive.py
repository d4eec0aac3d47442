"""Semi-naive e-matching finds exactly the new matches: every match full re-matching finds is new or was found before."""
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.strategies import arith_programs, graphs
from tests.test_egraph_ematch import PATTERNS
from uopc import Ops, UPat
from uopc.egraph.ecompile import compile_ematch
from uopc.egraph.egraph import EGraph
from uopc.egraph.ematch import instances
from uopc.egraph.extract import Representatives
from uopc.egraph.seminaive import SemiNaive, height
from uopc.rulesets import resolve_rules

EX9 = [pat for pat, _ in resolve_rules("examples/saturation_rules.py:rules").rules]
a, b = UPat.var("a"), UPat.var("b")
ALL = PATTERNS + EX9 + [UPat(Ops.MUL, src=[UPat(Ops.ADD, src=(a, b)), a]), UPat(Ops.ADD, src=(UPat(Ops.MUL), b))]


def grow(progs: list, merges: list[tuple[int, int]]):
  """An e-graph of ``progs[0]``, stamped at iteration 0, then the rest of ``progs`` and ``merges`` (pairs of positions among
  the classes), stamped 1: the e-graph, its representatives before and after, and the stamps."""
  eg, reps = EGraph(), Representatives()
  eg.add(progs[0])
  eg.rebuild()
  touched, unions, fresh = eg.take_touched()
  reps.update(eg, touched, unions)
  nstamp, rstamp = dict.fromkeys(fresh, 0), dict.fromkeys(reps.graph, 0)
  before = dict(reps.graph)
  for p in progs[1:]: eg.add(p)
  ids = sorted(eg.classes)
  for i, j in merges:
    x, y = eg.find(ids[i % len(ids)]), eg.find(ids[j % len(ids)])
    if (eg.classes[x].dtype, eg.classes[x].shape) == (eg.classes[y].dtype, eg.classes[y].shape): eg.union(x, y)
  eg.rebuild()
  touched, unions, fresh = eg.take_touched()
  changed, _ = reps.update(eg, touched, unions)
  nstamp.update(dict.fromkeys(fresh, 1))
  rstamp.update(dict.fromkeys(changed, 1))
  return eg, before, reps, nstamp, rstamp


def bindings_of(m: SemiNaive, pat: UPat, c: int, by_class: bool) -> set:
  # a match: its root and its bindings, as class ids (a rule that reads only classes) or as the graphs
  out = set()
  for e in m.matches(pat, c):
    out.add((c, tuple(sorted((k, m.eg.find(v if type(v) is int else v[0]) if by_class else g)
                             for (k, v), g in zip(e.items(), m.bindings(e).values())))))
  return out


def check(eg, before, reps, nstamp, rstamp, before_matches):
  for pat in ALL:
    for by_class in (True, False):
      rs = None if by_class else rstamp
      full, new = SemiNaive(eg, reps.graph, nstamp, rs, -1), SemiNaive(eg, reps.graph, nstamp, rs, 0)
      roots = new.roots(height(pat), {eg.find(eg.memo[n]) for n, s in nstamp.items() if s == 1 and n in eg.memo} |
                        (set() if by_class else {c for c, s in rstamp.items() if s == 1}))
      got = set().union(*[bindings_of(new, pat, c, by_class) for c in roots]) if roots else set()
      everything = set().union(*[bindings_of(full, pat, c, by_class) for c in eg.classes])
      old = {(eg.find(c), tuple(sorted((k, eg.find(v) if by_class else v) for k, v in bs)))
             for c, bs in before_matches[(id(pat), by_class)]}
      assert got <= everything, pat.pretty()              # a new match is a match
      assert everything - old <= got, pat.pretty()       # a match not found before is new
      if (f := compile_ematch(pat, not by_class)) is not None and by_class:   # the compiled loops find the same
        names = sorted({k for _, bs in got for k, _ in bs} | {k for _, bs in everything for k, _ in bs})
        compiled = {(c, tuple(zip(names, ids))) for c in roots for ids in f(c, eg.classes, nstamp, {}, 0, reps.graph)}
        assert {(c, tuple((k, eg.find(v)) for k, v in bs)) for c, bs in got} == \
          {(c, tuple((k, eg.find(v)) for k, v in bs)) for c, bs in compiled}, pat.pretty()


def matches_at_start(progs):
  eg, reps = EGraph(), Representatives()
  eg.add(progs[0])
  eg.rebuild()
  reps.update(eg, *eg.take_touched()[:2])
  out = {}
  for pat in ALL:
    for by_class in (True, False):
      m = SemiNaive(eg, reps.graph, {}, None, -1)
      out[(id(pat), by_class)] = [(c, tuple(sorted((k, v if by_class else g) for (k, v), g in
                                                   zip(((k, v if type(v) is int else v[0]) for k, v in e.items()),
                                                       m.bindings(e).values()))))
                                  for c in eg.classes for e in m.matches(pat, c)]
  return eg, out


@settings(max_examples=60, deadline=None)
@given(st.lists(arith_programs(), min_size=1, max_size=3), st.lists(st.tuples(st.integers(0, 50), st.integers(0, 50)), max_size=4))
def test_semi_naive_matches_are_exactly_the_new_ones(progs, merges):
  first, before_matches = matches_at_start(progs)
  # the same construction again: class ids are given in order, so the ids of the first e-graph hold in the second
  eg, before, reps, nstamp, rstamp = grow(progs, merges)
  check(eg, before, reps, nstamp, rstamp, before_matches)


@settings(max_examples=30, deadline=None)
@given(graphs())
def test_on_a_graph_full_matching_is_instances(g):
  # since=-1: every match; built from the bindings they are the graphs ematch.instances makes
  eg, reps = EGraph(), Representatives()
  eg.add(g)
  eg.rebuild()
  reps.update(eg, *eg.take_touched()[:2])
  m = SemiNaive(eg, reps.graph, {}, {}, -1)
  for u in g.toposort():
    c = eg.add(u)
    for pat in PATTERNS:
      found = bool(m.matches(pat, c))
      assert found == bool(instances(eg, pat, c, reps.graph)) == bool(pat.match(u, {})), pat.pretty()
