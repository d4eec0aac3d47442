"""``evaluate``: the rules that turn a closed program into its value; ``run``, ``bind``, ``to_python``.

Together with ``symbolic`` they push ALU ops through STACKs, index into STACKs,
compute movement ops on constant data and inline CALLs (beta reduction), so the
normal form of a closed program is a CONST/STACK tree: rewriting is the interpreter.

>>> from uopc.uop import UOp
>>> a, b = UOp.stack(1, 2, 3), UOp.stack(10, 20, 30)
>>> to_python(run(a * b + a))
[11, 42, 93]

``uopc.evaluate`` names the rule set, not this module, as ``uopc.symbolic`` does (its
docstring says why); the module is ``sys.modules["uopc.evaluate"]``. ``tests/test_evaluate.py``
pins it down.
"""
from __future__ import annotations

from typing import Any

from uopc.alu import exec_alu, undefined_message
from uopc.dtype import DType
from uopc.footprint import reads
from uopc.matcher import PatternMatcher
from uopc.ops import ALU, CONST, STACK, Ops
from uopc.rewrite import ProgramError, graph_rewrite
from uopc.symbolic import symbolic
from uopc.upat import UPat
from uopc.uop import UOp, call_body_scope, call_params, prod, stack_rows


@reads("opaque")   # its sources' STACKs and their rows
def _push_stack(x: UOp) -> UOp | None:
  """f(STACK(a0, a1), STACK(b0, b1)) -> STACK(f(a0, b0), f(a1, b1)); other sources are INDEXed (row i of each column)."""
  if not x.shape: return None
  for s in x.src:
    if s.op is STACK: break
  else: return None
  return stack_rows(x.op, [s.src if s.op is STACK else tuple(s.index(i) for i in range(x.shape[0])) for s in x.src], x.arg, x.dtype)


MAX_ELEMENTS = 1 << 20
"""The most elements the interpreter materializes in one value: a node is a few hundred bytes."""


class TooLarge(ProgramError, MemoryError):
  """A value with more elements than the interpreter materializes (``MAX_ELEMENTS``)."""


class IndexOutOfBounds(ProgramError, IndexError):
  """A needed INDEX of a STACK at a constant position outside it: the chapter's ``IndexError``, raised by ``run``."""


def _index_stack(s: UOp, i: UOp, rest: tuple[UOp, ...]) -> UOp | None:
  # out of bounds has no value: the INDEX stays, like 7 // 0, and is an error only if it is still needed at the end (run)
  if not 0 <= i.arg < len(s.src): return None
  return s.src[i.arg].index(*rest) if rest else s.src[i.arg]


def substitute_scoped(body: UOp, mapping: dict[UOp, UOp]) -> UOp:
  """``body`` with nodes replaced per ``mapping``, never entering a nested CALL's body (its own scope)."""
  new: dict[UOp, UOp] = {}
  for u in body.toposort(call_body_scope):
    if u in mapping: new[u] = mapping[u]; continue
    src = (u.src[0], *(new[s] for s in u.src[1:])) if u.op is Ops.CALL else tuple(new[s] for s in u.src)
    new[u] = u if src == u.src else u.replace(src=src)
  return new[body]


@reads("opaque")   # the whole body
def inline_call(call: UOp) -> UOp:
  """Beta reduction: the body of ``call`` with each of its PARAMs replaced by its argument.

  Scoped: a nested CALL's body has PARAMs of its own, so substitution never enters it.

  >>> p0 = UOp.param(0)
  >>> inline_call((p0 * p0).call(7)) is UOp.const(7) * 7
  True
  """
  return substitute_scoped(call.src[0], {p: call.src[1 + p.arg.slot] for p in call_params(call.src[0])})


def bind_params(u: UOp, values: dict[int, Any]) -> UOp:
  """``u`` with its free PARAMs (not those of CALL bodies) replaced by constant values.

  >>> p0 = UOp.param(0)
  >>> to_python(run(bind_params(p0 * 2 + 1, {0: 20})))
  41
  """
  return substitute_scoped(u, {p: v if isinstance(v, UOp) else from_python(v, p.dtype, p.shape)
                               for p in call_params(u) if (v := values.get(p.arg.slot)) is not None})


def _literal(u: UOp) -> tuple[list[Any], tuple[int, ...]] | None:
  """A CONST/STACK tree as (flat list of values, shape), or None if anything is symbolic."""
  if u.op is Ops.CONST: return [u.arg], ()
  if u.op is not Ops.STACK: return None
  flat: list[Any] = []
  for s in u.src:
    if (part := _literal(s)) is None: return None
    flat.extend(part[0])
  return flat, u.shape


def from_flat(flat: list[Any], shape: tuple[int, ...], dtype: DType) -> UOp:
  """The CONST/STACK tree of ``shape`` holding ``flat`` in row-major order."""
  if not shape: return UOp.const(flat[0], dtype)
  n = len(flat) // shape[0]
  return UOp(Ops.STACK, tuple(from_flat(flat[i * n:(i + 1) * n], shape[1:], dtype) for i in range(shape[0])))


def _unravel(i: int, shape: tuple[int, ...]) -> list[int]:
  out = []
  for s in reversed(shape): out.append(i % s); i //= s
  return out[::-1]


def _ravel(idx: list[int], shape: tuple[int, ...]) -> int:
  i = 0
  for x, s in zip(idx, shape): i = i * s + x
  return i


@reads("opaque")   # the literal below it
def _eval_movement(u: UOp) -> UOp | None:
  """Movement ops and REDUCE on fully known values: compute each output element's source."""
  if (lit := _literal(u.src[0])) is None: return None
  flat, ishape = lit
  oshape, n_out = u.shape, prod(u.shape)
  if n_out > MAX_ELEMENTS:
    raise TooLarge(f"{u.op.name.lower()} to shape {oshape} makes {n_out:,} elements, more than the interpreter "
                   f"materializes ({MAX_ELEMENTS:,}); the C backend (--backend c) does not materialize them")
  if u.op is Ops.RESHAPE: out = flat
  elif u.op is Ops.EXPAND:
    out = [flat[_ravel([0 if s == 1 else x for x, s in zip(_unravel(i, oshape), ishape)], ishape)] for i in range(n_out)]
  elif u.op is Ops.PERMUTE:
    inv = [u.arg.index(k) for k in range(len(ishape))]
    out = [flat[_ravel([o[inv[k]] for k in range(len(ishape))], ishape)] for o in (_unravel(i, oshape) for i in range(n_out))]
  elif u.op is Ops.SHRINK:
    out = [flat[_ravel([x + b for x, (b, _) in zip(_unravel(i, oshape), u.arg)], ishape)] for i in range(n_out)]
  else:   # REDUCE
    rop, k = u.arg
    inner = prod(ishape[len(ishape) - k:])
    out = []
    for i in range(n_out):
      acc = flat[i * inner]
      for v in flat[i * inner + 1:(i + 1) * inner]: acc = exec_alu(rop, u.dtype, [acc, v])
      out.append(acc)
  return from_flat(out, oshape, u.dtype)


x = UPat.var("x")

evaluate = PatternMatcher([
  (UPat({Ops.RESHAPE, Ops.EXPAND, Ops.PERMUTE, Ops.SHRINK, Ops.REDUCE}, name="u"), _eval_movement, "eval-movement"),
  (UPat(Ops.INDEX, src=(x,)), lambda x: x, "index-empty"),
  (UPat(Ops.INDEX, src=(UPat(Ops.INDEX, name="a"),), allow_any_len=True, name="b"),
   lambda a, b: a.src[0].index(*a.src[1:], *b.src[1:]), "index-index"),
  (UPat(Ops.INDEX, src=(UPat(Ops.STACK, name="s"), UPat.cvar("i")), allow_any_len=True, name="u"),
   lambda s, i, u: _index_stack(s, i, u.src[2:]), "index-stack"),
  (UPat(ALU, name="x"), _push_stack, "alu-stack"),
  (UPat(Ops.CALL, name="call"), inline_call, "inline-call"),
], name="evaluate", reads="pattern")


def run(u: UOp, max_steps: int = 10_000_000) -> UOp:
  """Evaluate a program by rewriting with ``symbolic + evaluate``; a closed program becomes its value.

  An INDEX out of bounds that the result needs raises the chapter's ``IndexError`` (``IndexOutOfBounds``);
  one in a branch rewriting dropped is no error, and one under a WHERE whose condition is not known stays.

  >>> run(UOp.stack(1, 2, 3).index(5))
  Traceback (most recent call last):
    ...
  uopc.evaluate.IndexOutOfBounds: index 5 out of bounds for STACK of 3
  """
  out = graph_rewrite(u, _run_rules, max_steps=max_steps)
  if out.op is not CONST: _raise_needed_index(out)
  return out


def _needed(u: UOp) -> tuple[UOp, ...]:
  """The sources whose values ``u``'s value needs whatever the PARAMs are: a WHERE's branches may be dead."""
  return u.src[:1] if u.op is Ops.WHERE else call_body_scope(u)


def _raise_needed_index(out: UOp) -> None:
  """Raise ``IndexOutOfBounds`` if the first undefined operation ``out`` needs (leaves first, as ``to_python``
  names them) is an INDEX out of bounds; any other is left for ``to_python`` to name."""
  for n in out.toposort(_needed):
    if n.op is CONST or _undefined(n) is None: continue
    if n.op is Ops.INDEX: raise IndexOutOfBounds(f"index {n.src[1].arg} out of bounds for STACK of {len(n.src[0].src)}")
    return


_run_rules = symbolic + evaluate


def _bind_param(p: UOp, ctx: dict[int, Any]) -> UOp | None:
  if p.arg.slot not in ctx: return None
  v = ctx[p.arg.slot]
  return v if isinstance(v, UOp) else from_python(v, p.dtype, p.shape)


bind = PatternMatcher([(UPat(Ops.PARAM, name="p"), lambda p, ctx: _bind_param(p, ctx), "bind-param")], name="bind")
"""Partial evaluation: ``graph_rewrite(u, bind, ctx={slot: value})`` replaces bound PARAMs by constants."""


def from_python(v: Any, dtype: DType, shape: tuple[int, ...] = ()) -> UOp:
  """A value (a number, or nested lists for a shaped one) as a CONST/STACK tree of ``dtype``.

  >>> from uopc.dtype import dtypes
  >>> to_python(from_python([1, 2], dtypes.f32, (2,)))
  [1.0, 2.0]
  """
  if not shape:
    if isinstance(v, (list, tuple)): raise ValueError(f"expected a scalar {dtype.name}, got a list")
    if dtype.is_int and isinstance(v, float) and not v.is_integer(): raise ValueError(f"expected an {dtype.name}, got {v!r}")
    return UOp.const(v, dtype)
  if not isinstance(v, (list, tuple)) or len(v) != shape[0]:
    raise ValueError(f"expected a list of {shape[0]} for shape {shape}, got {v!r}")
  return UOp(Ops.STACK, tuple(from_python(e, dtype, shape[1:]) for e in v))


class UndefinedError(ValueError):
  """The value of a program needs an undefined operation (division by zero, an index out of
  bounds, ...); the message is the C backend's for the same operation."""


def to_python(u: UOp) -> Any:
  """A fully evaluated program as a Python value or nested lists.

  A program that is stuck raises ``UndefinedError`` naming the undefined operation it
  needs, or ``ValueError`` if it is stuck on something else (a free PARAM).

  >>> to_python(run(UOp.const(7) // 0))
  Traceback (most recent call last):
    ...
  uopc.evaluate.UndefinedError: division by zero: 7 // 0
  """
  if u.op is CONST: return u.arg
  if u.op is STACK: return [s.arg if s.op is CONST else to_python(s) for s in u.src]   # a stuck element raises
  for n in u.toposort():   # leaves first: the innermost undefined operation is the one to name
    if (why := _undefined(n)) is not None: raise UndefinedError(why)
  raise ValueError(f"program did not evaluate to a value, stuck at {u.op}")


def _undefined(n: UOp) -> str | None:
  """Why node ``n``, whose sources are values, has no value itself (None if it has, or they are not values)."""
  if n.op is Ops.INDEX and len(n.src) > 1 and n.src[0].op is STACK and n.src[1].op is CONST:
    i, size = n.src[1].arg, len(n.src[0].src)
    return None if 0 <= i < size else f"index {i} out of bounds for axis 0 of size {size}"
  if n.op in ALU and n.src and all(s.op is CONST for s in n.src): return undefined_message(n.op, [s.arg for s in n.src])
  return None


