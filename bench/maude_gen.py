"""One program, two engines: the term language of ``bench/maude.py`` and what it generates.

A term is written once, as data, and everything each engine reads is generated from it:
its ``.uir`` text (uopc parses it, as a user's program is), its Maude term, and, for
rules, a ``PatternMatcher`` and a Maude module. Nothing is written twice by hand, so
both engines explore the same rewrite system from the same program.

Terms: ``("add", a, b)`` and ``("mul", a, b)`` (i32), ``("p", slot)`` a PARAM, an ``int``
a constant (0 or more: Maude's constants are ``c(N)`` with ``N : Nat``), and, in rules
only, a ``str`` for a pattern variable. Every walk is iterative (100,000-node programs).

>>> print(maude_term(("add", ("p", 0), 0)))
add(p(0), c(0))
>>> print(uir_text(("add", ("p", 0), 0)), end="")
%0 = param : slot=0 dtype=i32
%1 = add %0, 0
"""
from __future__ import annotations

from typing import Any, Callable, Iterator, Union

from uopc import Ops, PatternMatcher, UOp, UPat

Term = Union[tuple, int, str]
BINARY = {"add": Ops.ADD, "mul": Ops.MUL}

# The rewrite rules of the bench, as data: name -> (left side, right side)
RULES: dict[str, tuple[Term, Term]] = {
  "add0": (("add", "x", 0), "x"),                                     # x + 0 -> x
  "comm": (("add", "a", "b"), ("add", "b", "a")),                     # a + b -> b + a
  "push0": (("mul", ("add", "x", 0), "y"), ("add", ("mul", "x", "y"), 0)),   # (x + 0) * y -> (x * y) + 0
  "pushadd": (("add", ("add", "x", 0), "y"), ("add", ("add", "x", "y"), 0)),   # (x + 0) + y -> (x + y) + 0
  "push3": (("add", ("add", ("add", "x", 0), "y"), "z"), ("add", ("add", ("add", "x", "y"), "z"), 0)),   # three levels deep
  "assoc": (("add", ("add", "a", "b"), "c"), ("add", "a", ("add", "b", "c"))),   # (a + b) + c -> a + (b + c)
  "bubble": (("add", ("add", "a", "b"), "c"), ("add", ("add", "a", "c"), "b")),   # (a + b) + c -> (a + c) + b
  "distl": (("mul", "x", ("add", "y", "z")), ("add", ("mul", "x", "y"), ("mul", "x", "z"))),   # x * (y + z) -> x * y + x * z
  "distr": (("mul", ("add", "y", "z"), "x"), ("add", ("mul", "y", "x"), ("mul", "z", "x"))),   # (y + z) * x -> y * x + z * x
}


def postorder(t: Term) -> Iterator[Term]:
  """Every node of ``t``, sources before users (a node met twice is yielded twice: terms are trees)."""
  stack: list[tuple[Term, bool]] = [(t, False)]
  while stack:
    node, ready = stack.pop()
    if ready or not isinstance(node, tuple) or node[0] == "p": yield node; continue
    stack.append((node, True))
    stack.extend((s, False) for s in reversed(node[1:]))


def _fold(t: Term, leaf: Callable[[Term], Any], node: Callable[[str, list], Any]) -> Any:
  """``t`` evaluated bottom-up: ``leaf`` on leaves, ``node(op, source values)`` on the rest."""
  out: list[Any] = []
  for n in postorder(t):
    if isinstance(n, tuple) and n[0] in BINARY:
      args = out[-2:]
      del out[-2:]
      out.append(node(n[0], args))
    else: out.append(leaf(n))
  return out[0]


def size(t: Term) -> int:
  """Nodes of ``t`` as a tree."""
  return sum(1 for _ in postorder(t))


def maude_term(t: Term) -> str:
  """``t`` in the Maude module's syntax: ``add(p(0), c(0))``; a pattern variable ``x`` is ``X``."""
  def leaf(n: Term) -> str:
    if isinstance(n, str): return n.upper()
    if isinstance(n, int): return f"c({n})"
    return f"p({n[1]})"
  return _fold(t, leaf, lambda op, a: f"{op}({a[0]}, {a[1]})")


def uir_text(t: Term) -> str:
  """``t`` as a ``.uir`` program: one line a PARAM or binary node, constants inline."""
  lines: list[str] = []
  def leaf(n: Term) -> str:
    if isinstance(n, int): return str(n)
    assert isinstance(n, tuple), f"a program has no pattern variables: {n!r}"
    lines.append(f"%{len(lines)} = param : slot={n[1]} dtype=i32")
    return f"%{len(lines) - 1}"
  def node(op: str, a: list[str]) -> str:
    lines.append(f"%{len(lines)} = {op} {a[0]}, {a[1]}")
    return f"%{len(lines) - 1}"
  _fold(t, leaf, node)
  return "".join(line + "\n" for line in lines)


def maude_module(rules: list[str], name: str = "BENCH") -> str:
  """A Maude system module with the bench's constructors and ``rules`` (rules, not equations: each is one step)."""
  variables = sorted({n.upper() for r in rules for side in RULES[r] for n in postorder(side) if isinstance(n, str)})
  lines = [f"mod {name} is", "  protecting NAT .", "  sort E .",
           "  op p : Nat -> E [ctor] .", "  op c : Nat -> E [ctor] .",
           *(f"  op {op} : E E -> E [ctor] ." for op in BINARY)]
  if variables: lines.append(f"  var{'s' if len(variables) > 1 else ''} {' '.join(variables)} : E .")
  lines += [f"  rl [{r}] : {maude_term(RULES[r][0])} => {maude_term(RULES[r][1])} ." for r in rules]
  return "\n".join(lines + ["endm"]) + "\n"


def upat(t: Term) -> UPat:
  """The pattern of a rule's left side (sources in order)."""
  def leaf(n: Term) -> UPat:
    if isinstance(n, str): return UPat.var(n)
    if isinstance(n, int): return UPat(Ops.CONST, arg=n)
    raise ValueError(f"a rule pattern has no PARAM: {n!r}")
  return _fold(t, leaf, lambda op, a: UPat(BINARY[op], src=tuple(a)))


def build(t: Term, env: dict[str, UOp]) -> UOp:
  """A rule's right side, with its variables bound by ``env``."""
  def leaf(n: Term) -> Any:
    if isinstance(n, str): return env[n]
    if isinstance(n, int): return n
    return UOp.param(n[1])
  return _fold(t, leaf, lambda op, a: a[0] + a[1] if op == "add" else a[0] * a[1])


def rule_function(lhs: Term, rhs: Term) -> Callable[..., UOp]:
  """The rule's function, ``lambda x, y: (x * y) + 0``: a plain function of the left side's variables that only combines
  them with operators, as a hand-written rule would be, so the explorer's core applies it as a template
  (``uopc/relational/native/templates.py``), as Maude applies its rules, with no Python call per match.

  >>> p0, p1 = UOp.param(0), UOp.param(1)
  >>> rule_function(RULES["push0"][0], RULES["push0"][1])(x=p0, y=p1) is build(RULES["push0"][1], {"x": p0, "y": p1})
  True
  """
  names = sorted({n for n in postorder(lhs) if isinstance(n, str)})
  def leaf(n: Term) -> str:
    assert isinstance(n, (str, int)), f"a rule's right side has no PARAM: {n!r}"
    return str(n)
  body = _fold(rhs, leaf, lambda op, a: f"({a[0]} {'+' if op == 'add' else '*'} {a[1]})")
  fn: Callable[..., UOp] = eval(f"lambda {', '.join(names)}: {body}")   # a plain function: no closure, no globals
  return fn


def matcher(rules: list[str], patterns: dict[str, UPat] | None = None) -> PatternMatcher:
  """The ``PatternMatcher`` of ``rules`` (a new object each call, so no stepper memo carries over). ``patterns``: the
  rules' ``UPat``s by name, made once and kept there, so their compiled matchers (``uopc.upat_compile``) are too.

  >>> kept = {}
  >>> matcher(["add0"], kept) is not matcher(["add0"], kept), matcher(["add0"], kept).rules[0][0] is kept["add0"]
  (True, True)
  """
  def pattern(r: str) -> UPat: return upat(RULES[r][0]) if patterns is None else patterns.setdefault(r, upat(RULES[r][0]))
  return PatternMatcher([(pattern(r), rule_function(*RULES[r])) for r in rules])
