"""``uopc explore pairs``: text and JSON output, exit codes, bad input; and its documented runs in docs/confluence.md."""
import json
import pathlib
import re
import shlex

import pytest

from uopc.cli import main

ROOT = pathlib.Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "confluence.md"
MY_RULES = "examples/my_rules.py:rules"


def uopc(capsys, *argv):
  try: code = main([str(a) for a in argv])
  except SystemExit as e: code = e.code   # argparse rejects bad flags and bad --rules values itself
  out, err = capsys.readouterr()
  return code, out, err


# ---- the documented console blocks: every "$ uopc ..." line is run and its output compared

def console_commands(text: str) -> list[tuple[str, list[str]]]:
  """``(command, expected output lines)`` for every ``$ `` line of every console block."""
  out: list[tuple[str, list[str]]] = []
  for block in re.findall(r"```console\n(.*?)```", text, re.S):
    for line in block.splitlines():
      if line.startswith("$ "): out.append((line[2:], []))
      elif out: out[-1][1].append(line)
  return out


_SITE = re.compile(r"(\w+\.py):\d+")


def _line_pattern(line: str) -> str:
  # rule names carry their definition site: line numbers move when rule files are edited
  return "[^\n]*".join(re.escape(part) for part in _SITE.sub(r"\1:N", line.rstrip()).split("…"))


def assert_documented(expected: list[str], actual: str) -> None:
  """``actual`` has the documented lines; a line ``...`` skips any lines, ``…`` inside a line any text."""
  pattern = "".join("(?:[^\n]*\n)*?" if line.strip() == "..." else _line_pattern(line) + "\n" for line in expected)
  text = "\n".join(_SITE.sub(r"\1:N", line.rstrip()) for line in actual.splitlines()) + "\n"
  if not re.fullmatch(pattern, text):
    want = "\n".join(expected)
    raise AssertionError(f"documented output differs from the real output\n--- documented\n{want}\n--- real\n{actual}")


def run_documented(capsys, monkeypatch, command: str, expected: list[str]) -> None:
  monkeypatch.chdir(ROOT)
  argv = shlex.split(command)
  assert argv[0] == "uopc"
  _, out, _ = uopc(capsys, *argv[1:])
  assert_documented(expected, out)


PAIRS_DOCS = [(c, e) for c, e in console_commands(DOC.read_text()) if c.startswith("uopc explore pairs")]


def test_the_doc_has_pairs_runs():
  assert len(PAIRS_DOCS) >= 3


@pytest.mark.parametrize("command, expected", PAIRS_DOCS, ids=[c for c, _ in PAIRS_DOCS])
def test_documented_pairs_runs(capsys, monkeypatch, command, expected):
  run_documented(capsys, monkeypatch, command, expected)


def test_the_checker_rejects_wrong_output():
  with pytest.raises(AssertionError): assert_documented(["a", "b"], "a\nc\n")
  assert_documented(["a", "...", "z (… s)"], "a\nb\nc\nz (1.5 s)\n")
  assert_documented(["rule x.py:3 y"], "rule x.py:17 y\n")


# ---- output and exit codes

def test_symbolic_text(capsys):
  code, out, err = uopc(capsys, "explore", "pairs")
  assert code == 1 and err == ""
  lines = out.splitlines()
  assert lines[-1].startswith("symbolic: ") and " not joinable, 0 errors, 0 undecided (" in lines[-1]
  block = lines[lines.index(next(l for l in lines if l.startswith("NOT JOINABLE:") and "_fold" in l and l.endswith("x + 0.0  (both at the root)"))):][:6]
  assert [re.sub(r"\S+\.py:\d+ ", "", l) for l in block] == [
    "NOT JOINABLE: x=alu -> _fold  |  x + 0.0  (both at the root)", "  overlap: add(~x, ~_)",
    "  witness: add(-0.0, 0.0)", "  -> 0.0   by x=alu -> _fold", "  -> -0.0  by x + 0.0", "  no common reduct"]


def test_symbolic_json(capsys):
  code, out, _ = uopc(capsys, "explore", "pairs", "symbolic", "--format", "json")
  data = json.loads(out)
  assert code == 1 and data["ruleset"] == "symbolic"
  s = data["summary"]
  assert s["overlaps"] == len(data["pairs"]) and s["errors"] == 0 and s["undecided"] == 0
  assert s["joinable"] + s["not_joinable"] == len(data["pairs"]) and s["line"].startswith("symbolic: ")
  assert {p["status"] for p in data["pairs"]} == {"joinable", "not-joinable"}
  p = next(p for p in data["pairs"] if p["rules"][0].endswith(" x=alu -> _fold") and p["rules"][1].endswith(" x + 0.0"))
  assert (p["status"], p["witness"], p["results"], p["position"]) == ("not-joinable", "add(-0.0, 0.0)", ["0.0", "-0.0"], [])


def test_all_lists_the_joinable_pairs(capsys):
  _, short, _ = uopc(capsys, "explore", "pairs", MY_RULES)
  _, full, _ = uopc(capsys, "explore", "pairs", MY_RULES, "--all")
  assert "joinable pairs not listed" in short and "joinable pairs not listed" not in full
  assert len([l for l in full.splitlines() if l.startswith("joinable: ")]) == 15
  assert "x:i32 * 0  |  my_rules.py:30 (x:i32 + y) * const(c) -> distribute  (both at the root): same normal form" in full


def write_rules(tmp_path, body: str, name: str = "rules_under_test.py") -> str:
  path = tmp_path / name
  path.write_text("from uopc import Ops, PatternMatcher, UOp, UPat, dtypes\nx = UPat.var('x')\n" + body)
  return f"{path}:rules"


def test_exit_0_when_every_pair_joins(capsys, tmp_path):
  spec = write_rules(tmp_path, "rules = PatternMatcher([(UPat.var('x', dtype=dtypes.i32) + 0, lambda x: x), (x * 1, lambda x: x)])\n")
  code, out, _ = uopc(capsys, "explore", "pairs", spec)
  assert code == 0 and " 0 not joinable, 0 errors, 0 undecided " in out


def test_exit_1_when_a_rule_raises(capsys, tmp_path):
  spec = write_rules(tmp_path, "def boom(x, c):\n  raise ValueError('no')\n"
                               "rules = PatternMatcher([(x * 1, lambda x: x), (UPat(Ops.MUL, src=(x, UPat.cvar('c'))), boom)])\n")
  code, out, _ = uopc(capsys, "explore", "pairs", spec)
  assert code == 1 and "ERROR: " in out and "rules_under_test.py:3 x * const(c) -> boom raised ValueError: no" in out


def test_exit_3_when_undecided(capsys, tmp_path):
  spec = write_rules(tmp_path, "rules = PatternMatcher([(UPat(Ops.MUL, src=(x, UPat(Ops.CONST, arg=2)), name='m'), lambda x, m: m * 1),\n"
                               "                       (UPat(Ops.MUL, src=[x, UPat(Ops.CONST, arg=2)]), lambda x: x + x)])\n")
  code, out, _ = uopc(capsys, "explore", "pairs", spec, "--max-states", "30", "--max-steps", "200", "--max-instances", "4")
  assert code == 3 and "UNDECIDED: " in out and "no common reduct found before the max_states bound" in out


def test_module_attr_and_sums_are_accepted(capsys):
  code, out, _ = uopc(capsys, "explore", "pairs", "uopc.symbolic:fold")
  assert code == 0 and out.splitlines()[-1].startswith("uopc.symbolic:fold: 1 rules, 1 overlaps")


@pytest.mark.parametrize("spec, message", [
  ("nonesuch", "unknown rule set 'nonesuch'"),
  ("examples/missing.py:rules", "no file examples/missing.py"),
  ("examples/my_rules.py:nothing", "examples/my_rules.py has no attribute 'nothing'"),
  ("examples/my_rules.py:fold", "is a function, not a PatternMatcher"),
])
def test_bad_rule_sets_exit_2(capsys, monkeypatch, spec, message):
  monkeypatch.chdir(ROOT)
  code, out, err = uopc(capsys, "explore", "pairs", spec)
  assert code == 2 and out == "" and message in err and "Traceback" not in err
