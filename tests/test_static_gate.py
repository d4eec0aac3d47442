"""The static gate's settings (pyproject.toml): what ruff and mypy report, on small probes checked with the project's own config."""
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CONFIG = ROOT / "pyproject.toml"


def test_ruff_reports_a_noqa_that_silences_nothing(tmp_path):
  (tmp_path / "probe.py").write_text("import os  # noqa: F401\nx = 1; y = 2  # noqa: E702\n")   # E702 is ignored by the config
  out = subprocess.run([sys.executable, "-m", "ruff", "check", "--config", str(CONFIG), "--output-format", "concise", "--no-cache", "probe.py"],
                       cwd=tmp_path, capture_output=True, text=True, timeout=120)
  assert out.returncode == 1
  assert [line.split(": ", 1)[1].split(" ", 1)[0] for line in out.stdout.splitlines() if line.startswith("probe.py:")] == ["RUF100"]
  assert "probe.py:2:" in out.stdout and "probe.py:1:" not in out.stdout   # the F401 one is needed: it stays


def test_mypy_checks_the_bodies_of_functions_without_hints(tmp_path):
  (tmp_path / "probe.py").write_text("def untyped(x):\n  n: int = 'text'\n  return n\n")
  out = subprocess.run([sys.executable, "-m", "mypy", "--config-file", str(CONFIG), "--cache-dir", str(tmp_path / "cache"), "probe.py"],
                       cwd=tmp_path, capture_output=True, text=True, timeout=300)
  assert out.returncode == 1
  assert 'probe.py:2: error: Incompatible types in assignment (expression has type "str", variable has type "int")' in out.stdout
