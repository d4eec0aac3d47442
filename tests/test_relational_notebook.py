"""``uopc.relational.notebook``: what Jupyter shows for the explorer's results (``_repr_html_``)."""
from pathlib import Path

from uopc import UOp, symbolic
from uopc.relational import critical_pairs, diagnose_order, explore, normal_forms, search
from uopc.rulesets import resolve_rules
from uopc.term import show

EX = Path(__file__).resolve().parent.parent / "examples"


def test_an_exploration_shows_its_program_and_every_normal_form():
  p0, p1 = UOp.param(0), UOp.param(1)
  ex = explore((p0 + 0) * 1 + (p1 * 1 + 0), symbolic).run()
  page = ex._repr_html_()
  assert f"<code>{show(ex.root)}</code>" in page and len(ex.normal_forms) == 2
  assert all(f"#{s.id} <code>{show(s.graph)}</code>" in page for s in ex.normal_forms)
  assert f"{len(ex.states)} states" in page and page.count("<svg") == 1


def test_normal_forms_mark_the_canonical_one_with_its_path():
  nf = normal_forms(UOp.const(-0.0) + UOp.const(0.0), symbolic)
  page = nf._repr_html_()
  canon = nf.canonical_state
  assert f"<code>{show(canon.graph)}</code> ← canonical" in page and page.count("← canonical") == 1
  assert all(e.rule in page for e in nf.path(canon))


def test_order_shows_both_rules_at_the_fork():
  pm = resolve_rules(f"{EX / 'my_rules.py'}:rules")
  prog = (UOp.param(0) + UOp.param(1)) * 2
  r = diagnose_order(prog, pm)
  page = r._repr_html_()
  assert len(r.forks) == 1 and "depends on rule order" in page
  f = r.forks[0]
  assert f.canonical_step.rule in page and f.competing_step.rule in page and 'fill="#ffd8b5"' in page
  # the fork's values in words, and the forks counted by kind: (p0 + p1) * 2 distributed or doubled, proved equal
  assert "(1 syntactic (proved))" in page and "syntactic: equal for all inputs (proved by z3)" in page


def test_search_shows_the_path_and_bindings():
  p0 = UOp.param(0)
  r = search((p0 + 2) * 3, "add(mul(p0, 3), ?c)", symbolic)
  page = r._repr_html_()
  assert r.found and "?c = <code>6</code>" in page and all(e.rule in page for e in r.path)
  assert "not found" in search(p0, "mul(?x, 7)", symbolic)._repr_html_()


def test_pairs_list_the_pairs_that_do_not_join():
  r = critical_pairs(symbolic, max_instances=4)
  page = r._repr_html_()
  bad = [p for p in r.pairs if p.status != "joinable"]
  assert r.summary() in page and page.count("<tr>") == 1 + min(len(bad), 20)
  assert r.verdicts_line() in page and "syntactic: equal for all inputs (proved by z3)" in page and "semantic: different values at p0=0" in page


def test_displaying_an_exploration_never_runs_it_and_both_reprs_say_the_same():
  """Both reprs of an unstarted exploration explored it (the HTML) or disagreed ("0 states, running"): now neither explores."""
  from uopc.relational.notebook import exploration_summary
  ex = explore((UOp.param(0) + 0) * 1, symbolic)
  text, page = repr(ex), ex._repr_html_()
  assert ex.running and ex.found == []   # nothing was explored to display it
  assert "not started: call .run() or iterate" in text and "not started: call .run() or iterate" in page
  it = iter(ex)
  next(it), next(it)   # a consumer read two states: paused, the two reprs still agree and explore nothing more
  paused = exploration_summary(ex)
  assert paused.startswith("2 states and 0 normal forms so far; paused") and paused in repr(ex) and paused in ex._repr_html_()
  assert len(ex.found) == 2 and ex.running
  ex.run()
  done = exploration_summary(ex)
  assert done.endswith("; complete") and f"{len(ex.states)} states" in done and done in repr(ex) and done in ex._repr_html_()


def test_a_state_draws_its_graph():
  ex = explore((UOp.param(0) + 0) * 1, symbolic).run()
  s = ex.normal_forms[0]
  page = s._repr_html_()
  assert page.count("<svg") == 1 and f"state #{s.id}, depth {s.depth}, normal form" in page and f"<code>{show(s.graph)}</code>" in page
  assert f"reached from #{s.parent.id} by {s.rule} @ <code>{show(s.node)}</code>" in page
  assert "the program" in ex.states[0]._repr_html_()
