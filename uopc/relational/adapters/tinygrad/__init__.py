"""tinygrad's own ``UOp``s and ``PatternMatcher``s in the explorer (the ``tinygrad`` extra): ``ir`` (the protocols), ``match``
(its ``UPat``s compiled to every binding), ``convert`` (a ``.uir`` program as tinygrad nodes), ``values`` (results compared
in tinygrad's semantics: proved equal, or different at an input), ``smt`` (tinygrad nodes as z3 terms, exactly as
``values`` evaluates them), ``pairs`` (the overlaps of its patterns, for critical pairs)."""
from uopc.relational.ir.discovery import Adapter

ADAPTER = Adapter(name="tinygrad", module="uopc.relational.adapters.tinygrad.ir", node_types=("tinygrad.uop.ops.UOp",),
                  rule_types=("tinygrad.uop.ops.PatternMatcher",), host_modules=("tinygrad.",),
                  rules_help="tinygrad:NAME (tinygrad's own: symbolic, symbolic_simple, sym)", program_help="a tinygrad.uop.ops.UOp",
                  install="pip install -e '.[tinygrad]'")
