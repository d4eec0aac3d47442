"""What ``prove_rules`` returns and ``uopc check-rules --prove`` prints: a verdict per rule and dtype, each
counterexample replayed through ``run()`` and the compiled C backend, and a summary.

A rule is "refuted" if it is at any dtype, "proved" if it is at every dtype it applies to, else "unknown". The
chapter's own ``x + 0 -> x`` rules (``uopc.symbolic.ADD_ZERO``, known by identity as ``check-rules`` knows them) are
refuted at -0.0 as any rule would be, and counted "accepted": the chapter accepts that one difference.
"""
from __future__ import annotations

import collections
import math
import multiprocessing
import multiprocessing.connection
import time
from dataclasses import dataclass, field
from typing import Any, Callable

from uopc.dtype import DType, dtypes
from uopc.lengths import LENGTHS
from uopc.limits import BoundHit
from uopc.matcher import PatternMatcher
from uopc.term import show

from uopc.backend.driver import Batch, Outcome
from uopc.backend.soundness import is_excused
from uopc.smt.prove import TIMEOUT_MS, Verdict, prove_rule, rule_status
from uopc.smt.solver import session

STATUSES = ("proved", "refuted", "accepted", "unknown")
RETRY_FACTOR = 10   # a rule the solver gave up on is tried once more on this many times the budget
Progress = Callable[[str, int, int], None]   # (what, done, total)


@dataclass
class RuleProof:
  """One rule's verdicts, one per dtype it applies to (``c_replay``: the C backend's outputs of both sides at each
  refuted dtype's counterexample)."""
  name: str
  location: str
  verdicts: dict[DType, Verdict]
  excused: bool = False
  c_replay: dict[DType, tuple[str, str]] = field(default_factory=dict)

  @property
  def status(self) -> str:
    s = rule_status(self.verdicts)
    return "accepted" if s == "refuted" and self.excused else s

  @property
  def seconds(self) -> float: return sum(v.seconds for v in self.verdicts.values())


def _values_text(values: dict[int, Any] | None) -> str:
  return ", ".join(f"p{slot} = {v!r}" for slot, v in sorted((values or {}).items())) or "(no inputs)"


def detail(v: Verdict, c: tuple[str, str] | None = None) -> str:
  """One line: a refuted verdict's instance, counterexample and replays; else the reason."""
  if v.status != "refuted" or v.lhs is None or v.rhs is None: return v.reason
  where = f"{show(v.lhs, LENGTHS.message)} -> {show(v.rhs, LENGTHS.message)} at {_values_text(v.counterexample)}"
  seen = f": run() {v.replay[0]} vs {v.replay[1]}" if v.replay else f": {v.reason}"
  return where + seen + (f", C {c[0]} vs {c[1]}" if c else "")


@dataclass
class ProofReport:
  """Every rule's verdicts (``rules``, in the rule set's order), the time, and what a bound stopped, if one did."""
  rules: list[RuleProof]
  seconds: float = 0.0
  stopped: str = ""   # the rule a bound (--timeout, an interrupt) stopped at: the report is partial

  def by_rule(self) -> dict[str, dict[DType, Verdict]]:
    """Rule name -> dtype -> verdict."""
    return {r.name: r.verdicts for r in self.rules}

  def counts(self) -> collections.Counter:
    return collections.Counter(r.status for r in self.rules)

  @property
  def refuted(self) -> list[RuleProof]: return [r for r in self.rules if r.status == "refuted"]

  def summary(self) -> str:
    counts = self.counts()
    said = ", ".join(f"{counts[s]} {s}" for s in STATUSES if counts[s] or s != "accepted")
    return f"{said} ({len(self.rules)} rules, {self.seconds:.1f} s)" + (f"; incomplete: stopped at {self.stopped}" if self.stopped else "")

  def table(self) -> str:
    """One row per rule and dtype: the verdict, the time, the counterexample (with its replays) or the reason."""
    w = max([len(r.name) for r in self.rules] + [4])
    head = f"{'rule':{w}}  {'dtype':5}  {'verdict':8} {'time':>6}  detail"
    rows = [head, "-" * len(head)]
    for r in self.rules:
      if not r.verdicts: rows.append(f"{r.name:{w}}  {'-':5}  {'unknown':8} {0.0:5.2f}s  applies to no dtype")
      for d, v in r.verdicts.items():
        status = "accepted" if v.status == "refuted" and r.excused else v.status
        rows.append(f"{r.name:{w}}  {d.name:5}  {status:8} {v.seconds:5.2f}s  {detail(v, r.c_replay.get(d))}".rstrip())
    return "\n".join(rows + ["", self.summary()])

  def to_json(self) -> dict[str, Any]:
    """The report as JSON data (``--format json``)."""
    def verdict(r: RuleProof, d: DType, v: Verdict) -> dict[str, Any]:
      out: dict[str, Any] = {"dtype": d.name, "verdict": v.status, "seconds": round(v.seconds, 3), "reason": v.reason}
      if v.status == "refuted" and v.lhs is not None and v.rhs is not None:
        out.update(instance=show(v.lhs), rewrite=show(v.rhs), inputs={f"p{k}": _json_value(x) for k, x in sorted((v.counterexample or {}).items())},
                   run=list(v.replay) if v.replay else None, c=list(r.c_replay[d]) if d in r.c_replay else None)
      return out
    return {"rules": [{"rule": r.name, "location": r.location, "verdict": r.status,
                       "dtypes": [verdict(r, d, v) for d, v in r.verdicts.items()]} for r in self.rules],
            "summary": dict(self.counts()), "seconds": round(self.seconds, 3), "stopped": self.stopped or None}


def _json_value(v: Any) -> Any:
  """A value as JSON takes it: inf and nan as their repr (JSON has no number for them)."""
  if isinstance(v, list): return [_json_value(x) for x in v]
  return repr(v) if isinstance(v, float) and not math.isfinite(v) else v


def _c_text(o: Outcome) -> str: return repr(o.value) if o.ok else f"error: {o.error}"


def replay_in_c(rules: list[RuleProof]) -> None:
  """Compile both sides of every counterexample (one batch) and record what C prints for each (``c_replay``)."""
  batch = Batch()
  queries, where = [], []
  for r in rules:
    for d, v in r.verdicts.items():
      if v.status != "refuted" or v.lhs is None or v.rhs is None or v.counterexample is None: continue
      queries += [(batch.add(v.lhs), v.counterexample), (batch.add(v.rhs), v.counterexample)]
      where.append((r, d))
  if not queries: return
  outs = batch.run(queries)
  for (r, d), left, right in zip(where, outs[::2], outs[1::2]): r.c_replay[d] = (_c_text(left), _c_text(right))


def prove_rule_at_dtypes(rule: Any, name: str, at: tuple[DType, ...], timeout_ms: int) -> RuleProof:
  """One rule proved at every dtype of ``at`` where it applies, in one z3 session (``solver.session``); a verdict the
  budget stopped, once more on ``RETRY_FACTOR`` times it. Each verdict's ``seconds``: the CPU time of this process."""
  verdicts = {}
  with session():
    for d in at:
      t = time.process_time()
      v = prove_rule(rule[0], rule[1], d, timeout_ms=timeout_ms)
      if v.status == "unknown" and "out of budget" in v.reason:   # once more, on a larger budget
        again = prove_rule(rule[0], rule[1], d, timeout_ms=timeout_ms * RETRY_FACTOR)
        v = again._replace(reason=f"{again.reason} (on {RETRY_FACTOR}x the budget)") if again.status != "unknown" else v
      if v.status != "inapplicable": verdicts[d] = v._replace(seconds=time.process_time() - t)
  return RuleProof(name, rule.location, verdicts, is_excused(rule))


def _worker(pm: PatternMatcher, at: tuple[DType, ...], timeout_ms: int, k: int, workers: int, conn: Any) -> None:
  """Worker ``k`` of ``workers``: rules ``k``, ``k + workers``, ... in order, each proof sent as it is done."""
  try:
    for i in range(k, len(pm.rules), workers):
      conn.send((i, prove_rule_at_dtypes(pm.rules[i], pm.name_of(pm.rules[i]), at, timeout_ms)))
  except Exception as e:   # an error: said to the parent, which raises it (a bound's signal ends the worker: its rules are missing)
    conn.send((-1, f"{type(e).__name__}: {e}"))
  finally: conn.close()


def _in_workers(pm: PatternMatcher, at: tuple[DType, ...], timeout_ms: int, workers: int, done: dict[int, RuleProof],
                progress: Progress | None) -> None:
  """The rules of ``pm`` proved in ``workers`` forked processes (the rule functions need no pickling), rule ``i`` by
  worker ``i % workers``: a fixed share, so that each rule's proof follows the same ones in its process on every run
  (each has its own z3 session besides); ``done`` fills as they finish. Every worker is stopped on the way out."""
  ctx = multiprocessing.get_context("fork")
  procs: list[Any] = []
  conns: list[Any] = []
  try:
    for k in range(workers):
      here, there = ctx.Pipe(duplex=False)
      procs.append(p := ctx.Process(target=_worker, args=(pm, at, timeout_ms, k, workers, there), daemon=True))
      p.start()
      there.close()
      conns.append(here)
    while conns:
      ready: list[Any] = multiprocessing.connection.wait(conns)
      for conn in ready:
        try: i, proof = conn.recv()
        except EOFError:
          conns.remove(conn)
          continue
        if i < 0: raise RuntimeError(f"a proof worker failed: {proof}")
        done[i] = proof
        if progress: progress(proof.name, len(done), len(pm.rules))
    if len(done) < len(pm.rules): raise BoundHit("interrupted")   # a worker ended early (a signal, the supervisor)
  finally:
    for p in procs:
      if p.is_alive(): p.kill()
      p.join()


def prove_rules(pm: PatternMatcher, at: tuple[DType, ...] = dtypes.all, timeout_ms: int = TIMEOUT_MS, progress: Progress | None = None,
                c_replay: bool = True, workers: int = 1) -> ProofReport:
  """Every rule of ``pm`` proved at every dtype of ``at`` where it applies (``prove_rule_at_dtypes``), the
  counterexamples replayed in C (``c_replay``); a bound (``BoundHit``: the command's ``--timeout``) ends it early, the
  report says where. ``workers`` > 1: the rules are proved in that many forked processes at once (``_in_workers``).
  ``seconds``: the wall time.

  >>> from uopc.upat import UPat
  >>> r = prove_rules(PatternMatcher([(UPat.var("x", dtype=dtypes.i32) * 1, lambda x: x, "mul-1")]))
  >>> {name: {d.name: v.status for d, v in by_dtype.items()} for name, by_dtype in r.by_rule().items()}
  {'mul-1': {'i32': 'proved'}}
  >>> r.summary().split(" (")[0]
  '1 proved, 0 refuted, 0 unknown'
  """
  t0 = time.perf_counter()
  done: dict[int, RuleProof] = {}
  stopped = ""
  try:
    if workers > 1 and len(pm.rules) > 1: _in_workers(pm, at, timeout_ms, workers, done, progress)
    else:
      for i, rule in enumerate(pm.rules):
        if progress: progress(pm.name_of(rule), i, len(pm.rules))
        done[i] = prove_rule_at_dtypes(rule, pm.name_of(rule), at, timeout_ms)
    stopped = "replaying the counterexamples in C"
    if progress: progress(stopped, len(pm.rules), len(pm.rules) + 1)
    if c_replay: replay_in_c([done[i] for i in sorted(done)])
    stopped = ""
  except BoundHit:
    if not stopped: stopped = next(pm.name_of(r) for i, r in enumerate(pm.rules) if i not in done)
  return ProofReport([done[i] for i in sorted(done)], time.perf_counter() - t0, stopped)
