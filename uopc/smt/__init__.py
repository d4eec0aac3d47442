"""uopc's semantics in SMT (z3): every op and dtype as ``uopc/alu.py`` and the C backend define them, exactly.

- ``solver``: the z3 module, or the one-line error that names ``pip install -e '.[prove]'`` (z3 is an optional extra);
- ``sorts``: a dtype as a z3 sort (i32 a 32-bit vector, bool a Bool, f32 IEEE single), values both ways;
- ``ops``: each ALU op as data, a function over z3 terms per op, with its definedness condition;
- ``layout``: the movement ops, REDUCE and INDEX as maps between elements (shapes are handled per element);
- ``encode``: a UOp graph as z3 terms, one per element, iteratively (no recursion);
- ``model``: a term with values substituted, back to a Python value (the differential tests and counterexamples).

- ``concolic``: symbolic constants, and a rule's Python function run on them along every path;
- ``instance``: a rule's left side with symbolic leaves; ``prove``: ``prove_rule`` and ``prove_rewrite``, verdicts for all inputs;
- ``report``: ``prove_rules``, every rule of a rule set at every dtype, its counterexamples replayed in C (``check-rules --prove``).

Importing this package never needs z3; building a term without it raises ``SMTUnavailable``.
"""
# the module uopc.smt.encode keeps its name: its function is uopc.smt.encode.encode, not re-exported here
from uopc.smt.prove import Verdict, prove_rewrite, prove_rule, rule_status
from uopc.smt.report import ProofReport, prove_rules
from uopc.smt.solver import SMTUnavailable, available

__all__ = ["ProofReport", "SMTUnavailable", "Verdict", "available", "prove_rewrite", "prove_rule", "prove_rules", "rule_status"]
