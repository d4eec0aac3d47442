"""PyTensor graphs explored with PyTensor's own node rewriters (the ``pytensor`` extra): ``ir`` (the protocols), ``nodes``
(a PyTensor graph as hash-consed nodes), ``context`` (one ``FunctionGraph`` per state), ``values`` (results compared by
PyTensor's own evaluation)."""
from uopc.relational.ir.discovery import Adapter

ADAPTER = Adapter(name="pytensor", module="uopc.relational.adapters.pytensor.ir",
                  node_types=("uopc.relational.adapters.pytensor.nodes.PyTensorNode",),
                  rule_types=tuple(f"pytensor.graph.rewriting.basic.{t}" for t in ("FromFunctionNodeRewriter", "PatternNodeRewriter",
                                   "SequentialNodeRewriter", "WalkingGraphRewriter", "EquilibriumGraphRewriter")),
                  host_modules=("pytensor.",),
                  rules_help="pytensor:NAME (canonicalize, stabilize, specialize, or one of PyTensor's node rewriters)",
                  program_help="a PyTensor variable", install="pip install -e '.[pytensor]'")
