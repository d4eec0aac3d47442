"""Check a corpus for rule-order findings: explore every graph under its rule set, within a per-graph budget, and group
what is found by cause, not by graph or step.

Each graph is explored in every rewrite order (``diagnose_order``: bounded by ``max_states``/``max_depth``/``timeout``)
and rewritten by the IR's own engine and its variants (tinygrad's ``graph_rewrite`` top down and ``bottom_up=True``).
A finding is one of

- ``raises``: a rule raises (a stuck step of the explorer: one finding per rule and exception type, however many steps
  and graphs), or the engine itself raises;
- ``loops``: an order that never ends: the engine's own loop error, or no normal form (every order ends in a cycle:
  a terminal cycle of the explored space); a cycle with a way out is counted (``cyclic``), a finding only with
  ``cycles=True`` (keyed by the rules of a shortest cycle);
- ``order``: the result depends on rule order, the results equal in value (or not known to differ);
- ``values``: the result depends on rule order and the results differ in value (the IR's ``compare``: ``semantic``).

Each finding has a stable ``key`` (what a baseline stores: the rule set, the kind, the rules or engine and the
exception; never a graph or a count, so a CI job fails only when a new cause shows up), the number of graphs and
steps that showed it, and the smallest graph that did (its text form: a reproducer). A graph whose exploration a bound
stopped is *undecided* (it may still have findings).

>>> from tinygrad.uop.ops import UOp
>>> from uopc.corpus.format import Entry
>>> v = UOp.variable("v", 0, 2)
>>> report = check_corpus([Entry("tinygrad", "tinygrad:symbolic", ((v * 81 + 10) + 233) % 243)], max_states=500)
>>> [(f.kind, f.title) for f in report.findings]
[('loops', 'graph_rewrite(bottom_up=True) never ends: RuntimeError: infinite loop in fixed_point_rewrite')]
"""
from __future__ import annotations

import functools
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Iterator, NamedTuple, cast

from uopc.corpus.format import Entry, dump_graph
from uopc.limits import NO_LIMITS, Limits
from uopc.term import show

LOOP_WORDS = ("infinite loop", "did not reach a fixed point", "not converging", "RewriteLoopError")
KINDS = ("raises", "loops", "values", "order")   # the order findings are printed in
EXAMPLE_LIMIT = 160   # characters of a finding's example term


class Hit(NamedTuple):
  """One cause seen in one graph (plain values: a worker process may send it)."""
  kind: str
  key: str
  title: str
  engine: str            # canonical, bottom_up or explore (the minimizer's Finding.engine)
  rule: str | None
  error: str | None      # the exception type
  steps: int             # stuck steps (explore) or 1
  example: str           # the smallest node or graph showing it, as a term
  size: int              # its node count (to keep the smallest)


class GraphOutcome(NamedTuple):
  """What checking one graph found."""
  entry: int
  hits: list[Hit]
  states: int
  bound: str | None      # why its exploration stopped early (max_states, max_depth, timeout, ...), None: complete
  seconds: float
  cyclic: bool = False   # its explored space has a cycle that is not a dead end (_cycle_rules)


@dataclass
class Finding:
  """One cause across the corpus: the ``Hit``s of one key, with their counts and the smallest example."""
  kind: str
  key: str
  title: str
  engine: str
  rules: str
  rule: str | None
  error: str | None
  graphs: int = 0
  steps: int = 0
  example: str = ""
  example_size: int = 1 << 30
  program: str = ""          # the smallest graph showing it, in the corpus text form (a reproducer)
  program_size: int = 1 << 30
  entry: int = -1            # its index in the corpus
  minimized: str | None = None   # the minimizer's smallest program (a term), where it ran
  regression: str | None = None  # its regression test, to paste into the rules' own project
  new: bool | None = None    # against a baseline: not in it (None: no baseline)

  def as_json(self) -> dict[str, Any]:
    return {k: v for k, v in self.__dict__.items() if k not in ("example_size", "program_size")}


@dataclass
class CheckReport:
  """Every finding of a corpus check, the graphs checked and skipped, and those no search decided."""
  findings: list[Finding] = field(default_factory=list)
  graphs: int = 0                       # entries in the corpus
  checked: int = 0                      # explored
  skipped: Counter = field(default_factory=Counter)   # reason -> entries not checked
  undecided: Counter = field(default_factory=Counter)   # bound -> graphs whose exploration a bound stopped
  undecided_examples: list[tuple[int, str]] = field(default_factory=list)   # (entry, term): the smallest few
  cyclic: int = 0                       # graphs whose explored space has a cycle with an exit (_cycle_rules)
  states: int = 0
  seconds: float = 0.0
  stopped: str | None = None            # the command's bound that cut the check short (incomplete), None: complete

  @property
  def complete(self) -> bool: return self.stopped is None


def _exception(error: str | None) -> str:
  """The exception type at the head of an error text (``ZeroDivisionError: ...``, ``tinygrad's graph_rewrite raised X: ...``)."""
  if not error: return "Exception"
  head = error.split(" raised ", 1)[-1] if " raised " in error.split(":")[0] else error
  name = head.split(":", 1)[0].strip()
  return name if name.isidentifier() else "Exception"


def _size(u: Any) -> int:
  """The number of nodes of graph ``u`` (tinygrad's, PyTensor's and uopc's nodes all have ``toposort``)."""
  return len(u.toposort())


def _engine_hits(rules: str, engine: str, label: str, error: str) -> Hit:
  exc = _exception(error)
  message = error.split(" raised ", 1)[-1] if " raised " in error else error
  if any(w in error for w in LOOP_WORDS):
    return Hit("loops", f"loops|{rules}|{engine}", f"{label} never ends: {message}", engine, None, exc, 1, "", 0)
  return Hit("raises", f"raises|{rules}|{engine}|{exc}", f"{label} raises {message}", engine, None, exc, 1, "", 0)


def _cycle_rules(report: Any) -> list[str] | None:
  """The rules of a shortest reachable cycle of the explored space (``report.termination.loop``), None where it has none:
  some order never ends there, though another may. The explorer rewrites any node in any order, so rule pairs that
  undo each other (``x+c`` reassociated back and forth) make such cycles in most spaces, by steps the engine's own
  strategy never takes: counted, findings only if asked."""
  loop = report.termination.loop
  return None if loop is None else sorted({e.rule for e in loop.cycle})


def _rule_text(s: Any) -> str:
  """A stuck state's rule, with the function its lambda calls where it is one call (``symbolic#117 divandmod.py:108
  (fold_divmod_general)``): a lambda's name says only where it is written."""
  name = s.rule or "?"
  try: fn = s._stepper.pm.rules[s.rule_index].fn
  except (AttributeError, IndexError, TypeError): return name
  code = getattr(fn, "__code__", None)
  if code is not None and code.co_name == "<lambda>" and len(code.co_names) == 1 and code.co_names[0] not in name:
    return f"{name} ({code.co_names[0]})"
  return name


def check_graph(entry: int, prog: Any, pm: Any, rules: str, *, max_states: int, max_depth: int, timeout: float | None,
                bindings: int = 8, seed: int = 0, limits: Limits = NO_LIMITS, cycles: bool = False) -> GraphOutcome:
  """Explore ``prog`` under ``pm`` (named ``rules``) in every order within the bounds given, run the IR's own engine and
  its variants, and say what was found (``Hit``s), and whether the exploration was complete. ``cycles``: a cycle with
  a way out is a finding too (``_cycle_rules``)."""
  from uopc.relational.analyses.order import diagnose_order
  from uopc.relational.ir import ir_of
  from uopc.relational.space.cycles import terminal_cycles
  start = time.perf_counter()
  ir = ir_of(prog)
  report = diagnose_order(prog, pm, max_states=max_states, max_depth=max_depth, timeout=timeout, bindings=bindings, seed=seed,
                          limits=limits)
  ex = report.exploration
  hits: list[Hit] = []
  stuck: dict[tuple[str, str], list[Any]] = {}
  for s in ex.stuck: stuck.setdefault((_rule_text(s), _exception(s.error)), []).append(s)
  for (rule, exc), states in stuck.items():
    smallest = min(states, key=lambda s: _size(s.node))
    node = smallest.node
    steps = sum(getattr(s, "steps", 1) for s in states)   # another IR's stuck state counts every step of its rule and exception
    hits.append(Hit("raises", f"raises|{rules}|{rule}|{exc}", f"{rule} raises {exc}", "explore", smallest.rule, exc, steps,
                    f"{show(node, EXAMPLE_LIMIT)}: {smallest.error}", _size(node)))
  if report.canonical_error is not None: hits.append(_engine_hits(rules, "canonical", "graph_rewrite", report.canonical_error))
  canonical: Any = report.canonical
  for label, result, error in ir.canonical_variants(prog, pm):
    engine = "bottom_up" if "bottom_up" in label else label
    if error is not None: hits.append(_engine_hits(rules, engine, label, error))
    elif canonical is not None and result is not canonical:
      kind, detail = ir.compare(canonical, result, prog, bindings, seed)
      k = "values" if kind == "semantic" else "order"
      hits.append(Hit(k, f"{k}|{rules}|{engine}", f"{label} gives another result than graph_rewrite ({kind})", engine, None, None, 1,
                      f"{show(canonical, EXAMPLE_LIMIT)} vs {show(cast(Any, result), EXAMPLE_LIMIT)}: {detail}", 0))
  for f in report.forks:
    k = "values" if f.kind == "semantic" else "order"
    canonical_rule = f.canonical_step.rule if f.canonical_step is not None else "(the engine stopped)"
    hits.append(Hit(k, f"{k}|{rules}|{canonical_rule}|{f.competing_step.rule}",
                    f"{canonical_rule} (the engine's choice) or {f.competing_step.rule} first: {f.kind}", "explore",
                    f.competing_step.rule, None, 1,
                    f"at {show(f.node, EXAMPLE_LIMIT)}: {show(canonical, EXAMPLE_LIMIT)} vs {f.normal_form.term(EXAMPLE_LIMIT)}"
                    f" ({f.detail})", _size(f.node)))
  for c in terminal_cycles(ex):
    names = sorted(set(c.rules))
    hits.append(Hit("loops", f"loops|{rules}|explore|{'+'.join(names)}", f"no normal form: orders end in a cycle of {', '.join(names)}",
                    "explore", names[0] if names else None, None, 1, "", 0))
  cycle = _cycle_rules(report)
  if cycle is not None and cycles and not terminal_cycles(ex):
    hits.append(Hit("loops", f"loops|{rules}|explore-cycle|{'+'.join(cycle)}", f"some orders never end: a cycle of {', '.join(cycle)}",
                    "explore", cycle[0], None, 1, "", 0))
  return GraphOutcome(entry, hits, len(ex.states), ex.bound, time.perf_counter() - start, cycle is not None)


class Checker:
  """Folds ``GraphOutcome``s into a ``CheckReport`` (in corpus order, so the report is the same however they were run)."""

  def __init__(self, entries: list[Entry], report: CheckReport) -> None:
    self.entries, self.report = entries, report
    self.by_key: dict[str, Finding] = {}

  def add(self, out: GraphOutcome, rules: str) -> None:
    r, e = self.report, self.entries[out.entry]
    r.checked += 1
    r.states += out.states
    r.seconds += out.seconds
    r.cyclic += out.cyclic
    prog_size = _size(e.program)
    if out.bound is not None:
      r.undecided[out.bound] += 1
      r.undecided_examples.append((out.entry, show(cast(Any, e.program), EXAMPLE_LIMIT)))
      r.undecided_examples.sort(key=lambda x: len(x[1]))
      del r.undecided_examples[5:]
    for h in out.hits:
      f = self.by_key.get(h.key)
      if f is None: f = self.by_key[h.key] = Finding(h.kind, h.key, h.title, h.engine, rules, h.rule, h.error)
      f.graphs += 1
      f.steps += h.steps
      example_size = h.size or prog_size
      if (example_size, prog_size) < (f.example_size, f.program_size):
        f.example = h.example or show(cast(Any, e.program), EXAMPLE_LIMIT)
        f.example_size, f.program_size, f.entry = example_size, prog_size, out.entry
        f.program = e.text or dump_graph(e.ir, e.program)

  def finish(self) -> CheckReport:
    order = {k: i for i, k in enumerate(KINDS)}
    self.report.findings = sorted(self.by_key.values(), key=lambda f: (order[f.kind], -f.graphs, f.key))
    return self.report


def resolve(entries: list[Entry]) -> dict[str, Any]:
  """The rule set of each named spec the entries name (a spec that does not resolve is left out: its graphs are skipped
  and counted, as the unnamed ones)."""
  from uopc.relational.ir import resolve_rules
  from uopc.rulesets import RuleSetError
  sets: dict[str, Any] = {}
  for spec in sorted({e.rules for e in entries if e.named}):
    try: sets[spec] = resolve_rules(spec)
    except (RuleSetError, ModuleNotFoundError): pass
  return sets


def check_corpus(entries: list[Entry], rules: str | None = None, *, max_states: int = 2_000, max_depth: int = 50,
                 timeout: float | None = 5.0, bindings: int = 8, seed: int = 0, limits: Limits = NO_LIMITS,
                 progress: Callable[[int], Any] | None = None, stop: Callable[[], str | None] | None = None,
                 rule_sets: dict[str, Any] | None = None, cycles: bool = False, jobs: int = 1,
                 run: Callable[[Callable[[], GraphOutcome | None]], GraphOutcome | None] = lambda fn: fn()) -> CheckReport:
  """Check every entry of a corpus (``rules``: under that rule set, a spec; None: each under its own, the unnamed ones
  skipped and counted). Each graph gets ``max_states``/``max_depth``/``timeout`` (per graph); ``limits`` are the caller's
  bounds on the whole check and ``stop()`` says when they were hit, ``run(fn)`` waits for one graph's check (a command's
  ``bounded``: None where a bound cut it): the report so far is returned, marked incomplete. ``jobs`` > 1: graphs are
  checked by that many forked processes (``uopc.corpus.workers``; ``limits`` then bound the wait, each worker only its
  graph's own bounds), the report the same."""
  report = CheckReport(graphs=len(entries))
  if rule_sets is not None: sets = rule_sets
  elif rules is not None:
    from uopc.relational.ir import resolve_rules
    sets = {rules: resolve_rules(rules)}
  else: sets = resolve(entries)
  checker = Checker(entries, report)
  tasks: list[tuple[int, str]] = []
  for i, e in enumerate(entries):
    spec = rules if rules is not None else e.rules
    if rules is None and not e.named: report.skipped["unnamed rule set (give --rules to check these)"] += 1
    elif spec not in sets: report.skipped[f"rule set {spec} does not resolve"] += 1
    else: tasks.append((i, spec))
  if progress is not None and len(tasks) < len(entries): progress(len(entries) - len(tasks))
  bounds = dict(max_states=max_states, max_depth=max_depth, timeout=timeout, bindings=bindings, seed=seed, cycles=cycles)
  parallel = jobs > 1 and len(tasks) > 1
  if parallel:
    from uopc.corpus.workers import outcomes
    results = outcomes(check_graph, entries, sets, tasks, jobs, bounds)
    next_outcome: Callable[[], GraphOutcome | None] = functools.partial(next, results, None)
  else: next_outcome = functools.partial(_check_next, iter(tasks), entries, sets, limits, bounds)
  try:
    for _, spec in tasks:
      out = run(next_outcome)
      why = stop() if stop is not None else None
      if out is None or why is not None:   # the command's bound cut this graph short: not counted
        report.stopped = why or "stopped"
        break
      checker.add(out, spec)
      if progress is not None: progress(1)
  finally:
    if parallel: results.close()   # stops the workers
  return checker.finish()


def _check_next(pending: Iterator[tuple[int, str]], entries: list[Entry], sets: dict[str, Any], limits: Limits,
                bounds: dict[str, Any]) -> GraphOutcome:
  i, spec = next(pending)
  return check_graph(i, entries[i].program, sets[spec], spec, limits=limits, **bounds)


def baseline_keys(report: CheckReport) -> list[str]:
  """What a baseline keeps of a report: its findings' keys, sorted."""
  return sorted(f.key for f in report.findings)


def mark_new(report: CheckReport, known: Iterable[str]) -> list[Finding]:
  """Mark each finding new or not against a baseline's keys; the new ones."""
  known = set(known)
  for f in report.findings: f.new = f.key not in known
  return [f for f in report.findings if f.new]
