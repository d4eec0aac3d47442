"""Reports of an exploration: plain text, JSON and Graphviz DOT.

Each function takes what ``uopc.relational`` computed and returns (or writes) text;
none explores by itself. Terms are the one-line form: ``show`` names each shared subterm
once, so a term is as long as its DAG (whole up to ``TERM_LIMIT`` characters, then a label),
and a step is its rule, the node it rewrote and its replacement (``step_text``), never
the whole graph twice.
"""
from __future__ import annotations

import json
from typing import Any, Iterator, TextIO, cast

from uopc.matcher import short_name
from uopc.bounded import StopReason
from uopc.cli.budget import stopped_text
from uopc.cli.reports.cut import CutShort, ItemCut, ListSize, cut_text, until_cut
from uopc.cli.explore_support import TERM_LIMIT, term_text
from uopc.relational import Edge, Exploration, State
from uopc.relational.ir import ir_of
from uopc.relational.space.states import step_text
from uopc.relational.space.cycles import terminal_cycles
from uopc.relational.space.stuck import StuckGroup, group_stuck
from uopc.term import parts_for, show
from uopc.lengths import LENGTHS

DOT_TERM_LIMIT = LENGTHS.label   # a box in a drawing (uopc.lengths)
CUT_NODES = 4096   # nodes a report's node table adds between two questions to its cut (a clock read each)


def short_rule(rule: str | None) -> str:
  """A rule name without its rule set and index (``short_name``); nothing for no rule."""
  return "" if rule is None else short_name(rule)


def step_line(e: Edge) -> str:
  """``rule: node -> result``: the rule, the node it rewrote and its replacement."""
  return e.describe(TERM_LIMIT)


def bound_text(ex: Exploration) -> str:
  """Why the exploration stopped, in words."""
  if ex.bound is None: return "complete"
  return f"incomplete: stopped by {bound_flag(ex.bound, ex.max_states, ex.max_depth, ex.timeout)}"


def bound_flag(bound: str, max_states: int | None, max_depth: int | None, timeout: float | None) -> str:
  """The flag behind a bound: ``--max-states 100``, ``--timeout 5 s``, ``an interrupt (SIGINT)``."""
  if bound == "max_states": return f"--max-states {max_states}"
  if bound == "max_depth": return f"--max-depth {max_depth}"
  if bound == "workers_lost": return "lost workers (--cluster: a worker died and could not be replaced)"
  if bound == "timeout" and timeout is not None: return f"--timeout {timeout:g} s"
  from uopc.cli.budget import current   # the command's budget stopped it
  b = current()
  return b.flag_text(cast(StopReason, bound)) if b is not None else bound   # what is left is the budget's


def reduced_text(ex: Exploration) -> str:
  """``, reduced`` when a reduction skipped orderings (docs/reduction.md), else nothing."""
  return "; reduced (--no-reduce visits every graph)" if ex.reduced else ""


def state_line(s: State) -> str:
  """One streamed line per state: id, depth, term, and the step that first reached it (``rule: node -> result``)."""
  line = f"#{s.id:<5} d={s.depth:<3} {s.term(TERM_LIMIT)}"
  if s.parent is None or s.redex is None: return line   # the program: no step reached it
  return f"{line}   <- #{s.parent.id} by {step_text(s.rule, s.redex.node, s.redex.result, s.error, TERM_LIMIT, s.text_of)}"


def summary_lines(ex: Exploration, canonical: Any, canonical_error: str | None, rules: str) -> list[str]:
  """The closing lines of ``reachable``: counts, normal forms, the canonical result."""
  normals, stuck = ex.normal_forms, ex.stuck
  found = "" if ex.complete else " found (there may be more)"   # a count only where the search was exhaustive
  out = [f"{ex.state_count} states, {ex.edge_count} edges, {len(normals)} normal form{'s' * (len(normals) != 1)}{found}, "
         f"{len(stuck)} stuck; {bound_text(ex)} ({ex.elapsed:.2f} s, rules {rules})"]
  canon_state = None if canonical is None else ex.state_of(canonical)
  cut = ItemCut()   # a line at a time, while the report's time lasts
  if normals:
    out.append("normal forms:")
    listed = until_cut((f"  #{s.id:<5} {s.term(TERM_LIMIT)}" + ("   (canonical)" if s is canon_state else "") for s in normals), cut)
    out += listed
    if len(listed) < len(normals): out.append(f"  ({len(normals) - len(listed)} more not listed: the report was stopped by {cut_text(cut)})")
  out.extend(stuck_lines(stuck))
  out.append(canonical_line(canonical, canonical_error, canon_state))
  return out


def canonical_line(canonical: Any, canonical_error: str | None, canon_state: State | None) -> str:
  if canonical is None: return f"canonical: none ({canonical_error})"
  where = f"state #{canon_state.id}" if canon_state is not None else "not reached within the bounds"
  return f"canonical ({engine_of(canonical)}): {show(canonical, TERM_LIMIT)} ({where})"


def engine_of(canonical: Any) -> str:
  """What the reports call the rewrite engine that made ``canonical``: its IR's own (``IR.engine``).

  >>> from uopc import UOp
  >>> engine_of(UOp.param(0))
  'graph_rewrite'
  """
  return ir_of(canonical).engine


def stuck_lines(stuck: list[Any]) -> list[str]:
  """The stuck steps of an exploration grouped (``group_stuck``): one line per rule and exception type, with the count
  and the first step as the example; no lines without stuck steps. A rule that raises on a node raises in every state
  holding it, so one line per step would repeat one finding thousands of times."""
  if not stuck: return []
  groups = group_stuck(stuck)
  kinds = "1 rule and exception" if len(groups) == 1 else f"{len(groups)} rules and exceptions"
  n = sum(g.steps for g in groups)   # a stuck state may stand for several steps (another IR's: one per rule and exception)
  head = f"{n:,} stuck step{'s' * (n != 1)} (a rule raised), {kinds}:"
  return [head, *(f"  {stuck_group_text(g)}" for g in groups)]


def stuck_group_text(g: StuckGroup) -> str:
  """``3x rule (file:line) raised ZeroDivisionError, e.g. #7 @ node: error``: one group of stuck steps."""
  s = g.example
  where = "" if g.location is None or g.location in (g.rule or "") else f" ({g.location})"   # an unnamed rule's name holds it
  return f"{g.steps:,}x {g.rule}{where} raised {g.error_type}, e.g. #{s.id} @ {show(s.node, TERM_LIMIT)}: {s.error}"


def stuck_groups_json(stuck: list[Any], node: Any = None) -> list[dict[str, Any]]:
  """The groups of ``stuck`` as JSON: rule, location, error type, count and the example step (its state id, node, error);
  ``node``: how the example's node is written (the report's node table; its term by default)."""
  write = node or (lambda u: show(u, TERM_LIMIT))
  return [{"rule": g.rule, "location": g.location, "error_type": g.error_type, "count": g.steps,
           "example": {"id": g.example.id, "node": write(g.example.node), "error": g.example.error}} for g in group_stuck(stuck)]


def found_text(n: int, complete: bool, what: str = "normal form") -> str:
  """``3 normal forms`` when the search was exhaustive; else what it found, and that there may be more."""
  if complete: return f"{n} {what}{'s' * (n != 1)}"
  found = f"no {what} found" if n == 0 else f"{n} {what}{'s' * (n != 1)} found"
  return f"{found} by the exploration (there may be more: it stopped before exhausting the space)"


def sampled_stopped_why(s: Any) -> str:
  """Why the sampling after a bound stopped (``uopc/cli/reports/sampled.py``), in words."""
  if s.bound is not None: return stopped_text() or s.bound
  if s.max_graphs is not None and s.graphs >= s.max_graphs: return f"the runs made {s.max_graphs:,} graphs (the default)"
  return "--samples runs done" if s.runs == s.max_runs else "the runs stopped finding new normal forms"


def sampled_summary(s: Any, new: int) -> str:
  """``sampled 1,893 random runs (seed 0, 0.41 s, ...): 16 normal forms, 14 not found by the exploration``."""
  ends = "".join(f", {n:,} {what}" for n, what in ((s.stuck, "ended in a failing step"), (s.cut, f"gave up after {s.max_steps:,} steps")) if n)
  return (f"sampled {s.runs:,} random run{'s' * (s.runs != 1)} to a normal form (seed {s.seed}, {s.elapsed:.2f} s{ends}; "
          f"stopped: {sampled_stopped_why(s)}): {len(s.forms)} normal form{'s' * (len(s.forms) != 1)}, {new} not found by the exploration")


def sampled_extra_forms(s: Any, explored: list[Any]) -> list[Any]:
  """The sampled normal states the exploration did not reach, in the order the runs found them."""
  known = {st.graph for st in explored}
  return [f for f in s.forms if f.graph not in known]


def sampled_at_least_line(total: int) -> str:
  return f"at least {total} normal form{'s' * (total != 1)} (sampled: the space was not exhausted)"


def sampled_forms_text(forms: list[Any], first: int, out: TextIO, canonical: Any = None, indent: str = "") -> None:
  """The sampled forms numbered from ``first``, each with its run's path."""
  for k, f in enumerate(forms, first):
    mark = f"   <- canonical ({engine_of(canonical)} gives this one)" if canonical is not None and f.graph is canonical else ""
    print(f"{indent}[{k}] {f.term(TERM_LIMIT)}   (sampled){mark}", file=out)
    path_text(f.path(), out, indent)


def path_text(path: list[Edge], out: TextIO, indent: str = "") -> None:
  """A normal form's path under its ``[k]`` line: how many steps, then each step."""
  print(f"{indent}    {len(path)} step{'s' * (len(path) != 1)}{':' if path else ' (the program is normal)'}", file=out)
  for j, e in enumerate(path, 1): print(f"{indent}      {j}. {step_line(e)}", file=out)


def normal_forms_text(nf: Any, program: Any, rules: str, out: TextIO, sample: Any = None) -> None:
  """The ``normal-forms`` report: each normal form with one shortest path, and the canonical choice
  (``sample``: the forms random runs found after a bound, ``uopc/cli/reports/sampled.py``)."""
  ex = nf.exploration
  print(f"program: {show(program, TERM_LIMIT)}", file=out)
  print(f"rules: {rules}", file=out)
  print(f"explored {ex.state_count} states, {ex.edge_count} edges: {bound_text(ex)} ({ex.elapsed:.2f} s){reduced_text(ex)}",
        file=out)
  n = len(nf.forms)
  print(f"{found_text(n, nf.complete)}{':' if n else ''}", file=out)
  cut = ItemCut()   # a form and its path (as long as its depth) at a time, while the report's time lasts
  for i, s in enumerate(nf.forms, 1):
    if cut():
      print(f"[{i}-{n}] not listed: the report was stopped by {cut_text(cut)}", file=out)
      break
    mark = f"   <- canonical ({engine_of(nf.canonical)} gives this one)" if s is nf.canonical_state else ""
    print(f"[{i}] {s.term(TERM_LIMIT)}{mark}", file=out)
    path_text(nf.path(s), out)
  extra = sampled_extra_forms(sample, nf.forms) if sample is not None else []
  if sample is not None:
    print(sampled_summary(sample, len(extra)) + (":" if extra else ""), file=out)
    sampled_forms_text(extra, n + 1, out, nf.canonical)
    if n + len(extra): print(sampled_at_least_line(n + len(extra)), file=out)
  cycles_text(ex, out)
  for line in stuck_lines(nf.stuck): print(line, file=out)
  canon = term_text(nf.canonical)
  in_sample = [f.graph for f in extra]
  if nf.canonical is None: print(f"canonical: none ({nf.canonical_error})", file=out)
  elif nf.canonical_state in nf.forms: print(f"canonical: {canon} = normal form [{nf.forms.index(nf.canonical_state) + 1}]", file=out)
  elif nf.canonical in in_sample: print(f"canonical: {canon} = normal form [{n + 1 + in_sample.index(nf.canonical)}] (sampled)", file=out)
  elif nf.canonical_state is not None:   # reached, but a bound stopped the search before it was expanded
    print(f"canonical: {canon} (state #{nf.canonical_state.id}, not expanded within the bounds)", file=out)
  else: print(f"canonical: {canon} (not reached within the bounds)", file=out)


def cycles_json(ex: Exploration) -> list[dict[str, Any]]:
  """The normal-form classes that are cycles: ``{"terms": [...], "rules": [...]}`` each (empty when none)."""
  from uopc.relational.space.cycles import terminal_cycles
  return [{"terms": [s.term(TERM_LIMIT) for s in c.states], "rules": c.rules} for c in terminal_cycles(ex)]


def cycles_text(ex: Exploration, out: TextIO) -> None:
  """Each cycle that the rewriting cannot leave, with the rules on its steps (nothing when none). Once a bound was hit
  they are derived work, within its grace (``bounded``): a cluster run interrupted past 500,000 states of commutativity
  and associativity took 8 s more to find them, past the supervisor's bound, and its output was lost (2026-12-03)."""
  from uopc.relational.space.cycles import terminal_cycles
  from uopc.cli.budget import bounded
  if (cycles := bounded(lambda: terminal_cycles(ex), None, grace=True)) is None:
    print(f"cycles: not looked for: the report was stopped by {cut_text()}", file=out)
    return
  if not cycles: return
  print(f"{len(cycles)} cycle{'s' * (len(cycles) != 1)} (graphs that rewrite only among themselves: normal-form classes):", file=out)
  for i, c in enumerate(cycles, 1):
    print(f"(c{i}) {len(c.states)} graphs, rules: {'; '.join(short_rule(r) for r in c.rules)}", file=out)
    for s in c.states: print(f"    #{s.id:<5} {s.term(TERM_LIMIT)}", file=out)


FORMAT = 2   # the exploration JSON's "format": 2 names each distinct node once (docs/visualize.md); 1 (no key) wrote terms


class NodeTable:
  """Each distinct node of a report once, sources first: a row is a leaf's text (``"p0"``) or the node's pieces, strings
  and its sources' row ids (``["add(", 0, ", ", 1, ")"]``, as ``uopc.term.node_parts``). Graphs and nodes are then row ids,
  and the graphs of a report share their nodes: a chain of n states costs O(n) rows, not n terms of length n.

  >>> t = NodeTable()
  >>> from uopc.uop import UOp
  >>> a = UOp.param(0) + 0
  >>> t.id(a + a), t.rows
  (3, ['p0', '0', ['add(', 0, ', ', 1, ')'], ['add(', 2, ', ', 2, ')']])
  """
  def __init__(self) -> None:
    self.rows: list[Any] = []
    self._ids: dict[int, int] = {}   # id(node) -> row; the nodes are kept alive in kept, so an id is never reused
    self.kept: list[Any] = []   # the node of each row
    self.cut: ItemCut | None = None   # the report's cut, asked every CUT_NODES nodes added: one graph can be a million

  def id(self, u: Any) -> int | None:
    """The row of ``u`` (adding it and its sources, iteratively, when new); None for no node. ``CutShort`` once the
    table's ``cut`` says so while a big graph is added (the rows added so far stay: each is whole, sources first)."""
    if u is None: return None
    if (known := self._ids.get(id(u))) is not None: return known
    return self._add(u)

  def _add(self, u: Any) -> int:
    """``u`` and its sources not in the table yet, sources first (in the order of its pieces), each once: a node's pieces
    are made once, a node is pushed with its pieces once its new sources are pushed after it."""
    ids, rows, kept, cut = self._ids, self.rows, self.kept, self.cut
    parts_of = parts_for(u)   # another IR's nodes print in its own term form (tinygrad's, PyTensor's)
    stack: list[tuple[Any, Any]] = [(u, None)]
    added = 0
    while stack:
      x, parts = stack.pop()
      if parts is None:
        if id(x) in ids: continue   # (a source met twice: add(a, a))
        parts = parts_of(x)
        if type(parts) is not str and (new := [c for c in parts if type(c) is not str and id(c) not in ids]):
          stack.append((x, parts))
          stack.extend((c, None) for c in reversed(new))
          continue
      ids[id(x)] = len(rows)
      rows.append(parts if type(parts) is str else [c if type(c) is str else ids[id(c)] for c in parts])
      kept.append(x)
      added += 1
      if added % CUT_NODES == 0 and cut is not None and cut(): raise CutShort
    return ids[id(u)]


  def texts(self, chunk: int = 4096) -> Iterator[str]:
    """The rows' JSON, comma-separated, a chunk of rows at a time (compact: the big document's)."""
    rows = self.rows
    for k in range(0, len(rows), chunk): yield json.dumps(rows[k:k + chunk], ensure_ascii=False, separators=(",", ":"))[1:-1]


class NativeNodeTable:
  """``NodeTable``'s rows, in the same order, for a search the native core ran whole (``Exploration.native_space``):
  kept by the core by node id (``Space.table_setup``, ``_space_table.c``), each row's text made there from a template per
  label, no ``UOp`` made per node. The core writes the states and steps into it (``Space.states_json``, ``steps_json``);
  ``id`` adds what else the report names (a path's nodes)."""

  def __init__(self, space: Any) -> None:
    self._space, self._core = space, space.core
    self._core.table_setup(self._template)
    self.cut: ItemCut | None = None   # as NodeTable's

  def id(self, u: Any) -> int | None:
    """``NodeTable.id``: the row of ``u`` (a node of the core's IR, made a core node where new)."""
    if u is None: return None
    if (row := self._core.table_row(self._space.to_id(u), self.cut)) < 0: raise CutShort
    return cast(int, row)

  def texts(self, chunk: int = 65536) -> Iterator[bytes]:
    """``NodeTable.texts``, as UTF-8."""
    for k in range(0, self._core.table_size(), chunk): yield self._core.table_rows(k, k + chunk)

  def _template(self, node: int) -> tuple[bytes, ...]:
    """The core's question: node ``node``'s row as JSON around its sources' rows (its pieces, ``NativeSpace.pieces``, each
    string encoded by json.dumps): ``["add(",`` ``,", ",`` ``,")"]``; a leaf's whole text."""
    def dumps(x: str) -> str: return json.dumps(x, ensure_ascii=False)
    pieces = self._space.pieces(node)
    if isinstance(pieces, str): return (dumps(pieces).encode("utf-8", "surrogatepass"),)
    texts, text = [], "["
    for k, c in enumerate(pieces):
      if k: text += ","
      if isinstance(c, str): text += dumps(c)
      else: texts.append(text); text = ""
    texts.append(text + "]")
    return tuple(t.encode("utf-8", "surrogatepass") for t in texts)


def to_json(ex: Exploration, program: Any, rules: str, canonical: Any, canonical_error: str | None,
            paths: bool = False, fmt: str = "json") -> dict[str, Any]:
  """The exploration as a JSON-ready dict (``paths`` adds a shortest path to each normal form).

  Format 2: ``nodes`` holds each distinct node once (``NodeTable``); a state's ``graph`` and a step's ``node`` and ``result``
  are row ids, so the report grows with the distinct nodes and the steps, never with a graph's text per step. The program,
  the normal forms and the canonical result are also text. ``uopc.relational.load`` reads the terms back (either format).

  The states and steps are added while the report's cut allows (``uopc.cli.reports.cut``: time, and the memory the text
  written as ``fmt`` will take); a report cut short says so in ``report``."""
  from uopc.cli.support import progress_bar
  table = NodeTable()
  nid = table.id
  states: list[dict[str, Any]] = []
  edges: list[dict[str, Any]] = []
  # a path per normal form (as long as its depth) first: small, so cut by the time alone, before the memory's cut below
  cut_paths = table.cut = ItemCut()
  kept_paths = dict(until_cut(((str(s.id), [edge_json(e, nid) for e in s.path()]) for s in ex.normal_forms), cut_paths)) if paths else {}
  cut = table.cut = ItemCut(fmt, [ListSize(states), ListSize(edges), ListSize(table.rows)])
  with progress_bar(len(ex.states) + ex.edge_count, "item", "report") as bar:   # five_params' 488,511 states took a minute
    until_cut(({"id": s.id, "depth": s.depth, "parent": None if s.parent is None else s.parent.id, "rule": s.rule,
                "graph": nid(s.graph), "node": nid(s.node), "result": None if s.redex is None else nid(s.redex.result),
                "normal": s.normal, "error": s.error} for s in ex.states), cut, states, bar)
    if len(states) == len(ex.states): until_cut((edge_json(e, nid) for e in ex.edges), cut, edges, bar)
  table.cut = None   # what follows is said whole: the stuck steps' nodes
  out: dict[str, Any] = {
    "format": FORMAT, "program": term_text(program), "rules": rules, "complete": ex.complete, "bound": ex.bound,
    "stopped_by": None if ex.bound is None else bound_flag(ex.bound, ex.max_states, ex.max_depth, ex.timeout),
    "bounds": {"max_states": ex.max_states, "max_depth": ex.max_depth, "timeout": ex.timeout},
    "elapsed": round(ex.elapsed, 4), "reduced": ex.reduced, "states": states, "edges": edges,
  }
  which = cut if cut.reason is not None else cut_paths
  out.update(established_json(ex, nid, canonical, canonical_error, kept_paths if paths else None, which, len(states), len(edges)))
  if which.reason is not None:   # the output holds part of what was found: incomplete, whatever the search was
    out.update(complete=False, bound=ex.bound or which.bound, stopped_by=out["stopped_by"] or which.reason)
  out["nodes"] = table.rows   # last: every graph above has its rows by now
  return out


def established_json(ex: Exploration, nid: Any, canonical: Any, canonical_error: str | None, kept_paths: dict[str, Any] | None,
                     which: ItemCut, states: int, edges: int) -> dict[str, Any]:
  """A report's fields after its steps, as ``to_json`` and the streamed report (``stream.Report.tail``) both write them: what
  the search established (said however cut), the paths kept (``kept_paths``, None without ``--paths``), and the report's
  own cut (``which``) with the ``states`` and ``edges`` it wrote."""
  canon_state = None if canonical is None else ex.state_of(canonical)
  stuck = ex.stuck   # (a scan of the states: once)
  out: dict[str, Any] = {
    "normal_forms": [s.term(TERM_LIMIT) for s in ex.normal_forms],
    "cycles": [{"states": [s.id for s in c.states], "rules": c.rules} for c in terminal_cycles(ex)],
    "normal_form_ids": [s.id for s in ex.normal_forms],
    "stuck": [{"id": s.id, "rule": s.rule, "node": nid(s.node), "error": s.error} for s in stuck],
    "stuck_groups": stuck_groups_json(stuck, nid),
    "canonical": term_text(canonical),
    "canonical_state": None if canon_state is None else canon_state.id,
    "canonical_error": canonical_error,
  }
  if kept_paths is not None: out["paths"] = kept_paths
  if which.reason is not None:   # a bound ended the report's detail
    out["report"] = {"complete": False, "states": states, "edges": edges, "stopped_by": cut_text(which)}
    if kept_paths is not None and len(kept_paths) < len(ex.normal_forms): out["report"]["paths"] = len(kept_paths)
  return out


def edge_json(e: Edge, nid: Any) -> dict[str, Any]:
  """One step of a format-2 report: state ids, the rule, and the node it rewrote and its result as node rows."""
  return {"from": e.source.id, "to": e.target.id, "rule": e.rule, "rule_index": e.rule_index, "node": nid(e.node),
          "result": nid(e.result), "error": e.error}


def steps_json(path: list[Edge], table: NodeTable | None = None) -> list[dict[str, Any]]:
  """A path's steps as JSON: the rule, the ``node`` it rewrote and its ``result``, and the whole graph ``before`` and ``after``
  (``result`` and ``after`` are null after a step that failed, and ``error`` says why). Graphs are rows of ``table`` (the
  command's ``nodes``, format 2: a path of n steps costs its distinct nodes, not 2n graphs' texts), or texts without one."""
  if table is None:
    return [{"rule": e.rule, "rule_index": e.rule_index, "node": show(e.node, TERM_LIMIT), "result": term_text(e.result),
             "before": show(e.source.graph, TERM_LIMIT), "after": show(e.target.graph, TERM_LIMIT) if e.error is None else None,
             "error": e.error} for e in path]
  nid = table.id
  return [{"rule": e.rule, "rule_index": e.rule_index, "node": nid(e.node), "result": nid(e.result), "before": nid(e.source.graph),
           "after": nid(e.target.graph) if e.error is None else None, "error": e.error} for e in path]


def with_nodes(data: dict[str, Any], table: NodeTable) -> dict[str, Any]:
  """``data`` marked format 2, with the node table its steps name (``steps_json``) as its last key."""
  data["format"] = FORMAT
  data["nodes"] = table.rows
  return data


BIG_JSON = 20_000   # states, steps and node rows past which the JSON is written compact


def json_text(data: dict[str, Any]) -> str:
  """JSON text, indented; past ``BIG_JSON`` states, steps and nodes, on one line: the indenting encoder is Python's and
  took 80 s for 200,000 states, the compact one is C's, about twenty times as fast. Non-finite floats never occur."""
  size = sum(len(v) for k in ("states", "edges", "nodes") if isinstance(v := data.get(k), list))
  if size > BIG_JSON: return _compact_json(data, size)
  return json.dumps(data, indent=1, ensure_ascii=False)


def _compact_json(data: dict[str, Any], size: int, chunk: int = 16_384) -> str:
  """``json.dumps(data, ensure_ascii=False, separators=(",", ":"))``, the same text, with its big lists encoded a chunk of
  items at a time so that a progress bar can follow (five_params' whole space: 1 GB, 20 to 50 s in one call).

  >>> d = {"states": [{"id": i} for i in range(5)], "x": [1, "é"]}
  >>> _compact_json(d, 5, chunk=2) == json.dumps(d, ensure_ascii=False, separators=(",", ":"))
  True
  """
  from uopc.cli.support import progress_bar

  def dumps(x: Any) -> str: return json.dumps(x, ensure_ascii=False, separators=(",", ":"))
  pieces: list[str] = []   # joined once, as json.dumps joins its own: the text is held twice at the most, not more
  with progress_bar(size, "item", "json") as bar:
    if bar.disable: return dumps(data)   # no terminal to show it on: one call (the chunks' slicing costs a tenth more)
    for k, v in data.items():
      pieces.append("," if pieces else "{")
      pieces.append(f"{dumps(k)}:")
      counted = k in ("states", "edges", "nodes") and isinstance(v, list) and not bar.disable
      if not isinstance(v, list) or len(v) <= chunk:
        pieces.append(dumps(v))
        if counted: bar.update(len(v))
        continue
      for i in range(0, len(v), chunk):
        pieces.append("[" if i == 0 else ",")
        pieces.append(dumps(part := v[i:i + chunk])[1:-1])   # a slice's items, without its brackets
        if counted: bar.update(len(part))
      pieces.append("]")
  pieces.append("}" if pieces else "{}")
  return "".join(pieces)


def dot_states(ex: Exploration, canonical: Any, max_nodes: int | None = None, paths_only: bool = False) -> list[State]:
  """The states a DOT drawing keeps: with ``paths_only`` the normal forms and the paths to them (and to the
  canonical result); at most ``max_nodes``, the program, the canonical path and the normal forms first."""
  canon_state = None if canonical is None else ex.state_of(canonical)
  ends = ([canon_state] if canon_state is not None else []) + ex.normal_forms
  on_paths = [t for s in ends for t in [*(e.source for e in s.path()), s]]
  wanted = on_paths if paths_only else [*on_paths, *ex.states]
  keep = list({s.id: s for s in ([ex.states[0]] if ex.states else []) + wanted}.values())
  return sorted(keep if max_nodes is None else keep[:max_nodes], key=lambda s: s.id)


def to_dot(ex: Exploration, canonical: Any, rules: str, max_nodes: int | None = None, paths_only: bool = False) -> Any:
  """The state graph as a ``graphviz.Digraph`` (Jupyter renders it; ``.source`` is the DOT text): rule-labelled edges,
  normal forms doubled, the canonical one filled. ``max_nodes`` and ``paths_only`` (``dot_states``) keep large spaces legible."""
  from uopc.draw import digraph   # a graphviz.Digraph whose notebook rendering does without Graphviz's dot program
  canon_state = None if canonical is None else ex.state_of(canonical)
  states = dot_states(ex, canonical, max_nodes, paths_only)
  drawn = f"{len(states)} of {len(ex.states)} states drawn" if len(states) < len(ex.states) else f"{len(ex.states)} states"
  dot = digraph("states", comment=f"uopc explore, rules {rules}: {bound_text(ex)}",
                         graph_attr={"rankdir": "TB", "label": f"rules {rules}: {drawn}, {bound_text(ex)}"},
                         node_attr={"shape": "box", "fontname": "monospace", "fontsize": "10"},
                         edge_attr={"fontname": "monospace", "fontsize": "8"})
  cut = ItemCut("dot", [ListSize(dot.body)])   # a state or a step at a time, while the report's time and memory last
  kept = 0
  for s in states:
    if cut(): break
    attrs: dict[str, str] = {}
    label = f"#{s.id} {s.term(DOT_TERM_LIMIT)}"
    if s.error is not None:
      attrs.update(shape="octagon", color="red")
      label = f"#{s.id} stuck: {s.error[:DOT_TERM_LIMIT]}"
    elif s.normal: attrs["peripheries"] = "2"
    if s is canon_state: attrs.update(style="filled", fillcolor="palegreen")
    if s.id == 0: attrs["penwidth"] = "2"
    dot.node(str(s.id), label, **attrs)
    kept += 1
  ids = {s.id for s in states[:kept]}
  steps = 0
  for e in ex.edges:
    if e.source.id in ids and e.target.id in ids:
      if cut(): break
      dot.edge(str(e.source.id), str(e.target.id), label=short_rule(e.rule), **({"color": "red"} if e.error else {}))
      steps += 1
  if cut.reason is not None:   # the drawing says it holds part of what it was to hold
    dot.graph_attr["label"] += f"; incomplete drawing: stopped by {cut.reason} ({kept} states and {steps} steps drawn)"
  return dot


def stopped_by(bound: str | None, args: Any) -> str | None:
  """A JSON output's ``stopped_by``: the flag behind ``bound`` (``--max-states 100``, ``--timeout 5 s``), None for none.

  >>> import argparse
  >>> stopped_by("max_states", argparse.Namespace(max_states=100)), stopped_by(None, None)
  ('--max-states 100', None)
  """
  if bound is None or bound == "saturated": return None
  if bound in ("iterations", "enodes"): return f"--max-{bound} {getattr(args, f'max_{bound}', None)}"   # saturate's
  return bound_flag(bound, getattr(args, "max_states", None), getattr(args, "max_depth", None), getattr(args, "timeout", None))


def search_bound_text(bound: str | None, args: Any, complete: str = "the whole space was searched") -> str:
  """``incomplete: stopped by ...`` naming the flag of the bound that stopped a search (``complete`` where none did)."""
  if bound is None: return complete
  return f"incomplete: stopped by {bound_flag(bound, args.max_states, args.max_depth, args.timeout)}"
