"""Critical pairs of tinygrad rule sets: overlaps of tinygrad's own UPats, instances as tinygrad nodes, joinability and
verdicts in tinygrad's rules and semantics (uopc/relational/adapters/tinygrad/pairs.py).

tinygrad is imported at the top on purpose: without it (the ``tinygrad`` extra) these tests fail, never skip.
"""
from __future__ import annotations

import json

from tinygrad.dtype import dtypes
from tinygrad.uop.ops import Ops, PatternMatcher, UOp, UPat
from tinygrad.uop.symbolic import symbolic, symbolic_simple

from uopc.relational.analyses.joinable import join
from uopc.relational.analyses.pairs import critical_pairs
from uopc.relational.adapters.tinygrad.ir import adapt
from uopc.relational.adapters.tinygrad.pairs import TinygradOverlaps

x, y = UPat.var("x"), UPat.var("y")
a = UOp.variable("a", 0, 10)


def run_cli(capsys, *argv):
  from uopc.cli.main import main
  code = main(list(argv))
  out, err = capsys.readouterr()
  return code, out, err


def at(pm: PatternMatcher, where: str) -> tuple:
  """The rule of ``pm`` whose UPat is written at ``file.py:line``."""
  [rule] = [r for r in pm.patterns if f"{r[0].location[0].rsplit('/', 1)[-1]}:{r[0].location[1]}" == where]
  return rule


def groups(*rules: tuple) -> dict:
  return TinygradOverlaps(adapt(PatternMatcher(list(rules)))).groups


def test_zero_by_zero_is_a_semantic_pair_of_x_div_x_and_constant_folding():
  pm = PatternMatcher([at(symbolic_simple, "symbolic.py:114"), at(symbolic_simple, "symbolic.py:150")])   # x//x -> 1, fold_const_alu
  report = critical_pairs(pm)
  [p] = [p for p in report.pairs if p.rule_indices == (0, 1)]
  assert p.status == "not-joinable" and p.position == ()
  assert p.witness.op is Ops.FLOORDIV and p.witness.src[0] is p.witness.src[1] and p.witness.src[0].arg == 0
  assert [r.arg for r in p.results] == [1, 0] and p.verdict == "semantic"
  assert p.rules[0].endswith("symbolic.py:114") and p.rules[1] == "fold_const_alu"   # a lambda's positional name; a function's own


def test_a_name_bound_twice_is_one_node_in_every_instance():
  pm = PatternMatcher([(UPat(Ops.ADD, src=(UPat(Ops.MUL, src=(x, UPat.const(2))), x)), lambda x: x * 3),   # x*2 + x
                       (UPat(Ops.MUL, src=(UPat(Ops.ADD, src=(y, UPat.const(1))), UPat.const(2))), lambda y: y * 2 + 2)])
  src = TinygradOverlaps(adapt(pm))
  insts, _, _ = src.instances(src.groups[(0, 1, (0,))], 8)
  assert insts and all(u.src[1] is u.src[0].src[0] and u.src[1].op is Ops.ADD for u, _, _ in insts)   # x is y+1 on both sides


def test_a_commutative_source_list_reports_the_position_as_written():
  outer = (UPat(Ops.ADD, src=[UPat.cvar("c"), UPat(Ops.MUL, src=(x, y))]), lambda c, x, y: None)   # both orders match
  g = groups(outer, (x * 1, lambda x: x))
  assert (0, 1, (1,)) in g and (0, 1, (0,)) not in g   # the MUL is written second, whichever order the instance has
  assert {o.actual for o in g[(0, 1, (1,))]} == {(0,), (1,)}


def test_dtypes_intersect_exactly_weak_ints_are_a_dtype_of_their_own():
  weak = (UPat(Ops.ADD, dtype=dtypes.weakint, name="x"), lambda x: None)
  boolean = (UPat(Ops.ADD, dtype=dtypes.bool, name="x"), lambda x: None)
  int32 = (UPat(Ops.ADD, dtype=dtypes.int32, name="x"), lambda x: None)
  assert (1, 0, ()) not in groups(weak, boolean) and (1, 0, ()) not in groups(weak, int32)
  assert (1, 0, ()) in groups(weak, (UPat(Ops.ADD, dtype=(dtypes.weakint, dtypes.int32), name="x"), lambda x: None))


def test_source_counts_strict_and_allow_any_len():
  two = (UPat(Ops.STACK, src=(x, y)), lambda x, y: None)
  three = (UPat(Ops.STACK, src=(x, y, UPat.var("z"))), lambda x, y, z: None)
  at_least_one = (UPat(Ops.STACK, src=(x,), allow_any_len=True), lambda x: None)
  assert (1, 0, ()) not in groups(two, three)
  assert (1, 0, ()) in groups(two, at_least_one) and (1, 0, ()) in groups(three, at_least_one)


def test_an_overlap_that_would_make_a_node_contain_itself_is_not_one():
  g = groups((x + x, lambda x: x * 2), (x + x * 2, lambda x: x * 3))   # x = x*2 has no finite solution
  assert (1, 0, ()) not in g and (1, 0, (1,)) not in g


def test_weak_ints_do_not_wrap_in_the_verdict():
  big = 2**32
  pm = PatternMatcher([((x * UPat.cvar("c", arg=big)) // UPat.cvar("c", arg=big), lambda x, c: x),
                       (UPat(Ops.FLOORDIV, src=(UPat(Ops.MUL, name="m"), UPat.cvar("c"))), lambda m, c: (m + 0) // c)])
  report = critical_pairs(pm)
  [p] = [p for p in report.pairs if p.rule_indices == (0, 1)]
  assert p.status == "not-joinable" and p.witness.src[0].src[0].op is Ops.BUFFER   # a variable a, in [0, 10]
  assert p.verdict == "syntactic"   # (a * 2**32 + 0) // 2**32 is a: in uopc's i32 (which wraps) it would be 0


def test_joinability_is_decided_by_tinygrads_rules():
  pm = adapt(symbolic)
  assert join(pm, a + 0, a * 1).how == "same normal form"
  assert join(pm, a + 1, a + 2).status == "not-joinable"


def test_every_rule_of_symbolic_is_analyzed_or_skipped_with_a_reason():
  src = TinygradOverlaps(adapt(symbolic))
  skipped = dict(src.skipped)
  assert len(symbolic.patterns) == 118 and len(skipped) <= 3
  assert all(why.startswith("no node of ") for why in skipped.values())
  analyzed = {i for key in src.groups for i in key[:2]}
  assert all(i in analyzed or adapt(symbolic).rules[i].name in skipped for i in range(118))


def test_a_rule_matching_a_tag_is_skipped_with_why():
  pm = PatternMatcher([(UPat(Ops.ADD, tag="t", name="x"), lambda x: None), (x + 0, lambda x: x)])
  src = TinygradOverlaps(adapt(pm))
  assert [why for _, why in src.skipped] == ["its pattern matches a tag (instances carry none)"]


def test_explore_pairs_tinygrad_json_has_skipped_rules_and_verdicts(capsys):
  code, out, err = run_cli(capsys, "explore", "pairs", "tinygrad:symbolic_simple", "--format", "json")
  data = json.loads(out)
  assert code == 1 and err == ""
  assert data["skipped_rules"] and all(set(s) == {"rule", "reason"} for s in data["skipped_rules"])
  assert any(s["rule"].endswith("movement.py:11") for s in data["skipped_rules"])
  zero = [p for p in data["pairs"] if p["witness"] == "floordiv(0, 0)" and p["rules"][0].endswith("symbolic.py:114")
          and p["rules"][1] == "fold_const_alu#40"]
  assert zero and zero[0]["results"] == ["1", "0"] and zero[0]["verdict"] == "semantic"
  assert data["summary"]["rules"] == 71 and data["summary"]["not_joinable"] > 0


def test_explore_pairs_tinygrad_text_lists_what_was_not_analyzed(capsys):
  code, out, err = run_cli(capsys, "explore", "pairs", "tinygrad:symbolic_simple")
  assert code == 1 and err == ""
  assert "not analyzed: symbolic_simple#65 movement.py:11: no node of PERMUTE can be built for it" in out
  assert "  semantic: different values" in out and out.rstrip().splitlines()[-1].startswith("tinygrad:symbolic_simple: 71 rules")
