"""From a program to what the C renderer takes: simplified, CALLs inlined, PARAMs listed.

The committed program is ``simplify(u)``, the canonical engine's output; the backend then
inlines every CALL (scoped beta reduction, ``inline_call``), so the kernel is one DAG over
the program's free PARAMs.

>>> from uopc.uop import UOp
>>> p0 = UOp.param(0)
>>> prepare((p0 * p0).call(p0 + 1)) is (p0 + 1) * (p0 + 1)
True
>>> [p.arg.slot for p in kernel_params(UOp.param(2) + UOp.param(0))]
[0, 2]
"""
from __future__ import annotations

from uopc.evaluate import inline_call
from uopc.matcher import PatternMatcher
from uopc.ops import Ops
from uopc.rewrite import graph_rewrite
from uopc.symbolic import simplify as canonical
from uopc.upat import UPat
from uopc.uop import UOp

from uopc.backend.errors import RenderError

# bottom-up, so an inner CALL is inlined (into its enclosing body, in that body's scope)
# before the outer one; inline_call itself never crosses a nested body either way
_inline = PatternMatcher([(UPat(Ops.CALL, name="call"), inline_call, "inline-call")], name="inline")


def inline_calls(u: UOp) -> UOp:
  """``u`` with every CALL replaced by its body applied to its arguments.

  >>> p0 = UOp.param(0)
  >>> inline_calls(((p0 * p0).call(p0, name="sq") * 2).call(p0 + 1)) is (p0 + 1) * (p0 + 1) * 2
  True
  """
  return graph_rewrite(u, _inline)


def prepare(u: UOp, simplify: bool = True) -> UOp:
  """The kernel DAG of a program: ``simplify`` it (the committed program), inline CALLs, check it.

  Raises ``RenderError`` for what has no C lowering (a RANGE outside a loop).
  """
  if simplify: u = canonical(u)
  u = inline_calls(u)
  for n in u.toposort():
    if n.op is Ops.RANGE:
      raise RenderError("RANGE outside a loop has no value: the C backend lowers only ranges it creates itself")
  return u


def kernel_params(u: UOp) -> list[UOp]:
  """The free PARAMs of a (CALL-free) kernel DAG, by slot; a slot used with two types is an error."""
  by_slot: dict[int, UOp] = {}
  for n in u.toposort():
    if n.op is not Ops.PARAM: continue
    if (seen := by_slot.get(n.arg.slot)) is not None and (seen.dtype, seen.shape) != (n.dtype, n.shape):
      raise RenderError(f"PARAM slot {n.arg.slot} is used as {_type(seen)} and as {_type(n)}")
    by_slot[n.arg.slot] = n
  return [by_slot[s] for s in sorted(by_slot)]


def _type(p: UOp) -> str: return f"{p.dtype.name}{list(p.shape) if p.shape else ''}"
