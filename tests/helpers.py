"""Small helpers shared by the tests."""
from uopc import UOp, dtypes


def param(slot: int, dtype=dtypes.i32, shape=()) -> UOp:
  """The PARAM of ``slot`` (the chapter's ``param(0)``)."""
  return UOp.param(slot, dtype, shape)
