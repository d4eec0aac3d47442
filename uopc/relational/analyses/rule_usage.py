"""Which rules of a rule set fire on a corpus of programs, under the canonical order and under any order; the dead ones.

For each program, the IR's own engine is recorded (``IR.record``: the canonical order's firings) and every rewrite order
is explored (bounded by ``max_states`` per program and the caller's ``Limits``): a rule *fires* canonically if the engine
applied it, *in some order* if a step of the exploration is its. A rule that never fires canonically is

- **shadowed** if it fires in some other order: other rules always take its redexes first. The witness is one such
  step: the program, the node, and the rule the canonical engine fired on that node (or None: the engine rewrote a
  node around it first, so the redex was gone), preferring a node the engine rewrote, then the smallest node;
- **declined** if its pattern matched a node of an explored (expanded) graph but its function never rewrote (returned
  None) or raised;
- **unreached** if no node of any explored graph matches its pattern: no program of the corpus reaches it (within the
  bounds: ``complete`` says whether every exploration was).

>>> from uopc import UOp, UPat, PatternMatcher, show
>>> x = UPat.var("x")
>>> pm = PatternMatcher([(x + 0, lambda x: x), (x + 0, lambda x: x * 1), (x * 1, lambda x: x), (x * 3, lambda x: None)])
>>> u = rule_usage([UOp.param(0) + 0, UOp.param(0) * 3], pm)
>>> [(r.index, r.canonical, r.any_order, r.status) for r in u.rules]
[(0, 1, 1, 'fires'), (1, 0, 1, 'shadowed'), (2, 0, 1, 'shadowed'), (3, 0, 0, 'declined')]
>>> w = u.rules[1].witness
>>> w.graph, show(w.node), w.taken_by
(0, 'add(p0, 0)', 0)
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Literal, NamedTuple

from uopc.bounded import StopReason
from uopc.limits import NO_LIMITS, Limits
from uopc.relational.ir import ir_of, rules_for
from uopc.relational.space.explore import explore

__all__ = ["RuleCount", "RuleUsage", "Witness", "rule_usage"]

Status = Literal["fires", "shadowed", "declined", "unreached"]


class Witness(NamedTuple):
  """Where a shadowed rule fires in another order: program ``graph`` (its index), the state's graph ``state``, the ``node``
  the rule rewrites there, and the rule the canonical engine fired on that node (``taken_by``, an index; None if it
  never rewrote that node: the redex was gone by then)."""
  graph: int
  state: Any
  node: Any
  taken_by: int | None


@dataclass
class RuleCount:
  """One rule's counts over the corpus: ``canonical`` firings (in ``canonical_graphs`` programs), steps of the
  explored spaces (``any_order``, in ``any_graphs`` programs), steps that raised (``raised``), nodes its pattern
  matched where it never fired anywhere (``matched``); ``status`` (module doc) and a ``witness`` for a shadowed one."""
  index: int
  name: str
  location: str
  canonical: int = 0
  canonical_graphs: int = 0
  any_order: int = 0
  any_graphs: int = 0
  raised: int = 0
  matched: int = 0
  witness: Witness | None = None

  @property
  def status(self) -> Status:
    if self.canonical: return "fires"
    if self.any_order: return "shadowed"
    return "declined" if self.matched or self.raised else "unreached"


@dataclass
class RuleUsage:
  """The counts of every rule (in the rule set's order), the programs (``programs``), how many explorations were
  complete (and how many their own bound cut), the canonical engine's failures (``canonical_errors``: program index ->
  why) and the bound that stopped the whole run (``stopped``: programs after it were not looked at)."""
  rules: list[RuleCount]
  programs: list[Any]
  complete: int = 0
  explored: int = 0
  cut: int = 0   # explorations their own bound (max_states, max_depth) stopped
  canonical_errors: dict[int, str] = field(default_factory=dict)
  stopped: StopReason | None = None


def rule_usage(programs: list[Any], pm: Any, *, max_states: int | None = 2_000, max_steps: int | None = None,
               progress: Callable[[int], object] | None = None, limits: Limits = NO_LIMITS) -> RuleUsage:
  """The usage of ``pm``'s rules over ``programs`` (nodes of ``pm``'s IR), each explored up to ``max_states`` states and
  its canonical engine bounded by ``max_steps`` (module doc). ``progress(1)`` after each program; ``limits``: the caller's
  bounds, asked between programs and inside each exploration."""
  if not programs: raise ValueError("rule_usage: no programs")
  rules = rules_for(programs[0], pm, "rule_usage: pm")
  counts = [RuleCount(i, rules.name_of(r), getattr(r, "location", "?")) for i, r in enumerate(rules.rules)]
  usage = RuleUsage(counts, programs)
  nodes: set[Any] = set()   # every node of every expanded graph, for the rules that never fired
  sizes: dict[Any, int] = {}   # a witness node's size
  for k, prog in enumerate(programs):
    if (why := limits.should_stop()) is not None:
      usage.stopped = why
      break
    taken = _count_canonical(k, prog, pm, max_steps, usage)
    ex = explore(prog, pm, max_states=max_states, limits=limits)
    ex.run()
    usage.explored += 1
    usage.complete += ex.complete
    usage.cut += ex.bound in ("max_states", "max_depth")
    _count_steps(k, ex, taken, counts, sizes)
    for s in ex.states:   # an expanded state's nodes were each shown to every rule (a bound leaves the last ones unexpanded)
      if not s.stuck and s.normal is not None: nodes.update(s.graph.toposort())
    if progress is not None: progress(1)
    if ex.bound is not None and ex.bound != "max_states" and ex.bound != "max_depth":
      usage.stopped = ex.bound
      break
  for c in counts:
    if c.canonical: c.witness = None   # a witness was taken before the rule's first canonical firing was seen
  _count_declines(rules, nodes, counts)
  return usage


def _count_canonical(k: int, prog: Any, pm: Any, max_steps: int | None, usage: RuleUsage) -> dict[Any, int]:
  """Count program ``k``'s canonical firings; the rule the engine fired first on each node it rewrote."""
  _, error, firings = ir_of(prog).record(prog, pm, max_steps)
  if error is not None: usage.canonical_errors[k] = error
  taken: dict[Any, int] = {}
  for f in firings:
    usage.rules[f.rule_index].canonical += 1
    taken.setdefault(f.node, f.rule_index)
  for i in {f.rule_index for f in firings}: usage.rules[i].canonical_graphs += 1
  return taken


def _count_steps(k: int, ex: Any, taken: dict[Any, int], counts: list[RuleCount], sizes: dict[Any, int]) -> None:
  """Count the steps of program ``k``'s exploration ``ex`` by rule (and those that raised); a shadowed rule's witness."""
  seen = set()
  for e in ex.edges:
    c = counts[e.rule_index]
    if e.error is not None:
      c.raised += 1
      continue
    c.any_order += 1
    seen.add(e.rule_index)
    if c.canonical == 0 and _better(w := Witness(k, e.source.graph, e.node, taken.get(e.node)), c.witness, sizes): c.witness = w
  for i in seen: counts[i].any_graphs += 1


def _count_declines(rules: Any, nodes: set[Any], counts: list[RuleCount]) -> None:
  """For each rule with no step anywhere: the nodes whose every binding of its pattern its function declines."""
  dead = {c.index for c in counts if not c.any_order}
  if not dead: return
  for u in nodes:
    for i, match, fn in rules.every_candidate(u):
      if i in dead and (bindings := match(u)) and all(_declines(fn, b) for b in bindings): counts[i].matched += 1


def _better(new: Witness, old: Witness | None, sizes: dict[Any, int]) -> bool:
  """Is ``new`` the better witness: one at a node the canonical engine rewrote (it says which rule took the redex), then
  the smaller node?"""
  if old is None: return True
  if (new.taken_by is None) != (old.taken_by is None): return new.taken_by is not None
  for u in (new.node, old.node):
    if u not in sizes: sizes[u] = len(u.toposort())
  return sizes[new.node] < sizes[old.node]


def _declines(fn: Callable, binding: dict[str, Any]) -> bool:
  """Does the rule's function leave the node alone on ``binding`` (return None, or raise)? Asked again here: a step a
  bound left unmade is no decline."""
  try: return fn(**binding) is None
  except Exception: return True
