"""``uopc.cli.reports.exploration``: what the explore commands print, from one exploration."""
import json

from uopc import Ops, PatternMatcher, UPat
from uopc.cli.reports import exploration as report
from uopc.cli.explore_support import term_text
from uopc.relational import canonical, explore
from uopc.relational.space.saved import NodeTexts, step_texts
from uopc.symbolic import symbolic
from uopc.term import show
from uopc.uop import UOp

# x + 0 -> x * 1 + 0: one step a state, each graph one node bigger than the last (an exploration that never ends)
LONGER = PatternMatcher([(UPat(Ops.ADD, src=(UPat.var("x"), UPat.cvar("c"))), lambda x, c: x * 1 + c if c.arg == 0 else None)])
# x + 0 -> (x + 0) + 0 (the chain): state k has k redexes, each step to the same next state
WIDER = PatternMatcher([(UPat(Ops.ADD, src=(UPat.var("x"), UPat.cvar("c"))), lambda x, c: (x + c) + c if c.arg == 0 else None)])


def chain_json(pm: PatternMatcher, n: int) -> tuple[int, str]:
  prog = UOp.param(0) + 0
  ex = explore(prog, pm, max_states=n).run()
  assert len(ex.states) == n
  return len(ex.edges), report.json_text(report.to_json(ex, prog, "chain", None, "none", paths=True))


def test_a_growing_chain_s_report_is_linear_in_its_states_and_steps():
  (e1, small), (e2, big) = chain_json(LONGER, 300), chain_json(LONGER, 600)
  assert (e1, e2) == (299, 599)
  assert len(big) / len(small) < 2.1   # a term per state or per step: 4x (the graphs grow with the chain)
  (e1, small), (e2, big) = chain_json(WIDER, 60), chain_json(WIDER, 120)
  assert e2 / e1 > 3.9   # the steps grow as the square of the states here
  assert len(big) / len(small) < 1.1 * e2 / e1   # as the steps do: a term per step would be 8x


def test_to_json_names_each_node_once_and_the_rows_read_back_as_the_terms():
  p0 = UOp.param(0)
  prog = p0
  for k in range(4): prog = (prog + 0) * 1 if k % 2 else prog + 0   # many redexes, each shared by many edges
  ex = explore(prog, symbolic).run()
  canon, err = canonical(prog, symbolic)
  data = report.to_json(ex, prog, "symbolic", canon, err, paths=True)
  assert data["format"] == 2
  rows = data["nodes"]
  assert len(rows) == len({id(u) for s in ex.states for u in s.graph.toposort()})   # each distinct node of every graph once
  text = NodeTexts(rows)
  assert [text(s["graph"]) for s in data["states"]] == [show(s.graph) for s in ex.states]
  assert [(text(e["node"]), text(e["result"])) for e in data["edges"]] == [(show(e.node), show(e.result)) for e in ex.edges]
  assert [(text(s["node"]), text(s["result"])) for s in data["states"]] == \
         [(None, None) if s.redex is None else (show(s.node), show(s.redex.result)) for s in ex.states]
  assert data["program"] == term_text(prog) and data["canonical"] == term_text(canon)
  assert data["normal_forms"] == [s.term(report.TERM_LIMIT) for s in ex.normal_forms]
  nf = ex.normal_forms[0]
  assert [(e["from"], e["to"], e["rule"]) for e in data["paths"][str(nf.id)]] == [(e.source.id, e.target.id, e.rule) for e in nf.path()]


def test_a_path_s_steps_name_rows_so_a_long_path_is_linear():
  def path_json(n: int, table: bool) -> tuple[str, list]:
    prog = UOp.param(0) + 0
    ex = explore(prog, LONGER, max_states=n).run()
    path = ex.states[-1].path()
    t = report.NodeTable() if table else None
    data = report.with_nodes({"path": report.steps_json(path, t)}, t) if t is not None else {"path": report.steps_json(path)}
    return report.json_text(data), path
  (small, _), (big, path) = path_json(300, True), path_json(600, True)
  assert len(path) == 599 and len(big) / len(small) < 2.1
  (old_small, _), (old_big, _) = path_json(300, False), path_json(600, False)
  assert len(old_big) / len(old_small) > 3.5   # each step's graphs as text: the square of the path's length
  data = json.loads(big)
  steps = step_texts(data, data["path"])
  assert [(s["node"], s["result"], s["before"], s["after"]) for s in steps] == \
         [(show(e.node), show(e.result), show(e.source.graph), show(e.target.graph)) for e in path]


def test_a_report_stops_adding_states_a_second_after_its_bound_and_says_how_many_it_holds():
  from uopc.cli.budget import REPORT_TIME, Budget
  from uopc.cli.reports.exploration import json_text, to_json
  g = UOp.param(0) + 0
  for k in range(1, 12): g = g + (UOp.param(k) + 0)   # 2^12 states unreduced
  zero = PatternMatcher([(UPat.var("x") + 0, lambda x: x)])
  ex = explore(g, zero, max_states=5000, reduce=False)
  ex.run()
  full = to_json(ex, g, "zero", None, None)
  assert "report" not in full and len(full["states"]) == len(ex.states) == 4096
  with Budget(timeout=None, max_memory=None) as b:
    b.hit("interrupted")
    b.hit_at -= REPORT_TIME + 0.1   # the bound is older than the report's second
    cut = to_json(ex, g, "zero", None, None)
  assert cut["report"] == {"complete": False, "states": 0, "edges": 0, "stopped_by": "an interrupt (SIGINT)"}
  assert cut["normal_forms"] == full["normal_forms"]   # what the search established is still said
  assert json.loads(json_text(cut))["report"]["complete"] is False


def test_the_canonical_is_named_after_its_own_ir_s_engine():
  import pytensor.tensor as pt
  from tinygrad import UOp as TinygradUOp
  from uopc.cli.reports.exploration import canonical_line, engine_of
  from uopc.relational.adapters.pytensor.ir import from_pytensor
  assert engine_of(TinygradUOp.variable("a", 0, 10)) == "tinygrad's graph_rewrite"
  assert engine_of(from_pytensor(pt.scalar("x") + 1)) == "PyTensor's EquilibriumGraphRewriter"
  assert canonical_line(UOp.param(0), None, None) == "canonical (graph_rewrite): p0 (not reached within the bounds)"
