"""tinygrad's ``UOp`` and ``PatternMatcher`` as an implementation of the node and rule protocols.

Imported only when a tinygrad node reaches the explorer (``uopc.relational.ir.ir_of``); it needs
tinygrad installed (``pip install -e '.[tinygrad]'``). Nothing of tinygrad is translated:
the states are tinygrad's own hash-consed ``UOp``s, a rule's every binding is the list
tinygrad's ``UPat.match`` gives (``UPat.any``, commutative source lists, repeated names,
``allow_any_len``), from the pattern compiled to Python (``tinygrad_match``), candidates are
filtered by its ``early_reject`` as ``PatternMatcher.rewrite`` filters them (and by
``may_match``, which leaves out only rules with no binding), and tinygrad's own functions are called unchanged,
with ``ctx`` when they take one. A rule that raises is a stuck state naming the rule. A rule's name is its
function's, where that is a named function (``fold_unrolled_divs``; with ``#i``, its index, only where rules share
one: ``protocol.stable_names``); a lambda's is the set, the index and where its ``UPat`` is written
(``symbolic#12 symbolic.py:97``).

The canonical result is tinygrad's ``graph_rewrite(prog, pm)``; ``canonical_variants`` adds
``bottom_up=True``. A node is rebuilt on new sources as tinygrad's rewrite rebuilds it: its
dtype derived again (``dtype_from_uop``) where one is derived (``make``, which keeps a bounded
table of its results for the stepper's lookups). Tags are not kept (no rule of
the symbolic sets reads or sets one).
"""
from __future__ import annotations

import itertools
import keyword
import os
import weakref
from typing import Any, Callable, Sequence, cast

from tinygrad.helpers import SPEC
from tinygrad.dtype import dtypes
from tinygrad.uop.ops import Ops, PatternMatcher, UOp, UOpMetaClass, dtype_from_uop, graph_rewrite

from uopc.relational.ir.discovery import other_ir_rules
from uopc.relational.ir.protocol import IR, mismatch, stable_names, type_name
from uopc.relational.ir.registry import register
from uopc.relational.adapters.tinygrad.match import every_binding
from uopc.relational.adapters.tinygrad.patterns import views
from uopc.relational.ir.patterns import PatternView
from uopc.term import PARTS, op_parts


class TinygradRule:
  """One rule of a tinygrad ``PatternMatcher``: its ``UPat``, its function, a stable name and the location of its ``UPat``."""
  __slots__ = ("pattern", "fn", "name", "location")

  def __init__(self, pattern: Any, fn: Callable, name: str, location: str) -> None:
    self.pattern, self.fn, self.name, self.location = pattern, fn, name, location

  def describe(self) -> str: return f"{self.name} ({self.location})"
  def __repr__(self) -> str: return f"TinygradRule({self.describe()})"


def _location(pattern: Any, fn: Callable) -> str:
  """``file.py:line`` where the rule is written: its ``UPat``'s location (tinygrad's own), else its function's."""
  loc = getattr(pattern, "location", None)
  if isinstance(loc, tuple) and len(loc) == 2: return f"{os.path.basename(str(loc[0]))}:{loc[1]}"
  code = getattr(fn, "__code__", None)
  return f"{os.path.basename(code.co_filename)}:{code.co_firstlineno}" if code is not None else type(fn).__name__


def _own_name(fn: Callable) -> str | None:
  """The name of a rule's function, if it is a named one (``fold_unrolled_divs``; a lambda has none)."""
  name = getattr(fn, "__name__", None)
  return name if isinstance(name, str) and name.isidentifier() else None


def _caller(fn: Callable, pattern: Any = None) -> Callable:
  """``fn`` called as tinygrad calls it: with ``ctx`` only if it takes one (``upat_interpret``), whatever ctx the stepper
  passes. Where every binding of ``pattern`` binds the same names (``_fixed_names``), a function of those names, which
  passes them on by name: no dict of the bindings made again for the call.

  >>> from tinygrad.uop.ops import UOp, UPat
  >>> x = UOp.variable("x", 0, 10)
  >>> call = _caller(lambda x, c: x * c, UPat.var("x") + UPat.cvar("c"))
  >>> call(x=x, c=x.const_like(3)) is call(x=x, c=x.const_like(3), ctx="ignored") is x * 3
  True
  """
  code = getattr(fn, "__code__", None)
  if code is not None and "ctx" in code.co_varnames[:code.co_argcount + code.co_kwonlyargcount]:
    def with_ctx(ctx: Any = None, **b: Any) -> Any: return fn(ctx=ctx, **b)
    return with_ctx
  if pattern is not None and (names := _fixed_names(pattern)) is not None:
    ns: dict[str, Any] = {}
    exec(f"def call({''.join(n + ', ' for n in names)}ctx=None): return _rule_fn({', '.join(f'{n}={n}' for n in names)})", {"_rule_fn": fn}, ns)
    return cast(Callable, ns["call"])
  def without_ctx(ctx: Any = None, **b: Any) -> Any: return fn(**b)
  return without_ctx


def _fixed_names(p: Any) -> list[str] | None:
  """The names every binding of tinygrad pattern ``p`` binds, in order of appearance, or None where bindings may differ in
  them (a ``UPat.any`` branch, a repeated source, which binds nothing on no sources) or one cannot be a parameter.

  >>> from tinygrad.uop.ops import UPat
  >>> _fixed_names(UPat.var("x") * UPat.cvar("c") + UPat.var("x")), _fixed_names(UPat.any(UPat.var("x"), UPat.cvar("c")))
  (['x', 'c'], None)
  """
  names: dict[str, None] = {}
  todo = [p]
  while todo:
    q = todo.pop()
    if q.is_any: return None
    if q.name is not None:
      if not (isinstance(q.name, str) and q.name.isidentifier()) or keyword.iskeyword(q.name) or q.name in ("ctx", "_rule_fn"): return None
      names[q.name] = None
    for vp in reversed(q.src or ()):
      if isinstance(vp, itertools.repeat): return None
      todo.extend(reversed(vp))
  return list(names)


class TinygradRules:
  """A tinygrad ``PatternMatcher`` as the rule protocol (``uopc.relational.ir.protocol``); ``pm`` is the matcher itself."""

  def __init__(self, pm: PatternMatcher, name: str) -> None:
    self.pm, self.set_name, self.ir = pm, name, TINYGRAD
    locations = [_location(p, fn) for p, fn in pm.patterns]
    names = stable_names([_own_name(fn) for _, fn in pm.patterns], [f"{name}#{i} {loc}" for i, loc in enumerate(locations)])
    self.rules = [TinygradRule(p, fn, n, loc) for (p, fn), n, loc in zip(pm.patterns, names, locations)]
    self.by_op: dict[Any, list[int]] = {}   # op -> the indices of the rules filed under it, in order (tinygrad's pdict)
    for i, (p, _) in enumerate(pm.patterns):
      for op in p.op or (): self.by_op.setdefault(op, []).append(i)
    self._calls = [_caller(fn, p) for p, fn in pm.patterns]
    self._matches: list[Callable | None] = [None] * len(pm.patterns)   # each rule's every_binding, compiled on first use
    self._every: dict[tuple, tuple] = {}   # (op, dtype, source ops, source dtypes) -> the candidates

  def __len__(self) -> int: return len(self.rules)
  def name_of(self, rule: TinygradRule) -> str: return rule.name

  def every_candidate(self, u: UOp) -> tuple[tuple[int, Callable, Callable], ...]:
    """``(rule index, match, fn)`` for the rules filed under ``u.op`` whose early rejects ``u``'s source ops pass (as
    ``PatternMatcher.rewrite`` filters them) and whose pattern's top two levels accept ``u``'s and its sources' ops and
    dtypes (``may_match``: a rule left out here has no binding at ``u``), memoized by those ops and dtypes."""
    src = u.src
    if len(src) == 2:   # (the common case, without a comprehension's call)
      a, b = src
      key: tuple = (u.op, u.dtype, a.op, b.op, a.dtype, b.dtype)
    else: key = (u.op, u.dtype, *[s.op for s in src], *[s.dtype for s in src])
    if (every := self._every.get(key)) is None:
      ops, shape = {s.op for s in src}, [(s.op, s.dtype) for s in src]
      pats = self.pm.patterns
      every = self._every[key] = tuple((i, self._match(i), self._calls[i]) for i in self.by_op.get(u.op, ())
                                       if pats[i][0].early_reject.issubset(ops) and may_match(pats[i][0], u.op, u.dtype, shape))
    return every

  def _match(self, i: int) -> Callable:
    """Rule ``i``'s ``u -> every binding`` (``UPat.match(u, {})``'s list), compiled (``tinygrad_match``) on first use."""
    if (m := self._matches[i]) is None: m = self._matches[i] = every_binding(self.pm.patterns[i][0])
    return m

  def fire(self, u: UOp, ctx: Any = None) -> tuple[TinygradRule, UOp] | None:
    """The rule tinygrad's ``PatternMatcher.rewrite`` fires on ``u`` and its result (its own compiled matchers, in its
    order), or None."""
    for i in self._entries.get(u.op, ()):
      _, match, early_reject = self._entry[i]
      if not early_reject.issubset({s.op for s in u.src}): continue
      if (ret := match(u, ctx)) is not None and ret is not u: return self.rules[i], ret
    return None

  @property
  def _entries(self) -> dict[Any, list[int]]:
    """op -> the rule indices of tinygrad's ``pdict`` entries for it, in its order (each entry is one rule's, made in
    rule order and filed under each of its ops)."""
    if (e := self.__dict__.get("_entries_memo")) is None:
      index = {id(entry): i for i, entry in self._entry.items()}
      e = self.__dict__["_entries_memo"] = {op: [index[id(entry)] for entry in entries] for op, entries in self.pm.pdict.items()}
    return e

  @property
  def _entry(self) -> dict[int, list]:
    """rule index -> its ``pdict`` entry ``[UPat, match, early_reject]``."""
    if (e := self.__dict__.get("_entry_memo")) is None:
      e, taken = {}, {op: 0 for op in self.pm.pdict}
      for i, (p, _) in enumerate(self.pm.patterns):
        op, *others = p.op or ()
        e[i], taken[op] = self.pm.pdict[op][taken[op]], taken[op] + 1
        for other in others: taken[other] += 1
      self.__dict__["_entry_memo"] = e
    return e


def may_match(p: Any, op: Any, dtype: Any, src: list[tuple[Any, Any]] | None) -> bool:
  """False if tinygrad pattern ``p`` has no binding at a node of ``op`` and ``dtype`` whose sources have the ``(op, dtype)``s
  ``src`` (None: not known): ``UPat.match``'s op, dtype and length tests on the node and its sources, a necessary condition.

  >>> from tinygrad.uop.ops import Ops, UPat
  >>> from tinygrad.dtype import dtypes
  >>> w = dtypes.weakint
  >>> p = UPat.var("x") + UPat.cvar("c")
  >>> may_match(p, Ops.ADD, w, [(Ops.PARAM, w), (Ops.CONST, w)]), may_match(p, Ops.ADD, w, [(Ops.PARAM, w), (Ops.MUL, w)])
  (True, False)
  """
  if p.is_any: return any(may_match(q, op, dtype, src) for q in p.src[0])
  if p.op is not None and op not in p.op or p.match_dtype is not None and dtype not in p.match_dtype: return False
  if src is None or p.src is None: return True
  if len(src) < p.required_len or p.strict_length and len(src) != p.required_len: return False
  for vp in p.src:
    pats = itertools.repeat(next(iter(vp))) if isinstance(vp, itertools.repeat) else vp
    if all(may_match(q, sop, sdt, None) for q, (sop, sdt) in zip(pats, src)): return True
  return False


# the adapter of each tinygrad matcher while something uses it (keyed by id: tinygrad's matchers are not weakly hashable
# by value, and a module's rule set lives forever anyway); the adapter holds its matcher, so the id stays its own
_adapters: weakref.WeakValueDictionary[int, TinygradRules] = weakref.WeakValueDictionary()
_known_names: dict[int, str] = {}


def set_name(pm: PatternMatcher) -> str:
  """A name for a tinygrad rule set: ``symbolic``, ``symbolic_simple`` or ``sym`` for tinygrad's own, else ``rules``."""
  if not _known_names:
    from tinygrad.uop import symbolic as s
    for n in ("symbolic_simple", "symbolic", "sym", "commutative", "symbolic_flat"):
      if isinstance(getattr(s, n, None), PatternMatcher): _known_names.setdefault(id(getattr(s, n)), n)
  return _known_names.get(id(pm), "rules")


def adapt(pm: PatternMatcher, name: str | None = None) -> TinygradRules:
  """The rule protocol of tinygrad matcher ``pm`` (one adapter per matcher while it is used, so memos are shared)."""
  if (a := _adapters.get(id(pm))) is None or a.pm is not pm:
    a = _adapters[id(pm)] = TinygradRules(pm, name or set_name(pm))
  return a


# tinygrad's hash-consing table ({(op, dtype, src, arg, tag): weak reference}) and what its constructor calls to make a node
_ucache, _create = UOpMetaClass.ucache, type.__call__
MADE_LIMIT = 1 << 19   # make's results kept (each keeps a node alive) before the table is dropped
_KEEPS_DTYPE = {op for op in Ops if op.name in ("ADD", "SUB", "MUL", "MAX", "MOD", "IDIV", "FLOORDIV", "FLOORMOD", "AND", "OR", "XOR",
                                                 "SHL", "SHR")}


def _refusal(op: Any, src: tuple, arg: Any) -> str:
  """Why tinygrad's dtype production rules (``dtype_from_uop``) refuse ``op(*src)``."""
  try: dtype_from_uop(op, src, arg)
  except (RuntimeError, AssertionError, TypeError) as e: return str(e)
  return f"no dtype for {op} on these sources"


class _Made(dict):
  """make's results on one ``(op, dtype, arg)``, ``{src: node}``; looking up sources not there makes the node (``__missing__``:
  its dtype derived again where one is derived, then made as ``UOpMetaClass.__call__`` makes it), keeps it and gives it, or
  None where tinygrad's dtype rules refuse it. So finding a rebuilt node, made before or not, is one dict lookup."""
  __slots__ = ("ir", "op", "dtype", "arg", "keeps")

  def __init__(self, ir: TinygradIR, op: Any, dtype: Any, arg: Any) -> None:
    # a binary ALU node on sources of its own dtype keeps it (promo_dtype of equal dtypes): the common case, not derived
    self.ir, self.op, self.dtype, self.arg, self.keeps = ir, op, dtype, arg, op in _KEEPS_DTYPE

  def __missing__(self, src: tuple) -> UOp | None:
    op, dtype, arg = self.op, self.dtype, self.arg
    derived, same = dtype, self.keeps
    if same:
      for s in src:
        if s.dtype is not dtype:
          same = False
          break
    if not same:
      try: derived = dtype_from_uop(op, src, arg) or dtype
      except (RuntimeError, AssertionError, TypeError): return None
    n: Any
    if SPEC.value > 1: n = UOp(op, derived, src, arg)
    elif (w := _ucache.get(k := (op, derived, src, arg, None))) is None or (n := w()) is None:
      _ucache[k] = weakref.ref(n := _create(UOp, *k))
    self[src] = n
    ir = self.ir
    ir._made_size += 1
    if ir._made_size > MADE_LIMIT: ir.forget_made()
    return n


class TinygradIR(IR[UOp]):
  name, node_type, native, reducible = "tinygrad", UOp, False, True
  engine = "tinygrad's graph_rewrite"

  class build_error(Exception):   # tinygrad's constructor does not type-check; its dtype production rules (dtype_from_uop) may refuse
    pass

  def __init__(self) -> None:
    # make's results, {(op, dtype, arg): _Made {src: node}}: what a rebuild on these sources gives, found by one dict lookup
    # (the most frequent call of an exploration) instead of tinygrad's constructor, and a node not made yet made by that
    # lookup's miss (_Made.__missing__). Exact, since make is a function of its fields and the table holds its nodes alive
    # (so tinygrad's own table, of weak references, still maps them to themselves); dropped whole past MADE_LIMIT entries,
    # which bounds the nodes it keeps alive (uopc's own hash-consing tables hold nodes strongly too)
    self._made: dict[tuple, _Made] = {}
    self._made_size = 0

  def patterns(self, rules: TinygradRules, op: Any) -> list[PatternView]:
    """The ``UPat``s filed under ``op``, read as uopc's are (``adapters.tinygrad.patterns``: each over-approximated)."""
    return [v for i in rules.by_op.get(op, ()) for v in views(rules.pm.patterns[i][0])]

  def make(self, op: Any, src: tuple, arg: Any, dtype: Any) -> UOp:
    """``op(*src)`` as tinygrad's rewrite rebuilds a node: its dtype derived again (``dtype_from_uop``) where one is derived,
    then ``UOp(op, dtype, src, arg)`` as tinygrad's constructor (``UOpMetaClass.__call__``) makes it with its ``SPEC`` checks
    off (the default): the node in its hash-consing table, else a new one filed there (with ``SPEC`` on, the constructor
    itself). The hot path of an exploration: without the constructor's general path (keyword defaults, metadata, buffers,
    ``SPEC`` tests), and make's own table first (``_Made``). build_error where tinygrad's dtype rules refuse the node.

    >>> from tinygrad.uop.ops import Ops, UOp
    >>> a = UOp.variable("a", 0, 10)
    >>> TINYGRAD.make(Ops.ADD, (a, a), None, a.dtype) is a + a is UOp(Ops.ADD, a.dtype, (a, a))
    True
    """
    if (table := self._made.get((op, dtype, arg))) is None: table = self._table(op, dtype, arg)
    if (n := table[src]) is None: raise self.build_error(_refusal(op, src, arg))
    return n

  def _table(self, op: Any, dtype: Any, arg: Any) -> _Made:
    table = self._made[(op, dtype, arg)] = _Made(self, op, dtype, arg)
    self._made_size += 1   # a key counts, so the keys too are bounded
    return table

  def forget_made(self) -> None:
    """Empty make's table (each table in place: a lookup ``existing`` handed out stays valid, and finds nothing it had).

    >>> from tinygrad.uop.ops import Ops, UOp
    >>> ir, a = TinygradIR(), UOp.variable("a", 0, 10)
    >>> get = ir.existing(Ops.ADD, a.dtype, None)
    >>> n = ir.make(Ops.ADD, (a, a), None, a.dtype)
    >>> get((a, a)) is n, (ir.forget_made(), len(ir.existing(Ops.ADD, a.dtype, None).__self__))[1]
    (True, 0)
    """
    for table in self._made.values(): table.clear()
    self._made, self._made_size = {}, 0

  def existing(self, op: Any, dtype: Any, arg: Any) -> Callable[[tuple], UOp | None]:
    """``get(src)``: the node ``make`` gives on ``src``, found in make's table or made there (None where tinygrad's dtype rules
    refuse it: the stepper's ``make`` then raises why): a dict's own lookup, so a node made before costs no Python call."""
    if (table := self._made.get((op, dtype, arg))) is None: table = self._table(op, dtype, arg)
    return table.__getitem__

  def rules(self, pm: Any, what: str, node: Any) -> TinygradRules:
    if isinstance(pm, TinygradRules): return pm
    if isinstance(pm, PatternMatcher): return adapt(pm)
    if other_ir_rules(pm, self.name) is not None: raise mismatch(what, pm, node)
    given = type_name(type(pm))
    article = "an" if given[0] in "aeioAEIO" else "a"
    raise TypeError(f"{what} is {article} {given}, not a {type_name(PatternMatcher)} (the program is a {type_name(UOp)})")

  def canonical(self, prog: UOp, pm: Any, ctx: Any = None, max_steps: int | None = None,
                bottom_up: bool = False) -> tuple[UOp | None, str | None]:
    pm = pm.pm if isinstance(pm, TinygradRules) else pm
    try: return graph_rewrite(prog, pm, ctx=ctx, bottom_up=bottom_up), None
    except Exception as e: return None, f"tinygrad's graph_rewrite raised {type(e).__name__}: {e}"

  def canonical_variants(self, prog: UOp, pm: Any, ctx: Any = None) -> list[tuple[str, UOp | None, str | None]]:
    return [("graph_rewrite(bottom_up=True)", *self.canonical(prog, pm, ctx, bottom_up=True))]

  def record(self, prog: UOp, pm: Any, max_steps: int | None = None) -> tuple[UOp | None, str | None, list]:
    """tinygrad's ``graph_rewrite(prog, pm)`` with its firings (``uopc.trace.Firing``): the matcher is watched, not
    changed (each lookup is tinygrad's own ``rewrite``, the firing rule told by its ``pdict`` entry)."""
    from uopc.trace import Firing
    rules = self.rules(pm, "pm", prog)
    firings: list = []

    class Watched:   # graph_rewrite only calls rewrite(uop, ctx)
      def rewrite(self, u: UOp, ctx: Any = None) -> UOp | None:
        if (fired := rules.fire(u, ctx)) is None: return None
        firings.append(Firing(cast(Any, u), rules.rules.index(fired[0]), cast(Any, fired[1])))   # Firing's nodes: any IR's
        return fired[1]
    try: return graph_rewrite(prog, cast(Any, Watched()), ctx=None), None, firings
    except Exception as e: return None, f"tinygrad's graph_rewrite raised {type(e).__name__}: {e}", firings

  def reordered(self, pm: Any, order: tuple[int, ...]) -> PatternMatcher:
    """The same rules in another order, as a tinygrad ``PatternMatcher``."""
    pats = self.rules(pm, "pm", None).pm.patterns
    return PatternMatcher([pats[k] for k in order])

  def compare(self, a: UOp, b: UOp, prog: UOp, bindings: int = 8, seed: int = 0) -> tuple[str, str]:
    from uopc.relational.adapters.tinygrad.values import compare_values
    return compare_values(a, b, prog, bindings, seed)

  def basis(self, prog: UOp, bindings: int) -> str:
    from uopc.relational.adapters.tinygrad.values import variables
    if not (vs := variables(prog)): return "the program is closed: results compared by value (tinygrad's exec_alu), bit for bit"
    from uopc.relational.adapters.tinygrad.smt import variable_name
    names = ", ".join(str(variable_name(v)) for v in vs)
    return f"the program has variables ({names}): results proved equal by z3 for every value within their bounds (an exact " \
           "encoding of tinygrad's exec_alu), or evaluated by tinygrad's exec_alu at an input where they differ (z3's, or " \
           f"one of the edge values and {bindings} + 64 random bindings tried), bit for bit"

  def parts(self, node: UOp) -> Any: return node_parts(node)

  def named_rules(self, name: str) -> PatternMatcher:
    """``tinygrad:NAME``: a ``PatternMatcher`` of ``tinygrad.uop.symbolic`` (``symbolic``, ``symbolic_simple``, ``sym``)."""
    import tinygrad.uop.symbolic as sets
    if not isinstance(pm := getattr(sets, name, None), PatternMatcher): raise KeyError(f"tinygrad.uop.symbolic has no attribute {name!r}")
    return pm

  def adopt_rules(self, obj: Any, spec: str) -> PatternMatcher:
    if not isinstance(obj, PatternMatcher): raise TypeError(f"{spec} is a {type_name(type(obj))}, not a {type_name(PatternMatcher)}")
    return obj   # taken as it is: the explorer adapts it (``rules``)

  def sum_rules(self, sets: Sequence[Any], spec: str) -> PatternMatcher:
    total = sets[0]
    for more in sets[1:]: total = total + more   # tinygrad's own +
    return total

  def overlaps(self, pm: Any) -> Any:
    from uopc.relational.adapters.tinygrad.pairs import TinygradOverlaps   # only critical_pairs needs it
    return TinygradOverlaps(self.rules(pm, "pm", None))

  def variable_like(self, node: UOp, taken: set[str]) -> UOp | None:
    """``UOp.variable`` over ``node``'s dtype and bounds (``vmin``, ``vmax``: a rule reading the range sees the same one),
    named ``x0``, ``x1``, ... the first not in ``taken``."""
    name = next(f"x{k}" for k in range(len(taken) + 1) if f"x{k}" not in taken)
    try: return UOp.variable(name, node.vmin, node.vmax, node.dtype)
    except Exception: return None   # a dtype or range tinygrad's variables do not take (a pointer, void)

  def const_like(self, node: UOp, value: Any) -> UOp | None:
    try: return UOp.const(value, node.dtype) if node.dtype != dtypes.void else None
    except Exception: return None   # not a value of that dtype

  def regression_test(self, prog: UOp, rules: str, subset: tuple[int, ...] | None, finding: Any, name: str) -> str | None:
    from uopc.relational.adapters.tinygrad.regression import regression_test
    from uopc.relational.ir.registry import resolve_rules
    named = [(r.name, r.location) for r in adapt(resolve_rules(rules)).rules]   # a rule the finding names, found by name or file:line
    return regression_test(prog, rules, subset, finding, name, named)

  def from_uopc(self, prog: Any) -> UOp:
    from uopc.relational.adapters.tinygrad.convert import from_uopc
    return from_uopc(prog)


_NAMED = {op for op in Ops if op.name in ("BUFFER", "PARAM", "DEFINE_VAR")}


def node_parts(u: UOp) -> Any:
  """A tinygrad node's one-line term: a constant's value, a variable's name, else ``op(sources..., arg)``.

  >>> from tinygrad.uop.ops import UOp
  >>> from uopc.term import let_form
  >>> a = UOp.variable("a", 0, 10)
  >>> let_form((a + 3) * 2, node_parts)
  'mul(add(a, 3), 2)'
  """
  if u.op is Ops.CONST: return repr(u.arg)
  if isinstance(name := getattr(u.arg, "name", None), str) and u.op in _NAMED: return name   # a variable (UOp.variable)
  trailing = u.dtype.name if u.op in (Ops.CAST, Ops.BITCAST) else None if u.arg is None else repr(u.arg)
  return op_parts(u.op.name.lower(), u.src, trailing)


TINYGRAD = register(TinygradIR())
PARTS[UOp] = node_parts   # uopc.term.show prints tinygrad nodes in the one-line term form
