"""``bench/saturate.py``'s rule sets in egglog: run by a Python that has ``egglog`` (3.12+).

Reads ``{"rules": RULES, "programs": [...]}`` on stdin: RULES is ``ex9`` (exercise 9's rule set) or ``distributivity``
(associativity and commutativity of ``+`` and ``*``, distributivity both ways), a program is ``["add", a, b]``,
``["mul", a, b]``, ``["var", "p0"]`` or ``["num", 2]``; saturates each (up to 30 iterations), and prints a JSON list
of ``{"cost": egglog's extracted cost, "seconds": CPU time of run + extract, "iterations", "enodes", "eclasses",
"stop"}`` (e-nodes and e-classes of the ``Math`` sort, counted outside the timing); with an argument N, the fastest
of N runs of each.
egglog's default cost is a tree cost: 1 per constructor, 1 per literal.
"""
from __future__ import annotations

import json
import sys
import time

from egglog import EGraph, Expr, StringLike, i64Like, rewrite, vars_


class Math(Expr):
  def __init__(self, value: i64Like) -> None: ...
  @classmethod
  def var(cls, name: StringLike) -> Math: ...
  def __add__(self, other: Math) -> Math: ...
  def __mul__(self, other: Math) -> Math: ...


def build(t: list) -> Math:
  out: dict[int, Math] = {}
  stack = [(t, False)]
  while stack:   # iterative: deep programs are fine
    node, ready = stack.pop()
    if node[0] == "num": out[id(node)] = Math(node[1]); continue
    if node[0] == "var": out[id(node)] = Math.var(node[1]); continue
    if not ready:
      stack.append((node, True))
      stack.extend((k, False) for k in node[1:])
      continue
    a, b = out[id(node[1])], out[id(node[2])]
    out[id(node)] = a + b if node[0] == "add" else a * b
  return out[id(t)]


def saturate(t: list, rules: str) -> dict:
  egraph = EGraph()
  a, b, c, x = vars_("a b c x", Math)
  if rules == "ex9":
    egraph.register(rewrite(x + Math(0)).to(x), rewrite(x * Math(1)).to(x), rewrite(x * Math(2)).to(x + x),
                    rewrite((a + b) + c).to(a + (b + c)), rewrite(a + b).to(b + a), rewrite(a * b).to(b * a))
  else:   # bench/saturate.py's DISTRIBUTIVITY, in its order
    egraph.register(rewrite((a + b) + c).to(a + (b + c)), rewrite((a * b) * c).to(a * (b * c)), rewrite(a + b).to(b + a),
                    rewrite(a * b).to(b * a), rewrite(a * (b + c)).to(a * b + a * c), rewrite(a * b + a * c).to(a * (b + c)))
  e = egraph.let("e", build(t))
  t0 = time.process_time()
  report = egraph.run(30)
  _, cost = egraph.extract(e, include_cost=True)
  seconds = time.process_time() - t0
  nodes = {k: v for k, v in json.loads(egraph._serialize().to_json())["nodes"].items() if not k.startswith("primitive")}
  return {"cost": cost, "seconds": seconds, "iterations": len(report.iterations), "enodes": len(nodes),
          "eclasses": len({v["eclass"] for v in nodes.values()}),
          "stop": "saturated" if not report.iterations[-1].rule_set_report.changed else "iterations"}


if __name__ == "__main__":
  runs = int(sys.argv[1]) if len(sys.argv) > 1 else 1   # each program this many times, the fastest kept (as the uopc side does)
  job = json.load(sys.stdin)
  print(json.dumps([min((saturate(t, job["rules"]) for _ in range(runs)), key=lambda r: r["seconds"]) for t in job["programs"]]))
