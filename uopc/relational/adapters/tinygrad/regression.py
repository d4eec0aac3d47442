"""A minimized finding as a plain tinygrad test: the program built with tinygrad's API, its own ``graph_rewrite``.

The program is written with tinygrad's operators where they rebuild exactly the node found (``v*2 + 0``), else with
``UOp(Ops..., dtype, src, arg)``; the code is run here and must give the very node (hash-consed: ``is``), so a test
never shows another program than the one minimized. The test fails while the finding shows: it calls the engine the
finding names and asserts what a fixed tinygrad would do (no exception, the same result both ways); it is run here
too, and only a test that fails as the finding says is given.

>>> from tinygrad.uop.ops import UOp
>>> v = UOp.variable("v", 0, 10)
>>> print(program_source((v * 2 + 0) // 5)[0])
v = UOp.variable('v', 0, 10)
prog = (v * 2 + 0) // 5
"""
from __future__ import annotations

import math
from typing import Any

from tinygrad.dtype import dtypes
from tinygrad.uop.ops import Ops, UOp

OPERATORS = {Ops.ADD: ("+", 1), Ops.MUL: ("*", 2), Ops.FLOORDIV: ("//", 2), Ops.FLOORMOD: ("%", 2)}   # symbol, precedence


def _literal(v: Any) -> str:
  if isinstance(v, float) and not math.isfinite(v): return f"float('{v}')"
  return repr(v)


def _is_variable(u: UOp) -> bool:
  """A ``UOp.variable`` (as the adapter's ``node_parts`` reads one: a named buffer, param or var)."""
  return u.op.name in ("BUFFER", "PARAM", "DEFINE_VAR") and isinstance(getattr(u.arg, "name", None), str)


def _render(prog: UOp, pretty: bool) -> tuple[list[str], str]:
  """The lines binding the variables and shared nodes, and the root's expression."""
  users: dict[UOp, int] = {}
  for u in prog.toposort():
    if not _is_variable(u):
      for s in u.src: users[s] = users.get(s, 0) + 1
  names: dict[UOp, str] = {}
  lines: list[str] = []

  def expr(u: UOp, outer: int = 0) -> str:   # outer: the precedence of the operator around u (0: none)
    if u in names: return names[u]
    if _is_variable(u):
      lo, hi = u.arg.vmin_vmax
      dt = "" if u.dtype == dtypes.weakint else f", {u.dtype!r}"
      names[u] = str(u.arg.name)
      lines.append(f"{u.arg.name} = UOp.variable({u.arg.name!r}, {_literal(lo)}, {_literal(hi)}{dt})")
      return names[u]
    if u.op is Ops.CONST:
      return _literal(u.arg) if pretty and outer else f"UOp.const({_literal(u.arg)}, {u.dtype!r})"
    if users.get(u, 0) > 1 and u is not prog:   # a shared node: bound to a name once, written whole there
      names[u] = f"n{sum(n.startswith('n') and n[1:].isdigit() for n in names.values())}"
      lines.append(f"{names[u]} = {body(u, 0)}")
      return names[u]
    return body(u, outer)

  def body(u: UOp, outer: int) -> str:
    if pretty and u.op in OPERATORS and all(s.dtype == u.dtype for s in u.src):
      sym, prec = OPERATORS[u.op]
      first = expr(u.src[0]) if u.src[0].op is Ops.CONST else expr(u.src[0], prec)   # a literal first would not be a UOp
      text = f"{first} {sym} {expr(u.src[1], prec + 1)}"
      text = f"({text})" if outer > prec else text
    else:
      arg = "" if u.arg is None else f", {u.arg!r}"
      src = ", ".join(expr(s) for s in u.src) + ("," if len(u.src) == 1 else "")
      text = f"UOp({u.op!r}, {u.dtype!r}, ({src}){arg})"
    return text
  root = expr(prog)
  return lines, root


def program_source(prog: UOp) -> tuple[str, bool]:
  """Python lines that build ``prog`` as ``prog = ...``, and whether they were checked to build exactly it."""
  for pretty in (True, False):
    lines, root = _render(prog, pretty)
    code = "\n".join([*lines, f"prog = {root}"])
    env: dict[str, Any] = {"UOp": UOp, "Ops": Ops, "dtypes": dtypes}
    try: exec(code, env)   # the code we wrote, over tinygrad's API only
    except Exception: continue
    if env["prog"] is prog: return code, True
  return code, False


def rules_source(rules: str, subset: tuple[int, ...] | None) -> tuple[list[str], str]:
  """The imports and the expression of the rule set a ``--rules`` spec names (``tinygrad:symbolic``, ``module:attr``,
  ``a+b``), narrowed to ``subset``."""
  imports, exprs = [], []
  for part in rules.split("+"):
    prefix, _, attr = part.strip().rpartition(":")
    module = "tinygrad.uop.symbolic" if prefix == "tinygrad" else prefix
    imports.append(f"from {module} import {attr}")
    exprs.append(attr)
  expr = " + ".join(exprs)
  if subset is None: return imports, expr
  if len(exprs) > 1: expr = f"({expr})"
  return imports, f"PatternMatcher([{expr}.patterns[k] for k in {subset!r}])"


def _rule_alone(named: list[tuple[str, str]], subset: tuple[int, ...] | None, rule: str) -> tuple[int, ...] | None:
  """The index of the rule named ``rule`` (its name or file:line; ``named``: each rule's of the set, in order), among
  ``subset``'s where given."""
  indices = subset if subset is not None else tuple(range(len(named)))
  found = [k for k in indices if rule in named[k]]
  return (found[0],) if found else None


def _fails_as_found(source: str, finding: Any) -> bool:
  """Does the test fail as the finding says (the exception type it names; a loop's RuntimeError; an assertion)?"""
  env: dict[str, Any] = {}
  try:
    exec(compile(source, "<regression test>", "exec"), env)   # the test we wrote: tinygrad's API and the rule set's module
    next(v for k, v in env.items() if k.startswith("test_"))()
  except Exception as e:
    if finding.kind == "raises": return finding.error is None or type(e).__name__ == finding.error
    if finding.kind == "loops": return isinstance(e, RuntimeError) and "infinite loop" in str(e)
    return isinstance(e, AssertionError)
  return False


def regression_test(prog: UOp, rules: str, subset: tuple[int, ...] | None, finding: Any, name: str,
                    named: list[tuple[str, str]]) -> str | None:
  """The test (module doc), run here: None unless it fails as the finding says. A rule that raises in some order of the
  explorer's (``engine="explore"``) is tested alone, bottom up (it is tried on every node); another finding of the
  explorer's is not reproduced by tinygrad's engine alone: None. ``named``: each rule's (name, file:line), in order."""
  code, exact = program_source(prog)
  if not exact: return None
  engine = finding.engine
  if engine == "explore":
    if finding.kind != "raises" or finding.rule is None or (subset := _rule_alone(named, subset, finding.rule)) is None:
      return None
    engine = "bottom_up"
  imports, pm = rules_source(rules, subset)
  up = ", bottom_up=True" if engine == "bottom_up" else ""
  other = "" if engine == "bottom_up" else ", bottom_up=True"
  if finding.kind in ("raises", "loops"):
    now = f"raises {finding.error or 'an exception'}" if finding.kind == "raises" else "never ends (RuntimeError: infinite loop)"
    check = [f"graph_rewrite(prog, pm{up})   # tinygrad 0.14: {now}"]
  else:
    check = [f"assert graph_rewrite(prog, pm{up}) is graph_rewrite(prog, pm{other})   # tinygrad 0.14: two results"]
  lines = [f'"""Found by uopc: {finding.describe()}."""', "from tinygrad.dtype import dtypes",
           "from tinygrad.uop.ops import Ops, PatternMatcher, UOp, graph_rewrite", *imports, "", "",
           f"def {name}():", *(f"  {line}" for line in code.splitlines()), f"  pm = {pm}", *(f"  {c}" for c in check)]
  source = "\n".join(lines) + "\n"
  return source if _fails_as_found(source, finding) else None
