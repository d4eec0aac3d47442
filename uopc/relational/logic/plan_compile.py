"""``match_ground``'s plan as Python source: one straight-line function per pattern, as ``uopc.upat_compile`` does for
``UPat``s.

The interpreter in ``bridge.match_ground`` walks the plan's steps on every call; a conjunction like
``reacho(pm, g, q), eq(q, pattern)`` calls it once per reachable graph. The compiled form unrolls the walk into
one ``if`` per check, each position and binding in a local, for the common case: none of the pattern's variables is
bound yet. Everything of the pattern's (its ground nodes, heads, ops, dtypes, args, variables) reaches the source
as a name of the function's namespace (``K3``, ``V0``), never as text.

>>> from unification import var
>>> from uopc.uop import UOp
>>> from uopc.relational.logic.bridge import pat, _plan
>>> y = var()
>>> match = _plan(pat.add(y, 1)).compiled
>>> match(UOp.param(0) + 1, {})[y] is UOp.param(0), match(UOp.param(0) + 2, {})
(True, False)
"""
from __future__ import annotations

from typing import Any, Callable, Sequence

from uopc.dtype import same_value

# a plan step's kinds (bridge._Plan): a node pattern or ground node, a variable, a head field's variable
NODE, VAR, FIELD_VAR = 0, 1, 2

GroundMatch = Callable[[Any, dict], "dict | bool"]


def compile_plan(steps: Sequence[tuple[int, int, int, Any]], variables: Sequence[Any], head_of: Callable[[Any], Any]) -> GroundMatch | None:
  """``match(node, s)``: ``s`` extended with the pattern's variables bound, or False; for an ``s`` that binds none of
  them. None where the interpreter must answer (a variable both a node and a head field, a head field's variable
  met twice: what the interpreter may send to the generic path)."""
  names: dict[str, Any] = {"head_of": head_of, "same_value": same_value}
  lines = ["def match(n0, s):"]
  seen: dict[int, int] = {}   # slot -> its kind (VAR or FIELD_VAR) at first use

  def constant(value: Any) -> str:
    names[name := f"K{len(names)}"] = value
    return name

  def fail_unless(cond: str) -> None: lines.append(f"  if not ({cond}): return False")

  def bind(slot: int, kind: int, value: str) -> bool:
    """The variable in ``slot`` meets ``value``: bound on first use; a node variable met again must be the same node."""
    if slot not in seen:
      seen[slot] = kind
      lines.append(f"  v{slot} = {value}")
      return True
    if kind == FIELD_VAR or seen[slot] != VAR: return False
    fail_unless(f"v{slot} is {value}")
    return True

  for i, (parent, child, kind, data) in enumerate(steps):
    if parent >= 0: lines.append(f"  n{i} = n{parent}.src[{child}]")
    if kind == VAR:
      if not bind(data, VAR, f"n{i}"): return None
    elif type(data) is not tuple:   # a ground node
      fail_unless(f"n{i} is {constant(data)}")
    else:
      ground_head, fields, arity = data
      fail_unless(f"len(n{i}.src) == {int(arity)}")
      if ground_head is not None:
        fail_unless(f"head_of(n{i}) is {constant(ground_head)}")
        continue
      for (field_kind, value), attr in zip(fields, ("op", "dtype", "arg")):
        here = f"n{i}.{attr}"
        if field_kind == FIELD_VAR:
          if not bind(value, FIELD_VAR, here): return None
        elif attr == "op": fail_unless(f"{here} is {constant(value)}")
        elif attr == "dtype": fail_unless(f"{here} is {(k := constant(value))} or {here} == {k}")
        else: fail_unless(f"{here} is {(k := constant(value))} or same_value({k}, {here})")   # an arg bit for bit, as heads unify
  lines.append("  out = s.copy()")
  for slot, v in enumerate(variables):
    names[f"V{slot}"] = v
    lines.append(f"  out[V{slot}] = v{slot}")
  lines.append("  return out")
  exec("\n".join(lines), names)   # the source holds only names, numbers and the plan's shape
  match: GroundMatch = names["match"]
  return match
