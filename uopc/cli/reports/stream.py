"""An exploration's ``--format json`` and ``--format html`` written as the states are read: never the whole document in memory.

Below ``BIG_JSON`` states and steps the document is built as a dict and written whole (``exploration.to_json``, indented, as
ever). Past it, the same document, byte for byte (compact, as ``json_text`` writes a big one), is written item by item: a
state, a step, each encoded by itself (``json.dumps`` for what is no number), to a file, so what is held is the node table
(each distinct node once, as its row's text) and the text of each step key (a rule, a node and a result: a step repeats
them), not 8.7 million steps' dicts and a gigabyte of text (``five_params``' whole space: 5 GB at its peak before).

The document says first whether it is complete (``complete``, ``bound``, ``stopped_by``), but a report cut by a bound
(``uopc.cli.reports.cut``) knows it only at its end: the head is written as it stands when the report begins, and if the
end says otherwise the file is written again with the head it ends with, the rest copied (a cut report only). So the
output goes to a file first: ``-o FILE``'s temporary one, renamed once whole (``uopc.cli.files.write_atomically``'s
promise: whole or absent), or for stdout one in the temporary directory, copied to stdout in the ``write`` phase.

A page embeds the same items in chunks of ``CHUNK_STATES`` states and the steps from them (``page.chunked``'s chunks),
written as the states are read, then the rest of the document with the chunks' summary: the page's script reads the
elements by id once the page is loaded, so the data element after the chunks reads the same. Its node rows are numbered
in the page's own order (a chunk's states, then its steps), not the JSON's: the same graphs.
"""
from __future__ import annotations

import contextlib
import io
import itertools
import json
import os
import shutil
import sys
from typing import IO, Any, Callable, Iterable, Iterator, cast

from uopc.cli.budget import current, enter, shielded
from uopc.cli.explore_support import term_text
from uopc.cli.files import temporary
from uopc.cli.reports.cut import CutShort, ItemCut
from uopc.cli.reports.exploration import BIG_JSON, FORMAT, NativeNodeTable, NodeTable, bound_flag, edge_json, established_json
from uopc.cli.reports.page import CHUNK_STATES, WARN_BYTES, page_tail, page_top
from uopc.cli.support import CLIError, isatty, progress_bar, shown_name
from uopc.relational import Exploration, State

COPY_BLOCK = 1 << 22   # bytes per read and write where the file is copied (a head written again, stdout)
FLUSH_CHARS = 1 << 20  # characters of items gathered before a write


def dumps(x: Any) -> str:
  """Compact JSON, as the big document is written (``exploration.json_text``)."""
  return json.dumps(x, ensure_ascii=False, separators=(",", ":"))


def is_big(ex: Exploration) -> bool:
  """Whether ``ex``'s report is past ``BIG_JSON`` states and steps: written item by item (compact), not built as a dict."""
  return len(ex.states) > BIG_JSON or len(ex.states) + ex.edge_count > BIG_JSON   # (the steps counted only if need be)


class Items:
  """The states and steps of an exploration as their JSON texts, each node named by its row in ``table`` as it comes."""

  def __init__(self, ex: Exploration, table: NodeTable | NativeNodeTable) -> None:
    self.ex, self.table = ex, table
    rules = ex.stepper.pm.rules
    self._names = [dumps(ex.stepper.rule_name(k)) for k in range(len(rules))]   # (a state's rule)
    self._escape = False   # a page's: "<" written \u003c in every string (escaped_for_page)
    self._seen = bytearray(len(rules))   # the rules of the states written (a page's summary lists them)
    self._core: Any = ex.native_core if isinstance(table, NativeNodeTable) else None   # the states' and steps' text written in C
    self._whole = ex.complete   # every step's target made
    self.forks: bytearray | None = None   # a page's: a flag per state, its steps reach two states or more
    # how the core's items encode a rule's name: a file's bytes strictly (a lone surrogate fails, as a str written to it
    # does); for a text stream, passed through to the str they are decoded into (Gather)
    self.errors = "surrogatepass"

  @property
  def rules_seen(self) -> set[int]:
    """The rule indices of the states written."""
    return {k for k, seen in enumerate(self._seen) if seen}

  def state(self, s: State) -> str:
    """``to_json``'s state dict, as text."""
    nid, redex = self.table.id, s.redex
    if redex is None: return (f'{{"id":{s.id},"depth":{s.depth},"parent":null,"rule":null,"graph":{nid(s.graph)},"node":null,'
                              f'"result":null,"normal":{_BOOL[s.normal]},"error":{self._error(s)}}}')
    parent, rule = s.parent, redex.rule_index
    result = "null" if redex.result is None else nid(redex.result)
    text = (f'{{"id":{s.id},"depth":{s.depth},"parent":{"null" if parent is None else parent.id},"rule":{self._names[rule]},'
            f'"graph":{nid(s.graph)},"node":{nid(redex.node)},"result":{result},"normal":{_BOOL[s.normal]},'
            f'"error":{self._error(s)}}}')
    self._seen[rule] = 1   # (a state too big to write within the cut raised CutShort above: not seen)
    return text

  def escaped_for_page(self) -> None:
    """Every string of the items, the only place a ``<`` can be, written with ``<`` as ``\\u003c`` (a page's script
    element must not hold ``</script>``): each rule name escaped once, not each item's text scanned."""
    self._escape = True
    self._names = [name.replace("<", "\\u003c") for name in self._names]

  @property
  def _rule_texts(self) -> list[bytes]:
    """A step's rule by its index, ``"rule":NAME,"rule_index":K,``, as the core's ``steps_json`` copies it (a lone
    surrogate passed through, as the text it is decoded back into)."""
    return [f'"rule":{name},"rule_index":{k},'.encode("utf-8", self.errors) for k, name in enumerate(self._names)]

  def _error(self, s: State) -> str:
    return "null" if s.error is None else dumps(s.error).replace("<", "\\u003c") if self._escape else dumps(s.error)

  @property
  def native(self) -> bool:
    """Whether the native core ran the whole search: the states and steps are written from it (``native_states``,
    ``native_steps``), their nodes kept in its node table (``NativeNodeTable``)."""
    return self._core is not None

  def native_states(self, start: int, end: int, cut: ItemCut, write: Callable[[memoryview], Any]) -> Iterator[int]:
    """The states ``start`` to ``end - 1`` as ``state`` writes them, comma-separated, written in C
    (``Space.states_json``) and handed to ``write`` about ``FLUSH_CHARS`` at a time: how many each time. ``cut`` is asked
    every few states and while a graph's rows are added; the states end before the one it stopped."""
    names = [name.encode("utf-8", self.errors) for name in self._names]
    at, comma = start, False
    while at < end:
      stop, short = self._core.states_json(at, end, names, self._seen, cut, FLUSH_CHARS, write, comma)
      if stop > at: yield stop - at
      comma = comma or stop > at
      if short: return
      at = stop

  def steps(self, s: State) -> tuple[int, str]:
    """How many steps leave ``s``, and their texts comma-separated, in ``Exploration.edges``' order (``edge_json``'s, one
    encoding a state): where the Python core ran the search."""
    edges = self.ex.edges_from(s)
    if self.forks is not None and len({e.target.id for e in edges}) > 1: self.forks[s.id] = 1
    text = dumps([edge_json(e, self.table.id) for e in edges])[1:-1]
    return len(edges), text.replace("<", "\\u003c") if self._escape else text

  def native_steps(self, start: int, end: int, cut: ItemCut, write: Callable[[memoryview], Any]) -> Iterator[int]:
    """The steps out of states ``start`` to ``end - 1``, as ``steps`` would give them state by state, comma-separated,
    written in C from the core's step maps (``Space.steps_json``: a step key's rows added to the node table as it is first
    met, so in the order the steps name them) and handed to ``write`` about ``FLUSH_CHARS`` at a time: how many each time.
    ``cut`` is asked before each batch and while a key's rows are added: a key whose rows it stopped ends the steps before
    its state."""
    core, at, comma = self._core, start, False
    limit = -1 if self._whole else len(self.ex.states)   # a bound left targets unmade: steps to them left out
    rules = self._rule_texts
    while at < end:
      if cut(): return
      at, n, short = core.steps_json(at, end, rules, limit, FLUSH_CHARS, self.forks, cut, write, comma)
      if n: yield n
      comma = comma or n > 0
      if short: return


_BOOL = {True: "true", False: "false", None: "null"}


class Report:
  """One exploration's document: its items as they are read (``Items``), cut as ``to_json``'s (``ItemCut``), then the rest."""

  def __init__(self, ex: Exploration, program: Any, rules: str, canonical: Any, canonical_error: str | None, paths: bool,
               extra: dict[str, Any], fmt: str) -> None:
    self.ex, self.program, self.rules, self.canonical, self.canonical_error = ex, program, rules, canonical, canonical_error
    self.paths, self.extra = paths, extra
    self.table: NodeTable | NativeNodeTable = NodeTable() if (space := ex.native_space) is None else NativeNodeTable(space)
    self.items = Items(ex, self.table)
    self.states = self.edges = 0   # items written
    self.kept_paths: dict[str, Any] = {}
    self.cut_paths = self.table.cut = ItemCut()
    if paths:   # small, and first, as to_json's
      from uopc.cli.reports.cut import until_cut
      self.kept_paths = dict(until_cut(((str(s.id), [edge_json(e, self.table.id) for e in s.path()]) for s in ex.normal_forms), self.cut_paths))
    self.cut = self.table.cut = ItemCut(fmt)   # no text held: the time (and a bound) alone cuts the items

  def bar(self, desc: str) -> Any:
    """The progress bar over the items (their count, the steps counted in C, only where it shows)."""
    return progress_bar(len(self.ex.states) + self.ex.edge_count if isatty(sys.stderr) else None, "item", desc)

  def gather(self, f: IO[Any]) -> Gather:
    """What the document is written to ``f`` through; the items' encoding set for it (``Items.errors``)."""
    out = Gather(f)
    if out.binary: self.items.errors = "strict"
    return out

  def head(self) -> str:
    """The document up to ``stopped_by``: what it says of itself, as it stands now."""
    ex = self.ex
    complete, bound = ex.complete, cast(str | None, ex.bound)
    stopped_by = None if bound is None else bound_flag(bound, ex.max_states, ex.max_depth, ex.timeout)
    which = self._which()
    if which.reason is not None: complete, bound, stopped_by = False, bound or which.bound, stopped_by or which.reason
    b = current()   # exploration_support.marked_if_cut: derived work a bound cut short
    if complete and b is not None and b.report_cut and b.reason is not None: complete, bound, stopped_by = False, b.reason, b.flag_text()
    return (f'{{"format":{FORMAT},"program":{dumps(term_text(self.program))},"rules":{dumps(self.rules)},'
            f'"complete":{_BOOL[complete]},"bound":{dumps(bound)},"stopped_by":{dumps(stopped_by)}')

  def _which(self) -> ItemCut:
    return self.cut if self.cut.reason is not None else self.cut_paths

  def middle(self) -> str:
    ex = self.ex
    return (f',"bounds":{dumps({"max_states": ex.max_states, "max_depth": ex.max_depth, "timeout": ex.timeout})},'
            f'"elapsed":{dumps(round(ex.elapsed, 4))},"reduced":{dumps(ex.reduced)}')

  def write_states(self, out: Gather, start: int, end: int, bar: Any) -> None:
    """The texts of the states ``start`` to ``end - 1``, comma-separated, while the cut allows (by ids: a slice of the
    states' list would touch every state twice, half a million cache misses)."""
    cut, state = self.cut, self.items.state
    if self.items.native:
      for n in self.items.native_states(start, end, cut, out.through()):
        self.states += n
        if not bar.disable: bar.update(n)
      return
    states = self.ex.states
    def texts() -> Iterator[str]:
      for k in range(start, end):
        s = states[k]
        if cut(): return
        try: text = state(s)
        except CutShort: return   # a graph too big to finish within the cut: left out
        self.states += 1
        if not bar.disable: bar.update()
        yield text
    out.items(texts())

  def write_steps(self, out: Gather, start: int, end: int, bar: Any) -> None:
    """The steps out of each of the states ``start`` to ``end - 1``, comma-separated, while the cut allows."""
    cut, steps = self.cut, self.items.steps
    if self.items.native:
      for n in self.items.native_steps(start, end, cut, out.through()):
        self.edges += n
        if not bar.disable: bar.update(n)
      return
    states = self.ex.states
    def texts() -> Iterator[str]:
      for k in range(start, end):
        s = states[k]
        if cut(): return
        try: n, text = steps(s)
        except CutShort: return
        self.edges += n
        if not bar.disable: bar.update(n)
        if n: yield text   # (a state's steps at a time)
    out.items(texts())

  def tail(self) -> str:
    """Everything after the edges, as ``to_json`` writes it (``established_json``)."""
    self.table.cut = None   # what follows is said whole: the stuck steps' nodes
    return dumps(established_json(self.ex, self.table.id, self.canonical, self.canonical_error, self.kept_paths if self.paths else None,
                                  self._which(), self.states, self.edges))[1:-1]

  def nodes(self) -> Iterator[str | bytes]:
    """The node table's rows, each as text (read last: every graph above has its rows by now)."""
    yield from self.table.texts()

  def extras(self) -> str:
    return "".join(f",{dumps(k)}:{dumps(v)}" for k, v in self.extra.items())


class Gather:
  """Text written to ``f`` a megabyte at a time: many small items, few writes. A part is a str, or bytes (the core's
  node rows, UTF-8); ``f`` is a binary file (the report's: the core's bytes go to it as they are, no copy decoded and
  encoded again) or a text one (a str is written, the bytes decoded). The core's states and steps are handed to ``f``
  by the core itself (``through``)."""

  def __init__(self, f: IO[Any]) -> None:
    self.f, self.size = f, 0
    self.binary = not isinstance(f, io.TextIOBase)
    self.parts: list[str | bytes] = []

  def __call__(self, text: str | bytes) -> None:
    self.parts.append(text)
    self.size += len(text)
    if self.size > FLUSH_CHARS: self.flush()

  def flush(self) -> None:
    parts, f = self.parts, self.f
    if not self.binary: f.write("".join(p if type(p) is str else cast(bytes, p).decode("utf-8", "surrogatepass") for p in parts))
    else:   # the strs joined, the bytes (a megabyte of items each) written as they are
      strs: list[str] = []
      for p in parts:
        if type(p) is str: strs.append(p)
        else:
          if strs: f.write("".join(strs).encode("utf-8"))
          strs = []
          f.write(p)
      if strs: f.write("".join(strs).encode("utf-8"))
    self.parts, self.size = [], 0

  def through(self) -> Callable[[memoryview], Any]:
    """What the core hands its text to (``Items.native_states``, ``native_steps``), the parts gathered so far written
    first: ``f``'s own write for a binary file (the core's buffer written as it is, no bytes made of it), for a text one
    its text decoded."""
    self.flush()
    f = self.f
    if self.binary: return cast(Callable[[memoryview], Any], f.write)
    return lambda view: f.write(str(view, "utf-8", "surrogatepass"))

  def items(self, texts: Iterable[str | bytes], escape: bool = False) -> None:
    """``texts`` comma-separated (each item's JSON, or a run of them); ``escape``: ``<`` written ``\\u003c`` (a page)."""
    first = True
    for t in texts:
      if escape: t = t.replace("<", "\\u003c") if type(t) is str else cast(bytes, t).replace(b"<", b"\\u003c")
      if not first: self(",")
      self(t)
      first = False


def write_json(f: IO[Any], report: Report) -> str:
  """The JSON document to ``f``; returns its head as written (``Report.head`` says at the end what it must be)."""
  ex = report.ex
  out = report.gather(f)
  head = report.head()
  out(head)
  out(report.middle())
  with report.bar("report") as bar:
    out(',"states":[')
    report.write_states(out, 0, len(ex.states), bar)
    out('],"edges":[')
    if report.states == len(ex.states): report.write_steps(out, 0, len(ex.states), bar)
    out("]")
  out("," + report.tail())
  out(',"nodes":[')
  out.items(report.nodes())
  out("]" + report.extras() + "}\n")
  out.flush()
  return head


def write_page(f: IO[Any], report: Report, kind: str, title: str, chunk: int = CHUNK_STATES) -> None:
  """The page: its chunks as the states are read (``page.chunked``'s), then the rest of the document with the chunks' summary."""
  ex = report.ex
  out = report.gather(f)
  out(page_top(kind, title))
  n = len(ex.states)
  report.items.forks = bytearray(n)
  report.items.escaped_for_page()   # the items' strings escaped as they are made: their texts not scanned
  count = 0
  with report.bar("page") as bar:
    for k in range(0, n, chunk):
      if report.cut(): break
      end = min(k + chunk, n)
      out(f'<script type="application/json" id="uopc-chunk-{count}">{{"states":[')
      report.write_states(out, k, end, bar)
      out('],"edges":[')
      whole = report.states == end
      if whole: report.write_steps(out, k, end, bar)
      out("]}</script>\n")
      count += 1
      if not whole or report.cut.reason is not None: break
  summary = dumps(chunks_summary(report, chunk, count))
  out('<script type="application/json" id="uopc-data">')
  out((report.head() + report.middle() + "," + report.tail() + ',"nodes":[').replace("<", "\\u003c"))
  out.items(report.nodes(), escape=True)
  out(("]" + report.extras() + f',"chunks":{summary}}}').replace("<", "\\u003c"))
  out("</script>\n" + page_tail())
  out.flush()


def chunks_summary(report: Report, size: int, count: int) -> dict[str, Any]:
  """``page.chunked``'s ``chunks`` summary of the states and steps written, from the exploration (not from their JSON)."""
  states, n, forks = report.ex.states, report.states, report.items.forks or bytearray(report.states)   # (the first n written)
  if report.items.native: by_depth = report.ex.native_core.depths(n, forks)   # the same, in C
  else:
    depths: dict[int, list[int]] = {}   # depth -> [states, normal forms, forks, first id, last id]
    for s in itertools.islice(states, n):
      row = depths.setdefault(s.depth, [0, 0, 0, s.id, s.id])
      row[0] += 1
      row[1] += bool(s.normal)
      row[2] += forks[s.id]
      row[4] = s.id
    by_depth = [[d, *depths[d]] for d in sorted(depths)]
  path: list[int] = []
  at = None if report.canonical is None or (c := report.ex.state_of(report.canonical)) is None else c.id
  if at is not None and not 0 <= at < n: at = None   # past a cut report's states: no path to draw
  while at is not None:
    path.append(at)
    parent = states[at].parent
    at = None if parent is None else parent.id
  rules = {name for k in report.items.rules_seen if (name := report.ex.stepper.rule_name(k))}   # the states' s.rule, each once
  return {"size": size, "count": count, "states": n, "edges": report.edges, "canonical_path": path[::-1],
          "depths": by_depth, "rules": sorted(rules)}


@contextlib.contextmanager
def _spool(path: str | None) -> Iterator[IO[bytes]]:
  """A temporary file for the output: beside ``path`` (renamed onto it by ``_finish``), or in the temporary directory;
  gone after, however the command ends (killed by SIGKILL: the next one removes it, ``uopc.cli.files.temporary``)."""
  try: fd, tmp = temporary(_prefix(path), _directory(path))
  except OSError as e: raise CLIError(f"{path}: cannot write: {e.strerror or e}") from None
  try:
    # (by its name: f.name is the path then; not truncated as "w" would: ext4 writes a file truncated to nothing out to
    # the disk when it is closed, in this process's time: 0.03 s of the kernel's for 927 MB)
    with open(tmp, "rb+") as f: yield f
  finally:
    with contextlib.suppress(OSError): os.unlink(tmp)   # (renamed onto path: nothing left)
    os.close(fd)   # (its lock held until now)


def _prefix(path: str | None) -> str: return ".uopc-report." if path is None else f".{os.path.basename(path)}."


def _directory(path: str | None) -> str | None:
  """Where the output is written first: beside ``path``, or in the temporary directory for stdout or a ``path`` that is no
  regular file (``/dev/stdout``, a pipe: copied to it at the end)."""
  if path is None or (os.path.exists(path) and not os.path.isfile(path)): return None
  return os.path.dirname(os.path.abspath(path))


def emit_exploration(args: Any, kind: str, ex: Exploration, program: Any, rules: str, canonical: Any, canonical_error: str | None,
                     paths: bool = False, extra: dict[str, Any] | None = None) -> None:
  """A big exploration's ``--format json`` or ``html`` (``is_big``) to ``-o FILE`` or stdout, written as it is read."""
  path = getattr(args, "output", None)
  report = Report(ex, program, rules, canonical, canonical_error, paths, extra or {}, args.format)
  with _spool(path) as f:
    try:
      if args.format == "json":
        written = write_json(f, report)
        final = report.head()
      else:
        source = getattr(args, "file", None) or ""
        write_page(f, report, kind, shown_name(f"uopc {kind}: {source}"), CHUNK_STATES)
        written = final = ""
      f.flush()
      if final != written: _rewrite_head(f, written, final, path)
    except OSError as e: raise CLIError(f"{path or 'uopc'}: cannot write: {e.strerror or e}") from None
    size = os.path.getsize(f.name)
    if args.format == "html" and size > WARN_BYTES:
      print(f"uopc: warning: the page is {size / 1e6:.0f} MB: a browser takes long to open it (--max-states keeps it smaller)",
            file=sys.stderr)
    _finish(f.name, path)


def _rewrite_head(f: IO[bytes], written: str, final: str, path: str | None) -> None:
  """``f``'s file made to begin with ``final`` instead of ``written``, the rest copied: the head as a cut report ends it."""
  fd, tmp = temporary(_prefix(path), _directory(path))
  try:
    with os.fdopen(fd, "wb") as g, open(f.name, "rb") as old:
      g.write(final.encode("utf-8"))
      old.seek(len(written.encode("utf-8")))
      shutil.copyfileobj(old, g, COPY_BLOCK)
    os.replace(tmp, f.name)
  except BaseException:
    with contextlib.suppress(OSError): os.unlink(tmp)
    raise


def _finish(name: str, path: str | None) -> None:
  """The written file renamed onto ``path`` (written through where ``path`` is no regular file), or copied to stdout: the
  ``write`` phase."""
  from uopc.cli.files import mode_for
  from uopc.cli.support import write_out_from
  enter("write")
  with shielded():
    if path is None:
      with open(name, "rb") as f: write_out_from(f)
      return
    try:
      if os.path.exists(path) and not os.path.isfile(path):   # /dev/stdout, a pipe: no half-written state to keep
        with open(name, "rb") as f, open(path, "wb") as g: shutil.copyfileobj(f, g, COPY_BLOCK)
        return
      os.chmod(name, mode_for(path))
      os.replace(name, path)
    except OSError as e: raise CLIError(f"{path}: cannot write: {e.strerror or e}") from None


__all__ = ["Report", "emit_exploration", "is_big", "write_json", "write_page"]
