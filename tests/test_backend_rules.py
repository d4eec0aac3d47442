"""``check-rules``: instances of patterns, soundness against compiled C, the symbolic findings."""
from __future__ import annotations

import contextlib
import io
import math
import random

import pytest

from uopc.cli.main import main
from uopc.dtype import dtypes
from uopc.evaluate import evaluate
from uopc.matcher import PatternMatcher
from uopc.ops import Ops
from uopc.symbolic import fold, symbolic
from uopc.upat import UPat

from uopc.backend.instances import NoInstance, Synth
from uopc.backend import soundness
from uopc.backend.driver import Batch
from uopc.backend.soundness import check_rules
from uopc.limits import BoundHit
from tests.backend_helpers import ACCEPTED_NAMES, UNSOUND_NAMES, same, strict_outcome

x = UPat.var("x")
# the chapter's exercise 3 (x * 0 -> 0 for every dtype) and section 2.5's where(c, 1, 0) -> cast bug
student_rules = PatternMatcher([
  (x * 0, lambda x: x.const_like(0)),
  (UPat(Ops.WHERE, src=(UPat.var("c"), UPat(Ops.CONST, arg=1), UPat(Ops.CONST, arg=0))), lambda c: c.cast(dtypes.i32)),
  (x + 0, lambda x: x if x.dtype is dtypes.i32 else None),
])
odd_rules = PatternMatcher([
  (UPat(Ops.FLOORDIV, dtype=dtypes.f32, name="x"), lambda x: x),
  (UPat(Ops.PARAM, name="p"), lambda p, ctx: None),
  (x * 1, lambda x: None),
])


def uopc(*argv: str) -> tuple[int, str, str]:
  out, err = io.StringIO(), io.StringIO()
  with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err): code = main(list(argv))
  return code, out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def symbolic_report():
  return check_rules(symbolic, samples=30, seed=0)


def test_symbolic_findings(symbolic_report):
  """The rules check-rules finds unsound are exactly the documented findings (docs/c-backend.md)."""
  verdicts = {r.name: r.verdict for r in symbolic_report.rules}
  assert {n for n, v in verdicts.items() if v == "unsound"} == UNSOUND_NAMES
  assert {n for n, v in verdicts.items() if v == "accepted"} == ACCEPTED_NAMES
  assert {v for n, v in verdicts.items() if n not in UNSOUND_NAMES | ACCEPTED_NAMES} == {"sound"}
  assert len(symbolic_report.rules) == len(symbolic.rules)


def test_counterexamples_are_real(symbolic_report):
  """Each counterexample replays with the Python oracle (exec_alu, no algebra): C told the truth."""
  for r in symbolic_report.unsound + [r for r in symbolic_report.rules if r.verdict == "accepted"]:
    cx = r.counterexample or r.accepted_example
    if cx.static:
      assert cx.after.shape != cx.before.shape or cx.after.dtype is not cx.before.dtype
      continue
    assert same(strict_outcome(cx.before, cx.inputs), cx.before_out), r.name
    assert same(strict_outcome(cx.after, cx.inputs), cx.after_out), r.name
    assert not same(cx.before_out, cx.after_out)


def test_accepted_case_is_negative_zero(symbolic_report):
  r = next(r for r in symbolic_report.rules if r.name == "add-0.0")
  cx = r.accepted_example
  assert repr(cx.before_out.value) == "0.0" and repr(cx.after_out.value) == "-0.0"
  assert "the chapter accepts it" in symbolic_report.table()


def test_table_lists_counterexamples(symbolic_report):
  table = symbolic_report.table()
  for name in UNSOUND_NAMES: assert f"unsound: {name}" in table
  for line in ("instance: ", "rewrite:  ", "inputs:   ", "before:   ", "after:    "): assert line in table


def test_evaluate_and_fold_are_sound():
  report = check_rules(fold + evaluate, samples=15, inputs=6, seed=1)
  assert {r.verdict for r in report.rules} == {"sound"}, report.table()


def test_student_rules_are_caught():
  report = check_rules(student_rules, samples=20, seed=0)
  mul0, b2i, add0 = report.rules
  assert mul0.verdict == "unsound"
  bad = mul0.counterexample.before_out.value
  assert isinstance(bad, float) and (math.isinf(bad) or math.isnan(bad) or bad == 0.0)
  assert b2i.verdict == "unsound" and b2i.counterexample.static.endswith("into CAST i32[]")   # bool or f32 where(c, 1, 0)
  assert add0.verdict == "sound" and add0.declined > 0


def _stop(*args, **kwargs):
  raise BoundHit("timeout")   # what the command's budget raises wherever the work is


def test_a_bound_while_running_the_instances_leaves_them_not_checked(monkeypatch):
  monkeypatch.setattr(Batch, "run", _stop)
  report = check_rules(student_rules, samples=20, seed=0)
  mul0, b2i, add0 = report.rules
  assert report.stopped.startswith("compiling ") and report.kernels == 0
  assert b2i.verdict == "unsound" and b2i.counterexample.static   # found without running: kept
  assert mul0.verdict == add0.verdict == "not checked" and mul0.built > 0 and mul0.evals == 0
  assert "\nincomplete: stopped while compiling 0 kernels" not in report.table() and "\nincomplete: stopped while compiling " in report.table()


def test_a_bound_while_shrinking_keeps_every_verdict(monkeypatch):
  whole = check_rules(student_rules, samples=20, seed=0)
  monkeypatch.setattr(soundness, "_shrink_counterexamples", _stop)
  cut = check_rules(student_rules, samples=20, seed=0)
  assert cut.stopped == "shrinking the counterexamples" and whole.stopped == ""
  assert [r.verdict for r in cut.rules] == [r.verdict for r in whole.rules] == ["unsound", "unsound", "sound"]
  assert cut.rules[0].counterexample is not None and cut.kernels == whole.kernels > 0


def test_rules_without_instances_say_why():
  report = check_rules(odd_rules, samples=5, seed=0)
  div, ctx, declined = report.rules
  assert div.verdict == "no instances" and "FLOORDIV makes i32" in div.notes()
  assert ctx.verdict == "no instances" and "needs a ctx" in ctx.notes()
  assert declined.verdict == "no instances" and "declined every instance" in declined.notes()


def test_synth_respects_patterns():
  s = Synth(random.Random(0))
  for rule in symbolic.rules + evaluate.rules:
    for _ in range(20):
      u = s.instance(rule[0])
      assert rule[0].match(u, {}), (rule, u)
  xi = UPat.var("x", dtype=dtypes.i32)
  for _ in range(20):
    u = s.instance((xi + UPat.cvar("c1")) + UPat.cvar("c2"))
    assert u.dtype is dtypes.i32 and any(s.op is Ops.CONST for s in u.src)   # list sources: either order
  with pytest.raises(NoInstance, match="FLOORDIV makes i32"): s.instance(UPat(Ops.FLOORDIV, dtype=dtypes.bool))


def test_cli_check_rules():
  code, out, err = uopc("check-rules", "tests.test_backend_rules:student_rules", "--samples", "10", "--seed", "3")
  assert code == 1 and err == "" and "unsound: test_backend_rules#0 x * 0  (test_backend_rules.py:" in out
  code, out, _ = uopc("check-rules", "fold", "--samples", "10")
  assert code == 0 and "fold-const" in out and " sound " in out
  with pytest.raises(SystemExit) as e: uopc("check-rules", "fold", "--samples", "0")   # argparse: usage on stderr, exit 2
  assert e.value.code == 2
  code, out, err = uopc("check-rules", "nonsense")   # a rule set is loaded after parsing: one line, exit 2
  assert (code, out) == (2, "") and err.startswith("uopc: --rules: unknown rule set 'nonsense'")


def test_const_args_match_like_upat():
  """A CONST arg is compared with ==, so arg=0 gets every dtype's zero, -0.0 included (pitfall 4)."""
  s = Synth(random.Random(5))
  seen = {repr(s.instance(UPat(Ops.CONST, arg=0)).arg) for _ in range(200)}
  assert seen == {"0", "0.0", "-0.0", "False"}


def on_terminal(monkeypatch):
  """stderr a terminal (a bar is drawn, with no delay), stdout captured: (stderr, stdout). Called in the test's body:
  pytest's capture sets sys.stderr again after a fixture's setup."""
  import sys
  import uopc.cli.support
  class FakeTTY(io.StringIO):
    def isatty(self): return True
  monkeypatch.setattr(uopc.cli.support, "PROGRESS_DELAY", 0.0)
  err, out = FakeTTY(), io.StringIO()
  monkeypatch.setattr(sys, "stderr", err)
  monkeypatch.setattr(sys, "stdout", out)
  return err, out


def test_check_rules_draws_its_progress_with_the_one_progress_bar(monkeypatch):
  err, out = on_terminal(monkeypatch)
  assert main(["check-rules", "fold", "--samples", "2", "--inputs", "1"]) == 0
  # a step per rule, per C file compiled and run, and the shrinking: building fold's instances takes no time, compiling
  # takes nearly all of it (symbolic: 0.6 s, then 4.6 s), and the bar was drawn only at a rule, before its delay: never
  drawn = err.getvalue()
  assert "check-rules:" in drawn and f"/{len(fold.rules) + 2} [" in drawn and "verdict" in out.getvalue()
  assert "compiled and ran 1 of 1 C files" in drawn and f"{len(fold.rules) + 1}/{len(fold.rules) + 2} [" in drawn


def test_check_rules_draws_the_bar_after_its_delay_at_any_stage(monkeypatch):
  err, _ = on_terminal(monkeypatch)
  seen = []
  real = soundness.check_rules
  def check(pm, **kw):
    progress = kw["progress"]
    def spy(what, done, total):
      progress(what, done, total)
      seen.append((what, done, total, len(err.getvalue())))
    return real(pm, **{**kw, "progress": spy})
  monkeypatch.setattr(soundness, "check_rules", check)
  assert main(["check-rules", "fold", "--samples", "2", "--inputs", "1"]) == 0
  stages = [(what, done, total) for what, done, total, _ in seen]
  assert stages[0][1:] == (0, len(fold.rules) + 1) and stages[-1] == ("shrinking the counterexamples", len(fold.rules) + 1, len(fold.rules) + 2)
  assert all(b[3] > a[3] for a, b in zip(seen, seen[1:]))   # each stage drew the bar: none waited for a later rule


# a user's own copy of the chapter's x + 0.0 -> x: the same shape, not the chapter's rule
own_add_zero = PatternMatcher([(x + 0.0, lambda x: x)])


def test_a_users_own_add_zero_is_unsound_not_accepted():
  # the exemption was by shape: any x + 0.0 -> x was "accepted (the chapter accepts it)", exit 0 (a CI gate passed it)
  mine = check_rules(own_add_zero, samples=30, seed=0).rules[0]
  assert mine.verdict == "unsound" and mine.accepted == 0 and math.copysign(1, mine.counterexample.before_out.value) == 1.0
  both = check_rules(PatternMatcher([*symbolic.rules, *own_add_zero.rules]), samples=30, seed=0).rules
  assert both[-1].verdict == "unsound" and {r.name for r in both if r.verdict == "accepted"} == ACCEPTED_NAMES
  code, out, _ = uopc("check-rules", "tests.test_backend_rules:own_add_zero", "--samples", "30")
  assert code == 1 and " unsound " in out.splitlines()[2] and "the chapter accepts it" not in out
