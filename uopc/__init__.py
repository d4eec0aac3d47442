"""uopc: a small tinygrad-style compiler IR with a canonical rewrite engine.

>>> from uopc import UOp, simplify, to_uir
>>> p0 = UOp.param(0)
>>> print(to_uir(simplify((p0 + 2) * 3 + 5)), end="")
%0 = param : slot=0 dtype=i32
%1 = mul %0, 3
%2 = add %1, 11
"""
from uopc.alu import exec_alu
from uopc.bounds import bounds, vmax, vmin
from uopc.dtype import DType, dtypes, truncate
from uopc.evaluate import bind, evaluate, from_python, inline_call, run, to_python
from uopc.matcher import PatternMatcher, Rule, rule_name
from uopc.ops import ALU, Ops
from uopc.rewrite import RewriteLoopError, RewriteTypeError, graph_rewrite
from uopc.symbolic import fold, simplify, symbolic
from uopc.term import show
from uopc.uir import UIRError, parse_uir, to_uir
from uopc.upat import UPat
from uopc.uop import ParamArg, UOp, UOpError, call_params

__all__ = ["ALU", "DType", "Ops", "ParamArg", "PatternMatcher", "RewriteLoopError", "RewriteTypeError", "Rule", "UIRError",
           "UOp", "UOpError", "UPat", "bind", "bounds", "call_params", "dtypes", "evaluate", "exec_alu", "fold",
           "from_python", "graph_rewrite", "inline_call", "parse_uir", "rule_name", "run", "show", "simplify", "symbolic",
           "to_python", "to_uir", "truncate", "vmax", "vmin"]
