"""A polynomial interpretation of terms: a strictly monotone map to the naturals >= 1 that ``evaluate``'s rules lower.

Each term is mapped to a polynomial in its variables (each >= 1):

- a CONST is 1 (whatever its value), a PARAM its own variable;
- an ALU op ``f(x1, ..., xn)`` is ``2 * x1 * ... * xn``;
- ``STACK(y1, ..., yn)`` is ``y1 + ... + yn + 1``;
- ``INDEX(x, i1, ..., ik)`` is ``x * i1 * ... * ik`` (an INDEX into an INDEX weighs the same as the INDEX it makes);
- a movement op or REDUCE of output shape ``s`` is ``x + L(s)``, where ``L(()) = 1`` and ``L((n, *rest)) = n * L(rest) + 1``:
  the value of every literal (CONST/STACK tree) of shape ``s``, so computing one on literal data lowers it;
- ``CALL(body, a1, ..., an)`` is the body's value with each of its PARAMs replaced by its argument's, plus
  ``a1 + ... + an + 1``: a body is closed over its own PARAMs, so it is a function of them, and beta reduction lowers the
  value by ``a1 + ... + an + 1``;
- any other op is the sum of its sources plus 1.

Every value is >= 1, and each is strictly monotone in each source over values >= 1 (a product with the others >= 1,
a sum). A node's value depends only on its op, its shape and its sources' values, so ``[t[x := u]] = [t][x := [u]]``:
an inequality between polynomials that holds for every value of their variables holds for every substitution. So
``l > r`` (for every value) makes every step of the rule lower the value of the whole term, and ``l >= r`` keeps it:
an interpretation *stage* lowers some rules, keeps the rest, and removes the ones it lowers (docs/termination.md).

The comparison is ``polynomial.above`` (absolute positiveness over ``x = y + 1``, ``y >= 0``). ``interpret`` is
generic in its numbers: with ``leaf`` giving each PARAM an int >= 1 it computes the value of a ground term.

>>> from uopc.uop import UOp
>>> a, b, x = UOp.param(0), UOp.param(1), UOp.param(2, shape=(2,))
>>> lhs, rhs = UOp.stack(a, b) + x, UOp.stack(a + x.index(0), b + x.index(1))    # alu-stack
>>> str(polynomial(lhs) - polynomial(rhs)), compare(lhs, rhs)
('2*p2<i32x2> + 1', 1)
"""
from __future__ import annotations

from typing import Callable, NamedTuple, TypeVar

from uopc.ops import ALU, CALL, CONST, INDEX, MOVEMENT, PARAM, STACK, Ops
from uopc.uop import UOp, call_body_scope

from uopc.termination.polynomial import Polynomial, above, at_least

__all__ = ["Interpretation", "compare", "find_interpretation", "interpret", "literal_value", "polynomial"]

N = TypeVar("N", Polynomial, int)
DEFINITION = ("CONST = 1, PARAM = its variable, ALU f(x1..xn) = 2*x1*...*xn, STACK(y1..yn) = y1+...+yn+1, INDEX(x, i1..ik) = x*i1*...*ik,",
              "movement op or REDUCE to shape s = x + L(s) (L(s): a literal's value), CALL(b, a1..an) = b(a1..an) + a1+...+an+1")


def literal_value(shape: tuple[int, ...]) -> int:
  """``L(shape)``: the value of every literal of ``shape`` (a CONST is 1, a STACK its rows' sum plus 1)."""
  out = 1
  for n in reversed(shape): out = n * out + 1
  return out


def _product(xs: list[N]) -> N | int:
  out: N | int = 1
  for x in xs: out = out * x
  return out


def interpret(u: UOp, leaf: Callable[[UOp], N]) -> N:
  """The value of ``u`` (module doc), each PARAM outside a CALL body valued by ``leaf``. Iterative: a CALL's body is
  valued in a scope of its own (its PARAMs bound to its arguments' values), one scope per tuple of argument values."""
  scopes: dict[tuple[N, ...] | None, int] = {None: 0}   # the top level is scope 0
  bound: list[tuple[N, ...] | None] = [None]
  val: dict[tuple[UOp, int], N] = {}
  todo = [(u, 0)]
  while todo:
    n, k = todo[-1]
    if (n, k) in val:
      todo.pop()
      continue
    missing = [(s, k) for s in call_body_scope(n) if (s, k) not in val]
    if not missing and n.op is CALL:
      args = tuple(val[(s, k)] for s in n.src[1:])
      inner = scopes.setdefault(args, len(bound))
      if inner == len(bound): bound.append(args)
      if (n.src[0], inner) not in val: missing = [(n.src[0], inner)]
      else: val[(n, k)] = val[(n.src[0], inner)] + sum(args) + 1
    elif not missing: val[(n, k)] = _node(n, [val[(s, k)] for s in n.src], bound[k], leaf)
    todo += missing
  return val[(u, 0)]


def _node(n: UOp, src: list[N], bound: tuple[N, ...] | None, leaf: Callable[[UOp], N]) -> N:
  """The value of a node other than a CALL, from its sources' (``bound``: the arguments of the CALL whose body holds it)."""
  if n.op is CONST: return 1   # type: ignore[return-value]
  if n.op is PARAM: return leaf(n) if bound is None or n.arg.slot >= len(bound) else bound[n.arg.slot]
  if n.op in ALU: return 2 * _product(src)   # type: ignore[return-value]
  if n.op is STACK: return sum(src) + 1   # type: ignore[return-value]
  if n.op is INDEX: return _product(src)   # type: ignore[return-value]
  if n.op in MOVEMENT or n.op is Ops.REDUCE: return src[0] + literal_value(n.shape)
  return sum(src) + 1   # type: ignore[return-value]


def _variable(p: UOp) -> Polynomial:
  """A PARAM's variable, >= 1: ``y + 1`` with ``y >= 0``, named ``p<slot>`` (and its dtype and shape, but for an i32 scalar)."""
  a = p.arg
  kind = "" if a.dtype.name == "i32" and not a.shape else f"<{a.dtype.name}{''.join(f'x{n}' for n in a.shape)}>"
  return Polynomial.variable(f"p{a.slot}{kind}") + 1


def polynomial(u: UOp) -> Polynomial:
  """``u``'s value as a polynomial in the variables of its PARAMs, each written ``y + 1`` (``y >= 0``)."""
  return Polynomial.of(interpret(u, _variable))


def compare(lhs: UOp, rhs: UOp) -> int:
  """1: ``rhs`` is below ``lhs`` for every value of the variables; 0: not above it; -1: neither is shown."""
  p, q = polynomial(lhs), polynomial(rhs)
  return 1 if above(p, q) else 0 if at_least(p, q) else -1


class Interpretation(NamedTuple):
  """The interpretation as a stage of the measure: the rules it lowers (``removes``), those it raises on some instance
  (``drops``: no later component can orient them), and it keeps every other rule left."""
  removes: tuple[str, ...]
  drops: tuple[str, ...] = ()

  def lines(self) -> list[str]:
    return ["interpretation (polynomials over values >= 1; lowered: l - r - 1 has no negative coefficient, in x - 1 for each x):",
            *DEFINITION]


def find_interpretation(rules: dict[str, list[tuple[UOp, UOp]]], drops: bool = False) -> Interpretation | None:
  """The stage, if the interpretation keeps every rule's value on each of its instances (lhs, rhs) and lowers some's;
  with ``drops``, a rule it raises is dropped instead (as a weight stage may drop one)."""
  removes, raised = [], []
  for name, instances in rules.items():
    outcomes = [compare(lhs, rhs) for lhs, rhs in instances]
    if -1 in outcomes: raised.append(name)
    elif all(o == 1 for o in outcomes): removes.append(name)
  if not removes or (raised and not drops): return None
  return Interpretation(tuple(removes), tuple(raised))
