"""The .uir parser's plain lines in C (uopc/_uir.c) against their Python reading (uir._Parser.plain_lines_py).

Both must read the same lines, stop at the same one and leave the parser in the same state (its refs, their lines, the
PARAMs' positions, the root); parse_uir must give the same node or the same error with each. The C reader makes nodes
itself, so the ones it makes first are checked against the IR's own type check."""
import random

import pytest
from hypothesis import given, settings, strategies as st

from uopc import collector, uir, uop
from uopc.dtype import dtypes
from uopc.uir import UIRError, parse_uir, to_uir
from uopc.uop import UOp

try: from strategies import graphs, mutated   # tests/ on sys.path (rootdir-style test layout)
except ImportError: from tests.strategies import graphs, mutated

OPS = ["add", "mul", "max", "cmplt", "cmpne", "floordiv", "floormod", "sub", "where", "stack", "add1", "param"]
LITERALS = ["0", "1", "-3", "0001", "2.5", "-0.0", ".5", "1e+20", "1E-5", "1e5", "1e", "1e+", "inf", "-inf", "nan", "True", "False",
            "99999999999", "2147483648", "-2147483648", "x", "-", ".", "1.2.3", "0x1", "1e+5e+3", "e+5"]
DTYPES = ["i32", "f32", "bool", "f64", "I32", ""]
MUTATIONS = list("%=,:()#-+._ \t\r0123456789eEx") + ["%0", "%1", "%9", "add", "f32", "bool", "\x0c", "é", " : slot=", " dtype="]


@st.composite
def programs(draw: st.DrawFn) -> str:
  """A text of mostly plain lines (scalar PARAMs and binary nodes), well typed or not, some with other layouts."""
  base = draw(st.integers(0, 10**6))   # fresh PARAM slots: the nodes are new as often as not
  names: list[str] = []
  lines = []
  for k in range(draw(st.integers(1, 12))):
    name = draw(st.sampled_from([f"%{k}", f"%{k}", f"%{k}", f"%n{k}", "%0", "%_", f"%0{k}", "%123456789"]))
    kind = draw(st.integers(0, 9))
    if kind <= 2 or not names:
      slot = draw(st.sampled_from([base, base + 1, base + 2, 0, 1234567890, 123456789]))
      line = f"{name} = param : slot={slot:0{draw(st.integers(1, 3))}d} dtype={draw(st.sampled_from(DTYPES[:3] * 3 + DTYPES[3:]))}"
      if kind == 2: line += draw(st.sampled_from([" shape=(2,)", " addrspace=g", ""]))
    else:
      def operand() -> str:
        return draw(st.sampled_from(names + ["%99"])) if draw(st.integers(0, 2)) else draw(st.sampled_from(LITERALS))
      line = f"{name} = {draw(st.sampled_from(OPS))} {operand()}, {operand()}"
      if kind == 9: line += draw(st.sampled_from([", 1", "  # c", " : dtype=i32", ""]))
    lines.append(line + draw(st.sampled_from(["", "", "", " ", "\t", "\r", " \r", "\x0c"])))
    names.append(name)
  return "\n".join(lines) + draw(st.sampled_from(["\n", "", "\n\n"]))


def mutant(rng: random.Random, text: str) -> str: return mutated(rng, text, MUTATIONS)


def plain_reading(text: str, native: bool) -> tuple:
  """What plain_lines does from the first line: where it stops, and the parser's state."""
  p = uir._Parser()
  lines = text.split("\n")
  stop = p.plain_lines(lines, 0) if native else p.plain_lines_py(lines, 0)
  return stop, list(p.refs.items()), p.lines_of, list(p.params.items()), p.root


def parse_reading(text: str, native: bool) -> object:
  """parse_uir's node or error text, with the C reader or without it."""
  saved = uir._native
  if not native: uir._native = None
  try: return parse_uir(text, "n.uir")
  except UIRError as e: return str(e)
  finally: uir._native = saved


def same(a: object, b: object) -> bool:
  """Equal, with nodes compared by identity (hash consing: the same node, not an equal one)."""
  if isinstance(a, (list, tuple)):
    return isinstance(b, type(a)) and len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
  return a is b if isinstance(a, UOp) else type(a) is type(b) and a == b


def check_new_nodes(before: int) -> None:
  """The nodes logged since ``before`` (the C reader's, when it ran first) are what the IR's type check makes them."""
  for u in uop._log[before:]:
    assert u.shape == uop._check(u.op, u.dtype, u.src, u.arg) and u._bounds is None
    assert uop._tables[u.op, u.dtype, u.arg][u.src] is u


def compare(text: str, c_first: bool) -> object:
  before = len(uop._log)
  if c_first: c, py = plain_reading(text, True), plain_reading(text, False)
  else: py, c = plain_reading(text, False), plain_reading(text, True)
  assert same(c, py), text
  if c_first: check_new_nodes(before)
  ours, theirs = parse_reading(text, True), parse_reading(text, False)
  assert ours is theirs if isinstance(theirs, UOp) else ours == theirs, text
  return theirs


def test_the_c_reader_is_built():
  # setup.py builds it (optional for an install without a compiler, but this suite runs with it)
  assert uir._native is not None


@settings(deadline=None)   # example count: the conftest profile (--slow for many)
@given(programs(), st.booleans(), st.randoms(use_true_random=False))
def test_c_and_python_plain_lines_agree(text, c_first, rng):
  compare(text, c_first)
  compare(mutant(rng, text), not c_first)


@settings(deadline=None)
@given(graphs(), st.booleans(), st.randoms(use_true_random=False))
def test_c_and_python_agree_on_printed_graphs(u, c_first, rng):
  text = to_uir(u)
  assert compare(text, c_first) is u
  compare(mutant(rng, text), c_first)


def test_many_programs_parse_or_fail_alike():
  rng = random.Random(27)
  parsed = 0
  for k in range(400):
    base = 10**7 + 100 * k
    lines = [f"%0 = param : slot={base} dtype=i32", f"%1 = param : slot={base + 1} dtype=i32"]
    for i in range(2, 30):
      a, b = f"%{rng.randrange(i)}", rng.choice([f"%{rng.randrange(i)}", *LITERALS[:4]])
      op = rng.choice(["add", "mul", "max", "floordiv", "floormod"] * 5 + ["cmplt", "cmpne", "sub"])
      lines.append(f"%{i} = {op} {a}, {b}" if rng.random() < 0.5 else f"%{i} = {op} {b}, {a}")
    text = mutant(rng, "\n".join(lines) + "\n") if k % 2 else "\n".join(lines) + "\n"
    parsed += isinstance(compare(text, k % 4 < 2), UOp)
  assert parsed > 20   # enough of them are well typed far enough to compare nodes, not only errors


def test_the_c_reader_makes_new_nodes_as_the_ir_does():
  before = len(uop._log)
  text = ("%0 = param : slot=31337 dtype=f32\n%1 = param : slot=31338 dtype=f32\n%2 = mul %0, 2\n%3 = cmplt %2, %1\n"
          "%4 = param : slot=31339 dtype=i32\n")
  root = parse_uir(text + "%5 = floormod %4, 3\n%6 = max %5, %4\n")
  p = [UOp.param(31337 + k, d) for k, d in enumerate([dtypes.f32, dtypes.f32, dtypes.i32])]
  assert root is (p[2] % 3).max(p[2])
  assert parse_uir(text.rsplit("%4", 1)[0]) is (p[0] * 2.0 < p[1])
  assert len(uop._log) - before >= 7   # the C reader made them (the three PARAMs, four binary nodes)
  check_new_nodes(before)


def test_the_c_reader_collects_when_the_log_is_full(monkeypatch):
  # uop._collect runs mid-line as make_checked runs it, and rebinds uop._log: the reader must log into the new one
  n = 200
  text = "%0 = param : slot=4242 dtype=i32\n" + "".join(f"%{i} = add %{i - 1}, {i}\n" for i in range(1, n))
  calls = []
  collect = uop._collect
  def counted():
    calls.append(len(uop._log))
    collect()
  monkeypatch.setattr(uop, "_collect", counted)
  monkeypatch.setattr(uop, "_cache_limit", len(uop._log) + 50)
  root = parse_uir(text)
  assert calls and uop._log[-1] is root   # collected once, and the nodes after it went to the log _collect left
  expected = UOp.param(4242)
  for i in range(1, n): expected = expected + i
  assert root is expected


def test_a_deep_chain_parses_in_c():
  text = "%0 = param : slot=777 dtype=i32\n" + "".join(f"%{i} = add %{i - 1}, 1\n" for i in range(1, 20_001))
  p = uir._Parser()
  assert p.plain_lines(text.split("\n"), 0) == 20_001   # every node line, to the empty last one
  assert p.root is parse_uir(text) and p.root.src[0].src[0] is p.refs["%19998"]


@pytest.mark.parametrize("line", ["%1 = add %0, 1e+5", "%1 = add %0, 1e", "%1 = add  %0, 1", "%1 = add %0,1", "%1 = Add %0, 1",
                                  "%1 = add %0, 1 ", "%1 = add %0, 1\r", "%1 = add %0, 1\x0c", "%1 = add %0, é", "%1 =  add %0, 1",
                                  "%1 = add %0, -", "%1 = add %0, 1e+5e+3", "%1 = add %0, %0.5", "%1 = param : slot=0000000001 dtype=i32",
                                  "%1 = param : slot=000000001 dtype=i32", "%1 = param : slot=1 dtype=i32 ", "%1 = param : slot=1 dtype=f64"])
def test_edge_lines_agree(line):
  compare("%0 = param : slot=5 dtype=f32\n" + line + "\n%2 = mul %1, %1\n", False)


def test_refs_from_before_a_general_line_are_seen_after_it():
  # the C reader knows the %N it defined itself; one that an earlier call defined, before a line only Python reads,
  # is looked up in the parser's refs: a second definition of it is an error, and a use of it is a node
  head = "%0 = param : slot=6 dtype=i32\n%1 = add %0, 1\n%2 = cast %1 : dtype=f32\n"
  assert compare(head + "%1 = add %0, 2\n", False) == "n.uir:4:1: %1 is already defined on line 2"
  assert compare(head + "%5 = param : slot=7 dtype=i32\n%1 = add %5, 1\n", True) == "n.uir:5:1: %1 is already defined on line 2"
  assert compare(head + "%3 = mul %1, %0\n", True) is (UOp.param(6) + 1) * UOp.param(6)


def test_a_signal_handler_runs_during_the_c_reader(monkeypatch):
  # the budget's timeout and Ctrl-C are signal handlers (uopc/cli/budget.py): they must run while C reads a big program, not
  # only after it; the handler notes how many nodes had been made, and stops the reading
  import signal
  monkeypatch.setattr(uop, "_cache_limit", 10**9)   # no _collect: a call into Python, where the handler would run anyway
  n = 200_000   # lines: well over 0.05 s in C on any machine, against a timer of 1 ms
  lines = ("%0 = param : slot=90210 dtype=i32\n" + "".join(f"%{i} = add %{i - 1}, 1\n" for i in range(1, n))).split("\n")
  parser, before, made = uir._Parser(), len(uop._log), []
  def handler(signum, frame):
    made.append(len(uop._log) - before)
    raise KeyboardInterrupt
  saved = signal.signal(signal.SIGALRM, handler)
  try:
    signal.setitimer(signal.ITIMER_REAL, 0.001)
    # parse_uir pauses the cycle collector, as here: else a collection's callbacks (hypothesis has one) may run the handler,
    # and an exception raised in a gc callback is dropped
    with collector.paused(), pytest.raises(KeyboardInterrupt): parser.plain_lines(lines, 0)
  finally:
    signal.setitimer(signal.ITIMER_REAL, 0)
    signal.signal(signal.SIGALRM, saved)
  assert len(made) == 1 and made[0] < n - 1 and len(parser.refs) < n - 1
