"""Two uopc trees against egglog on ``bench/saturate.py``'s egglog programs, in one run: ``python -m bench.saturate_ab OLD NEW``.

A change to the C core is judged by its CPU time next to the tree it changes, with egglog as the yardstick: each round
runs egglog's side, then each tree's (a process per tree, ``PYTHONPATH`` its root, so each imports its own build; every
program once untimed, then each after a garbage collection), the trees' order alternating; the fastest of ``--rounds``
kept per side, and the load average printed per round. Both trees must make the same e-graph and cost as egglog
(checked). Each tree needs its extensions built in place (``setup.py build_ext --inplace``).
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

from bench.saturate import peer_round, rule_sets

WORKER = """
import gc, json
from bench.saturate import rule_sets, uopc_run
def timed(p, pm):   # a collection of the process's objects (5 ms) lands on whichever run reaches the threshold: not in a timing
  gc.collect()
  return uopc_run(p, pm)
sets = rule_sets()   # one rule set object each, as in bench/saturate.py: a new one compiles its patterns again
for _, pm, progs in sets:   # once untimed, as the rounds of bench/saturate.py's one process run warm
  for _, p in progs: uopc_run(p, pm)
print(json.dumps([[(t, r.enodes, r.eclasses, r.cost, r.native) for t, r in (timed(p, pm) for _, p in progs)]
                  for _, pm, progs in sets]))
"""


def tree_round(root: str) -> list[list[tuple]]:
  """Each program's (CPU seconds, e-nodes, e-classes, cost, C core ran) under the tree at ``root``, per rule set."""
  env = {**os.environ, "PYTHONPATH": root}
  done = subprocess.run([sys.executable, "-c", WORKER], cwd=root, env=env, capture_output=True, text=True, timeout=900, check=True)
  return json.loads(done.stdout)


def run() -> None:
  ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  ap.add_argument("old"); ap.add_argument("new")
  ap.add_argument("--rounds", type=int, default=7)
  args = ap.parse_args()
  sets = rule_sets()
  trees = [os.path.abspath(args.old), os.path.abspath(args.new)]
  best: dict[str, list[list[float]]] = {t: [[float("inf")] * len(p) for _, _, p in sets] for t in trees + ["egglog"]}
  seen: dict[str, list[list[tuple]]] = {}
  for rnd in range(args.rounds):
    print(f"round {rnd + 1}: load average {os.getloadavg()[0]:.2f}", flush=True)
    for si, (rules, _, progs) in enumerate(sets):
      peer = peer_round(rules, [p for _, p in progs])
      if isinstance(peer, str): sys.exit(peer)
      for pi, d in enumerate(peer):
        best["egglog"][si][pi] = min(best["egglog"][si][pi], d["seconds"])
        seen.setdefault("egglog", [[] for _ in sets])[si][pi:pi + 1] = [(d["enodes"], d["eclasses"], d["cost"])]
    for tree in trees if rnd % 2 == 0 else trees[::-1]:
      for si, rows in enumerate(tree_round(tree)):
        for pi, (t, *shape) in enumerate(rows):
          best[tree][si][pi] = min(best[tree][si][pi], t)
          seen.setdefault(tree, [[] for _ in sets])[si][pi:pi + 1] = [tuple(shape)]
  print(f"{'rules':14s} {'program':27s} {'e-nodes':>7s} {'classes':>7s} {'cost':>4s} {'egglog s':>8s} {'old s':>7s} {'new s':>7s}"
        f" {'old/egglog':>10s} {'new/egglog':>10s} {'new/old':>7s}")
  for si, (rules, _, progs) in enumerate(sets):
    for pi, (name, _) in enumerate(progs):
      en, ec, cost = seen["egglog"][si][pi]
      for tree in trees:
        assert tuple(seen[tree][si][pi][:3]) == (en, ec, cost) and seen[tree][si][pi][3], (tree, name, seen[tree][si][pi])
      e, o, n = best["egglog"][si][pi], best[trees[0]][si][pi], best[trees[1]][si][pi]
      print(f"{rules:14s} {name:27s} {en:7d} {ec:7d} {cost:4g} {e:8.4f} {o:7.4f} {n:7.4f} {o / e:9.2f}x {n / e:9.2f}x {n / o:6.2f}x")


if __name__ == "__main__":
  run()
