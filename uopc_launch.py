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
process sent is forwarded; a second interrupt stops the worker at once. The worker tells
the supervisor its bounds and when one is hit through a pipe, one line each:
``<exit code> <when the bound falls, CLOCK_MONOTONIC> <memory bound or 0> <what stopped it>``.

Start-up is quiet too: the signals are blocked before anything is imported, and stay blocked in the worker until the
command's budget takes them (an interrupt while uopc imports is then the command's, which writes its output marked
incomplete); the handlers the worker installs first exit at once, should one come before (without a traceback).
"""
from __future__ import annotations

import os
import signal
import sys
import time

if os.path.basename(sys.argv[0]) == "uopc":   # the console script is importing us: not a moment without the signals blocked
  signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})

HARD = 8.0          # seconds past a bound before the supervisor stops the worker from outside (a report gets 1: budget.REPORT_TIME)
SECOND = 0.25       # seconds the worker has to end by itself after a second interrupt
POLL = 0.1          # seconds between two looks at the worker's memory and the deadline
_SIGNALS = {signal.SIGINT, signal.SIGTERM}
_SI_KERNEL = 0x80   # si_code of a signal the kernel sent (the terminal's Ctrl-C), not a process


def main() -> int:
  """Entry point of the ``uopc`` console script (``uopc.cli.main:main`` is the command itself)."""
  old = signal.pthread_sigmask(signal.SIG_BLOCK, _SIGNALS | {signal.SIGCHLD}) - _SIGNALS   # the mask before the import, less ours
  if not (hasattr(os, "fork") and hasattr(signal, "sigtimedwait")) or os.environ.get("UOPC_SUPERVISOR") == "0":
    _quiet_start()
    signal.pthread_sigmask(signal.SIG_SETMASK, old | _SIGNALS)   # an interrupt waits for the command's budget (_command)
    return _command(None)
  read_end, write_end = os.pipe()
  _adopt_orphans()
  pid = os.fork()
  if pid == 0:
    os.close(read_end)
    _quiet_start()
    signal.pthread_sigmask(signal.SIG_SETMASK, old | _SIGNALS)   # an interrupt waits for the command's budget (_command)
    _die_with_parent()
    try: code = _command(write_end)
    except SystemExit as e: code = e.code if isinstance(e.code, int) else int(e.code is not None)   # argparse's --help and errors
    for f in (sys.stdout, sys.stderr):
      try: f.flush()
      except (OSError, ValueError): pass
    os._exit(code)   # not sys.exit: a thread a rule left running must not keep the command alive
  os.close(write_end)
  try: return Supervisor(pid, read_end).run()
  finally: end_leftovers()


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


def _die_with_parent() -> None:
  """A supervisor killed by SIGKILL cannot stop its worker: the kernel sends it SIGTERM then."""
  try:
    import ctypes
    ctypes.CDLL(None, use_errno=True).prctl(1, int(signal.SIGTERM), 0, 0, 0)   # PR_SET_PDEATHSIG
  except (OSError, AttributeError): pass


def _command(control: int | None) -> int:
  """The command, its SIGINT and SIGTERM still blocked: an interrupt while uopc imports stays pending until the command's
  budget unblocks them (``uopc.cli.budget.Budget``), and is then an interrupt in its start-up, with the command's output
  (empty, marked incomplete: ``uopc.cli.reports.stopped``), not an exit with nothing written."""
  from uopc.cli import budget
  budget.set_supervisor(control)
  from uopc.cli.main import main as command
  return command()


class Supervisor:
  """Waits for the worker ``pid``, forwards signals, stops it from outside past its bound."""

  def __init__(self, pid: int, control: int) -> None:
    self.pid, self.control = pid, control
    os.set_blocking(control, False)
    self.pending = b""
    self.deadline, self.code, self.why = float("inf"), 3, ""
    self.max_memory, self.memory_told = 0, False
    self.interrupts = 0

  def run(self) -> int:
    while True:
      wait = max(0.0, min(POLL, self.deadline - time.monotonic()))
      info = signal.sigtimedwait(_SIGNALS | {signal.SIGCHLD}, wait)
      if info is not None and info.si_signo in _SIGNALS: self._interrupt(info)
      code = self._reaped()
      if code is not None: return code
      self._read_control()
      if self.max_memory and not self.memory_told and tree_memory(os.getpid(), itself=False) > self.max_memory:
        self.memory_told = True   # the worker stops and reports (its budget takes SIGUSR1 as --max-memory), or is stopped
        os.kill(self.pid, signal.SIGUSR1)
        self._bound(time.monotonic() + HARD, 3, f"--max-memory {self.max_memory >> 20} MiB")
      if time.monotonic() >= self.deadline: return self._stop()

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
    name = signal.Signals(info.si_signo).name
    if info.si_code != _SI_KERNEL:   # sent by a process to us alone: the worker has not seen it
      try: os.kill(self.pid, info.si_signo)
      except ProcessLookupError: pass
    now = time.monotonic()
    if self.interrupts >= 2: self.deadline, self.code, self.why = now + SECOND, 128 + info.si_signo, f"a second interrupt ({name})"
    else: self._bound(now + HARD, 128 + info.si_signo, f"an interrupt ({name})", override=True)

  def _bound(self, deadline: float, code: int, why: str, override: bool = False) -> None:
    if deadline < self.deadline or override: self.deadline, self.code, self.why = min(deadline, self.deadline), code, why

  def _read_control(self) -> None:
    try: data = os.read(self.control, 4096)
    except BlockingIOError: return
    self.pending += data
    *lines, self.pending = self.pending.split(b"\n")
    for line in lines:
      code, bound_at, memory, why = line.decode(errors="replace").split(" ", 3)
      if int(memory): self.max_memory = int(memory)
      if float(bound_at) < float("inf"): self._bound(float(bound_at) + HARD, int(code), why, override=int(code) != 3)

  def _stop(self) -> int:
    end_leftovers()
    late = "" if self.why.startswith("a second") else f"; it did not end within {HARD:g} s after it"
    print(f"uopc: stopped by {self.why}{late} (a rule stuck in C code, in a thread or catching every exception, "
          "or output nobody reads), so it was stopped from outside and what it had found is lost", file=sys.stderr)
    return self.code


def descendants(pid: int) -> list[int]:
  """``pid``'s child processes, their children, ... (``/proc``; none where it is missing)."""
  found, todo = [], [pid]
  while todo:
    p = todo.pop()
    try: tasks = os.listdir(f"/proc/{p}/task")
    except OSError: continue
    for t in tasks:
      try:
        with open(f"/proc/{p}/task/{t}/children") as f: kids = [int(k) for k in f.read().split()]
      except (OSError, ValueError): continue
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
