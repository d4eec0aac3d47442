"""The smallest program (and, asked, the smallest rule subset) that still shows a finding: delta debugging.

A *finding* (``Finding``) is a question about a program under a rule set that says yes or no: does the IR's own engine
(``canonical``, or its ``bottom_up`` variant) raise an exception of this type, loop, or give a result other than the other
engine's; does some step of the explorer (every order) raise, reach two normal forms, or two that differ in value.
``minimize`` shrinks the program while the answer stays yes, greedily, the smallest candidate first: a node replaced by
one of its sources, by a fresh variable (the IR's ``variable_like``: of the node's dtype and, where the IR bounds
variables, its bounds) or by the constant 0 or 1; a constant shrunk toward 0, 1 and small values (never a divisor to 0:
a division by zero is a finding of its own, which would replace the one minimized). Then (``rules=True``) it
drops rules by ``ddmin`` (Zeller's delta debugging: halves, then quarters, ... of the rule list), and shrinks the program
once more under the rules left. Every question is bounded (``Finding.max_states`` for the explorer's) and the whole
search by ``max_checks`` and the caller's ``Limits``: a stop keeps the smallest program found so far.

``regression_test`` prints the result as a test to paste into the rules' own project: a plain tinygrad test (the program
built with tinygrad's API, ``graph_rewrite(..., bottom_up=True)``) through the IR's ``regression_test``, else a pytest test
of uopc's API.

>>> from uopc import UOp, dtypes, symbolic
>>> prog = ((UOp.const(-0.0) + UOp.const(0.0)) * UOp.param(0, dtypes.f32)) + UOp.param(1, dtypes.f32) * 1.0
>>> m = minimize(prog, symbolic, Finding("order", engine="explore"))
>>> m.size_before, m.size, show(m.program)
(9, 3, 'add(-0.0, 0.0)')
"""
from __future__ import annotations

import itertools
import re
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator, Literal

from uopc.bounded import StopReason
from uopc.limits import NO_LIMITS, Limits
from uopc.relational.ir import UOPC, ir_of, rules_for
from uopc.relational.ir.protocol import IR
from uopc.relational.analyses.verdicts import compare_results
from uopc.relational.space.cycles import terminal_cycles
from uopc.relational.space.explore import explore
from uopc.term import show

__all__ = ["Finding", "FindingError", "Minimized", "minimize", "program_size", "regression_test"]

Kind = Literal["raises", "loops", "order", "values"]
# ops whose second source divides: a zero is never put there, since a division by zero is a finding of its own (tinygrad's
# `a // 0` raises in every order), not the one being minimized
DIVISIONS = frozenset({"IDIV", "MOD", "FLOORDIV", "FLOORMOD", "FDIV", "TRUEDIV"})
VALUE_FORMS = 8   # normal forms whose values a "values" finding compares pairwise (a bound on the comparisons of one check)
LOOP_WORDS = ("infinite loop", "did not reach a fixed point")   # tinygrad's fixed_point_rewrite, uopc's canonical engine


class FindingError(ValueError):
  """A finding that cannot be asked of a program's IR (a ``bottom_up`` engine the IR does not have)."""


@dataclass(frozen=True)
class Finding:
  """What must still show. ``kind``: ``raises`` (an exception of type ``error``), ``loops`` (the engine never ends; the
  explorer: a terminal cycle), ``order`` (two results), ``values`` (two results of different values). ``engine``:
  ``canonical`` (the IR's own rewrite), ``bottom_up`` (its ``graph_rewrite(bottom_up=True)`` variant; for ``order``, set
  against the canonical one) or ``explore`` (every order, by the explorer, bounded by ``max_states``). ``rule`` (a name
  or ``file:line``): for ``raises``, also a stuck step of that rule in the explorer's space."""
  kind: Kind
  engine: Literal["canonical", "bottom_up", "explore"] = "bottom_up"
  error: str | None = None
  rule: str | None = None
  max_states: int = 2_000

  def describe(self) -> str:
    how = {"canonical": "the engine", "bottom_up": "the engine bottom up", "explore": "some rewrite order"}[self.engine]
    what = {"raises": f"raises {self.error or 'an exception'}" + (f" in {self.rule}" if self.rule else ""), "loops": "never ends",
            "order": "gives another result" if self.engine != "explore" else "reaches two normal forms",
            "values": "gives a result of another value"}[self.kind]
    return f"{how} {what}"

  def shows(self, prog: Any, pm: Any) -> bool:
    """Does the finding show on ``prog`` under rule set ``pm``?"""
    ir = ir_of(prog)
    if self.engine != "explore":
      result, error = _engine(ir, prog, pm, self.engine)
      if self.kind == "raises":
        if error is None or any(w in error for w in LOOP_WORDS) or not _names_error(error, self.error): return False
        return self.rule is None or self._stuck(prog, pm)
      if self.kind == "loops": return error is not None and any(w in error for w in LOOP_WORDS)
      other, other_error = _engine(ir, prog, pm, "canonical" if self.engine == "bottom_up" else "bottom_up")
      if result is None or other is None or result is other: return False
      return self.kind == "order" or compare_results(ir, result, other, prog)[0] == "semantic"
    ex = explore(prog, pm, max_states=self.max_states)
    if self.kind == "raises": return self._stuck(prog, pm, ex)
    if self.kind == "loops": return bool(terminal_cycles(ex))
    if self.kind == "order": return len(ex.normal_forms) > 1
    forms = ex.normal_forms[:VALUE_FORMS]
    return any(compare_results(ir, a.graph, b.graph, prog)[0] == "semantic" for a, b in itertools.combinations(forms, 2))

  def _stuck(self, prog: Any, pm: Any, ex: Any = None) -> bool:
    if ex is None: ex = explore(prog, pm, max_states=self.max_states)
    return any((self.rule is None or self.rule in (s.rule, s.rule_location)) and _names_error(s.error or "", self.error) for s in ex.stuck)


def _names_error(text: str, error: str | None) -> bool:
  """Does an error's text (``ZeroDivisionError: ...``, ``tinygrad's graph_rewrite raised ZeroDivisionError: ...``) name
  exception type ``error`` (any, for None)?"""
  return error is None or re.search(rf"(^|\s){re.escape(error)}:", text) is not None


def _engine(ir: IR, prog: Any, pm: Any, engine: str) -> tuple[Any, str | None]:
  if engine == "canonical": return ir.canonical(prog, pm, max_steps=10_000 + 20 * program_size(prog))
  for label, result, error in ir.canonical_variants(prog, pm):
    if "bottom_up" in label: return result, error
  raise FindingError(f"{ir.name}'s engine has no bottom_up variant: use engine='canonical' or 'explore'")


def _is_leaf(ir: IR, u: Any) -> bool: return isinstance(ir.parts(u), str)


def _nodes(ir: IR, prog: Any) -> list[Any]:
  """The program's nodes, each once, sources before users; a leaf (a constant, a variable) is one node."""
  out: list[Any] = []
  seen: set[Any] = set()
  todo: list[tuple[Any, bool]] = [(prog, False)]
  while todo:
    u, done = todo.pop()
    if done:
      out.append(u)
      continue
    if u in seen: continue
    seen.add(u)
    todo.append((u, True))
    if not _is_leaf(ir, u): todo.extend((s, False) for s in reversed(u.src) if s not in seen)
  return out


def program_size(prog: Any) -> int:
  """The program's nodes as its term prints them: each distinct node once, a variable or constant one node.

  >>> from uopc import UOp
  >>> p0 = UOp.param(0)
  >>> program_size((p0 + 1) * (p0 + 1))
  4
  """
  return len(_nodes(ir_of(prog), prog))


def _replace(ir: IR, prog: Any, old: Any, new: Any) -> Any | None:
  """``prog`` with node ``old`` replaced by ``new`` (every user rebuilt by the IR's ``make``), or None where a rebuilt node
  does not type-check."""
  made: dict[Any, Any] = {old: new}
  for u in _nodes(ir, prog):
    if u in made: continue
    if _is_leaf(ir, u):
      made[u] = u
      continue
    src = tuple(made[s] for s in u.src)
    try: made[u] = u if all(a is b for a, b in zip(src, u.src)) else ir.make(u.op, src, u.arg, u.dtype)
    except Exception: return None   # the IR's build_error, or its constructor refusing the sources
  return made[prog]


def _const_value(ir: IR, u: Any) -> tuple[bool, Any]:
  """``(True, value)`` for a constant (the node the IR's ``const_like`` makes of its own arg), else ``(False, None)``."""
  if not _is_leaf(ir, u): return False, None
  return (ir.const_like(u, u.arg) is u, u.arg)


def _smaller_constants(v: Any) -> list[Any]:
  """Constants to try in place of ``v``: 0, 1, -1, 2 and halves, each simpler than ``v`` (smaller magnitude, or as small and not negative)."""
  if isinstance(v, bool) or not isinstance(v, (int, float)): return [False] if v is True else []
  # steps of 1, 2, 4, ... toward 0: a walk of log(v) checks, not v
  toward = [v - d if v > 0 else v + d for d in (1 << k for k in range(min(int(abs(v)), 1 << 62).bit_length()))]
  tries = [0, 1, -1, 2, v // 2 if isinstance(v, int) else v / 2, *toward, -v]
  if isinstance(v, float): tries = [float(t) for t in tries]
  def key(t: Any) -> tuple: return (abs(t), t < 0 or (t == 0 and str(t).startswith("-")))
  return [t for t in dict.fromkeys(tries) if key(t) < key(v)]


def _candidates(ir: IR, prog: Any) -> Iterator[tuple[str, Any]]:
  """``(what, smaller program)``: every one-step shrink of ``prog`` (see the module doc)."""
  nodes = _nodes(ir, prog)
  taken = {p for u in nodes if isinstance(p := ir.parts(u), str)}
  divisors = {u.src[1] for u in nodes if len(u.src) == 2 and getattr(u.op, "name", "") in DIVISIONS}
  for u in reversed(nodes):   # the root first
    is_const, value = _const_value(ir, u)
    if is_const:
      for c in _smaller_constants(value):
        if c == 0 and u in divisors: continue
        if (k := ir.const_like(u, c)) is not None: yield f"constant {value!r} -> {c!r}", _replace(ir, prog, u, k)
      continue
    if not _is_leaf(ir, u):
      for s in dict.fromkeys(u.src): yield f"{show(u)} -> its source {show(s)}", _replace(ir, prog, u, s)
      if (v := ir.variable_like(u, taken)) is not None: yield f"{show(u)} -> a variable", _replace(ir, prog, u, v)
    for c in (1,) if u in divisors else (0, 1):
      if (k := ir.const_like(u, c)) is not None and k is not u: yield f"{show(u)} -> {c}", _replace(ir, prog, u, k)


def _rank(ir: IR, prog: Any) -> tuple[int, int]:
  """Smaller is simpler: node count, then the sum of the constants' magnitudes (capped), then the term's length."""
  consts = sum(min(abs(v), 1 << 20) for u in _nodes(ir, prog) if (c := _const_value(ir, u))[0] and isinstance(v := c[1], (int, float)))
  return (program_size(prog), int(consts) * 1000 + len(show(prog)))


@dataclass
class Minimized:
  """What ``minimize`` found: ``program`` (the smallest that still shows ``finding``), ``pm`` (the rule set it shows under:
  ``subset``'s rules, in order, or the one given), the sizes before and after, the checks asked and their time, the
  shrinks taken (``steps``), and the bound that stopped the search (None: no one-step shrink shows the finding)."""
  finding: Finding
  original: Any
  program: Any
  pm: Any
  subset: tuple[int, ...] | None
  rules_before: int
  size_before: int
  size: int
  checks: int = 0
  elapsed: float = 0.0
  steps: list[str] = field(default_factory=list)
  stopped: StopReason | Literal["max_checks"] | None = None

  def text(self) -> str:
    """``minimized 7 -> 5 nodes, 118 -> 1 rules, 23 checks, 0.4 s: floordiv(add(x0, 0), 5)``."""
    rules = "" if self.subset is None else f", {self.rules_before} -> {len(self.subset)} rules"
    stop = "" if self.stopped is None else f" (stopped by {self.stopped}: smaller ones may show it too)"
    return f"minimized {self.size_before} -> {self.size} nodes{rules}, {self.checks} checks, {self.elapsed:.2f} s{stop}: {show(self.program)}"


class _Search:
  """The checks of one minimization, memoized, counted and bounded."""

  def __init__(self, finding: Finding, max_checks: int, limits: Limits) -> None:
    self.finding, self.max_checks, self.limits = finding, max_checks, limits
    self.checks = 0
    self.stopped: StopReason | Literal["max_checks"] | None = None
    self.memo: dict[tuple, bool] = {}

  def shows(self, prog: Any, pm: Any, key: Any) -> bool:
    if (prog, key) in self.memo: return self.memo[(prog, key)]
    if self.stopped is not None: return False
    if (why := self.limits.should_stop()) is not None or self.checks >= self.max_checks:
      self.stopped = why or "max_checks"
      return False
    self.checks += 1
    try: found = self.finding.shows(prog, pm)
    except FindingError: raise   # a finding that cannot be asked of this IR: the caller's mistake
    except Exception: found = False   # a candidate the IR cannot run at all (its evaluation raised) does not show the finding
    self.memo[(prog, key)] = found
    return found


def _shrink_program(ir: IR, prog: Any, pm: Any, key: Any, search: _Search, steps: list[str]) -> Any:
  """Greedy: the simplest one-step shrink that still shows the finding, until none does."""
  while search.stopped is None:
    here = _rank(ir, prog)
    found = sorted(((_rank(ir, p), what, p) for what, p in _candidates(ir, prog) if p is not None and p is not prog),
                   key=lambda t: t[0])
    for rank, what, p in found:
      if rank >= here: return prog   # sorted: no simpler candidate is left
      if search.shows(p, pm, key):
        steps.append(what)
        prog = p
        break
    else: return prog
  return prog


def _ddmin(items: list[int], test: Callable[[list[int]], bool]) -> list[int]:
  """Zeller's ddmin: a 1-minimal sublist of ``items`` (kept in order) for which ``test`` holds (it holds for ``items``)."""
  n = 2
  while len(items) >= 2:
    chunk = -(-len(items) // n)
    parts = [items[i:i + chunk] for i in range(0, len(items), chunk)]
    for k in range(len(parts)):
      if test(parts[k]):
        items, n = parts[k], 2
        break
      rest = [x for j, p in enumerate(parts) if j != k for x in p]
      if len(parts) > 2 and test(rest):
        items, n = rest, max(n - 1, 2)
        break
    else:
      if n >= len(items): break
      n = min(len(items), 2 * n)
  return items


def minimize(prog: Any, pm: Any, finding: Finding, *, rules: bool = False, max_checks: int = 2_000, limits: Limits = NO_LIMITS) -> Minimized:
  """The smallest program (with ``rules``, and rule subset) that still shows ``finding`` (module doc). A ValueError if
  the finding does not show on ``prog`` under ``pm`` to begin with."""
  started = time.perf_counter()
  ir = ir_of(prog)
  adapted = rules_for(prog, pm, "minimize: pm")
  count = len(adapted.rules)
  if not finding.shows(prog, pm): raise ValueError(f"the finding ({finding.describe()}) does not show on {show(prog)}")
  search = _Search(finding, max_checks, limits)
  steps: list[str] = []
  small = _shrink_program(ir, prog, pm, None, search, steps)
  subset: tuple[int, ...] | None = None
  sub_pm = pm
  if rules:
    def keeps(ks: list[int]) -> bool: return search.shows(small, ir.reordered(adapted, tuple(ks)), tuple(ks))
    subset = tuple(_ddmin(list(range(count)), keeps))
    sub_pm = ir.reordered(adapted, subset)
    if len(subset) < count: steps.append(f"{count} -> {len(subset)} rules")
    small = _shrink_program(ir, small, sub_pm, subset, search, steps)
  return Minimized(finding, prog, small, sub_pm, subset, count, program_size(prog), program_size(small), search.checks,
                   time.perf_counter() - started, steps, search.stopped)


def _test_name(m: Minimized) -> str:
  words = f"{m.finding.kind} {m.finding.error or ''} {m.finding.engine}".lower()
  return "test_" + "_".join(re.findall(r"[a-z0-9]+", words))


def regression_test(m: Minimized, rules: str, name: str | None = None) -> str:
  """``m`` as a ready-to-paste test (module doc): the IR's own where it writes one (tinygrad: a plain ``graph_rewrite``
  test), else a pytest test of uopc's API (a ``.uir`` program for uopc's own nodes). ``rules``: the ``--rules`` spec of
  the rule set ``m`` was minimized under. The test fails while the finding shows."""
  ir = ir_of(m.program)
  name = name or _test_name(m)
  if (text := ir.regression_test(m.program, rules, m.subset, m.finding, name)) is not None: return text
  if ir is not UOPC: raise ValueError(f"{ir.name} writes no regression test for: {m.finding.describe()}")
  return _uopc_test(m, rules, name)


UOPC_CHECKS = {   # (engine, kind) -> the test's import and its last line: what holds once the finding is fixed
  ("canonical", "raises"): ("from uopc.rewrite import graph_rewrite", "graph_rewrite(prog, pm)"),
  ("canonical", "loops"): ("from uopc.rewrite import graph_rewrite", "graph_rewrite(prog, pm)"),
  ("explore", "raises"): ("from uopc.relational import explore", "assert not explore(prog, pm).stuck"),
  ("explore", "loops"): ("from uopc.relational import explore\nfrom uopc.relational.space.cycles import terminal_cycles",
                         "assert not terminal_cycles(explore(prog, pm))"),
  ("explore", "order"): ("from uopc.relational import explore", "assert len(explore(prog, pm).normal_forms) == 1"),
  ("explore", "values"): ("from uopc.relational import diagnose_order",
                          "assert all(f.kind != 'semantic' for f in diagnose_order(prog, pm).forks)"),
}


def _uopc_test(m: Minimized, rules: str, name: str) -> str:
  from uopc.uir import to_uir
  f = m.finding
  if (check := UOPC_CHECKS.get((f.engine, f.kind))) is None: raise ValueError(f"no uopc test for: {f.describe()}")
  header = [f'"""Found by uopc ({f.describe()}), minimized from {m.size_before} to {m.size} nodes."""',
            "from uopc.relational.ir.registry import resolve_rules", "from uopc.uir import parse_uir", check[0], "", "", f"def {name}():"]
  quotes = "\'" * 3
  body = [f"  prog = parse_uir({quotes}\\\n{to_uir(m.program)}{quotes})", f"  pm = resolve_rules({rules!r})"]
  if m.subset is not None: body.append(f"  pm = type(pm)([pm.rules[k] for k in {m.subset!r}])")
  body.append(f"  {check[1]}")
  return "\n".join(header + body) + "\n"
