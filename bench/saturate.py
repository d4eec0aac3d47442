"""Equality saturation and best-first search benchmarks: ``python -m bench saturate``.

1. Saturation of a 101-node program (a sum of 20 ``(p_i * 4 + 8) // 4``) under
   ``symbolic`` plus commutativity of ``+`` and ``*``, 5 s (wall) each, with egg's backoff
   scheduler and without bans: how far each gets, and the cost extracted.
2. Best-first search against exhaustive exploration on the same programs: graphs
   made (states visited) and expanded; both must find the same minimum cost.
3. egglog (PyPI ``egglog``, Python 3.12+, run in a bench-only venv ``.bench-venv``) on two pure-pattern rule sets:
   exercise 9's, and associativity and commutativity of ``+`` and ``*`` with distributivity both ways
   (``DISTRIBUTIVITY``, on ``p0 * (p1 + ... + pm)``). Both must make the same e-graph and extract the same cost
   (egglog's default tree cost: 1 per constructor and per literal; uopc with the same cost, built in: ``Cost.tree``);
   CPU time of each (the fastest of RUNS rounds, a round running egglog's side then uopc's on every program), and
   the ratio, in one run; whether uopc ran its C core (``uopc.egraph.native``), memory per e-node, and uopc's Python
   loop's time (one run, checked to make the same e-graph and cost). Skipped, with a message
   in the table, when ``.bench-venv/bin/python`` cannot import egglog. Set up with:
   ``~/.pyenv/versions/3.12.1/bin/python -m venv .bench-venv && .bench-venv/bin/pip install egglog``
"""
from __future__ import annotations

import json
import os
import subprocess
import time
import tracemalloc
from typing import Any

from uopc import Ops, PatternMatcher, UOp, UPat, graph_rewrite, symbolic
from uopc.cost import Cost
from uopc.egraph import BackoffScheduler, saturate
from uopc.relational.analyses.best import best
from uopc.relational.space.stream import Exploration
from uopc.rewrite import RewriteLoopError
from uopc.rulesets import resolve_rules

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PEER_PYTHON = os.path.join(ROOT, ".bench-venv", "bin", "python")
a, b, c = UPat.var("a"), UPat.var("b"), UPat.var("c")
COMMUTATIVITY = PatternMatcher([(UPat(Ops.ADD, src=(a, b)), lambda a, b: b + a), (UPat(Ops.MUL, src=(a, b)), lambda a, b: b * a)])
def NO_BANS() -> BackoffScheduler: return BackoffScheduler(match_limit=10**12)
RUNS = 5   # egglog against uopc: rounds, each program once on each side in each, the fastest kept (the machine is shared)
PYTHON_ENODES = 5_000   # uopc's Python loop is timed too on e-graphs up to this size
EGGLOG_COST = Cost.tree({Ops.PARAM: 2, Ops.CONST: 2}, name="egglog")   # Math(0), Math.var("p0"): 2; a constructor 1
DISTRIBUTIVITY = PatternMatcher([   # egglog_peer.py's "distributivity", in the same order
  (UPat(Ops.ADD, src=(UPat(Ops.ADD, src=(a, b)), c)), lambda a, b, c: a + (b + c), "add-assoc"),
  (UPat(Ops.MUL, src=(UPat(Ops.MUL, src=(a, b)), c)), lambda a, b, c: a * (b * c), "mul-assoc"),
  (UPat(Ops.ADD, src=(a, b)), lambda a, b: b + a, "add-comm"),
  (UPat(Ops.MUL, src=(a, b)), lambda a, b: b * a, "mul-comm"),
  (UPat(Ops.MUL, src=(a, UPat(Ops.ADD, src=(b, c)))), lambda a, b, c: a * b + a * c, "distribute"),
  (UPat(Ops.ADD, src=(UPat(Ops.MUL, src=(a, b)), UPat(Ops.MUL, src=(a, c)))), lambda a, b, c: a * (b + c), "factor")])


def ex9() -> PatternMatcher: return resolve_rules(os.path.join(ROOT, "examples", "saturation_rules.py") + ":rules")


def hundred_nodes() -> UOp:
  prog = None
  for i in range(20):
    t = (UOp.param(i) * 4 + 8) // 4
    prog = t if prog is None else prog + t
  return prog


def canonical_cost(prog: UOp, pm: PatternMatcher) -> str:
  try: return str(Cost.nodes().of(graph_rewrite(prog, pm, max_steps=200_000)))
  except RewriteLoopError: return "loops"


def saturation_rows(seconds: float = 5.0) -> list[tuple]:
  prog, pm = hundred_nodes(), symbolic + COMMUTATIVITY
  out = []
  for name, sched in (("backoff", BackoffScheduler()), ("no bans", BackoffScheduler(match_limit=10**12))):
    t0 = time.process_time()
    r = saturate(prog, pm, max_iterations=100, max_enodes=100_000, timeout=seconds, scheduler=sched)
    out.append((name, r.iterations, r.enodes, r.eclasses, r.applied, r.stop, Cost.nodes().of(prog),
                canonical_cost(prog, symbolic), r.cost, time.process_time() - t0))
  return out


def unit_sum(k: int) -> UOp:
  prog = None
  for i in range(k):
    t = (UOp.param(i) * 2 + 0) * 1
    prog = t if prog is None else prog + t
  return prog


def search_programs() -> list[tuple[str, UOp, PatternMatcher, str]]:
  p0 = UOp.param(0)
  return [("affine", (p0 + 2) * 3 + (UOp.const(1) + 4), symbolic, "symbolic"),
          ("to a leaf", ((p0 + 0) * 1 + 0) * (UOp.const(2) + -1), symbolic, "symbolic"),
          ("saturation.uir", ((p0 * 2) + 0) * 1 + (UOp.param(1) + 0), ex9(), "exercise 9"),
          ("exercise 9, k=2", unit_sum(2), ex9(), "exercise 9")]


def search_rows() -> list[tuple]:
  out = []
  for name, prog, pm, rules in search_programs():
    ex = Exploration(prog, pm, max_states=200_000).run()
    lowest = min(Cost.nodes().of(s.graph) for s in ex.states if not s.stuck)
    r = best(prog, pm, max_states=200_000)
    out.append((name, rules, len(ex.states), r.seen, r.expanded, lowest, r.cost, ex.complete and r.complete))
  return out


def egglog_term(u: UOp) -> list:
  terms: dict[UOp, list] = {}
  for v in u.toposort():
    if v.op is Ops.PARAM: terms[v] = ["var", f"p{v.arg.slot}"]
    elif v.op is Ops.CONST: terms[v] = ["num", v.arg]
    else: terms[v] = ["add" if v.op is Ops.ADD else "mul", terms[v.src[0]], terms[v.src[1]]]
  return terms[u]


def unit_product(k: int) -> UOp:
  prog = None
  for i in range(k):
    t = (UOp.param(i) * 2 + 0) * 1
    prog = t if prog is None else prog * t
  return prog


def distributed(m: int) -> UOp:
  """``p0 * (p1 + ... + pm)``: under DISTRIBUTIVITY, 3^m e-nodes or so (m=9: 38,352)."""
  s = UOp.param(1)
  for i in range(2, m + 1): s = s + UOp.param(i)
  return UOp.param(0) * s


def memory_per_enode(prog: UOp, pm: PatternMatcher) -> float:
  """Bytes of memory at the peak of a saturation (tracemalloc, in a run of its own: Python's objects and the C core's arrays,
  which it allocates with PyMem_Malloc) per e-node."""
  tracemalloc.start()
  r = saturate(prog, pm, EGGLOG_COST, max_iterations=30, max_enodes=200_000, timeout=120, scheduler=NO_BANS())
  peak = tracemalloc.get_traced_memory()[1]
  tracemalloc.stop()
  return peak / max(r.enodes, 1)


def rule_sets() -> list[tuple[str, PatternMatcher, list[tuple[str, UOp]]]]:
  """(name as egglog_peer.py knows it, the rules, the programs): sums make 2^k classes under exercise 9 (commutativity and
  associativity), products grow linearly (mul is only commutative); distributivity both ways makes about 3^m e-nodes."""
  ex9_progs = [("examples/saturation.uir", ((UOp.param(0) * 2) + 0) * 1 + (UOp.param(1) + 0))] + \
    [(f"sum of k={k} (p*2+0)*1", unit_sum(k)) for k in (2, 3, 4, 5, 6)] + \
    [(f"product of k={k} (p*2+0)*1", unit_product(k)) for k in (4, 10, 20, 40)]
  return [("ex9", ex9(), ex9_progs), ("distributivity", DISTRIBUTIVITY, [(f"p0*(p1+...+p{m})", distributed(m)) for m in range(4, 10)])]


def peer_round(rules: str, progs: list[UOp]) -> list[dict] | str:
  """One run of each program by egglog_peer.py, or why not."""
  if not os.path.exists(PEER_PYTHON): return "skipped: no .bench-venv (see the module docstring to set it up)"
  try:
    done = subprocess.run([PEER_PYTHON, os.path.join(ROOT, "bench", "egglog_peer.py"), "1"], capture_output=True, text=True,
                          input=json.dumps({"rules": rules, "programs": [egglog_term(p) for p in progs]}), timeout=600)
    return json.loads(done.stdout)
  except (OSError, ValueError, subprocess.TimeoutExpired):
    return "skipped: egglog is not importable in .bench-venv" + (f" ({done.stderr.strip().splitlines()[-1]})" if done.stderr.strip() else "")


def uopc_run(prog: UOp, pm: PatternMatcher, native: bool | None = None) -> tuple[float, Any]:
  """CPU seconds of one saturation + extraction, and its result. egglog runs every rule every iteration: no bans here either,
  so both make the same e-graph."""
  t0 = time.process_time()
  r = saturate(prog, pm, EGGLOG_COST, max_iterations=30, max_enodes=200_000, timeout=120, scheduler=NO_BANS(), native=native)
  return time.process_time() - t0, r


def egglog_rows() -> tuple[list[tuple], str | None]:
  out = []
  for rules, pm, progs in rule_sets():
    theirs: list[dict] = []
    ours: list[float] = [float("inf")] * len(progs)
    results: list[Any] = [None] * len(progs)
    for _ in range(RUNS):   # rounds: egglog's side then uopc's, so that a change in the machine's load hits both
      peer = peer_round(rules, [p for _, p in progs])
      if isinstance(peer, str): return [], peer
      theirs = peer if not theirs else [min(t, q, key=lambda d: d["seconds"]) for t, q in zip(theirs, peer)]
      for i, (_, prog) in enumerate(progs):
        t, results[i] = uopc_run(prog, pm)
        ours[i] = min(ours[i], t)
    for (name, prog), th, t_ours, r in zip(progs, theirs, ours, results):
      t_py = None
      if r.enodes <= PYTHON_ENODES:   # the Python loop, once: what the C core saves (past that, tens of seconds)
        t_py, py = uopc_run(prog, pm, native=False)
        assert (py.enodes, py.eclasses, py.iterations, py.cost, py.best) == (r.enodes, r.eclasses, r.iterations, r.cost, r.best)
      out.append((rules, name, Cost.nodes().of(prog), r.stop, r.iterations, r.enodes, r.eclasses, r.cost, th["stop"],
                  th["iterations"], th["enodes"], th["eclasses"], th["cost"], t_ours, th["seconds"], memory_per_enode(prog, pm),
                  r.native, t_py))
  return out, None


def main() -> None:
  print("saturation of a 101-node program under symbolic + commutativity (stopped after 5 s of wall time each; costs: distinct nodes)")
  print(f"{'scheduler':10s} {'iterations':>10s} {'e-nodes':>8s} {'e-classes':>9s} {'applied':>8s} {'stop':>10s} "
        f"{'program':>7s} {'canonical':>9s} {'best':>5s} {'CPU s':>6s}")
  for name, it, en, ec, ap, stop, pc, cc, bc, t in saturation_rows():
    print(f"{name:10s} {it:10d} {en:8d} {ec:9d} {ap:8d} {stop:>10s} {pc:7d} {cc:>9s} {bc:5d} {t:6.2f}")
  print()
  print("best-first search against exhaustive exploration (graphs made; costs: distinct nodes)")
  print(f"{'program':18s} {'rules':11s} {'exhaustive':>10s} {'best-first':>10s} {'expanded':>8s} {'min cost':>8s} {'found':>5s} {'complete':>8s}")
  for name, rules, n_ex, seen, expanded, low, found, complete in search_rows():
    print(f"{name:18s} {rules:11s} {n_ex:10d} {seen:10d} {expanded:8d} {low:8d} {found:5d} {str(complete):>8s}")
  print()
  print(f"uopc saturate against egglog on exercise 9's rules and on distributivity (egglog's tree cost; no bans; CPU time of"
        f" saturation + extraction, the fastest of {RUNS} interleaved rounds; B/e-node: uopc's peak memory, Python and its C core's,"
        " per e-node; C: uopc's C core ran; Python s: uopc's Python loop, one run, the same e-graph, cost and graph)")
  rows, skipped = egglog_rows()
  print(f"{'rules':14s} {'program':27s} {'nodes':>5s} {'stop':>10s} {'iter':>4s} {'e-nodes':>7s} {'classes':>7s} {'cost':>4s} | "
        f"{'egglog':>10s} {'iter':>4s} {'e-nodes':>7s} {'classes':>7s} {'cost':>4s} | {'uopc s':>7s} {'egglog s':>8s} "
        f"{'ratio':>6s} {'B/e-node':>8s} {'C':>3s} {'Python s':>8s}")
  if skipped: print(skipped)
  for rules, name, n, stop, it, en, ec, ours, stop2, it2, en2, ec2, theirs, t_ours, t_theirs, mem, native, t_py in rows:
    py_s = "-" if t_py is None else f"{t_py:.3f}"
    print(f"{rules:14s} {name:27s} {n:5d} {stop:>10s} {it:4d} {en:7d} {ec:7d} {ours:4g} | {stop2:>10s} {it2:4d} {en2:7d} {ec2:7d} "
          f"{theirs:4g} | {t_ours:7.4f} {t_theirs:8.4f} {t_ours / max(t_theirs, 1e-9):5.2f}x {mem:8.0f} {'yes' if native else 'no':>3s} {py_s:>8s}")


if __name__ == "__main__":
  main()
