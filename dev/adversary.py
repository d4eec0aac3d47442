"""The adversary's check of issue 36: does any bound or signal leave a command with no valid output, and how far past
each bound does it end?

``python dev/adversary.py --runs 60`` runs the ``uopc`` console script (through its supervisor, as a user does) many
times, each with one stop: a small ``--timeout``, ``--max-memory`` or ``--max-states``; SIGINT or SIGTERM sent at a
random moment (in the first 0.2 s, later, or once the output has begun); a slow reader, a stalled reader
(``| (sleep 12; cat)``); stdout to ``/dev/full``; stdout closed. It draws the command (the explorer's commands,
``saturate``, ``run``, ``simplify``), the rule set (``symbolic``, and ``tinygrad:symbolic`` and ``pytensor:canonicalize``
where installed), the program (examples/, the PyTensor walkthrough of docs/pytensor.md), the format and the output
(stdout or ``-o FILE``) from ``--seed``. Each run is checked against docs/failure-contract.md:

- its exit code is documented (0, 1, 2, 3, 128+N), and an interrupt is not reported as 3;
- stderr is a line or two, with no ``Traceback`` and no ``internal error``, and never says ``output included``
  when no output is there;
- the output is valid for its format (JSON parses; a page ends with ``</html>`` and its embedded JSON parses; DOT's
  braces balance; text is not empty) and, when the exit is 3 or 128+N, says so (``"complete": false`` at the top of
  the JSON and the page's JSON, ``stopped by`` or ``incomplete`` in text); ``-o FILE`` is whole or absent, with no
  temporary file left beside it; stdout to ``/dev/full`` or closed is exit 2 and one line.

A run that breaks one of these is *invalid* (no valid output: missing, cut, unparseable, a traceback, an undocumented
exit) or *unmarked* (a valid output a bound stopped that does not say so). The overshoot is the time from when the
bound should fall (the timeout counted from the start, the signal's sending) to the command's end, and for
``--max-memory`` the peak resident memory (the supervisor's and the worker's, from ``wait4``) past the bound.

It prints a table per command and stop, then each failure with a command line that reproduces it; ``--json`` prints
the same as JSON. It bounds itself: every run has a hard cap (``--cap``, 60 s) past which its process group is killed.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import re
import shlex
import signal
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parent.parent
DOCUMENTED = {0, 1, 2, 3, 128 + signal.SIGINT, 128 + signal.SIGTERM}
INTERRUPTED = {128 + signal.SIGINT, 128 + signal.SIGTERM}
SLOW_CHUNK, SLOW_PAUSE = 8192, 0.1   # the slow reader: 8 KiB every 0.1 s, about 80 KB/s
STALL = 13.0                         # the stalled reader's sleep: past the supervisor's 8 s after its 3 s timeout
SAFETY = 30                          # the --timeout beside a memory or states bound: a run that never reaches it still ends
UNWRITABLE = "/proc/self/uopc-adversary"   # a folder no one can make: -o FILE in it cannot be written
HARD = 8.0                           # uopc_launch.HARD: the supervisor's seconds past a bound before it stops the worker
LINGER = 3.0                         # seconds a worker may outlive its supervisor killed by SIGKILL
PIPE_BYTES = 65536                   # a pipe's buffer: a writer that filled it waits for its reader
WRITE_WAIT = 20.0                    # signal-in-write: seconds to wait for the first output byte before sending the signal anyway
MARKER = re.compile(r"stopped by|incomplete", re.I)
HTML_DATA = re.compile(r'<script type="application/json" id="(uopc-[\w-]+)">(.*?)</script>', re.S)
PHASE_WORD = re.compile(r"during (?:the )?(start-up|search|report|write)")


# ---------------------------------------------------------------------------------------------- what can be run

@dataclass(frozen=True)
class Program:
  """A program for the explorer's commands: its arguments, the rule set it runs under, a target for ``explore search``."""
  args: tuple[str, ...]
  rules: str
  target: str
  heavy: bool   # big enough that a bound is hit in the search (five_params: 488,511 states)


@dataclass(frozen=True)
class Command:
  name: str                   # the row of the table
  argv: tuple[str, ...]       # after ``uopc``
  formats: tuple[str, ...]    # the first is the default (no --format passed)
  states: bool                # takes --max-states
  output: bool                # takes -o FILE
  kind: str                   # which programs: explore, pairs, canonical, run


COMMANDS = (
  Command("reachable", ("explore", "reachable"), ("text", "json", "dot", "html"), True, True, "explore"),
  Command("normal-forms", ("explore", "normal-forms"), ("text", "json", "dot", "html"), True, True, "explore"),
  Command("order", ("explore", "order"), ("text", "json", "html"), True, True, "explore"),
  Command("pairs", ("explore", "pairs"), ("text", "json", "html"), False, True, "pairs"),
  Command("search", ("explore", "search"), ("text", "json", "html"), True, True, "explore"),
  Command("best", ("explore", "best"), ("text", "json", "html"), True, True, "explore"),
  Command("saturate", ("saturate",), ("text", "json", "html"), True, True, "canonical"),
  Command("run", ("run",), ("text",), False, False, "run"),
  Command("simplify", ("simplify",), ("uir", "json", "html"), False, True, "canonical"),
)
WEIGHTS = {"reachable": 3, "normal-forms": 3, "order": 2, "pairs": 2, "search": 2, "best": 2, "saturate": 2, "run": 1, "simplify": 1}


def installed(module: str) -> bool:
  try: __import__(module)
  except ImportError: return False
  return True


def programs(kind: str) -> list[Program]:
  five, order = "examples/five_params.uir", "examples/order.uir"
  if kind == "run": return [Program(("examples/vector.uir",), "", "", False), Program(("examples/affine.uir", "--param", "0=5"), "", "", False)]
  if kind == "canonical": return [Program((five,), "symbolic", "", True), Program(("examples/sum30.uir",), "symbolic", "", False)]
  if kind == "pairs":
    out = [Program(("symbolic",), "symbolic", "", True), Program(("examples/my_rules.py:rules",), "examples/my_rules.py:rules", "", False)]
    return out + ([Program(("tinygrad:symbolic",), "tinygrad:symbolic", "", True)] if installed("tinygrad") else [])
  out = [Program((five,), "symbolic", "add(?x, ?x)", True), Program((five,), "symbolic", "add(?x, ?x)", True),
         Program((order,), "symbolic", "mul(?x, ?y)", False), Program(("examples/doubling.uir",), "symbolic", "add(?x, ?x)", False)]
  if installed("tinygrad"): out.append(Program((five,), "tinygrad:symbolic", "add(?x, ?x)", True))
  if installed("pytensor"):
    out.append(Program(("explore/aesara_walkthrough.py:z",), "pytensor:canonicalize", "add(x, x, x, x)", False))
  return out


def command_argv(command: Command, program: Program) -> list[str]:
  argv = [*command.argv, *program.args]
  if command.kind in ("explore", "canonical") and program.rules != "symbolic": argv += ["--rules", program.rules]
  if command.name == "search": argv += ["--target", program.target]
  return argv


# ---------------------------------------------------------------------------------------------- one run

STOPS = ("timeout", "memory", "states", "sigint-early", "sigterm-early", "sigint", "sigterm", "signal-in-write",
         "slow-reader", "stalled-reader", "dev-full", "stdout-closed", "o-unwritable", "supervisor-killed")


@dataclass
class Case:
  """One run: everything needed to repeat it."""
  index: int
  command: str
  argv: list[str]             # after ``uopc``: the command, its program, its stop's flags, --format and -o
  fmt: str
  to_file: bool
  stop: str
  delay: float = 0.0          # seconds after the start a signal is sent (signal-in-write: after the first output byte)
  signum: int = 0
  timeout: float = 0.0        # the --timeout passed, if the stop is a timeout
  memory_mib: int = 0         # the --max-memory passed, if the stop is memory
  reader: str = "all"         # all, slow, stalled; dev-full and closed for the stdout stops


@dataclass
class Result:
  case: Case
  code: int | None            # None: killed by this tool's hard cap
  elapsed: float
  overshoot: float | None     # seconds past the bound (or MiB past a memory bound)
  phase: str
  peak_mib: float
  stdout_bytes: int
  stderr: str
  problems: list[str] = field(default_factory=list)
  unmarked: list[str] = field(default_factory=list)
  allowed: list[str] = field(default_factory=list)   # what the contract allows: an interrupt ends a write HARD s after it
  repro: str = ""

  @property
  def invalid(self) -> bool: return bool(self.problems)


def draw_case(index: int, rng: random.Random, stop: str) -> Case:
  """The case for ``stop``: a command that can take it, a program, a format and an output, drawn from ``rng``."""
  writes_long = stop in ("slow-reader", "stalled-reader", "signal-in-write")   # a big output, so the write lasts
  usable = [c for c in COMMANDS if (stop != "states" or c.states) and not (writes_long and c.kind == "run")]   # run's output is a line
  if stop == "supervisor-killed": usable = [c for c in usable if c.kind == "explore"]   # still at work a few seconds in
  if stop == "o-unwritable": usable = [c for c in usable if c.output]
  command = rng.choices(usable, [WEIGHTS[c.name] for c in usable])[0]
  program = rng.choice([p for p in programs(command.kind) if p.heavy or not (writes_long or stop == "supervisor-killed")])
  fmt = rng.choice(command.formats)
  to_file = command.output and stop not in ("slow-reader", "stalled-reader", "signal-in-write", "dev-full", "stdout-closed") \
    and rng.random() < 0.4
  argv = command_argv(command, program)
  case = Case(index, command.name, argv, fmt, to_file, stop)
  if stop == "timeout":
    case.timeout = rng.choice((0.05, 0.5, 1.0, 2.0, 3.0))
    argv += ["--timeout", f"{case.timeout:g}"]
  elif stop == "memory":
    case.memory_mib = rng.choice((40, 80, 120, 200))
    argv += ["--max-memory", f"{case.memory_mib}M", "--timeout", str(SAFETY)]
  elif stop == "states":
    argv += ["--max-states", str(rng.choice((1, 5, 200, 3000))), "--timeout", str(SAFETY)]
  elif stop in ("sigint-early", "sigterm-early", "sigint", "sigterm", "signal-in-write"):
    case.signum = int(signal.SIGTERM if "sigterm" in stop or (stop == "signal-in-write" and rng.random() < 0.5) else signal.SIGINT)
    case.delay = rng.uniform(0, 0.2) if stop.endswith("early") else rng.uniform(0.2, 4.0) if stop in ("sigint", "sigterm") \
      else rng.uniform(0, 0.5)
    if stop == "signal-in-write": case.reader = "slow"
  elif stop == "supervisor-killed":   # SIGKILL to the supervisor alone: its worker must not outlive it long
    case.signum, case.delay = int(signal.SIGKILL), rng.uniform(0.5, 3.0)
  elif stop in ("slow-reader", "stalled-reader"):
    case.reader = "slow" if stop == "slow-reader" else "stalled"
    case.timeout = 2.0 if stop == "slow-reader" else 3.0   # the stalled reader's: past start-up on a loaded machine, then the write
    argv += ["--timeout", f"{case.timeout:g}"]
  elif stop in ("dev-full", "stdout-closed"):
    case.reader = stop
  elif stop == "o-unwritable":   # -o in a folder that cannot be made: exit 2, one line
    case.to_file, case.reader = True, stop
  if case.reader in ("slow", "stalled") and command.states and "--max-states" not in argv:
    argv += ["--max-states", "1000"]   # a complete result of 0.2-1 MB: its write outlasts the timeout
  if command.kind == "pairs" and "--timeout" not in argv and stop not in ("sigint-early", "sigterm-early"):
    argv += ["--timeout", str(SAFETY)]   # its default is 600 s: tinygrad's rules take minutes
  if fmt != command.formats[0]: argv += ["--format", fmt]
  return case


def interruptible_children() -> None:
  """A background job of a non-interactive shell (``python dev/adversary.py &``) starts with SIGINT ignored, and its
  children inherit that: Python keeps it ignored, so a SIGINT in their start-up is dropped, which is the shell's doing,
  not uopc's. A handler (not SIG_IGN) here is reset to the default in every child at exec."""
  if threading.current_thread() is threading.main_thread() and signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


class Runner:
  """Runs cases with ``uopc`` (the console script) importing the code of ``checkout``."""

  def __init__(self, uopc: Path, checkout: Path, cap: float, workdir: Path) -> None:
    interruptible_children()
    self.uopc, self.checkout, self.cap, self.workdir = uopc, checkout, cap, workdir
    self.env = {**os.environ, "PYTHONPATH": str(checkout), "PYTHONUNBUFFERED": "1"}
    self.env.pop("UOPC_SUPERVISOR", None)

  def run(self, case: Case) -> Result:
    folder = Path(tempfile.mkdtemp(prefix=f"run{case.index:03d}-", dir=self.workdir))
    out_file = Path(UNWRITABLE) / f"out.{case.fmt}" if case.reader == "o-unwritable" else folder / f"out.{case.fmt}"
    argv = [str(self.uopc), *case.argv, *(["-o", str(out_file)] if case.to_file else [])]
    if case.reader == "stdout-closed": argv = ["sh", "-c", 'exec "$@" >&-', "sh", *argv]
    stdout: Any = subprocess.PIPE
    if case.reader == "dev-full": stdout = open("/dev/full", "wb")   # closed once the child has it
    start = time.monotonic()
    proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=stdout, stderr=subprocess.PIPE, cwd=self.checkout, env=self.env,
                            start_new_session=True)
    if case.reader == "dev-full": stdout.close()
    io = _Streams(proc, case.reader)
    ended: dict[str, Any] = {}
    waiter = threading.Thread(target=_wait4, args=(proc, ended), daemon=True)
    waiter.start()
    sent = self._signal(case, proc, io, start, waiter)
    waiter.join(max(0.0, self.cap - (time.monotonic() - start)))
    if waiter.is_alive():   # past the hard cap: the whole process group this run started
      try: os.killpg(proc.pid, signal.SIGKILL)
      except ProcessLookupError: pass
      waiter.join()
      ended["code"] = None
    if case.stop == "supervisor-killed" and sent is not None: ended["lingered"] = _group_gone(proc.pid, self.cap) - sent
    try: os.killpg(proc.pid, signal.SIGKILL)   # whatever this run left behind
    except ProcessLookupError: pass
    io.join()
    result = self._judge(case, ended, start, sent, io, out_file, folder)
    result.repro = repro(case, self.uopc, self.checkout)
    return result

  def _signal(self, case: Case, proc: subprocess.Popen, io: _Streams, start: float, waiter: threading.Thread) -> float | None:
    """Send the case's signal (to the supervisor, as ``kill PID`` does) at its moment; the time it was sent, or None."""
    if not case.signum: return None
    if case.stop == "signal-in-write":   # once the output has begun (or, if it never does, after WRITE_WAIT s)
      while io.first_byte is None and waiter.is_alive() and time.monotonic() - start < WRITE_WAIT: time.sleep(0.01)
      moment = (io.first_byte or time.monotonic()) + case.delay
    else: moment = start + case.delay
    while time.monotonic() < moment and waiter.is_alive(): time.sleep(min(0.005, max(0.0, moment - time.monotonic())))
    if not waiter.is_alive(): return None
    try: os.kill(proc.pid, case.signum)
    except ProcessLookupError: return None
    return time.monotonic()

  def _judge(self, case: Case, ended: dict[str, Any], start: float, sent: float | None, io: _Streams, out_file: Path,
             folder: Path) -> Result:
    code, end = ended.get("code"), ended.get("end", time.monotonic())
    stderr = io.stderr.decode(errors="replace")
    bound_at = sent if sent is not None else start + case.timeout if case.timeout else None
    overshoot = (end - bound_at) if bound_at is not None and end >= bound_at else None   # None: it ended before the bound fell
    peak = ended.get("maxrss_kib", 0) / 1024
    if case.memory_mib: overshoot = peak - case.memory_mib if "--max-memory" in stderr else None   # only when that bound stopped it
    if "lingered" in ended: overshoot = ended["lingered"]
    result = Result(case, code, end - start, overshoot, "", peak, len(io.stdout), stderr)
    result.phase = phase_of(case, stderr, start, end, sent, bound_at, io.first_byte, len(io.stdout))
    if case.signum and sent is None: result.phase = "ended before the signal"
    check(result, io.stdout, out_file, folder, sent)
    return result


class _Streams:
  """Reads the run's stdout as its reader does (all at once, slowly, after a stall) and its stderr, on threads."""

  def __init__(self, proc: subprocess.Popen, reader: str) -> None:
    self.stdout, self.stderr = b"", b""
    self.first_byte: float | None = None
    self.threads = [threading.Thread(target=self._err, args=(proc,), daemon=True)]
    if proc.stdout is not None: self.threads.append(threading.Thread(target=self._out, args=(proc, reader), daemon=True))
    for t in self.threads: t.start()

  def _out(self, proc: subprocess.Popen, reader: str) -> None:
    assert proc.stdout is not None
    if reader == "stalled": time.sleep(STALL)
    chunks = []
    while True:
      chunk = proc.stdout.read1(SLOW_CHUNK if reader == "slow" else 1 << 20)   # type: ignore[attr-defined]
      if not chunk: break
      if self.first_byte is None: self.first_byte = time.monotonic()
      chunks.append(chunk)
      if reader == "slow": time.sleep(SLOW_PAUSE)
    self.stdout = b"".join(chunks)
    proc.stdout.close()

  def _err(self, proc: subprocess.Popen) -> None:
    assert proc.stderr is not None
    self.stderr = proc.stderr.read()
    proc.stderr.close()

  def join(self) -> None:
    for t in self.threads: t.join()


def _group_gone(pgid: int, cap: float) -> float:
  """When no live process of the process group ``pgid`` is left (zombies do not count), waiting at most ``cap`` seconds."""
  deadline = time.monotonic() + cap
  while time.monotonic() < deadline:
    alive = False
    for entry in os.listdir("/proc"):
      if not entry.isdigit(): continue
      try: fields = Path(f"/proc/{entry}/stat").read_text().rpartition(")")[2].split()
      except OSError: continue
      if int(fields[2]) == pgid and fields[0] != "Z": alive = True; break   # fields: state, ppid, pgrp, ...
    if not alive: break
    time.sleep(0.05)
  return time.monotonic()


def _wait4(proc: subprocess.Popen, ended: dict[str, Any]) -> None:
  """The run's end: its exit code (128+N when a signal killed it), the time, and its peak memory with its waited-for children's."""
  _, status, usage = os.wait4(proc.pid, 0)
  ended["end"] = time.monotonic()
  proc.returncode = os.waitstatus_to_exitcode(status)   # reaped here: Popen must not wait for it again
  ended["code"] = proc.returncode if proc.returncode >= 0 else 128 - proc.returncode
  ended["killed_by"] = -proc.returncode if proc.returncode < 0 else 0
  ended["maxrss_kib"] = usage.ru_maxrss


def phase_of(case: Case, stderr: str, start: float, end: float, sent: float | None, bound_at: float | None, first_byte: float | None,
             out_bytes: int) -> str:
  """Where the stop fell, as the command says it (``during the search``) or as seen from outside."""
  said = PHASE_WORD.search(stderr)
  if said: return said.group(1)
  if case.reader in ("dev-full", "stdout-closed", "o-unwritable"): return "write"
  if case.reader == "stalled" and (end >= start + STALL - 0.5 or out_bytes >= PIPE_BYTES): return "write"   # blocked on the full pipe
  if case.stop.endswith("early"): return "start-up"
  if bound_at is not None and first_byte is not None and first_byte <= bound_at: return "write"
  if case.timeout and case.timeout < 0.3: return "start-up"
  return "search/report" if bound_at is not None else "not said"


# ---------------------------------------------------------------------------------------------- what is valid

def check(result: Result, stdout: bytes, out_file: Path, folder: Path, sent: float | None) -> None:
  """Fill ``result.problems`` (no valid output) and ``result.unmarked`` (valid, but a stop it does not declare); an output cut
  by the supervisor 8 s after an interrupt that came in the write is what the contract allows (``result.allowed``)."""
  _check(result, stdout, out_file, folder, sent)
  if result.case.signum and result.phase == "write" and "outside" in result.stderr and result.problems:
    result.allowed, result.problems = [f"the write cut {HARD:g} s after an interrupt: " + "; ".join(result.problems)], []


def _check(result: Result, stdout: bytes, out_file: Path, folder: Path, sent: float | None) -> None:
  case, code, err = result.case, result.code, result.stderr
  if python_start_traceback(err, case, sent):
    result.phase = "Python's start"   # before the console script's first line: the contract leaves it to Python
    return
  if code is None: result.problems.append(f"still running after the hard cap of the run ({result.elapsed:.0f} s): killed")
  if code is not None and code not in DOCUMENTED and case.stop != "supervisor-killed": result.problems.append(f"undocumented exit {code}")
  if "Traceback" in err: result.problems.append("a traceback on stderr")
  if "internal error" in err: result.problems.append("'internal error' on stderr")
  lines = [line for line in err.splitlines() if line.strip()]
  if len(lines) > 2 and "Traceback" not in err: result.problems.append(f"stderr has {len(lines)} lines")
  if "lost" in err and "outside" in err: result.problems.append("stopped from outside (what it had found is lost)")
  if sent is not None and code == 3 and result.phase != "write": result.problems.append("an interrupt reported as exit 3")
  if sent is not None and code in INTERRUPTED and code != 128 + case.signum: result.problems.append(f"exit {code} for signal {case.signum}")
  if case.stop == "supervisor-killed":   # no output is promised: only that the worker ends with it
    if sent is not None and result.overshoot is not None and result.overshoot > LINGER:
      result.problems.append(f"the worker outlived its killed supervisor by {result.overshoot:.1f} s")
    return
  if case.reader in ("dev-full", "stdout-closed", "o-unwritable"):
    where = {"dev-full": "stdout to /dev/full", "stdout-closed": "stdout closed", "o-unwritable": f"-o in {UNWRITABLE}"}[case.reader]
    if code != 2: result.problems.append(f"{where}: exit {code}, not 2")
    if len(lines) > 1 and "Traceback" not in err: result.problems.append(f"{where}: {len(lines)} lines on stderr, not one")
    return
  leftovers = [p.name for p in folder.iterdir() if p != out_file]
  if leftovers: result.problems.append(f"files left beside -o: {leftovers}")
  if case.to_file:
    if stdout.strip(): result.problems.append(f"{len(stdout)} bytes on stdout with -o")
    data = out_file.read_bytes() if out_file.exists() else None
  else: data = stdout if stdout else None
  stopped = code == 3 or code in INTERRUPTED or (code == 1 and "stopped by" in err)   # a finding's exit 1 wins over a bound's 3
  findings = code == 1 and case.command not in ("run", "simplify", "saturate")   # the explorer's exit 1 is a finding, printed
  wanted = code in (0, 3) or findings or (code in INTERRUPTED and not early_python_death(result, sent))
  if data is None:
    if wanted: result.problems.append(f"no output ({'no -o file' if case.to_file else '0 bytes on stdout'}) with exit {code}")
    if "output included" in err: result.problems.append("stderr says 'output included' but there is none")
    return
  problem, complete = validate(case.fmt, data)
  if problem:
    result.problems.append(f"{case.fmt} output not valid ({len(data)} bytes): {problem}")
    if "output included" in err: result.problems.append("stderr says 'output included' but the output is not valid")
    return
  if stopped and complete is True and not (sent is not None and result.phase == "write"):
    result.unmarked.append(f"exit {code} but the output says complete")
  if stopped and complete is None: result.unmarked.append(f"exit {code} but the {case.fmt} output has no incomplete marker")


def python_start_traceback(err: str, case: Case, sent: float | None) -> bool:
  """A KeyboardInterrupt in Python's own start, before the console script's first line (the contract leaves it to Python):
  every frame is Python's (frozen importlib, the standard library), none is the console script's or uopc's."""
  if not (case.stop.endswith("early") and sent is not None): return False
  if "init_import_site" in err: return True   # Python's site (the venv's .pth files) was still loading
  frames = re.findall(r'File "([^"]+)"', err)
  return bool(frames) and not any(f.endswith(("/bin/uopc", "uopc_launch.py", "__main__.py")) or "/uopc/" in f for f in frames)


def early_python_death(result: Result, sent: float | None) -> bool:
  """The signal killed Python before the console script could block it (no output is possible then)."""
  return result.case.stop.endswith("early") and sent is not None and not result.stderr.strip() and result.stdout_bytes == 0


def validate(fmt: str, data: bytes) -> tuple[str, bool | None]:
  """('' or what is wrong, whether the output says it is complete: True, False, or None when it does not say)."""
  try: text = data.decode()
  except UnicodeDecodeError as e: return f"not UTF-8 ({e})", None
  if not text.strip(): return "empty", None
  if fmt == "json":
    try: doc = json.loads(text)
    except ValueError as e: return f"JSON does not parse: {e}", None
    return "", complete_of(doc)
  if fmt == "html":
    if not text.rstrip().endswith("</html>"): return "the page does not end with </html>", None
    blocks = HTML_DATA.findall(text)
    if not blocks or blocks[0][0] != "uopc-data": return "no uopc-data JSON in the page", None
    try: docs = [json.loads(body) for _, body in blocks]
    except ValueError as e: return f"the page's JSON does not parse: {e}", None
    return "", complete_of(docs[0])
  if fmt == "dot":
    body = re.sub(r"(?m)^\s*(//|#).*$", "", text).strip()   # comment lines
    if not body.startswith(("digraph", "graph", "strict")): return "DOT does not start with a graph", None
    depth = 0
    for ch in re.sub(r'"(?:[^"\\]|\\.)*"', "", body):
      depth += (ch == "{") - (ch == "}")
      if depth < 0: break
    if depth != 0 or not body.endswith("}"): return "DOT braces do not balance", None
    return "", (False if MARKER.search(text) else None)   # the marker may be in a comment
  return "", (False if MARKER.search(text) else None)   # text, uir


def complete_of(doc: Any) -> bool | None:
  """The top-level ``complete`` of a command's JSON (None when it has none: a marker nested deeper does not count)."""
  if isinstance(doc, dict) and isinstance(doc.get("complete"), bool): return doc["complete"]
  return None


def repro(case: Case, uopc: Path, checkout: Path) -> str:
  """A shell command line that repeats the run (the moment of a signal and the reader's pace as this run had them)."""
  out = f"{UNWRITABLE}/out.{case.fmt}" if case.reader == "o-unwritable" else f"/tmp/out.{case.fmt}"
  cmd = " ".join(shlex.quote(a) for a in [str(uopc), *case.argv, *(["-o", out] if case.to_file else [])])
  prefix = f"cd {shlex.quote(str(checkout))} && PYTHONPATH=$PWD "
  if case.signum: prefix = "set -m; " + prefix   # a script's background job would start with SIGINT ignored
  slow = ("python3 -c 'import sys, time; [(sys.stdout.buffer.write(b), time.sleep(%g)) for b in iter(lambda: sys.stdin.buffer.read1(%d), b\"\")]'"
          % (SLOW_PAUSE, SLOW_CHUNK))
  sink = "" if case.to_file else f" > /tmp/out.{case.fmt}"
  if case.reader == "dev-full": return prefix + cmd + " > /dev/full; echo $?"
  if case.reader == "stdout-closed": return prefix + cmd + " >&-; echo $?"
  if case.stop == "signal-in-write":
    return prefix + f"{{ {cmd} & p=$!; sleep {case.delay + 1:.2f}; kill -{signal.Signals(case.signum).name[3:]} $p; wait $p; " \
                    f"echo exit $? >&2; }} | {slow}{sink}  # the signal {case.delay:.2f} s after the first output byte"
  if case.stop == "supervisor-killed":
    wait = f"while pgrep -f {shlex.quote(case.argv[2])} > /dev/null; do sleep 0.1; done"   # the program's name in the worker's argv
    return prefix + f"{cmd}{sink} & sleep {case.delay:.2f}; kill -KILL $!; time ({wait})"
  if case.signum:
    return prefix + f"{cmd}{sink} & sleep {case.delay:.2f}; kill -{signal.Signals(case.signum).name[3:]} $!; wait $!; echo $?"
  if case.reader == "slow": return prefix + f"{cmd} | {slow}{sink}; echo ${{PIPESTATUS[0]}}"
  if case.reader == "stalled": return prefix + f"{cmd} | (sleep {STALL:g}; cat){sink}; echo ${{PIPESTATUS[0]}}"
  return prefix + f"{cmd}{sink}; echo $?"


# ---------------------------------------------------------------------------------------------- many runs, and the table

def draw_cases(runs: int, seed: int, stops: tuple[str, ...] = STOPS) -> list[Case]:
  """``runs`` cases, the stops taken in turn (each as often as the others), the rest drawn from ``seed``."""
  rng = random.Random(seed)
  order = list(stops)
  rng.shuffle(order)
  return [draw_case(i, rng, order[i % len(order)]) for i in range(runs)]


def run_all(cases: list[Case], runner: Runner, jobs: int, progress: Callable[[Result], None] | None = None) -> list[Result]:
  results: list[Result] = []
  lock = threading.Lock()

  def one(case: Case) -> Result:
    result = runner.run(case)
    with lock:
      results.append(result)
      if progress: progress(result)
    return result

  # the stalled and slow readers mostly wait: started first, they overlap the busy runs
  ordered = sorted(cases, key=lambda c: c.reader not in ("stalled", "slow"))
  with ThreadPoolExecutor(max_workers=jobs) as pool: list(pool.map(one, ordered))
  return sorted(results, key=lambda r: r.case.index)


def table(results: list[Result]) -> list[dict[str, Any]]:
  rows: dict[tuple[str, str], dict[str, Any]] = {}
  for r in results:
    row = rows.setdefault((r.case.command, r.case.stop), {"command": r.case.command, "stop": r.case.stop, "runs": 0, "invalid": 0,
                                                          "unmarked": 0, "max_overshoot": None})
    row["runs"] += 1
    row["invalid"] += r.invalid
    row["unmarked"] += bool(r.unmarked) and not r.invalid
    if r.overshoot is not None and r.code is not None:
      row["max_overshoot"] = r.overshoot if row["max_overshoot"] is None else max(row["max_overshoot"], r.overshoot)
  return [rows[k] for k in sorted(rows)]


def by_stop(results: list[Result]) -> dict[str, dict[str, Any]]:
  """The largest overshoot past each kind of bound (over runs that ended by themselves)."""
  out: dict[str, dict[str, Any]] = {}
  for r in results:
    if r.overshoot is None or r.code is None: continue
    kind = "memory" if r.case.memory_mib else "supervisor killed" if r.case.stop == "supervisor-killed" else "signal" if r.case.signum \
      else "timeout (its reader slow or stalled: the write waits for it)" if r.case.reader in ("slow", "stalled") else "timeout"
    best = out.get(kind)
    if best is None or r.overshoot > best["overshoot"]:
      out[kind] = {"overshoot": round(r.overshoot, 2), "unit": "MiB" if kind == "memory" else "s", "run": r.case.index,
                   "command": r.case.command, "stop": r.case.stop}
  return out


def overshoot_text(row: dict[str, Any]) -> str:
  value = row["max_overshoot"]
  if value is None: return "-"
  return f"{value:.0f} MiB" if row["stop"] == "memory" else f"{value:.2f} s"


def print_report(results: list[Result], header: str) -> None:
  print(header)
  print(f"{'command':<13} {'stop':<18} {'runs':>4} {'invalid':>7} {'unmarked':>8} {'max overshoot':>14}")
  for row in table(results):
    print(f"{row['command']:<13} {row['stop']:<18} {row['runs']:>4} {row['invalid']:>7} {row['unmarked']:>8} {overshoot_text(row):>14}")
  invalid, unmarked = sum(r.invalid for r in results), sum(bool(r.unmarked) and not r.invalid for r in results)
  print(f"{'all':<13} {'':<18} {len(results):>4} {invalid:>7} {unmarked:>8}")
  phases: dict[str, list[int]] = {}
  for r in results:
    counts = phases.setdefault(r.phase, [0, 0])
    counts[0] += 1
    counts[1] += r.invalid
  print("by phase: " + ", ".join(f"{p} {n} runs {bad} invalid" for p, (n, bad) in sorted(phases.items())))
  for kind, worst in by_stop(results).items():
    print(f"largest overshoot past a {kind} bound: {worst['overshoot']} {worst['unit']} (run {worst['run']}, {worst['command']}, {worst['stop']})")
  for r in results:
    if not (r.invalid or r.unmarked or r.allowed): continue
    what = "; ".join(r.problems + r.unmarked + [f"(allowed) {a}" for a in r.allowed])
    print(f"\n#{r.case.index} {r.case.command} {r.case.stop} {r.case.fmt}{' -o' if r.case.to_file else ''} phase {r.phase}: exit {r.code}, "
          f"{r.elapsed:.1f} s, {r.stdout_bytes} bytes on stdout: {what}")
    if r.stderr.strip(): print("  stderr: " + " | ".join(r.stderr.strip().splitlines()[-3:])[:400])
    print("  " + r.repro)


def loaded(run: dict[str, Any]) -> Result:
  """A run of a saved ``--json`` output."""
  case_fields = set(Case.__dataclass_fields__)
  case = Case(**{k: v for k, v in run.items() if k in case_fields})
  return Result(case, **{k: v for k, v in run.items() if k not in case_fields})


def default_uopc() -> Path:
  """The console script of the venv this script runs in (``.venv/bin/python dev/adversary.py``), else the checkout's own venv."""
  for candidate in (Path(sys.executable).parent / "uopc", ROOT / ".venv" / "bin" / "uopc"):
    if candidate.exists(): return candidate
  raise SystemExit("adversary: no uopc console script found: pass --uopc PATH")


def main(argv: list[str] | None = None) -> int:
  parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
  parser.add_argument("--runs", type=int, default=60, help="runs (default 60: the stops taken in turn, each about four times)")
  parser.add_argument("--seed", type=int, default=0, help="seed of the draw of commands, formats, outputs and moments")
  parser.add_argument("--uopc", type=Path, default=None, help="the console script (default: the one beside this Python)")
  parser.add_argument("--checkout", type=Path, default=ROOT, help="the checkout whose code runs (PYTHONPATH; default: this one)")
  parser.add_argument("--stops", default=",".join(STOPS), help=f"the stops to draw from, comma-separated (default all: {','.join(STOPS)})")
  parser.add_argument("--jobs", type=int, default=2, help="runs at once (default 2)")
  parser.add_argument("--cap", type=float, default=60.0, help="seconds after which a run is killed (default 60)")
  parser.add_argument("--json", action="store_true", help="print the results as JSON")
  parser.add_argument("--report", type=Path, help="print the table and the failures of a saved --json output, and run nothing")
  args = parser.parse_args(argv)
  if args.report:
    saved = json.loads(args.report.read_text())
    results = [loaded(run) for run in saved["runs"]]
    print_report(results, saved["header"])
    return 1 if any(r.invalid for r in results) else 0
  stops = tuple(s for s in args.stops.split(",") if s)
  unknown = set(stops) - set(STOPS)
  if unknown or not stops: parser.error(f"unknown stops: {', '.join(sorted(unknown))}")
  uopc = (args.uopc or default_uopc()).resolve()
  checkout = args.checkout.resolve()
  cases = draw_cases(args.runs, args.seed, stops)
  with tempfile.TemporaryDirectory(prefix="uopc-adversary-") as workdir:
    runner = Runner(uopc, checkout, args.cap, Path(workdir))
    done = [0]

    def progress(r: Result) -> None:
      done[0] += 1
      mark = "INVALID" if r.invalid else "unmarked" if r.unmarked else "ok"
      print(f"[{done[0]}/{len(cases)}] #{r.case.index} {r.case.command} {r.case.stop} {r.case.fmt}: exit {r.code} {r.elapsed:.1f} s {mark}",
            file=sys.stderr, flush=True)

    started = time.monotonic()
    results = run_all(cases, runner, args.jobs, progress)
  header = f"uopc adversary: {len(results)} runs, seed {args.seed}, checkout {checkout}, {time.monotonic() - started:.0f} s"
  if args.json:
    print(json.dumps({"header": header, "table": table(results), "largest_overshoot": by_stop(results),
                      "runs": [{**asdict(r.case), **{k: v for k, v in asdict(r).items() if k != "case"}} for r in results]}, indent=1))
  else: print_report(results, header)
  return 1 if any(r.invalid for r in results) else 0


if __name__ == "__main__":
  sys.exit(main())
