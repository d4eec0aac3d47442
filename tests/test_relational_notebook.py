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
