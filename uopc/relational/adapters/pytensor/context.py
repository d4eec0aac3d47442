"""A state's context: a ``FunctionGraph`` of the whole state's graph, made only when a rewriter reads it, then kept.

PyTensor's node rewriters are called as ``rewriter.transform(fgraph, node)`` and read whole-graph
state from ``fgraph``: ``fgraph.clients`` (``flatten_nested_add_mul`` fuses an inner add only if the
add has one client), ``fgraph.shape_feature``. A ``StateGraph`` is a real ``FunctionGraph``
(``isinstance`` holds) over the state's own PyTensor variables, ``clone=False``: its ``Apply`` nodes
are the nodes' shared ones, so making one copies no node of the graph, only the maps a
``FunctionGraph`` keeps (clients, the set of nodes, variables). It is built on first read of any
attribute a ``FunctionGraph`` sets up (``clients``, ``apply_nodes``, ...) and attaches PyTensor's
``ShapeFeature`` on first read of ``shape_feature``. The explorer never calls ``replace`` on it.

``Contexts`` keeps each state's context once made, for the most recent ``limit`` states (4: a context
serves while its state's new steps are computed, which the explorer does once per state; keeping every
one would cost a ``FunctionGraph``'s maps per state, in proportion to the graph, not to the step), and
counts what was made and which rewriters read the clients.

>>> import pytensor.tensor as pt
>>> from uopc.relational.adapters.pytensor.nodes import from_pytensor
>>> x = pt.vector("x")
>>> g = from_pytensor(pt.exp(x) + x)
>>> cs = Contexts()
>>> fg = cs.of(g)
>>> cs.built, len(fg.clients[x]), cs.built, fg.shape_feature is not None
(0, 2, 1, True)
>>> cs.of(g) is fg
True
"""
from __future__ import annotations

from collections import OrderedDict
from typing import Any

from pytensor.graph.fg import FunctionGraph

from uopc.relational.adapters.pytensor.nodes import PyTensorNode, to_pytensor

_LAZY = ("_pending", "_contexts")   # a StateGraph's own attributes before it is built


class _Clients(dict):
  """``fgraph.clients`` that notes, while a rewriter runs, that it read them (``Contexts.reads``)."""
  __slots__ = ("watch",)
  watch: Contexts | None

  def __getitem__(self, key: Any) -> Any:
    value = dict.__getitem__(self, key)
    if (w := self.watch) is not None: w.read_clients(key, value)
    return value

  def get(self, key: Any, default: Any = None) -> Any:
    value = dict.get(self, key, default)
    if (w := self.watch) is not None: w.read_clients(key, value)
    return value


class StateGraph(FunctionGraph):
  """The ``FunctionGraph`` of one state, built on first use (see the module)."""

  def __init__(self, root: PyTensorNode, contexts: Contexts) -> None:   # FunctionGraph.__init__ runs on first use (_build)
    self.__dict__["_pending"] = root
    self.__dict__["_contexts"] = contexts

  def _build(self) -> None:
    root: PyTensorNode = self.__dict__.pop("_pending")
    contexts: Contexts = self.__dict__["_contexts"]
    FunctionGraph.__init__(self, outputs=[to_pytensor(root)], clone=False)
    clients = _Clients(self.clients)
    clients.watch = contexts
    self.clients = clients
    contexts.built += 1

  def __getattr__(self, name: str) -> Any:   # only for attributes not set yet
    if "_pending" in self.__dict__ and name not in _LAZY:
      self._build()
      return getattr(self, name)
    if name == "shape_feature" and "_pending" not in self.__dict__ and "_attaching" not in self.__dict__:
      from pytensor.tensor.rewriting.shape import ShapeFeature
      self.__dict__["_attaching"] = True   # ShapeFeature.on_attach asks hasattr(fgraph, "shape_feature") first
      try: self.attach_feature(ShapeFeature())   # sets fgraph.shape_feature
      finally: del self.__dict__["_attaching"]
      self.__dict__["_contexts"].shape_features += 1
      return self.__dict__["shape_feature"]
    return FunctionGraph.__getattr__(self, name)


class Contexts:
  """Each state's ``StateGraph`` (the ``limit`` most recent), what was built, and which rewriters read clients."""

  def __init__(self, limit: int = 4) -> None:
    self.limit = limit
    self._of: OrderedDict[PyTensorNode, StateGraph] = OrderedDict()
    self.built = 0            # FunctionGraphs built
    self.shape_features = 0   # ShapeFeatures attached
    self.reads: dict[str, int] = {}   # rewriter name -> calls that read fgraph.clients
    self.running: str | None = None   # the rewriter being called, while one is
    self.seen: list[tuple[Any, Any]] = []   # (variable, its clients) read by the running rewriter

  def of(self, root: PyTensorNode) -> StateGraph:
    """The context of the state whose graph is ``root`` (made lazily, kept)."""
    if (fg := self._of.get(root)) is None:
      fg = self._of[root] = StateGraph(root, self)
      if len(self._of) > self.limit: self._of.popitem(last=False)
    else: self._of.move_to_end(root)
    return fg

  def read_clients(self, var: Any = None, clients: Any = None) -> None:
    if self.running is not None:
      self.reads[self.running] = self.reads.get(self.running, 0) + 1
      self.seen.append((var, list(clients) if clients is not None else None))

  def __len__(self) -> int: return len(self._of)
