"""Small helpers shared by the tests."""
from uopc import UOp, dtypes


def param(slot: int, dtype=dtypes.i32, shape=()) -> UOp:
  """The PARAM of ``slot`` (the chapter's ``param(0)``)."""
  return UOp.param(slot, dtype, shape)


SUM_UIR = """\
# (p0 + 0) * 1 + (p1 * 1 + 0)
%0 = param : slot=0 dtype=i32
%1 = add %0, 0
%2 = mul %1, 1
%3 = param : slot=1 dtype=i32
%4 = mul %3, 1
%5 = add %4, 0
%6 = add %2, %5
"""
"""A small program with 72 reachable graphs and two normal forms under ``symbolic``: the explorer tests' and pages' example."""
