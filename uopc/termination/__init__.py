"""Termination of a rule set, proved where a proof is found: a measure every rule lowers on every step.

- ``instances``: each rule's left sides with symbolic leaves (``uopc.smt.instance``), run through the rule;
- ``logic``: conditions over a fixed candidate (Python) or symbolic (z3);
- ``weights``: weights per op (a weight stage lowers some rules and keeps the others);
- ``polynomial``: integer polynomials, and absolute positiveness (``p > q`` for every value of the variables);
- ``interpretation``: terms as polynomials over values >= 1 (a stage that multiplies, where weights add);
- ``path_order``: a lexicographic path order over ops, the tie-break;
- ``measure``: the stages and the path order, compared lexicographically;
- ``orient``: ``find_measure(pm)``, the search, and each rule's verdict.

The search uses z3 where it is installed (``pip install -e '.[prove]'``), a small search otherwise. What it proves:
rules whose Python functions compute the right side are checked on instances (each verdict says which: "every
instance" or "on N instances"), so a proof is as good as its instances; a rule that is not oriented may still
terminate (the measure is a sufficient condition), and the command line looks for a program on which it loops.
"""
from uopc.termination.measure import Measure, PathOrder
from uopc.termination.orient import RuleVerdict, Termination, find_measure

__all__ = ["Measure", "PathOrder", "RuleVerdict", "Termination", "find_measure"]
