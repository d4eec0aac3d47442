"""Exhaustive exploration on a Ray cluster: shards owning fingerprints mod S, level-synchronous breadth first.

``ClusterExploration(root, pm, cluster="local:2")`` is an ``Exploration`` (the same
states, ids, depths, parents, edges, normal forms and bounds as one process's) whose
search ran on the cluster; ``uopc.relational.explore(..., cluster=...)`` and the commands'
``--cluster`` make one. Only this package imports Ray, and only when a run starts
(``docs/scaling.md``); importing it needs neither Ray nor NumPy, so a command can check
its flags first.

Modules, one concept each: ``fingerprint`` (stable 128-bit node digests), ``codec``
(graphs as rows, deltas against the program), ``visited`` (a shard's table in NumPy
arrays), ``shard`` (a shard's part of a level), ``coordinator`` (the levels, the bounds,
the faults), ``session`` (starting or joining the cluster), ``result`` (the records back
into an ``Exploration``), ``errors``.

>>> parse_cluster("local:2")
('local', 2)
"""
from typing import Any

from uopc.relational.cluster.errors import ClusterError, ClusterGone
from uopc.relational.cluster.session import parse_cluster

__all__ = ["ClusterError", "ClusterExploration", "ClusterGone", "parse_cluster"]


def __getattr__(name: str) -> Any:   # ClusterExploration imports NumPy: on first use
  if name == "ClusterExploration":
    from uopc.relational.cluster.result import ClusterExploration
    return ClusterExploration
  raise AttributeError(name)
