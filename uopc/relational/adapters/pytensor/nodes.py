"""PyTensor graphs as hash-consed explorer nodes: each distinct ``Op(inputs)`` is one ``PyTensorNode``, shared by every state.

A node is one output of one PyTensor ``Apply``: ``op`` the ``Op`` itself (a head compared by its
props, as PyTensor's own ``Op.__eq__`` compares them: ``Elemwise(add)``, ``DimShuffle`` /
``ExpandDims{axis=0}``, any other), ``src`` the nodes of its inputs (any number: adds are
n-ary), ``arg`` the output's index and ``dtype`` the types of all the ``Apply``'s outputs. A leaf
is an input variable (``op`` ``"input"``, ``arg`` the variable: identity) or a constant of any
type (``op`` ``"constant"``, ``arg`` its ``signature()``: two constants of one type and value
are one node). Equal fields give the same node, so a rewrite step shares every unchanged
subgraph with the state it comes from, and nothing is cloned.

A node becomes a PyTensor variable only when it is read (``to_pytensor``), once: the variable
is kept on the node (a graph that entered by ``from_pytensor`` reads back as itself). A node
rebuilt on new sources keeps its output types, as ``FunctionGraph.replace`` keeps a client's
types when it changes the client's input in place.

>>> import pytensor.tensor as pt
>>> x = pt.vector("x")
>>> z = pt.log(pt.exp(x + x)) + x + x
>>> g = from_pytensor(z)
>>> from uopc.term import let_form
>>> let_form(g, node_parts)
'add(add(log(exp(add(x, x))), x), x)'
>>> to_pytensor(g) is z, from_pytensor(pt.log(pt.exp(x + x)) + x + x) is g
(True, True)
"""
from __future__ import annotations

import weakref
from typing import Any

from pytensor.graph.basic import Apply, Constant, Variable
from pytensor.tensor.elemwise import Elemwise

from uopc.uop import toposort

INPUT, CONSTANT = "input", "constant"   # the heads of leaves


class PyTensorNode:
  """One PyTensor variable as a hash-consed node: ``op``, ``src``, ``arg``, ``dtype`` (see the module)."""
  __slots__ = ("op", "src", "arg", "dtype", "var", "__weakref__")

  def __init__(self, op: Any, src: tuple, arg: Any, dtype: tuple) -> None:
    self.op, self.src, self.arg, self.dtype = op, src, arg, dtype
    self.var: Any = None   # its PyTensor variable, once read

  @property
  def type(self) -> Any:
    """The PyTensor type of this variable."""
    return self.dtype[self.arg] if type(self.arg) is int and self.op not in (INPUT, CONSTANT) else self.dtype[0]

  def toposort(self) -> list[PyTensorNode]:
    """Every node of the graph, sources before users (iterative: ``uopc.uop.toposort``)."""
    return toposort(self)

  def term(self) -> str:
    """The one-line term of the graph (shared subgraphs as ``let``): ``add(log(exp(x)), x)``."""
    from uopc.term import let_form
    return str(let_form(self, node_parts))

  def __repr__(self) -> str: return f"PyTensorNode({self.term()})"


# every live node by its fields (weak: a node lives as long as a state, a memo or a user holds it)
_nodes: weakref.WeakValueDictionary[tuple, PyTensorNode] = weakref.WeakValueDictionary()
# id(variable) -> the node that owns it (its .var): a variable the explorer made or adopted is never changed in place
_by_var: weakref.WeakValueDictionary[int, PyTensorNode] = weakref.WeakValueDictionary()


# ops and types by equality (PyTensor compares them by their props), and each object seen by id: hashing an Op or a
# Type computes its props' hash each time (two thirds of entering a graph), an id lookup does not
_equal: dict[Any, Any] = {}
_by_id: dict[int, tuple[Any, Any]] = {}   # id -> (the object, kept so the id stays its own; its equal representative)


def _canon(obj: Any) -> Any:
  """The one representative of the ops or types equal to ``obj``."""
  if (c := _by_id.get(id(obj))) is not None and c[0] is obj: return c[1]
  rep = _equal.setdefault(obj, obj)
  _by_id[id(obj)] = (obj, rep)
  return rep


def make(op: Any, src: tuple, arg: Any, dtype: tuple) -> PyTensorNode:
  """The node of these fields (the same fields give the same node; ops and types compared by their props)."""
  if type(op) is not str: op = _canon(op)
  dtype = tuple(_canon(t) for t in dtype)
  key = (op if type(op) is str else id(op), src, arg, tuple(map(id, dtype)))
  if (n := _nodes.get(key)) is None: n = _nodes[key] = PyTensorNode(op, src, arg, dtype)
  return n


def _leaf_key(v: Variable) -> tuple[str, Any]:
  """``(head, arg)`` of a variable without an owner: a constant by its type and value, an input by identity."""
  if isinstance(v, Constant):
    try:
      sig = v.signature()
      hash(sig)
      return CONSTANT, sig
    except Exception: return CONSTANT, v   # an unhashable value: the constant itself, by identity
  return INPUT, v


def node_of(v: Variable) -> PyTensorNode | None:
  """The node whose variable ``v`` is (one the explorer made or adopted), without walking ``v``'s graph; else None.

  >>> import pytensor.tensor as pt
  >>> x = pt.vector("x")
  >>> y = pt.exp(x)
  >>> node_of(y) is None
  True
  >>> g = from_pytensor(y)   # a node lives while something holds it; the variable does not
  >>> node_of(y) is g
  True
  """
  return n if (n := _by_var.get(id(v))) is not None and n.var is v else None


def _adopt(n: PyTensorNode, v: Variable) -> None:
  if n.var is None:
    n.var = v
    _by_var[id(v)] = n


def from_pytensor(v: Variable, adopt: bool = True) -> PyTensorNode:
  """The node of PyTensor variable ``v`` (iterative). ``adopt``: a node made here reads back as ``v``'s own variables
  (False for a graph that will be changed in place, as a ``FunctionGraph`` being rewritten is)."""
  memo: dict[int, PyTensorNode] = {}
  stack: list[tuple[Variable, bool]] = [(v, False)]
  while stack:
    u, ready = stack.pop()
    if id(u) in memo: continue
    if adopt and (known := _by_var.get(id(u))) is not None and known.var is u: memo[id(u)] = known; continue
    if u.owner is None:
      head, arg = _leaf_key(u)
      n = make(head, (), arg, (u.type,))
    else:
      node = u.owner
      if not ready:
        stack.append((u, True))
        stack.extend((i, False) for i in reversed(node.inputs) if id(i) not in memo)
        continue
      n = make(node.op, tuple(memo[id(i)] for i in node.inputs), node.outputs.index(u), tuple(o.type for o in node.outputs))
    # adopted only where its Apply is the node's own: inputs the sources' variables (a rewriter may build two equal
    # subgraphs, which are one node: the second one's users are made again, merged, when read)
    # (a leaf always: inputs and constants are never changed in place, and a leaf is read back only through its own)
    if u.owner is None or (adopt and all(i is s.var for i, s in zip(u.owner.inputs, n.src))): _adopt(n, u)
    memo[id(u)] = n
  return memo[id(v)]


def to_pytensor(n: PyTensorNode) -> Variable:
  """The PyTensor variable of node ``n``, made once (iterative); every ``Apply`` made here gets all its outputs' nodes."""
  if n.var is not None: return n.var
  stack: list[tuple[PyTensorNode, bool]] = [(n, False)]
  while stack:
    u, ready = stack.pop()
    if u.var is not None: continue
    if u.op == INPUT or u.op == CONSTANT:   # a leaf always has its variable: it entered with one
      raise ValueError(f"a leaf node without its variable: {u.op} {u.arg!r}")
    if not ready:
      stack.append((u, True))
      stack.extend((s, False) for s in reversed(u.src) if s.var is None)
      continue
    # the Apply as FunctionGraph.replace leaves a client: its op, its new inputs, its own output types
    app = Apply(u.op, [s.var for s in u.src], [t() for t in u.dtype])
    for k, out in enumerate(app.outputs): _adopt(make(u.op, u.src, k, u.dtype), out)
  assert n.var is not None
  return n.var


def op_name(op: Any) -> str:
  """The head's text: an ``Elemwise``'s scalar op (``add``, ``log``), else the op as PyTensor prints it."""
  if isinstance(op, Elemwise): return str(op.scalar_op).lower()
  return str(op)


def node_parts(n: PyTensorNode) -> Any:
  """The one-line term of a node: an input's name, a constant's value, else ``op(sources...)`` (``.k`` for output k of
  several).

  >>> import pytensor.tensor as pt
  >>> x = pt.vector("x")
  >>> from uopc.term import let_form
  >>> let_form(from_pytensor(2 * x), node_parts)
  'mul(ExpandDims{axis=0}(2), x)'
  """
  from uopc.term import op_parts
  if n.op == INPUT: return n.arg.name or f"<{n.arg.type}>"
  if n.op == CONSTANT: return str(n.var.data.tolist() if hasattr(n.var.data, "tolist") else n.var.data)
  return op_parts(op_name(n.op), n.src, f".{n.arg}" if len(n.dtype) > 1 else None)
