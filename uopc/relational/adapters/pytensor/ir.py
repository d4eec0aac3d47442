"""PyTensor graphs and PyTensor's own node rewriters as an implementation of the node and rule protocols.

Imported only when a PyTensor node reaches the explorer (``uopc.relational.ir.ir_of``); it needs
PyTensor installed (``pip install -e '.[pytensor]'``). A graph enters as hash-consed nodes
(``uopc.relational.adapters.pytensor.nodes``: ``from_pytensor``), every rewrite step shares what it
does not change, and a state's graph becomes PyTensor's again only when read (``to_pytensor``).

Any node rewriter is a rule, called unchanged: a ``node_rewriter``-decorated function, a
``PatternNodeRewriter``, the members of a ``SequentialNodeRewriter``, the node rewriters held by
``in2out``/``out2in`` (``WalkingGraphRewriter``) or an ``EquilibriumGraphRewriter``, or a list of
them. Which rules a node is offered to is PyTensor's own ``OpToRewriterTracker`` (``tracks``:
op instances, op types, ``OpPattern``s). A rule is called as PyTensor calls it,
``rewriter.transform(fgraph, node)``, where ``node`` is the state's ``Apply`` and ``fgraph`` the
state's context (``uopc.relational.adapters.pytensor.context``: a ``FunctionGraph`` of the whole state's
graph, built when the rewriter first reads it). Its replacement of the node's output, filtered
to the output's type as ``FunctionGraph.replace`` filters it, is one step; a rewriter that raises
is a stuck state naming it (``local_exp_log (math.py:521)``). A rule's name is the rewriter's own
(``rewriter_own_name``), with its index only where two rewriters share one (``protocol.stable_names``).

The canonical result is PyTensor's own rewrite: an ``EquilibriumGraphRewriter`` of the same node
rewriters (and ``MergeOptimizer``, since the explorer's states are merged graphs) on a
``FunctionGraph`` of the graph, ``max_use_ratio`` PyTensor's ``optdb__max_use_ratio``.

>>> import pytensor.tensor as pt
>>> from pytensor.tensor.rewriting.math import local_exp_log
>>> from uopc.relational import normal_forms
>>> x = pt.vector("x")
>>> nf = normal_forms(from_pytensor(pt.log(pt.exp(x + x))), [local_exp_log])
>>> sorted(s.term() for s in nf.forms), nf.canonical is nf.forms[0].graph
(['add(x, x)'], True)
"""
from __future__ import annotations

import os
import weakref
from collections import Counter
from typing import Any, Callable, Iterable, Sequence, cast

from pytensor.graph.features import Feature
from pytensor.graph.fg import FunctionGraph, Output
from pytensor.graph.rewriting.basic import (EquilibriumGraphRewriter, MergeOptimizer, NodeRewriter, OpToRewriterTracker,
                                            PatternNodeRewriter, SequentialNodeRewriter, WalkingGraphRewriter)
from pytensor.graph.rewriting.unify import OpPattern

from uopc.relational.ir.discovery import other_ir_rules
from uopc.relational.ir.protocol import IR, mismatch, stable_names, type_name
from uopc.relational.ir.patterns import TRACKED, PatternView
from uopc.relational.ir.registry import register
from uopc.relational.adapters.pytensor.context import Contexts
from uopc.relational.adapters.pytensor.nodes import INPUT, PyTensorNode, from_pytensor, make, node_of, node_parts, to_pytensor
from uopc.term import PARTS

__all__ = ["PYTENSOR", "PyTensorNode", "PyTensorRules", "from_pytensor", "node_rewriters", "to_pytensor"]


def node_rewriters(pm: Any) -> tuple[list[NodeRewriter], list[str]]:
  """The node rewriters ``pm`` holds, in order, and what was left out (a global rewriter is not a node rewriter).

  >>> from pytensor.graph.rewriting.basic import in2out
  >>> from pytensor.tensor.rewriting.math import local_exp_log
  >>> node_rewriters([in2out(local_exp_log), local_exp_log])[0] == [local_exp_log, local_exp_log]
  True
  """
  out: list[NodeRewriter] = []
  skipped: list[str] = []
  todo = [pm]
  while todo:
    r = todo.pop()
    if isinstance(r, (list, tuple)): todo.extend(reversed(r))
    elif isinstance(r, SequentialNodeRewriter): todo.extend(reversed(r.rewrites))
    elif isinstance(r, WalkingGraphRewriter): todo.append(r.node_rewriter)
    elif isinstance(r, EquilibriumGraphRewriter):
      todo.extend(reversed(list(r.get_node_rewriters())))
      graph = [*r.global_rewriters, *r.final_rewriters, *r.cleanup_rewriters]
      todo.extend(reversed([g for g in graph if isinstance(g, WalkingGraphRewriter)]))   # topo_constant_folding: in2out
      skipped.extend(f"{g} (a graph rewriter)" for g in graph if not isinstance(g, WalkingGraphRewriter))
    elif isinstance(r, NodeRewriter): out.append(r)
    else: raise TypeError(f"{type_name(type(r))} is not a PyTensor node rewriter, in2out, or equilibrium rewriter")
  return out, skipped


DATABASES = ("canonicalize", "stabilize", "specialize")   # PyTensor's rewrite databases a name gives


def named_rules(name: str) -> PyTensorRules:
  """``canonicalize``, ``stabilize``, ``specialize``: the node rewriters of PyTensor's database of that name (as its
  ``FAST_RUN`` mode queries it); any other name: the node rewriter of that name in ``pytensor.tensor.rewriting``.

  >>> len(named_rules("canonicalize")) > 100, named_rules("local_exp_log").rules[0].name
  (True, 'local_exp_log')
  """
  import importlib
  import pkgutil

  import pytensor.tensor.rewriting as rewriting
  from pytensor.compile.mode import optdb
  if name in DATABASES: return adapt(next(iter(optdb.__db__[name])).query("+fast_run"), name)   # the set holds the one database
  for m in pkgutil.iter_modules(rewriting.__path__):
    mod = importlib.import_module(f"{rewriting.__name__}.{m.name}")
    if isinstance(obj := getattr(mod, name, None), NodeRewriter): return adapt([obj], name)
  raise KeyError(f"pytensor:{name}: not one of {', '.join(DATABASES)}, nor a node rewriter in pytensor.tensor.rewriting")


def rewriter_name(rw: NodeRewriter) -> str:
  """A rewriter's name (``rewriter_own_name``), else as PyTensor prints it (a pattern's ``in -> out``)."""
  return rewriter_own_name(rw) or str(rw)


def rewriter_own_name(rw: NodeRewriter) -> str | None:
  """A rewriter's own name: its function's, its own, the one a database registered it under; None if it has none."""
  fn = getattr(rw, "fn", None)
  named = getattr(fn, "__name__", None) or getattr(rw, "__name__", None) or getattr(rw, "name", None)
  return named if isinstance(named, str) and named != "<lambda>" else None


def rewriter_location(rw: NodeRewriter) -> str:
  """``file.py:line`` of the rewriter's function, else of its class's ``transform`` (read from code objects: cheap)."""
  fn = getattr(rw, "fn", None)
  code = getattr(fn, "__code__", None) or getattr(getattr(type(rw), "transform", None), "__code__", None)
  return f"{os.path.basename(code.co_filename)}:{code.co_firstlineno}" if code is not None else type(rw).__name__


class PyTensorRule:
  """One node rewriter as a rule: the rewriter itself, a stable name and where it is written."""
  __slots__ = ("rewriter", "name", "location")

  def __init__(self, rewriter: NodeRewriter, name: str, location: str) -> None:
    self.rewriter, self.name, self.location = rewriter, name, location

  def describe(self) -> str: return f"{self.name} ({self.location})"
  def __repr__(self) -> str: return f"PyTensorRule({self.describe()})"


class _AtRoot(NodeRewriter):
  """A ``PatternNodeRewriter`` with ``get_nodes`` (tracked on one op, it rewrites the clients ``get_nodes`` finds) as a
  step: offered the nodes its pattern's root matches and called there (``get_nodes=False``), so it replaces the node
  it is called on. The same replacements: each node ``get_nodes`` would find is such a node."""

  def __init__(self, pattern: Any) -> None:
    self.pattern = pattern
    root = pattern.in_pattern["pattern"][0] if isinstance(pattern.in_pattern, dict) else pattern.in_pattern[0]
    self._tracks = [root.op_type] if isinstance(root, OpPattern) else [root]

  def tracks(self) -> Any: return self._tracks
  def transform(self, fgraph: Any, node: Any, *args: Any, **kw: Any) -> Any: return self.pattern.transform(fgraph, node, get_nodes=False)


def _as_step(rw: NodeRewriter) -> NodeRewriter:
  return _AtRoot(rw) if isinstance(rw, PatternNodeRewriter) and rw.get_nodes is not None else rw


class _Tracked:
  """``op in by_op``: does some rule track ``op`` (PyTensor's ``OpToRewriterTracker``; a leaf's head never)."""

  def __init__(self, rules: PyTensorRules) -> None: self.rules = rules
  def __contains__(self, op: Any) -> bool: return not isinstance(op, str) and bool(self.rules.tracking(op))
  def __iter__(self) -> Any: return iter(())


class PyTensorRules:
  """PyTensor node rewriters as the rule protocol (``uopc.relational.ir.protocol``). ``rewriters`` are PyTensor's own;
  ``contexts`` the states' ``FunctionGraph``s, made on demand (``enter_state``: the Stepper says which state it steps)."""

  def __init__(self, rewriters: list[NodeRewriter], name: str = "rules", skipped: Iterable[str] = ()) -> None:
    self.rewriters, self.set_name, self.ir, self.skipped = list(rewriters), name, PYTENSOR, list(skipped)
    names = stable_names([rewriter_own_name(rw) for rw in self.rewriters], [f"{name}#{i} {rw}" for i, rw in enumerate(self.rewriters)])
    self.rules = [PyTensorRule(rw, n, rewriter_location(rw)) for rw, n in zip(self.rewriters, names)]
    self._index = {id(rw): i for i, rw in reversed(list(enumerate(self.rewriters)))}   # the first copy is the one that fires
    self._steps = [_as_step(rw) for rw in self.rewriters]   # what a step calls (PyTensor's own rewrite calls rewriters)
    self._tracker = OpToRewriterTracker()
    for rw in self._steps: self._tracker.add_tracker(rw)
    self._by_op: dict[Any, tuple[int, ...]] = {}
    self._every: dict[Any, tuple] = {}
    self.by_op = _Tracked(self)
    self.contexts = Contexts()
    self.state: PyTensorNode | None = None   # the state being stepped (Stepper.map_of says)
    self.calls = 0
    # node -> its readings, {variable's node: its clients as read}: the nodes whose steps read fgraph.clients
    self.depends: weakref.WeakKeyDictionary[PyTensorNode, list[dict[PyTensorNode, Counter]]] = weakref.WeakKeyDictionary()
    self.stale = 0   # memoized steps found stale in a later state (and computed again there)

  def __len__(self) -> int: return len(self.rules)
  def name_of(self, rule: PyTensorRule) -> str: return rule.name

  def tracking(self, op: Any) -> tuple[int, ...]:
    """The indices of the rules PyTensor would offer a node of ``op`` to, in rule order."""
    if (t := self._by_op.get(op)) is None:
      mine = {id(rw) for rw in self._tracker.get_trackers(op)}
      t = self._by_op[op] = tuple(i for i, rw in enumerate(self._steps) if id(rw) in mine)
    return t

  def enter_state(self, root: PyTensorNode) -> set[PyTensorNode] | None:
    """The Stepper is about to step the state whose graph is ``root``: its rules' ``fgraph`` is that state's context.

    The nodes whose memoized steps may be stale here, for the Stepper to forget: a node whose rewriters read
    ``fgraph.clients`` in some earlier state where a variable they read had other clients than in this one, and
    every node above it. (A node's steps are memoized for every state that has it; most rewriters read only the
    node's own subgraph, the same in all of them. Any earlier reading counts, not only the last: a node above may
    have been stepped with any of them.)"""
    if root is self.state: return None
    self.state = root
    if not self.depends: return None
    nodes = root.toposort()
    watched = [n for n in nodes if n in self.depends]
    if not watched: return None
    uses = state_clients(nodes, root)
    stale = {n for n in watched if any(uses.get(v, _NONE) != seen for reading in self.depends[n] for v, seen in reading.items())}
    if not stale: return None
    self.stale += len(stale)
    out = set(stale)
    for n in nodes:   # sources first: every user of a stale node, up to the root
      if n not in out and any(s in out for s in n.src): out.add(n)
    return out

  def every_candidate(self, u: PyTensorNode) -> tuple[tuple[int, Callable, Callable], ...]:
    if (every := self._every.get(u.op)) is None:
      every = self._every[u.op] = tuple((i, _match_node, self._caller(i)) for i in self.tracking(u.op))
    return every

  def _caller(self, i: int) -> Callable:
    def fn(u: PyTensorNode, ctx: Any = None) -> PyTensorNode | None: return self.apply(i, u)
    return fn

  def apply(self, i: int, u: PyTensorNode, state: PyTensorNode | None = None) -> PyTensorNode | None:
    """Rule ``i`` on node ``u`` of the state ``state`` (default: the state being stepped, else ``u``'s own graph): the node
    its replacement makes, or None. Raises what the rewriter raises."""
    rw = self._steps[i]
    var = to_pytensor(u)
    node = var.owner
    fgraph = self.contexts.of(state or self.state or u)
    self.calls += 1
    self.contexts.running, self.contexts.seen = rewriter_name(self.rewriters[i]), []
    try: ret = rw.transform(fgraph, node)
    finally:
      self.contexts.running = None
      if self.contexts.seen: self._depends_on(u, self.contexts.seen)
    if not ret: return None
    ret = cast(Any, ret)   # a list of replacements, one per output, or a dict of them
    if isinstance(ret, dict):
      new = ret.get(var)
      if extra := [k for k in ret if k != "remove" and k not in node.outputs]:
        raise ValueError(f"the rewriter replaces {len(extra)} variable(s) other than the node's outputs: not one step")
    else:
      if len(ret) != len(node.outputs):
        raise ValueError(f"the rewriter returned {len(ret)} replacement(s) for a node of {len(node.outputs)} output(s)")
      new = ret[node.outputs.index(var)]
    if new is None or new is var: return None
    return from_pytensor(var.type.filter_variable(new, allow_convert=True))   # as FunctionGraph.replace does

  def _depends_on(self, u: PyTensorNode, seen: list[tuple[Any, Any]]) -> None:
    """Note that ``u``'s steps read these clients (``(variable, its clients)``), as the explorer's nodes: one reading."""
    reading: dict[PyTensorNode, Counter] = {}
    for var, clients in seen:
      if (v := node_of(var)) is None or clients is None: continue
      reading[v] = Counter((("output", i) if isinstance(a.op, Output) else _apply_node(a), i) for a, i in clients)
    if reading and reading not in (mine := self.depends.setdefault(u, [])): mine.append(reading)

  def fire(self, u: PyTensorNode, ctx: Any = None) -> tuple[PyTensorRule, PyTensorNode] | None:
    """The first rule (in order) that rewrites ``u``, and its result, or None."""
    for i in self.tracking(u.op) if not isinstance(u.op, str) else ():
      if (m := self.apply(i, u)) is not None and m is not u: return self.rules[i], m
    return None

  def reordered(self, order: tuple[int, ...]) -> PyTensorRules:
    return PyTensorRules([self.rewriters[k] for k in order], self.set_name, self.skipped)


_NONE: Counter = Counter()


def _apply_node(a: Any) -> PyTensorNode:
  """The node of an ``Apply``'s first output: the key of the ``Apply`` among clients."""
  return n if (n := node_of(a.outputs[0])) is not None else from_pytensor(a.outputs[0])


def state_clients(nodes: list[PyTensorNode], root: PyTensorNode) -> dict[PyTensorNode, Counter]:
  """Each node's clients in the state of graph ``root`` (``nodes``: its toposort), as ``fgraph.clients`` would list them:
  ``(the client Apply's first output's node, input index)`` or ``("output", 0)``, counted.

  >>> import pytensor.tensor as pt
  >>> x = pt.vector("x")
  >>> g = from_pytensor(pt.exp(x) + x)
  >>> sorted(i for _, i in state_clients(g.toposort(), g)[from_pytensor(x)])
  [0, 1]
  """
  uses: dict[PyTensorNode, Counter] = {root: Counter({("output", 0): 1})}
  applies: set[PyTensorNode] = set()
  for n in nodes:
    if isinstance(n.op, str) or (key := make(n.op, n.src, 0, n.dtype)) in applies: continue
    applies.add(key)
    for i, s in enumerate(n.src): uses.setdefault(s, Counter())[(key, i)] += 1
  return uses


def _match_node(u: PyTensorNode) -> list[dict[str, PyTensorNode]]:
  return [{"u": u}]   # a node rewriter matches by itself, when called: its one binding is the node


# the adapter of each rewriter list while something (an exploration, a goal) uses it, so one Stepper's memo and one set of
# contexts serve them all; the adapter holds its rewriters, so the ids in its key stay theirs
_adapters: weakref.WeakValueDictionary[tuple, PyTensorRules] = weakref.WeakValueDictionary()


def adapt(pm: Any, name: str = "rules") -> PyTensorRules:
  """The rule protocol of PyTensor rewriter(s) ``pm`` (one adapter per rewriter list and name while it is used, so
  memos and contexts are shared).

  >>> from pytensor.tensor.rewriting.math import local_exp_log
  >>> rules = adapt([local_exp_log])
  >>> adapt([local_exp_log]) is rules, rules.rules[0].name, rules.rules[0].describe()
  (True, 'local_exp_log', 'local_exp_log (math.py:521)')
  """
  if isinstance(pm, PyTensorRules): return pm
  rws, skipped = node_rewriters(pm)
  key = (name, *(id(r) for r in rws))
  if (a := _adapters.get(key)) is None or [id(r) for r in a.rewriters] != list(key[1:]):
    a = _adapters[key] = PyTensorRules(rws, name, skipped)
  return a


class _Firings(Feature):
  """Notes every replacement a ``FunctionGraph`` makes for one of ``rules``: ``(node, rule index, result)`` as nodes."""

  def __init__(self, rules: PyTensorRules) -> None:
    self.rules = rules
    self.firings: list = []
    self._seen: set = set()

  def on_change_input(self, fgraph: Any, node: Any, i: int, r: Any, new_r: Any, reason: Any = None) -> None:
    from uopc.trace import Firing
    k = self.rules._index.get(id(reason))
    if k is None or (id(r), id(new_r)) in self._seen: return
    self._seen.add((id(r), id(new_r)))
    self.firings.append(Firing(cast(Any, from_pytensor(r, adopt=False)), k, cast(Any, from_pytensor(new_r, adopt=False))))


def pytensor_rewrite(prog: PyTensorNode, rules: PyTensorRules, watch: Feature | None = None) -> PyTensorNode:
  """PyTensor's own rewrite of ``prog``: an ``EquilibriumGraphRewriter`` of the rules' node rewriters and
  ``MergeOptimizer`` on a ``FunctionGraph`` of a copy of the graph (its inputs and constants shared), with a
  ``ShapeFeature``."""
  from pytensor import config
  from pytensor.graph.basic import clone_get_equiv
  out: Any = to_pytensor(prog)
  inputs: list[Any] = [n.var for n in prog.toposort() if n.op == INPUT]
  memo: Any = clone_get_equiv(inputs, [out], copy_inputs=False, copy_orphans=False)
  fg = FunctionGraph(inputs, [memo[out]], clone=False)
  from pytensor.tensor.rewriting.shape import ShapeFeature
  fg.attach_feature(ShapeFeature())   # as PyTensor's FAST_RUN attaches it first, and as a state's context has it on demand
  if watch is not None: fg.attach_feature(watch)
  EquilibriumGraphRewriter([MergeOptimizer(), *rules.rewriters], max_use_ratio=config.optdb__max_use_ratio).rewrite(fg)
  return from_pytensor(fg.outputs[0], adopt=False)


class PyTensorIR(IR[PyTensorNode]):
  name, node_type, native, reducible = "pytensor", PyTensorNode, False, True

  def patterns(self, rules: PyTensorRules, op: Any) -> tuple[PatternView, ...]:
    """A rewriter is read as matching every node of an op it tracks (``TRACKED``): the ops it declares are all it says."""
    return (TRACKED,) if op in rules.by_op else ()
  engine = "PyTensor's EquilibriumGraphRewriter"

  class build_error(Exception):   # a node is rebuilt on its output types, as FunctionGraph.replace keeps them: nothing to catch
    pass

  def make(self, op: Any, src: tuple, arg: Any, dtype: Any) -> PyTensorNode: return make(op, src, arg, dtype)

  def rules(self, pm: Any, what: str, node: Any) -> PyTensorRules:
    if isinstance(pm, PyTensorRules): return pm
    if other_ir_rules(pm, self.name) is not None: raise mismatch(what, pm, node)
    try: return adapt(pm)
    except TypeError as e: raise TypeError(f"{what}: {e} (the program is a {type_name(PyTensorNode)})") from None

  def canonical(self, prog: PyTensorNode, pm: Any, ctx: Any = None, max_steps: int | None = None) -> tuple[PyTensorNode | None, str | None]:
    try: return pytensor_rewrite(prog, self.rules(pm, "pm", prog)), None
    except Exception as e: return None, f"PyTensor's rewrite raised {type(e).__name__}: {e}"

  def record(self, prog: PyTensorNode, pm: Any, max_steps: int | None = None) -> tuple[PyTensorNode | None, str | None, list]:
    """``canonical`` with its firings: every replacement PyTensor's rewrite makes for one of the rules, in order (a
    ``Feature`` on its ``FunctionGraph`` watches ``on_change_input``; the graph is not changed)."""
    rules = self.rules(pm, "pm", prog)
    watch = _Firings(rules)
    try: return pytensor_rewrite(prog, rules, watch), None, watch.firings
    except Exception as e: return None, f"PyTensor's rewrite raised {type(e).__name__}: {e}", watch.firings

  def reordered(self, pm: Any, order: tuple[int, ...]) -> PyTensorRules: return self.rules(pm, "pm", None).reordered(order)

  def compare(self, a: PyTensorNode, b: PyTensorNode, prog: PyTensorNode, bindings: int = 8, seed: int = 0) -> tuple[str, str]:
    from uopc.relational.adapters.pytensor.values import compare_values
    return compare_values(a, b, prog, bindings, seed)

  def basis(self, prog: PyTensorNode, bindings: int) -> str:
    from uopc.relational.adapters.pytensor.values import inputs_of
    if not (vs := inputs_of(prog)): return "the graph has no inputs: results compared by value (PyTensor's Python perform)"
    return f"the graph has inputs ({', '.join(str(v.name) for v in vs)}): a witness search, nothing proved: results evaluated by " \
           f"PyTensor's Python perform on edge inputs (0, ±1, ±40, ±800, the limits, inf, nan) and {bindings} random ones; " \
           "inf or nan on one side only differs, finite values within float tolerance (numpy.allclose) do not"

  def parts(self, node: PyTensorNode) -> Any: return node_parts(node)
  def named_rules(self, name: str) -> PyTensorRules: return named_rules(name)
  def adopt_rules(self, obj: Any, spec: str) -> PyTensorRules: return adapt(obj)   # node rewriters, or a list of them
  def sum_rules(self, sets: Sequence[Any], spec: str) -> PyTensorRules: return adapt([rw for s in sets for rw in s.rewriters], spec)

  def host_node(self, obj: Any) -> PyTensorNode | None:
    """A PyTensor variable as its graph's node (``from_pytensor``)."""
    return from_pytensor(obj) if hasattr(obj, "owner") else None


PYTENSOR = register(PyTensorIR())
PARTS[PyTensorNode] = node_parts   # uopc.term.show prints PyTensor nodes in the one-line term form
