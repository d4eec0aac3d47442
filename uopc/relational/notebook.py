"""Notebook display of the explorer's results: the ``_repr_html_`` of ``Exploration``,
``NormalForms``, ``OrderReport``, ``SearchResult``, ``PairsReport`` and ``State``.

Static HTML (no script: notebooks may not run one): a summary line, graphs as SVG
(``uopc.draw``: each shared node once, the rewritten node highlighted) and terms as
text. The interactive page is ``--format html`` on the command line.

>>> from uopc import UOp, symbolic
>>> from uopc.relational import normal_forms
>>> nf = normal_forms(UOp.const(-0.0) + UOp.const(0.0), symbolic)
>>> page = nf._repr_html_()
>>> page.count("<svg"), "<code>0.0</code>" in page, "canonical" in page
(2, True, True)

Displaying an exploration never explores: one not started says so, in its text and its HTML alike.

>>> from uopc.relational import explore
>>> ex = explore(UOp.param(0) + 0, symbolic)
>>> ex, "not started: call .run() or iterate" in ex._repr_html_(), ex.found
(Exploration(add(p0, 0): not started: call .run() or iterate), True, [])
>>> ex.run()
Exploration(add(p0, 0): 2 states, 2 edges, 1 normal form; complete)
"""
from __future__ import annotations

from html import escape
from typing import Any

from uopc.draw import dag_svg
from uopc.term import show
from uopc.uop import UOp

LIMIT = 400     # characters of a term
SHOWN = 20      # normal forms, forks or pairs listed before "and N more"


def code(u: Any) -> str:
  return f"<code>{escape(u if isinstance(u, str) else show(u, LIMIT))}</code>"


def _more(n: int) -> str: return f"<li>… and {n - SHOWN} more</li>" if n > SHOWN else ""


def _steps(edges: list[Any]) -> str:
  return "<ol>" + "".join(f"<li>{escape(e.rule)} @ {code(e.node)}</li>" for e in edges) + "</ol>"


def _n(n: int, word: str) -> str: return f"{n} {word}" + ("" if n == 1 else "s")


def exploration_summary(ex: Any) -> str:
  """Where ``ex`` is, in words, without exploring it: what both its text and its HTML repr say."""
  if ex.running:
    if not ex.found: return "not started: call .run() or iterate"
    normal = sum(s.normal is True for s in ex.found)
    return f"{_n(len(ex.found), 'state')} and {_n(normal, 'normal form')} so far; paused: call .run() to finish, or iterate on"
  done = "complete" if ex.bound is None else f"stopped by {ex.bound}"
  found = "" if ex.bound is None else " found so far"
  return f"{_n(ex.state_count, 'state')}, {_n(ex.edge_count, 'edge')}, {_n(len(ex.normal_forms), 'normal form')}{found}; {done}"


def _box(title: str, *parts: str) -> str:
  return f'<div class="uopc"><b>{escape(title)}</b>{"".join(parts)}</div>'


def exploration_html(ex: Any) -> str:
  """An ``Exploration``: its program and the normal forms found, never exploring further (``exploration_summary``)."""
  forms = [s for s in ex.found if s.normal is True] if ex.running else ex.normal_forms
  items = "".join(f"<li>#{s.id} {code(s.graph)}</li>" for s in forms[:SHOWN]) + _more(len(forms))
  return _box(f"exploration: {exploration_summary(ex)}", f"<p>program {code(ex.root)}</p>", dag_svg(ex.root),
              f"<p>normal forms{' so far' if ex.running else ''}:</p><ul>{items}</ul>" if forms else "")


def state_html(s: Any) -> str:
  """A ``State``: what its text repr says (id, depth, normal or stuck, term), the step that reached it, and its graph drawn,
  the step's result highlighted."""
  tag = f", stuck: {s.error}" if s.error else ", normal form" if s.normal else ""
  step = "<p>the program</p>" if s.parent is None else \
    f"<p>reached from #{s.parent.id} by {escape(s.rule or '')} @ {code(s.text_of(s.node, LIMIT))}</p>"
  result = None if s.redex is None or s.error else s.redex.result
  return _box(f"state #{s.id}, depth {s.depth}{tag}", f"<p>{code(s.term(LIMIT))}</p>", step,
              dag_svg(s.graph, result if isinstance(result, UOp) else None))


def normal_forms_html(nf: Any) -> str:
  items = []
  for s in nf.forms[:SHOWN]:
    mark = " ← canonical" if s is nf.canonical_state else ""
    items.append(f"<li>{code(s.graph)}{mark}{dag_svg(s.graph)}{_steps(nf.path(s))}</li>")
  found = "" if nf.complete else " found so far"
  summary = exploration_summary(nf.exploration)
  return _box(f"{len(nf.forms)} normal forms{found} ({summary})", "<ol>" + "".join(items) + _more(len(nf.forms)) + "</ol>")


def order_html(r: Any, verdict: str) -> str:
  """An ``OrderReport`` (``diagnose_order``) with its ``verdict`` in words, as HTML."""
  from uopc.smt.classify import kinds_text, verdict_words
  forks = "".join(f"<li>to {code(f.normal_form.graph)}: {escape(verdict_words(f.kind, f.detail))}<br>at {code(f.fork.graph)}"
                  f"{dag_svg(f.fork.graph, f.node)}canonical {escape(f.canonical_step.rule if f.canonical_step else '(cut short)')}"
                  f"{_steps(f.canonical_path)}competing {escape(f.competing_step.rule)}{_steps(f.competing_path)}</li>"
                  for f in r.forks[:SHOWN])
  canon = code(r.canonical) if r.canonical is not None else escape(f"none ({r.canonical_error})")
  counts = f" ({kinds_text([f.kind for f in r.forks])})" if r.forks else ""   # _box escapes its title
  return _box(verdict + counts, f"<p>program {code(r.program)}; canonical {canon}</p><p>values: {escape(r.basis)}</p>",
              f"<ol>{forks}{_more(len(r.forks))}</ol>")


def search_html(r: Any) -> str:
  if not r.found: return _box(f"{escape(r.target.text)}: not found" + (f" (stopped by {r.bound})" if r.bound else ""),
                              f"<p>searched {r.searched} graphs</p>")
  binds = ", ".join(f"?{escape(k)} = {code(v)}" for k, v in r.bindings.items())
  return _box(f"found {r.target.text} in {r.length} steps", f"<p>{code(r.graph)} {binds}</p>", dag_svg(r.graph), _steps(r.path))


def pairs_html(r: Any) -> str:
  from uopc.smt.classify import verdict_words
  rows = "".join(f"<tr><td>{escape(p.status)}</td><td>{escape(' × '.join(p.short_rules))}</td><td>{code(p.overlap)}</td>"
                 f"<td>{code(p.witness) if p.witness is not None else ''}</td>"
                 f"<td>{'<br>'.join(code(x) for x in p.results if x is not None)}</td>"
                 f"<td>{escape(verdict_words(p.verdict, p.verdict_detail)) if p.verdict is not None else ''}</td></tr>"
                 for p in [p for p in r.pairs if p.status != "joinable"][:SHOWN])
  line = r.verdicts_line()
  return _box(r.summary(), f"<p>{escape(line)}</p>" if line else "",
              "<table><tr><th>status</th><th>rules</th><th>overlap</th><th>witness</th><th>results</th><th>values</th></tr>"
              f"{rows}</table>")
