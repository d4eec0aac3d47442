"""``uopc/bounded.py``: the results a bound may cut short share one ``complete``, read from their ``bound``."""
import pathlib

import pytest

from uopc import UOp, symbolic
from uopc.bounded import Bounded
from uopc.cost import Cost
from uopc.egraph import saturate
from uopc.egraph.saturate import Saturation
from uopc.relational import NormalForms, explore
from uopc.relational.analyses.best import BestResult, best
from uopc.relational.analyses.meet import MeetResult
from uopc.relational.analyses.order import OrderReport
from uopc.relational.analyses.search import SearchResult, SearchStream
from uopc.relational.space.stream import Exploration

ROOT = pathlib.Path(__file__).resolve().parents[1]
RESULTS = [Saturation, Exploration, NormalForms, SearchStream, SearchResult, MeetResult, BestResult, OrderReport]


@pytest.mark.parametrize("cls", RESULTS, ids=lambda c: c.__name__)
def test_every_bounded_result_has_the_one_base(cls):
  assert issubclass(cls, Bounded)
  own = [c.__name__ for c in cls.__mro__ if "complete" in c.__dict__]
  assert own == (["SearchStream", "Bounded"] if cls is SearchStream else ["Bounded"])   # a stream is complete only once it is over


def test_the_named_tuple_results_stay_tuples():
  p0 = UOp.param(0)
  r = best((p0 + 0) * 1, symbolic, Cost.parse("nodes"))
  state, cost, seen, expanded, bound, elapsed = r
  assert isinstance(r, tuple) and not hasattr(r, "__dict__") and r._fields[4] == "bound"
  assert (bound, r.complete, r._replace(bound="timeout").complete, type(r._replace(bound="timeout"))) == (None, True, False, BestResult)
  assert state.graph is p0 and cost == 1 and r.graph is p0


def test_complete_follows_the_bound_that_stopped_the_work():
  p0, p1 = UOp.param(0), UOp.param(1)
  prog = (p0 + 0) * 1 + (p1 * 1 + 0)
  whole, cut = explore(prog, symbolic), explore(prog, symbolic, max_states=2)
  assert (whole.bound, whole.complete, cut.bound, cut.complete) == (None, True, "max_states", False)
  assert NormalForms(cut, None, None).complete is False and NormalForms(whole, None, None).complete is True
  full = saturate(prog, symbolic, Cost.parse("nodes"))
  one = saturate(p0 * 2 + p0 * 3 + p1 * 4 + (p0 + 0), symbolic, Cost.parse("nodes"), max_iterations=1)
  assert (full.bound, full.complete) == (None, True) and (one.stop, one.bound, one.complete) == ("iterations", "iterations", False)
