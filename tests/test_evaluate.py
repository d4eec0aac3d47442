"""evaluate and run(): the chapter's evaluations, traces of the rules that fired, CALL scoping."""
import io

import pytest

from tests.helpers import param
from uopc import Ops, PatternMatcher, UOp, UOpError, dtypes, evaluate, inline_call, run, symbolic, to_python
from uopc.evaluate import UndefinedError, bind_params, from_python
from uopc.rewrite import ProgramError, graph_rewrite
from uopc.term import show
from uopc.uir import parse_uir

p0 = param(0)


class Fired(PatternMatcher):
  """Print only the rules that fired, in the chapter's listing format."""
  def __init__(self, rules, out, wrap=False):
    super().__init__(rules)
    self.out, self.wrap = out, wrap

  def rewrite(self, u, ctx=None):
    r = super().rewrite(u, ctx)
    if r is not None:
      print(f"  {show(u)}\n      => {show(r)}" if self.wrap else f"  {show(u):40s} => {show(r)}", file=self.out)
    return r


def traced_run(u, wrap=False):
  out = io.StringIO()
  value = to_python(graph_rewrite(u, Fired((symbolic + evaluate).rules, out, wrap)))
  return value, out.getvalue()


def test_run_pushes_alu_through_stack():
  prog = parse_uir("%0 = stack 1, 2, 3\n%1 = stack 10, 20, 30\n%2 = mul %0, %1\n%3 = add %2, %0\n")
  value, trace = traced_run(prog)
  assert value == [11, 42, 93]
  assert trace == """\
  mul(stack(1, 2, 3), stack(10, 20, 30))   => stack(mul(1, 10), mul(2, 20), mul(3, 30))
  mul(1, 10)                               => 10
  mul(2, 20)                               => 40
  mul(3, 30)                               => 90
  add(stack(10, 40, 90), stack(1, 2, 3))   => stack(add(10, 1), add(40, 2), add(90, 3))
  add(10, 1)                               => 11
  add(40, 2)                               => 42
  add(90, 3)                               => 93
"""


def test_run_where_of_a_pushed_comparison():
  a, b = UOp.stack(1, 2, 3), UOp.stack(10, 20, 30)
  value, trace = traced_run((a < UOp.stack(2, 2, 2)).where(a, b))
  assert value == [1, 20, 30]
  assert trace == """\
  cmplt(stack(1, 2, 3), stack(2, 2, 2))    => stack(cmplt(1, 2), cmplt(2, 2), cmplt(3, 2))
  cmplt(1, 2)                              => True
  cmplt(2, 2)                              => False
  cmplt(3, 2)                              => False
  where(stack(True, False, False), stack(1, 2, 3), stack(10, 20, 30)) => stack(where(True, 1, 10), where(False, 2, 20), where(False, 3, 30))
  where(True, 1, 10)                       => 1
  where(False, 2, 20)                      => 20
  where(False, 3, 30)                      => 30
"""


def test_index_of_stack():
  m = UOp.stack(UOp.stack(1, 2, 3), UOp.stack(10, 20, 30))
  value, trace = traced_run(m.index(1).index(2))
  assert value == 30
  assert trace == """\
  index(stack(stack(1, 2, 3), stack(10, 20, 30)), 1) => stack(10, 20, 30)
  index(stack(10, 20, 30), 2)              => 30
"""
  assert to_python(run(m.index(1, 2))) == 30
  assert to_python(run(m.index())) == [[1, 2, 3], [10, 20, 30]]


def test_a_needed_index_out_of_bounds_raises_the_chapters_index_error():
  oob = UOp.stack(1, 2, 3).index(5)
  # the chapter: "IndexError: index 5 out of bounds for STACK of 3", raised by run, not by to_python later
  with pytest.raises(IndexError, match=r"^index 5 out of bounds for STACK of 3$") as e: run(oob)
  assert isinstance(e.value, ProgramError)   # the program fails, not a rule: exit 1, and check-rules blames the instance
  with pytest.raises(IndexError, match=r"^index -1 out of bounds for STACK of 2$"):
    run(UOp.stack(UOp.stack(1, 2), UOp.stack(3, 4)).index(1, -1) + 1)
  with pytest.raises(IndexError, match=r"^index 3 out of bounds for STACK of 3$"): run(p0 + UOp.stack(1, 2, 3).index(3))
  with pytest.raises(IndexError, match=r"^index 5 out of bounds"): run(UOp.stack(oob, 1))   # an element of the value


def test_a_dead_index_out_of_bounds_is_no_error():
  oob = UOp.stack(1, 2, 3).index(5)
  assert to_python(run(UOp.const(True).where(1, oob))) == 1 and to_python(run(oob * 0)) == 0   # dead: dropped
  maybe = (p0 < 1).where(oob, 0)   # needed only if p0 < 1: run leaves it to the binding
  assert run(maybe) is maybe
  assert to_python(run(bind_params(maybe, {0: 4}))) == 0
  with pytest.raises(IndexError, match=r"^index 5 out of bounds for STACK of 3$"): run(bind_params(maybe, {0: 0}))
  # the innermost undefined operation is the one named, as to_python does
  with pytest.raises(UndefinedError, match=r"^division by zero: 7 // 0$"): to_python(run(UOp.stack(1, 2).index(UOp.const(7) // 0) + oob))
  # graph_rewrite itself leaves the INDEX (an error only where the value is needed); to_python names it as the C backend does
  assert graph_rewrite(oob, symbolic + evaluate) is oob
  with pytest.raises(UndefinedError, match=r"^index 5 out of bounds for axis 0 of size 3$"): to_python(oob)


@pytest.mark.parametrize("prog, message", [
  (UOp.const(7) // 0, "division by zero: 7 // 0"), (UOp.const(7) % 0, "modulo by zero: 7 % 0"),
  (UOp.const(-2**31) // -1, "overflow: -2147483648 // -1"),
  (UOp.const(float("inf")).cast(dtypes.i32), "cast of inf to i32 is undefined"),
  (UOp.stack(4, 5) // UOp.stack(1, 0), "division by zero: 5 // 0"),   # inside a STACK
])
def test_undefined_operations_are_named_as_the_c_backend_names_them(prog, message):
  with pytest.raises(UndefinedError) as e: to_python(run(prog))
  assert str(e.value) == message
  with pytest.raises(ValueError, match="did not evaluate to a value, stuck at Ops.ADD"): to_python(run(UOp.param(0) + 1))


def test_movement_ops_on_constant_data():
  prog = parse_uir("""\
%0 = stack 1.0, 2.0, 3.0
%1 = stack %0, %0
%2 = mul %1, 2
%3 = permute %2, (1, 0)
%4 = reduce %3 : op=add pop=1
""")
  value, trace = traced_run(prog, wrap=True)
  assert value == [4.0, 8.0, 12.0]
  assert trace == """\
  reshape(2.0, (1, 1))
      => stack(stack(2.0))
  expand(stack(stack(2.0)), (2, 3))
      => let a = stack(2.0, 2.0, 2.0) in stack(a, a)
  let a = stack(1.0, 2.0, 3.0), b = stack(2.0, 2.0, 2.0) in mul(stack(a, a), stack(b, b))
      => let a = mul(stack(1.0, 2.0, 3.0), stack(2.0, 2.0, 2.0)) in stack(a, a)
  mul(stack(1.0, 2.0, 3.0), stack(2.0, 2.0, 2.0))
      => stack(mul(1.0, 2.0), mul(2.0, 2.0), mul(3.0, 2.0))
  mul(1.0, 2.0)
      => 2.0
  mul(2.0, 2.0)
      => 4.0
  mul(3.0, 2.0)
      => 6.0
  let a = stack(2.0, 4.0, 6.0) in permute(stack(a, a), (1, 0))
      => stack(stack(2.0, 2.0), stack(4.0, 4.0), stack(6.0, 6.0))
  reduce(stack(stack(2.0, 2.0), stack(4.0, 4.0), stack(6.0, 6.0)), add, 1)
      => stack(4.0, 8.0, 12.0)
"""


def test_shrink_and_expand_of_a_vector():
  v = UOp.stack(1, 2, 3, 4)
  assert to_python(run(v.shrink(((1, 3),)))) == [2, 3]
  assert to_python(run(v.reshape((2, 2)).permute((1, 0)).reduce(Ops.MAX, 1))) == [3, 4]
  assert to_python(run(UOp.stack(5).reshape((1, 1)).expand((2, 3)))) == [[5, 5, 5], [5, 5, 5]]


def test_call_is_beta_reduction():
  prog = parse_uir("%0 = param : slot=0 dtype=i32\n%1 = mul %0, %0\n%2 = call %1, 7 : name=sq\n")
  assert show(prog) == "sq[mul(p0, p0)](7)"
  assert to_python(run(prog)) == 49


def nested_f():
  """f(y) = g(y + 1), g(z) = sq(z) * 2, sq(w) = w * w; all three parameters are p0."""
  sq = (p0 * p0).call(p0, name="sq")
  g = (sq * 2).call(p0 + 1, name="g")
  return g, g.call(5, name="f")


def naive_inline(call):
  return call.src[0].substitute({p0: call.src[1]})


def test_nested_calls_scoping():
  g, f = nested_f()
  assert show(f) == "f[g[mul(sq[mul(p0, p0)](p0), 2)](add(p0, 1))](5)"
  assert to_python(run(f)) == 72
  assert show(naive_inline(g)) == "let a = add(p0, 1) in mul(sq[mul(a, a)](a), 2)"
  assert show(inline_call(g)) == "mul(sq[mul(p0, p0)](add(p0, 1)), 2)"
  assert to_python(run(naive_inline(g).call(5))) == 98   # the argument was incremented twice
  assert to_python(run(inline_call(g).call(5))) == 72


def test_naive_inline_with_a_constant_argument_breaks_the_inner_call():
  sq = (p0 * p0).call(p0, name="sq")
  with pytest.raises(UOpError, match=r"^CALL needs params 0\.\.0, body has \[\]$"):
    naive_inline((sq * 2).call(6))
  assert to_python(run((sq * 2).call(6))) == 72


def test_run_on_a_non_closed_program_is_stuck():
  with pytest.raises(ValueError, match=r"program did not evaluate to a value, stuck at Ops.ADD"):
    to_python(run(p0 + 1))


def test_bind_params_is_scoped():
  sq = (p0 * p0).call(p0 + 1, name="sq")   # the body's p0 is sq's own
  bound = bind_params(sq + p0, {0: 3})
  assert show(bound) == "add(sq[mul(p0, p0)](add(3, 1)), 3)"
  assert to_python(run(bound)) == 19


def test_from_python_checks_shapes_and_converts_dtypes():
  assert to_python(from_python([[1, 2], [3, 4]], dtypes.f32, (2, 2))) == [[1.0, 2.0], [3.0, 4.0]]
  with pytest.raises(ValueError, match="expected a list of 2"):
    from_python([1, 2, 3], dtypes.i32, (2,))
  with pytest.raises(ValueError, match="expected an i32"):
    from_python(1.5, dtypes.i32)


def test_long_closed_chain_runs():
  chain = UOp.const(0)
  for _ in range(20_000): chain = chain + 1
  assert to_python(run(chain)) == 20_000


# ---- property: run() agrees with an independent evaluation of random closed programs
from hypothesis import given  # noqa: E402

from tests.reference import Undefined, build, evaluate as reference_value, programs, same_value  # noqa: E402


@given(programs(depth=4))
def test_run_matches_the_reference_semantics(tree):
  prog = build(tree)
  try: expected = reference_value(tree)
  except Undefined:
    # a trap is never folded into a value, unless a rule deleted the trapping subexpression
    # (x * 0 -> 0 and where(c, x, x) -> x discard x: the program then has a value)
    try: to_python(run(prog))
    except UndefinedError: pass   # it names the trap (it is never stuck otherwise: the program is closed)
    return
  assert same_value(to_python(run(prog)), expected), (tree, to_python(run(prog)), expected)


def test_a_call_body_that_simplifies_away_its_param_still_runs():
  body = UOp.const(False).where(p0, UOp.const(0))   # where(False, p0, 0): its normal form is 0, no PARAM left
  call = body.call(5, name="f")
  assert to_python(run(call)) == 0
  assert to_python(run(call + 1)) == 1


def test_uopc_evaluate_is_the_rule_set_and_the_module_is_in_sys_modules():
  """``uopc.evaluate`` names the rule set (the package binds it over the submodule); the module stays importable."""
  import importlib
  import sys
  import uopc
  import uopc.evaluate as m
  from uopc import evaluate as from_package
  from uopc.matcher import PatternMatcher
  from uopc.rulesets import resolve_rules
  from uopc.evaluate import evaluate as from_module
  module = importlib.import_module("uopc.evaluate")
  assert isinstance(m, PatternMatcher) and m is from_package is from_module is uopc.evaluate
  assert module is sys.modules["uopc.evaluate"] and module is not m and module.evaluate is m
  assert resolve_rules("uopc.evaluate:evaluate") is m
