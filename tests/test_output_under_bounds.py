"""Output under a bound (issue 36): whatever stops a command, in whatever phase, it leaves a whole, valid output in its
format, marked incomplete, on stdout or ``-o FILE``; a report is cut item by item by time and by the memory its text
will take (``uopc.cli.reports.cut``), and a command stopped before any result writes its output empty
(``uopc.cli.reports.stopped``).

The bounds are hit deterministically: a rules file or a program that never finishes loading, a rule call that never
returns, ``--max-states``, a signal sent once the command says it started, a budget marked hit in process. Nothing
here depends on the machine's speed but for a generous ``HANG``.
"""
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from uopc import PatternMatcher, UOp, UPat
from uopc.relational import explore

ROOT = Path(__file__).resolve().parent.parent
HANG = 180   # seconds: a command still running after this has ignored its bound

PROGRAM = "%0 = param : slot=0 dtype=i32\n%1 = add %0, 0\n%2 = mul %1, 1\n"
# a rule set whose rules file never finishes loading (the start-up); it says when it started
HANGING_RULES = """\
import os
if os.environ.get("UOPC_TEST_STARTED"): open(os.environ["UOPC_TEST_STARTED"], "w").close()
while True: pass
"""
SPIN_RULES = """\
from uopc import Ops, PatternMatcher, UPat
def spin(x):
  while True: pass
rules = PatternMatcher([(UPat(Ops.ADD, src=(UPat.var("x"), UPat(Ops.CONST, arg=0))), spin)])
"""


@pytest.fixture
def files(tmp_path):
  (tmp_path / "prog.uir").write_text(PROGRAM)
  (tmp_path / "hang.py").write_text(HANGING_RULES + "rules = None\nz = None\n")
  (tmp_path / "spin.py").write_text(SPIN_RULES)
  return tmp_path


def uopc(*argv, env=None):
  return subprocess.run([sys.executable, "-m", "uopc", *map(str, argv)], capture_output=True, text=True, cwd=ROOT, timeout=HANG,
                        env=env)


def page_data(text: str) -> dict:
  """The JSON a page embeds."""
  m = re.search(r'<script type="application/json" id="uopc-data">(.*?)</script>', text, re.S)
  assert m, text[:300]
  return json.loads(m.group(1))


# ---- the start-up: a bound or a signal while the rules or the program load

START_UP = [
  ["explore", "reachable", "{prog}", "--rules", "{hang}:rules"],
  ["explore", "normal-forms", "{prog}", "--rules", "{hang}:rules"],
  ["explore", "order", "{prog}", "--rules", "{hang}:rules"],
  ["explore", "search", "{prog}", "--rules", "{hang}:rules", "--target", "p0"],
  ["explore", "pairs", "{hang}:rules"],
  ["explore", "best", "{prog}", "--rules", "{hang}:rules"],
  ["saturate", "{prog}", "--rules", "{hang}:rules"],
  ["trace", "{prog}", "--rules", "{hang}:rules"],
  ["explore", "normal-forms", "{hang}:z", "--rules", "pytensor:canonicalize"],   # PyTensor's path: the program hangs
  ["explore", "search", "{hang}:z", "--rules", "tinygrad:symbolic", "--target", "x"],   # tinygrad's
]


def _args(argv, files):
  return [a.format(prog=files / "prog.uir", hang=files / "hang.py") for a in argv]


@pytest.mark.parametrize("argv", START_UP, ids=lambda a: " ".join(a[:2]) + (" " + a[-1] if "pytensor" in a[-1] or "tinygrad" in a[-3] else ""))
def test_a_bound_in_the_start_up_writes_valid_json_marked_incomplete_to_the_file(files, argv):
  out = files / "out.json"
  r = uopc(*_args(argv, files), "--timeout", "1", "--format", "json", "-o", out)
  assert r.returncode == 3, r.stderr
  data = json.loads(out.read_text())
  assert data["complete"] is False and data["bound"] == "timeout" and data["stopped_by"] == "--timeout 1 s", data
  assert "output included" in r.stderr and "Traceback" not in r.stderr


@pytest.mark.parametrize("fmt", ["text", "html", "dot"])
def test_a_bound_in_the_start_up_gives_every_format_its_output(files, fmt):
  r = uopc("explore", "normal-forms", files / "prog.uir", "--rules", f"{files / 'hang.py'}:rules", "--timeout", "1", "--format", fmt)
  assert r.returncode == 3 and r.stdout, r.stderr
  if fmt == "html": assert page_data(r.stdout)["stopped_by"] == "--timeout 1 s"
  else: assert "incomplete: stopped by --timeout 1 s" in r.stdout and r.stdout.endswith("\n")
  if fmt == "dot": assert r.stdout.startswith("digraph states {") and r.stdout.rstrip().endswith("}")


def test_a_format_without_an_empty_form_says_no_output_was_written(files):
  r = uopc("simplify", files / "prog.uir", "--rules", f"{files / 'hang.py'}:rules", "--timeout", "1")   # a .uir program
  assert r.returncode == 3 and r.stdout == "" and "nothing written" in r.stderr and "output included" not in r.stderr


def test_an_interrupt_in_the_start_up_writes_valid_json(files):
  started = files / "started"
  env = dict(os.environ, UOPC_TEST_STARTED=str(started))
  p = subprocess.Popen([sys.executable, "-m", "uopc", "explore", "normal-forms", str(files / "prog.uir"), "--rules", f"{files / 'hang.py'}:rules",
                        "--timeout", "600", "--format", "json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT, env=env)
  deadline = time.monotonic() + HANG
  while not started.exists() and p.poll() is None and time.monotonic() < deadline: time.sleep(0.05)
  p.send_signal(signal.SIGINT)   # the rules file is loading: the start-up
  out, err = p.communicate(timeout=HANG)
  data = json.loads(out)
  assert p.returncode == 130 and data["complete"] is False and data["bound"] == "interrupted", err
  assert data["stopped_by"] == "an interrupt (SIGINT)" and data["states"] == [] and data["normal_forms"] == []


# ---- the search stopped before anything was found: pairs, best, saturate write their JSON

@pytest.mark.parametrize("argv", [["explore", "best", "{prog}", "--rules", "{spin}:rules"],
                                  ["saturate", "{prog}", "--rules", "{spin}:rules"],
                                  ["explore", "pairs", "{spin}:rules"]], ids=lambda a: a[1] if a[0] == "explore" else a[0])
def test_a_search_stopped_early_writes_json_to_the_file(files, argv):
  out = files / "out.json"
  args = [a.format(prog=files / "prog.uir", spin=files / "spin.py") for a in argv]
  r = uopc(*args, "--timeout", "2", "--format", "json", "-o", out)
  data = json.loads(out.read_text())
  assert r.returncode == 3 and r.stdout == "" and data["complete"] is False and data["stopped_by"] == "--timeout 2 s", r.stderr


@pytest.mark.parametrize("argv", [
  ["explore", "search", "examples/order.uir", "--target", "p9"],
  ["explore", "order", "examples/order.uir", "--samples", "0"],
  ["explore", "best", "examples/five_params.uir"],
  ["explore", "normal-forms", "examples/order.uir", "--rules", "tinygrad:symbolic", "--samples", "0"],
], ids=lambda a: " ".join(a[:2]) + (" tinygrad" if "tinygrad:symbolic" in a else ""))
def test_every_json_names_the_flag_that_stopped_it(tmp_path, argv):
  out = tmp_path / "out.json"
  r = uopc(*argv, "--max-states", "3", "--format", "json", "-o", out)
  data = json.loads(out.read_text())
  assert r.returncode == 3 and data["complete"] is False and data["stopped_by"] == "--max-states 3", r.stderr


# ---- the report's own cut, in process

def _space():
  g = UOp.param(0) + 0
  for k in range(1, 10): g = g + (UOp.param(k) + 0)   # 2^10 states unreduced: fewer than the 1,024 a check once came every
  ex = explore(g, PatternMatcher([(UPat.var("x") + 0, lambda x: x)]), max_states=5000, reduce=False)
  ex.run()
  return g, ex


def test_the_report_is_cut_between_two_items_once_the_bound_is_due(monkeypatch):
  from uopc.cli.budget import REPORT_TIME, Budget
  from uopc.cli.reports import cut, exploration
  g, ex = _space()
  calls = [0]
  real_id = exploration.NodeTable.id

  def id_then_bound(self, u):   # the bound falls while the report is built, and its report's second is over
    calls[0] += 1
    if calls[0] == 60:
      b.hit("interrupted")
      b.hit_at -= REPORT_TIME + 1
      time.sleep(2 * cut.CHECK_EVERY)
    return real_id(self, u)
  monkeypatch.setattr(exploration.NodeTable, "id", id_then_bound)
  with Budget(timeout=None, max_memory=None) as b:
    data = exploration.to_json(ex, g, "zero", None, None)
  assert 0 < len(data["states"]) < 40 and data["edges"] == [] and len(ex.states) == 1024
  assert data["complete"] is False and data["report"]["stopped_by"] == "an interrupt (SIGINT)" == data["stopped_by"]


def test_the_report_plans_its_memory_and_leaves_out_what_would_not_fit(monkeypatch):
  from uopc.cli.budget import Budget
  from uopc.cli.reports import cut
  from uopc.cli.reports.exploration import json_text, to_json
  monkeypatch.setattr(cut, "CHECK_EVERY", 0.0)   # the budget asked before every item: however fast the report is built
  g, ex = _space()
  full = to_json(ex, g, "zero", None, None)
  text = len(json_text(full))
  with Budget(timeout=None, max_memory=1 << 40) as b:
    b.max_memory = int((b.memory() + text) / cut.HEADROOM)   # room for the text once, not for the copies its write holds
    data = to_json(ex, g, "zero", None, None)
    assert b.reason == "max_memory" and b.report_cut and b.hit_at == float("inf")   # not hit: nothing to stop, the output to write
  assert len(data["states"]) + len(data["edges"]) < len(full["states"]) + len(full["edges"])
  assert data["complete"] is False and data["report"]["stopped_by"] == f"--max-memory {b.flag_text('max_memory')[13:]}"
  assert data["normal_forms"] == full["normal_forms"]   # what the search established is still said
  assert json.loads(json_text(data))["report"]["complete"] is False


def test_a_canonical_result_cut_by_the_bound_names_it_and_marks_the_output_incomplete():
  import argparse
  from uopc import Ops
  from uopc.cli.budget import Budget, shielded
  from uopc.cli.explore_support import canonical_for
  from uopc.cli.support import NamedRules

  def spin(x):
    while True: pass
  pm = PatternMatcher([(UPat(Ops.ADD, src=(UPat.var("x"), UPat(Ops.CONST, arg=0))), spin)])
  args = argparse.Namespace(rules=NamedRules("spin", pm), max_steps=None)
  with Budget(timeout=0.2, max_memory=None) as b, shielded():   # the bound falls while the canonical engine runs
    canon, error = canonical_for(UOp.param(0) + 0, args)
  assert canon is None and error == "not computed: stopped by --timeout 0.2 s" and b.report_cut


def test_a_drawing_and_a_text_report_are_cut_too_and_say_so():
  import io
  from uopc.cli.budget import REPORT_TIME, Budget
  from uopc.cli.reports.exploration import normal_forms_text, summary_lines, to_dot
  from uopc.relational import NormalForms
  g, ex = _space()
  with Budget(timeout=None, max_memory=None) as b:
    b.hit("interrupted")
    b.hit_at -= REPORT_TIME + 1   # the report's second is over before it begins
    source = to_dot(ex, None, "zero").source
    out = io.StringIO()
    normal_forms_text(NormalForms(ex, None, "not computed"), g, "zero", out)
    lines = summary_lines(ex, None, "not computed", "zero")
  assert "incomplete drawing: stopped by an interrupt (SIGINT) (0 states and 0 steps drawn)" in source and "->" not in source
  assert "[1-1] not listed: the report was stopped by an interrupt (SIGINT)" in out.getvalue()
  assert "  (1 more not listed: the report was stopped by an interrupt (SIGINT))" in lines


def test_saturate_names_its_bounds_with_their_values():
  from uopc.cli.commands.saturate import _unknown_why
  r = uopc("saturate", "examples/saturation.uir", "--rules", "examples/saturation_rules.py:rules", "--max-iterations", "1", "--timeout", "600")
  assert r.returncode == 3 and "saturation: stopped by --max-iterations 1 after 1 iteration;" in r.stdout, r.stderr
  import argparse
  assert _unknown_why(0, "timeout", argparse.Namespace(timeout=2)) == "not searched: stopped by --timeout 2 s"   # not "the first 0 graphs"


def test_search_all_as_json_keeps_the_matches_its_report_had_time_for(capsys, monkeypatch):
  from uopc.cli import main as cli
  from uopc.cli.budget import current
  from uopc.cli.reports import cut
  code = cli.main(["explore", "search", "examples/equal_a.uir", "--target", "add(?x, ?y)", "--all", "--format", "json"])
  full = json.loads(capsys.readouterr().out)
  def due():   # the report's time is over as it begins: what budget.report_cut records and says then
    b = current()
    b.cut = b.report_cut = True
    return "timeout"
  monkeypatch.setattr(cut, "report_cut", due)
  code = cli.main(["explore", "search", "examples/equal_a.uir", "--target", "add(?x, ?y)", "--all", "--format", "json"])
  data = json.loads(capsys.readouterr().out)
  assert len(full["matches"]) > 1 and full["complete"] is True
  assert code == 3 and data["matches"] == [] and data["complete"] is False and data["report"]["matches"] == 0


def test_an_interrupt_while_uopc_imports_waits_for_the_budget_and_gets_the_output(files):
  """The console script's worker keeps SIGINT blocked until the command's budget takes it (uopc_launch): a signal sent
  while uopc imports is then an interrupt in the start-up, with the output marked incomplete, not 0 bytes."""
  code = ("import os, signal, sys\n"
          "signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})   # as uopc_launch's worker starts\n"
          "os.kill(os.getpid(), signal.SIGINT)   # sent before uopc is imported: pending\n"
          "from uopc.cli.main import main\n"
          f"sys.exit(main(['explore', 'normal-forms', {str(files / 'prog.uir')!r}, '--format', 'json']))\n")
  r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=HANG)
  data = json.loads(r.stdout)
  assert r.returncode == 130 and data["complete"] is False and data["stopped_by"] == "an interrupt (SIGINT)", r.stderr
  assert data["states"] == [] and "output included" in r.stderr


@pytest.mark.parametrize("rules", ["tinygrad:symbolic", "pytensor:canonicalize"])
def test_saturate_refuses_another_ir_s_rules_in_one_line(rules):
  r = uopc("saturate", "examples/order.uir", "--rules", rules, "--timeout", "600")
  assert r.returncode == 2 and r.stderr.startswith(f"uopc: saturate: --rules {rules} is a ") and r.stderr.count("\n") == 1, r.stderr


def test_one_graph_of_a_report_cannot_outlast_its_cut():
  from uopc.cli.reports.cut import CutShort, ItemCut, until_cut
  from uopc.cli.reports.exploration import CUT_NODES, NodeTable
  g = UOp.param(0)
  for k in range(3 * CUT_NODES): g = g + k   # one graph, a chain of 12,289 distinct nodes
  table = NodeTable()
  table.cut = lambda: True   # the report's cut came while the graph was added
  with pytest.raises(CutShort): table.id(g)
  assert len(table.rows) == CUT_NODES and all(isinstance(r, str) or max(i for i in r if isinstance(i, int)) < len(table.rows)
                                                  for r in table.rows[1:])   # the rows kept are whole, sources first
  cut = ItemCut()
  table.cut = lambda: True
  assert until_cut(({"graph": table.id(g)} for _ in range(3)), cut) == []   # that item left out, the report goes on


def test_run_writes_no_text_where_its_value_would_be(files):
  r = uopc("run", f"{files / 'hang.py'}:z", "--timeout", "1")   # the program never finishes loading
  assert r.returncode == 3 and r.stdout == "" and "nothing written" in r.stderr, r.stderr
