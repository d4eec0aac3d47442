"""Compiled patterns: a ``UPat`` turned into Python source for a specialised matcher.

``UPat.match`` interprets the pattern tree on every call: it walks the tree, copies
binding dicts, builds lists and joins them. Compiling a pattern unrolls all of that
into nested ``if``s on ``u.op``, ``u.src[0].op``, ... with every order of a list
source spelled out, each binding held in a local variable. The generated source is
``exec``'d once per pattern, lazily, and kept on the pattern.

Two flavours come out of one pattern:

- ``compile_match(pat)(u)`` returns exactly ``pat.match(u, {})``: the same bindings, as
  dicts with the same keys in the same order, in the same order.
- ``compile_rule(pat, fn)(u, ctx)`` is one rule of a ``PatternMatcher``: it calls ``fn``
  with each binding as keyword arguments, straight from the locals, and returns the
  first result that is not None and not ``u`` (else None): what ``PatternMatcher.fire``
  does with the interpreter's list, without building the list. It assumes ``u.op`` is
  one of the pattern's root ops (the matcher's index guarantees it).

>>> from uopc.uop import UOp
>>> x = UOp.param(0)
>>> pat = UPat.var("x") + UPat.cvar("c")
>>> compile_match(pat)(3 + x) == pat.match(3 + x, {})
True
>>> compile_rule(pat, lambda x, c: x * c.arg)(x + 3, None) is x * 3
True
>>> print(compiled_source(pat), end="")   # the bindings follow the order of each match
# UPat x + const(c)
def match(u):
  out = []
  if u.op is ADD and len(u.src) == 2:
    u0, u1 = u.src
    # order 1 of 2
    if u1.op is CONST:
      out.append({'x': u0, 'c': u1})
    # order 2 of 2
    if u0.op is CONST:
      out.append({'c': u0, 'x': u1})
  return out

A pattern whose unrolled matcher would be too big (many nested list sources), or
that cannot be written as source, stays interpreted: both functions then call
``UPat.match``, and ``compiled_source`` says so.
"""
from __future__ import annotations

import inspect
import itertools
import keyword
import linecache
import weakref
from typing import Any, Callable, Iterator, Protocol

from uopc.dtype import DType
from uopc.ops import Ops
from uopc.upat import Bindings, UPat
from uopc.uop import UOp

MatchFn = Callable[[UOp], "list[Bindings]"]
PlainFire = Callable[[UOp], "UOp | None"]


class RuleFire(Protocol):
  """A rule as one function ``fire(u, ctx=None)``; the ctx defaults to None, so it is a ``PlainFire`` too."""
  def __call__(self, u: UOp, ctx: Any = None) -> UOp | None: ...


MAX_LEAVES = 256   # unrolled match paths per pattern; past this, the interpreter is smaller and as fast
MAX_DEPTH = 60     # nested ifs; CPython's parser stops at 100 levels of indentation

_counter = itertools.count()
_LOCALS = frozenset({"u", "out", "r", "ctx", "match", "make", "fire", "_fn", "len"})   # names the generated code uses


class _TooBig(Exception):
  """The unrolled matcher would be too large: keep the interpreter for this pattern."""


class _Gen:
  """Emits the source of one matcher; ``leaf`` writes what happens for each full match."""

  def __init__(self, leaf: Callable[[dict[Any, str], int], None]):
    self.lines: list[str] = []
    self.names: dict[str, Any] = {}   # the generated code's globals: ops, dtypes, args
    self.leaf, self.leaves = leaf, 0

  def emit(self, depth: int, line: str) -> None: self.lines.append("  " * depth + line)

  def const(self, value: Any, hint: str) -> str:
    """A global name for ``value`` (ops and dtypes by their own name, so the source reads well)."""
    for name, v in self.names.items():
      if v is value: return name
    free = hint.isidentifier() and not keyword.iskeyword(hint) and hint not in self.names and hint not in _LOCALS \
      and not (hint[:1] == "u" and hint[1:].isdigit())   # u0, u01, ...: the node variables
    name = hint if free else f"_{hint}{len(self.names)}"
    self.names[name] = value
    return name

  def check_in(self, var: str, field: str, values: frozenset, kind: str) -> str:
    if len(values) == 1:
      (v,) = values
      return f"{var}.{field} is {self.const(v, v.name if isinstance(v, (Ops, DType)) else kind)}"
    return f"{var}.{field} in {self.const(values, kind)}"

  def node(self, pat: UPat, var: str, bound: dict[Any, str], depth: int, then: Callable[[dict[Any, str], int], None],
           op_known: bool = False) -> None:
    """Emit the checks of ``pat`` against the node in ``var``, then ``then(bound, depth)`` inside them.

    The checks are the interpreter's, in its order: op, dtype, arg, name, number of sources.
    """
    if depth > MAX_DEPTH: raise _TooBig
    conds = []
    if pat.op is not None and not op_known: conds.append(self.check_in(var, "op", pat.op, "ops"))
    if pat.dtype is not None: conds.append(self.check_in(var, "dtype", pat.dtype, "dtypes"))
    if pat.arg is not None: conds.append(f"not ({var}.arg != {self.const(pat.arg, 'arg')})")   # the interpreter's != test
    if pat.name is not None:
      if pat.name in bound: conds.append(f"{var} is {bound[pat.name]}")   # a repeated name: the same node
      else: bound = {**bound, pat.name: var}
    if pat.src is not None:
      n = len(pat._orders[0])
      conds.append(f"len({var}.src) {'>=' if pat.allow_any_len else '=='} {n}")
    if conds:
      self.emit(depth, f"if {' and '.join(conds)}:")
      depth += 1
    if pat.src is None: return then(bound, depth)
    subs = [f"{var}{i}" for i in range(n)]
    if n: self.emit(depth, f"{', '.join(subs)}{',' * (n == 1)} = {var}.src" if not pat.allow_any_len else
                    "; ".join(f"{s} = {var}.src[{i}]" for i, s in enumerate(subs)))
    for k, order in enumerate(pat._orders):
      if len(pat._orders) > 1: self.emit(depth, f"# order {k + 1} of {len(pat._orders)}")
      self.sources(list(zip(order, subs)), bound, depth, then)

  def sources(self, todo: list[tuple[UPat, str]], bound: dict[Any, str], depth: int, then: Callable[[dict[Any, str], int], None]) -> None:
    """Match the (pattern, node variable) pairs left to right: a join, unrolled."""
    if not todo: return then(bound, depth)
    (p, var), rest = todo[0], todo[1:]
    self.node(p, var, bound, depth, lambda b, d: self.sources(rest, b, d, then))

  def finish(self, bound: dict[Any, str], depth: int) -> None:
    self.leaves += 1
    if self.leaves > MAX_LEAVES: raise _TooBig
    self.leaf(bound, depth)


def _dict_literal(bound: dict[Any, str], gen: _Gen) -> str:
  return "{" + ", ".join(f"{repr(k) if type(k) is str else gen.const(k, 'name')}: {v}" for k, v in bound.items()) + "}"


def _kwargs(bound: dict[Any, str], gen: _Gen) -> str:
  """``x=u0, c=u1``, or ``**{...}`` when a name cannot be a keyword (then Python raises as the interpreter's call would)."""
  if all(type(k) is str and k.isidentifier() and not keyword.iskeyword(k) and k != "ctx" for k in bound):
    return ", ".join(f"{k}={v}" for k, v in bound.items())
  return f"**{_dict_literal(bound, gen)}"


def _comment(text: str) -> str:
  """``text`` as one line of a comment: a line break in it (an arg's repr may hold one) would end the comment
  and make the rest code. Non-printable characters are escaped as in a string literal."""
  return "# " + "".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in text)


def _match_source(pat: Any, gen_type: type[_Gen] | None = None, title: str | None = None) -> tuple[str, dict[str, Any]]:
  """The source of ``def match(u)``, the list of every binding; ``gen_type`` reads another IR's patterns (tinygrad's)."""
  gen = (gen_type or _Gen)(lambda bound, depth: gen.emit(depth, f"out.append({_dict_literal(bound, gen)})"))
  gen.emit(0, _comment(title or f"UPat {pat.pretty()}"))
  gen.emit(0, "def match(u):")
  gen.emit(1, "out = []")
  gen.node(pat, "u", {}, 1, gen.finish)
  gen.emit(1, "return out")
  return "\n".join(gen.lines) + "\n", gen.names


def _rule_source(pat: UPat, what: str) -> tuple[str, dict[str, Any]]:
  def leaf(bound: dict[Any, str], depth: int) -> None:
    kw = _kwargs(bound, gen)
    sep = ", " if kw else ""
    gen.emit(depth, f"r = _fn({kw}) if ctx is None else _fn({kw}{sep}ctx=ctx)")
    gen.emit(depth, "if r is not None and r is not u: return r")
  gen = _Gen(leaf)
  gen.emit(0, _comment(f"UPat {pat.pretty()}  ->  {what}"))
  gen.emit(0, "def make(_fn):")
  gen.emit(1, "def fire(u, ctx=None):")
  gen.node(pat, "u", {}, 2, gen.finish, op_known=True)
  gen.emit(2, "return None")
  gen.emit(1, "return fire")
  return "\n".join(gen.lines) + "\n", gen.names


# linecache entries of collected functions, dropped at the next _exec: not by the collector itself, which may run
# inside linecache.checkcache's loop over the cache (doctest and pdb call it), where a vanished key raises KeyError
_dead: list[str] = []


def _exec(source: str, names: dict[str, Any], entry: str) -> Callable:
  """Run the generated source; linecache keeps it while the function lives, so tracebacks through it show the lines."""
  while _dead: linecache.cache.pop(_dead.pop(), None)
  filename = f"<upat_compile {next(_counter)}>"
  linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
  namespace = dict(names)
  exec(compile(source, filename, "exec"), namespace)
  fn = namespace[entry]
  weakref.finalize(fn, _dead.append, filename)   # linecache never drops an entry it did not read from disk
  return fn


def _compiled(pat: UPat, kind: str) -> tuple[str, Callable | None]:
  """(source, function) of one flavour of ``pat``, made on first use and kept on the pattern.

  The function is None when the pattern stays interpreted.
  """
  cache = pat._compiled
  if cache is None: cache = pat._compiled = {}
  if (hit := cache.get(kind)) is not None: return hit
  try:
    source, names = _match_source(pat) if kind == "match" else _rule_source(pat, "the rule's function")
    fn = _exec(source, names, "match" if kind == "match" else "make")
  except (_TooBig, SyntaxError, RecursionError, MemoryError) as e:
    source, fn = _comment(f"UPat {pat.pretty()}: interpreted by UPat.match ({type(e).__name__})") + "\n", None
  cache[kind] = (source, fn)
  return cache[kind]


def compiled_source(pat: UPat, rule: bool = False) -> str:
  """The generated source of ``pat``'s matcher (``rule=True``: of its rule flavour), for reading and debugging.

  >>> from uopc.ops import Ops
  >>> print(compiled_source(UPat(Ops.MAX, src=(UPat.var("x"), UPat.var("x"))), rule=True), end="")
  # UPat max(x, x)  ->  the rule's function
  def make(_fn):
    def fire(u, ctx=None):
      if len(u.src) == 2:
        u0, u1 = u.src
        if u1 is u0:
          r = _fn(x=u0) if ctx is None else _fn(x=u0, ctx=ctx)
          if r is not None and r is not u: return r
      return None
    return fire
  """
  return _compiled(pat, "rule" if rule else "match")[0]


def compile_match(pat: UPat) -> MatchFn:
  """A function ``u -> pat.match(u, {})``, compiled (or the interpreter, for a pattern too big to unroll).

  >>> from uopc.uop import UOp
  >>> compile_match(UPat.cvar("c"))(UOp.const(2))
  [{'c': UOp(Ops.CONST, arg=2)}]
  """
  fn = _compiled(pat, "match")[1]
  return fn if fn is not None else (lambda u: pat.match(u, {}))


def call_rule(fn: Callable, binding: Bindings, ctx: Any = None) -> Any:
  """A rule's function on one binding: the bound names as keyword arguments, and ``ctx=`` when there is one."""
  return fn(**binding) if ctx is None else fn(**binding, ctx=ctx)


def rule_results(pat: UPat, fn: Callable, u: UOp, ctx: Any = None) -> Iterator[Any]:
  """What ``fn`` returns on each binding of ``pat`` at ``u``, in binding order, lazily; None and ``u`` itself left out.

  >>> from uopc.uop import UOp
  >>> x, y = UPat.var("x"), UPat.var("y")
  >>> p0, p1 = UOp.param(0), UOp.param(1)
  >>> list(rule_results(x + y, lambda x, y: y + x, p0 + p1)) == [p1 + p0]   # the second binding gives u itself
  True
  """
  for binding in pat.match(u, {}):
    ret = call_rule(fn, binding, ctx)
    if ret is not None and ret is not u: yield ret


def interpreted_rule(pat: UPat, fn: Callable) -> RuleFire:
  """One rule by the interpreter: ``fn`` on each binding of ``pat.match``; the first new node it returns, else None.

  >>> from uopc.uop import UOp
  >>> x = UOp.param(0)
  >>> interpreted_rule(UPat.var("x") * 1, lambda x: x)(x * 1, None) is x
  True
  """
  def fire(u: UOp, ctx: Any = None) -> UOp | None: return next(rule_results(pat, fn, u, ctx), None)
  return fire


def compile_rule(pat: UPat, fn: Callable) -> RuleFire:
  """The rule ``(pat, fn)`` as one function ``(u, ctx) -> new node | None``; ``u.op`` must be one of ``pat``'s ops.

  >>> from uopc.uop import UOp
  >>> x = UOp.param(0)
  >>> compile_rule(UPat.var("x") * 1, lambda x: x)(x * 1, None) is x
  True
  """
  make = _compiled(pat, "rule")[1]
  return make(fn) if make is not None else interpreted_rule(pat, fn)


def plain_rule(pat: UPat, fn: Callable) -> PlainFire:
  """The rule ``(pat, fn)`` for a rewrite without a ctx: ``f(u)`` is a new node, or None or ``u`` for no change.

  A pattern that only names the node it matches (``UPat(ALU, name="x")``, the usual way
  to hand a whole node to a function) binds nothing else, so when ``fn`` takes exactly
  that one name ``fn`` itself is the rule: no matcher to run, no call in between.

  >>> from uopc.ops import ALU
  >>> def fold(x): return None
  >>> plain_rule(UPat(ALU, name="x"), fold) is fold
  True
  """
  if pat.src is None and pat.dtype is None and pat.arg is None and pat.name is not None and _takes_only(fn, pat.name):
    return fn
  return compile_rule(pat, fn)   # its ctx defaults to None


def _takes_only(fn: Callable, name: str) -> bool:
  """Whether ``fn(u)`` and ``fn(**{name: u})`` are the same call: one parameter, ``name``, passable by keyword."""
  try: params = list(inspect.signature(fn).parameters.values())
  except (TypeError, ValueError): return False
  return len(params) == 1 and params[0].name == name and params[0].kind is inspect.Parameter.POSITIONAL_OR_KEYWORD
