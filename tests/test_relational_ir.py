"""The node and rule protocols' registry (uopc/relational/ir): an IR per node type, found once per exploration."""
from __future__ import annotations

import pytest

from uopc import UOp, symbolic
from uopc.relational import explore
from uopc.relational.ir import UOPC, ir_of, rules_for
from uopc.relational.ir.discovery import other_ir_rules
from uopc.relational.ir.protocol import mismatch, type_name


def test_uopc_nodes_are_the_default_ir_and_its_matcher_is_its_own_rule_protocol():
  assert ir_of(UOp.param(0)) is UOPC and rules_for(UOp.param(0), symbolic) is symbolic


def test_an_object_of_no_ir_is_a_type_error_naming_the_known_ones():
  with pytest.raises(TypeError, match=r"^a str is not a node of any IR the explorer knows \(uopc.uop.UOp, "
                     r"uopc.relational.adapters.pytensor.nodes.PyTensorNode, tinygrad.uop.ops.UOp\)$"):
    ir_of("add(p0, 0)")


def test_a_rule_set_of_another_ir_is_told_apart_by_its_type_name_alone():
  class PatternMatcher: pass
  PatternMatcher.__module__, PatternMatcher.__qualname__ = "tinygrad.uop.ops", "PatternMatcher"
  pm = PatternMatcher()
  assert other_ir_rules(pm, "uopc") == "tinygrad" and other_ir_rules(symbolic, "uopc") is None
  assert str(mismatch("pm", pm, UOp.param(0))).startswith("pm is a tinygrad.uop.ops.PatternMatcher, but the program is a uopc.uop.UOp")


def test_a_uopc_program_keeps_the_matcher_messages():
  with pytest.raises(TypeError, match="^explore: pm is an int, not a uopc PatternMatcher$"): explore(UOp.param(0), 3)
  assert type_name(int) == "int" and type_name(UOp) == "uopc.uop.UOp"


def test_a_rule_set_finds_its_ir_before_any_of_its_nodes_was_seen():
  # in a fresh interpreter no IR but uopc's is imported yet: the rule set's own type names its IR's module
  import subprocess
  import sys
  code = ("from pytensor.tensor.rewriting.math import local_exp_log\n"
          "from tinygrad.uop.symbolic import symbolic\n"
          "from uopc.relational.ir import ir_of_rules\n"
          "print(ir_of_rules(local_exp_log)[0].name, ir_of_rules(symbolic)[0].name)\n")
  done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
  assert done.returncode == 0, done.stderr[-2000:]
  assert done.stdout.split() == ["pytensor", "tinygrad"]
