"""uopc's explorer against Maude 3.5 (PyPI ``maude``): ``python -m bench maude`` (or ``python path/to/bench/maude.py`` from any directory).

The same rewrite systems, the same programs, the same state counts. Each program is
written once as a term (``bench/maude_gen.py``) and both engines get what is generated
from it: uopc parses its ``.uir`` text and explores it under its default graph semantics,
Maude parses its term and enumerates every reachable state (``search =>* X:E``). Maude
rewrites one occurrence a step (tree semantics); no program here has a node with a redex
below it twice (only the leaves ``0`` and ``p_i`` repeat), so the two semantics give the
same states, and the bench stops if the counts differ. (``TREE=1`` runs uopc under
``semantics="tree"`` instead: the same counts, its big nodes grouped by the graph they
make as under graph semantics.) uopc explores with its native core where it applies
(``uopc.relational.native``; (iii') at n >= 256 passes the core's step-map limit and runs in
Python); ``UOPC_NATIVE=0`` measures the pure-Python core in that column instead. The
``Py core`` columns run the pure-Python core (``native=False``) in the same turns, so
``C/Py`` is the native core's gain on each row. ``MAUDE_SHAPES="(iii+),(iii3)"`` runs only the
shapes whose names start so. The shapes:

- (i)   k independent ``p_i + 0`` redexes summed: 2**k states, under ``x + 0``;
- (ii)  the same sum of m terms under ``x + 0`` and commutativity of ``+``: 3**m * 2**(m-1);
- (iii) a chain ``((p0 + 0) * p1) * ... * pn`` under ``(x + 0) * y -> (x * y) + 0``: the
        ``+ 0`` climbs one level a step, one redex per state, n + 1 states;
- (iii+) the same chain of ``+`` under ``(x + 0) + y -> (x + y) + 0``: every node of the spine has the
        pattern's root op and a ``+`` first source, so only a matcher that looks two levels down
        tells the one redex from the rest; n + 1 states;
- (iii3) that chain under ``((x + 0) + y) + z -> ((x + y) + z) + 0``, a pattern three levels deep:
        the ``+ 0`` climbs two levels a step, n // 2 + 1 states;
- (iii') a chain of n ``+ 0`` nodes under ``x + 0``: n redexes, one successor graph, n + 1 states;
- (iv)  a balanced sum of 10,000 or 100,000 nodes with 5 ``p_i + 0`` in it: 32 states;
        "(iv) per state" times the same runs after uopc indexed the program (``Exploration.prepare``;
        Maude has no such step: its two rows are the same measure);
- (v)   a sum of m parameters under commutativity and associativity of ``+`` (``a + b -> b + a``,
        ``(a + b) + c -> a + (b + c)``): every order in every tree, m! * Catalan(m - 1) states (30,240 at m = 6, 665,280 at 7);
- (vi)  the ADD-bubble: a sum of n parameters under ``(a + b) + c -> (a + c) + b``: (n - 1)! states;
- (vi') the same on a sum of 11 terms whose last two repeat the second and third: 10! / 4 = 907,200 states (n = 11
        of (vi) has 3.6 million);
- (vii) distributivity: ``(p0 + p1) * (p2 + p3) * ...`` (k sums) under ``x * (y + z) -> x * y + x * z``, its mirror and
        commutativity of ``+``: 140,200 states at k = 3. A rule copies ``x``, whose subterm has redexes, so graph and tree
        semantics differ: uopc runs it under tree semantics, as Maude and the C BFS rewrite.

Every rule's function is a plain function of its variables (``maude_gen.rule_function``), a template the native core
applies itself (``uopc/relational/native/templates.py``), as Maude applies its rules as data. The ``C BFS`` columns run
``bench/bfs.c`` (compiled with ``gcc -O2`` once per run): a plain breadth-first search over hash-consed terms, every rule
at every position, the same rules and program, its own CPU time of the search alone; ``uopc/C`` is the explorer's rate
over it. ``PY_CORE=0`` leaves out the pure-Python core's column, ``MEMORY=0`` the memory columns (each a fresh process).

Timing is process CPU time of one whole exploration from the parsed program (uopc's
first indexing of it included), the minimum of a few repeats with the engines
alternating. The rules are compiled once, as Maude's module is parsed once: each uopc run
gets a new ``PatternMatcher`` and ``Stepper`` (no memo carries over), over the same
``UPat`` objects, whose compiled Python matchers (``uopc.upat_compile``, about 0.2 ms a
pattern) are made on first use and kept; parsing the text is timed apart and printed after the table for (iv). Before each
uopc run, as ``gc.collect()`` frees Python's garbage, ``live_nodes()`` drops the nodes of the runs before from uopc's tables.
Memory per state is the growth of the resident set (``/proc/self/statm``) during the
exploration, with every state still held, in a fresh process per engine (the only
measure that sees Maude's C++ heap; the same one for uopc, for a fair comparison),
shown where it grew by at least 64 KiB (below that, pages make it too coarse).
uopc runs with a cap (``CAP_SECONDS``): a run that hits it shows the rate of its
partial run, marked ``*`` (its state count is not compared).

Without the ``maude`` package (``pip install -e '.[bench]'``) the Maude columns say so.
"""
from __future__ import annotations

import gc
import json
import os
import subprocess
import sys
import time
from typing import Any, Callable, NamedTuple

if __package__ in (None, ""):   # run by its path (as memory_run does), from any directory: the repository's root first, and
  _here = os.path.dirname(os.path.abspath(__file__))   # not bench/ itself, whose kanren.py would shadow the kanren package
  sys.path[:] = [os.path.dirname(_here), *(p for p in sys.path if os.path.abspath(p or ".") != _here)]

from bench.maude_gen import RULES, Term, maude_module, maude_term, matcher, uir_text
from uopc.relational import Exploration, Stepper
from uopc.relational.space.step import Semantics
from uopc.uir import parse_uir
from uopc.uop import live_nodes

SEMANTICS: Semantics = "tree" if os.environ.get("TREE") == "1" else "graph"

CAP_SECONDS = 60.0   # wall seconds (the explorer's timeout): a guard; every run of the table takes well under a second now
MIN_GROWTH = 64 * 1024   # resident growth below this is within a few pages: too coarse to divide by the states
_slots = iter(range(0, 10**9, 200_000))   # fresh PARAM slots per run: hash consing would hand back last run's nodes
_patterns: dict = {}   # the rules' UPats, made once: their matchers are compiled once, as Maude's module is (run_uopc)


def sum_of_add0(k: int, base: int) -> Term:
  """(p0 + 0) + (p1 + 0) + ... + (p{k-1} + 0), nested to the left."""
  t: Term = ("add", ("p", base), 0)
  for i in range(1, k): t = ("add", t, ("add", ("p", base + i), 0))
  return t


def push_chain(n: int, base: int) -> Term:
  """((p0 + 0) * p1) * ... * pn: one redex, n levels below the root."""
  t: Term = ("add", ("p", base), 0)
  for i in range(1, n + 1): t = ("mul", t, ("p", base + i))
  return t


def add_chain(n: int, base: int) -> Term:
  """((p0 + 0) + p1) + ... + pn: one redex, n levels below the root."""
  t: Term = ("add", ("p", base), 0)
  for i in range(1, n + 1): t = ("add", t, ("p", base + i))
  return t


def zero_chain(n: int, base: int) -> Term:
  """((p0 + 0) + 0) ... + 0, n times."""
  t: Term = ("p", base)
  for _ in range(n): t = ("add", t, 0)
  return t


def plain_sum(m: int, base: int) -> Term:
  """((p0 + p1) + p2) + ... + p{m-1}."""
  t: Term = ("p", base)
  for i in range(1, m): t = ("add", t, ("p", base + i))
  return t


def sum_with_two_pairs(m: int, base: int) -> Term:
  """``plain_sum`` of m terms whose last two repeat the second and third: under the ADD-bubble (m - 1)! / 4 states."""
  t: Term = ("p", base)
  for i in range(1, m): t = ("add", t, ("p", base + (i if i < m - 2 else i - (m - 3))))
  return t


def product_of_sums(k: int, base: int) -> Term:
  """(p0 + p1) * (p2 + p3) * ... : k sums of two, multiplied left to right."""
  t: Term = ("add", ("p", base), ("p", base + 1))
  for i in range(1, k): t = ("mul", t, ("add", ("p", base + 2 * i), ("p", base + 2 * i + 1)))
  return t


def big_sum(nodes: int, base: int, redexes: int = 5) -> Term:
  """A balanced sum of about ``nodes`` nodes whose first ``redexes`` leaves are ``p_i + 0``."""
  leaves = (nodes + 1) // 2 - redexes
  level: list[Term] = [("add", ("p", base + i), 0) if i < redexes else ("p", base + i) for i in range(leaves)]
  while len(level) > 1:
    level = [("add", level[i], level[i + 1]) if i + 1 < len(level) else level[i] for i in range(0, len(level), 2)]
  return level[0]


class Shape(NamedTuple):
  name: str
  sizes: tuple[int, ...]
  program: Callable[[int, int], Term]
  rules: tuple[str, ...]
  indexed: bool = False   # time after indexing
  semantics: Semantics | None = None   # None: SEMANTICS; "tree" where a rule copies a variable whose subterm has redexes


SHAPES = [Shape("(i) k x (p+0)", (6, 8, 10, 12, 14, 16), sum_of_add0, ("add0",)),
          Shape("(ii) comm, m", (3, 4, 5, 6, 7), sum_of_add0, ("add0", "comm")),
          Shape("(iii) chain", (10, 100, 1000), push_chain, ("push0",)),
          Shape("(iii+) add chain", (10, 100, 1000), add_chain, ("pushadd",)),
          Shape("(iii3) 3-deep", (10, 100, 1000), add_chain, ("push3",)),
          Shape("(iii') +0 chain", (16, 64, 256, 1000), zero_chain, ("add0",)),
          Shape("(iv) big", (10_000, 100_000), big_sum, ("add0",)),
          Shape("(iv) per state", (10_000, 100_000), big_sum, ("add0",), indexed=True),
          Shape("(v) comm+assoc, m", (5, 6, 7), plain_sum, ("comm", "assoc")),
          Shape("(vi) ADD-bubble, n", (8, 9, 10), plain_sum, ("bubble",)),
          Shape("(vi') bubble, 2 pairs", (11,), sum_with_two_pairs, ("bubble",)),
          Shape("(vii) distrib., k", (2, 3), product_of_sums, ("distl", "distr", "comm"), semantics="tree")]


def rss() -> int:
  """Resident set size of this process, in bytes."""
  with open("/proc/self/statm") as f: return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


class Run(NamedTuple):
  states: int
  seconds: float   # exploring (with uopc's first indexing of the program, except on "(iv) per state")
  parse: float     # parsing the program's text (and, on "(iv) per state", indexing it)
  complete: bool
  held: Any = None   # what keeps the states alive (for the memory measure)


def run_uopc(shape: Shape, size: int, memory: bool = False, native: bool | None = None) -> tuple[Run, int]:
  """Parse the program's .uir text and explore it (``native``: as ``Exploration`` takes it); (run, resident bytes grown)."""
  text, pm = uir_text(shape.program(size, next(_slots))), matcher(list(shape.rules), _patterns)
  gc.collect()
  live_nodes()   # uopc's node tables drop the last runs' nodes here, as gc.collect drops Python's garbage, not inside the timing
  t0 = time.process_time()
  root = parse_uir(text)
  t1 = time.process_time()
  before = rss() if memory else 0
  ex = Exploration(root, pm, max_states=None, timeout=CAP_SECONDS, stepper=Stepper(pm, semantics=shape.semantics or SEMANTICS), native=native)
  if shape.indexed:   # "(iv) per state": indexing the program (time and memory) is left out
    ex.prepare()
    t1 = time.process_time()
    before = rss() if memory else 0
  ex.run()
  secs = time.process_time() - t1
  return Run(len(ex.states), secs, t1 - t0, ex.complete, ex), (rss() - before if memory else 0)


_maude: Any = None
_modules: dict[tuple[str, ...], Any] = {}


def maude_available() -> bool:
  """True if the ``maude`` package imports (and is initialized here)."""
  global _maude
  if _maude is None:
    try: import maude
    except ImportError: _maude = False; return False
    maude.init(advise=False)
    _maude = maude
  return _maude is not False


def _module(rules: tuple[str, ...]) -> Any:
  if rules not in _modules:
    name = "BENCH-" + "-".join(r.upper() for r in rules)
    _maude.input(maude_module(list(rules), name))
    _modules[rules] = _maude.getModule(name)
  return _modules[rules]


def run_maude(shape: Shape, size: int, memory: bool = False) -> tuple[Run, int]:
  """Parse the program's Maude term and enumerate every state it reaches; (run, resident bytes grown)."""
  m = _module(shape.rules)
  text, anything = maude_term(shape.program(size, next(_slots))), m.parseTerm("X:E")
  gc.collect()
  t0 = time.process_time()
  term = m.parseTerm(text)
  t1 = time.process_time()
  before = rss() if memory else 0
  found = term.search(_maude.ANY_STEPS, anything)
  states = sum(1 for _ in found)
  secs = time.process_time() - t1
  return Run(states, secs, t1 - t0, True, found), (rss() - before if memory else 0)


def run_python_core(shape: Shape, size: int, memory: bool = False) -> tuple[Run, int]:
  """``run_uopc`` on the pure-Python core."""
  return run_uopc(shape, size, memory, native=False)


_bfs: list[str | None] = []   # the C baseline's binary, compiled once (None: no gcc)


def bfs_binary() -> str | None:
  """``bench/bfs.c`` compiled with ``gcc -O2`` into a temporary directory, once; None without gcc."""
  if not _bfs:
    import shutil
    import tempfile
    out = os.path.join(tempfile.mkdtemp(prefix="uopc-bfs-"), "bfs")
    src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bfs.c")
    ok = shutil.which("gcc") is not None and subprocess.run(["gcc", "-O2", "-o", out, src]).returncode == 0
    _bfs.append(out if ok else None)
  return _bfs[0]


def run_c_bfs(shape: Shape, size: int, memory: bool = False) -> tuple[Run, int]:
  """The plain C breadth-first search (``bench/bfs.c``) over the same rules and program: every state, tree semantics."""
  binary = bfs_binary()
  assert binary is not None, "no gcc: the C BFS column is skipped"
  rules = "".join(f"{maude_term(RULES[r][0])} => {maude_term(RULES[r][1])}\n" for r in shape.rules)
  text = rules + "program\n" + maude_term(shape.program(size, next(_slots))) + "\n"
  out = subprocess.run([binary], input=text, capture_output=True, text=True, check=True).stdout.split()
  return Run(int(out[0]), float(out[1]), 0.0, True), 0


def best_of(shape: Shape, size: int, engines: list[tuple[str, Callable[..., tuple[Run, int]]]], repeats: int) -> dict[str, Run]:
  """The fastest of ``repeats`` runs of each engine, by name, alternating which goes first (rounds interleaved)."""
  best: dict[str, Run] = {}
  for rep in range(repeats):
    for name, fn in engines if rep % 2 == 0 else engines[::-1]:
      if name in best and not best[name].complete: continue   # hit the cap once: enough
      r, _ = fn(shape, size)
      if name not in best or r.seconds < best[name].seconds: best[name] = r._replace(held=None)
  return best


def memory_per_state(engine: str, shape: Shape, size: int) -> float | None:
  """Bytes per state the resident set grew by, exploring in a fresh process (None if that run failed or grew too little)."""
  if (got := memory_run(engine, shape, size)) is None: return None
  return got["bytes"] / got["states"] if got["complete"] and got["bytes"] >= MIN_GROWTH else None


def memory_run(engine: str, shape: Shape, size: int) -> dict[str, Any] | None:
  """One exploration in a fresh process: ``{"states", "bytes" (resident growth), "complete"}``, None if it failed.

  The child runs this file by its path, so it finds the repository whatever the working directory and PYTHONPATH."""
  cmd = [sys.executable, os.path.abspath(__file__), "--memory", engine, shape.name, str(size)]
  out = subprocess.run(cmd, capture_output=True, text=True)
  return json.loads(out.stdout) if out.returncode == 0 else None


def _memory_main(engine: str, shape_name: str, size: int) -> None:
  shape = next(s for s in SHAPES if s.name == shape_name)
  if engine == "maude" and not maude_available(): sys.exit(1)
  r, grown = (run_uopc if engine == "uopc" else run_maude)(shape, size, memory=True)
  print(json.dumps({"states": r.states, "bytes": grown, "complete": r.complete}))


def _cell(x: float | None, fmt: str, width: int) -> str:
  return f"{'-' if x is None else format(x, fmt):>{width}s}"


def main() -> None:
  with_maude, bfs = maude_available(), bfs_binary() is not None
  py_core, memory = os.environ.get("PY_CORE") != "0", os.environ.get("MEMORY") != "0"
  print("uopc's explorer against Maude 3.5 and a plain C BFS (bench/bfs.c): states/s over one whole exploration from the parsed "
        f"program (process CPU time, best of 3, engines alternating; uopc capped at {CAP_SECONDS:.0f} s, * = partial)")
  if not with_maude: print("(the `maude` package is not installed: pip install -e '.[bench]'; Maude columns skipped)")
  if not bfs: print("(no gcc: the C BFS columns skipped)")
  print(f"{'shape':19s} {'size':>7s} {'states':>8s} {'uopc st/s':>10s} {'Maude st/s':>10s} {'uopc/Maude':>10s} {'C BFS st/s':>10s} "
        f"{'uopc/C':>6s} {'Py core/s':>10s} {'C/Py':>6s} {'uopc B/st':>9s} {'Maude B/st':>10s}")
  engines: list[tuple[str, Callable[..., tuple[Run, int]]]] = [("uopc", run_uopc)]
  engines += ([("python", run_python_core)] if py_core else []) + ([("maude", run_maude)] if with_maude else [])
  engines += [("bfs", run_c_bfs)] if bfs else []
  parses = []
  wanted = [w for w in os.environ.get("MAUDE_SHAPES", "").split(",") if w]
  for shape in SHAPES:
    if wanted and not any(shape.name.startswith(w) for w in wanted): continue
    for size in shape.sizes:
      best = best_of(shape, size, engines, repeats=3)
      ours, pure, theirs, c = best["uopc"], best.get("python"), best.get("maude"), best.get("bfs")
      for other, who in ((theirs, "Maude"), (pure, "the Python core"), (c, "the C BFS")):
        if other is not None and ours.complete and other.complete and ours.states != other.states:
          raise AssertionError(f"{shape.name} {size}: uopc found {ours.states} states, {who} {other.states}")
      rate = ours.states / ours.seconds
      pure_rate, their_rate, c_rate = (r.states / r.seconds if r else None for r in (pure, theirs, c))
      mem = memory_per_state("uopc", shape, size) if ours.complete and memory else None
      their_mem = memory_per_state("maude", shape, size) if with_maude and memory else None
      print(f"{shape.name:19s} {size:7,d} {ours.states:8,d} {rate:9,.0f}{' ' if ours.complete else '*'} {_cell(their_rate, ',.0f', 10)} "
            f"{_cell(rate / their_rate if their_rate else None, '.2f', 10)} {_cell(c_rate, ',.0f', 10)} "
            f"{_cell(rate / c_rate if c_rate else None, '.2f', 6)} {_cell(pure_rate, ',.0f', 10)} "
            f"{_cell(rate / pure_rate if pure_rate else None, '.2f', 6)} {_cell(mem, ',.0f', 9)} {_cell(their_mem, ',.0f', 10)}")
      sys.stdout.flush()
      if shape.name.startswith("(iv)") and not shape.indexed: parses.append((size, ours.parse, theirs.parse if theirs else None))
  for size, ours_parse, their_parse in parses:
    print(f"parsing the (iv) program of {size:,d} nodes (not in the rates): uopc {ours_parse * 1e3:.0f} ms (.uir)"
          + (f", Maude {their_parse * 1e3:.0f} ms (parseTerm), uopc/Maude {ours_parse / their_parse:.2f}" if their_parse else "")
          + " (python -m bench parse compares parsing alone)")


if __name__ == "__main__":
  if sys.argv[1:2] == ["--memory"]: _memory_main(sys.argv[2], sys.argv[3], int(sys.argv[4]))
  else: main()
