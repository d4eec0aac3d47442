"""uopc's own IR as an implementation of the protocols: the engine's constructor, tables and checks, unchanged.

Its ``PatternMatcher`` already is the rule protocol, so ``rules`` hands it over as it is (the
explorer's fast paths and the native core stay exactly those of uopc's nodes).

>>> from uopc import UOp, symbolic
>>> p0 = UOp.param(0)
>>> UOPC.rules(symbolic, "pm", p0) is symbolic, UOPC.make(p0.op, (), p0.arg, p0.dtype) is p0
(True, True)
"""
from __future__ import annotations

from typing import Any, Callable

from uopc.matcher import PatternMatcher, require_matcher
from uopc.ops import Ops
from uopc.relational.ir.discovery import other_ir_rules
from uopc.relational.ir.protocol import IR, mismatch
from uopc.rewrite import RewriteLoopError, failure_text, graph_rewrite
from uopc.rule_check import rewrite_problem
from uopc.trace import record
from uopc.term import node_parts
from uopc.upat import UPat
from uopc.uop import UOp, UOpError, call_params, existing_nodes

try: from uopc.uop import make_uop   # the engine's fast constructor, where it has one
except ImportError: make_uop = UOp


class UopcIR(IR[UOp]):
  """uopc's own nodes and ``PatternMatcher``s. Its ``compare`` and ``overlaps`` are the analyses' own
  (``uopc.relational.analyses.verdicts.compare_results``, ``pairs.overlaps_of``): they are built on the explorer, above this layer."""
  name, node_type, native, reducible, build_error = "uopc", UOp, True, True, UOpError
  opaque_ops = frozenset({Ops.CALL})   # whether a step inside a CALL's body is a step at all depends on the CALL

  def patterns(self, rules: Any, op: Any) -> tuple[UPat, ...]: return tuple(rule[0] for rule in rules.by_op.get(op, ()))

  def make(self, op: Any, src: tuple, arg: Any, dtype: Any) -> UOp: return make_uop(op, src, arg, dtype)
  def existing(self, op: Any, dtype: Any, arg: Any) -> Callable[[tuple], UOp | None]: return existing_nodes(op, dtype, arg)
  def result_problem(self, node: UOp, result: Any) -> str | None: return rewrite_problem(node, result)
  def parts(self, node: UOp) -> Any: return node_parts(node)

  def rules(self, pm: Any, what: str, node: Any) -> PatternMatcher:
    if not isinstance(pm, PatternMatcher) and other_ir_rules(pm, self.name) is not None: raise mismatch(what, pm, node)
    return require_matcher(pm, what)

  def canonical(self, prog: UOp, pm: Any, ctx: Any = None, max_steps: int | None = None) -> tuple[UOp | None, str | None]:
    if max_steps is None: max_steps = 200_000 + 20 * len(prog.toposort())
    try: return graph_rewrite(prog, pm, ctx=ctx, max_steps=max_steps), None
    except RewriteLoopError as e:
      return None, f"the canonical engine did not reach a fixed point within {max_steps} rule lookups ({str(e).partition(': ')[2]})"
    except Exception as e: return None, failure_text(e)   # a rule raised: the engine fails, the explorer shows a stuck state

  def record(self, prog: UOp, pm: Any, max_steps: int | None = None) -> tuple[UOp | None, str | None, list]:
    return record(prog, pm, max_steps)

  def reordered(self, pm: Any, order: tuple[int, ...]) -> PatternMatcher: return PatternMatcher([pm.rules[k] for k in order])

  def basis(self, prog: UOp, bindings: int) -> str:
    from uopc.smt.classify import basis_text
    return basis_text(call_params(prog), bindings)


  def variable_like(self, node: UOp, taken: set[str]) -> UOp | None:
    """A scalar PARAM of ``node``'s dtype whose slot's ``pN`` is not in ``taken``."""
    if node.shape: return None
    slot = next(k for k in range(len(taken) + 1) if f"p{k}" not in taken)
    return UOp.param(slot, node.dtype)

  def const_like(self, node: UOp, value: Any) -> UOp | None:
    try: return UOp.const(value, node.dtype) if not node.shape else None
    except (UOpError, TypeError, ValueError): return None   # not a value of that dtype

UOPC = UopcIR()
