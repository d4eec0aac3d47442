"""``uopc/lengths.py``: every place that prints a term with a length limit names it from the one table."""
import ast
import pathlib

from uopc.lengths import LENGTHS, TermLengths

ROOT = pathlib.Path(__file__).resolve().parents[1]
PRINTERS = {"show", "show_pattern", "term", "describe", "step_text"}   # the printers that take a limit


def literal_limits(path: pathlib.Path) -> list[str]:
  """``file:line`` of each printer call whose limit is a number written in place."""
  out = []
  for node in ast.walk(ast.parse(path.read_text())):
    if not isinstance(node, ast.Call): continue
    name = node.func.id if isinstance(node.func, ast.Name) else node.func.attr if isinstance(node.func, ast.Attribute) else None
    if name not in PRINTERS: continue
    limits = node.args[1:2] if name in ("show", "show_pattern") else node.args[:1]
    limits += [k.value for k in node.keywords if k.arg == "limit"]
    if any(isinstance(a, ast.Constant) and isinstance(a.value, int) for a in limits): out.append(f"{path.relative_to(ROOT)}:{node.lineno}")
  return out


def test_no_printer_is_called_with_a_length_of_its_own():
  """In the package: explore/'s scripts are a user's code, and choose their own lengths."""
  found = [hit for path in sorted((ROOT / "uopc").rglob("*.py")) for hit in literal_limits(path)]
  assert found == []


def test_the_finder_sees_a_literal_limit():
  probe = ROOT / "tests" / "_probe_lengths.py"
  try:
    probe.write_text("show(u, 60)\nshow(u, limit=LENGTHS.label)\ns.term(80)\nshow_pattern(x, limit=200)\n")
    assert literal_limits(probe) == ["tests/_probe_lengths.py:1", "tests/_probe_lengths.py:3", "tests/_probe_lengths.py:4"]
  finally: probe.unlink()


def test_the_table_runs_from_whole_outputs_down_to_operands():
  values = list(LENGTHS)
  assert values == sorted(values, reverse=True) and len(set(values)) == len(values) == len(TermLengths._fields)
  assert LENGTHS.whole == 10_000 and LENGTHS.line == 2_000 and LENGTHS.label == 60   # the outputs' texts as they were
