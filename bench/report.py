"""What a command's report costs on top of its search, in every format: ``python -m bench report``.

For ``uopc explore normal-forms examples/five_params.uir --no-reduce`` (its whole space: 488,511 states, 8.7 million steps),
and the same program with four parameters (26,685 states, 377,182 steps: a small report, still written item by item),
with ``--format text`` (stdout to /dev/null), ``--format json -o F`` and ``--format html -o F``, one process runs the library's
``explore(prog, symbolic, reduce=False).run()`` (the command's bounds: none that the search reaches) and others the command
as a user runs it: the console script's supervisor (``uopc_launch.py``) and its worker. The table gives each one's CPU time
(user + system of the process and every process it waited for: start-up, imports and the parse counted on both sides) and
peak resident memory (the largest process's), and the command's ratio to the library; ``sys``: the part of the CPU
spent in the kernel (writing a 927 MB report costs 0.2 s there on a quiet disk, 2 s on a busy one). The bar (issues 23, 41): within 1.5x
in both. A round runs the library and each format once, in turn; the table keeps each one's best of ``REPEATS`` rounds (``ROUNDS=n``)
(the machine may be shared: the load is printed).

``AGAINST=tree`` measures another checkout's code beside this one's (each its library and its commands, run in that tree
with its code on the path), the two trees' turns in each round alternating which goes first; each row is printed twice,
"before" (the other tree) and "after".

``python -m bench.report all`` adds ``reachable`` and ``order`` (text), and a chain of 999 ``+ 0`` nodes (1,000 states,
499,500 steps) in every format; ``python -m bench.report chain`` runs only the chain's rows.
"""
from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import NamedTuple

REPEATS = int(os.environ.get("ROUNDS", "3"))   # (ROUNDS=n: more rounds where the machine is busy)
DEPTH = 100_000
BOUNDS = ["--max-states", "2000000", "--max-depth", str(DEPTH), "--timeout", "1800", "--max-memory", "16G"]   # the whole space: no bound is hit
CHAIN = 999   # + 0 nodes: 1,000 states
ROOT = Path(__file__).resolve().parent.parent
LIBRARY = """import sys
from uopc.cli.support import load_program
from uopc.relational import explore
from uopc.symbolic import symbolic
ex = explore(load_program(sys.argv[1]), symbolic, max_states=None, max_depth={depth}, reduce=sys.argv[2] == "reduce").run()
assert ex.complete, ex.bound
"""
COMMAND = "import sys, uopc_launch; sys.argv[0] = 'uopc'; sys.exit(uopc_launch.main())"   # the console script's own lines


class Row(NamedTuple):
  program: str
  file: str
  command: str
  fmt: str
  reduce: bool


class Cost(NamedTuple):
  cpu: float    # seconds, user + system, with the processes waited for
  sys: float    # seconds of it in the kernel (a report's 927 MB written: 0.2 s to 2 s, as the machine's disk is busy)
  peak: float   # MB, the largest process's resident memory
  code: int


def chain_text(n: int = CHAIN) -> str:
  """``p0 + 0 + ... + 0`` (``n`` times) as ``.uir``: state k holds k zeros, every redex of it makes the same graph."""
  lines = ["%0 = param : slot=0 dtype=i32"] + [f"%{k} = add %{k - 1}, 0" for k in range(1, n + 1)]
  return "\n".join(lines) + "\n"


def params_text(n: int) -> str:
  """``examples/five_params.uir`` with ``n`` parameters: each ``mul(add(pK, 0), 1)``, summed left to right (four: a small
  space, whole: 26,685 states and 377,182 steps; five: 488,511 and 8.7 million)."""
  lines = [f"%{k} = param : slot={k} dtype=i32" for k in range(n)]
  for k in range(n): lines += [f"%{n + 2 * k} = add %{k}, 0", f"%{n + 2 * k + 1} = mul %{n + 2 * k}, 1"]
  total = n + 1
  for k in range(1, n):
    lines.append(f"%{3 * n + k - 1} = add %{total if k > 1 else n + 1}, %{n + 2 * k + 1}")
    total = 3 * n + k - 1
  return "\n".join(lines) + "\n"


def run(argv: list[str], stdout: int | None = subprocess.DEVNULL, tree: Path = ROOT) -> Cost:
  """One process (and what it waits for) from a fresh interpreter, with ``tree``'s code: its CPU and peak memory
  (``os.wait4``'s rusage)."""
  env = {**os.environ, "PYTHONHASHSEED": "0", "PYTHONPATH": str(tree)}
  p = subprocess.Popen(argv, cwd=tree, stdout=stdout, stderr=subprocess.PIPE, env=env)
  assert p.stderr is not None
  err = p.stderr.read()
  _, status, usage = os.wait4(p.pid, 0)
  p.returncode = os.waitstatus_to_exitcode(status)
  if p.returncode not in (0, 3): raise RuntimeError(f"{' '.join(argv[3:])}: exit {p.returncode}: {err.decode()[-500:]}")
  return Cost(usage.ru_utime + usage.ru_stime, usage.ru_stime, usage.ru_maxrss / 1024, p.returncode)


def library(row: Row, tree: Path = ROOT) -> Cost:
  return run([sys.executable, "-c", LIBRARY.format(depth=DEPTH), row.file, "reduce" if row.reduce else "no"], tree=tree)


def command(row: Row, out: str, tree: Path = ROOT) -> Cost:
  argv = [sys.executable, "-c", COMMAND, "explore", row.command, row.file, *BOUNDS, "--format", row.fmt]
  if not row.reduce: argv.append("--no-reduce")
  if row.fmt != "text": argv += ["-o", out]
  try: return run(argv, tree=tree)
  finally:
    if os.path.exists(out): os.unlink(out)


def measure(rows: list[Row], repeats: int = REPEATS, trees: dict[str, Path] | None = None) -> list[tuple[str, Row, Cost, Cost]]:
  """Each row's library and command cost with each tree's code (``trees``: by name; this tree's alone by default), best of
  ``repeats`` rounds; a round runs every row's command once, interleaved with one library run per program (what the rows
  of one program share), the trees in turn (which goes first alternating from round to round): (tree, row, library,
  command) each."""
  trees = trees or {"": ROOT}
  best_lib: dict[tuple[str, str, bool], Cost] = {}
  best_cmd: dict[tuple[str, Row], Cost] = {}
  first: dict[tuple[str, bool], Row] = {}
  for row in rows: first.setdefault((row.file, row.reduce), row)
  with tempfile.TemporaryDirectory() as tmp:
    for r in range(repeats):
      for name, tree in list(trees.items())[::1 if r % 2 == 0 else -1]:
        for row in rows:
          if first[(row.file, row.reduce)] == row:
            key = (name, row.file, row.reduce)
            best_lib[key] = _best(best_lib.get(key), library(row, tree))
          best_cmd[name, row] = _best(best_cmd.get((name, row)), command(row, os.path.join(tmp, f"out.{row.fmt}"), tree))
  return [(name, row, best_lib[(name, row.file, row.reduce)], best_cmd[name, row]) for row in rows for name in trees]


def _best(a: Cost | None, b: Cost) -> Cost:
  return b if a is None or b.cpu < a.cpu else Cost(a.cpu, a.sys, min(a.peak, b.peak), b.code)


def rows_for(only: list[str], chain: str, four: str) -> list[Row]:
  five = "examples/five_params.uir"
  rows = [Row(name, file, "normal-forms", fmt, False) for name, file in (("five_params", five), ("four_params", four))
          for fmt in ("text", "json", "html")]
  if "all" in only or "chain" in only:
    more = [Row("five_params", five, c, "text", True) for c in ("reachable", "order")] if "all" in only else []
    rows = ([] if "chain" in only else rows + more) + [Row(f"chain of {CHAIN + 1:,}", chain, "normal-forms", fmt, True)
                                                       for fmt in ("text", "json", "html")]
  return rows


def main(only: list[str] | None = None) -> None:
  only = only or []
  other = os.environ.get("AGAINST")
  trees = {"": ROOT} if other is None else {"before": Path(other).resolve(), "after": ROOT}
  print(f"a command's report on top of its search, through the console script (CPU s and peak MB, fresh processes, "
        f"best of {REPEATS} interleaved rounds; load {os.getloadavg()[0]:.1f}; the bar: 1.5x)"
        + (f"; before: {other}, after: this tree" if other else ""))
  with tempfile.TemporaryDirectory() as tmp:
    chain = Path(tmp) / "chain.uir"
    chain.write_text(chain_text())
    four = Path(tmp) / "four_params.uir"
    four.write_text(params_text(4))
    head = (f"{'program':<15} {'command':<13} {'format':<6} {'library s':>9} {'sys':>5} {'MB':>6}  {'command s':>9} {'sys':>5} "
            f"{'MB':>6}  {'cpu x':>6} {'mem x':>6} {'exit':>4}" + ("  code" if other else ""))
    print(head)
    print("-" * len(head))
    for name, row, lib, cmd in measure(rows_for(only, str(chain), str(four)), trees=trees):
      command = row.command + ("" if row.reduce else "*")
      print(f"{row.program:<15} {command:<13} {row.fmt:<6} {lib.cpu:9.2f} {lib.sys:5.2f} {lib.peak:6.0f}  {cmd.cpu:9.2f} {cmd.sys:5.2f} "
            f"{cmd.peak:6.0f}  {cmd.cpu / lib.cpu:6.2f} {cmd.peak / lib.peak:6.2f} {cmd.code:>4}" + (f"  {name}" if other else ""))
  print(f"* --no-reduce (the library: reduce=False); load at the end {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
  main(sys.argv[1:])
