"""tinygrad's ``UPat``s compiled to Python: every binding ``UPat.match`` gives, without interpreting the pattern tree.

``UPat.match(u, {})`` walks the pattern on every call, copying a dict per source and
building and joining lists. The explorer asks for *every* binding, so tinygrad's own
compiled matchers (``tinygrad.uop.upat``, which return the first result of the rule's
function) do not serve. This unrolls a tinygrad pattern into nested ``if``s, as
``uopc.upat_compile`` does for uopc's ``UPat``s (its generator, ``_Gen``, with tinygrad's
fields read here), each binding held in a local variable: the same checks (``op in``,
``dtype in``, ``arg !=``, ``tag in``, a name bound twice is one node, the number of
sources as ``required_len`` / ``strict_length`` say), every order of a list source
(``UPat.src``, tinygrad's own permutations) and every branch of ``UPat.any`` spelled
out in tinygrad's order, so the list is the interpreter's: the same bindings (keys in
the same order) in the same order, duplicates kept.

>>> from tinygrad.uop.ops import UOp
>>> from tinygrad.uop.symbolic import symbolic
>>> pat = symbolic.patterns[13][0]   # x + 0 -> x (its ops: ADD, XOR, OR)
>>> a = UOp.variable("a", 0, 10)
>>> every_binding(pat)(0 + a) == pat.match(0 + a, {}) == [{"x": a}]
True
>>> print(source_of(pat), end="")
# tinygrad UPat at symbolic.py:111
def match(u):
  out = []
  if u.op in ops and len(u.src) == 2:
    u0, u1 = u.src
    if u1.op is CONST and not (arg != u1.arg):
      out.append({'x': u0})
    if u0.op is CONST and not (arg != u0.arg):
      out.append({'x': u1})
  return out

A pattern with a repeated source (``src=UPat(...)``: one pattern for any number of
sources) or too big to unroll stays interpreted: ``every_binding`` is then
``UPat.match`` itself, and ``source_of`` says so.
"""
from __future__ import annotations

import itertools
import os
import weakref
from typing import Any, Callable

from uopc.upat_compile import MAX_DEPTH, _comment, _exec, _Gen, _match_source, _TooBig

Match = Callable[[Any], list]


class _TinygradGen(_Gen):
  """``_Gen`` reading a tinygrad ``UPat``: its checks are tinygrad's (``in`` a tuple, ``==`` for dtypes), its
  alternatives ``is_any`` branches and the permutations tinygrad made of a list source."""

  def member(self, var: str, field: str, values: tuple, kind: str) -> str:
    # tinygrad's test is `uop.<field> in values` (== after identity): a tuple of one is still tested by `in`
    return f"{var}.{field} in {self.const(values, kind)}"

  def node(self, pat: Any, var: str, bound: dict[Any, str], depth: int, then: Callable[[dict[Any, str], int], None],
           op_known: bool = False) -> None:
    """Emit ``pat``'s checks against the node in ``var``, then ``then(bound, depth)`` inside them (``UPat.match``'s order)."""
    if depth > MAX_DEPTH: raise _TooBig
    if pat.is_any:   # each branch on a copy of the bindings, in order; the any's own fields are not read
      for alt in pat.src[0]: self.node(alt, var, bound, depth, then)
      return
    conds = []
    if pat.op is not None:   # Ops are singletons: `in` a tuple of one is `is`
      conds.append(f"{var}.op is {self.const(pat.op[0], pat.op[0].name)}" if len(pat.op) == 1 else self.member(var, "op", pat.op, "ops"))
    if pat.name is not None:
      if pat.name in bound: conds.append(f"{var} is {bound[pat.name]}")   # setdefault found another node: no match
      else: bound = {**bound, pat.name: var}
    if pat.match_dtype is not None: conds.append(self.member(var, "dtype", pat.match_dtype, "dtypes"))
    if pat.arg is not None: conds.append(f"not ({self.const(pat.arg, 'arg')} != {var}.arg)")   # tinygrad's `self.arg != uop.arg`
    if pat.match_tag is not None: conds.append(self.member(var, "tag", pat.match_tag, "tags"))
    if pat.strict_length: conds.append(f"len({var}.src) == {pat.required_len}")
    elif pat.required_len: conds.append(f"len({var}.src) >= {pat.required_len}")
    if conds:
      self.emit(depth, f"if {' and '.join(conds)}:")
      depth += 1
    if pat.src is None: return then(bound, depth)
    if any(isinstance(vp, itertools.repeat) for vp in pat.src): raise _TooBig   # any number of sources: left to the interpreter
    n = max(len(vp) for vp in pat.src)   # zip(uop.src, vp): at most len(vp) sources read, all present (required_len)
    subs = [f"{var}{i}" for i in range(n)]
    if n and pat.strict_length and n == pat.required_len:   # exactly n sources, checked above: one unpacking
      self.emit(depth, f"{', '.join(subs)}{',' * (n == 1)} = {var}.src")
    elif n: self.emit(depth, "; ".join(f"{s} = {var}.src[{i}]" for i, s in enumerate(subs)))
    for vp in pat.src: self.sources(list(zip(vp, subs)), bound, depth, then)


def _source(pat: Any) -> tuple[str, dict[str, Any]]:
  loc = getattr(pat, "location", None)
  where = f"{os.path.basename(str(loc[0]))}:{loc[1]}" if isinstance(loc, tuple) and len(loc) == 2 else "?"
  return _match_source(pat, _TinygradGen, f"tinygrad UPat at {where}")


_compiled: weakref.WeakKeyDictionary[Any, tuple[str, Match | None]] = weakref.WeakKeyDictionary()


def _compile(pat: Any) -> tuple[str, Match | None]:
  """(source, function) of ``pat``'s matcher, made once per pattern; the function is None if it stays interpreted."""
  if (hit := _compiled.get(pat)) is None:
    try:
      source, names = _source(pat)
      hit = (source, _exec(source, names, "match"))
    except (_TooBig, SyntaxError, RecursionError, MemoryError) as e:
      hit = (_comment(f"tinygrad UPat: interpreted by UPat.match ({type(e).__name__})") + "\n", None)
    _compiled[pat] = hit
  return hit


def source_of(pat: Any) -> str:
  """The generated source of tinygrad pattern ``pat``'s matcher, for reading and debugging."""
  return _compile(pat)[0]


def every_binding(pat: Any) -> Match:
  """``u -> pat.match(u, {})`` for tinygrad pattern ``pat``: compiled, or the interpreter itself."""
  fn = _compile(pat)[1]
  return fn if fn is not None else (lambda u: pat.match(u, {}))
