"""The explorer's entry points that may run on a Ray cluster: ``explore``, ``search`` and ``search_all`` with ``cluster=``.

The same functions as ``uopc.relational.space.explore.explore`` and ``uopc.relational.analyses.search``'s, one layer up:
with ``cluster="local:N"`` or an address, the exhaustive search runs on Ray shard actors (``uopc.relational.cluster``,
``docs/scaling.md``) and gives the same states, breadth first, graph semantics, every graph; without it, they are those
functions. ``uopc.relational.explore`` and ``uopc.relational.search`` are these.

>>> from uopc import UOp
>>> [s.term() for s in explore(UOp.param(0) + 0).normal_forms]
['p0']
"""
from __future__ import annotations

from typing import Any, Callable, Literal

from uopc.limits import NO_LIMITS, Limits
from uopc.matcher import PatternMatcher
from uopc.relational.analyses.search import Progress, SearchResult, SearchStream
from uopc.relational.analyses.search import search as search_here, search_all as search_all_here
from uopc.relational.space.explore import explore as explore_here
from uopc.relational.space.step import Semantics
from uopc.relational.space.stream import Exploration
from uopc.symbolic import symbolic
from uopc.uop import UOp


def explore(prog: UOp, pm: PatternMatcher = symbolic, *, max_states: int | None = 100_000, max_depth: int | None = None,
            timeout: float | None = None, order: Literal["bfs", "dfs"] = "bfs", ctx: Any = None, reduce: bool = False, semantics: Semantics = "graph",
            native: bool | None = None, cluster: str | None = None, limits: Limits = NO_LIMITS,
            progress: Callable[[int], None] | None = None) -> Exploration:
  """``uopc.relational.space.explore.explore``; with ``cluster``, on a Ray cluster (``"local:N"`` or an address), where
  ``progress(count)`` is told the states found after each level (in one process the states stream: iterate them)."""
  if cluster is None:
    return explore_here(prog, pm, max_states=max_states, max_depth=max_depth, timeout=timeout, order=order,
                        ctx=ctx, reduce=reduce, semantics=semantics, native=native, limits=limits)
  if order != "bfs" or reduce or semantics != "graph" or ctx is not None:
    raise ValueError("cluster= explores breadth first, every graph, under graph semantics, without a ctx")
  from uopc.relational.cluster import ClusterExploration   # the one package that imports Ray
  return ClusterExploration(prog, pm, cluster=cluster, max_states=max_states, max_depth=max_depth, timeout=timeout, native=native,
                            limits=limits, progress=progress)


def _searching(prog: UOp, pm: PatternMatcher, cluster: str | None, max_states: int | None, max_depth: int | None,
               timeout: float | None, limits: Limits) -> dict[str, Any]:
  """The bounds of a search, and its ``explorer``: None in this process, else the exploration on ``cluster``."""
  explorer = None
  if cluster is not None:
    from uopc.relational.cluster import ClusterExploration
    explorer = lambda target, first: ClusterExploration(prog, pm, cluster=cluster, target=target, stop_at_match=first, max_states=max_states,
                                                        max_depth=max_depth, timeout=timeout, limits=limits)
  return {"max_states": max_states, "max_depth": max_depth, "timeout": timeout, "limits": limits, "explorer": explorer}


def search_all(prog: UOp, target: Any, pm: PatternMatcher = symbolic, *, max_states: int | None = 100_000, max_depth: int | None = None,
               timeout: float | None = None, ctx: Any = None, progress: Progress | None = None, cluster: str | None = None,
               limits: Limits = NO_LIMITS) -> SearchStream:
  """``uopc.relational.analyses.search.search_all``; with ``cluster``, on a Ray cluster."""
  return search_all_here(prog, target, pm, ctx=ctx, progress=progress, **_searching(prog, pm, cluster, max_states, max_depth, timeout, limits))


def search(prog: UOp, target: Any, pm: PatternMatcher = symbolic, *, max_states: int | None = 100_000, max_depth: int | None = None,
           timeout: float | None = None, ctx: Any = None, progress: Progress | None = None, cluster: str | None = None,
           limits: Limits = NO_LIMITS) -> SearchResult:
  """``uopc.relational.analyses.search.search``; with ``cluster``, on a Ray cluster (the same answer)."""
  return search_here(prog, target, pm, ctx=ctx, progress=progress, **_searching(prog, pm, cluster, max_states, max_depth, timeout, limits))
