"""What every ``uopc`` command shares: exit codes, ``CLIError``, argument types, ``--rules``
and ``--param`` handling, loading a program, the one progress bar and writing a result
(the options themselves are declared in ``uopc.cli.options``), in the ``write`` phase of the command's budget:
no time or memory bound cuts it (``uopc.cli.budget``), and output that cannot be written is one line, exit 2.

The command modules (``uopc.cli.commands.*``) import these
from here, so no command module imports another one back. Exit codes (``EXIT_MEANINGS``,
``docs/failure-contract.md``): 0 success, 1 the program failed or the command found something,
2 bad input, 3 a bound was hit.
"""
from __future__ import annotations

import argparse
import contextlib
import errno
import io
import os
import re
import sys
import time
from typing import Any, BinaryIO, Callable, Iterator, NamedTuple, TextIO, cast

from uopc.cli.budget import enter, parse_memory, phase, shielded
from uopc.dtype import DType, dtypes
from uopc.evaluate import bind_params
from uopc.cli.files import write_atomically
from uopc.matcher import PatternMatcher
from uopc.rewrite import ProgramError, RewriteLoopError
from uopc.relational.ir.discovery import adapters
from uopc.relational.ir.protocol import type_name
from uopc.rulesets import RuleSetError, load_file
from uopc.uir import UIRError, parse_literal, parse_uir
from uopc.uop import UOp, UOpError, call_params

EXIT_OK, EXIT_FAILED, EXIT_BAD_INPUT, EXIT_BOUND, EXIT_INTERNAL = 0, 1, 2, 3, 4
EXIT_MEANINGS: dict[int, str] = {
  EXIT_OK: "success",
  EXIT_FAILED: "the program failed, or the command found something (a non-joinable pair, an unsound rule, a rule that raised)",
  EXIT_BAD_INPUT: "bad input (a file, a flag, a rule or a rules file), or output that cannot be written",
  EXIT_BOUND: "a bound was hit (the partial output is marked incomplete)",
  EXIT_INTERNAL: "an internal error of uopc (please report it)",
  130: "interrupted by SIGINT (the partial output is marked incomplete)",
  143: "interrupted by SIGTERM (the partial output is marked incomplete)",
}
"""What each exit code means for every command (``docs/failure-contract.md``; ``tests/test_commands.py`` checks them
against it); a command's own table (``uopc.cli.commands.COMMANDS``) says what it means there."""
EXIT_CODES = ("Exit codes: " + "; ".join(f"{code} {meaning}" for code, meaning in EXIT_MEANINGS.items() if code < EXIT_INTERNAL)
              + "; 130, 143 interrupted. See docs/failure-contract.md.")
"""The epilog of every ``--help``."""

# what the canonical engine raises when the program (not the rules or the input) fails: exit 1
PROGRAM_FAILURES = (ProgramError, RewriteLoopError)


class CLIError(Exception):
  """An error to report as one line and exit with ``code``."""
  def __init__(self, message: str, code: int = EXIT_BAD_INPUT):
    super().__init__(message)
    self.code = code


PROGRESS_DELAY = 1.0   # seconds before a progress bar appears: short runs print none
PROGRESS_INTERVAL = 0.5   # seconds between redraws: a fast run must not spend its time drawing


def progress_bar(total: int | None, unit: str, desc: str) -> Any:
  """The one progress bar of every command: tqdm on stderr, only on a terminal, only once a run has taken a second."""
  from tqdm import tqdm   # deferred: ``uopc run`` never pays for it
  # No monitor thread (tqdm starts one even for a disabled bar): a second thread can take the
  # budget's signals (uopc.cli.budget), and a bar updated every state needs no watching.
  tqdm.monitor_interval = 0
  return tqdm(total=total, unit=unit, desc=desc, file=sys.stderr, delay=PROGRESS_DELAY, leave=False,
              disable=not isatty(sys.stderr), dynamic_ncols=True, mininterval=PROGRESS_INTERVAL)


def bar_to(bar: Any, n: int) -> None:
  """Move ``bar`` to the count ``n``, at most its total: for work that says how far it got, not each step (a last run
  may pass the total it was bounded by)."""
  bar.update((n if bar.total is None else min(n, bar.total)) - bar.n)


def bar_is_up(bar: Any) -> bool:
  """Whether ``bar`` is drawn (enabled and past its delay): only then must lines on its terminal go around it."""
  return not bar.disable and time.time() >= bar.start_t + bar.delay


def isatty(f: Any) -> bool:
  try: return bool(f.isatty())
  except (AttributeError, ValueError): return False


def load_program(path: str) -> UOp:
  """Parse a ``.uir`` file (``-`` is stdin), or load ``file.py:attr`` (a uopc or tinygrad ``UOp`` made by Python code,
  which runs); every failure becomes a ``CLIError``."""
  if (py := re.fullmatch(r"(.+\.py):([A-Za-z_][A-Za-z0-9_]*)", path)) is not None: return _python_program(*py.groups())
  try:
    data = sys.stdin.buffer.read() if path == "-" else open(path, "rb").read()
  except OSError as e: raise CLIError(f"{path}: cannot read: {e.strerror or e}") from None
  try: return parse_uir(data, filename="<stdin>" if path == "-" else path)
  except UIRError as e: raise CLIError(str(e)) from None


def _python_program(file: str, attr: str) -> Any:
  """The node ``attr`` of Python file ``file`` (a program as code: ``prog.py:root``)."""
  from uopc.relational.ir import host_node   # deferred: only a program given as code needs the explorer's IRs
  try: mod = load_file(file)
  except RuleSetError as e: raise CLIError(f"uopc: {str(e).replace('bad rules file', 'bad program file')}") from None
  if not hasattr(mod, attr): raise CLIError(f"uopc: {file} has no attribute {attr!r}")
  if (node := host_node(obj := getattr(mod, attr))) is not None: return node
  given = type_name(type(obj))
  *others, last = ["a uopc.uop.UOp", *(a.program_help for a in adapters())]
  kinds = f"{', '.join(others)} or {last}"
  raise CLIError(f"uopc: {file}:{attr} is {'an' if given[0] in 'aeioAEIO' else 'a'} {given}, not a program ({kinds})")


class NamedRules(NamedTuple):
  """A loaded ``--rules`` value: what the user typed, and the matcher it names."""
  spec: str
  pm: PatternMatcher


class RulesSpec(str):
  """A ``--rules`` value as typed. A rules file is code: it is loaded (run) only after the
  arguments are parsed (``load_rules``), so ``--help`` and a bad flag never run it."""


def rules_arg(spec: str) -> RulesSpec:
  """argparse type for ``--rules``: the spec, loaded later by ``load_rules``."""
  return RulesSpec(spec)


def load_rules(args: argparse.Namespace) -> None:
  """Replace every ``RulesSpec`` in ``args`` by its ``NamedRules``; a bad one is a ``CLIError`` (exit 2)."""
  for key, value in list(vars(args).items()):
    if not isinstance(value, RulesSpec): continue
    from uopc.relational.ir import resolve_rules   # deferred: the explorer's registry knows every IR's rule sets
    try: setattr(args, key, NamedRules(shown_name(value), resolve_rules(value)))
    except RuleSetError as e: raise CLIError(f"uopc: --rules: {e}") from None


def uopc_rules(args: argparse.Namespace, command: str) -> PatternMatcher:
  """``--rules`` as a uopc rule set, for a command that runs uopc's own engines (simplify, trace, saturate); another IR's
  rule set is one line (exit 2) naming the command that takes it."""
  from uopc.relational.ir import UOPC, ir_of_rules   # deferred: the registry knows every IR's rule-set types
  if (ir := ir_of_rules(args.rules.pm, f"--rules {args.rules.spec}")[0]) is not UOPC:
    raise CLIError(f"uopc: {command}: --rules {args.rules.spec} is a {ir.name} rule set; {command} takes uopc's (explore takes {ir.name}'s)")
  return args.rules.pm


def shown_name(name: str) -> str:
  r"""A file name from argv as text every output can hold: bytes that are not UTF-8 (which Python passes on
  surrogate-escaped, and UTF-8 cannot encode) written ``\xff``.

  >>> shown_name("prog\udcff.uir"), shown_name("prögram.uir")
  ('prog\\xff.uir', 'prögram.uir')
  """
  return name.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def integer_arg(text: str, minimum: int | None = None) -> int:
  """An integer flag's value: ``10000``, ``10,000`` or ``10_000`` (as ``--help`` prints defaults), at least ``minimum``.

  >>> integer_arg("10,000"), integer_arg("10_000"), integer_arg("-3")
  (10000, 10000, -3)
  """
  if not re.fullmatch(r"[+-]?[0-9]+(?:[,_][0-9]+)*", text.strip()) or len(text) > 40:
    raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}")
  n = int(re.sub(r"[,_]", "", text))
  if minimum is not None and n < minimum:
    what = {0: "a non-negative integer", 1: "a positive integer"}.get(minimum, f"an integer >= {minimum}")
    raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}")
  return n


def positive_int(text: str) -> int:
  """argparse type for a count that must be at least 1."""
  return integer_arg(text, 1)


def seconds_arg(text: str) -> float:
  """argparse type for ``--timeout``: a positive, finite number of seconds."""
  try: t = float(text)
  except ValueError: t = 0.0
  if not t > 0 or t == float("inf"): raise argparse.ArgumentTypeError(f"expected a positive number of seconds, got {text!r}")
  return t


def memory_arg(text: str) -> int | None:
  """argparse type for ``--max-memory``."""
  try: return parse_memory(text)
  except ValueError as e: raise argparse.ArgumentTypeError(str(e)) from None


RULES_HELP = ("rule set: symbolic (default), fold, evaluate, symbolic+evaluate, " + ", ".join(a.rules_help for a in adapters()) +
              ", module:attr, or file.py:attr (a rules file is code: it runs)")   # each IR's own words after uopc's names


def natural_int(text: str) -> int:
  """argparse type for a count that may be 0."""
  return integer_arg(text, 0)


class ParamLiteral(NamedTuple):
  """One ``--param`` element as the ``.uir`` parser reads it: its value, its dtype, its text."""
  value: Any
  dtype: DType
  text: str


_VALUE_TOKEN = re.compile(r"\s*(\[|\]|,|[^\[\],\s]+)")
MAX_NESTING = 32   # no PARAM has more dims than this; a deeper list is a typo


def param_arg(text: str) -> tuple[int, Any]:
  """argparse type for ``--param SLOT=VALUE``: VALUE is a ``.uir`` literal (``uir.parse_literal``) or nested lists of them.

  >>> param_arg("0=[1, 2.5]")
  (0, [ParamLiteral(value=1, dtype=dtypes.i32, text='1'), ParamLiteral(value=2.5, dtype=dtypes.f32, text='2.5')])
  """
  slot, eq, value = text.partition("=")
  if not eq or not slot.strip().isdigit() or len(slot) > 12: raise argparse.ArgumentTypeError(f"expected SLOT=VALUE, got {text!r}")
  try: return int(slot), _parse_value(value)
  except ValueError as e: raise argparse.ArgumentTypeError(f"bad value for slot {int(slot)}: {e}") from None


def _parse_value(text: str) -> Any:
  """A literal, or a (nested) list of them: ``[[1, 2], [3, 4]]``. Iterative: a deep list is an error, not a crash."""
  stack: list[list] = [[]]
  pos, expect_item = 0, True
  while pos < len(text.rstrip()):
    if (m := _VALUE_TOKEN.match(text, pos)) is None: break
    tok, pos = m.group(1), m.end()
    if tok == "[" and expect_item:
      if len(stack) > MAX_NESTING: raise ValueError(f"lists nested more than {MAX_NESTING} deep")
      stack.append([])
    elif tok == "]" and len(stack) > 1 and (not expect_item or not stack[-1]):
      done = stack.pop()
      stack[-1].append(done)
      expect_item = False
    elif tok == "," and not expect_item and len(stack) > 1: expect_item = True
    elif tok not in ("[", "]", ",") and expect_item:
      stack[-1].append(ParamLiteral(*parse_literal(tok), tok))
      expect_item = False
    else: raise ValueError(f"unexpected {tok!r} in {text.strip()!r}")
  if len(stack) != 1 or len(stack[0]) != 1: raise ValueError(f"expected one literal or one list, got {text.strip()!r}")
  return stack[0][0]


def _fit(value: Any, dtype: DType, slot: int, path: str) -> Any:
  """``value`` (``ParamLiteral``s in lists) as Python values of ``dtype``: the ``.uir`` rule, an int literal may stand for an f32."""
  if isinstance(value, list): return [_fit(v, dtype, slot, path) for v in value]   # depth <= MAX_NESTING
  if value.dtype is dtype: return value.value
  if value.dtype is dtypes.i32 and dtype is dtypes.f32: return float(value.value)
  article = "a" if dtype is dtypes.bool else "an"
  raise CLIError(f"{path}: --param {slot}: expected {article} {dtype.name} literal, got {value.text}")   # as the .uir parser says


def fit_params(prog: UOp, params: list[tuple[int, Any]], path: str) -> dict[int, Any]:
  """The ``--param`` values as Python values of their PARAMs' dtypes; an unbound PARAM, or a value for none, is an error."""
  values = dict(params)
  free = {p.arg.slot: p for p in call_params(prog)}
  if missing := sorted(set(free) - set(values)):
    p = free[missing[0]]
    raise CLIError(f"{path}: PARAM slot {p.arg.slot} ({p.dtype.name}{list(p.shape) if p.shape else ''}) is not bound: "
                   f"pass --param {p.arg.slot}=VALUE")
  if extra := sorted(set(values) - set(free)): raise CLIError(f"{path}: the program has no PARAM slot {extra[0]}")
  return {slot: _fit(v, free[slot].dtype, slot, path) for slot, v in values.items()}


def bind_cli_params(prog: UOp, params: list[tuple[int, Any]], path: str) -> UOp:
  """Bind ``--param`` values (``fit_params``) to the program's free PARAMs."""
  try: return bind_params(prog, fit_params(prog, params, path))
  except (ValueError, UOpError) as e: raise CLIError(f"{path}: --param: {e}") from None


def write_out(text: str) -> None:
  """A command's result to stdout, in the ``write`` phase (no time or memory bound cuts it) and never interrupted by
  its budget: a signal during a large write to a pipe can make CPython drop the rest of it (see ``uopc.cli.budget``).
  Output that cannot be written (a full disk, stdout closed) is a ``CLIError`` (exit 2)."""
  enter("write")
  with shielded(), _output_errors(): _stdout(sys.stdout).write(text)


def write_out_from(f: BinaryIO, block: int = 1 << 22) -> None:
  """The bytes of ``f`` (a report written to a file first: ``uopc.cli.reports.stream``) to stdout, as ``write_out``
  writes text: in the ``write`` phase, shielded; straight to its file descriptor where it has one (a gigabyte, no copy
  through Python's text layer), else as text."""
  enter("write")
  with shielded(), _output_errors():
    out = _stdout(sys.stdout)
    out.flush()   # what it holds goes first
    try: fd = out.fileno()
    except (AttributeError, OSError, ValueError): fd = -1   # (io.UnsupportedOperation is both)
    if fd < 0:
      while chunk := f.read(block): out.write(chunk.decode("utf-8"))
      return
    offset, size = 0, os.fstat(f.fileno()).st_size
    while offset < size:
      try: offset += os.sendfile(fd, f.fileno(), offset, size - offset)
      except OSError as e:
        if e.errno not in (errno.EINVAL, errno.ENOSYS): raise
        f.seek(offset)   # no sendfile to this file: through a buffer
        while chunk := f.read(block): _write_all(fd, chunk)
        return


def _write_all(fd: int, data: bytes) -> None:
  view = memoryview(data)
  while view: view = view[os.write(fd, view):]


def write_file(path: str, text: str) -> None:
  """``text`` to the file ``path`` (``-o FILE``), whole or not at all, in the ``write`` phase; a file that cannot be
  written is a ``CLIError``."""
  enter("write")
  try:
    with shielded(): write_atomically(path, text)
  except OSError as e: raise CLIError(f"{path}: cannot write: {e.strerror or e}") from None


def run_command(func: Callable[[argparse.Namespace], int], args: argparse.Namespace) -> int:
  """``func(args)``; with ``-o FILE`` and a format the command prints (text, dot, uir), what it prints goes to FILE
  instead of stdout, whole, once it has returned (``--format json`` and ``html`` write FILE themselves). Without, what
  it prints goes to stdout through a ``CommandOutput``: held from the report on and written in the ``write`` phase."""
  path = getattr(args, "output", None)
  if path is None or getattr(args, "format", None) in (None, "json", "html"): return _to_stdout(func, args)
  stdout, sys.stdout = sys.stdout, io.StringIO()
  try: code = func(args)
  finally: text, sys.stdout = sys.stdout.getvalue(), stdout
  write_file(path, text)
  return code


def _to_stdout(func: Callable[[argparse.Namespace], int], args: argparse.Namespace) -> int:
  out = CommandOutput(sys.stdout)
  sys.stdout = cast(TextIO, out)
  try: code = func(args)
  finally:
    sys.stdout = out.real
    failed = sys.exc_info()[0]
    if failed is not KeyboardInterrupt:   # (the second interrupt: out now, whatever is lost)
      enter("write")
      try: out.flush()
      except (CLIError, OSError):
        if failed is None: raise   # else the error on its way says more
  return code


class CommandOutput:
  """A command's stdout while it runs (``run_command``). What it prints in the start-up and the search goes through at
  once (``explore reachable`` streams its states); from the ``report`` phase on it is held here and written whole in
  the ``write`` phase (``write_out``, or as the command ends), so a reader that reads slowly slows the write, not the
  report, and no time bound cuts it. Every write is shielded (a signal during a large write to a pipe can make
  CPython drop the rest of it); one that fails is a ``CLIError`` (``cannot write the output``, exit 2), but a reader
  gone (``BrokenPipeError``), which ends the command quietly."""

  def __init__(self, real: TextIO | None) -> None:
    self.real = real   # None: Python found stdout closed
    self.held = io.StringIO()

  def write(self, text: str) -> int:
    if phase() == "report": return self.held.write(text)
    with shielded(), _output_errors():
      real = _stdout(self.real)
      self._release(real)
      return real.write(text)

  def flush(self) -> None:
    if phase() == "report" or (self.real is None and not self.held.tell()): return   # (nothing to write: stdout may be closed)
    with shielded(), _output_errors():
      real = _stdout(self.real)
      self._release(real)
      real.flush()

  def _release(self, real: TextIO) -> None:
    if self.held.tell():
      text = self.held.getvalue()
      self.held = io.StringIO()
      real.write(text)

  def __getattr__(self, name: str) -> Any:   # isatty, fileno, encoding, ...: the real stdout's
    if name in ("real", "held"): raise AttributeError(name)   # (not set yet: a copy being made)
    return getattr(self.real, name)


def _stdout(out: TextIO | None) -> TextIO:
  """``out``, the stdout to write to; a ``CLIError`` where it is closed (None)."""
  if out is None: raise CLIError("uopc: cannot write the output: stdout is closed")
  return out


@contextlib.contextmanager
def _output_errors() -> Iterator[None]:
  """Writing the output: an ``OSError`` (a full disk, a closed file) is the one-line ``CLIError`` (exit 2); a reader
  gone (``BrokenPipeError``) stays itself (``uopc.cli.main`` ends quietly)."""
  try: yield
  except BrokenPipeError: raise
  except OSError as e: raise CLIError(f"uopc: cannot write the output: {e.strerror or e}") from None


def max_steps_for(prog: UOp, requested: int | None) -> int:
  """``--max-steps``, or a default that grows with the program: a looping rule set fails fast."""
  return requested if requested is not None else 1_000_000 + 100 * len(prog.toposort())


def program_failed(path: str, e: Exception) -> CLIError:
  """The one-line report (exit 1) of a program that fails: ``prog.uir: IndexError: index 5 out of bounds ...``."""
  name = next(c.__name__ for c in type(e).__mro__ if c.__module__ == "builtins" or c is RewriteLoopError)
  return CLIError(f"{path}: {name}: {e}", EXIT_FAILED)
