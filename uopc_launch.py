"""The ``uopc`` console script: a small supervisor process, and the command in a worker under it.

Why two processes. A bound is a signal handled in the command's own main thread
(``uopc.cli.budget``), and a handler runs only between bytecodes: a rule stuck in one long C
call, a rule that catches every exception and retries, a thread that never ends, or a
write to a pipe nobody reads cannot be stopped from inside. The supervisor is this module,
importing nothing of uopc: it forks the worker at once, and stops it from outside
``HARD`` seconds after a bound was hit (``--timeout``, ``--max-memory``, SIGINT, SIGTERM)
if it has not ended by then, with the exit code the bound promises (3, 130, 143). The
worker reports what it found when it can; a worker stopped from outside could not, and
the one line on stderr says so (docs/failure-contract.md).

Signals reach the supervisor (the shell knows its pid). It never handles them: they stay
blocked and it takes them with ``sigtimedwait``, whose ``si_code`` says who sent them. A
Ctrl-C from the terminal reaches the worker too (same process group), so only a signal a
process sent to the supervisor alone is forwarded (one sent to the whole group, as ``timeout`` sends it, reached the worker
too: ``Supervisor._worker_has``); a second interrupt stops the worker at once. The worker tells
the supervisor its bounds, its phase and when a bound is hit through a pipe, one line each:
``<exit code> <when the bound falls, CLOCK_MONOTONIC> <memory bound or 0> <phase> <what stopped it>``
(``uopc.cli.budget``; the phases are ``start-up``, ``search``, ``report`` and ``write``). In ``write``
the supervisor stops the worker for no time or memory bound: the output is written whole however
slowly it is read; an interrupt still stops it ``HARD`` seconds after it (a second one at once).
Its one line names the bound and the phase: ``stopped by --timeout 10 s during the search; ...``.

Start-up is quiet too: the console script's import of this module blocks the signals before it
imports anything else (before that is Python's own start and the console script's first line:
``ready`` tells when the supervisor is up); they stay blocked in the worker until the command's
budget takes them (an interrupt while uopc imports is then the command's, which writes its output
marked incomplete); the handlers the worker installs first exit at once, should one come before.
Nor is one dropped at the end: one the worker ended too soon to take (sent as it wrote its last byte, or after) turns
its success into the interrupt's exit code and line (``Supervisor.exit``), and one sent after that last look ends this
process by itself (the signals' defaults are back then, unblocked, and it ends by ``os._exit``).

A supervisor killed by SIGKILL cannot stop its worker: the kernel sends the worker SIGTERM then
(``PR_SET_PDEATHSIG``), which the worker's budget takes as an interrupt without grace (it writes
what it has at once), and a guardian process (``_guard``), told by the end of a pipe only the
supervisor held, stops the worker and everything it started (a Ray cluster) if it has not ended
``ORPHAN`` seconds later.

A stdin, stdout or stderr that is closed is opened on ``/dev/null`` first, so no file the command
opens takes its number; Python has already set ``sys.stdout`` to None then, and writing the output
is the one-line error ``cannot write the output`` (exit 2; ``uopc.cli.support``).
"""
from __future__ import annotations

import signal
import sys

if sys.argv[0].rpartition("/")[2] == "uopc":   # the console script is importing us: block the signals before anything else
  signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})

import os     # (after the block: no import may run with the signals open)
import select
import time
from typing import NoReturn

HARD = 8.0          # seconds past a bound before the supervisor stops the worker from outside (a report gets 1: budget.REPORT_TIME)
SECOND = 0.25       # seconds the worker has to end by itself after a second interrupt
POLL = 0.1          # seconds between two looks at the worker's memory and the deadline
ECHO = 0.02         # seconds a process-sent interrupt waits for the worker's word that it got the signal too (Supervisor._worker_has)
ORPHAN = 1.0        # seconds a worker whose supervisor was killed has to write what it has before its guardian stops it
WHY_STUCK = {   # what can keep a worker from ending by itself, phase by phase
  "start-up": "a rules file or program that does not finish loading, a cluster that does not start",
  "search": "a rule stuck in C code, in a thread or catching every exception",
  "report": "a report too big to build in time",
  "write": "output nobody reads",
}
_SIGNALS = {signal.SIGINT, signal.SIGTERM}
_SI_KERNEL = 0x80   # si_code of a signal the kernel sent (the terminal's Ctrl-C), not a process


def main() -> int:
  """Entry point of the ``uopc`` console script (``uopc.cli.main:main`` is the command itself)."""
  old = signal.pthread_sigmask(signal.SIG_BLOCK, _SIGNALS | {signal.SIGCHLD}) - _SIGNALS   # the mask before the import, less ours
  _open_standard_files()
  if not (hasattr(os, "fork") and hasattr(signal, "sigtimedwait")) or os.environ.get("UOPC_SUPERVISOR") == "0":
    _quiet_start()
    signal.pthread_sigmask(signal.SIG_SETMASK, old | _SIGNALS)   # an interrupt waits for the command's budget (_command)
    return _command(None)
  read_end, write_end = os.pipe()
  _adopt_orphans()
  supervisor = os.getpid()
  pid = os.fork()
  if pid == 0:
    os.close(read_end)
    _quiet_start()
    _die_with_parent(supervisor)
    signal.pthread_sigmask(signal.SIG_SETMASK, old | _SIGNALS)   # an interrupt waits for the command's budget (_command)
    try: code = _command(write_end)
    except SystemExit as e: code = e.code if isinstance(e.code, int) else int(e.code is not None)   # argparse's --help and errors
    _flush_standard_files()
    if os.getppid() != supervisor: end_leftovers()   # orphaned: no supervisor stops what it started (a Ray cluster)
    os._exit(code)   # not sys.exit: a thread a rule left running must not keep the command alive
  os.close(write_end)
  watch = Supervisor(pid, read_end, _start_guardian(pid))
  try: code = watch.run()
  finally: end_leftovers()
  watch.exit(code)


def ready(pid: int) -> bool:
  """Whether process ``pid`` runs as a ``uopc`` supervisor is up: SIGINT and SIGTERM blocked (``/proc/PID/status``).
  From then on a signal is the command's to handle, never a traceback (before, it lands in Python's own start)."""
  blocked = _signal_masks(pid, "SigBlk:")
  return bool(blocked) and all(blocked[0] >> (s - 1) & 1 for s in _SIGNALS)


def _signal_masks(pid: int, *fields: str) -> list[int]:
  """The signal sets ``fields`` of process ``pid`` (``/proc/PID/status``: ``SigBlk:``, ``SigPnd:``, ...) as bit masks (signal
  n is bit n - 1), in the file's order; none if it is gone."""
  try:
    with open(f"/proc/{pid}/status") as f: return [int(line.split()[1], 16) for line in f if line.startswith(fields)]
  except (OSError, ValueError): return []


def _open_standard_files() -> None:
  """A closed stdin, stdout or stderr opened on /dev/null: the pipe, a temporary file or a child's file must not take
  its number (the command's output would go there). Python has set ``sys.stdout`` to None already: the command says
  that it cannot write its output."""
  for fd in (0, 1, 2):
    try: os.fstat(fd)
    except OSError:
      null = os.open(os.devnull, os.O_RDWR)
      if null != fd:
        os.dup2(null, fd)
        os.close(null)


def _flush_standard_files() -> None:
  """Flush ``sys.stdout`` and ``sys.stderr`` before ``os._exit`` (which does not): an error in either is not this
  process's to report any more."""
  for f in (sys.stdout, sys.stderr):
    try: f.flush()   # (None where the file was closed)
    except (OSError, ValueError, AttributeError): pass


def _start_guardian(worker: int) -> int | None:
  """The worker's guardian (``_guard``), a child of the supervisor, or None where it cannot fork."""
  lifeline, held = os.pipe()   # the supervisor alone holds ``held``: the guardian reads EOF once the supervisor is gone
  try: pid = os.fork()
  except OSError:
    os.close(lifeline)
    os.close(held)
    return None
  if pid == 0:
    try: _guard(worker, lifeline, held)
    finally: os._exit(0)
  os.close(lifeline)
  return pid


def _guard(worker: int, lifeline: int, held: int) -> None:
  """Wait for the supervisor's end; if it ended (killed) while the worker runs, give the worker ``ORPHAN`` seconds to write
  what it has (the kernel told it with SIGTERM), then stop it and what it started. A normal end of the supervisor stops
  the guardian first (``end_leftovers``)."""
  os.close(held)
  null = os.open(os.devnull, os.O_RDWR)
  for fd in range(3): os.dup2(null, fd)   # it holds none of the command's files: a reader of stdout sees its end
  os.closerange(3, lifeline)   # nor the supervisor's other pipes
  os.closerange(lifeline + 1, 1 << 16)
  born = _stat(worker)[19:20]   # its start time: a process that takes its number once it is gone is not it
  while True:
    try:
      if not os.read(lifeline, 1): break
    except InterruptedError: continue
  deadline = time.monotonic() + ORPHAN
  while time.monotonic() < deadline and _alive(worker): time.sleep(0.02)
  for _ in range(50):   # its tree first (once the worker is gone, its children are init's), then the worker
    tree = descendants(worker) if _stat(worker)[19:20] == born else []
    for p in tree:
      try: os.kill(p, signal.SIGKILL)
      except ProcessLookupError: pass
    if not tree: break
  if _stat(worker)[19:20] == born: os.kill(worker, signal.SIGKILL)


def _pending(pid: int, signo: int) -> bool:
  """Whether signal ``signo`` is pending in process ``pid`` (sent to the process and blocked there)."""
  return any(mask >> (signo - 1) & 1 for mask in _signal_masks(pid, "SigPnd:", "ShdPnd:"))


def _stat(pid: int) -> list[str]:
  """The fields of ``/proc/PID/stat`` after the command's name (the state first, the start time 20th); none if it is gone."""
  try:
    with open(f"/proc/{pid}/stat") as f: return f.read().rpartition(")")[2].split()
  except OSError: return []


def _alive(pid: int) -> bool:
  """Whether ``pid`` runs (exists and is no zombie)."""
  return _stat(pid)[:1] not in ([], ["Z"])


def _adopt_orphans() -> None:
  """Make this process the reaper of the worker's orphans (PR_SET_CHILD_SUBREAPER): a process a rule started and
  never waited for is reparented here, not to init, so it still counts against the memory bound and ends with the
  command (it would hold the command's stdout open otherwise, and whoever reads it would wait)."""
  try:
    import ctypes
    ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)
  except (OSError, AttributeError): pass


def _quiet_start() -> None:
  """Until the command installs its budget, an interrupt ends it at once, without a traceback; the
  supervisor's word on memory (SIGUSR1) means nothing before there is a budget to stop."""
  for s in _SIGNALS: signal.signal(s, _exit_quietly)
  signal.signal(signal.SIGUSR1, signal.SIG_IGN)


def _exit_quietly(signum: int, frame: object) -> None:
  os.write(2, f"uopc: stopped by an interrupt ({signal.Signals(signum).name})\n".encode())
  os._exit(128 + signum)


def _die_with_parent(supervisor: int) -> None:
  """A supervisor killed by SIGKILL cannot stop its worker: the kernel sends it SIGTERM then (its budget winds up at
  once: ``uopc.cli.budget``), and the worker is a reaper of its own orphans (``_adopt_orphans``: a Ray agent whose
  parent ended comes back to it, and its end stops it). Already gone: the same ending, now."""
  try:
    import ctypes
    ctypes.CDLL(None, use_errno=True).prctl(1, int(signal.SIGTERM), 0, 0, 0)   # PR_SET_PDEATHSIG
  except (OSError, AttributeError): pass
  _adopt_orphans()
  if os.getppid() != supervisor: os.kill(os.getpid(), signal.SIGTERM)   # it died before the prctl: pending until unblocked


def _command(control: int | None) -> int:
  """The command, its SIGINT and SIGTERM still blocked: an interrupt while uopc imports stays pending until the command's
  budget unblocks them (``uopc.cli.budget.Budget``), and is then an interrupt in its start-up, with the command's output
  (empty, marked incomplete: ``uopc.cli.reports.stopped``), not an exit with nothing written."""
  from uopc.cli import budget
  budget.set_supervisor(control)
  from uopc.cli.main import main as command
  return command()


class Supervisor:
  """Waits for the worker ``pid``, forwards signals, stops it from outside past its bound (none in its ``write`` phase
  but an interrupt's)."""

  def __init__(self, pid: int, control: int, guardian: int | None = None) -> None:
    self.pid, self.control, self.guardian = pid, control, guardian
    os.set_blocking(control, False)
    self.pending = b""
    self.phase = "start-up"
    # kind -> (when the worker is stopped, the exit code, what stopped it): "bound" (the worker's time or memory
    # bound, as it last told), "children" (their memory, seen here), "interrupt"
    self.deadlines: dict[str, tuple[float, int, str]] = {}
    self.max_memory, self.memory_told = 0, False
    self.interrupts = 0
    self.told = 0   # the worker's words of an interrupt (its own, or forwarded), on the control pipe
    self.interrupted_by: int | None = None   # the first interrupt's signal

  def run(self) -> int:
    while True:
      wait = max(0.0, min(POLL, self.due()[0] - time.monotonic()))
      info = signal.sigtimedwait(_SIGNALS | {signal.SIGCHLD}, wait)
      if info is not None and info.si_signo in _SIGNALS: self._interrupt(info)
      code = self._reaped()
      if code is not None: return code
      self._read_control()
      if self.max_memory and not self.memory_told and self.phase != "write" and self._memory() > self.max_memory:
        self.memory_told = True   # the worker stops and reports (its budget takes SIGUSR1 as --max-memory), or is stopped
        os.kill(self.pid, signal.SIGUSR1)
        self.deadlines["children"] = (time.monotonic() + HARD, 3, f"--max-memory {self.max_memory >> 20} MiB")
      if time.monotonic() >= self.due()[0]: return self._stop()

  def due(self) -> tuple[float, int, str]:
    """The deadline that stops the worker first: an interrupt's in every phase, a bound's but in ``write``."""
    live = [d for kind, d in self.deadlines.items() if kind == "interrupt" or self.phase != "write"]
    return min(live, default=(float("inf"), 3, ""))

  def _memory(self) -> int:
    """The resident memory of the command's processes (the worker, what it started, orphans adopted here), less the guardian's."""
    return sum(tree_memory(p) for p in _children(os.getpid()) if p != self.guardian)

  def _reaped(self) -> int | None:
    """The worker's exit code once it has ended; adopted orphans that ended are reaped on the way."""
    while True:
      try: pid, status = os.waitpid(-1, os.WNOHANG)
      except ChildProcessError: return 1
      if pid == 0: return None
      if pid != self.pid: continue
      if os.WIFSIGNALED(status): return 128 + os.WTERMSIG(status)
      return os.WEXITSTATUS(status)

  def _interrupt(self, info: signal.struct_siginfo) -> None:
    self.interrupts += 1
    self.interrupted_by = self.interrupted_by or info.si_signo
    name = signal.Signals(info.si_signo).name
    if info.si_code != _SI_KERNEL and not self._worker_has(info.si_signo):   # sent by a process to us alone: the worker has not seen it
      try: os.kill(self.pid, info.si_signo)
      except ProcessLookupError: pass
    now, code = time.monotonic(), 128 + info.si_signo
    if self.interrupts >= 2: self.deadlines["interrupt"] = (now + SECOND, code, f"a second interrupt ({name})")
    else: self._interrupted(now + HARD, code, f"an interrupt ({name})")

  def _worker_has(self, signo: int) -> bool:
    """Whether the worker got this process-sent signal itself: sent to the whole process group (``timeout``, a job runner,
    ``kill -- -PGID``), not to this process alone. Forwarded, it would be the worker's second interrupt, which stops it at
    once: ``timeout 2 uopc explore reachable ...`` lost its summary line to ``uopc: interrupted`` (2026-12-03). The worker
    has it if it is pending there (blocked), or if the worker tells of an interrupt within ``ECHO`` seconds (its handler ran);
    one its handler has not run yet when the forwarded one comes is the same one (a signal is pending once)."""
    told, deadline = self.told, time.monotonic() + ECHO
    while True:
      if _pending(self.pid, signo): return True
      self._read_control()
      if self.told > told: return True
      if (left := deadline - time.monotonic()) <= 0: return False
      select.select([self.control], [], [], left)

  def _interrupted(self, deadline: float, code: int, why: str) -> None:
    if deadline < self.deadlines.get("interrupt", (float("inf"),))[0]: self.deadlines["interrupt"] = (deadline, code, why)

  def _read_control(self) -> None:
    try: data = os.read(self.control, 4096)
    except BlockingIOError: return
    self.pending += data
    *lines, self.pending = self.pending.split(b"\n")
    for line in lines:
      code, bound_at, memory, phase, why = line.decode(errors="replace").split(" ", 4)
      self.phase = phase
      if int(memory): self.max_memory = int(memory)
      if int(code) != 3:
        self.told += 1
        self._interrupted(float(bound_at) + HARD, int(code), why)
      elif float(bound_at) < float("inf"): self.deadlines["bound"] = (float(bound_at) + HARD, 3, why)
      else: self.deadlines.pop("bound", None)

  def exit(self, code: int) -> NoReturn:
    """End this process once the worker has: with the worker's code, but for an interrupt it ended too soon to take
    (sent as it wrote its last byte, or after): a success is then the interrupt's code and its line, never a silent 0
    (a finding, bad input, a bound keep theirs: the command was over). No signal is lost after that look either: their
    defaults are back and unblocked before ``os._exit`` (not Python's finalization, milliseconds in which a blocked
    signal is dropped), so one sent in the last microseconds ends this process by itself."""
    while (info := signal.sigtimedwait(_SIGNALS, 0)) is not None:   # not passed on: the worker's pid may be another's now
      self.interrupted_by = self.interrupted_by or info.si_signo
    if code == 0 and self.interrupted_by is not None:
      print(f"uopc: stopped by an interrupt ({signal.Signals(self.interrupted_by).name}) as the command ended; "
            "its work was done and its output written", file=sys.stderr)
      code = 128 + self.interrupted_by
    _flush_standard_files()
    for s in _SIGNALS: signal.signal(s, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, _SIGNALS)
    os._exit(code)

  def _stop(self) -> int:
    end_leftovers()
    _, code, why = self.due()
    late = "" if why.startswith("a second") else f"; it did not end within {HARD:g} s after it"
    phase = self.phase   # the phase it was stuck in
    print(f"uopc: stopped by {why} during the {phase}{late} ({WHY_STUCK.get(phase, 'stuck')}), "
          "so it was stopped from outside and what it had found is lost", file=sys.stderr)
    return code


def _children(pid: int) -> list[int]:
  """``pid``'s child processes (``/proc``)."""
  kids: list[int] = []
  try: tasks = os.listdir(f"/proc/{pid}/task")
  except OSError: return kids
  for t in tasks:
    try:
      with open(f"/proc/{pid}/task/{t}/children") as f: kids += [int(k) for k in f.read().split()]
    except (OSError, ValueError): continue
  return kids


def descendants(pid: int) -> list[int]:
  """``pid``'s child processes, their children, ... (``/proc``; none where it is missing)."""
  found, todo = [], [pid]
  while todo:
    kids = _children(todo.pop())
    found += kids
    todo += kids
  return found


def tree_memory(pid: int, itself: bool = True) -> int:
  """Resident bytes of ``pid``'s descendants, and (unless ``itself`` is False) of ``pid``."""
  total = 0
  for p in ([pid] if itself else []) + descendants(pid):
    try:
      with open(f"/proc/{p}/statm", "rb") as f: total += int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError): pass
  return total


def end_leftovers() -> None:
  """SIGKILL and reap every descendant of this process: the worker if it still runs, the C compiler, a compiled
  program, a process a rule left running (adopted here). The command is over; none of them has anything left to say."""
  for _ in range(200):   # rounds, 10 ms apart: one that forked between the look and the kill is caught in the next
    for p in descendants(os.getpid()):
      try: os.kill(p, signal.SIGKILL)
      except ProcessLookupError: pass
    try:
      while os.waitpid(-1, os.WNOHANG)[0]: pass
    except ChildProcessError: return
    time.sleep(0.01)


if __name__ == "__main__":
  sys.exit(main())
