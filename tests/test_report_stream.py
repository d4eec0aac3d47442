"""``uopc/cli/reports/stream.py``: a big exploration's JSON and page written as the states are read, the same document."""
import json
import re

import pytest
from hypothesis import assume, given, settings, strategies as st

from uopc import PatternMatcher, UOp, UPat
from uopc.cli.budget import REPORT_TIME, Budget
from uopc.cli.main import main
from uopc.cli.reports import exploration as report, stream
from uopc.cli.reports.cut import CutShort
from uopc.relational import Stepper, canonical, explore
from uopc.relational.native.space import NativeSpace, NotNative
from uopc.relational.space.saved import NodeTexts
from uopc.symbolic import symbolic
from tests.strategies import graphs

FIVE = "examples/five_params.uir"


def program():
  from uopc.cli.support import load_program
  return load_program(FIVE)


def without_elapsed(text: str) -> str:
  return re.sub(r"\"elapsed\": ?[0-9.e-]+", "\"elapsed\":0", text)


@pytest.fixture(params=["native", "python"])
def core(request, monkeypatch):
  if request.param == "python": monkeypatch.setenv("UOPC_NATIVE", "0")
  return request.param


ZERO = PatternMatcher([(UPat.var("x") + 0, lambda x: x)])


@pytest.mark.parametrize("bound", [None, 300], ids=["whole", "max-states"])
def test_the_streamed_json_is_the_dict_s_byte_for_byte(core, bound):
  if bound is None:   # 32 states, 80 steps: a whole space
    prog, pm = UOp.param(0) + 0, ZERO
    for k in range(1, 5): prog = prog + (UOp.param(k) + 0)
  else: prog, pm = program(), symbolic   # a bound leaves steps to states never made
  ex = explore(prog, pm, max_states=bound, reduce=False).run()
  assert (ex.native_steps is not None) == (core == "native") and ex.complete == (bound is None)
  canon, err = canonical(prog, pm)
  extra = {"exhaustive": ex.complete, "termination": {"text": "é <"}}
  data = report.to_json(ex, prog, "rules", canon, err, paths=True)
  data.update(extra)
  out = io_text(lambda f: stream.write_json(f, stream.Report(ex, prog, "rules", canon, err, True, extra, "json")))
  assert out == json.dumps(data, ensure_ascii=False, separators=(",", ":")) + "\n"


def io_text(write) -> str:
  import io
  f = io.StringIO()
  write(f)
  return f.getvalue()


def test_a_big_exploration_is_written_as_it_is_read_and_says_the_same(tmp_path, monkeypatch, capsys):
  argv = ["explore", "normal-forms", FIVE, "--max-states", "400", "--samples", "3", "--format", "json"]
  assert main([*argv, "-o", str(tmp_path / "dict.json")]) == 3   # small: the dict, written whole
  monkeypatch.setattr(report, "BIG_JSON", 0)
  monkeypatch.setattr(stream, "BIG_JSON", 0)
  built = []
  monkeypatch.setattr(report, "to_json", lambda *a, **k: built.append(1))   # never called for a big one
  assert main([*argv, "-o", str(tmp_path / "stream.json")]) == 3
  assert main(argv) == 3   # to stdout: through a temporary file
  printed = capsys.readouterr().out
  dict_text = (tmp_path / "dict.json").read_text()
  streamed = (tmp_path / "stream.json").read_text()
  assert built == [] and json.loads(without_elapsed(streamed)) == json.loads(without_elapsed(dict_text))
  assert without_elapsed(printed) == without_elapsed(streamed)
  assert json.loads(streamed)["complete"] is False and json.loads(streamed)["stopped_by"] == "--max-states 400"
  assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]   # no temporary file left


def test_a_report_cut_by_an_interrupt_is_valid_and_says_so_in_its_head():
  g = UOp.param(0) + 0
  for k in range(1, 10): g = g + (UOp.param(k) + 0)
  ex = explore(g, ZERO, reduce=False).run()
  import argparse
  import os
  import tempfile
  with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "out.json")
    args = argparse.Namespace(format="json", output=path, file="g")
    with Budget(timeout=None, max_memory=None) as b:
      b.hit("interrupted")
      b.hit_at -= REPORT_TIME + 1   # the report's second is over: no state is added
      stream.emit_exploration(args, "reachable", ex, g, "zero", None, "none")
    data = json.loads(open(path).read())
    assert os.listdir(tmp) == ["out.json"]
  assert (data["complete"], data["bound"], data["stopped_by"]) == (False, "interrupted", "an interrupt (SIGINT)")
  assert data["report"] == {"complete": False, "states": 0, "edges": 0, "stopped_by": "an interrupt (SIGINT)"}
  assert data["states"] == [] and len(data["normal_forms"]) == 1


def test_the_streamed_page_holds_every_state_and_step_in_chunks(tmp_path, monkeypatch):
  monkeypatch.setattr(report, "BIG_JSON", 0)
  monkeypatch.setattr(stream, "BIG_JSON", 0)
  argv = ["explore", "reachable", FIVE, "--max-states", "250"]
  assert main([*argv, "--format", "json", "-o", str(tmp_path / "f.json")]) == 3
  data = json.loads((tmp_path / "f.json").read_text())
  monkeypatch.setattr(stream, "CHUNK_STATES", 100)
  assert main([*argv, "--format", "html", "-o", str(tmp_path / "f.html")]) == 3
  text = (tmp_path / "f.html").read_text()
  parts = [json.loads(m) for m in re.findall(r'<script type="application/json" id="uopc-chunk-\d+">(.*?)</script>', text, re.S)]
  main_part = json.loads(re.search(r'<script type="application/json" id="uopc-data">(.*?)</script>', text, re.S).group(1))
  assert len(parts) == 3 and all(e["from"] // 100 == k for k, p in enumerate(parts) for e in p["edges"])
  page_text, json_text = NodeTexts(main_part["nodes"]), NodeTexts(data["nodes"])   # each numbers its rows in its own order
  states = [s for p in parts for s in p["states"]]
  assert [page_text(s["graph"]) for s in states] == [json_text(s["graph"]) for s in data["states"]]
  assert [(e["from"], e["to"], page_text(e["node"])) for p in parts for e in p["edges"]] == \
         [(e["from"], e["to"], json_text(e["node"])) for e in data["edges"]]
  summary = main_part.pop("chunks")
  assert (summary["states"], summary["edges"], summary["count"]) == (250, len(data["edges"]), 3)
  same = ("nodes", "states", "edges", "elapsed", "stuck")
  assert {k: v for k, v in main_part.items() if k not in same} == {k: v for k, v in data.items() if k not in same}
  depths = [[d, sum(s["depth"] == d for s in states)] for d in sorted({s["depth"] for s in states})]
  assert [row[:2] for row in summary["depths"]] == depths


# a rule's name as the steps' text carries it (copied by the core's steps_json): quotes, backslashes, control
# characters, non-ASCII, a lone surrogate, "<" for the page
HOSTILE = (st.text(st.characters(codec=None, categories=None), min_size=1, max_size=12)
           | st.sampled_from(['"', "\\", "\x00\x1f\x7f", "é\u2028", "\ud800", "</script>"]))


def named(add: str, mul: str) -> PatternMatcher:
  x = UPat.var("x")
  return PatternMatcher([(x + 0, lambda x: x, add), (x * 1, lambda x: x, mul)], name="hostile")


def plus_zeros(n: int) -> UOp:
  prog = UOp.param(0) * 1 + 0
  for k in range(1, n): prog = prog + (UOp.param(k) + 0)
  return prog


def streamed(ex, prog, fmt: str = "json") -> str:
  rep = stream.Report(ex, prog, "rules", None, None, False, {}, fmt)
  return io_text(lambda f: stream.write_json(f, rep) if fmt == "json" else stream.write_page(f, rep, "reachable", "t", 3))


@given(HOSTILE, HOSTILE)
@settings(max_examples=25)
def test_hostile_rule_names_come_out_as_json_dumps_writes_them_from_either_core(add, mul):
  assume(add != mul)
  prog, pm = plus_zeros(3), named(add, mul)
  native, python = explore(prog, pm, native=True).run(), explore(prog, pm, native=False).run()
  assert native.native_steps is not None and python.native_steps is None
  data = report.to_json(native, prog, "rules", None, None)   # its steps made Edge by Edge and encoded by json.dumps
  text = streamed(native, prog)
  assert text == json.dumps(data, ensure_ascii=False, separators=(",", ":")) + "\n"
  assert without_elapsed(text) == without_elapsed(streamed(python, prog))
  assert {e["rule"] for e in json.loads(text)["edges"]} == {add, mul}
  page = streamed(native, prog, "html")
  assert without_elapsed(page) == without_elapsed(streamed(python, prog, "html"))
  chunks = [json.loads(m) for m in re.findall(r'<script type="application/json" id="uopc-chunk-\d+">(.*?)</script>', page, re.S)]
  summary = json.loads(re.search(r'<script type="application/json" id="uopc-data">(.*?)</script>', page, re.S).group(1))["chunks"]
  data = json.loads(text)
  assert [(e["from"], e["to"], e["rule"]) for c in chunks for e in c["edges"]] == [(e["from"], e["to"], e["rule"]) for e in data["edges"]]
  assert [s["rule"] for c in chunks for s in c["states"]] == [s["rule"] for s in data["states"]]
  assert summary["rules"] == sorted({s["rule"] for s in data["states"] if s["rule"]})


@pytest.mark.parametrize("how", ["reduced", "tree", "depth-first"])
def test_the_core_s_steps_text_is_the_python_core_s(how):
  prog = plus_zeros(4)
  kw = {"reduced": {"reduce": True}, "tree": {"semantics": "tree"}, "depth-first": {"order": "dfs"}}[how]
  native, python = explore(prog, ZERO, native=True, **kw).run(), explore(prog, ZERO, native=False, **kw).run()
  assert native.native_steps is not None and native.edge_count == python.edge_count > 0
  assert without_elapsed(streamed(native, prog)) == without_elapsed(streamed(python, prog))
  assert without_elapsed(streamed(native, prog, "html")) == without_elapsed(streamed(python, prog, "html"))


def test_grouped_steps_and_a_bound_s_unmade_targets_are_written_as_the_dict_says():
  chain = UOp.param(0)
  for _ in range(300): chain = chain + 0   # 300 redexes in the first graph: past map_limit, its steps grouped
  for bound in (None, 40):
    ex = explore(chain, ZERO, max_states=bound).run()
    assert ex.native_steps is not None and ex.complete == (bound is None)
    data = report.to_json(ex, chain, "rules", None, None)
    assert streamed(ex, chain) == json.dumps(data, ensure_ascii=False, separators=(",", ":")) + "\n"
    assert len(data["edges"]) == (300 * 301 // 2 if bound is None else sum(300 - k for k in range(39)))   # state 39 steps to states not made


def texts_of(table) -> str:
  """A node table's rows as the document writes them (comma-separated), whichever table."""
  return ",".join(t if isinstance(t, str) else t.decode("utf-8", "surrogatepass") for t in table.texts())


@given(st.lists(graphs(max_ops=10), min_size=1, max_size=4))
@settings(max_examples=40)
def test_the_core_s_node_table_is_the_python_one_row_for_row(gs):
  space = NativeSpace(Stepper(symbolic))
  try:
    for g in gs: space.to_id(g)
  except NotNative: assume(False)   # a CALL: never in a native search
  native, python = report.NativeNodeTable(space), report.NodeTable()
  assert [native.id(g) for g in gs] == [python.id(g) for g in gs]
  assert [native.id(g) for g in gs[::-1]] == [python.id(g) for g in gs[::-1]]   # known rows: the same ids, none added
  assert texts_of(native) == texts_of(python) == json.dumps(python.rows, ensure_ascii=False, separators=(",", ":"))[1:-1]


@given(HOSTILE, HOSTILE)
@settings(max_examples=25)
def test_a_row_s_pieces_come_out_as_json_dumps_writes_them(leaf, piece):
  space = NativeSpace(Stepper(ZERO))
  g = UOp.param(0) + UOp.param(1)
  # the pieces any text could hold (quotes, control characters, a lone surrogate, "</script>"), in a template made once per label
  space.pieces = lambda i: [piece, 0, piece + leaf, 1, leaf] if space.uop(i) is g else f"{leaf}{space.uop(i).arg.slot}"
  table = report.NativeNodeTable(space)
  assert table.id(g) == 2 and table.id(UOp.param(1)) == 1
  rows = [f"{leaf}0", f"{leaf}1", [piece, 0, piece + leaf, 1, leaf]]
  assert texts_of(table) == json.dumps(rows, ensure_ascii=False, separators=(",", ":"))[1:-1]


def test_a_20000_node_graph_s_rows_without_recursion_and_cut_whole():
  chain = UOp.param(0)
  for k in range(20_000): chain = chain + (k % 7)   # 20,000 nodes deep over 8 leaves: 20,008 rows
  native, python = report.NativeNodeTable(NativeSpace(Stepper(ZERO))), report.NodeTable()
  assert native.id(chain) == python.id(chain) == 20_007 and texts_of(native) == texts_of(python)
  cut = report.NativeNodeTable(NativeSpace(Stepper(ZERO)))
  cut.cut = lambda: True   # asked every CUT_NODES rows added: the first time ends it
  with pytest.raises(CutShort): cut.id(chain)
  rows = json.loads("[" + texts_of(cut) + "]")
  assert len(rows) == report.CUT_NODES and all(isinstance(r, str) or max(c for c in r if isinstance(c, int)) < k
                                               for k, r in enumerate(rows))   # the rows kept are whole, sources first


@pytest.mark.parametrize("fmt", ["json", "html"])
def test_the_core_s_text_handed_on_a_few_bytes_at_a_time_to_a_file_or_a_text_stream_is_the_same(fmt, monkeypatch, tmp_path):
  prog = plus_zeros(4)
  ex = explore(prog, ZERO, native=True, reduce=False).run()
  assert ex.native_steps is not None
  whole = streamed(ex, prog, fmt)
  monkeypatch.setattr(stream, "FLUSH_CHARS", 1)   # a call of the core's per state: the commas between its calls' items
  assert without_elapsed(streamed(ex, prog, fmt)) == without_elapsed(whole)
  rep = stream.Report(ex, prog, "rules", None, None, False, {}, fmt)
  with open(tmp_path / "out", "wb") as f:   # binary: the core's buffer written as it is
    stream.write_json(f, rep) if fmt == "json" else stream.write_page(f, rep, "reachable", "t", 3)
  assert without_elapsed((tmp_path / "out").read_text(encoding="utf-8")) == without_elapsed(whole)
  if fmt == "json": assert whole == json.dumps(report.to_json(ex, prog, "rules", None, None), ensure_ascii=False, separators=(",", ":")) + "\n"


def test_what_the_core_hands_on_is_released_after_the_call():
  ex = explore(plus_zeros(3), ZERO, native=True, reduce=False).run()
  items = stream.Report(ex, plus_zeros(3), "rules", None, None, False, {}, "json").items
  kept: list[memoryview] = []
  assert sum(items.native_steps(0, len(ex.states), lambda: False, kept.append)) == ex.edge_count > 0
  assert kept
  with pytest.raises(ValueError, match="released"): bytes(kept[0])   # (its buffer is the next call's)
