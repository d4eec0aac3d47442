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

import inspect
from typing import Any

from uopc.evaluate import bind_params, evaluate, to_python
from uopc.matcher import PatternMatcher, Rule
from uopc.ops import Ops
from uopc.rewrite import RewriteLoopError, graph_rewrite
from uopc.symbolic import fold, symbolic
from uopc.uop import UOp, UOpError

from uopc.backend.driver import Outcome
from uopc.backend.lower import inline_calls
from uopc.backend.values import same_value

# The open findings of `uopc check-rules symbolic` (see docs/c-backend.md; two more, the scalar
# False of cmplt(x, x) on a shaped x and (x % c1) // c2 for c1 < 0, were fixed), each identified by a
# piece of the rule's source (its line in symbolic.py, or its function's name), so that
# they survive edits elsewhere in the file but not an edit of the rule itself.
KNOWN_UNSOUND: dict[str, str] = {
  "_div_sum(x, c, mod=False)": "(a*c + b) // c -> a + b//c ignores i32 wraparound",
  "_div_sum(x, c, mod=True)": "(a*c + b) % c -> b % c ignores i32 wraparound",
  "((xi + c1) < c2,": "x + c1 < c2 -> x < c2 - c1 ignores i32 wraparound",
  "_lt_mul": "x * c1 < c2 -> x < ceil(c2/c1) ignores i32 wraparound",
}
ACCEPTED: dict[str, str] = {
  "(x + 0, lambda x: x)": "x + 0.0 -> x at x = -0.0 (this rule's 0 also matches the f32 constant 0.0)",
  "(x + 0.0, lambda x: x)": "x + 0.0 -> x at x = -0.0",
}


def rule_source(rule: Rule) -> str:
  """A rule's function: its name, or (a lambda) its source line with spaces normalized."""
  fn = rule[1]
  if getattr(fn, "__name__", "<lambda>") != "<lambda>": return fn.__name__
  return " ".join(inspect.getsource(fn).split())


def rule_names(pm: PatternMatcher, keys: dict[str, str]) -> set[str]:
  """The names of ``pm``'s rules that ``keys`` identify; each key must identify exactly one."""
  out = set()
  for key in keys:
    names = [pm.name_of(r) for r in pm.rules if key in rule_source(r)]
    assert len(names) == 1, f"{key!r} identifies {len(names)} rules of the rule set (was the rule edited?)"
    out |= set(names)
  return out


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
