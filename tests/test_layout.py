"""The package's import graph: every module imports on its own, and no two modules import each other.

A cycle between modules (``a`` imports ``b`` which imports ``a``, even lazily inside a
function) means neither can be read or changed alone; ``uopc.cli.support`` and
``uopc.cli.explore_support`` exist so that the command modules need not import each other.
Imports under ``if TYPE_CHECKING:`` are for annotations only and never run.
"""
import ast
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
PACKAGES = {"uopc": ROOT / "uopc"}

KNOWN_CYCLES: list[list[str]] = []   # none left: keep it so


def modules() -> dict[str, pathlib.Path]:
  out = {}
  for package, folder in PACKAGES.items():
    for path in sorted(folder.rglob("*.py")):
      parts = [package, *path.relative_to(folder).with_suffix("").parts]
      out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    for path in sorted(folder.rglob("_*.c")):   # a compiled module (setup.py builds uopc/_term.c as uopc._term): imports nothing
      if "PyMODINIT_FUNC" not in path.read_text(): continue   # a unit of one (the explorer's core is _space*.c), no module of its own
      out[".".join([package, *path.relative_to(folder).with_suffix("").parts])] = path
  return out


def runtime_imports(tree: ast.Module) -> list[ast.Import | ast.ImportFrom]:
  """Every import statement of a module, at any depth, except those under ``if TYPE_CHECKING:``."""
  out, todo = [], list(tree.body)
  while todo:
    node = todo.pop()
    if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
      todo.extend(node.orelse); continue
    if isinstance(node, (ast.Import, ast.ImportFrom)): out.append(node)
    todo.extend(ast.iter_child_nodes(node))
  return out


def import_graph() -> dict[str, set[str]]:
  """module -> the package modules it imports (``from pkg import name`` counts as ``pkg.name`` if that is a module)."""
  mods = modules()
  def owner(name: str) -> str | None:
    while name and name not in mods: name = name.rpartition(".")[0]
    return name or None
  graph: dict[str, set[str]] = {m: set() for m in mods}
  for m, path in mods.items():
    if path.suffix == ".c": continue
    package = m if path.name == "__init__.py" else m.rpartition(".")[0]
    for node in runtime_imports(ast.parse(path.read_text())):
      if isinstance(node, ast.Import): names = [a.name for a in node.names]
      else:
        base = node.module or ""
        if node.level: base = ".".join(package.split(".")[:len(package.split(".")) - node.level + 1] + ([base] if base else []))
        names = [f"{base}.{a.name}" if f"{base}.{a.name}" in mods else base for a in node.names]
      graph[m].update(o for n in names if (o := owner(n)) is not None and o != m)
  return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
  """The strongly connected components with more than one module (Tarjan, iterative), each sorted."""
  index: dict[str, int] = {}
  low: dict[str, int] = {}
  stack: list[str] = []
  on_stack: set[str] = set()
  out = []
  for root in graph:
    if root in index: continue
    work = [(root, iter(sorted(graph[root])))]
    index[root] = low[root] = len(index); stack.append(root); on_stack.add(root)
    while work:
      v, it = work[-1]
      w = next(it, None)
      if w is not None:
        if w not in index:
          index[w] = low[w] = len(index); stack.append(w); on_stack.add(w)
          work.append((w, iter(sorted(graph[w]))))
        elif w in on_stack: low[v] = min(low[v], index[w])
        continue
      work.pop()
      if work: low[work[-1][0]] = min(low[work[-1][0]], low[v])
      if low[v] == index[v]:
        component = []
        while True:
          w = stack.pop(); on_stack.discard(w); component.append(w)
          if w == v: break
        if len(component) > 1: out.append(sorted(component))
  return sorted(out)


def test_cycles_finds_a_cycle_and_nothing_else():
  assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
  assert cycles({"a": {"b"}, "b": set()}) == []


def test_the_graph_sees_lazy_imports_but_not_type_checking_ones():
  graph = import_graph()
  assert "uopc.backend.driver" in graph["uopc.cli.commands.run"]   # run --backend c imports it inside the function
  assert "uopc.uop" not in graph["uopc.term"]       # only under TYPE_CHECKING
  assert "uopc.cli.support" in graph["uopc.cli.commands.order"]


def test_no_module_imports_itself_back():
  assert cycles(import_graph()) == KNOWN_CYCLES


def test_a_compiled_module_is_a_module_of_its_own():
  # ``from uopc import _term`` imports the compiled module, not the package ``uopc`` (which would close a cycle)
  graph = import_graph()
  assert "uopc._term" in graph["uopc.term"] and "uopc" not in graph["uopc.term"]
  assert "uopc.egraph._egraph" in graph["uopc.egraph.native"]


def package_graph(graph: dict[str, set[str]], packages: list[str]) -> dict[str, set[str]]:
  """The import graph between ``packages``: one imports another if any of its modules imports one of the other's."""
  def package_of(m: str) -> str | None: return next((p for p in packages if m == p or m.startswith(p + ".")), None)
  out: dict[str, set[str]] = {p: set() for p in packages}
  for m, deps in graph.items():
    if (p := package_of(m)) is None: continue
    out[p].update(q for d in deps if (q := package_of(d)) is not None and q != p)
  return out


# The package order, bottom first: a module imports only modules of its own layer or of the layers below it (a deferred
# import inside a function counts: it is still a dependency). The library never imports the command line, and the explorer
# reaches tinygrad's and PyTensor's adapters only through the registry (``uopc.relational.ir``), which finds them by name.
LAYERS: list[tuple[str, tuple[str, ...]]] = [
  ("engine", ("uopc",)),                                              # every module not in a later layer
  ("backend and e-graph", ("uopc.backend", "uopc.egraph")),
  ("SMT encoding", ("uopc.smt", "uopc.termination")),                 # the engine and the backend's lowering (CALL inlining); termination
                                                                      # proofs build on the SMT layer's instances, never on the explorer
  ("relational protocol", ("uopc.relational.ir",)),
  ("space", ("uopc.relational.space", "uopc.relational.native", "uopc.relational.notebook")),
  ("logic", ("uopc.relational.logic",)),
  ("analyses", ("uopc.relational.analyses",)),
  ("adapters", ("uopc.relational.adapters",)),
  ("cluster", ("uopc.relational.cluster",)),
  ("relational API", ("uopc.relational.api", "uopc.relational")),
  ("corpus", ("uopc.corpus",)),                                       # captured graphs (tinygrad, PyTensor imported lazily) and their check
  ("command line", ("uopc.cli", "uopc.__main__")),
]


def layer_of(module: str) -> int:
  """The index in ``LAYERS`` of the most specific prefix of ``module`` (``uopc`` alone is the engine)."""
  best, length = 0, 0
  for i, (_, prefixes) in enumerate(LAYERS):
    for p in prefixes:
      if (module == p or module.startswith(p + ".")) and len(p) > length and (p != "uopc.relational" or module == p): best, length = i, len(p)
  return best


def test_layer_of_reads_the_most_specific_prefix():
  assert [LAYERS[layer_of(m)][0] for m in ("uopc.uop", "uopc.relational.ir.registry", "uopc.relational.adapters.tinygrad.ir",
                                           "uopc.relational", "uopc.relational.api", "uopc.cli.commands.run", "uopc.egraph.saturate")] == \
         ["engine", "relational protocol", "adapters", "relational API", "relational API", "command line", "backend and e-graph"]


def test_every_import_points_down_the_layers():
  graph = import_graph()
  upward = sorted(f"{m} ({LAYERS[layer_of(m)][0]}) imports {d} ({LAYERS[layer_of(d)][0]})"
                  for m, deps in graph.items() for d in deps if layer_of(d) > layer_of(m))
  assert upward == []


def test_relational_logic_never_imports_analyses():
  """analyses builds on logic (the bridge, goals, the rule encoding); logic importing analyses back would tie the two together."""
  graph = package_graph(import_graph(), ["uopc.relational.logic", "uopc.relational.analyses"])
  assert graph == {"uopc.relational.logic": set(), "uopc.relational.analyses": {"uopc.relational.logic"}}
  assert package_graph({"a.x": {"b.y"}, "b.y": {"a.z"}, "a.z": set()}, ["a", "b"]) == {"a": {"b"}, "b": {"a"}}


def test_every_module_imports_on_its_own():
  """Each module first, in an interpreter where no other uopc module is loaded yet: no import-order dependence.

  Importing a module first imports its packages first, outermost in: a module that a package's own import loads is
  imported exactly as that package is, so it is covered by the package's import (sorted, a package comes before what
  it holds) and not imported again."""
  names = sorted(m for m in modules() if not m.endswith("__main__"))   # __main__ runs the command line
  code = ("import importlib, sys\n"
          "first, covered = [], set()\n"
          "for name in sys.argv[1:]:\n"
          "  if name in covered: continue\n"
          "  for m in [m for m in sys.modules if m == 'uopc' or m.startswith('uopc.')]: del sys.modules[m]\n"
          "  module = importlib.import_module(name)\n"
          "  first.append(name)\n"
          "  if hasattr(module, '__path__'): covered |= {m for m in sys.modules if m.startswith(name + '.')}\n"
          "print(len(first), len(covered & set(sys.argv[1:])))\n")
  done = subprocess.run([sys.executable, "-c", code, *names], capture_output=True, text=True, cwd=ROOT)
  assert done.returncode == 0, done.stderr[-2000:]
  first, covered = map(int, done.stdout.split())
  assert first + covered == len(names) and first >= len(names) // 3, (first, covered)


def test_no_command_module_imports_another():
  """What commands share lives in uopc.cli.support, uopc.cli.explore_support and uopc.cli.reports: each command reads alone."""
  graph = import_graph()
  commands = {m for m in graph if m.startswith("uopc.cli.commands.")}
  assert sorted((m, d) for m in commands for d in graph[m] if d in commands) == []
