"""Issue 40's tinygrad targets: what the explorer does on ``(gidx*4 + lidx) // 4 % 8`` under tinygrad's ``symbolic``, and
the facts ``docs/tinygrad.md`` ("Issue 40's targets") argues from: each distinct node's rules are called once however many
states hold it, and every graph reached is one whose root a rule's pattern matches.

tinygrad is imported at the top on purpose: without it (the ``tinygrad`` extra) these tests fail, never skip.
"""
from __future__ import annotations

import gc
from collections import Counter
from typing import Any

from tinygrad.uop.ops import PatternMatcher, UOp
from tinygrad.uop.symbolic import symbolic

from uopc.relational.space import step
from uopc.relational.space.stream import Exploration


def gidx_index() -> Any:
  g, l = UOp.variable("gidx", 0, 63), UOp.variable("lidx", 0, 3)
  return (g * 4 + l) // 4 % 8


def test_each_node_is_shown_to_the_rules_once_and_every_graph_is_matched_at_its_root(monkeypatch):
  shown: Counter = Counter()
  match = step.Stepper._match

  def counted(self: Any, u: Any) -> Any:
    shown[u] += 1
    return match(self, u)
  monkeypatch.setattr(step.Stepper, "_match", counted)
  pm = PatternMatcher(symbolic.patterns)   # a fresh matcher: a stepper of its own, no memo from another test
  ex = Exploration(gidx_index(), pm, reduce=True, max_states=20_000).run()
  assert ex.complete and [s.term() for s in ex.normal_forms] == ["floormod(gidx, 8)"]
  assert len(ex.states) == 5_708 and sum(s.steps for s in ex.stuck) == 5_390   # one stuck state stands for 5,390 steps
  # idea (a) of the brief is the stepper's own memo: a node held by many states is matched, its rules called, once
  assert set(shown.values()) == {1} and len(shown) == len(ex.stepper._maps) == 11_498
  # the lower bound's premise: every graph reached (not a stuck step) has a root some rule's pattern matches, so an
  # exploration that treats the rules' functions as black boxes visits each
  rules = ex.stepper.pm
  assert all(any(m(s.graph) for _, m, _ in rules.every_candidate(s.graph)) for s in ex.states if s.error is None)


def test_an_exploration_leaves_what_it_made_settled_in_the_oldest_generation():
  gc.collect()
  ex = Exploration(gidx_index() + 1, PatternMatcher(symbolic.patterns), max_states=300).run()
  young = {id(o) for g in (0, 1) for o in gc.get_objects(generation=g)}
  made = [*ex.states, *(m for m in ex.stepper._maps.values() if m)]   # its states and its nodes' step maps
  assert len(ex.states) == 300 and gc.is_tracked(made[0]) and not any(id(o) in young for o in made)
  assert gc.get_count()[0] < 100   # the exploration's objects no longer count towards the next young pass
