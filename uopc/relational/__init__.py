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
>>> p0 = UOp.param(0)
>>> q = var()
>>> [show(h) for h in run(0, q, normalo(symbolic, (p0 + 0) * 1, q))]
['p0']
>>> explore((p0 + 0) * 1, symbolic).complete
True

Docs: ``docs/relational.md``.
"""
from uopc.relational.logic.bridge import Head, UExpr, as_node, etuplize, head_of, pat, show_pattern, term_pattern
from uopc.relational.space.explore import NormalForms, canonical, explore, normal_forms
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
                                    search, search_all, target_goal)
from uopc.term import show

__all__ = ["Edge", "Exploration", "Fork", "Head", "Match", "MeetResult", "NormalForms", "NotGroundError", "OrderReport",
           "PairResult", "PairsReport", "Redex", "ReplayError", "RulePattern", "SearchResult", "SearchStream", "State", "Stepper",
           "StopReason", "Stuck", "Target", "UExpr", "as_node", "canonical", "critical_pairs", "diagnose_order", "etuplize", "explore", "head_of",
           "matcho", "meet", "normal_forms", "normalo", "pat", "permutation_trials", "predecessors", "reacho", "replay",
           "rule_patterns", "rule_relation", "rule_relations", "Saved", "load", "search", "search_all", "show", "show_pattern", "stepo",
           "stepper_for", "successors", "target_goal", "term_pattern"]
