"""The safe emitter's cost: ``python -m bench emit``.

Renders the C source of large programs (``program_source``, what ``uopc emit-c``
prints, without simplification so the graph stays large) twice in the same run: with
``uopc.backend.emit`` (type-checked literals, escaped comment, mangled names), and with
the unchecked formatting the backend used before (``repr`` literals, the header comment
pasted verbatim). Best of 7 alternating runs, in ms; ``overhead`` is the ratio of the two.
"""
from __future__ import annotations

import math
from contextlib import contextmanager
from typing import Any, Iterator

from uopc import UOp, dtypes

from uopc.backend import c as c_module, driver
from uopc.backend.driver import program_source

from bench.backend import _best


def _unchecked_literal(v: Any, dtype: Any) -> str:
  if dtype is dtypes.bool: return "1" if v else "0"
  if dtype is dtypes.i32: return "INT32_MIN" if v == -2**31 else f"({v})" if v < 0 else str(v)
  if math.isnan(v): return "NAN"
  if math.isinf(v): return "INFINITY" if v > 0 else "(-INFINITY)"
  text = repr(v) + "f"
  return f"({text})" if text.startswith("-") else text


@contextmanager
def _unchecked() -> Iterator[None]:
  """The emitter's functions swapped for verbatim formatting (unsafe: for this measurement only)."""
  saved = c_module.literal, driver.comment
  c_module.literal, driver.comment = _unchecked_literal, lambda text: f"/* {text} */"
  try: yield
  finally: c_module.literal, driver.comment = saved


def programs() -> list[tuple[str, UOp]]:
  """A 20,000-node f32 chain with a distinct constant per node, and a chain of 2,000 named CALLs."""
  x = UOp.param(0, dtypes.f32)
  for i in range(10_000): x = x * (1.0 + i * 1e-6) + float(-i)
  p0 = UOp.param(0)
  y = p0
  for i in range(2_000): y = (p0 + i).call(y, name=f"f{i}\\*/ ??/")
  return [("f32 chain, 20,000 constants", x), ("2,000 named CALLs", y)]


def main() -> None:
  """Print the table."""
  print("safe emitter: program_source without simplify (ms, best of 7; overhead = safe / unchecked, this run)")
  rows = []
  for name, prog in programs():
    safe = raw = float("inf")
    for _ in range(7):   # alternate, so that load on the machine hits both alike
      safe = min(safe, _best(lambda prog=prog: program_source(prog, simplify=False), repeats=1))
      with _unchecked(): raw = min(raw, _best(lambda prog=prog: program_source(prog, simplify=False), repeats=1))
    rows.append((name, safe * 1e3, raw * 1e3))
  w = max(len(r[0]) for r in rows)
  print(f"{'program':{w}}  {'safe':>9}  {'unchecked':>9}  {'overhead':>8}")
  for name, safe, raw in rows: print(f"{name:{w}}  {safe:9.1f}  {raw:9.1f}  {safe / raw:7.3f}x")


if __name__ == "__main__":
  main()
