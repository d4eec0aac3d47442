"""The uopc command line: run, simplify, trace; exit codes and one-line errors."""
import argparse
import pathlib
import subprocess
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from uopc.cli.main import main

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
  (["run", "affine.uir", "--param", "0=1.5"], 2, "affine.uir: --param 0: expected an i32 literal, got 1.5"),
  (["run", "missing.uir"], 2, "missing.uir: cannot read: No such file or directory"),
])
def test_bad_runs_exit_with_one_line(capsys, monkeypatch, argv, code, message):
  monkeypatch.chdir(EXAMPLES)
  got_code, out, err = uopc(capsys, *argv)
  assert (got_code, out, err) == (code, "", message + "\n")


@pytest.mark.parametrize("text, code, message", [
  ("%0 = stack 1, 2, 3\n%1 = index %0, 5\n", 1, "prog.uir: IndexError: index 5 out of bounds for STACK of 3"),   # the chapter's
  ("%0 = floordiv 1, 0\n", 1, "prog.uir: runtime error: division by zero: 1 // 0"),
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
  code, out, err = uopc(capsys, "simplify", EXAMPLES / "affine.uir", "--rules", "nope")
  assert (code, out) == (2, "") and err.startswith("uopc: --rules: unknown rule set 'nope'") and err.count("\n") == 1


def test_simplify_reports_a_looping_rule_set(capsys, tmp_path, monkeypatch):
  (tmp_path / "loopy_rules.py").write_text(
    "from uopc import Ops, PatternMatcher, UOp, UPat\n"
    "swap = PatternMatcher([(UPat(Ops.ADD, src=(UPat.var('x'), UPat.var('y'))), lambda x, y: UOp(Ops.ADD, (y, x)))])\n")
  monkeypatch.syspath_prepend(str(tmp_path))
  code, out, err = uopc(capsys, "simplify", EXAMPLES / "affine.uir", "--rules", "loopy_rules:swap", "--max-steps", "10000")
  assert code == 1 and err.endswith("RewriteLoopError: graph_rewrite did not converge: a cycle of 2 rewrites: "
                                    "loopy_rules#0 x + y @ add(p0, 2) -> loopy_rules#0 x + y @ add(2, p0)\n")


def test_trace_prints_the_chapter_trace_with_rule_names(capsys):
  code, out, _ = uopc(capsys, "trace", EXAMPLES / "affine.uir")
  lines = out.splitlines()
  assert code == 0 and lines[0] == "program: add(mul(add(p0, 2), 3), add(1, 4))"
  assert lines[-1] == "result: add(mul(p0, 3), 11)" and len(lines) == 17
  assert lines[5].startswith("  visit mul(add(p0, 2), 3)           -> add(mul(p0, 3), 6)   [distribute-const]")


def test_trace_and_explore_print_names_with_escapes_not_raw(capsys, tmp_path):
  # the JSON string "\u001b[2J" is ESC [2J, clear screen
  prog = write(tmp_path, '%0 = param : slot=0 dtype=i32\n%1 = add %0, 1\n%2 = call %1, 2 : name="\\u001b[2J\\u0007"\n')
  for argv in (["trace", prog], ["explore", "normal-forms", prog]):
    code, out, _ = uopc(capsys, *argv)
    assert code == 0 and "\x1b" not in out and "\x07" not in out
    assert "program: \\x1b[2J\\x07[add(p0, 1)](2)" in out


def test_a_lone_surrogate_is_bad_input_for_every_command(capsys, tmp_path):
  prog = write(tmp_path, '%0 = param : slot=0 dtype=i32\n%1 = call %0, 1 : name="a\\ud800"\n')
  out_c = tmp_path / "f.c"
  for argv in (["trace", prog], ["explore", "normal-forms", prog], ["emit-c", prog, "-o", out_c], ["run", "--backend", "c", prog]):
    assert uopc(capsys, *argv) == (2, "", f"{prog}:2:24: bad string: lone surrogate U+D800 is not a character\n")
  assert not out_c.exists()


def test_a_slot_with_two_types_is_bad_input_for_both_backends(capsys, tmp_path):
  prog = write(tmp_path, "%0 = param : slot=0 dtype=i32\n%1 = param : slot=0 dtype=f32\n%2 = cast %1 : dtype=i32\n%3 = add %0, %2\n")
  message = f"{prog}:2:6: PARAM slot 0 is f32 here but i32 on line 1: a slot has one type in a program, as in a CALL's body\n"
  for argv in (["run", prog, "--param", "0=1"], ["run", "--backend", "c", prog, "--param", "0=1"], ["emit-c", prog]):
    assert uopc(capsys, *argv) == (2, "", message)


def test_python_and_c_name_a_needed_trap_alike(capsys, tmp_path):
  for text, message in [("%0 = param : slot=0 dtype=i32\n%1 = floordiv 5, %0\n", "division by zero: 5 // 0"),
                        ("%0 = param : slot=0 dtype=i32\n%1 = floormod 5, %0\n", "modulo by zero: 5 % 0"),
                        ("%0 = param : slot=0 dtype=f32\n%1 = cast %0 : dtype=i32\n", "cast of 0.0 to i32 is undefined")]:
    prog = write(tmp_path, text)
    value = "nan" if "cast" in text else "0"
    expected = (1, "", f"{prog}: runtime error: {message.replace('0.0', 'nan')}\n")
    assert uopc(capsys, "run", prog, "--param", f"0={value}") == expected
    assert uopc(capsys, "run", "--backend", "c", prog, "--param", f"0={value}") == expected
  # an index out of bounds: the chapter's IndexError for run, the C program's message for --backend c
  prog = write(tmp_path, "%0 = param : slot=0 dtype=i32\n%1 = stack 1, 2, 3\n%2 = index %1, %0\n")
  assert uopc(capsys, "run", prog, "--param", "0=-1") == (1, "", f"{prog}: IndexError: index -1 out of bounds for STACK of 3\n")
  assert uopc(capsys, "run", "--backend", "c", prog, "--param", "0=-1") == \
    (1, "", f"{prog}: runtime error: index -1 out of bounds for axis 0 of size 3\n")
  # dead, it is a value for both (one rule for every undefined operation: an error only where its value is needed)
  dead = write(tmp_path, "%0 = param : slot=0 dtype=i32\n%1 = stack 1, 2, 3\n%2 = index %1, %0\n%3 = floordiv 7, %0\n"
                         "%4 = mul %2, 0\n%5 = mul %3, 0\n%6 = add %4, %5\n")
  assert uopc(capsys, "run", dead, "--param", "0=9") == uopc(capsys, "run", "--backend", "c", dead, "--param", "0=9") == (0, "0\n", "")


def test_trace_stats_counts_tries_matches_fires(capsys):
  code, out, _ = uopc(capsys, "trace", "--stats", EXAMPLES / "affine.uir")
  rows = {line.split(maxsplit=5)[5]: tuple(map(int, line.split()[:3])) for line in out.splitlines()[3:]}
  fold_row = next(v for k, v in rows.items() if k.startswith("fold-const"))
  assert fold_row == (7, 7, 1)   # 7 ALU visits, the pattern matches each, one folds (1 + 4)
  assert sum(v[2] for v in rows.values()) == 3


def test_console_script_never_prints_a_traceback(tmp_path):
  bad = write(tmp_path, "%0 = add 1, 2.0\n")
  proc = subprocess.run([sys.executable, "-m", "uopc", "run", str(bad)], capture_output=True, text=True)
  assert proc.returncode == 2 and "Traceback" not in proc.stderr and proc.stderr.count("\n") == 1


# ---- the failure contract (docs/failure-contract.md): flags, --param literals, rules files

@pytest.mark.parametrize("dtype, value, out", [
  ("i32", "2147483647", "2147483647"), ("i32", "-0000000000001", "-1"), ("i32", "0000000000001", "1"),
  ("f32", "3", "3.0"), ("f32", "-inf", "-inf"), ("bool", "True", "True"),
])
def test_param_accepts_what_uir_literals_accept(capsys, tmp_path, dtype, value, out):
  prog = write(tmp_path, f"%0 = param : slot=0 dtype={dtype}\n")
  assert uopc(capsys, "run", prog, "--param", f"0={value}") == (0, out + "\n", "")


@pytest.mark.parametrize("dtype, value, message", [
  ("i32", "2147483648", "integer literal 2147483648 is out of the i32 range"),
  ("f32", "9" * 400, "integer literal " + "9" * 40 + "... is out of the i32 range"),
  ("bool", "2", "--param 0: expected a bool literal, got 2"),
  ("bool", "0.5", "--param 0: expected a bool literal, got 0.5"),
  ("bool", "nan", "--param 0: expected a bool literal, got nan"),
  ("i32", "True", "--param 0: expected an i32 literal, got True"),
  ("i32", "[1, 2]", "--param: expected a scalar i32, got a list"),
  ("i32", "[" * 100 + "1" + "]" * 100, "lists nested more than 32 deep"),
  ("i32", "1 2", "unexpected '2'"),
])
def test_param_rejects_what_uir_literals_reject(capsys, tmp_path, dtype, value, message):
  prog = write(tmp_path, f"%0 = param : slot=0 dtype={dtype}\n")
  try: code = main(["run", str(prog), "--param", f"0={value}"])
  except SystemExit as e: code = e.code   # rejected by argparse, as a bad flag
  out, err = capsys.readouterr()
  assert (code, out) == (2, "") and message in err and err.count("\n") <= 2, err


@pytest.mark.parametrize("flag", ["10,000", "10_000", "10000"])
def test_integer_flags_take_the_default_as_help_prints_it(capsys, flag):
  assert uopc(capsys, "simplify", EXAMPLES / "affine.uir", "--max-steps", flag)[0] == 0
  assert uopc(capsys, "explore", "reachable", EXAMPLES / "affine.uir", "--max-states", flag)[0] == 0


@pytest.mark.parametrize("flag", ["-5", "0", "1,00,", "1e3", "ten"])
def test_a_bad_max_steps_is_a_bad_flag(capsys, flag):
  with pytest.raises(SystemExit) as e: main(["simplify", str(EXAMPLES / "affine.uir"), "--max-steps", flag])
  assert e.value.code == 2 and "--max-steps" in capsys.readouterr().err


def test_version_comes_from_the_package_metadata(capsys):
  import importlib.metadata
  with pytest.raises(SystemExit) as e: main(["--version"])
  assert e.value.code == 0 and capsys.readouterr().out == f"uopc {importlib.metadata.version('uopc')}\n"


def test_every_help_says_what_the_exit_codes_mean(capsys):
  for argv in (["--help"], ["run", "--help"], ["explore", "pairs", "--help"], ["check-rules", "--help"]):
    with pytest.raises(SystemExit): main(argv)
    out = " ".join(capsys.readouterr().out.split())
    assert "1 the program failed, or the command found something" in out and "docs/failure-contract.md" in out, argv


RULES_HEAD = "from uopc import PatternMatcher, UPat, UOp\nx = UPat.var('x')\n"


@pytest.mark.parametrize("body, message", [
  ("import sys\nsys.exit(7)\n", "rules.py:4: bad rules file: loading it exited (sys.exit(7))"),
  ("rules = undefined_name\n", "rules.py:3: bad rules file: loading it raised NameError: name 'undefined_name' is not defined"),
  ("def f(:\n", "rules.py:3: bad rules file: loading it raised SyntaxError"),
  ("rules = 3\n", "rules.py:rules is an int, not a uopc PatternMatcher"),
  ("def f(y): return y\nrules = PatternMatcher([(x + 0, f)])\n",   # the rule writer's commonest slip: a TypeError at the call
   "rules.py:4: rule rules#0 x + 0 (rules.py:3): the pattern binds x, but its function takes (y) (a rule's function gets "
   "the pattern's names as keyword arguments)"),
  ("def f(x): return x\ndef g(x): return x\nrules = PatternMatcher([(x + 0, f, 'add-0'), (x * 1, g, 'add-0')])\n",   # names are unique
   "rules.py:5: rule set rules: two rules named add-0: add-0 (rules.py:3) and add-0 (rules.py:4)"),
])
def test_a_bad_rules_file_is_exit_2_naming_the_file(capsys, monkeypatch, tmp_path, body, message):
  monkeypatch.chdir(tmp_path)
  (tmp_path / "rules.py").write_text(RULES_HEAD + body)
  for argv in (["simplify", "p.uir"], ["trace", "p.uir"], ["explore", "normal-forms", "p.uir"], ["explore", "pairs"]):
    write(tmp_path, "%0 = param : slot=0 dtype=i32\n%1 = add %0, 0\n", "p.uir")
    code, out, err = uopc(capsys, *argv, *(["rules.py:rules"] if argv[1:] == ["pairs"] else ["--rules", "rules.py:rules"]))
    assert (code, out) == (2, "") and err.startswith(f"uopc: --rules: {message}") and err.count("\n") == 1, (argv, err)


def test_a_sum_of_rule_sets_with_a_rule_twice_is_exit_2_naming_it(capsys, monkeypatch, tmp_path):
  monkeypatch.chdir(tmp_path)
  write(tmp_path, "%0 = param : slot=0 dtype=i32\n%1 = add %0, 0\n", "p.uir")
  code, out, err = uopc(capsys, "simplify", "p.uir", "--rules", "symbolic+fold")   # symbolic holds fold's rule
  assert (code, out) == (2, "") and err.count("\n") == 1
  assert err.startswith("uopc: --rules: rule set symbolic+fold: two rules named fold-const: fold-const (symbolic.py:")
  assert err.endswith(" (the same rule, listed twice)\n")


def test_a_rules_file_is_not_run_by_help_or_a_bad_flag(capsys, tmp_path):
  rules = tmp_path / "rules.py"
  rules.write_text(f"open({str(tmp_path / 'ran')!r}, 'w').close()\n" + RULES_HEAD + "rules = PatternMatcher([])\n")
  for extra in (["--help"], ["--max-steps", "-1"]):
    with pytest.raises(SystemExit): main(["simplify", str(EXAMPLES / "affine.uir"), "--rules", f"{rules}:rules", *extra])
  assert not (tmp_path / "ran").exists()
  assert uopc(capsys, "simplify", EXAMPLES / "affine.uir", "--rules", f"{rules}:rules")[0] == 0
  assert (tmp_path / "ran").exists()


def test_rule_set_sums_take_files(capsys, tmp_path):
  (tmp_path / "mine.py").write_text(RULES_HEAD + "rules = PatternMatcher([(x * 3, lambda x: x * 4)])\n")   # three is four
  code, out, _ = uopc(capsys, "simplify", EXAMPLES / "affine.uir", "--rules", f"symbolic+{tmp_path / 'mine.py'}:rules")
  assert code == 0 and out.splitlines()[1:] == ["%1 = mul %0, 4", "%2 = add %1, 11"]


BAD_RULES = RULES_HEAD + """def add_zero(x): return undefined_name + x
raises = PatternMatcher([(x + 0, add_zero)])
returns_int = PatternMatcher([(x + 0, lambda x: 5)])
wrong_dtype = PatternMatcher([(x + 0, lambda x: UOp.const(1.0))])
"""


@pytest.mark.parametrize("name, message", [
  ("raises", "uopc: rule bad_rules#0 x + 0 (bad_rules.py:3) raised NameError: name 'undefined_name' is not defined"),
  ("returns_int", "uopc: rule bad_rules#0 x + 0 (bad_rules.py:5) returned int 5, not a UOp"),
  ("wrong_dtype", "uopc: rule bad_rules#0 x + 0 (bad_rules.py:6) changed ADD i32[] into CONST f32[]"),
])
def test_a_bad_rule_is_exit_2_naming_the_rule_its_location_and_what_it_did(capsys, monkeypatch, tmp_path, name, message):
  monkeypatch.chdir(tmp_path)
  (tmp_path / "bad_rules.py").write_text(BAD_RULES)
  write(tmp_path, "%0 = param : slot=0 dtype=i32\n%1 = add %0, 0\n%2 = mul %1, 3\n")
  for extra in ([], ["--stats"]):
    code, _, err = uopc(capsys, "trace", "prog.uir", "--rules", f"bad_rules.py:{name}", *extra)
    assert (code, err) == (2, message + "\n")
  assert uopc(capsys, "simplify", "prog.uir", "--rules", f"bad_rules.py:{name}") == (2, "", message + "\n")


def test_a_value_too_large_for_the_interpreter_is_a_program_failure(capsys, tmp_path):
  prog = write(tmp_path, "%0 = const 1\n%1 = reshape %0, (1, 1)\n%2 = expand %1, (100000, 100000)\n")
  code, out, err = uopc(capsys, "run", prog)
  assert (code, out) == (1, "") and "makes 10,000,000,000 elements, more than the interpreter materializes" in err


@given(st.text(max_size=40))
def test_param_arg_never_fails_but_as_a_bad_flag(text):
  from uopc.cli.support import param_arg
  try: param_arg("0=" + text)
  except argparse.ArgumentTypeError: pass


@given(st.integers(-2**31, 2**31 - 1), st.integers(0, 12))
def test_param_ints_are_read_as_uir_reads_them(v, zeros):
  from uopc.cli.support import ParamLiteral, param_arg
  from uopc.dtype import dtypes
  text = ("-" if v < 0 else "") + "0" * zeros + str(abs(v))
  assert param_arg(f"3={text}") == (3, ParamLiteral(v, dtypes.i32, text))
def test_trace_stats_prints_its_table_when_the_rewrite_loops(capsys, tmp_path):
  (tmp_path / "loop.py").write_text("from uopc import PatternMatcher, UPat\nx = UPat.var('x')\n"
                                    "rules = PatternMatcher([(x * 2, lambda x: x + x), (x + x, lambda x: x * 2)])\n")
  (tmp_path / "loop.uir").write_text("%0 = param : slot=0 dtype=i32\n%1 = mul %0, 2\n")
  code, out, err = uopc(capsys, "trace", "--stats", tmp_path / "loop.uir", "--rules", f"{tmp_path / 'loop.py'}:rules",
                        "--max-steps", "1000")
  lines = out.splitlines()
  assert code == 1 and lines[1].split() == ["tries", "matches", "fires", "time", "ms", "where", "rule"]
  assert sorted((line.split()[2], line.split(None, 5)[5]) for line in lines[2:]) == [("499", "loop#0 x * 2"), ("499", "loop#1 x + x")]
  assert "a cycle of 2 rewrites: loop#0 x * 2 @ mul(p0, 2) -> loop#1 x + x @ add(p0, p0)" in err


def test_a_tick_as_the_budget_ends_keeps_the_exit_code_and_puts_the_budget_away(capsys, monkeypatch):
  """A bound's tick may raise before the budget's ``__exit__`` runs its first line: the command
  had finished, so its exit code stands, and the handlers and the timer are put away all the same."""
  import signal
  from uopc.cli import budget
  def ticked(self, *exc):
    self.hit("timeout")
    self._on_tick(signal.SIGALRM, None)   # raises BoundHit, as such a tick does
  monkeypatch.setattr(budget.Budget, "__exit__", ticked)
  before = signal.getsignal(signal.SIGINT)
  assert main(["run", str(EXAMPLES / "affine.uir"), "--param", "0=5", "--timeout", "60"]) == 0
  assert capsys.readouterr().out == "26\n"
  assert budget.current() is None and signal.getsignal(signal.SIGINT) is before and signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)


@pytest.mark.parametrize("argv,message", [
  (["simplfy", "prog.uir"], "uopc: unknown command 'simplfy' (did you mean 'simplify'?)"),
  (["explore", "normal-form", "prog.uir"], "uopc explore: unknown command 'normal-form' (did you mean 'normal-forms'?)"),
  (["check-rule"], "uopc: unknown command 'check-rule' (did you mean 'check-rules'?)"),
  (["zzz"], "uopc: unknown command 'zzz' (see uopc --help)"),
])
def test_a_mistyped_command_is_one_line_with_a_suggestion(capsys, argv, message):
  with pytest.raises(SystemExit) as e: main(argv)
  assert e.value.code == 2 and capsys.readouterr().err == message + "\n"


def test_a_rules_file_whose_rules_are_a_list_is_one_line_exit_2(capsys, tmp_path, monkeypatch):
  write(tmp_path, "from uopc.symbolic import symbolic\nrules = list(symbolic.rules)\n", "mine.py")
  monkeypatch.chdir(tmp_path)
  code, _, err = uopc(capsys, "simplify", EXAMPLES / "affine.uir", "--rules", "mine.py:rules")
  assert code == 2 and err == ("uopc: --rules: mine.py:rules is a list, not a uopc PatternMatcher "
                               "(PatternMatcher([...]) makes one from a list of rules)\n")


def test_a_command_whose_report_a_bound_cut_exits_3_even_when_its_work_was_done(capsys):
  from uopc.cli.budget import Budget
  from uopc.cli.main import _stopped_code
  b = Budget(timeout=5, max_memory=None)
  assert _stopped_code(b, 0) == 0
  b.hit("timeout")
  b.cut = b.report_cut = True   # what budget.report_cut records once it ends a report's detail
  assert _stopped_code(b, 0) == 3 and "stopped by --timeout 5 s" in capsys.readouterr().err


@pytest.mark.parametrize("command", ["simplify", "trace", "saturate"])
@pytest.mark.parametrize("rules,ir", [("tinygrad:symbolic", "tinygrad"), ("pytensor:canonicalize", "pytensor")])
def test_the_canonical_engines_refuse_another_irs_rule_set_in_one_line(capsys, command, rules, ir):
  """They run uopc's rules only: another IR's set was an internal error (exit 4) in simplify and trace."""
  code, out, err = uopc(capsys, command, EXAMPLES / "order.uir", "--rules", rules)
  assert (code, out) == (2, "")
  assert err == f"uopc: {command}: --rules {rules} is a {ir} rule set; {command} takes uopc's (explore takes {ir}'s)\n"
