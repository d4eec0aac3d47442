"""Each class of value bug uopc's verdicts find in tinygrad 0.14's rules, with tinygrad alone.

  python explore/tinygrad_value_bugs.py

For each: a witness built with tinygrad's own ``UOp`` API, one rule of ``tinygrad.uop.symbolic`` (found by the
``file:line`` of its ``UPat``) applied to it alone by tinygrad's ``PatternMatcher.rewrite``, and the values of the
witness and of the rewritten node at one input, computed by tinygrad's ``exec_alu`` (its Python ALU) node by node.
A rule is sound where the two are the same; each case here is an input within the variables' bounds where they are not
(docs/tinygrad.md, section 6; the pairs of docs/tinygrad-pairs.md whose verdict is ``semantic``).
"""
from __future__ import annotations

import os
from typing import Any

from tinygrad.dtype import dtypes
from tinygrad.uop.ops import Ops, PatternMatcher, UOp, exec_alu
from tinygrad.uop.symbolic import sym


def run(u: UOp, **binding: Any) -> Any:
  """``u``'s value by tinygrad's ``exec_alu``, its variables bound by name (a ``CAST`` as constant folding converts it)."""
  vals: dict[UOp, Any] = {}
  for n in u.toposort():
    if n.op is Ops.CONST: vals[n] = n.arg
    elif n.op is Ops.BUFFER: vals[n] = binding[n.arg.name]
    elif n.op is Ops.CAST: vals[n] = n.dtype.const(vals[n.src[0]])
    elif n.op is not Ops.STACK: vals[n] = exec_alu(n.op, n.dtype, [vals[s] for s in n.src])
  return vals[u]


def rule(where: str) -> PatternMatcher:
  """The rule of ``sym`` (which holds ``symbolic`` and ``symbolic_simple``) whose ``UPat`` is at ``where``, alone."""
  hits = [(p, f) for p, f in sym.patterns if f"{os.path.basename(p.location[0])}:{p.location[1]}" == where]
  assert hits, where
  return PatternMatcher(hits)


def case(title: str, where: str, w: UOp, **binding: Any) -> tuple[Any, Any]:
  """Print the rule's rewrite of ``w`` and both values at ``binding``; return them."""
  r = rule(where).rewrite(w)
  assert r is not None, f"{where} does not apply to {w}"
  at = "at " + ", ".join(f"{k}={v!r}" for k, v in binding.items()) if binding else "closed"
  vw, vr = run(w, **binding), run(r, **binding)
  shown = [repr(float(v)) if isinstance(v, float) else repr(v) for v in (vw, vr)]   # a ConstFloat as the float it is
  print(f"{title} ({where}):\n  {w.render(simplify=False)} -> {r.render(simplify=False)}\n  {at}: {shown[0]} before, {shown[1]} after")
  return vw, vr


def main() -> list[tuple[Any, Any]]:
  """Every case's values before and after (each pair differs: tests/test_tinygrad_smt.py checks it)."""
  a = UOp.variable("a", 0, 10)
  f = UOp.variable("f", -5.0, 5.0, dtypes.float32)
  g = UOp.variable("g", -5.0, 5.0, dtypes.float32)
  a_div_0 = UOp(Ops.FLOORDIV, dtypes.weakint, (a, UOp.const(0)))   # built as a node: the // operator folds a divisor 0 away
  inf = UOp.const(1.0, dtypes.float32) * UOp.const(0.0, dtypes.float32).reciprocal()
  return [
    # a division by zero, which exec_alu defines (x // 0 is 0)
    case("x//x -> 1", "symbolic.py:114", a // a, a=0),
    case("(x//c+a)//d -> (x+a*c)//(c*d), for c = 0", "divandmod.py:101", UOp(Ops.FLOORDIV, dtypes.weakint, (a_div_0 + 1, UOp.const(1))), a=0),
    # float identities that do not hold at 0, inf or NaN
    case("x*(1/x) -> 1", "symbolic.py:160", f * f.reciprocal(), f=0.0),
    case("(x*x2)*(1/x2) -> x", "symbolic.py:161", (f * g) * g.reciprocal(), f=1.0, g=0.0),
    case("x*c0 + x*c1 -> x*(c0+c1), x infinite", "symbolic.py:233", inf * 0.0 + inf * 1.0),
    # identities of real numbers that floats do not keep (sym's reciprocal rules): the sign of an infinity, rounding
    case("1/(x*c) -> (1/x)*(1/c)", "symbolic.py:463", (a * -1).reciprocal(), a=0),
    case("x*(1/(1+x)) -> 1-1/(1+x)", "symbolic.py:464", f * (1 + f).reciprocal(), f=0.5),
    # the sign of a zero
    case("x+0 -> x", "symbolic.py:111", f + 0.0, f=-0.0),
    case("x*0 -> 0", "symbolic.py:165", f * 0.0, f=-1.0),
    case("(a<b).where(b, c) -> max(a, b) if a == c", "symbolic.py:261",
         (UOp.const(0.0, dtypes.float32) < f).where(f, UOp.const(-0.0, dtypes.float32)), f=-1.0),
  ]


if __name__ == "__main__":
  main()
