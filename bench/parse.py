"""Parsing a program against Maude 3.5's ``parseTerm``: ``python -m bench parse``.

The programs of ``bench maude`` (``bench/maude_gen.py`` writes each one's ``.uir`` text and its Maude term from one
term): the balanced sum (iv) of 10,000 and 100,000 nodes and a chain of 20,000 ``+`` nodes (every node a level
deeper). ``parse_uir`` reads the text with its C plain-line reader (``uopc/_uir.c``) and, in the ``Py reader`` column,
with its pure-Python one (``plain_lines_py``); Maude parses the term in the bench's module (``m.parseTerm``). Each
repeat parses a new program (fresh PARAM slots: hash consing would hand back the last run's nodes), the three
alternating, each timed in process CPU time after a garbage collection of both Python's objects and uopc's node
tables (the last run's nodes are dropped outside the timing, as Maude's are when its term goes).

The machine may be shared: ``best`` is the minimum over ``REPEATS`` (the light-load figure), ``median`` the run as
loaded; the ratios are uopc's time over Maude's from the same repeats. The bar (issue 27): 100,000 nodes within 3x.
Without the ``maude`` package (``pip install -e '.[bench]'``) the Maude columns say so.
"""
from __future__ import annotations

import gc
import os
import statistics
import sys
import time
from functools import partial
from typing import Callable

if __package__ in (None, ""):   # run by its path: the repository's root first (as bench/maude.py does)
  _here = os.path.dirname(os.path.abspath(__file__))
  sys.path[:] = [os.path.dirname(_here), *(p for p in sys.path if os.path.abspath(p or ".") != _here)]

from bench.maude import _module, add_chain, big_sum, maude_available
from bench.maude_gen import Term, maude_term, uir_text
from uopc import uir
from uopc.uop import live_nodes

REPEATS = 7
PROGRAMS: list[tuple[str, Callable[[int, int], Term], int]] = [("(iv) big sum", big_sum, 10_000), ("(iv) big sum", big_sum, 100_000),
                                                                ("chain of +", add_chain, 20_000)]
_slots = iter(range(6 * 10**8, 10**9, 300_000))   # fresh PARAM slots per run, above bench/maude.py's; 9 digits (plain lines read 9)


def _timed(parse: Callable[[], object]) -> float:
  gc.collect()
  live_nodes()   # uopc's tables drop the last run's nodes here, not inside the next timing
  t0 = time.process_time()
  parse()
  return time.process_time() - t0


def _parse_py(text: str) -> None:
  saved, uir._native = uir._native, None
  try: uir.parse_uir(text)
  finally: uir._native = saved


def row(make: Callable[[int, int], Term], size: int, with_maude: bool) -> dict[str, list[float]]:
  """Seconds per repeat of each reader: ``uopc`` (C reader), ``py`` (Python reader), ``maude``."""
  module = _module(("add0",)) if with_maude else None
  times: dict[str, list[float]] = {"uopc": [], "py": [], "maude": []}
  for rep in range(REPEATS):
    runs: list[tuple[str, Callable[[], object]]] = [("uopc", partial(uir.parse_uir, uir_text(make(size, next(_slots))))),
                                                    ("py", partial(_parse_py, uir_text(make(size, next(_slots)))))]
    if module is not None: runs.append(("maude", partial(module.parseTerm, maude_term(make(size, next(_slots))))))
    for name, run in runs if rep % 2 == 0 else runs[::-1]:
      times[name].append(_timed(run))
  return times


def main() -> None:
  with_maude = maude_available()
  print(f"parsing a program: uopc's parse_uir (.uir) against Maude 3.5's parseTerm, process CPU ms, {REPEATS} repeats alternating "
        f"(best = light load, median = as loaded; load average {os.getloadavg()[0]:.2f} at the start)")
  if uir._native is None: print("(uopc/_uir.c is not built: the uopc column is the Python reader too)")
  if not with_maude: print("(the `maude` package is not installed: pip install -e '.[bench]'; Maude columns skipped)")
  print(f"{'program':14s} {'nodes':>7s} {'uopc best':>9s} {'median':>7s} {'Py reader':>9s} {'Maude best':>10s} {'median':>7s} "
        f"{'uopc/Maude best':>15s} {'median':>7s} {'Py/Maude best':>13s}")
  for name, make, size in PROGRAMS:
    t = row(make, size, with_maude)
    best = {k: min(v) * 1e3 for k, v in t.items() if v}
    med = {k: statistics.median(v) * 1e3 for k, v in t.items() if v}
    def ratio(a: dict[str, float], k: str) -> str:
      return f"{a[k] / a['maude']:.2f}" if "maude" in a else "-"
    print(f"{name:14s} {size:7,d} {best['uopc']:9.0f} {med['uopc']:7.0f} {best['py']:9.0f} {best.get('maude', float('nan')):10.0f} "
          f"{med.get('maude', float('nan')):7.0f} {ratio(best, 'uopc'):>15s} {ratio(med, 'uopc'):>7s} {ratio(best, 'py'):>13s}")
    sys.stdout.flush()


if __name__ == "__main__":
  main()
