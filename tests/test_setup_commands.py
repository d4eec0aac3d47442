"""The README's two set-up commands (Makefile): `make demo` installs uopc with its own dependencies only, and its commands
run without any extra; `make test` (which CI, `.ci/run`, calls) installs every extra the tests need.

What make would run is read with `make -n` on a venv that does not exist yet, as on a fresh clone: nothing is installed."""
import re
import subprocess
import sys
from pathlib import Path

try: import tomllib
except ModuleNotFoundError: import tomli as tomllib   # Python 3.10: the same parser, before it joined the standard library

ROOT = Path(__file__).resolve().parents[1]
EXTRAS = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
# the import names of every extra's packages (and of what they pull in that uopc could reach for): none is there for the demo
EXTRA_MODULES = ["tinygrad", "pytensor", "ray", "numpy", "scipy", "pytest", "hypothesis", "xdist", "selenium", "ruff", "mypy", "radon",
                 "lizard", "maude"]


def dry_run(target: str, tmp_path: Path) -> list[str]:
  """The commands ``make target`` runs on a fresh clone (``.venv`` not made yet), one a line."""
  out = subprocess.run(["make", "-n", "--no-print-directory", "-C", str(ROOT), target, f"VENV={tmp_path / 'fresh-venv'}"],
                       capture_output=True, text=True, timeout=60)
  assert out.returncode == 0, out.stderr
  return out.stdout.splitlines()


def installed_extras(lines: list[str]) -> set[str]:
  """The extras of uopc the ``pip install`` lines install."""
  found = [m.group(1) for line in lines if "/pip install " in line for m in re.finditer(r"\.\[([^\]]*)\]", line)]
  return {extra.strip() for group in found for extra in group.split(",")}


def test_make_demo_installs_uopc_without_any_extra(tmp_path):
  # the newcomer's case: make demo installed the test, tinygrad, pytensor and cluster extras (4.5 min, a 906 MB .venv)
  lines = dry_run("demo", tmp_path)
  installs = [line for line in lines if "/pip install " in line and "--upgrade pip" not in line]
  assert installs and all(" -e . " in f"{line} " for line in installs), installs
  assert installed_extras(lines) == set()


def test_make_test_installs_every_extra_but_the_bench(tmp_path):
  assert installed_extras(dry_run("test", tmp_path)) == set(EXTRAS) - {"bench"}
  assert installed_extras(dry_run("bench", tmp_path)) == set(EXTRAS)


def test_ci_runs_the_readmes_test_command():
  readme = (ROOT / "README.md").read_text()
  commands = re.findall(r"^\$ (make \w+)", readme.split("## Set-up: two commands", 1)[1].split("\n## ", 1)[0], re.MULTILINE)
  assert commands == ["make demo", "make test"]
  assert "make test" in [line.split("#")[0].strip() for line in (ROOT / ".ci" / "run").read_text().splitlines()]


def test_the_demo_runs_without_any_extra(tmp_path):
  # every uopc command of make demo, in a Python where no extra's module can be imported (as in the demo's venv)
  commands = [line.split("/uopc ", 1)[1].split() for line in dry_run("demo", tmp_path) if "/uopc " in line and "echo" not in line]
  assert len(commands) == 4 and ["explore", "normal-forms", "examples/order.uir"] in commands
  block = f"import sys; sys.modules.update(dict.fromkeys({EXTRA_MODULES!r}))"   # None in sys.modules: importing it raises ImportError
  for argv in commands:
    script = f"{block}; sys.argv = ['uopc', *{argv!r}]; import uopc_launch; sys.exit(uopc_launch.main())"
    out = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and out.stdout and not out.stderr, (argv, out.stdout, out.stderr)
