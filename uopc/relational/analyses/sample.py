"""Sampled normal forms: many random rewrite runs, each to a normal form, where exhaustion is out of reach.

When a bound stops an exploration before it exhausts the space, its normal forms are
only those it happened to reach (breadth first, often none). Sampling runs the rewriting
many times instead, each run from the program to a normal form in time linear in its
path, under a randomly drawn strategy (swarm verification, as model checkers do it: each
run gets its own configuration, so rare orders come up):

- where: ``anywhere`` (any redex), ``innermost`` (a redex of least height) or
  ``outermost`` (of greatest height); ties broken at random;
- which rule: each rule gets a random weight per run (some nearly switched off), and a
  redex is drawn with probability proportional to its rule's weight.

Every form found is a real normal form (no step, not even a failing one, leaves it) with
the path that reached it; but the forms found are a lower bound, never a count: a sample
proves that some normal forms exist, and says nothing of the ones it missed. The runs are
deterministic given ``seed`` (a bound may stop them earlier; what was found stays).

>>> from uopc import UOp, symbolic
>>> s = sample_normal_forms(UOp.const(-0.0) + UOp.const(0.0), symbolic, max_runs=50)
>>> sorted(f.term() for f in s.forms), s.runs
(['-0.0', '0.0'], 50)
>>> [e.rule for e in s.form_of(UOp.const(-0.0)).path()]
['add-0.0']
"""
from __future__ import annotations

import random
import time
from typing import Any, Callable, Literal, NamedTuple

from uopc.bounded import StopReason
from uopc.limits import NO_LIMITS, Limits
from uopc.matcher import PatternMatcher
from uopc.relational.space.states import State, Stuck
from uopc.relational.space.step import Semantics, Stepper, stepper_for
from uopc.uop import UOp

__all__ = ["STRATEGIES", "Sample", "sample_normal_forms"]

Strategy = Literal["anywhere", "innermost", "outermost"]
STRATEGIES: tuple[Strategy, ...] = ("anywhere", "innermost", "outermost")
DEFAULT_MAX_STEPS = 10_000   # steps a run may take before it is given up (a rule set that loops has no normal form there)
PATIENCE = 1_000   # runs without a new normal form (and at least twice as many as it took to find the last one) before sampling stops


class Run(NamedTuple):
  """One finished run: where it ended (``"normal"``, ``"stuck"``: only failing steps left, ``"cut"``: ``max_steps``), and the
  graphs its steps made (every successor of every graph it went through: its work, whatever the machine's speed)."""
  end: str
  strategy: Strategy
  steps: int
  graphs: int


class Sample:
  """What the runs found: ``forms`` (normal states, each its shortest sampled path: ``form.path()``), in order of discovery.

  ``runs`` counts the runs finished, ``stuck`` and ``cut`` those that ended without a normal
  form (a failing step was all that was left, or ``max_steps`` ran out); ``graphs`` the graphs
  their steps made (``max_graphs`` bounds it); ``bound`` says what stopped the sampling (None: it
  ran ``max_runs``, made ``max_graphs`` or stopped finding new forms); ``elapsed`` its seconds.
  """

  def __init__(self, seed: int = 0) -> None:
    self.seed = seed
    self.runs = self.stuck = self.cut = self.graphs = 0
    self.bound: StopReason | None = None
    self.elapsed = 0.0
    self.max_runs: int | None = None
    self.max_graphs: int | None = None
    self.max_steps = DEFAULT_MAX_STEPS
    # one list of (state, run, strategy), each entry written in one operation: a bound raised into the
    # sampling (``uopc.limits.BoundHit``) leaves it whole
    self._found: list[tuple[State, int, Strategy]] = []
    self._index: dict[UOp, int] = {}

  @property
  def forms(self) -> list[State]:
    """The normal forms found, in order of discovery; ``form.path()`` is the shortest path a run took to it."""
    return [f for f, _, _ in self._found]

  @property
  def found_at(self) -> list[int]:
    """The run (counting from 1) that first reached each form."""
    return [k for _, k, _ in self._found]

  @property
  def strategies(self) -> list[Strategy]:
    """The strategy of the run that first reached each form."""
    return [s for _, _, s in self._found]

  def form_of(self, graph: UOp) -> State | None:
    """The sampled normal state of ``graph``, if a run reached it."""
    k = self._index.get(graph)
    return None if k is None else self._found[k][0]

  def _add(self, end: State, run: int, strategy: Strategy) -> bool:
    """Record a run's normal form; True if it is new (a shorter path to a known one replaces the old path)."""
    k = self._index.get(end.graph)
    if k is None:
      self._found.append((end, run, strategy))
      self._index[end.graph] = len(self._found) - 1
      return True
    if end.depth < self._found[k][0].depth: self._found[k] = (end, *self._found[k][1:])
    return False

  def __repr__(self) -> str:
    return f"Sample({len(self.forms)} normal forms in {self.runs} runs, seed {self.seed})"


def _height(u: UOp, memo: dict[UOp, int]) -> int:
  """1 + the height of ``u``'s tallest source (memoized: a run's new nodes are along its spine)."""
  if (h := memo.get(u)) is not None: return h
  stack = [u]
  while stack:
    v = stack[-1]
    if v in memo: stack.pop(); continue
    todo = [s for s in v.src if s not in memo]
    if todo: stack.extend(todo); continue
    memo[v] = 1 + max((memo[s] for s in v.src), default=0)
    stack.pop()
  return memo[u]


def _weights(rng: random.Random, n: int) -> list[float]:
  """A run's rule weights: exponential, and about one rule in four nearly switched off (swarm's omission)."""
  return [rng.expovariate(1.0) * (0.02 if rng.random() < 0.25 else 1.0) for _ in range(n)]


def _one_run(prog: UOp, stepper: Stepper, rng: random.Random, max_steps: int, heights: dict[UOp, int],
             limits: Limits) -> tuple[Run, list[Any]]:
  """One random run from ``prog``: how it ended and its steps ``[(redex, graph after)]``."""
  strategy: Strategy = rng.choice(STRATEGIES)
  weights = _weights(rng, len(stepper.pm.rules))
  g: Any = prog
  steps: list[tuple[Any, Any]] = []
  made = 0
  for _ in range(max_steps):
    ok: list[tuple[Any, Any]] = []
    failing = False
    for r, h in stepper.successors(g):
      if h.__class__ is not Stuck: ok.append((r, h))   # a node of any IR (uopc's, tinygrad's, PyTensor's), or a failing step
      else: failing = True
    made += len(ok)
    if not ok: return Run("stuck" if failing else "normal", strategy, len(steps), made), steps
    if strategy != "anywhere" and len(ok) > 1:
      hs = [_height(r.node, heights) for r, _ in ok]
      best = min(hs) if strategy == "innermost" else max(hs)
      ok = [rh for rh, hk in zip(ok, hs) if hk == best]
    r, h = ok[0] if len(ok) == 1 else rng.choices(ok, [weights[r.rule_index] for r, _ in ok])[0]
    steps.append((r, h))
    g = h
    if (len(steps) & 63) == 0 and limits.should_stop() is not None: break   # a long run still sees the caller's bound
  return Run("cut", strategy, len(steps), made), steps


def sample_normal_forms(prog: UOp, pm: PatternMatcher, *, seed: int = 0, max_runs: int | None = None, timeout: float | None = None,
                        max_steps: int | None = None, patience: int | None = PATIENCE, max_graphs: int | None = None, ctx: Any = None,
                        semantics: Semantics = "graph", stepper: Stepper | None = None, into: Sample | None = None,
                        limits: Limits = NO_LIMITS, progress: Callable[[Sample], None] | None = None) -> Sample:
  """Random runs of ``pm`` from ``prog``, each to a normal form (see the module doc), until a bound.

  Stops after ``max_runs`` runs, once the runs have made ``max_graphs`` graphs (a count of
  their work: a run's step makes every successor of its graph; checked between runs), after ``timeout`` seconds, at the caller's ``limits``
  (``uopc.limits``: checked between runs and every 64 steps), or, with ``patience``,
  once that many runs in a row (and at least as many as it took to find the last new one)
  found no new normal form. A run gives up after ``max_steps`` steps (default 10,000).
  ``into``: fill this ``Sample`` (made with the same ``seed``), so that a caller whose
  bound interrupts the sampling (``bounded``) keeps what it found. ``progress(sample)``, if given, is called after each
  run (a command's progress bar reads ``runs`` and ``graphs``).
  """
  stepper = stepper if stepper is not None else stepper_for(pm, ctx, semantics)
  out = into if into is not None else Sample(seed)
  rng = random.Random(seed)
  max_steps = out.max_steps = DEFAULT_MAX_STEPS if max_steps is None else max_steps
  out.max_runs, out.max_graphs = max_runs, max_graphs
  t0 = time.perf_counter()
  deadline = None if timeout is None else t0 + timeout
  heights: dict[UOp, int] = {}
  last_new = 0
  try:
    while (max_runs is None or out.runs < max_runs) and (max_graphs is None or out.graphs < max_graphs):
      if (why := limits.should_stop()) is not None: out.bound = why; break
      if deadline is not None and time.perf_counter() > deadline: out.bound = "timeout"; break
      if patience is not None and out.runs - last_new >= max(patience, 2 * last_new): break
      run, steps = _one_run(prog, stepper, rng, max_steps, heights, limits)
      if run.end == "cut" and (why := limits.should_stop()) is not None: out.bound = why; break  # the bound cut the run short: not a run
      out.runs += 1
      out.graphs += run.graphs
      if progress is not None: progress(out)
      if run.end != "normal":
        if run.end == "stuck": out.stuck += 1
        else: out.cut += 1
        continue
      known = out.form_of(steps[-1][1] if steps else prog)
      if known is not None and known.depth <= len(steps): continue   # nothing new, nor a shorter path
      if out._add(_states(prog, steps, stepper), out.runs, run.strategy): last_new = out.runs
  finally:
    out.elapsed = time.perf_counter() - t0
    if out.bound is None: out.bound = limits.should_stop()
  return out


def _states(prog: UOp, steps: list[Any], stepper: Stepper) -> State:
  """The run's path as states (the program first), so ``path()`` gives its edges as an exploration's would; the last state."""
  s = State(0, prog, 0, None, None, stepper)
  for k, (r, h) in enumerate(steps, 1):
    s = State(k, h, k, s, r, stepper)
  s.normal, s.out = True, {}
  return s
