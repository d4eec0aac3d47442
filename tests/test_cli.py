"""The uopc command line: run, simplify, trace; exit codes and one-line errors."""
import pathlib
import subprocess
import sys

import pytest

from uopc.cli import main

ROOT = pathlib.Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"


def uopc(capsys, *argv):
  code = main([str(a) for a in argv])
  out, err = capsys.readouterr()
  return code, out, err


def write(tmp_path, text, name="prog.uir"):
  path = tmp_path / name
  path.write_bytes(text.encode() if isinstance(text, str) else text)
  return path


def test_run_prints_the_value_as_a_python_literal(capsys):
  assert uopc(capsys, "run", EXAMPLES / "vector.uir") == (0, "[11, 42, 93]\n", "")


def test_run_binds_params(capsys, tmp_path):
  assert uopc(capsys, "run", EXAMPLES / "affine.uir", "--param", "0=5") == (0, "26\n", "")
  prog = write(tmp_path, "%0 = param : slot=0 dtype=f32 shape=(2,)\n%1 = mul %0, 2\n")
  assert uopc(capsys, "run", prog, "--param", "0=[1.5, -0.0]") == (0, "[3.0, -0.0]\n", "")
  assert uopc(capsys, "run", prog, "--param", "0=[inf, 1]")[1] == "[inf, 2.0]\n"


def test_run_values_keep_their_type(capsys, tmp_path):
  assert uopc(capsys, "run", write(tmp_path, "%0 = cmplt 1, 2\n"))[1] == "True\n"
  assert uopc(capsys, "run", write(tmp_path, "%0 = const nan\n"))[1] == "nan\n"


@pytest.mark.parametrize("argv, code, message", [
  (["run", "affine.uir"], 2, "affine.uir: PARAM slot 0 (i32) is not bound: pass --param 0=VALUE"),
  (["run", "affine.uir", "--param", "0=5", "--param", "3=1"], 2, "affine.uir: the program has no PARAM slot 3"),
  (["run", "affine.uir", "--param", "0=1.5"], 2, "affine.uir: --param: expected an i32, got 1.5"),
  (["run", "missing.uir"], 2, "missing.uir: cannot read: No such file or directory"),
])
def test_bad_runs_exit_with_one_line(capsys, monkeypatch, argv, code, message):
  monkeypatch.chdir(EXAMPLES)
  got_code, out, err = uopc(capsys, *argv)
  assert (got_code, out, err) == (code, "", message + "\n")


@pytest.mark.parametrize("text, code, message", [
  ("%0 = stack 1, 2, 3\n%1 = index %0, 5\n", 1, "prog.uir: IndexError: index 5 out of bounds for STACK of 3"),
  ("%0 = floordiv 1, 0\n", 1, "prog.uir: ValueError: program did not evaluate to a value, stuck at Ops.FLOORDIV"),
  ("%0 = frob 1\n", 2, "prog.uir:1:6: unknown op 'frob'"),
  ("", 2, "prog.uir:1:1: expected at least one node"),
  (b"\x00\xff\xfe garbage", 2, "prog.uir:1:"),
  ("%0 = add %1, 2\n", 2, "prog.uir:1:10: undefined %1"),
  ("%0 = stack 1, 2\n%1 = stack 1, 2, 3\n%2 = add %0, %1\n", 2, "prog.uir:3:6: ADD: mismatched shapes (2,), (3,)"),
])
def test_program_failures_and_bad_input(capsys, monkeypatch, tmp_path, text, code, message):
  monkeypatch.chdir(tmp_path)
  write(tmp_path, text)
  got_code, out, err = uopc(capsys, "run", "prog.uir")
  assert got_code == code and out == ""
  assert err.startswith(message) and err.count("\n") == 1, err


def test_simplify_prints_uir(capsys):
  assert uopc(capsys, "simplify", EXAMPLES / "affine.uir") == (
    0, "%0 = param : slot=0 dtype=i32\n%1 = mul %0, 3\n%2 = add %1, 11\n", "")


def test_simplify_with_another_rule_set_and_a_bad_one(capsys):
  code, out, _ = uopc(capsys, "simplify", EXAMPLES / "vector.uir", "--rules", "symbolic+evaluate")
  assert (code, out) == (0, "%0 = stack 11, 42, 93\n")
  with pytest.raises(SystemExit) as e:
    main(["simplify", str(EXAMPLES / "affine.uir"), "--rules", "nope"])
  assert e.value.code == 2 and "unknown rule set 'nope'" in capsys.readouterr().err


def test_simplify_reports_a_looping_rule_set(capsys, tmp_path, monkeypatch):
  (tmp_path / "loopy_rules.py").write_text(
    "from uopc import Ops, PatternMatcher, UOp, UPat\n"
    "swap = PatternMatcher([(UPat(Ops.ADD, src=(UPat.var('x'), UPat.var('y'))), lambda x, y: UOp(Ops.ADD, (y, x)))])\n")
  monkeypatch.syspath_prepend(str(tmp_path))
  code, out, err = uopc(capsys, "simplify", EXAMPLES / "affine.uir", "--rules", "loopy_rules:swap", "--max-steps", "10000")
  assert code == 1 and err.endswith("RewriteLoopError: graph_rewrite did not converge: a cycle of 2 rewrites: "
                                    "loopy_rules.py:2 x + y @ add(p0, 2) -> loopy_rules.py:2 x + y @ add(2, p0)\n")


def test_trace_prints_the_chapter_trace_with_rule_names(capsys):
  code, out, _ = uopc(capsys, "trace", EXAMPLES / "affine.uir")
  lines = out.splitlines()
  assert code == 0 and lines[0] == "program: add(mul(add(p0, 2), 3), add(1, 4))"
  assert lines[-1] == "result: add(mul(p0, 3), 11)" and len(lines) == 17
  assert lines[5].startswith("  visit mul(add(p0, 2), 3)           -> add(mul(p0, 3), 6)   [symbolic.py:")


def test_trace_stats_counts_tries_matches_fires(capsys):
  code, out, _ = uopc(capsys, "trace", "--stats", EXAMPLES / "affine.uir")
  rows = {line.split(maxsplit=4)[4]: tuple(map(int, line.split()[:3])) for line in out.splitlines()[3:]}
  fold_row = next(v for k, v in rows.items() if k.endswith("-> _fold"))
  assert fold_row == (7, 7, 1)   # 7 ALU visits, the pattern matches each, one folds (1 + 4)
  assert sum(v[2] for v in rows.values()) == 3


def test_console_script_never_prints_a_traceback(tmp_path):
  bad = write(tmp_path, "%0 = add 1, 2.0\n")
  proc = subprocess.run([sys.executable, "-m", "uopc", "run", str(bad)], capture_output=True, text=True)
  assert proc.returncode == 2 and "Traceback" not in proc.stderr and proc.stderr.count("\n") == 1


def test_trace_stats_prints_its_table_when_the_rewrite_loops(capsys, tmp_path):
  (tmp_path / "loop.py").write_text("from uopc import PatternMatcher, UPat\nx = UPat.var('x')\n"
                                    "rules = PatternMatcher([(x * 2, lambda x: x + x), (x + x, lambda x: x * 2)])\n")
  (tmp_path / "loop.uir").write_text("%0 = param : slot=0 dtype=i32\n%1 = mul %0, 2\n")
  code, out, err = uopc(capsys, "trace", "--stats", tmp_path / "loop.uir", "--rules", f"{tmp_path / 'loop.py'}:rules",
                        "--max-steps", "1000")
  lines = out.splitlines()
  assert code == 1 and lines[1].split() == ["tries", "matches", "fires", "time", "ms", "rule"]
  assert sorted((line.split()[2], line.split(None, 4)[4]) for line in lines[2:]) == [("499", "loop.py:3 x * 2"), ("499", "loop.py:3 x + x")]
  assert "a cycle of 2 rewrites: loop.py:3 x * 2 @ mul(p0, 2) -> loop.py:3 x + x @ add(p0, p0)" in err
