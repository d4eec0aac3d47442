"""What an install holds: every folder of Python code under uopc/ is a package setuptools finds, and the viewer's files go
with it (pyproject.toml: packages.find, package-data)."""
import pathlib

from setuptools import find_packages

try: import tomllib
except ModuleNotFoundError: import tomli as tomllib   # Python 3.10: the same parser, before it joined the standard library

ROOT = pathlib.Path(__file__).resolve().parents[1]
CONFIG = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]


def test_every_folder_of_code_is_a_package_the_install_finds():
  folders = {p.parent for p in (ROOT / "uopc").rglob("*.py") if "__pycache__" not in p.parts}
  missing = sorted(str(f.relative_to(ROOT)) for f in folders if not (f / "__init__.py").is_file())
  assert not missing, f"code without __init__.py is left out of the install: {missing}"
  wanted = {".".join(f.relative_to(ROOT).parts) for f in folders}
  assert set(find_packages(str(ROOT), **CONFIG["packages"]["find"])) == wanted
  assert not (ROOT / "explore" / "__init__.py").exists()   # explore/ holds scripts to run, never package code


def test_the_viewer_is_package_data():
  data = CONFIG["package-data"]
  assert data == {"uopc.cli.reports": ["static/*.js", "static/*.css"]}
  static = ROOT / "uopc" / "cli" / "reports" / "static"
  assert sorted(p.name for p in static.iterdir()) == ["viewer.css", "viewer.js"]
