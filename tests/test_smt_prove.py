"""``uopc.smt.prove``: rules and rewrites proved for all inputs, or refuted with a counterexample that ``run()`` and the
compiled C backend both confirm, or "unknown" with the reason."""
from __future__ import annotations

import contextlib
import functools
import io
import json
import re
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from uopc import uop as uop_tables
from uopc.backend.driver import Batch
from uopc.cli.main import main
from uopc.dtype import dtypes, same_value, truncate
from uopc.evaluate import bind_params, run, to_python
from uopc.ops import Ops
from uopc.matcher import PatternMatcher
from uopc.smt import prove_rules
from uopc.smt.concolic import Symbolic
from uopc.smt.prove import Verdict, describe, prove_rewrite, prove_rule, rule_status
from uopc.symbolic import symbolic
from uopc.upat import UPat
from uopc.uop import UOp
from tests.backend_helpers import ACCEPTED, KNOWN_UNSOUND, same

RULES = {r.name: r for r in symbolic.rules}
x = UPat.var("x")


def prove(name: str, dtype=dtypes.i32, **kw) -> Verdict:
  return prove_rule(RULES[name][0], RULES[name][1], dtype, **kw)


def test_the_rules_check_rules_finds_unsound_are_refuted_and_c_confirms_each_counterexample():
  """check-rules' sampled findings (backend_helpers), each refuted for all inputs with an input both run() and C confirm."""
  verdicts = [prove(name) for name in KNOWN_UNSOUND] + [prove(name, dtypes.f32) for name in ACCEPTED]
  assert [v.status for v in verdicts] == ["refuted"] * len(verdicts), [describe(v) for v in verdicts]
  batch = Batch()
  queries = []
  for v in verdicts:
    assert v.lhs is not None and v.rhs is not None and v.counterexample is not None and v.replay is not None
    assert v.replay[0] != v.replay[1]
    queries += [(batch.add(v.lhs), v.counterexample), (batch.add(v.rhs), v.counterexample)]
  outs = batch.run(queries)
  for v, left, right in zip(verdicts, outs[::2], outs[1::2]): assert not same(left, right), describe(v)


def test_a_rule_set_is_proved_rule_by_rule_at_every_dtype_it_applies_to():
  pm = PatternMatcher([RULES[name] for name in ("add-0", "add-self", "lt-add-const", "assoc-add-const", "mod-small")])
  report = prove_rules(pm)
  verdicts = report.by_rule()
  assert {name: sorted(d.name for d in by_dtype) for name, by_dtype in verdicts.items()} == {
    "add-0": ["bool", "f32", "i32"], "add-self": ["i32"], "lt-add-const": ["i32"], "assoc-add-const": ["i32"], "mod-small": ["i32"]}
  assert {name: rule_status(by_dtype) for name, by_dtype in verdicts.items()} == {
    "add-0": "refuted", "add-self": "proved", "lt-add-const": "refuted", "assoc-add-const": "proved", "mod-small": "proved"}
  # add-0 is the chapter's own x + 0: refuted at -0.0 and accepted, as check-rules accepts it; the C replay agrees with run()
  assert [r.status for r in report.rules] == ["accepted", "proved", "refuted", "proved", "proved"]
  lt_c = report.rules[2].c_replay[dtypes.i32]
  assert report.rules[0].c_replay[dtypes.f32] == ("0.0", "-0.0") and lt_c[0] != lt_c[1]
  assert report.summary().startswith("3 proved, 1 refuted, 1 accepted, 0 unknown (5 rules, ")
  table = report.table()
  assert re.search(r"^add-0 +f32 +accepted +[0-9.]+s  add\(p0, 0.0\) -> p0 at p0 = -0.0: run\(\) 0.0 vs -0.0, C 0.0 vs -0.0$", table, re.M)
  data = report.to_json()
  assert [r["verdict"] for r in data["rules"]] == ["accepted", "proved", "refuted", "proved", "proved"]
  lt = data["rules"][2]["dtypes"][0]
  assert lt["verdict"] == "refuted" and lt["run"] == lt["c"] and lt["run"][0] != lt["run"][1] and set(lt["inputs"]) == {"p0"}


def test_add_zero_on_f32_is_refuted_at_minus_zero():
  v = prove("add-0.0", dtypes.f32)
  assert (v.status, v.counterexample, v.replay) == ("refuted", {0: -0.0}, ("0.0", "-0.0"))


@pytest.mark.parametrize("name,dtype", [
  (name, d) for d, names in {
    dtypes.i32: ["add-0", "mul-1", "mul-0", "div-1", "mod-1", "max-self", "where-same", "where-nested-then", "where-nested-else",
                 "cast-same", "cmp-self", "add-self", "sub-self"],
    dtypes.f32: ["mul-1", "mul-1.0", "max-self", "where-same", "where-nested-else", "cast-same"],
    dtypes.bool: ["add-0", "mul-0", "max-self", "cmpne-false", "where-nested-then"]}.items() for name in names])
def test_the_rules_without_constant_holes_are_proved(name, dtype):
  assert prove(name, dtype).status == "proved"


@pytest.mark.parametrize("name", ["assoc-add-const", "assoc-mul-const", "distribute-const", "factor-consts", "where-const", "div-div",
                                  "div-mod-recombine", "div-mod-recombine-sum"])
def test_rules_with_constant_holes_are_proved_for_every_value_of_their_constants(name):
  v = prove(name)
  assert v.status == "proved" and "all values of its" in v.reason, describe(v)


def test_each_branch_of_the_rule_is_a_path_with_its_own_condition():
  """div-div fires only where c1 > 0, c2 > 0 and c1*c2 < 2**31: the path where it fires is proved under that condition;
  without the condition the same rewrite is wrong (c1 = c2 = -1 gives x // 1 for (x // -1) // -1)."""
  c1, c2 = UPat.cvar("c1"), UPat.cvar("c2")
  def guarded_fn(x, c1, c2): return x // truncate(dtypes.i32, c1.arg * c2.arg) if c1.arg > 0 and c2.arg > 0 else None
  guarded = prove_rule((UPat.var("x") // c1) // c2, guarded_fn, dtypes.i32)
  unguarded = prove_rule((UPat.var("x") // c1) // c2, lambda x, c1, c2: x // truncate(dtypes.i32, c1.arg * c2.arg), dtypes.i32)
  assert guarded.status == "refuted"   # c1 * c2 wraps past 2**31 (the guard of symbolic's div-div has that test too)
  assert guarded.lhs is not None and guarded.lhs.src[0].src[1].arg * guarded.lhs.src[1].arg >= 2**31
  assert unguarded.status == "refuted" and unguarded.replay is not None and unguarded.replay[0] != unguarded.replay[1]
  assert prove("div-div").status == "proved"


def test_a_rule_the_symbolic_run_cannot_follow_falls_back_to_edge_values_and_says_why():
  c = UPat.cvar("c")
  v = prove_rule(UPat.var("x") * c, lambda x, c: x * int(c.arg) if c.arg == 1 else None, dtypes.i32)
  assert v.status == "unknown" and "cannot follow the rule: int() of a symbolic constant" in v.reason
  wrong = prove_rule(UPat.var("x") + c, lambda x, c: x * int(c.arg) if c.arg == 1 else None, dtypes.i32)
  assert wrong.status == "refuted" and wrong.lhs is not None and wrong.lhs.src[1].arg == 1   # x + 1 -> x * 1, at edge values


def test_a_rule_that_reads_bounds_is_proved_for_every_leaf_within_its_bounds():
  """div-small and mod-small fire where bounds() puts x in [0, c): proved on leaves whose bounds are symbolic too. A
  rule that trusts the bounds one off is refuted there (its counterexample needs a leaf with those bounds)."""
  assert [prove(name).status for name in ("div-small", "mod-small")] == ["proved", "proved"]
  from uopc.bounds import vmax, vmin
  from uopc.footprint import reads
  c = UPat.cvar("c")
  off_by_one = reads("bounds")(lambda x, c: x.const_like(0) if 0 <= vmin(x) and vmax(x) <= c.arg else None)
  v = prove_rule(UPat(Ops.FLOORDIV, src=(UPat.var("x", dtype=dtypes.i32), c)), off_by_one, dtypes.i32)
  assert v.status == "unknown" and "a counterexample where bounds() gives p0 in [" in v.reason


def test_symbolic_constants_never_reach_the_hash_consing_tables():
  before = uop_tables.live_nodes()
  for name in ("assoc-mul-const", "div-div", "lt-mul-const", "bounds-const"): prove(name)
  consts = [k for table in uop_tables._consts.values() for k in table if isinstance(k, Symbolic)]
  nodes = [u for table in uop_tables._tables.values() for u in table.values()
           if any(s.op is Ops.CONST and isinstance(s.arg, Symbolic) for s in u.src)]
  assert consts == [] and nodes == [] and uop_tables.live_nodes() >= 0 and before >= 0


PROVED = [name for name in ("add-self", "assoc-add-const", "assoc-mul-const", "distribute-const", "factor-consts", "factor-const-1",
                            "div-div", "div-mod-recombine")]


@functools.lru_cache(maxsize=None)
def proved(name: str) -> bool: return prove(name).status == "proved"   # once per rule, not per example


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(PROVED), st.integers(-2**31, 2**31 - 1), st.integers(-2**31, 2**31 - 1), st.integers(-2**31, 2**31 - 1))
def test_a_proved_rule_never_changes_a_value_on_random_inputs(name, x, c1, c2):
  """The rules proved above, on random instances run through run(): the rewrite keeps the value wherever the left side has one."""
  assert proved(name)
  lhs = _instance(RULES[name][0], iter((c1, c2, c1)))
  if lhs is None or (rhs := PatternMatcher([RULES[name]]).rewrite(lhs)) is None: return
  try: before = to_python(run(bind_params(lhs, {0: x})))
  except Exception: return   # the left side is undefined here: a rewrite may define it
  assert same_value(before, to_python(run(bind_params(rhs, {0: x}))))


def _instance(pattern: UPat, constants) -> UOp | None:
  """``pattern`` with p0 at its variables and the given constants at its holes (None where it has a nested hole kind)."""
  def build(p: UPat) -> UOp:
    if p.op is None and p.src is None: return UOp.param(0)
    if p.op == (Ops.CONST,) or p.op == {Ops.CONST}: return UOp.const(next(constants))
    op = sorted(p.op, key=lambda o: o.value)[0]
    return UOp(op, tuple(build(s) for s in p.src))
  try: return build(pattern)
  except Exception: return None


def test_a_pattern_whose_leaves_cannot_have_the_dtype_is_inapplicable():
  assert [prove("add-self", d).status for d in (dtypes.bool, dtypes.i32, dtypes.f32)] == ["inapplicable", "proved", "inapplicable"]


def test_a_rule_that_fires_on_no_left_side_is_unknown_and_says_why():
  v = prove_rule(x + 1, lambda x: x if x.op is Ops.RANGE else None, dtypes.i32)
  assert v.status == "unknown" and "fired on no left side" in v.reason


def test_a_rule_the_solver_gives_up_on_says_where_in_one_line():
  v = prove("mod-div", timeout_ms=50)
  assert v.status == "unknown" and v.reason.startswith("the solver gave up on the path where And(0 < c0, 0 < c1, ") and "\n" not in v.reason


def test_a_timeout_is_unknown_with_the_solvers_reason():
  """f32 multiplication is not associative, but no solver says so on 1 ms of work (each theory tried gives up)."""
  a, b, c = (UOp.param(i, dtypes.f32) for i in range(3))
  v = prove_rewrite((a * b) * c, a * (b * c), timeout_ms=1)
  assert v.status == "unknown" and v.reason == "the solver gave up: out of budget with i32 as bit-vectors; out of budget with i32 as Ints"


def test_a_wrong_rule_on_a_libm_op_is_refuted_by_its_replay():
  """exp2(x) -> x: the solver's candidate rests on exp2's uninterpreted value; run() confirms it (2**x > x)."""
  v = prove_rule(UPat(Ops.EXP2, src=(x,)), lambda x: x, dtypes.f32)
  assert v.status == "refuted" and v.replay is not None and v.replay[0] != v.replay[1]


def test_a_candidate_that_rests_on_a_libm_value_run_does_not_confirm_is_unknown():
  v = prove_rule(UPat(Ops.EXP2, src=(x,)) < 0.0, lambda x: UOp.const(False), dtypes.f32)
  assert v.status == "unknown" and "EXP2" in v.reason and v.replay == ("False", "False")


def test_a_rewrite_may_drop_a_trap_but_never_add_one():
  p0, p1 = UOp.param(0), UOp.param(1)
  assert prove_rewrite((p0 // p1) * 0, UOp.const(0)).status == "proved"
  v = prove_rewrite(p0, (p0 // p1) * 0 + p0)
  assert v.status == "refuted" and v.counterexample is not None
  assert v.counterexample[1] == 0 or (v.counterexample[0], v.counterexample[1]) == (-2**31, -1)   # where p0 // p1 traps
  c = Batch()
  left, right = c.run([(c.add(p0), v.counterexample), (c.add((p0 // p1) * 0 + p0), v.counterexample)])
  assert left.ok and not right.ok   # run() folds (p0 // 0) * 0 to 0 (mul-0), so only C shows the trap


def test_shaped_rewrites_are_proved_or_refuted_per_element():
  a = UOp.param(0, dtypes.f32, (2, 3))
  assert prove_rewrite(a.permute((1, 0)).permute((1, 0)), a).status == "proved"
  col = [a.shrink(((0, 2), (k, k + 1))).reshape((2,)) for k in range(3)]
  assert prove_rewrite(a.reduce(Ops.ADD, 1), (col[0] + col[1]) + col[2]).status == "proved"   # REDUCE folds left to right
  b = UOp.param(0, dtypes.i32, (2, 3))   # (an f32 reassociation is refuted too, but in a time that varies with the solver's luck)
  v = prove_rewrite(b.reduce(Ops.ADD, 1), b.shrink(((0, 2), (0, 1))).reshape((2,)) + b.shrink(((0, 2), (1, 2))).reshape((2,)))
  assert v.status == "refuted" and v.replay is not None and v.replay[0] != v.replay[1]   # the last column is left out
  values = v.counterexample[0] if v.counterexample else []
  assert len(values) == 2 and all(len(row) == 3 and all(type(e) is int for e in row) for row in values)
  assert any(row[2] != 0 for row in values)


def uopc(*argv: str) -> tuple[int, str, str]:
  out, err = io.StringIO(), io.StringIO()
  with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err): code = main(list(argv))
  return code, out.getvalue(), err.getvalue()


student_rules = PatternMatcher([(UPat.var("x", dtype=dtypes.i32) * 1, lambda x: x, "mul-1"),
                                (UPat.var("x", dtype=dtypes.f32) * 0.0, lambda x: x.const_like(0.0), "mul-0.0")], name="student")
sound_rules = PatternMatcher([(UPat.var("x", dtype=dtypes.i32) * 1, lambda x: x, "mul-1")], name="sound")


def test_cli_check_rules_prove():
  code, out, err = uopc("check-rules", "--prove", "tests.test_smt_prove:student_rules")
  assert code == 1 and err == "", err   # refuted: x * 0.0 is nan at inf, -0.0 at a negative x
  assert re.search(r"^mul-1 +i32 +proved ", out, re.M) and re.search(r"^mul-0.0 +f32 +refuted ", out, re.M)
  assert "1 proved, 1 refuted, 0 unknown (2 rules" in out
  code, out, _ = uopc("check-rules", "--prove", "tests.test_smt_prove:sound_rules", "--format", "json")
  data = json.loads(out)
  assert code == 0 and data["summary"] == {"proved": 1} and data["rules"][0]["dtypes"][0]["verdict"] == "proved"
  code, out, err = uopc("check-rules", "fold", "--format", "json")
  assert (code, out) == (2, "") and "--format json needs --prove" in err


def test_cli_check_rules_prove_without_z3_is_one_line_naming_the_extra():
  code = ("import sys; sys.modules['z3'] = None\n"
          "from uopc.cli.main import main\n"
          "sys.exit(main(['check-rules', '--prove', 'fold']))\n")
  r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
  assert (r.returncode, r.stdout) == (2, "")
  assert r.stderr.strip().splitlines() == [
    "check-rules --prove: proving needs the z3 SMT solver, which is not installed: pip install -e '.[prove]'"]


def test_a_session_answers_a_query_asked_again_from_its_memo():
  """One context per proof; the same formulas with the same budget are solved once, and the answer and model are the first's."""
  import z3
  from uopc.smt.solver import Fresh, session
  a = z3.Int("a")
  with session() as s:
    answers = []
    for _ in range(2):
      q = Fresh(ms=100)
      q.add(a * a == 49, a < 0)
      answers.append((q.check(), q.model().eval(a, model_completion=True).as_long()))
    other = Fresh(ms=200)   # another budget: another query
    other.add(a * a == 49, a < 0)
    assert other.check() == "sat"
  assert answers == [("sat", -7), ("sat", -7)] and (s.asked, s.answered) == (3, 1)
  q.add(a > 0)   # a formula added to a memo's solver after its check: a solver of its own, the memo's left as it was
  assert q.check() == "unsat"


def test_rules_proved_in_worker_processes_give_the_report_of_one_process():
  """workers=2: each rule in a forked process of its own; the same verdicts, counterexamples and C replays."""
  pm = PatternMatcher([RULES[name] for name in ("add-0", "lt-add-const", "mod-small")])
  one, two = prove_rules(pm), prove_rules(pm, workers=2)
  def seen(r):
    return [(p.name, p.status, {d.name: (v.status, v.counterexample, v.replay) for d, v in p.verdicts.items()}, p.c_replay) for p in r.rules]
  assert seen(two) == seen(one)
  assert [p.status for p in two.rules] == ["accepted", "refuted", "proved"]
  assert all(v.seconds > 0 for p in two.rules for v in p.verdicts.values())   # each verdict's CPU time, in its worker


def test_a_verdict_does_not_depend_on_what_the_process_proved_before():
  first = prove("lt-add-const")
  for name in ("div-sum", "assoc-add-const"): prove(name)
  again = prove("lt-add-const")
  assert first.status == again.status == "refuted" and (first.counterexample, first.replay) == (again.counterexample, again.replay)
