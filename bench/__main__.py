"""``python -m bench``: every benchmark table of the project, one after another.

``python -m bench engine`` runs only the named ones; ``python -m bench --help`` lists them. The peers that need another Python
(``bench/egglog_peer.py``, Python 3.12) run by themselves.
"""
import argparse
import ast
import importlib
import re
import sys
from pathlib import Path

BENCHMARKS = ["bench.engine", "bench.start", "bench.backend", "bench.emit", "bench.explore", "bench.kanren", "bench.pairs",
              "bench.reduce", "bench.sample", "bench.saturate", "bench.html", "bench.native", "bench.maude", "bench.parse", "bench.distributed",
              "bench.report", "bench.cluster", "bench.worker_core", "bench.tinygrad", "bench.pytensor", "bench.folds",
              "bench.prove"]
HERE = Path(__file__).resolve().parent


def short_name(module: str) -> str: return module.rsplit(".", 1)[-1]


def summary(module: str) -> str:
  """What a benchmark measures: its docstring's first paragraph up to how to run it, read without importing the module
  (some import tinygrad, PyTensor, Ray or Maude at the top)."""
  doc = ast.get_docstring(ast.parse((HERE / f"{short_name(module)}.py").read_text(encoding="utf-8"))) or ""
  first = " ".join(doc.split("\n\n", 1)[0].split())
  return re.split(r":? ``python ", first, maxsplit=1)[0].replace("``", "").rstrip(" .")


def parser() -> argparse.ArgumentParser:
  width = max(map(len, map(short_name, BENCHMARKS)))
  listing = "\n".join(f"  {short_name(m):<{width}}  {summary(m)}" for m in BENCHMARKS)
  p = argparse.ArgumentParser(prog="python -m bench", formatter_class=argparse.RawDescriptionHelpFormatter,
                              description="Print the project's benchmark tables, one after another: every benchmark in the order "
                                          "below, or only the ones named. Run it from the repository's root.",
                              epilog=f"benchmarks:\n{listing}\n\n`make bench` installs what they need (the test, tinygrad, pytensor, "
                                     "cluster and bench extras) and runs them all.")
  p.add_argument("names", nargs="*", metavar="BENCHMARK", help="a benchmark to run (default: all of them)")
  return p


def main(argv: list[str]) -> None:
  p = parser()
  names = p.parse_args(argv).names
  known = [short_name(m) for m in BENCHMARKS]
  if unknown := [n for n in names if n not in known]:   # checked here: argparse's choices refuse an empty '*' on Python 3.10 and 3.11
    p.error(f"no benchmark named {', '.join(map(repr, unknown))} (python -m bench --help lists them)")
  for module in BENCHMARKS:
    if names and short_name(module) not in names: continue
    importlib.import_module(module).main()
    print()


if __name__ == "__main__":
  main(sys.argv[1:])
