"""The node and rule protocols: what the explorer needs of an IR.

**Nodes.** A node has ``op``, ``dtype``, ``arg`` and ``src`` (a tuple of nodes); nodes are
hash-consed, so identity is equality and a node is its own dictionary key. An IR makes a
node from those four fields (``make``), may look one up without making it (``existing``),
and says which exception a node that does not type-check raises (``build_error``).

**Rules.** The rule set an IR hands the explorer (``rules(pm, ...)``) has ``rules`` (each
with a stable ``name`` and a ``location``, ``file.py:line``), ``name_of(rule)``, ``by_op``
(the ops some rule may match) and ``every_candidate(node)``: ``(rule index, match, fn)`` for
each rule that may rewrite the node, where ``match(node)`` is the list of every binding (not
only the first) and ``fn(**binding)`` (``fn(**binding, ctx=ctx)`` with a ctx) the rule's
result: a node, or None. ``result_problem(node, result)`` says why a result cannot replace
the node (None if it can). Every ``(rule, result)`` of a node is one step.

**The reduction** (``reducible``) reads the rules' patterns filed under an op (``patterns``), each over-approximated
as ``uopc.relational.ir.patterns`` says, and never calls a node of ``opaque_ops`` inert.

**The canonical result** is the IR's own rewrite engine (``canonical``); ``canonical_variants``
gives its other documented choices (tinygrad's ``bottom_up=True``) for reports to compare.
``diagnose_order`` also needs the engine's firings (``record``, replayed by the rule set's
``fire(node)``), the rules in another order (``reordered``) and a comparison of two
results' values in the IR's semantics (``compare``, ``basis``). ``critical_pairs`` needs the
overlaps of the IR's own patterns and their instances (``overlaps``; an IR without them gets a
one-line error).
"""
from __future__ import annotations

from collections import Counter
from typing import Any, Callable, Protocol, Sequence, TypeVar, runtime_checkable

N = TypeVar("N")   # an IR's node type


def stable_names(own: list[str | None], positional: list[str]) -> list[str]:
  """The names of another IR's rules: each rule's own where it has one (its function's ``__name__``, a rewriter's
  name), with ``#i`` (its index) only where rules share it, so the names are unique; else ``positional[i]``, the
  fallback ``set#i ...`` of an unnamed rule (a lambda), as ``uopc.matcher`` names one.

  >>> stable_names(["fold", None, "fold", "lt_folding"], ["s#0 a.py:1", "s#1 a.py:2", "s#2 a.py:3", "s#3 a.py:4"])
  ['fold#0', 's#1 a.py:2', 'fold#2', 'lt_folding']
  """
  shared = Counter(n for n in own if n is not None)
  return [positional[i] if n is None else n if shared[n] == 1 else f"{n}#{i}" for i, n in enumerate(own)]


def type_name(t: type) -> str:
  """``module.qualname`` of a type (just the name for a builtin).

  >>> type_name(int), type_name(type_name.__class__)
  ('int', 'function')
  """
  return t.__qualname__ if t.__module__ == "builtins" else f"{t.__module__}.{t.__qualname__}"


def mismatch(what: str, pm: Any, node: Any) -> TypeError:
  """The one-line error of a rule set and a program of different IRs, naming both types with their modules."""
  return TypeError(f"{what} is a {type_name(type(pm))}, but the program is a {type_name(type(node))}: "
                   "a rule set rewrites only the nodes of its own IR")


@runtime_checkable
class IR(Protocol[N]):
  """One implementation of the node and rule protocols, generic in its node type ``N`` (the defaults describe what each
  member is). An adapter subclasses it, ``class TinygradIR(IR[UOp])``, so the type checker holds its methods to ``N``."""
  name: str = "?"
  engine: str = "graph_rewrite"   # what reports call the IR's own rewrite engine, whose result is "the canonical" one
  node_type: type[N]
  native: bool = False      # the native core (_space.c) can hold its nodes
  reducible: bool = False   # the partial-order reduction can read its rules' patterns (``patterns``)
  opaque_ops: frozenset = frozenset()   # ops whose nodes the reduction never calls inert (uopc's CALL)
  build_error: type[BaseException] = Exception   # what make raises for a node that does not type-check

  def make(self, op: Any, src: tuple, arg: Any, dtype: Any) -> N:
    """The node ``op(*src)`` with this arg and dtype (hash-consed: the same fields give the same node)."""
    raise NotImplementedError

  def existing(self, op: Any, dtype: Any, arg: Any) -> Callable[[tuple], N | None]:
    """``get(src)``: the node of these fields on ``src`` if it exists (or cheaply made), else None."""
    return lambda src: self.make(op, src, arg, dtype)

  def result_problem(self, node: N, result: Any) -> str | None:
    """Why ``result`` cannot replace ``node`` (not a node of this IR, ...), or None if it can."""
    return None if type(result) is self.node_type else f"returned {type(result).__name__}, not a {type_name(self.node_type)}"

  def rules(self, pm: Any, what: str, node: Any) -> Any:
    """``pm`` as this IR's rule protocol; a TypeError naming both types when it is not one of this IR's rule sets."""
    raise NotImplementedError

  def patterns(self, rules: Any, op: Any) -> Sequence[Any]:
    """The patterns of the rules of ``rules`` (this IR's rule protocol) filed under ``op``, as the partial-order reduction
    reads them (``uopc.relational.ir.patterns``: uopc's ``UPat``s, or ``PatternView``s that accept every node the rule's
    pattern matches, and maybe more); empty where no rule may match a node of ``op``. Only a ``reducible`` IR's is read."""
    raise NotImplementedError

  def canonical(self, prog: N, pm: Any, ctx: Any = None, max_steps: int | None = None) -> tuple[N | None, str | None]:
    """What this IR's own rewrite engine makes of ``prog``: ``(result, None)`` or ``(None, error)``."""
    raise NotImplementedError

  def canonical_variants(self, prog: N, pm: Any, ctx: Any = None) -> list[tuple[str, N | None, str | None]]:
    """The engine's other choices, ``(label, result, error)``, for reports to set beside ``canonical``."""
    return []

  def record(self, prog: N, pm: Any, max_steps: int | None = None) -> tuple[N | None, str | None, list]:
    """``canonical`` with its firings, ``(result or None, error or None, [uopc.trace.Firing])``: the canonical path of
    ``diagnose_order``. The rule protocol's ``fire(node)`` (the engine's one choice at a node) replays it."""
    raise NotImplementedError

  def reordered(self, pm: Any, order: tuple[int, ...]) -> Any:
    """The rule set with its rules in ``order`` (indices), for ``canonical`` to run: ``permutation_trials``."""
    raise NotImplementedError

  def compare(self, a: N, b: N, prog: N, bindings: int = 8, seed: int = 0) -> tuple[str, str]:
    """``(kind, detail)``: do results ``a`` and ``b`` of ``prog`` compute different values at an input, replayed in the
    IR's own evaluation (``semantic``), the same for all inputs, proved (``syntactic``), or neither: a witness search on
    edge values and ``bindings`` random bindings found no difference (``no-difference-found``) or nothing could be
    evaluated (``unknown``)? ``detail`` says it in words (``docs/verdicts.md``). (uopc's own is the analyses':
    ``uopc.relational.analyses.verdicts.compare_results``.)"""
    raise TypeError(f"results of {self.name} programs are not compared here")

  def basis(self, prog: N, bindings: int) -> str:
    """How ``compare`` decides for ``prog``, in words (a report's ``basis``)."""
    raise NotImplementedError

  def parts(self, node: N) -> Any:
    """A leaf's text, or the pieces of a node's one-line term (``uopc.term.node_parts``)."""
    raise NotImplementedError

  def overlaps(self, pm: Any) -> Any:
    """The overlaps of rule set ``pm`` (this IR's rule protocol) for ``critical_pairs``: an object with ``groups``
    (``{(outer, inner, written path): [overlap, ...]}``), ``skipped`` (``[(rule name, why it is not analyzed)]``),
    ``text(overlap)``, ``instances(group, max_instances)`` (``([(node, actual path of the inner redex, overlap), ...],
    ill-typed count, {why there are none})``) and ``renaming(node)`` (a function renaming a witness's free variables,
    and every node derived from it, alike). The default: a TypeError, critical pairs not computed for this IR."""
    raise TypeError(f"critical pairs of {self.name} rule sets are not computed")

  def from_uopc(self, prog: Any) -> N:
    """uopc program ``prog`` (a ``.uir`` file's) as this IR's nodes, for a rule set of this IR; a ValueError naming what
    does not translate. The default: a TypeError, a ``.uir`` program is not built in this IR."""
    raise TypeError(f"a .uir program is not built as {self.name} nodes")

  def named_rules(self, name: str) -> Any:
    """The rule set the command line's ``NAME:name`` names (``tinygrad:symbolic``); a KeyError saying what names exist."""
    raise KeyError(f"{self.name} has no named rule sets")

  def adopt_rules(self, obj: Any, spec: str) -> Any:
    """``obj``, an object of this IR's library given as ``module:attr`` (``spec``), as a rule set the explorer takes; a
    TypeError when it is not one."""
    raise TypeError(f"{spec} is not a rule set of {self.name}")

  def sum_rules(self, sets: Sequence[Any], spec: str) -> Any:
    """The sum of this IR's rule sets ``sets`` (``a+b`` on the command line), in order."""
    raise TypeError(f"{spec}: {self.name} rule sets do not add up")

  def variable_like(self, node: N, taken: set[str]) -> N | None:
    """A fresh free variable that may stand for ``node`` (its dtype; where the IR bounds variables, ``node``'s bounds), whose
    text (``parts``) is not in ``taken``; None where the IR has none for it. The minimizer's replacement of a subgraph."""
    return None

  def const_like(self, node: N, value: Any) -> N | None:
    """The constant ``value`` of ``node``'s dtype, or None where it is not one. The minimizer's shrinking of constants."""
    return None

  def regression_test(self, prog: N, rules: str, subset: tuple[int, ...] | None, finding: Any, name: str) -> str | None:
    """A ready-to-paste test in the IR's own project that fails while ``finding`` (``uopc.relational.analyses.minimize.Finding``)
    shows on ``prog`` under the rule set ``rules`` names (``--rules`` spec; ``subset``: only those rules, in order), built
    with the IR's own API; None where the IR's engine alone cannot show the finding (the caller writes a uopc test)."""
    return None

  def host_node(self, obj: Any) -> N | None:
    """An object of this IR's library that stands for a graph (a PyTensor variable) as this IR's node, or None."""
    return None

  def __repr__(self) -> str: return f"<IR {self.name}: {type_name(self.node_type)}>"
