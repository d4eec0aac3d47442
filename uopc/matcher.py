"""PatternMatcher: an ordered list of rules, indexed by the op of each pattern's root.

A rule is a pair ``(pattern, function)``, or ``(pattern, function, "name")`` (``Rule``: every built-in rule
has a name of its own, unique in its rule set). When the pattern matches, the function gets
the bindings as keyword arguments and returns a replacement, or None for "does not
apply". Order is priority: the first rule that returns a new node wins.

>>> from uopc.uop import UOp
>>> from uopc.ops import Ops
>>> x = UPat.var("x")
>>> pm = PatternMatcher([(x + 0, lambda x: x), (x * 1, lambda x: x)])
>>> p0 = UOp.param(0)
>>> pm.rewrite(p0 + 0) is p0, pm.rewrite(p0 + 1)
(True, None)
>>> [len(pm.by_op.get(op, [])) for op in (Ops.ADD, Ops.MUL, Ops.CONST)]
[1, 1, 0]
"""
from __future__ import annotations

import os
import sys
from typing import Any, Callable

from uopc.footprint import FOOTPRINTS, footprint_of
from uopc.ops import Ops
from uopc.rule_check import RuleNameClash, RuleSignatureError, signature_problem
from uopc.upat import UPat
from uopc.upat import Bindings
from uopc.upat_compile import MatchFn, PlainFire, RuleFire, compile_match, compile_rule, interpreted_rule, plain_rule
from uopc.uop import UOp

RuleFn = Callable[..., "UOp | None"]


class Rule(tuple[UPat, RuleFn]):   # a pair, to the type checker too
  """One rule: the pair ``(pattern, function)``, with a name that stays put when the code moves.

  A rule set lists rules as ``(pattern, function, "name")``, egg's ``rw!("add-0"; ...)``: every built-in
  rule has a short name of its own (``add-0``, ``comm-const-right``, ``div-mod-recombine``), unique in its
  rule set (``PatternMatcher`` checks it). A user's rule may be a bare ``(pattern, function)``:
  ``PatternMatcher`` names it after the rule set and its index, ``demo#0 x + 0`` (the positional
  fallback: the number shifts when a rule is inserted before it). A rule keeps its name, and the
  rule set it was first listed in (``set_name``), in sums and reorderings of rule sets.
  Where the function is defined is ``location``, shown beside the name, not in it.

  >>> x = UPat.var("x")
  >>> pm = PatternMatcher([(x + 0, lambda x: x), (x * 1, lambda x: x, "mul-1")], name="demo")
  >>> [r.name for r in pm.rules]
  ['demo#0 x + 0', 'mul-1']
  >>> from uopc.symbolic import symbolic
  >>> symbolic.rules[2].name, symbolic.rules[2].set_name, symbolic.rules[2].location.startswith("symbolic.py:")
  ('add-0', 'symbolic', True)
  >>> pattern, fn = pm.rules[1]      # still a pair

  A function that cannot take the names its pattern binds as keyword arguments is a
  ``RuleSignatureError`` (a ``RuleError`` and a ``TypeError``) when the rule is made:

  >>> Rule(x + 0, lambda y: y, "typo")
  Traceback (most recent call last):
    ...
  uopc.rule_check.RuleSignatureError: rule typo (<doctest ...>:1): the pattern binds x, but its function takes (y) (a rule's function gets ...
  """
  name: str
  footprint: str   # what the function reads (uopc.footprint): "opaque" unless declared
  set_name: str    # the rule set it was first listed in ("" for a rule made on its own)

  def __new__(cls, pattern: UPat, fn: RuleFn, name: str, footprint: str = "opaque", set_name: str = "") -> Rule:
    rule = tuple.__new__(cls, (pattern, fn))
    rule.name, rule.set_name = name, set_name
    rule.footprint = footprint_of(fn, footprint)
    if (problem := signature_problem(pattern, fn)) is not None: raise RuleSignatureError(rule.signature_error(problem))
    return rule

  def signature_error(self, problem: str, raised: BaseException | None = None) -> str:
    """The message of a ``RuleSignatureError`` of this rule: ``problem`` (``signature_problem``'s), named, after
    the ``TypeError`` its call ``raised``, if it was called."""
    what = f" raised TypeError: {raised}:" if raised is not None else ":"
    return f"rule {self.describe()}{what} {problem} (a rule's function gets the pattern's names as keyword arguments)"

  def __getnewargs__(self) -> tuple: return (self[0], self[1], self.name, self.footprint, self.set_name)

  def describe(self) -> str:
    """The name and, beside it, where the function is: ``add-0 (symbolic.py:97)``."""
    return f"{self.name} ({self.location})"

  @property
  def location(self) -> str:
    """``file.py:line`` of the rule's function (its class, for a callable object)."""
    code = getattr(self[1], "__code__", None)
    return f"{os.path.basename(code.co_filename)}:{code.co_firstlineno}" if code is not None else type(self[1]).__name__


def rule_name(rule: tuple) -> str:
  """A rule's name: its own, for a ``Rule``; its pattern, for a bare ``(pattern, function)`` pair.

  >>> x = UPat.var("x")
  >>> rule_name((x + 0, lambda x: x)), rule_name(PatternMatcher([(x + 0, lambda x: x)], name="s").rules[0])
  ('x + 0', 's#0 x + 0')
  """
  return rule.name if isinstance(rule, Rule) else rule[0].pretty()


def short_name(name: str) -> str:
  """A rule name without its rule set and index: ``x + 0`` for the positional ``demo#2 x + 0``; a name of its own whole.

  >>> short_name("demo#2 x + 0"), short_name("mul-1")
  ('x + 0', 'mul-1')
  """
  return name.partition(" ")[2] if is_positional(name) else name


def is_positional(name: str) -> bool:
  """Whether a rule name is the positional fallback ``set#i pattern`` of an unnamed rule, not a name of its own.

  >>> is_positional("demo#2 x + 0"), is_positional("add-0")
  (True, False)
  """
  set_index, _, rest = name.partition(" ")
  return "#" in set_index and bool(rest)


def _as_rule(entry: tuple, set_name: str, index: int, footprint: str) -> Rule:
  if isinstance(entry, Rule): return entry
  if len(entry) == 3: return Rule(entry[0], entry[1], entry[2], footprint, set_name)
  pattern, fn = entry
  return Rule(pattern, fn, f"{set_name}#{index} {pattern.pretty()}", footprint, set_name)


def check_unique_names(rules: list[Rule], set_name: str) -> None:
  """Raise ``RuleNameClash`` if two of ``rules`` share a name: a report could not tell them apart.

  The same rule listed twice clashes too (a sum like ``symbolic+fold``, whose ``symbolic`` holds ``fold``'s rule):
  the explorer would take each step twice, and the second copy never fires first in the canonical engine.

  >>> x = UPat.var("x")
  >>> PatternMatcher([(x + 0, lambda x: x, "add-0"), (x * 1, lambda x: x, "add-0")], name="demo")
  Traceback (most recent call last):
    ...
  uopc.rule_check.RuleNameClash: rule set demo: two rules named add-0: add-0 (<doctest ...>:1) and add-0 (<doctest ...>:1)
  """
  seen: dict[str, Rule] = {}
  for rule in rules:
    if (first := seen.get(rule.name)) is None: seen[rule.name] = rule; continue
    same = " (the same rule, listed twice)" if first is rule else ""
    raise RuleNameClash(f"rule set {set_name}: two rules named {rule.name}: {first.describe()} and {rule.describe()}{same}")


def _set_label(rules: list[Rule]) -> str: return "+".join(dict.fromkeys(r.set_name for r in rules if r.set_name))


def _interpret(pat: UPat, u: UOp) -> list[Bindings]: return pat.match(u, {})


def compile_default() -> bool:
  """Whether new matchers compile their patterns: env ``UOPC_COMPILE`` (default on; ``0`` turns it off).

  >>> from unittest import mock
  >>> with mock.patch.dict(os.environ, {"UOPC_COMPILE": "0"}): compile_default()
  False
  """
  return os.environ.get("UOPC_COMPILE", "1").strip().lower() not in ("0", "false", "no", "off")


def may_match(pat: UPat, src_ops: tuple[Ops, ...] | None, n: int) -> bool:
  """Whether ``pat`` can match a node with ``n`` sources whose ops are ``src_ops`` (None: not known).

  The early rejection test: it looks at the pattern's sources, one level down.

  >>> x = UPat.var("x")
  >>> may_match(x + 0, (Ops.PARAM, Ops.CONST), 2), may_match(x + 0, (Ops.PARAM, Ops.PARAM), 2)
  (True, False)
  """
  if pat.src is None: return True
  for order in pat._orders:
    if len(order) != n and not (pat.allow_any_len and len(order) <= n): continue
    if src_ops is None or all(p.op is None or o in p.op for p, o in zip(order, src_ops)): return True
  return False


# Signatures past 4 sources are (op, count): any number of them. The tables of candidate
# rules are dropped whole when they hold this many, so a long-lived matcher stays small.
SIGNATURE_LIMIT = 4096


def _may_rewrite(pat: UPat, op: Ops, src_ops: tuple[Ops, ...] | None, n: int) -> bool:
  return (pat.op is None or op in pat.op) and may_match(pat, src_ops, n)


def signature(u: UOp) -> tuple:
  """The key of ``u``'s candidate rules: its op and its sources' ops (their number, past 4 sources).

  >>> signature(UOp.param(0) + 1)
  (Ops.ADD, Ops.PARAM, Ops.CONST)
  """
  src = u.src
  n = len(src)
  if n == 2: return (u.op, src[0].op, src[1].op)
  if n > 4: return (u.op, n)
  return (u.op, *[s.op for s in src])


class PatternMatcher:
  """Ordered rules; ``pm1 + pm2`` has ``pm1``'s rules first.

  A rule set's names are unique (``check_unique_names``, when it is made): two rules of one name, in one
  list or in a sum, are a ``RuleNameClash``, since every report names rules by their names.

  ``reads`` declares what the functions of the rules given as tuples read (``uopc.footprint``:
  "pattern", "bounds", "sources"; default "opaque"), unless a function declares its own with ``@reads``.

  ``compiled`` (default: env ``UOPC_COMPILE``, on unless ``0``) chooses how rules match:
  by patterns compiled to Python (``uopc.upat_compile``), or by ``UPat.match``. Both give
  the same bindings in the same order, so the same rules fire with the same results.
  """

  def __init__(self, rules: list, compiled: bool | None = None, name: str | None = None, reads: str = "opaque"):
    # unnamed rules are named after the rule set: ``name``, else the module that makes it
    set_name = name or sys._getframe(1).f_globals.get("__name__", "__main__").rpartition(".")[2]
    if set_name == "__main__": set_name = "rules"
    if reads not in FOOTPRINTS: raise ValueError(f"reads={reads!r}: one of {', '.join(FOOTPRINTS)}")
    # ``reads``: the footprint of the new rules whose functions declare none (uopc.footprint); a Rule keeps its own
    self.rules: list[Rule] = [_as_rule(entry, set_name, i, reads) for i, entry in enumerate(rules)]
    check_unique_names(self.rules, set_name)
    self.compiled: bool = compile_default() if compiled is None else compiled
    # index by root op so a node only tries rules that could match it
    self.by_op: dict[Ops, list[Rule]] = {}
    for rule in self.rules:
      pat = rule[0]
      for op in (pat.op if pat.op is not None else Ops):
        self.by_op.setdefault(op, []).append(rule)
    # signature(u) -> the rules that may match u, each with its firing function (made on first use)
    self._candidates: dict[tuple, tuple[tuple[Rule, RuleFire], ...]] = {}
    self._firing: dict[int, RuleFire] = {}
    # the same for rewrites without a ctx: signature(u) -> one-argument firing functions
    self._plain: dict[tuple, tuple[PlainFire, ...]] = {}
    self._plain_firing: dict[int, PlainFire] = {}
    # the same for callers that want every binding (the explorer): signature(u) -> (rule index, match, function)
    self._every: dict[tuple, tuple[tuple[int, MatchFn, RuleFn], ...]] = {}

  def __add__(self, other: PatternMatcher) -> PatternMatcher:
    """The rules of both, ``self``'s first; two rules of one name are a ``RuleNameClash``, as in one rule set."""
    rules = self.rules + other.rules
    return PatternMatcher(rules, compiled=self.compiled and other.compiled, name=_set_label(rules) or None)

  def set_label(self) -> str:
    """The rule sets its rules come from, as ``--rules`` names them: ``fold+symbolic+evaluate``."""
    return _set_label(self.rules)

  def __len__(self) -> int: return len(self.rules)

  def name_of(self, rule: Rule) -> str:
    """The name of one of this matcher's rules."""
    return rule.name

  def _rule_fire(self, rule: Rule) -> RuleFire:
    """The firing function of one rule: compiled, or by the interpreter."""
    if (f := self._firing.get(id(rule))) is None:
      f = self._firing[id(rule)] = compile_rule(*rule) if self.compiled else interpreted_rule(*rule)
    return f

  def candidates(self, u: UOp) -> tuple[tuple[Rule, RuleFire], ...]:
    """The rules that may rewrite ``u``, in order, each with its firing function ``(u, ctx) -> node | None``.

    These are the rules filed under ``u.op`` whose patterns the ops of ``u``'s sources do
    not rule out (early rejection), computed once per signature.

    >>> x = UPat.var("x")
    >>> pm = PatternMatcher([(x + 0, lambda x: x), (x + x, lambda x: x * 2)])
    >>> p0 = UOp.param(0)
    >>> len(pm.candidates(p0 + 0)), len(pm.candidates(p0 + p0))
    (2, 1)
    """
    key = signature(u)
    if (cands := self._candidates.get(key)) is None:
      if len(self._candidates) >= SIGNATURE_LIMIT: self._candidates.clear(); self._plain.clear(); self._every.clear()
      src_ops = key[1:] if len(u.src) <= 4 else None
      cands = self._candidates[key] = tuple((rule, self._rule_fire(rule)) for rule in self.by_op.get(u.op, ())
                                            if may_match(rule[0], src_ops, len(u.src)))
    return cands

  def plain_candidates(self, u: UOp) -> tuple[PlainFire, ...]:
    """``candidates(u)`` for a rewrite without a ctx: just each rule's one-argument firing function.

    ``f(u)`` returns the new node, or None or ``u`` itself when the rule does not apply.

    >>> x = UPat.var("x")
    >>> pm = PatternMatcher([(x + 0, lambda x: x), (x + x, lambda x: x * 2)])
    >>> p0 = UOp.param(0)
    >>> [f(p0 + 0) for f in pm.plain_candidates(p0 + 0)] == [p0, None]
    True
    """
    key = signature(u)
    if (fires := self._plain.get(key)) is None:
      fires = self._plain[key] = tuple(self._plain_rule(rule) for rule, _ in self.candidates(u))
    return fires

  def _plain_rule(self, rule: Rule) -> PlainFire:
    if (f := self._plain_firing.get(id(rule))) is None:
      f = self._plain_firing[id(rule)] = plain_rule(*rule) if self.compiled else interpreted_rule(*rule)
    return f

  def match_fn(self, pat: UPat) -> MatchFn:
    """``u -> pat.match(u, {})`` as this matcher matches: compiled (``uopc.upat_compile``), or by the interpreter."""
    return compile_match(pat) if self.compiled else lambda u: _interpret(pat, u)

  def every_candidate(self, u: UOp) -> tuple[tuple[int, MatchFn, RuleFn], ...]:
    """``(rule index, match, function)`` for each rule that may rewrite ``u``, in order, for callers that want every binding.

    The rules are ``candidates(u)``'s (early rejection included), and ``match(u)`` gives
    the bindings as ``UPat.match`` does; the explorer calls each rule on each of them.

    >>> x = UPat.var("x")
    >>> pm = PatternMatcher([(x + 0, lambda x: x), (x * 1, lambda x: x), (x + x, lambda x: x * 2)])
    >>> p0 = UOp.param(0)
    >>> [(i, match(p0 + 0) == [{'x': p0}]) for i, match, _ in pm.every_candidate(p0 + 0)]   # x * 1 is ruled out by the op
    [(0, True), (2, False)]
    """
    key = signature(u)
    if (every := self._every.get(key)) is None:
      if len(self._every) >= SIGNATURE_LIMIT: self._every.clear()
      src_ops = key[1:] if len(u.src) <= 4 else None
      every = self._every[key] = tuple((i, self.match_fn(rule[0]), rule[1]) for i, rule in enumerate(self.rules)
                                       if _may_rewrite(rule[0], u.op, src_ops, len(u.src)))
    return every

  def may_rewrite(self, op: Ops, src_ops: tuple[Ops, ...] | None, n: int) -> bool:
    """Whether ``every_candidate`` can give a rule for a node of ``op`` with ``n`` sources whose ops are ``src_ops``
    (None past 4 sources, as ``signature`` keeps them): the explorer's native core asks once per signature.

    >>> x = UPat.var("x")
    >>> pm = PatternMatcher([(x + 0, lambda x: x)])
    >>> pm.may_rewrite(Ops.ADD, (Ops.PARAM, Ops.CONST), 2), pm.may_rewrite(Ops.ADD, (Ops.ADD, Ops.ADD), 2)
    (True, False)
    """
    return any(_may_rewrite(rule[0], op, src_ops, n) for rule in self.rules)

  def fire(self, u: UOp, ctx: Any = None) -> tuple[Rule, UOp] | None:
    """The first rule that rewrites ``u``, and what it returns; None if no rule does."""
    for rule, f in self.candidates(u):
      if (ret := f(u, ctx)) is not None: return rule, ret
    return None

  def rewrite(self, u: UOp, ctx: Any = None) -> UOp | None:
    """What the first applicable rule rewrites ``u`` to, or None."""
    fired = self.fire(u, ctx)   # through self.fire: a subclass may watch or replace it
    return None if fired is None else fired[1]


def require_matcher(pm: Any, what: str) -> PatternMatcher:
  """``pm`` itself if it is a ``PatternMatcher``, else a ``TypeError`` naming what ``what`` is instead (a list of rules,
  an int, another library's ``PatternMatcher``), with its module: a bare ``AttributeError`` said nothing of it.

  >>> require_matcher([], "rules")
  Traceback (most recent call last):
  ...
  TypeError: rules is a list, not a uopc PatternMatcher (PatternMatcher([...]) makes one from a list of rules)
  """
  if isinstance(pm, PatternMatcher): return pm
  t = type(pm)
  given = t.__qualname__ if t.__module__ == "builtins" else f"{t.__module__}.{t.__qualname__}"
  same_name = t.__name__ == PatternMatcher.__name__   # tinygrad's: name both modules
  expected = f"{PatternMatcher.__module__}.PatternMatcher" if same_name else "uopc PatternMatcher"
  hint = " (PatternMatcher([...]) makes one from a list of rules)" if isinstance(pm, (list, tuple)) else ""
  article = "an" if given[0] in "aeioAEIO" else "a"   # a uopc_rules..., a list, an int, an OrderedDict
  raise TypeError(f"{what} is {article} {given}, not a {expected}{hint}")
