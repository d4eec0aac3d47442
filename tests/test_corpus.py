"""The corpus (issue 39.1): tinygrad's and PyTensor's graphs as text that loads back equal, the capture hooks, the file.

The round trip is a property: any tinygrad expression graph (variables with bounds, constants of every kind a
CONST holds: -0.0, nan, inf, bools, weak ints, ranges) parses back to the very same ``UOp`` (tinygrad hash-conses
them), and text that is not a graph is a one-line ValueError, never evaluated.
"""
from __future__ import annotations

import json
import math
import os
import subprocess
import sys

import pytest
from hypothesis import given, settings, strategies as st
from tinygrad.dtype import dtypes
from tinygrad.uop.ops import Ops, UOp, graph_rewrite
from tinygrad.uop.symbolic import symbolic

from uopc.corpus import CorpusError, Entry, load
from uopc.corpus.capture import capture
from uopc.corpus.child import merge
from uopc.corpus.format import Header, write
from uopc.corpus.tinygrad_text import dump, is_expression, parse

V, W = UOp.variable("v", 0, 2), UOp.variable("w", -5, 5)
FLOATS = [0.0, -0.0, 1.5, math.inf, -math.inf, math.nan, 1e-310]


@st.composite
def expressions(draw: st.DrawFn, depth: int = 4) -> UOp:
  """A tinygrad index/valid expression: ALU ops over variables, ranges and constants of several dtypes."""
  kind = draw(st.sampled_from(["int", "float", "bool"]))
  if kind == "float":
    leaves = [UOp.const(x, dtypes.float) for x in FLOATS] + [UOp.variable("f", 0.0, 1.0, dtypes.float)]
    ops = [lambda a, b: a + b, lambda a, b: a * b, lambda a, b: a.maximum(b), lambda a, b: (a < b).where(a, b)]
  elif kind == "bool":
    leaves = [V < 1, W.ne(0), UOp.const(True, dtypes.bool)]
    ops = [lambda a, b: a | b, lambda a, b: a & b, lambda a, b: a.ne(b)]
  else:
    leaves = [V, W, UOp.range(10, 0), UOp.const(0, dtypes.weakint), UOp.const(-3, dtypes.weakint), UOp.const(243, dtypes.weakint)]
    ops = [lambda a, b: a + b, lambda a, b: a * b, lambda a, b: a // b, lambda a, b: a % b, lambda a, b: a.maximum(b)]
  g = draw(st.sampled_from(leaves))
  for _ in range(draw(st.integers(1, depth))):
    g = draw(st.sampled_from(ops))(g, draw(st.sampled_from(leaves))) if draw(st.booleans()) else \
        draw(st.sampled_from(ops))(draw(st.sampled_from(leaves)), g)
  return g


@settings(max_examples=150, deadline=None)
@given(expressions())
def test_a_tinygrad_graph_loads_back_as_the_same_uop(g):
  assert parse(dump(g)) is g


def test_the_text_keeps_what_equality_keeps():
  for a, b in [(UOp.const(0.0, dtypes.float), UOp.const(-0.0, dtypes.float)), (UOp.const(1, dtypes.int), UOp.const(1, dtypes.weakint)),
               (UOp.const(1, dtypes.weakint), UOp.const(True, dtypes.bool))]:
    assert a is not b and dump(a) != dump(b) and parse(dump(a)) is a and parse(dump(b)) is b
  tagged = UOp(Ops.ADD, dtypes.weakint, (V, V), None, "t")
  assert parse(dump(tagged)) is tagged and dump(tagged).endswith('tag="t"')


@pytest.mark.parametrize("text, why", [
  ("%0 = CONST weakint () __import__('os').system('true')", "graph line 1"),
  ("%0 = CONST weakint () 1\n%1 = ADD weakint (%0, %5)", "not an earlier node"),
  ("%0 = NOT_AN_OP weakint () 1", "unknown op"),
  ('%0 = CONST weakint () {"enum": "os.system"}', "not an arg"),
  ('%0 = BUFFER weakint () {"ParamArg": {"evil": 1}}', "no field"),
  ("", "not '%N = OP"),
])
def test_text_that_is_not_a_graph_is_one_line_of_why(text, why):
  with pytest.raises(ValueError, match=why) as e: parse(text)
  assert "\n" not in str(e.value)


def test_an_expression_is_alu_ops_over_variables_constants_and_ranges():
  assert is_expression(((V * 81 + 10) + 233) % 243) and is_expression(UOp.sink(V + 1, W < 2))
  assert not is_expression(V) and not is_expression(UOp.const(3, dtypes.weakint))
  assert not is_expression(UOp.range(4, 0).reshape((1,)))


def test_a_pytensor_graph_loads_back_equal():
  import pytensor.tensor as pt
  from pytensor.graph.basic import equal_computations
  from uopc.corpus.pytensor_text import dump_variable, parse, parse_variable
  x, y = pt.vector("x"), pt.vector("y")
  for g in [pt.log(pt.exp(x + y)) * 2 - x, pt.maximum(x * -0.0, 1.5) / y, pt.sqrt(x) + pt.constant(float("nan"))]:
    text = dump_variable(g)
    back = parse_variable(text)
    assert dump_variable(back) == text
    assert equal_computations([g], [back], in_xs=_inputs(g), in_ys=_inputs(back))
    assert parse(text).term() == parse(dump_variable(g)).term()


def _inputs(v):
  from pytensor.graph.traversal import graph_inputs
  return sorted((i for i in graph_inputs([v]) if i.name), key=lambda i: i.name)


def test_a_corpus_line_that_is_not_an_entry_names_its_line(tmp_path):
  path = tmp_path / "c.jsonl"
  write(path, [Entry("tinygrad", "tinygrad:symbolic", V + 1)], Header({"tinygrad": "0.14.0"}))
  assert [(e.rules, e.program) for e in load(path)] == [("tinygrad:symbolic", V + 1)]
  with open(path, "a") as f: f.write('{"ir": "tinygrad", "rules": "tinygrad:symbolic", "graph": "%0 = NOPE"}\n')
  with pytest.raises(CorpusError, match=r"c.jsonl:3: graph line 1"): load(path)
  (tmp_path / "not.jsonl").write_text('{"some": "json"}\n')
  with pytest.raises(CorpusError, match=r"not.jsonl:1: not a uopc corpus"): load(tmp_path / "not.jsonl")


def test_capture_records_each_pass_input_once_with_its_rule_set_named(tmp_path):
  from tinygrad.uop.ops import PatternMatcher, UPat
  from tinygrad.helpers import CACHELEVEL
  mine = PatternMatcher([(UPat.var("x") + 0, lambda x: x)])
  level = CACHELEVEL.value
  path = tmp_path / "c.jsonl"
  said: list[str] = []
  with capture(path, which=("tinygrad",), say=said.append) as rec:
    assert CACHELEVEL.value == 0
    for _ in range(3): graph_rewrite(V * 2 + 1, symbolic)
    graph_rewrite(W + 0, mine)
    graph_rewrite(V, symbolic)   # a lone variable: not an expression, counted
  assert CACHELEVEL.value == level and said == ["uopc capture: sets tinygrad CACHELEVEL=0 PARALLEL=0 (no disk cache, no compile workers: "
                                                "every rewrite pass runs in this process)"]
  entries = load(path)
  assert [(e.rules, e.program, e.count) for e in entries if e.named] == [("tinygrad:symbolic", V * 2 + 1, 3)]
  unnamed = [e for e in entries if not e.named]
  assert [e.program for e in unnamed] == [W + 0] and unnamed[0].rules.startswith("?") and "test_corpus.py:" in unnamed[0].rules
  assert rec.header().not_checkable["tinygrad:symbolic: not an expression graph"] == 1
  assert "graph_rewrite at tests/test_corpus.py:" in entries[0].where or "test_corpus.py" in entries[0].where


def test_the_parts_of_several_processes_merge_into_one_corpus(tmp_path):
  a, b = tmp_path / "part-1.jsonl", tmp_path / "part-2.jsonl"
  write(a, [Entry("tinygrad", "tinygrad:symbolic", V + 1, 2), Entry("tinygrad", "tinygrad:sym", V + 1)], Header({"tinygrad": "0.14.0"}, {"x": 1}))
  write(b, [Entry("tinygrad", "tinygrad:symbolic", V + 1, 5), Entry("tinygrad", "tinygrad:symbolic", W * 3)], Header({"python": "3"}, {"x": 2}))
  entries, header = merge([str(a), str(b)])
  assert [(e.rules, e.count) for e in entries] == [("tinygrad:symbolic", 7), ("tinygrad:sym", 1), ("tinygrad:symbolic", 1)]
  assert header.not_checkable == {"x": 3} and header.captured_with == {"tinygrad": "0.14.0", "python": "3"}


PROGRAM = """
from tinygrad.uop.ops import UOp
v = UOp.variable("v", 0, 2)
print((v * 2 + 3).simplify().render())
import pytensor, pytensor.tensor as pt
x = pt.vector("x")
print(pytensor.function([x], pt.log(pt.exp(x)) * 1)([1.0]))
"""


def _uopc(*argv: str, cwd: str) -> subprocess.CompletedProcess:
  env = {**os.environ, "PYTHONPATH": os.path.dirname(os.path.dirname(os.path.abspath(__file__)))}
  return subprocess.run([sys.executable, "-m", "uopc", *argv], cwd=cwd, env=env, capture_output=True, text=True, timeout=300)


def test_the_capture_command_hooks_the_program_it_runs(tmp_path):
  (tmp_path / "prog.py").write_text(PROGRAM)
  r = _uopc("capture", "-o", "c.jsonl", "--", sys.executable, "prog.py", cwd=str(tmp_path))
  assert r.returncode == 0, r.stderr
  assert "(v*2+3)" in r.stdout and "sets tinygrad CACHELEVEL=0 PARALLEL=0" in r.stdout
  entries = load(tmp_path / "c.jsonl")
  rules = {e.rules for e in entries}
  assert {"tinygrad:symbolic", "pytensor:canonicalize"} <= rules
  header = json.loads((tmp_path / "c.jsonl").read_text().splitlines()[0])
  assert set(header["captured-with"]) >= {"python", "tinygrad", "pytensor"}


def test_a_program_that_fails_leaves_the_corpus_of_what_ran(tmp_path):
  (tmp_path / "prog.py").write_text(PROGRAM.split("import pytensor")[0] + "raise SystemExit(5)\n")
  r = _uopc("capture", "-o", "c.jsonl", "--", sys.executable, "prog.py", cwd=str(tmp_path))
  assert r.returncode == 1 and "the program exited 5" in r.stderr
  assert [e.rules for e in load(tmp_path / "c.jsonl")] == ["tinygrad:symbolic"]
  r = _uopc("capture", "-o", "c.jsonl", cwd=str(tmp_path))
  assert r.returncode == 2 and r.stderr.count("\n") == 1 and "no program to run" in r.stderr


def test_an_interrupted_capture_writes_what_ran_and_says_so(tmp_path):
  import signal
  import time
  (tmp_path / "prog.py").write_text(PROGRAM.split("import pytensor")[0] + "open('ready', 'w').close()\nimport time\ntime.sleep(600)\n")
  env = {**os.environ, "PYTHONPATH": os.path.dirname(os.path.dirname(os.path.abspath(__file__)))}
  proc = subprocess.Popen([sys.executable, "-m", "uopc", "capture", "-o", "c.jsonl", "--", sys.executable, "prog.py"], cwd=tmp_path, env=env,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
  while not (tmp_path / "ready").exists() and proc.poll() is None: time.sleep(0.05)   # the program has simplified, and sleeps
  proc.send_signal(signal.SIGTERM)
  out, err = proc.communicate(timeout=300)
  assert proc.returncode == 143, err
  assert "incomplete: stopped by" in err and "c.jsonl: 1 graph (1 of named rule sets" in out
  assert [e.rules for e in load(tmp_path / "c.jsonl")] == ["tinygrad:symbolic"]
