"""Equality saturation over uopc's own rules: an e-graph, e-matching of ``UPat``s, saturation, extraction by cost.

``saturate(prog, pm, cost)`` is the entry point (``uopc.egraph.saturate``). The package
imports the engine, never the explorer.
"""
from uopc.egraph.egraph import EClass, EGraph
from uopc.egraph.extract import Best, extract, extract_all
from uopc.egraph.saturate import Saturation, saturate
from uopc.egraph.schedule import BackoffScheduler

__all__ = ["BackoffScheduler", "Best", "EClass", "EGraph", "Saturation", "extract", "extract_all", "saturate"]
