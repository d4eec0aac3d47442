"""``uopc/cli/reports/stream.py``: a big exploration's JSON and page written as the states are read, the same document."""
import json
import re

import pytest

from uopc import PatternMatcher, UOp, UPat
from uopc.cli.budget import REPORT_TIME, Budget
from uopc.cli.main import main
from uopc.cli.reports import exploration as report, stream
from uopc.relational import canonical, explore
from uopc.relational.space.saved import NodeTexts
from uopc.symbolic import symbolic

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
