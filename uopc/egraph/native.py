"""Saturation in C (``uopc/egraph/_egraph.c``): the same iterations, the same e-graph, for rule sets of template rules.

The C core does what ``saturate``'s loop does with a rule whose function is a template
(``uopc.egraph.template``) and whose pattern is compiled (``uopc.egraph.ecompile``) without
reading a representative: hash consing, union-find, rebuild, semi-naive matching over class
ids and the template's nodes added over the bound classes, step for step in the same order,
so the e-graph it hands back is the one the Python loop makes (the same class ids, e-nodes,
iterations, stop and counts); then the extraction, the same way. The scheduler is asked as in the Python loop. A rule set with
any other rule (a function called per match), a program with a ``CALL``, ``UOPC_NATIVE=0``
or a build without the extension runs in Python instead (``unsupported`` says why).

>>> from uopc.uop import UOp
>>> from uopc.egraph import saturate
>>> from uopc.rulesets import resolve_rules
>>> pm = resolve_rules("examples/saturation_rules.py:rules")
>>> prog = (UOp.param(0) * 2 + 0) * 1 + (UOp.param(1) + 0)
>>> a, b = saturate(prog, pm, native=False), saturate(prog, pm, native=available())
>>> (a.enodes, a.eclasses, a.iterations, a.cost) == (b.enodes, b.eclasses, b.iterations, b.cost), a.native
(True, False)
"""
from __future__ import annotations

import time
from typing import Any

from uopc import native_switch
from uopc.cost import MAX_WEIGHT, Cost
from uopc.egraph.egraph import EClass, EGraph, enode_key
from uopc.egraph.seminaive import names
from uopc.egraph.template import NO_RESULT, Template
from uopc.ops import Ops
from uopc.upat import UPat
from uopc.uop import UOp, UOpError, fill_bottom_up, make_uop

try:
  from uopc.egraph import _egraph   # type: ignore[attr-defined]
except ImportError:   # not built (no C compiler at install): the Python loop runs
  _egraph = None


MAX_SOURCES = 64   # the C core's e-nodes and patterns have at most this many children


def available() -> bool:
  """Whether the extension is built and not turned off (``UOPC_NATIVE=0``, ``uopc.native_switch``)."""
  return _egraph is not None and native_switch.enabled()


def unsupported(prog: UOp, pats: list[UPat], templates: list[Template | None], rep_free: list[bool], compiled: list[Any]) -> str | None:
  """Why the C core cannot run this saturation, or None if it can."""
  if _egraph is None: return "the extension uopc.egraph._egraph is not built"
  if (off := native_switch.why_off()) is not None: return off
  for i, (t, rf, f) in enumerate(zip(templates, rep_free, compiled)):
    if t is None or not rf or f is None: return f"rule {i} is not a template rule over a compiled pattern that reads only classes"
    if _widest(pats[i]) > MAX_SOURCES: return f"rule {i}'s pattern has a node of more than {MAX_SOURCES} sources"
  nodes = prog.toposort()
  if any(u.op is Ops.CALL for u in nodes): return "the program has a CALL"
  if any(len(u.src) > MAX_SOURCES for u in nodes): return f"a node of the program has more than {MAX_SOURCES} sources"
  return None


def _widest(p: UPat) -> int:
  """The most sources a node of pattern ``p`` has."""
  out, stack = 0, [p]
  while stack:
    q = stack.pop()
    out = max(out, len(q.src or ()))
    stack.extend(q.src or ())
  return out


class _Tests:
  """The label and type tests of the patterns, numbered, and the labels and types seen, numbered as the core numbers them."""

  def __init__(self) -> None:
    self.ltests: list[tuple[Any, Any]] = []   # (ops, arg or None) of each structured pattern node
    self.ttests: list[Any] = []                     # the dtypes of each pattern node with a dtype
    self.labels: dict[tuple, int] = {}
    self.label_objs: list[tuple] = []               # (op, dtype, arg) as egraph.py's e-nodes hold them
    self.types: dict[tuple, int] = {}
    self.type_objs: list[tuple] = []
    self.core: Any = None

  def flatten(self, p: UPat, order: tuple[str, ...]) -> tuple:
    """The pattern's nodes in pre-order (a node's children after it): (var, name, type test, label test, src_none, orders)."""
    out: list[Any] = []
    stack: list[tuple[UPat, int, int, int]] = [(p, -1, 0, 0)]   # (pattern, parent node, order, position)
    kids: dict[int, list[list[int]]] = {}
    while stack:   # iterative pre-order, children in order (stack reversed)
      q, parent, o, j = stack.pop()
      me = len(out)
      if parent >= 0: kids[parent][o][j] = me
      tt = -1
      if q.dtype is not None:
        tt = len(self.ttests)
        self.ttests.append(q.dtype)
      if q.op is None and q.src is None:
        out.append((1, -1 if q.name is None else order.index(q.name), tt, -1, 0))
        continue
      lt = len(self.ltests)
      self.ltests.append((q.op, q.arg))
      out.append((0, -1, tt, lt, int(q.src is None)))
      kids[me] = [[-1] * len(sub) for sub in q._orders] if q.src is not None else []
      for oi in range(len(q._orders) - 1, -1, -1) if q.src is not None else ():
        sub = q._orders[oi]
        for jj in range(len(sub) - 1, -1, -1): stack.append((sub[jj], me, oi, jj))
    return tuple((*n, tuple(tuple(o) for o in kids.get(i, []))) for i, n in enumerate(out))

  def label(self, op: Ops, dtype: Any, key: Any) -> int:
    if (i := self.labels.get(lk := (op, dtype, key))) is not None: return i
    arg = key.arg if op is Ops.CONST else key
    tests = bytes(int(op in ops and (want is None or arg == want)) for ops, want in self.ltests)
    i = self.labels[lk] = self.core.label(op is Ops.CONST, tests)
    self.label_objs.append(lk)
    return i

  def type(self, dtype: Any, shape: Any) -> int:
    if (i := self.types.get(tk := (dtype, shape))) is not None: return i
    i = self.types[tk] = self.core.type(bytes(int(dtype in dts) for dts in self.ttests))
    self.type_objs.append(tk)
    return i


class NativeRun:
  """One saturation's e-graph in the C core, with ``saturate``'s iteration as phases."""

  def __init__(self, prog: UOp, pats: list[UPat], templates: list[Template], heights: list[int]) -> None:
    self.tests = tests = _Tests()
    self.templates = templates
    specs = []
    for pat, t, h in zip(pats, templates, heights):
      ns = names(pat)
      specs.append((tests.flatten(pat, ns), len(ns), tuple(ns.index(p) for p in t.params), h))
    self.core = tests.core = _egraph.Core(specs, len(tests.ltests), len(tests.ttests), self._steps)
    added: dict[UOp, int] = {}   # EGraph.add's walk, on the core
    add = self.core.add_enode
    fill_bottom_up(prog, added, lambda u, kids: add(tests.label(u.op, u.dtype, enode_key(u)), tests.type(u.dtype, u.shape), kids))
    self.added, self.root = added, self.core.find(added[prog])

  def _steps(self, rule: int, types: tuple[int, ...]) -> tuple[int, int, list] | None:
    """Template.add_ids's steps for arguments of these types, in the core's numbers (None: no graph)."""
    t, tests = self.templates[rule], self.tests
    key = tuple([tests.type_objs[k] for k in types])
    if key not in t.steps: t.steps[key] = t._steps(key)
    if (made := t.steps[key]) is None: return None
    steps, result = made
    if result == NO_RESULT: return _egraph.NO_RESULT, 0, []
    out = [(tests.label(op, dtype, arg), tests.type(*ty), src) for op, dtype, arg, src, _, ty in steps]
    return result, out[result][1] if steps else types[-1 - result], out

  def iteration(self, it: int, scheduler: Any, max_enodes: int, deadline: float | None) -> tuple[int, bool, int, int, int]:
    """One iteration up to the rebuild: (stop: 0, 1 enodes or 2 timeout; changed; matches, applied, rejected)."""
    core = self.core
    core.take(it)
    n = len(self.templates)
    counts = core.match(it, [scheduler.can_run(i, it) for i in range(n)])
    admitted = [c >= 0 and scheduler.admit(i, it, c) for i, c in enumerate(counts)]
    stop, changed, matches, applied, rejected = core.apply(it, admitted, max_enodes, deadline, time.perf_counter)
    core.rebuild()
    return stop, bool(changed), matches, applied, rejected

  def per_rule(self) -> dict[int, int]:
    """Rule -> its results that changed the e-graph (``Saturation.per_rule``)."""
    return {i: n for i, n in enumerate(self.core.per_rule()) if n}

  def extract(self, root: int, cost: Cost, sharing: bool = True) -> tuple[UOp, Any]:
    """``extract_all(eg, cost, sharing)[root]`` on the core: the class's best graph and its cost.

    A built-in cost whose weights are ints (``nodes``, ``mul=4``, ``Cost.tree``) is extracted in C on numbers, the UOp
    made only for the best graph; a function cost, a float weight or a sum past int64 calls Python per candidate."""
    labels = self.tests.label_objs
    if cost.weighted:
      weights = [cost.weight(op) for op, _, _ in labels]
      if all(type(w) is int and 0 <= w <= MAX_WEIGHT for w in weights):   # int64 in C; Cost.weights checks the bound too
        if (found := self.core.extract_best(root, weights, cost.dag and sharing, labels, make_uop)) is not None: return found
    if cost.dag and sharing: bests = self.core.extract(labels, make_uop, UOpError, None, None, cost.weight)
    else: bests = self.core.extract(labels, make_uop, UOpError, [cost.weight(op) for op, _, _ in labels] if cost.dag else None, cost.node, None)
    return bests[self.core.find(root)]

  def egraph(self) -> tuple[EGraph, dict[int, int]]:
    """The e-graph as ``EGraph`` holds it (the same ids, e-nodes and users in the same order), and the results per rule."""
    tests = self.tests
    parent, size, classes, memo, conflicts, per = self.core.export(tests.label_objs)
    eg = EGraph()
    eg.uf.parent, eg.uf.size, eg.memo = parent, size, memo
    for c, nodes, parents, t, k in classes:
      dtype, shape = tests.type_objs[t]
      eg.classes[c] = EClass(nodes, parents, dtype, shape)
      if k >= 0: eg.consts[c] = tests.label_objs[k][2]
    eg.conflicts = self._constants(conflicts)
    eg._added = dict(self.added)
    return eg, {i: n for i, n in enumerate(per) if n}

  def conflicts(self) -> list[tuple[Any, Any]]:
    """``EGraph.conflicts`` (the constants of each refused merge) without making the e-graph."""
    return self._constants(self.core.conflicts())

  def _constants(self, pairs: list[tuple[int, int]]) -> list[tuple[Any, Any]]:
    labels = self.tests.label_objs
    return [(labels[a][2], labels[b][2]) for a, b in pairs]

  @property
  def nbytes(self) -> int:
    """The core's memory, bytes."""
    return self.core.counts["bytes"]


class LazyEGraph(EGraph):
  """The core's e-graph, made as ``EGraph`` holds it on first use: a saturation's counts and best graph do not need it."""

  def __init__(self, run: NativeRun) -> None:   # no EGraph.__init__: its attributes come from the core when first read
    self._run: NativeRun | None = run

  def __getattr__(self, name: str) -> Any:
    run = self.__dict__.get("_run")
    if run is None or name.startswith("__"): raise AttributeError(name)
    self._run = None
    self.__dict__.update(run.egraph()[0].__dict__)
    return getattr(self, name)

  @property
  def enode_count(self) -> int:
    return self._run.core.counts["enodes"] if self._run is not None else super().enode_count

  @property
  def conflicts(self) -> list[tuple[Any, Any]]:   # read by every uopc saturate report: from the core, the e-graph unmade
    if "conflicts" in self.__dict__ or self._run is None: return self.__dict__["conflicts"]
    return self._run.conflicts()

  @conflicts.setter
  def conflicts(self, pairs: list[tuple[Any, Any]]) -> None: self.__dict__["conflicts"] = pairs

  def __len__(self) -> int:
    return self._run.core.counts["classes"] if self._run is not None else super().__len__()
