"""Issue 36's adversary, a small fixed subset of ``dev/adversary.py``: whatever stops a command, it leaves a whole, valid
output in its format, marked incomplete, on stdout or on ``-o FILE`` (docs/failure-contract.md).

Each case runs the ``uopc`` console script (its supervisor and worker, importing this checkout) with one stop, and
``dev/adversary.py``'s checks judge it: a documented exit code, one line on stderr and no traceback, an output that
parses in its format and, when a bound stopped the command, says so. Nothing here measures time: a stop lands where
it lands on a loaded machine, and every place it can land must leave a valid output.
"""
import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("adversary", ROOT / "dev" / "adversary.py")
assert _spec is not None and _spec.loader is not None
adversary = importlib.util.module_from_spec(_spec)
sys.modules["adversary"] = adversary   # its dataclasses look their module up
_spec.loader.exec_module(adversary)
Case = adversary.Case
FIVE = "examples/five_params.uir"

CASES = {
  # a complete result whose reader stalls past --timeout and the supervisor's 8 s: written whole, not cut at 64 KiB
  "stalled reader": Case(0, "reachable", ["explore", "reachable", FIVE, "--max-states", "1000", "--timeout", "1", "--format", "json"],
                         "json", False, "stalled-reader", timeout=1.0, reader="stalled"),
  # the output cannot be written: exit 2 and one line, not exit 4 "internal error: OSError" or a traceback
  "stdout to /dev/full": Case(1, "run", ["run", "examples/vector.uir"], "text", False, "dev-full", reader="dev-full"),
  "stdout closed": Case(2, "reachable", ["explore", "reachable", "examples/order.uir"], "text", False, "stdout-closed", reader="stdout-closed"),
  # pairs, best and saturate stopped early write their JSON or page, to -o too, not a text line
  "pairs json -o, timeout": Case(3, "pairs", ["explore", "pairs", "symbolic", "--timeout", "0.5", "--format", "json"], "json", True, "timeout",
                                 timeout=0.5),
  "best json -o, memory": Case(4, "best", ["explore", "best", FIVE, "--max-memory", "40M", "--format", "json"], "json", True, "memory",
                               memory_mib=40),
  "saturate html -o, timeout in start-up": Case(5, "saturate", ["saturate", FIVE, "--timeout", "0.05", "--format", "html"], "html", True,
                                                "timeout", timeout=0.05),
  "pairs html, timeout": Case(6, "pairs", ["explore", "pairs", "symbolic", "--timeout", "0.5", "--format", "html"], "html", False, "timeout",
                              timeout=0.5),
  # the report of a timed-out exploration is cut by time in every format: DOT too (21 MB in 29 s on main, killed from outside)
  "reachable dot -o, timeout": Case(9, "reachable", ["explore", "reachable", FIVE, "--timeout", "1", "--format", "dot"], "dot", True, "timeout",
                                    timeout=1.0),
  # ... and past a few seconds of search: the drawing must not make every edge of the space before its first cut check
  "reachable dot, timeout 3": Case(11, "reachable", ["explore", "reachable", FIVE, "--timeout", "3", "--format", "dot"], "dot", False, "timeout",
                                   timeout=3.0),
  # text to -o is held until the command returns: a bound that cuts its report must not drop it (main: exit 3,
  # "output included", no file)
  "reachable text -o, timeout": Case(10, "reachable", ["explore", "reachable", FIVE, "--timeout", "2"], "text", True, "timeout", timeout=2.0),
  # a bound in each remaining format, on stdout and on -o
  "normal-forms dot -o, states": Case(7, "normal-forms", ["explore", "normal-forms", FIVE, "--max-states", "200", "--format", "dot"], "dot", True,
                                      "states"),
  "order text, memory": Case(8, "order", ["explore", "order", FIVE, "--max-memory", "40M", "--samples", "0"], "text", False, "memory",
                             memory_mib=40),
}


@pytest.fixture(scope="module")
def runner(tmp_path_factory):
  uopc = Path(sys.executable).parent / "uopc"   # the console script beside this Python; PYTHONPATH makes it import this checkout
  return adversary.Runner(uopc, ROOT, cap=120.0, workdir=tmp_path_factory.mktemp("adversary"))


@pytest.mark.parametrize("name", list(CASES))
def test_a_stop_leaves_a_valid_marked_output(runner, name):
  result = runner.run(CASES[name])
  wrong = "; ".join(result.problems + result.unmarked)
  assert not wrong, f"exit {result.code}: {wrong}; stderr {result.stderr.strip()[-300:]!r}\n  to repeat it: {result.repro}"


def test_the_checks_tell_a_cut_output_from_a_whole_one():
  """The judge itself: an output cut anywhere is invalid, a whole one is valid, and its incomplete marker is read."""
  page = '<!doctype html><html><script type="application/json" id="uopc-data">{"complete": false}</script></html>\n'
  assert adversary.validate("json", b'{"complete": false, "states": []}\n') == ("", False)
  assert adversary.validate("html", page.encode()) == ("", False)
  assert adversary.validate("dot", b"// incomplete: stopped by --timeout 1 s\ndigraph states {\n\t0 [label=\"}\"]\n}\n") == ("", False)
  assert adversary.validate("text", b"5 states\nincomplete: stopped by --max-states 5\n") == ("", False)
  assert adversary.validate("json", b'{"summary": {"complete": false}}') == ("", None)   # a marker nested deeper is no marker
  for fmt, whole in (("json", b'{"complete": true, "states": [1, 2]}'), ("html", page.encode()), ("dot", b"digraph s {\n\t0 -> 1\n}\n")):
    for cut in (len(whole) // 3, len(whole) // 2, len(whole) - 2):
      problem, _ = adversary.validate(fmt, whole[:cut])
      assert problem, (fmt, cut)
  assert adversary.validate("text", b"")[0] == "empty"
