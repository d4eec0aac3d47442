"""``uopc.explore.report``: what the explore commands print, from one exploration."""
from uopc.explore import report
from uopc.explore.options import term_text
from uopc.relational import canonical, explore
from uopc.symbolic import symbolic
from uopc.uop import UOp


def test_to_json_texts_each_node_once_and_says_what_term_text_says(monkeypatch):
  p0 = UOp.param(0)
  prog = p0
  for k in range(4): prog = (prog + 0) * 1 if k % 2 else prog + 0   # many redexes, each shared by many edges
  ex = explore(prog, symbolic).run()
  canon, err = canonical(prog, symbolic)
  calls: list[object] = []
  def counted(u):
    calls.append(u)
    return term_text(u)
  monkeypatch.setattr(report, "term_text", counted)
  data = report.to_json(ex, prog, "symbolic", canon, err)
  nodes = [s.node for s in ex.states] + [s.redex.result for s in ex.states if s.redex is not None]
  nodes += [e.node for e in ex.edges] + [e.result for e in ex.edges]
  distinct = {id(u) for u in [*nodes, prog, canon, *(s.node for s in ex.stuck)] if u is not None}
  assert len(ex.edges) > 2 * len(distinct)   # the memo matters here
  assert sorted(id(u) for u in calls if u is not None) == sorted(distinct)
  assert [(e["node"], e["result"]) for e in data["edges"]] == [(term_text(e.node), term_text(e.result)) for e in ex.edges]
  assert [(s["node"], s["result"]) for s in data["states"]] == \
         [(term_text(s.node), None if s.redex is None else term_text(s.redex.result)) for s in ex.states]
