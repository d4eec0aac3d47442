"""Sampled normal forms: how many of a program's normal forms random runs find, and how fast.

For each program: its normal forms by exhaustive exploration where that is known (the .uir's header),
and the runs (seed 0) until the k-th distinct form: ``runs@k`` and the seconds to reach it.
Target: at least 12 of examples/five_params.uir's 16 within 5 s at the default bounds.
"""
from __future__ import annotations

import pathlib
import time

from uopc import UOp, parse_uir, symbolic
from uopc.relational.analyses.sample import sample_normal_forms

ROOT = pathlib.Path(__file__).resolve().parents[1]
PROGRAMS = [("five_params.uir", 16), ("stack_five_params.uir", 1), ("sum30.uir", None), ("doubling.uir", 1)]


def seconds_to(prog: UOp, found_at: list[int], k: int) -> str:
  """Seconds the runs take to find their k-th form (they are deterministic: run again up to that run)."""
  if len(found_at) < k: return "-"
  t = time.perf_counter()
  sample_normal_forms(prog, symbolic, seed=0, max_runs=found_at[k - 1], patience=None)
  return f"{time.perf_counter() - t:.2f} s"


def main() -> None:
  print("sampled normal forms (seed 0, symbolic, runs of at most 10,000 steps, 5 s each)")
  print(f"{'program':<24}{'known':>6}{'found':>7}{'runs':>8}{'runs/s':>8}{'12th at':>10}{'last new at':>14}")
  for name, known in PROGRAMS:
    prog = parse_uir((ROOT / "examples" / name).read_text())
    t0 = time.perf_counter()
    s = sample_normal_forms(prog, symbolic, seed=0, timeout=5.0, patience=None)
    elapsed = time.perf_counter() - t0
    last = f"run {s.found_at[-1]}" if s.found_at else "-"
    twelfth = seconds_to(prog, s.found_at, 12)
    print(f"{name:<24}{known if known is not None else '?':>6}{len(s.forms):>7}{s.runs:>8}{s.runs / elapsed:>8.0f}{twelfth:>10}{last:>14}")


if __name__ == "__main__": main()
