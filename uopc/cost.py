"""Costs of graphs: what "the best graph" means to ``uopc saturate`` and ``uopc explore best``.

Three kinds, one interface:

- ``Cost.nodes()``: the number of distinct nodes of the DAG (the default);
- ``Cost.weights({Ops.MUL: 4, ...}, default=1)``: the sum, over distinct nodes, of a weight per op;
- ``Cost.function(fn)``: a user function ``fn(node, src_costs) -> float`` applied bottom-up
  (a shared node counts once per use: a tree cost);
- ``Cost.tree({Ops.PARAM: 2, ...}, default=1)``: a weight per op summed as a tree (egglog's default cost is one).

>>> from uopc.uop import UOp
>>> p0 = UOp.param(0)
>>> Cost.nodes().of(p0 * 2 + p0 * 2), Cost.nodes().of(p0 + p0)
(4, 2)
>>> from uopc.ops import Ops
>>> Cost.weights({Ops.MUL: 4}).of(p0 * 2), Cost.function(lambda u, cs: 1 + sum(cs)).of((p0 * 2) + (p0 * 2))
(6, 7)

The first two are *DAG* costs (``dag`` is True): a sum of ``weight(op)`` over distinct
nodes, which extraction from an e-graph treats specially (sharing is free). The first two and
the last are *built in* (``weighted``: a weight per op, no user function), which saturation's
C core extracts without calling Python.

>>> Cost.tree({Ops.PARAM: 2}).of((p0 * 2) + (p0 * 2)), Cost.tree({Ops.PARAM: 2}).dag
(9, False)
"""
from __future__ import annotations

import importlib
import importlib.util
import os
from typing import Callable, Mapping

from uopc.ops import Ops
from uopc.uop import UOp

CostFn = Callable[[UOp, list[float]], float]
MAX_WEIGHT = 10**15   # a weight's bound: a sum over any graph stays finite (1.8e308 per node overflowed to inf, exit 4)


class CostError(ValueError):
  """A ``--cost`` value that names no cost, or a cost function that misbehaves."""


class Cost:
  """A cost of graphs; build one with ``nodes``, ``weights`` or ``function``, or ``parse`` a ``--cost`` spec."""

  def __init__(self, name: str, weight: Callable[[Ops], float] | None = None, fn: CostFn | None = None, as_tree: bool = False):
    self.name, self._weight, self.fn, self.as_tree = name, weight, fn, as_tree   # as_tree: weights summed as a tree

  @property
  def dag(self) -> bool:
    """Whether this is a sum of per-op weights over distinct nodes."""
    return self._weight is not None and not self.as_tree

  @property
  def weighted(self) -> bool:
    """Whether this is a weight per op, summed over distinct nodes (``dag``) or as a tree (``Cost.tree``)."""
    return self._weight is not None

  def weight(self, op: Ops) -> float:
    """The weight of one node of ``op`` (weighted costs only)."""
    assert self._weight is not None
    return self._weight(op)

  def of(self, root: UOp) -> float:
    """The cost of the graph rooted at ``root``."""
    order = root.toposort()
    if self.dag: return sum(self.weight(u.op) for u in order)
    costs: dict[UOp, float] = {}
    for u in order: costs[u] = self.node(u, [costs[s] for s in u.src])
    return costs[root]

  def node(self, u: UOp, src_costs: list[float]) -> float:
    """The cost of ``u`` given its sources' costs (tree costs): its weight plus theirs, or the user function, checked."""
    if self.as_tree: return self.weight(u.op) + sum(src_costs)
    assert self.fn is not None
    try: c = self.fn(u, src_costs)
    except Exception as e: raise CostError(f"cost {self.name}: {type(e).__name__}: {e}") from None
    if isinstance(c, bool) or not isinstance(c, (int, float)) or not 0 <= c < float("inf"):
      raise CostError(f"cost {self.name}: returned {c!r} for {u.op.name}; a cost is a finite number >= 0")
    return c

  def __repr__(self) -> str: return f"Cost({self.name})"

  @staticmethod
  def nodes() -> Cost:
    """The number of distinct nodes."""
    return Cost("nodes", weight=lambda op: 1)

  @staticmethod
  def weights(table: Mapping[Ops, float], default: float = 1, name: str = "weights") -> Cost:
    """A weight per op (``default`` for the others), summed over distinct nodes."""
    table = dict(table)
    for op, w in [*table.items(), (None, default)]:
      if isinstance(w, bool) or not isinstance(w, (int, float)) or not 0 <= w <= MAX_WEIGHT:
        raise CostError(f"cost {name}: the weight of {'*' if op is None else op.name.lower()} is {w!r}; a weight is a number "
                        f"from 0 to {MAX_WEIGHT:.0e}")
    return Cost(name, weight=lambda op: table.get(op, default))

  @staticmethod
  def tree(table: Mapping[Ops, float], default: float = 1, name: str = "tree") -> Cost:
    """A weight per op (``default`` for the others), summed as a tree: a shared node is paid once per use."""
    weights = Cost.weights(table, default, name)
    return Cost(name, weight=weights._weight, as_tree=True)

  @staticmethod
  def function(fn: CostFn, name: str | None = None) -> Cost:
    """``fn(node, src_costs)``, bottom-up."""
    return Cost(name if name else getattr(fn, "__name__", "function"), fn=fn)

  @staticmethod
  def parse(spec: str) -> Cost:
    """A ``--cost`` value: ``nodes``; ``OP=W,OP=W,...`` (others weigh 1; ``*=W`` sets the default);
    ``module:attr`` or ``file.py:attr`` naming a ``Cost``, a ``{op name: weight}`` dict or a function.

    >>> Cost.parse("mul=4,*=2").of(UOp.param(0) * 3)
    8
    """
    if spec == "nodes": return Cost.nodes()
    if ":" in spec: return _load(spec)
    table: dict[Ops, float] = {}
    default: float = 1
    for item in spec.split(","):
      name, eq, w = item.partition("=")
      try: weight = float(w)
      except ValueError: weight = -1.0
      if not eq or not 0 <= weight <= MAX_WEIGHT:
        raise CostError(f"bad --cost {spec!r}: expected nodes, OP=WEIGHT,... (weights from 0 to {MAX_WEIGHT:.0e}), or file.py:fn")
      weight = int(weight) if weight.is_integer() else weight
      if name.strip() == "*": default = weight
      else: table[_op(name, spec)] = weight
    return Cost.weights(table, default, name=spec)


def _op(name: str, spec: str) -> Ops:
  try: return Ops[name.strip().upper()]
  except KeyError: raise CostError(f"bad --cost {spec!r}: no op {name.strip()!r}") from None


def _load(spec: str) -> Cost:
  module, _, attr = spec.rpartition(":")
  try:
    if module.endswith(".py"):
      if not os.path.isfile(module): raise FileNotFoundError(f"no file {module}")
      mspec = importlib.util.spec_from_file_location("uopc_cost_" + os.path.splitext(os.path.basename(module))[0], module)
      if mspec is None or mspec.loader is None: raise ImportError(f"{module} is not a Python module")
      mod = importlib.util.module_from_spec(mspec)
      mspec.loader.exec_module(mod)
    else: mod = importlib.import_module(module)
    obj = getattr(mod, attr)
  except Exception as e: raise CostError(f"cannot load cost {spec!r}: {type(e).__name__}: {e}") from None
  if isinstance(obj, Cost): return obj
  if isinstance(obj, Mapping): return Cost.weights({_op(k, spec): v for k, v in obj.items()}, name=spec)
  if callable(obj): return Cost.function(obj, name=spec)
  raise CostError(f"{spec} is a {type(obj).__name__}, not a Cost, a dict of op weights or a function")


def as_cost(cost: Cost | str | None) -> Cost:
  """``cost`` itself, a parsed spec, or the default (``nodes``)."""
  if cost is None: return Cost.nodes()
  return cost if isinstance(cost, Cost) else Cost.parse(cost)


__all__ = ["Cost", "CostError", "CostFn", "as_cost"]
