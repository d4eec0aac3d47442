"""``python -m bench`` (bench/__main__.py): a real --help that lists the benchmarks, an unknown name refused, the named ones run."""
import re
import types
from pathlib import Path

import pytest

import bench.__main__ as bench_main

BENCH = Path(__file__).resolve().parents[1] / "bench"


def test_help_lists_every_benchmark_and_what_it_measures(capsys):
  # the user's case: python -m bench --help printed nothing and exited 0 (every name not a benchmark's was skipped)
  with pytest.raises(SystemExit) as e: bench_main.main(["--help"])
  out = capsys.readouterr().out
  assert e.value.code == 0 and out.startswith("usage: python -m bench [-h] [BENCHMARK ...]\n")
  rows = out.split("\nbenchmarks:\n", 1)[1].split("\n\n", 1)[0].splitlines()
  assert [row.split()[0] for row in rows] == [m.rsplit(".", 1)[1] for m in bench_main.BENCHMARKS]
  assert all(len(row.split(None, 1)) == 2 and "``" not in row and "python -m bench" not in row for row in rows)
  assert "  engine       Canonical-engine benchmarks" in rows
  # every module of bench/ with a main() is one of them
  runnable = {p.stem for p in BENCH.glob("*.py") if p.stem != "__main__" and re.search(r"^def main\(", p.read_text(), re.MULTILINE)}
  assert runnable == {m.rsplit(".", 1)[1] for m in bench_main.BENCHMARKS}


def test_an_unknown_benchmark_is_refused_and_the_named_ones_run(capsys, monkeypatch):
  ran: list[str] = []
  fake = types.SimpleNamespace(import_module=lambda name: types.SimpleNamespace(main=lambda: ran.append(name)))
  monkeypatch.setattr(bench_main, "importlib", fake)
  with pytest.raises(SystemExit) as e: bench_main.main(["engine", "nope"])
  assert e.value.code == 2 and ran == []
  assert capsys.readouterr().err.splitlines()[-1] == "python -m bench: error: no benchmark named 'nope' (python -m bench --help lists them)"
  bench_main.main(["pairs", "engine"])
  assert ran == ["bench.engine", "bench.pairs"]   # in the list's order
  ran.clear()
  bench_main.main([])
  assert ran == bench_main.BENCHMARKS
