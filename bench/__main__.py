"""``python -m bench``: every benchmark table of the project, one after another.

``python -m bench engine`` runs only the named ones. The peers that need another Python (``bench/egglog_peer.py``, Python 3.12) run by themselves.
"""
import importlib
import sys

BENCHMARKS = ["bench.engine", "bench.start", "bench.backend", "bench.emit", "bench.explore", "bench.kanren", "bench.pairs",
              "bench.reduce", "bench.sample", "bench.saturate", "bench.html", "bench.native", "bench.maude", "bench.parse", "bench.distributed",
              "bench.report", "bench.cluster", "bench.worker_core", "bench.tinygrad", "bench.pytensor"]


def main(names: list[str]) -> None:
  for module in BENCHMARKS:
    if names and module.split(".")[-1] not in names: continue
    importlib.import_module(module).main()
    print()


if __name__ == "__main__":
  main(sys.argv[1:])
