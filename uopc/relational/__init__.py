"""The relational explorer: every graph that any ordering of rewrites reaches, lazily.

Graphs take part in miniKanren directly (``bridge``: a node is ``(head . sources)``),
each rule of a ``PatternMatcher`` is a relation, and ``stepo``/``reacho``/``normalo``
are kanren goals. ``explore`` and ``normal_forms`` are the richer entry points the
command line uses: states with parents, edges labelled by rule and node, paths, and
bounds that say when they cut the search short; ``diagnose_order`` (where does the
result depend on rule order?), ``critical_pairs`` (which rule overlaps do not join?),
``search``/``meet`` (shortest rewrite paths to a target, or to a common graph).

>>> from kanren import run, var
>>> from uopc import UOp, symbolic
>>> from uopc.relational import explore, normalo, show
>>> p0 = UOp.param(0)
>>> q = var()
>>> [show(h) for h in run(0, q, normalo(symbolic, (p0 + 0) * 1, q))]
['p0']
>>> explore((p0 + 0) * 1, symbolic).complete
True

Docs: ``docs/relational.md``.

The names load on first use (PEP 562): importing a part (``uopc.relational.ir``, the command line's registry of IRs)
loads only that part, not kanren and every analysis.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from uopc.lazy import lazy_names

if TYPE_CHECKING:   # the same names, for the type checker
  from uopc.relational.logic.bridge import Head, UExpr, as_node, etuplize, head_of, pat, show_pattern, term_pattern
  from uopc.relational.api import explore, search, search_all
  from uopc.relational.space.explore import NormalForms, canonical, normal_forms
  from uopc.relational.logic.goals import NotGroundError, normalo, reacho, rule_relation, rule_relations, stepo
  from uopc.relational.logic.patterns import RulePattern, predecessors, rule_patterns
  from uopc.relational.space.states import Edge, State
  from uopc.relational.space.step import Redex, Stepper, Stuck, stepper_for, successors
  from uopc.bounded import StopReason
  from uopc.relational.space.stream import Exploration
  from uopc.relational.analyses.order import Fork, OrderReport, diagnose_order, permutation_trials
  from uopc.relational.analyses.pairs import PairResult, PairsReport, critical_pairs
  from uopc.relational.space.saved import Saved, load
  from uopc.relational.analyses.search import (Match, MeetResult, ReplayError, SearchResult, SearchStream, Target, matcho, meet, replay,
                                      target_goal)
  from uopc.term import show

_WHERE = {  # name -> the module that defines it
  "Head": "uopc.relational.logic.bridge",
  "UExpr": "uopc.relational.logic.bridge",
  "as_node": "uopc.relational.logic.bridge",
  "etuplize": "uopc.relational.logic.bridge",
  "head_of": "uopc.relational.logic.bridge",
  "pat": "uopc.relational.logic.bridge",
  "show_pattern": "uopc.relational.logic.bridge",
  "term_pattern": "uopc.relational.logic.bridge",
  "NormalForms": "uopc.relational.space.explore",
  "canonical": "uopc.relational.space.explore",
  "explore": "uopc.relational.api",
  "normal_forms": "uopc.relational.space.explore",
  "NotGroundError": "uopc.relational.logic.goals",
  "normalo": "uopc.relational.logic.goals",
  "reacho": "uopc.relational.logic.goals",
  "rule_relation": "uopc.relational.logic.goals",
  "rule_relations": "uopc.relational.logic.goals",
  "stepo": "uopc.relational.logic.goals",
  "RulePattern": "uopc.relational.logic.patterns",
  "predecessors": "uopc.relational.logic.patterns",
  "rule_patterns": "uopc.relational.logic.patterns",
  "Edge": "uopc.relational.space.states",
  "State": "uopc.relational.space.states",
  "Redex": "uopc.relational.space.step",
  "Stepper": "uopc.relational.space.step",
  "Stuck": "uopc.relational.space.step",
  "stepper_for": "uopc.relational.space.step",
  "successors": "uopc.relational.space.step",
  "StopReason": "uopc.bounded",
  "Exploration": "uopc.relational.space.stream",
  "Fork": "uopc.relational.analyses.order",
  "OrderReport": "uopc.relational.analyses.order",
  "diagnose_order": "uopc.relational.analyses.order",
  "permutation_trials": "uopc.relational.analyses.order",
  "PairResult": "uopc.relational.analyses.pairs",
  "PairsReport": "uopc.relational.analyses.pairs",
  "critical_pairs": "uopc.relational.analyses.pairs",
  "Saved": "uopc.relational.space.saved",
  "load": "uopc.relational.space.saved",
  "Match": "uopc.relational.analyses.search",
  "MeetResult": "uopc.relational.analyses.search",
  "ReplayError": "uopc.relational.analyses.search",
  "SearchResult": "uopc.relational.analyses.search",
  "SearchStream": "uopc.relational.analyses.search",
  "Target": "uopc.relational.analyses.search",
  "matcho": "uopc.relational.analyses.search",
  "meet": "uopc.relational.analyses.search",
  "replay": "uopc.relational.analyses.search",
  "search": "uopc.relational.api",
  "search_all": "uopc.relational.api",
  "target_goal": "uopc.relational.analyses.search",
  "show": "uopc.term",
}


__getattr__, __dir__ = lazy_names(__name__, _WHERE)

__all__ = ["Edge", "Exploration", "Fork", "Head", "Match", "MeetResult", "NormalForms", "NotGroundError", "OrderReport",
           "PairResult", "PairsReport", "Redex", "ReplayError", "RulePattern", "SearchResult", "SearchStream", "State", "Stepper",
           "StopReason", "Stuck", "Target", "UExpr", "as_node", "canonical", "critical_pairs", "diagnose_order", "etuplize", "explore", "head_of",
           "matcho", "meet", "normal_forms", "normalo", "pat", "permutation_trials", "predecessors", "reacho", "replay",
           "rule_patterns", "rule_relation", "rule_relations", "Saved", "load", "search", "search_all", "show", "show_pattern", "stepo",
           "stepper_for", "successors", "target_goal", "term_pattern"]
