"""Costs: distinct nodes, op weights, user functions, and the --cost spec."""
import pytest

from tests.helpers import param
from uopc import Ops, UOp
from uopc.cost import Cost, CostError, as_cost

p0 = param(0)


def test_nodes_count_distinct_nodes_of_the_dag():
  shared = p0 * 3
  assert Cost.nodes().of(shared + shared) == 4 and Cost.nodes().of(shared + p0 * 4) == 6


def test_weights_sum_over_distinct_nodes():
  assert Cost.weights({Ops.MUL: 4, Ops.PARAM: 0}).of((p0 * 3) + (p0 * 3)) == 6   # mul 4, 3 1, add 1, p0 0


def test_a_function_is_a_tree_cost():
  cost = Cost.function(lambda u, cs: (10 if u.op is Ops.MUL else 1) + sum(cs))
  assert cost.of((p0 * 3) + (p0 * 3)) == 25


@pytest.mark.parametrize("spec, value", [("nodes", 3), ("mul=4", 6), ("mul=4,*=0", 4), ("MUL=0.5,const=2", 3.5)])
def test_specs(spec, value):
  assert Cost.parse(spec).of(p0 * 3) == value


def test_a_cost_from_a_file(tmp_path):
  f = tmp_path / "costs.py"
  f.write_text("def depth(u, cs): return 1 + max(cs, default=0)\nTABLE = {'mul': 7}\n")
  assert Cost.parse(f"{f}:depth").of((p0 * 3) + 1) == 3
  assert Cost.parse(f"{f}:TABLE").of(p0 * 3) == 9


@pytest.mark.parametrize("spec, message", [("mul", "bad --cost"), ("mul=-1", "bad --cost"), ("frob=1", "no op 'frob'"),
                                           ("nofile.py:f", "cannot load cost"), ("uopc.ops:ALU", "not a Cost")])
def test_bad_specs_say_what_is_wrong(spec, message):
  with pytest.raises(CostError, match=message): Cost.parse(spec)


@pytest.mark.parametrize("spec", ["*=1.7976931348623157e308,const=0.5", "mul=1e16"])
def test_a_weight_too_large_for_a_finite_sum_is_refused(spec):
  # was an OverflowError (exit 4) once a sum mixed the 1.8e308 int with a float weight
  with pytest.raises(CostError, match=r"expected nodes, OP=WEIGHT,... \(weights from 0 to 1e\+15\)"): Cost.parse(spec)
  assert Cost.parse("*=1e15,const=0.5").of(p0 * 3) == 2e15 + 0.5


def test_a_weights_table_from_a_file_is_checked(tmp_path):
  f = tmp_path / "costs.py"
  f.write_text("TABLE = {'mul': float('inf')}\nWORDS = {'mul': 'four'}\n")
  with pytest.raises(CostError, match="the weight of mul is inf; a weight is a number"): Cost.parse(f"{f}:TABLE")
  with pytest.raises(CostError, match="the weight of mul is 'four'"): Cost.parse(f"{f}:WORDS")


def test_a_function_that_returns_an_infinite_cost_is_an_error():
  with pytest.raises(CostError, match="returned inf for PARAM; a cost is a finite number >= 0"):
    Cost.function(lambda u, cs: float("inf")).of(p0)


def test_a_function_that_returns_no_number_is_an_error():
  with pytest.raises(CostError, match="a cost is a finite number >= 0"): Cost.function(lambda u, cs: "cheap").of(p0)
  assert as_cost(None).name == "nodes" and as_cost("mul=2").of(UOp.const(1) * p0) == 4
