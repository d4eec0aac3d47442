"""What a command's report costs on top of its search: ``python -m bench report``.

For ``uopc explore normal-forms``, ``reachable`` and ``order`` on two programs (``five_params``' whole space, 488,511
states; a chain of 999 ``+ 0`` nodes, 1,000 states and 499,500 steps), one process runs the library's
``explore(...).run()`` (the same bounds as the command: none that the search reaches) and another the
command (``uopc.cli.main``, stdout to /dev/null), each from a fresh interpreter; the table gives each one's CPU time
(user + system, start-up and parse included on both sides) and peak resident memory, and the command's ratio to the
library. The bar (issue 23): within 1.5x in both. The pairs alternate, best of ``REPEATS``: the machine may be shared.

``python -m bench report chain`` runs only the chain's rows.
"""
from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import tempfile
from pathlib import Path

REPEATS = 2
COMMANDS = ("normal-forms", "reachable", "order")
DEPTH = 100_000
BOUNDS = ["--max-states", "2000000", "--max-depth", str(DEPTH), "--timeout", "600", "--max-memory", "8G"]   # the whole space: no bound is hit
CHAIN = 999   # + 0 nodes: 1,000 states


def chain_text(n: int = CHAIN) -> str:
  """``p0 + 0 + ... + 0`` (``n`` times) as ``.uir``: state k holds k zeros, every redex of it makes the same graph."""
  lines = ["%0 = param : slot=0 dtype=i32"] + [f"%{k} = add %{k - 1}, 0" for k in range(1, n + 1)]
  return "\n".join(lines) + "\n"


def _child(spec: dict) -> None:
  """One side of a row, in this fresh process: the library's exploration or the command; CPU and peak RSS to a file."""
  if spec["side"] == "library":
    from uopc.cli.support import load_program
    from uopc.relational import explore
    from uopc.symbolic import symbolic
    ex = explore(load_program(spec["file"]), symbolic, max_states=None, max_depth=DEPTH).run()
    assert ex.complete, ex.bound
    code, states = 0, len(ex.states)
  else:
    from uopc.cli.main import main
    sys.stdout = open(os.devnull, "w")
    code, states = main(["explore", spec["command"], spec["file"], *BOUNDS]), -1
  r = resource.getrusage(resource.RUSAGE_SELF)
  Path(spec["out"]).write_text(json.dumps({"cpu": r.ru_utime + r.ru_stime, "peak": r.ru_maxrss / 1024, "code": code, "states": states}))


def measure(side: str, file: str, command: str = "") -> dict:
  """CPU seconds and peak MB of one side in a fresh interpreter."""
  with tempfile.NamedTemporaryFile(suffix=".json") as f:
    spec = {"side": side, "file": file, "command": command, "out": f.name}
    subprocess.run([sys.executable, "-m", "bench.report", "--child", json.dumps(spec)], check=True, stdout=subprocess.DEVNULL,
                   env={**os.environ, "PYTHONHASHSEED": "0"})
    return json.loads(Path(f.name).read_text())


def rows(programs: list[tuple[str, str]], commands: tuple[str, ...] = COMMANDS, repeats: int = REPEATS) -> list[tuple]:
  """(program, command, library cpu, library MB, command cpu, command MB, exit code), best of ``repeats`` alternated pairs."""
  out = []
  for name, file in programs:
    for command in commands:
      lib_cpu = lib_mb = cmd_cpu = cmd_mb = float("inf")
      code = None
      for _ in range(repeats):
        lib, cmd = measure("library", file), measure("command", file, command)
        lib_cpu, lib_mb = min(lib_cpu, lib["cpu"]), min(lib_mb, lib["peak"])
        cmd_cpu, cmd_mb, code = min(cmd_cpu, cmd["cpu"]), min(cmd_mb, cmd["peak"]), cmd["code"]
      out.append((name, command, lib_cpu, lib_mb, cmd_cpu, cmd_mb, code))
  return out


def main(only: list[str] | None = None) -> None:
  print(f"a command's report on top of its search (CPU s and peak MB, fresh processes, best of {REPEATS}; the bar: 1.5x)")
  with tempfile.TemporaryDirectory() as tmp:
    chain = Path(tmp) / "chain.uir"
    chain.write_text(chain_text())
    programs = [("five_params", "examples/five_params.uir"), (f"chain of {CHAIN + 1:,}", str(chain))]
    if only: programs = [p for p in programs if any(o in p[0] for o in only)]
    head = f"{'program':<15} {'command':<13} {'library s':>9} {'MB':>6}  {'command s':>9} {'MB':>6}  {'cpu x':>6} {'mem x':>6} {'exit':>4}"
    print(head)
    print("-" * len(head))
    for name, command, lc, lm, cc, cm, code in rows(programs):
      print(f"{name:<15} {command:<13} {lc:9.2f} {lm:6.0f}  {cc:9.2f} {cm:6.0f}  {cc / lc:6.2f} {cm / lm:6.2f} {code:>4}")


if __name__ == "__main__":
  if sys.argv[1:2] == ["--child"]: _child(json.loads(sys.argv[2]))
  else: main(sys.argv[1:])
