"""The static gate's type check sees the installed layout: explore/ as uopc.explore."""
import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("typecheck", ROOT / "dev" / "typecheck.py")
typecheck = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(typecheck)


def test_the_mirror_is_the_installed_layout():
  top = typecheck.mirror()
  pkg = top / "uopc"
  assert (pkg / "explore").resolve() == ROOT / "explore"
  assert (pkg / "explore" / "cli.py").is_file() and (pkg / "relational" / "native" / "space.py").is_file()
  wanted = {e.name for e in (ROOT / "uopc").iterdir() if e.name != "__pycache__"} | {"explore"}
  assert {e.name for e in pkg.iterdir()} == wanted
  assert all((pkg / name).resolve() == ROOT / "uopc" / name for name in wanted - {"explore"})
