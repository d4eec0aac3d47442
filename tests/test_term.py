"""The one-line term form."""
from tests.helpers import param
from uopc import Ops, UOp, dtypes
from uopc.term import show


def test_terms_of_every_kind_of_node():
  p0 = param(0)
  assert show((p0 + 2) * 3) == "mul(add(p0, 2), 3)"
  assert show((p0 * p0).call(7, name="sq")) == "sq[mul(p0, p0)](7)"
  assert show(UOp.const(2.0).reshape((1, 1)).expand((2, 3)).reduce(Ops.ADD, 1)) == "reduce(expand(reshape(2.0, (1, 1)), (2, 3)), add, 1)"
  assert show(p0.cast(dtypes.f32)) == "cast(p0, f32)"
  assert show(UOp.const(-0.0) + float("nan")) == "add(-0.0, nan)" and show(UOp.const(True)) == "True"


def test_limit_cuts_exponential_terms():
  t = param(0)
  for _ in range(40): t = t * t   # 2^40 leaves as a term
  s = show(t, limit=100)
  assert len(s) == 101 and s.endswith("…") and s.startswith("mul(mul(")


def test_names_reach_a_terminal_escaped():
  p0 = param(0)
  # ESC [2J clears the screen, ESC ] 0 ; retitles the window, BEL rings; none may reach a terminal raw
  for raw, shown in [("\x1b[2J", "\\x1b[2J"), ("\x1b]0;pwned\x07", "\\x1b]0;pwned\\x07"), ("a\nb\r", "a\\nb\\r"),
                     ("\x9b31m", "\\x9b31m"), ("x\\y", "x\\\\y"), ("\u2028", "\\u2028"), ("é ok", "é ok")]:
    assert show(p0.call(1, name=raw)) == f"{shown}[p0](1)"
  assert all(c.isprintable() for c in show(p0.call(1, name="".join(map(chr, range(0x20))))))
