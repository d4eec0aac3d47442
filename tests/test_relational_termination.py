"""Termination in the order verdict: a reachable cycle means some order never ends, and the verdict says so.

The property test checks ``diagnose_order`` (reduced, as ``explore order`` runs it) against a brute-force cycle finder
of its own (a depth-first search for a back edge over the full, unreduced exploration) on random programs and small rule
sets that include a swap rule. ``--slow`` (UOPC_SLOW=1) runs it on 500 examples instead of 15.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.strategies import arith_programs
from tests.test_explore_pairs_cli import uopc
from uopc import native_switch
from uopc import PatternMatcher, UOp, UPat, symbolic
from uopc.relational import Exploration
from uopc.relational.analyses.order import diagnose_order
from uopc.relational.space.cycles import Loop, cyclic_components, reachable_cycle
from uopc.relational.space.termination import loop_error, program_termination, termination
from uopc.rulesets import resolve_rules
from uopc.uir import parse_uir

ROOT = Path(__file__).resolve().parent.parent
x, y, z = UPat.var("x"), UPat.var("y"), UPat.var("z")
a, b = UPat.var("a"), UPat.var("b")
SWAPS = {"swap+": (a + b, lambda a, b: b + a), "swap*": (a * b, lambda a, b: b * a)}
OTHERS = {"add-0": (x + 0, lambda x: x), "mul-1": (x * 1, lambda x: x), "mul-0": (x * 0, lambda x: x.const_like(0)),
          "assoc": ((x + y) + z, lambda x, y, z: x + (y + z)), "double": (x * 2, lambda x: x + x), "halve": (x + x, lambda x: x * 2)}
MAX_STATES = 2000


@st.composite
def swap_rule_sets(draw: st.DrawFn) -> PatternMatcher:
  """A swap rule (commutativity of + or *, maybe both) and a few others, in a random order."""
  names = draw(st.lists(st.sampled_from(sorted(SWAPS)), min_size=1, max_size=2, unique=True))
  names += draw(st.lists(st.sampled_from(sorted(OTHERS)), max_size=4, unique=True))
  names = draw(st.permutations(names))
  return PatternMatcher([{**SWAPS, **OTHERS}[n] for n in names])


def brute_force_cycle(prog: UOp, pm: PatternMatcher) -> bool | None:
  """Whether the full state graph has a cycle (every state is reachable from the program), by a depth-first search for
  a step back to a state still on the search's stack: None if the space is bigger than ``MAX_STATES``."""
  ex = Exploration(prog, pm, max_states=MAX_STATES, native=False).run()
  if not ex.complete: return None
  succ: dict[int, list[int]] = {}
  for e in ex.edges:
    if e.target.error is None: succ.setdefault(e.source.id, []).append(e.target.id)
  colour: dict[int, int] = {}   # 1: on the stack, 2: done
  for root in range(len(ex.states)):
    if root in colour: continue
    colour[root] = 1
    stack = [(root, iter(succ.get(root, ())))]
    while stack:
      v, it = stack[-1]
      for w in it:
        if colour.get(w) == 1: return True
        if w not in colour:
          colour[w] = 1
          stack.append((w, iter(succ.get(w, ()))))
          break
      else:
        colour[v] = 2
        stack.pop()
  return False


def check_loop(loop: Loop, prog: UOp) -> None:
  """A loop is what it says: a chain of steps from the program to its entry, and a chain of steps from the entry back."""
  at = loop.path[0].source if loop.path else loop.entry
  assert at.graph is prog
  for e in loop.path: assert e.source is at and e.error is None; at = e.target
  assert at is loop.entry and loop.cycle
  for e in loop.cycle: assert e.source is at and e.error is None; at = e.target
  assert at is loop.entry
  assert loop.rules and set(loop.rules) == {e.rule for e in loop.cycle}


@settings(max_examples=max(10, settings().max_examples // 4))   # two explorations an example: 15 by default, 500 with --slow
@given(prog=arith_programs(max_ops=4), pm=swap_rule_sets())
def test_no_verdict_of_order_independence_with_a_reachable_cycle(prog: UOp, pm: PatternMatcher) -> None:
  cycle = brute_force_cycle(prog, pm)
  if cycle is None: return
  report = diagnose_order(prog, pm, max_states=MAX_STATES, max_depth=None, timeout=None)   # reduced, as the command runs it
  assert report.complete
  verdict = report.verdict()
  assert report.termination.terminates is (not cycle)   # the reduction keeps a cycle where there is one
  assert verdict.terminates is (not cycle)
  if cycle:
    assert verdict.kind != "independent" and "does not depend" not in verdict.text
    check_loop(report.termination.loop, prog)
  else: assert report.termination.loop is None and verdict.kind in ("independent", "depends", "no-normal-form")
  assert (verdict.kind == "independent") == (not cycle and len(report.normal_forms) == 1)


@given(prog=arith_programs(max_ops=4), pm=swap_rule_sets())
def test_the_native_and_python_cores_find_the_same_cycles(prog: UOp, pm: PatternMatcher) -> None:
  native = Exploration(prog, pm, max_states=MAX_STATES).run()
  python = Exploration(prog, pm, max_states=MAX_STATES, native=False).run()
  assert (native.native_core is not None) == native_switch.enabled() and python.native_core is None   # UOPC_NATIVE=0 (make test-cores): both Python
  assert sorted(map(sorted, cyclic_components(native))) == sorted(map(sorted, cyclic_components(python)))
  n, p = reachable_cycle(native), reachable_cycle(python)
  assert (n is None) == (p is None)
  if n is not None and p is not None:
    assert [e.rule for e in n.path] == [e.rule for e in p.path] and len(n.cycle) == len(p.cycle)
    check_loop(n, prog)


def test_a_cycle_found_by_a_stopped_search_is_a_loop_and_no_cycle_is_not_established() -> None:
  pm = PatternMatcher([SWAPS["swap+"], OTHERS["double"]])
  prog = (UOp.param(0) + UOp.param(1)) * 2 * 2 * 2 * 2 * 2
  cut = termination(Exploration(prog, pm, max_states=1).run())
  assert cut.terminates is None and cut.loop is None   # the program alone: no cycle, and nothing established
  found = termination(Exploration(prog, pm, max_states=40).run())
  assert found.terminates is False and found.loop is not None   # incomplete, but a cycle's steps are steps
  assert diagnose_order(prog, pm, max_states=40).verdict().kind == "loops"


@pytest.mark.parametrize("text", ["the canonical engine did not reach a fixed point within 10 rule lookups",
                                  "tinygrad's graph_rewrite raised RuntimeError: infinite loop in fixed_point_rewrite",
                                  "tinygrad's graph_rewrite raised RuntimeError: infinite loop in graph_rewrite (stack too big)"])
def test_the_engines_loop_errors_are_loops(text: str) -> None:
  assert loop_error(text) and not loop_error("ZeroDivisionError: division by zero")


# ---- uopc's own rule sets: no cycle, the verdicts as before

@pytest.mark.parametrize("example, kind", [("order.uir", "depends"), ("five_params.uir", None)])
def test_uopcs_rule_sets_without_cycles_keep_their_verdicts(example: str, kind: str | None) -> None:
  prog = parse_uir((ROOT / "examples" / example).read_text())
  report = diagnose_order(prog, symbolic, max_states=300)
  assert report.termination.loop is None
  if kind is None: assert not report.complete and report.termination.terminates is None and report.verdict().kind == "unknown"
  else: assert report.termination.terminates is True and report.verdict().kind == kind


@given(prog=arith_programs(max_ops=4))
def test_uopcs_rule_sets_terminate_on_random_programs(prog: UOp) -> None:
  for name in ("symbolic", "fold"):
    report = diagnose_order(prog, resolve_rules(name), max_states=MAX_STATES)
    if not report.complete: continue
    assert report.termination.terminates is True and report.termination.loop is None
    assert report.verdict().kind == ("independent" if len(report.normal_forms) == 1 else "depends")


# ---- tinygrad: the loop its conv2d codegen meets under `symbolic`

def tinygrad_conv() -> tuple[UOp, PatternMatcher]:
  from tinygrad.uop.ops import UOp as TinyUOp
  from tinygrad.uop.symbolic import symbolic as tiny_symbolic
  v = TinyUOp.variable("v", 0, 2)
  return ((10 + v * 81) + 233) % 243, tiny_symbolic


def test_tinygrads_conv_index_loops_under_symbolic_and_the_rules_are_named() -> None:
  prog, pm = tinygrad_conv()
  report = diagnose_order(prog, pm)
  assert report.complete and len(report.normal_forms) == 1 and not report.forks
  verdict = report.verdict()
  assert verdict.kind == "loops" and verdict.one_form is True and verdict.terminates is False
  assert "does not depend" not in verdict.text
  loop = report.termination.loop
  check_loop(loop, prog)
  assert loop.rules == ["symbolic#93 symbolic.py:267", "symbolic#102 symbolic.py:281"]   # two-stage ALU folding, and moving consts to the end
  assert len(loop.cycle) == 2 and loop.path == [] and loop.on_cycles == 580 and len(report.exploration.states) == 672
  top, bottom = report.strategies
  assert (top.outcome, top.through_cycle) == ("terminates", True)
  assert bottom.label == "graph_rewrite(bottom_up=True)" and bottom.outcome == "loops" and "infinite loop" in bottom.detail


def test_program_termination_finds_the_loop_with_a_path_into_it() -> None:
  prog, pm = tinygrad_conv()
  t = program_termination(prog, pm)
  assert t.terminates is False and t.loop.on_cycles == 580
  check_loop(t.loop, prog)
  into = program_termination(UOp.param(0) + UOp.param(0), PatternMatcher([OTHERS["halve"], SWAPS["swap*"]]))
  assert into.terminates is False
  check_loop(into.loop, UOp.param(0) + UOp.param(0))   # add(p0, p0) swaps to itself: no step; the cycle is after the halving
  assert [e.describe().split(": ", 1)[1] for e in into.loop.path] == ["add(p0, p0) -> mul(p0, 2)"]
  assert [e.target.term() for e in into.loop.cycle] == ["mul(2, p0)", "mul(p0, 2)"]


@pytest.fixture
def conv_py(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
  (tmp_path / "conv.py").write_text("from tinygrad.uop.ops import UOp\nv = UOp.variable('v', 0, 2)\nprog = ((10 + v * 81) + 233) % 243\n")
  monkeypatch.syspath_prepend(str(tmp_path))
  monkeypatch.chdir(tmp_path)
  sys.modules.pop("conv", None)
  return "conv.py:prog"


def test_explore_order_reports_the_loop(capsys: pytest.CaptureFixture, conv_py: str) -> None:
  code, out, _ = uopc(capsys, "explore", "order", conv_py, "--rules", "tinygrad:symbolic")
  assert code == 0
  lines = out.splitlines()
  assert "one normal form, but not every rule order terminates: some orders loop forever on a reachable cycle" in lines
  assert "does not depend" not in out
  assert ("termination: some rule orders never terminate: 580 explored states lie on cycles (33 strongly connected components); "
          "a shortest cycle has 2 steps") in lines
  assert "  the cycle (2 steps, in a component of 8 states; rules: symbolic#93 symbolic.py:267; symbolic#102 symbolic.py:281):" in lines
  assert ("  graph_rewrite(bottom_up=True): loops (tinygrad's graph_rewrite raised RuntimeError: infinite loop in "
          "fixed_point_rewrite)") in lines
  code, out, _ = uopc(capsys, "explore", "order", conv_py, "--rules", "tinygrad:symbolic", "--format", "json")
  data = json.loads(out)
  assert data["verdict"] == "loops" and data["one_normal_form"] is True
  t = data["termination"]
  assert t["terminates"] is False and t["states_on_cycles"] == 580 and t["loop"]["rules"] == [
    "symbolic#93 symbolic.py:267", "symbolic#102 symbolic.py:281"]
  assert [s["rule"] for s in t["loop"]["cycle"]] == t["loop"]["rules"] and t["loop"]["path"] == []
  assert [(s["label"], s["outcome"]) for s in t["strategies"]] == [("tinygrad's graph_rewrite", "terminates"),
                                                                   ("graph_rewrite(bottom_up=True)", "loops")]


def test_explore_normal_forms_reports_the_loop(capsys: pytest.CaptureFixture, conv_py: str) -> None:
  code, out, _ = uopc(capsys, "explore", "normal-forms", conv_py, "--rules", "tinygrad:symbolic", "--format", "json")
  t = json.loads(out)["termination"]
  assert code == 0 and t["terminates"] is False and t["loop"]["rules"] == ["symbolic#93 symbolic.py:267", "symbolic#102 symbolic.py:281"]
  code, out, _ = uopc(capsys, "explore", "normal-forms", str(ROOT / "examples" / "order.uir"))
  assert code == 0 and out.splitlines()[-1] == "termination: every rule order terminates: no explored state lies on a cycle"


def test_two_normal_forms_and_a_loop_say_both(capsys: pytest.CaptureFixture, tmp_path: Path) -> None:
  """p0 * 1 becomes p0 or 1, and swaps to 1 * p0 and back: the result depends on rule order, and some order never ends."""
  (tmp_path / "r.py").write_text("from uopc import PatternMatcher, UPat\nx, a, b = UPat.var('x'), UPat.var('a'), UPat.var('b')\n"
                                 "rules = PatternMatcher([(x * 1, lambda x: x), (x * 1, lambda x: x.const_like(1)), (a * b, lambda a, b: b * a)])\n")
  (tmp_path / "p.uir").write_text("%0 = param : slot=0 dtype=i32\n%1 = mul %0, 1\n")
  code, out, _ = uopc(capsys, "explore", "order", tmp_path / "p.uir", "--rules", f"{tmp_path / 'r.py'}:rules")
  verdict = [line for line in out.splitlines() if line.startswith("the result depends")]
  assert code == 0 and verdict == ["the result depends on rule order: 1 other normal form (1 semantic); and not every rule order terminates: "
                                   "some orders loop forever on a reachable cycle"]


def test_the_page_shows_the_loop(capsys: pytest.CaptureFixture, conv_py: str, tmp_path: Path) -> None:
  page = tmp_path / "order.html"
  code, _, _ = uopc(capsys, "explore", "order", conv_py, "--rules", "tinygrad:symbolic", "--format", "html", "-o", str(page))
  html = page.read_text()
  assert code == 0 and "terminationSection" in html and '"terminates":false' in html.replace(" ", "")

