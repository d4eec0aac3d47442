"""Oracles shared by the C backend tests.

Three ways to compute a closed program's outcome (a value, or a runtime error):

- ``run_outcome``: ``run()`` of the bound program, the canonical engine; rewriting may
  drop an undefined subterm (``where(True, x, 1 // 0)``, ``(1 // 0) * 0``);
- ``strict_outcome``: every node evaluated, sources first, with ``fold`` (exec_alu) and
  the ``evaluate`` rules on literal sources only, no algebra: exactly what the C program
  does, so a trap anywhere is a trap;
- the compiled C program (``Batch``).

The C program must agree with ``strict_outcome`` always, and ``run()`` with it whenever
that is a value. A disagreement of ``run()`` is excused only when a rule that
``check-rules`` reports unsound (``KNOWN_UNSOUND``) fired on the way; the excuse is
recorded as a hypothesis event, and ``test_backend_rules`` asserts that check-rules
still finds exactly these rules.
"""
from __future__ import annotations

from typing import Any

from uopc.evaluate import bind_params, evaluate, to_python
from uopc.matcher import PatternMatcher
from uopc.ops import Ops
from uopc.rewrite import RewriteLoopError, graph_rewrite
from uopc.symbolic import fold, symbolic
from uopc.uop import UOp, UOpError

from uopc.backend.driver import Outcome
from uopc.backend.lower import inline_calls
from uopc.backend.values import same_value

# The open findings of `uopc check-rules symbolic` (see docs/c-backend.md; two more, the scalar
# False of cmplt(x, x) on a shaped x and (x % c1) // c2 for c1 < 0, were fixed), each by the rule's
# own name (stable under edits elsewhere in the file; a renamed rule fails rule_names).
KNOWN_UNSOUND: dict[str, str] = {
  "div-sum": "(a*c + b) // c -> a + b//c ignores i32 wraparound",
  "mod-sum": "(a*c + b) % c -> b % c ignores i32 wraparound",
  "lt-add-const": "x + c1 < c2 -> x < c2 - c1 ignores i32 wraparound",
  "lt-mul-const": "x * c1 < c2 -> x < ceil(c2/c1) ignores i32 wraparound",
}
ACCEPTED: dict[str, str] = {
  "add-0": "x + 0.0 -> x at x = -0.0 (this rule's 0 also matches the f32 constant 0.0)",
  "add-0.0": "x + 0.0 -> x at x = -0.0",
}


def rule_names(pm: PatternMatcher, keys: dict[str, str]) -> set[str]:
  """The names in ``keys``, each the name of one of ``pm``'s rules."""
  names = {pm.name_of(r) for r in pm.rules}
  missing = [key for key in keys if key not in names]
  assert not missing, f"no rule of the rule set is named {', '.join(missing)} (was the rule renamed?)"
  return set(keys)


UNSOUND_NAMES, ACCEPTED_NAMES = rule_names(symbolic, KNOWN_UNSOUND), rule_names(symbolic, ACCEPTED)
EXCUSES = UNSOUND_NAMES | ACCEPTED_NAMES


class Recorder(PatternMatcher):
  """``pm``, remembering the name of every rule that fired."""

  def __init__(self, pm: PatternMatcher):
    super().__init__(pm.rules)
    self.fired: set[str] = set()

  def rewrite(self, u: UOp, ctx: Any = None) -> UOp | None:
    fired = self.fire(u, ctx)
    if fired is None: return None
    self.fired.add(self.name_of(fired[0]))
    return fired[1]


def run_outcome(prog: UOp, values: dict[int, Any], fired: set[str] | None = None) -> Outcome:
  """``run()`` of ``prog`` with its PARAMs bound (recording the rules that fired into ``fired``)."""
  pm = Recorder(symbolic + evaluate)
  try: out = Outcome(True, to_python(graph_rewrite(bind_params(prog, values), pm)))
  except (ValueError, IndexError, UOpError, RewriteLoopError) as e: out = Outcome(False, error=f"{type(e).__name__}: {e}")
  if fired is not None: fired |= pm.fired
  return out


_eager = fold + evaluate


def _literal(u: UOp) -> bool:
  return all(n.op in (Ops.CONST, Ops.STACK) for n in u.toposort())


def strict_outcome(prog: UOp, values: dict[int, Any]) -> Outcome:
  """Every node of the bound, inlined program computed from literal sources: the C program's semantics."""
  u = inline_calls(bind_params(prog, values))
  lit: dict[UOp, UOp] = {}
  for n in u.toposort():
    m = n.replace(src=tuple(lit[s] for s in n.src)) if n.src else n
    try: r = graph_rewrite(m, _eager)
    except IndexError as e: return Outcome(False, error=f"IndexError: {e}")
    if not _literal(r): return Outcome(False, error=f"undefined: {r.op.name}")
    lit[n] = r
  return Outcome(True, to_python(lit[u]))


def same(a: Outcome, b: Outcome) -> bool:
  """Both values (bit-exactly equal), or both runtime errors."""
  return a.ok == b.ok and (not a.ok or same_value(a.value, b.value))


def show_outcome(o: Outcome) -> str: return repr(o.value) if o.ok else f"error: {o.error}"


def has_zero_dim(u: UOp) -> bool:
  """Does any node have a 0-sized dim? (``run()`` cannot represent an empty value.)"""
  return any(0 in n.shape for n in u.toposort())
