"""tinygrad's own nodes and rules in the explorer: ``python bench/tinygrad.py``.

One table: the first 20,000 states of the same-shaped ~30-node index expression,
``sum_i (v_i + 0) * 1`` over 7 variables, explored as tinygrad nodes under tinygrad's
``symbolic`` and as uopc nodes under uopc's ``symbolic``: states per CPU second, best of 7
interleaved rounds, each round on fresh variables (hash consing would hand back last round's graphs) and a
fresh stepper. uopc's row runs in its native core (the default) and in the Python
core; tinygrad's runs in the Python core (its nodes are not the native core's).
The target: tinygrad's row at no less than half of uopc's Python core. The ratio of the best rows, and
the median of each round's ratio (its two runs next to each other, so what load does to both cancels).

A second table: ``critical_pairs`` over tinygrad's ``symbolic_simple`` and ``symbolic``, one cold
run each (a fresh copy of the matcher, so no memo carries over); the target, ``symbolic`` (118
rules) in under 60 s. ``--pairs-only`` / ``--explore-only`` / ``--targets-only`` run one table.

A third (issue 40's targets, ``targets_main``), each exploration a cold start in a process of its own (``--child``): three
index expressions under ``symbolic`` (``normal_forms``' reduced search, 100,000 states / 20 s; 3 interleaved rounds, the
conv2d index one), then the expressions of tinygrad's own ``test/null/test_uop_symbolic.py`` under its rules
``sym+pm_cast_weak`` at the issue's bounds (3,000 states, 2 s each; the file is tinygrad's repository's, not its wheel's:
give its path in ``TINYGRAD_TEST_UOP_SYMBOLIC``; each expression is what its ``helper_test_variable`` is called with).
``--against ROOT`` runs the same children on another tree's uopc too (``before``; this tree is ``after``), interleaved.
``in rules``: the CPU seconds in matching and tinygrad's rule functions, once per distinct node (``nodes``); ``lower
bound``: the graphs reached whose root some rule's pattern matches (not a stuck step); ``root rules``: those roots' rules
called again, warm. Any exploration that keeps every normal form and treats the rules' functions as black boxes visits
every such graph and calls the rules on every node of every graph it reaches (``docs/tinygrad.md``, "Issue 40's targets"),
so where those are past a bound no sound exploration completes within it.
"""
from __future__ import annotations

import gc
import itertools
import os
import statistics
import sys
import time
from typing import Any, Callable

if __name__ == "__main__":   # run by path: the repository's root first, never bench/ (whose kanren.py shadows the package)
  _here = os.path.dirname(os.path.abspath(__file__))
  # a child of --against runs another tree's uopc (TREE, its root) with this bench's code
  _root = os.environ.get("UOPC_BENCH_TREE") or os.path.dirname(_here)
  sys.path[:] = [_root, *(p for p in sys.path if os.path.abspath(p or ".") != _here)]

from uopc import PatternMatcher, UOp, symbolic
from uopc.relational import explore

TERMS, STATES, ROUNDS = 7, 20_000, 7
_fresh = itertools.count(1)


def uopc_program() -> tuple[UOp, Any]:
  base = next(_fresh) * 100
  terms = [(UOp.param(base + i) + 0) * 1 for i in range(TERMS)]
  prog = terms[0]
  for t in terms[1:]: prog = prog + t
  return prog, PatternMatcher(symbolic.rules)


def tinygrad_program() -> tuple[Any, Any]:
  from tinygrad.uop.ops import PatternMatcher as TPM
  from tinygrad.uop.ops import UOp as TUOp
  from tinygrad.uop.symbolic import symbolic as tsym
  k = next(_fresh)
  terms = [(TUOp.variable(f"v{k}_{i}", 0, 100) + 0) * 1 for i in range(TERMS)]
  prog = terms[0]
  for t in terms[1:]: prog = prog + t
  return prog, TPM(tsym.patterns)


def rate(make: Callable[[], tuple[Any, Any]], **kw: Any) -> tuple[int, int, float, bool]:
  """(nodes, states, states per CPU second, native) of one round: CPU time (``process_time``), not wall time, so another
  engineer's process sharing the core does not count against this one."""
  prog, pm = make()
  gc.collect()
  t0 = time.process_time()
  ex = explore(prog, pm, max_states=STATES, **kw).run()
  n = len(ex.states)
  return len(prog.toposort()), n, n / (time.process_time() - t0), ex.native


def pairs_rows() -> list[tuple[str, int, int, int, int, int, int, float, float]]:
  """(rule set, rules, skipped, pairs, instances, not joinable, errors, seconds, CPU seconds) of one cold run each."""
  from tinygrad.uop import symbolic as tsym
  from tinygrad.uop.ops import PatternMatcher as TPM

  from uopc.relational.analyses.pairs import critical_pairs
  out = []
  for name in ("symbolic_simple", "symbolic"):
    pm = TPM(getattr(tsym, name).patterns)   # a fresh matcher: its adapter, stepper and memos start empty
    gc.collect()
    t0, c0 = time.perf_counter(), time.process_time()
    r = critical_pairs(pm)
    out.append((name, r.rules, len(r.skipped), len(r.pairs), r.instances, r.count("not-joinable"), r.count("error"),
                time.perf_counter() - t0, time.process_time() - c0))
  return out


def pairs_main() -> None:
  print("critical pairs of tinygrad's rule sets (one cold run each; the target: symbolic under 60 s)")
  print(f"{'rule set':16s} {'rules':>5s} {'skipped':>7s} {'pairs':>6s} {'instances':>9s} {'not joinable':>12s} {'errors':>6s} "
        f"{'s':>6s} {'CPU s':>6s} {'s / 60 s':>8s}")
  for name, n, skipped, pairs, inst, bad, err, t, cpu in pairs_rows():
    print(f"{name:16s} {n:5d} {skipped:7d} {pairs:6d} {inst:9d} {bad:12d} {err:6d} {t:6.1f} {cpu:6.1f} {t / 60:8.2f}")


def main() -> None:
  if sys.argv[1:2] == ["--child"]: return child_main(sys.argv[2:])
  only = [a for a in sys.argv[1:] if a.endswith("-only")]
  if not only or "--explore-only" in only: explore_main(); split_main()
  if not only or "--targets-only" in only: targets_main()
  if not only or "--pairs-only" in only: pairs_main()


TEST_STATES, TEST_SECONDS = 3_000, 2.0   # the issue's bounds for tinygrad's test expressions


def symbolic_test_expressions(path: str) -> list[Any]:
  """The expressions tinygrad's ``test_uop_symbolic.py`` (at ``path``) simplifies: each ``helper_test_variable``'s first
  argument, in the order its tests run (unittest's), the tests' own assertions not run."""
  import importlib.util
  import unittest
  spec = importlib.util.spec_from_file_location("tinygrad_test_uop_symbolic", path)
  assert spec is not None and spec.loader is not None, path
  module = importlib.util.module_from_spec(spec)
  spec.loader.exec_module(module)
  seen: list[Any] = []
  for cls in vars(module).values():
    if isinstance(cls, type) and hasattr(cls, "helper_test_variable"):
      cls.helper_test_variable = lambda self, v, *a, **kw: seen.append(v)   # type: ignore[attr-defined]  # record, check nothing
  with open(os.devnull, "w") as quiet:
    unittest.TextTestRunner(stream=quiet).run(unittest.defaultTestLoader.loadTestsFromModule(module))
  return seen


def target_run(prog: Any, pm: Any, reduce: bool, states: int, seconds: float) -> tuple[Any, float, int]:
  """(exploration, CPU seconds, the lower bound: graphs reached whose root some rule's pattern matches) of one
  ``normal_forms``-like exploration (breadth first)."""
  from uopc.relational.space.stream import Exploration
  gc.collect()
  t0 = time.process_time()
  ex = Exploration(prog, pm, reduce=reduce, max_states=states, timeout=seconds).run()
  cpu = time.process_time() - t0
  rules = ex.stepper.pm
  matched = sum(1 for s in ex.states if s.error is None and any(m(s.graph) for _, m, _ in rules.every_candidate(s.graph)))
  return ex, cpu, matched


def index_programs() -> list[tuple[str, Any, Any]]:
  """(name, program, rules) of the issue's index expressions under tinygrad's ``symbolic``."""
  from tinygrad.uop.ops import UOp as TUOp
  from tinygrad.uop.symbolic import symbolic as tsym

  from uopc.corpus import load
  from uopc.relational.adapters.tinygrad.convert import from_uopc
  from uopc.uir import read_uir
  here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
  g, l = TUOp.variable("gidx", 0, 63), TUOp.variable("lidx", 0, 3)
  conv = load(os.path.join(here, "examples", "conv2d_valid_index.jsonl"))[0].program
  return [("(gidx*4 + lidx) // 4 % 8", (g * 4 + l) // 4 % 8, tsym),
          ("examples/conv_index.uir", from_uopc(read_uir(os.path.join(here, "examples", "conv_index.uir"))), tsym),
          ("examples/conv2d_valid_index.jsonl", conv, tsym)]


INDEX_STATES, INDEX_SECONDS, INDEX_ROUNDS = 100_000, 20.0, 3


def root_rules_cpu(ex: Any) -> float:
  """CPU seconds of the rules tried at the root of each graph ``ex`` reached that is not a stuck step, called again: what
  any exploration that keeps every normal form and treats the rules' functions as black boxes must call (each such call
  may make a graph no other step makes). Called again, warm (tinygrad's memos of these nodes' ranges are made, and
  successful ``fold_divmod_general`` calls are cached), so this is at most what those calls cost the exploration."""
  rules = ex.stepper.pm
  t0 = time.process_time()
  for s in ex.states:
    if s.error is not None: continue
    for _, match, fn in rules.every_candidate(s.graph):
      for b in match(s.graph):
        try: fn(**b)
        except Exception: pass
  return time.process_time() - t0


def index_child(name: str) -> dict[str, Any]:
  """One cold exploration of index program ``name`` (this process's first), reduced, at the index bounds; ``rules``: its
  CPU seconds in the stepper's ``_match`` (each distinct node's matching and rule calls, made once a node), timed."""
  from uopc.relational.space import step
  prog, pm = next((p, m) for n, p, m in index_programs() if n == name)
  match, spent = step.Stepper._match, [0.0]

  def timed(self: Any, u: Any) -> Any:
    t0 = time.process_time()
    try: return match(self, u)
    finally: spent[0] += time.process_time() - t0
  step.Stepper._match = timed   # type: ignore[method-assign]  # this child process only
  ex, t, matched = target_run(prog, pm, True, INDEX_STATES, INDEX_SECONDS)
  return {"states": len(ex.states), "stuck": sum(getattr(s, "steps", 1) for s in ex.stuck), "nfs": len(ex.normal_forms),
          "status": ex.bound or "complete", "cpu": t, "rules": spent[0], "nodes": len(ex.stepper._maps), "matched": matched,
          "floor": root_rules_cpu(ex)}


def tests_child(path: str) -> dict[str, Any]:
  """tinygrad's test expressions at ``path`` explored at the issue's bounds (reduced, as ``normal_forms`` does); those a
  time bound stopped, again with the states' bound alone."""
  from tinygrad.uop.symbolic import sym
  from tinygrad.uop.weak import pm_cast_weak
  exprs, pm = symbolic_test_expressions(path), sym + pm_cast_weak
  out = {"n": len(exprs), "complete": 0, "with_nf": 0, "canonical": 0, "cpu": 0.0, "untimed": 0, "beyond": 0, "cpu2": 0.0}
  for v in exprs:
    ex, t, matched = target_run(v, pm, True, TEST_STATES, TEST_SECONDS)
    out["cpu"] += t
    out["complete"] += ex.complete
    out["with_nf"] += bool(ex.normal_forms)
    try: answer = graph_rewrite_of(v, pm)
    except Exception: answer = None
    out["canonical"] += any(s.graph is answer for s in ex.normal_forms)
    if ex.bound == "timeout":   # again without the time bound (a loaded machine's 2 s): the states' bound alone
      ex, t, matched = target_run(v, pm, True, TEST_STATES, 120.0)
      out["cpu2"] += t
    out["untimed"] += ex.complete
    if not ex.complete:   # past the bound? explored to twice the bound, the graphs a sound exploration must visit counted
      ex, t, matched = target_run(v, pm, True, 2 * TEST_STATES, 300.0)
      out["cpu2"] += t
      out["beyond"] += matched > TEST_STATES
  return out


def child(tree: str, *args: str) -> dict[str, Any]:
  """``--child args`` of this bench in a fresh process running ``tree``'s uopc: a cold start, as a user's first run."""
  import json
  import subprocess
  env = {**os.environ, "UOPC_BENCH_TREE": tree, "PYTHONPATH": tree}
  done = subprocess.run([sys.executable, os.path.abspath(__file__), "--child", *args], env=env, capture_output=True,
                        text=True, timeout=7200, check=True)
  return json.loads(done.stdout.strip().splitlines()[-1])


def child_main(args: list[str]) -> None:
  import json
  print(json.dumps(index_child(args[1]) if args[0] == "index" else tests_child(args[1])))


def trees() -> list[tuple[str, str]]:
  """(label, root) of the trees compared: this one ("after"), and with ``--against ROOT`` that one first ("before")."""
  here = os.environ.get("UOPC_BENCH_TREE") or os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
  if "--against" not in sys.argv: return [("this tree", here)]
  return [("before", os.path.abspath(sys.argv[sys.argv.index("--against") + 1])), ("after", here)]


def targets_main() -> None:
  """Issue 40's targets, each exploration cold in a process of its own, the trees compared in interleaved rounds: the
  index expressions' searches, and the test expressions' counts."""
  compared = trees()
  print(f"issue 40's targets (CPU seconds of the search, each a cold start in a fresh process; the machine's load: "
        f"{os.getloadavg()[0]:.1f})")
  print(f"index expressions under tinygrad's symbolic, reduced, {INDEX_STATES:,} states / {INDEX_SECONDS:g} s (target: "
        f"complete in under 1 s of search); {INDEX_ROUNDS} interleaved rounds, CPU s of each")
  print(f"{'program':34s} {'tree':9s} {'states':>7s} {'stuck':>6s} {'nfs':>4s} {'status':>10s} {'CPU s, each round':>20s} "
        f"{'in rules':>8s} {'nodes':>7s} {'lower bound':>11s} {'root rules':>10s}")
  for name, _, _ in index_programs():
    runs: dict[str, list[dict[str, Any]]] = {label: [] for label, _ in compared}
    for _ in range(INDEX_ROUNDS if name != "examples/conv2d_valid_index.jsonl" else 1):   # (20 s a run: one round)
      for label, tree in compared: runs[label].append(child(tree, "index", name))
    for label, rs in runs.items():
      r, cpus = rs[0], " ".join(f"{x['cpu']:.2f}" for x in rs)
      print(f"{name:34s} {label:9s} {r['states']:7,d} {r['stuck']:6,d} {r['nfs']:4d} {r['status']:>10s} {cpus:>20s} "
            f"{min(x['rules'] for x in rs):8.2f} {r['nodes']:7,d} {r['matched']:11,d} {min(x['floor'] for x in rs):10.2f}")
  print("in rules: the least round's CPU s in matching and tinygrad's rule functions, once per distinct node (nodes); lower "
        "bound: the graphs reached whose root some rule's pattern matches (not stuck steps): any exploration that keeps every "
        "normal form, the rules' functions black boxes, visits each, and calls the rules on each node of each "
        "(docs/reduction.md, \"A lower bound\"); root rules: the CPU s of those graphs' root rules alone, called again warm")
  path = os.environ.get("TINYGRAD_TEST_UOP_SYMBOLIC")
  if not path:
    print("tinygrad's test_uop_symbolic.py: set TINYGRAD_TEST_UOP_SYMBOLIC to its path (tinygrad's repository, test/null/)")
    return
  print(f"tinygrad's test_uop_symbolic.py under sym+pm_cast_weak, reduced, {TEST_STATES:,} states / {TEST_SECONDS:g} s each "
        "(target: at least 360 complete with their normal forms)")
  print(f"{'tree':9s} {'expressions':>11s} {'complete':>8s} {'with a nf':>9s} {'canonical among nfs':>19s} {'CPU s':>7s} | "
        f"{'complete untimed':>16s} {'past the bound':>14s} {'CPU s':>7s}")
  for label, tree in compared:
    r = child(tree, "tests", path)
    print(f"{label:9s} {r['n']:11d} {r['complete']:8d} {r['with_nf']:9d} {r['canonical']:19d} {r['cpu']:7.1f} | "
          f"{r['untimed']:16d} {r['beyond']:14d} {r['cpu2']:7.1f}")
  print("complete untimed: complete at 3,000 states with no time bound (those a 2 s timeout stopped, run again); past the "
        "bound: not complete, and explored to 6,000 states, more than 3,000 graphs whose root a pattern matches (the "
        "black-box lower bound): no sound exploration completes it within 3,000 states; CPU s: of these runs again")


def graph_rewrite_of(prog: Any, pm: Any) -> Any:
  from tinygrad.uop.ops import graph_rewrite
  return graph_rewrite(prog, pm)


def split(make: Callable[[], tuple[Any, Any]]) -> tuple[float, dict[str, float], int, int]:
  """(total, {part: seconds}, nodes shown to the rules, nodes with a step map) of one exploration in the Python core, CPU
  time: the rule functions and the matchers (every candidate's, as the stepper gets them), and for tinygrad making the nodes."""
  from uopc.relational.ir import rules_for
  from uopc.relational.adapters.tinygrad.ir import _Made
  prog, pm = make()
  rules, spent, shown = rules_for(prog, pm), {"rules": 0.0, "match": 0.0, "make": 0.0}, [0]
  clock = time.process_time

  def timed(f: Callable, part: str) -> Callable:
    def run(*a: Any, **kw: Any) -> Any:
      t0 = clock()
      try: return f(*a, **kw)
      finally: spent[part] += clock() - t0
    return run
  every, wrapped = rules.every_candidate, {}

  def candidates(u: Any) -> Any:
    shown[0] += 1
    if (w := wrapped.get(c := every(u))) is None: w = wrapped[c] = tuple((i, timed(m, "match"), timed(f, "rules")) for i, m, f in c)
    return w
  rules.every_candidate = candidates
  # tinygrad's: its IR's node making is timed too, where it makes a node (_Made.__missing__: the stepper's lookup of one not
  # made yet, and make's); uopc's make is the stepper's own, in the explorer's part
  own, missing = pm is not rules, _Made.__missing__
  if own: _Made.__missing__ = timed(missing, "make")   # type: ignore[method-assign]  # one run, undone below
  try:
    gc.collect()
    t0 = clock()
    ex = explore(prog, rules, max_states=STATES, native=False).run()
    total = clock() - t0
  finally:
    if own: _Made.__missing__ = missing   # type: ignore[method-assign]
    del rules.every_candidate   # (uopc's matcher is its own rule protocol: it gets its method back)
  return total, spent, shown[0], len(ex.stepper._maps)


def split_main() -> None:
  """Where one exploration's CPU time goes, uopc's and tinygrad's: what only Python can do for tinygrad (its own rule
  functions, called on tinygrad nodes, and making its nodes: its dtype rules and constructor, for each rebuilt node the
  stepper's lookup did not find), the matchers, and the rest, the explorer's, which a native core could take."""
  print(f"where one exploration's CPU time goes (the Python core, {STATES:,} states; timers included, so every part is "
        "larger than above; uopc's node making is in the explorer's part)")
  print(f"{'program':9s} {'total':>6s} {'rule functions':>15s} {'matching':>13s} {'making nodes':>13s} {'the explorer':>13s}")
  for name, make in (("uopc", uopc_program), ("tinygrad", tinygrad_program)):
    total, spent, shown, nodes = split(make)
    rest = total - sum(spent.values())
    cells = [f"{t:6.2f} {t / total:5.0%}" for t in (spent["rules"], spent["match"])]
    cells.append(f"{spent['make']:6.2f} {spent['make'] / total:5.0%}" if spent["make"] else "-")
    print(f"{name:9s} {total:6.2f} {cells[0]:>15s} {cells[1]:>13s} {cells[2]:>13s} {f'{rest:6.2f} {rest / total:5.0%}':>13s}")
  python = spent["rules"] + spent["make"]
  print(f"tinygrad: {shown:,} of the {nodes:,} nodes with a step map shown to the rules; a native core that did the rest "
        f"(matching too) in no time: at most {total / python:.1f}x")


def explore_main() -> None:
  print(f"tinygrad's symbolic vs uopc's symbolic: sum of {TERMS} (v + 0) * 1, first {STATES:,} states, best of {ROUNDS} "
        "interleaved rounds, states per CPU second")
  print(f"{'program':34s} {'nodes':>5s} {'states':>7s} {'states/s':>9s}")
  rows: dict[str, Callable[[], tuple[int, int, float, bool]]] = {
    "uopc UOp, uopc symbolic, native": lambda: rate(uopc_program),
    "uopc UOp, uopc symbolic, Python": lambda: rate(uopc_program, native=False),
    "tinygrad UOp, tinygrad symbolic": lambda: rate(tinygrad_program)}
  best: dict[str, tuple[int, int, float, bool]] = {}
  ratios = []   # each round's tinygrad / uopc (Python core): the two runs next to each other, so load on the machine cancels
  for _ in range(ROUNDS):   # interleaved, so a burst of load on the shared machine falls on every row alike
    now = {}
    for name, run in rows.items():
      r = now[name] = run()
      if name not in best or r[2] > best[name][2]: best[name] = r
    ratios.append(now["tinygrad UOp, tinygrad symbolic"][2] / now["uopc UOp, uopc symbolic, Python"][2])
  for name, (nodes, n, r, native) in best.items():
    print(f"{name:34s} {nodes:5d} {n:7,d} {r:9,.0f}" + ("" if native or "native" not in name else "  (native core not used)"))
  ratio = best["tinygrad UOp, tinygrad symbolic"][2] / best["uopc UOp, uopc symbolic, Python"][2]
  print(f"tinygrad / uopc (Python core): {ratio:.2f}; each round's: median {statistics.median(ratios):.2f}, "
        f"{min(ratios):.2f} to {max(ratios):.2f}")


if __name__ == "__main__":
  main()
