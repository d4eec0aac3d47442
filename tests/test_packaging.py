"""pyproject.toml lists every package (explore/ is mapped to uopc.explore, so nothing is found automatically)."""
import pathlib
try: import tomllib
except ModuleNotFoundError: import tomli as tomllib   # Python 3.10: the same parser, before it joined the standard library

ROOT = pathlib.Path(__file__).resolve().parents[1]


def test_every_package_folder_is_listed_and_explore_installs_as_uopc_explore():
  config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
  assert config["package-dir"] == {"uopc.explore": "explore"}
  found = {".".join(p.relative_to(ROOT).parent.parts) for p in (ROOT / "uopc").rglob("__init__.py")}
  found |= {"uopc." + ".".join(p.relative_to(ROOT).parent.parts) for p in (ROOT / "explore").rglob("__init__.py")}
  found |= {"uopc.static"}   # the viewer's script and stylesheet: package data, no __init__.py
  assert set(config["packages"]) == found
  assert all((ROOT / "uopc" / "static" / f).is_file() for f in ("viewer.js", "viewer.css"))
