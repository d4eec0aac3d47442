"""One command's bounds: time (``--timeout``), memory (``--max-memory``) and interrupts.

A ``Budget`` is entered once per command (``uopc.cli.main``). While it is active, a
periodic ``SIGALRM`` tick (every ``TICK`` seconds, ``signal.setitimer``) checks the
clock and the resident memory, and ``SIGINT``/``SIGTERM`` are caught. The first bound
hit is recorded (``reason``: ``"timeout"``, ``"max_memory"`` or ``"interrupted"``) and
the handler raises ``BoundHit`` in whatever Python code runs, including a rule stuck in
``while True`` or building a huge node: no check between states is needed for a bound
to hold. It raises once per ``bounded`` call, so code that catches it (the explorer
keeps what it reached) can wind up. Why a signal rather than a watchdog thread:
CPython runs signal handlers in the main thread between bytecodes, so the exception
lands exactly where the work is, without ``PyThreadState_SetAsyncExc`` and without a
second thread; and a tick that reads the clock and ``/proc/self/statm`` costs about
20 microseconds, 20 times a second.

What a handler cannot stop (a rule stuck in one long C call, a loop that catches every
exception, output to a pipe nobody reads) the console script's supervisor stops from
outside (``uopc_launch``): the budget tells it, through ``set_supervisor``'s pipe, when
each bound falls and which phase the command is in (one line each: ``_tell_supervisor``).
The tick counts memory by its peak since the budget began (``peak_memory``, reset as it
begins), so memory taken and given back between two ticks still counts; the supervisor adds
the command's child processes (the C compiler, a compiled program), and says so with ``SIGUSR1``.

**Phases.** A command moves through ``PHASES``: ``start-up`` (loading the rules and the program, translating it, a
cluster starting), ``search`` (the bounded work), ``report`` (building the output from what was found) and ``write``
(writing it). ``enter(phase)`` moves the active budget on and tells the supervisor; ``bounded`` enters ``search`` for
the work it runs and ``report`` after it, ``uopc.cli.support`` enters ``write`` as it writes, and a library loop with a
start-up of its own says so through ``LIMITS.phase`` (the cluster: ``start-up`` while Ray starts, ``search`` once it
is up). ``--timeout`` counts the search: its clock starts as the search is first entered, stops while a later
start-up runs and goes on through the report; each start-up has a clock of its own of the same length (a rules file
that hangs at import still stops; one found past its clock as it ends is a bound hit), a library's at least
``LIBRARY_START_UP`` seconds (``ray.init`` alone took 10.4 s at a load of 6.5). ``elapsed`` is that clock.
In ``write`` no time or memory bound is hit: a complete result is written whole however slowly its reader reads; an
interrupt still counts. A command that never enters the search is bounded on its start-up's clock all along.
A command other helpers write moves on by itself where it uses ``bounded`` and ``uopc.cli.support``'s writers; work
outside them that is the search calls ``enter("search")`` as it begins (``check-rules``).

A command that reports partial results runs ``shielded()`` (never interrupted) and
does its work through ``bounded(fn, default)``: ``fn`` can be interrupted, and a
``BoundHit`` from it gives ``default``. With ``grace=True`` the interruption waits
``GRACE`` seconds after the bound: loops that can stop cleanly check ``stopped()``
(the library's loops through ``LIMITS``, the ``uopc.limits.Limits`` a command passes
them: the explorer asks once per state) and end on their own at their next step, and
work that derives the report from partial results (the canonical form after an
exploration, the forks of ``explore order``) may finish; a rule call that never
returns is interrupted once the grace is over. A second interrupt while the first
one is handled raises ``KeyboardInterrupt``. During ``shielded()`` the signals are
blocked (``pthread_sigmask``): a handler run during a large write to a pipe makes
CPython drop the rest of it, so output waits for no signal and is never cut.

A worker whose supervisor is gone (killed by SIGKILL: the kernel sends the worker SIGTERM, ``PR_SET_PDEATHSIG``)
takes that SIGTERM as an interrupt without grace: the derived work gets no ``GRACE``, the report ``ORPHAN_REPORT_TIME``
instead of ``REPORT_TIME``, and it writes what it has (``orphaned``) before its guardian stops it (``uopc_launch``).

Outside the main thread (signals cannot be installed there) a budget does nothing:
the bounds are then only those the loops check themselves (``Exploration(timeout=)``).

>>> with Budget(timeout=None, max_memory=None) as b:
...   b.hit("timeout")
...   bounded(lambda: "never runs", "stopped"), stopped()
('stopped', 'timeout')
"""
from __future__ import annotations

import os
import signal
import sys
import threading
import time
from contextlib import AbstractContextManager, contextmanager
from typing import Any, Callable, Iterator, TypeVar

from uopc.bounded import StopReason
from uopc.children import limit_children
from uopc.limits import BoundHit, Limits
from uopc.memory import peak_memory, reset_peak_memory, resident_memory
T = TypeVar("T")
D = TypeVar("D")   # the default of `bounded`, often None where T is not

TICK = 0.05     # seconds between two checks of the clock and the memory
GRACE = 0.5     # seconds a report's derived work may run after a bound was hit
LIBRARY_START_UP = 60.0   # seconds at least that a library's own start-up may take (a cluster's: ``Budget._allowed``)
DEFAULT_MAX_MEMORY = 4 << 30   # bytes of resident memory (4 GiB)
_SIGNALS = (signal.SIGINT, signal.SIGTERM)
_MEMORY_SIGNAL = signal.SIGUSR1   # the supervisor's word: the command's child processes took it past --max-memory
PHASES = ("start-up", "search", "report", "write")   # a command's phases, in order (module doc)
Phase = str
_supervisor: int | None = None   # the pipe to the supervisor, in a command run by the console script
_supervisor_pid: int | None = None   # the supervisor's process id: once the worker's parent is another, it is gone


def set_supervisor(fd: int | None) -> None:
  """The pipe to the supervisor process (``uopc_launch``, this process's parent), told of each budget's bounds, phase
  and bound hit."""
  global _supervisor, _supervisor_pid
  _supervisor, _supervisor_pid = fd, (os.getppid() if fd is not None else None)


def orphaned() -> bool:
  """True once the supervisor this worker was started by is gone (its parent is another process now)."""
  return _supervisor_pid is not None and os.getppid() != _supervisor_pid


def _tell_supervisor(code: int, bound_at: float, memory: int | None, phase: Phase, why: str) -> None:
  """One line to the supervisor: the exit code of the bound, when it falls (``time.monotonic``; the moment it was hit
  once it was), the memory bound (0: none), the phase, and what the bound is (the flag, or the interrupt)."""
  if _supervisor is None: return
  try: os.write(_supervisor, f"{code} {bound_at!r} {memory or 0} {phase} {why}\n".encode())
  except OSError: pass   # the supervisor is gone: nothing to tell


class Budget:
  """The bounds of one command; a context manager (see the module doc)."""

  def __init__(self, timeout: float | None, max_memory: int | None) -> None:
    self.timeout, self.max_memory = timeout, max_memory
    self.reason: StopReason | None = None
    self.signum: int | None = None   # the signal that interrupted, if one did
    self.started = time.monotonic()   # when the clock of the phase's time bound started (the start-up's, then the search's)
    self.phase: Phase = "start-up"
    self.hit_phase: Phase | None = None   # the phase in which the bound was hit
    self.orphaned = False             # the supervisor is gone: wind up at once (module doc)
    self._searched = 0.0              # seconds of search before a later start-up (a cluster's), which stops its clock
    self._library_start = False       # the start-up now is a library's own, inside the search (``LIBRARY_START_UP``)
    self.hit_at = float("inf")        # when the bound was hit
    self.cut = False                  # the bound cut some work short (not only hit while reporting)
    self.report_cut = False           # ... the detail of the report itself (``report_cut``): the output is incomplete
    self._grace = 0.0                 # seconds after ``hit_at`` before raising, inside ``bounded(grace=True)``
    self._shielded = 0                # depth of ``shielded()``: while above 0 the signals are blocked
    self._delivered = False           # a BoundHit was raised in the current ``bounded`` call
    self._saved: dict[int, Any] = {}
    self._peak_before = 0             # ``peak_memory()`` as the budget began
    self._outer_limit: int | None = None   # the children's memory limit from before the budget (``limit_children``)
    self._unraisable: Any = sys.unraisablehook   # the hook from before the budget (``_on_unraisable``)

  # ---- installing

  def __enter__(self) -> Budget:
    global _current
    self._outer, _current = _current, self
    self._outer_limit = limit_children(self.max_memory)   # the children it starts: held to --max-memory, as the command is
    self.started = time.monotonic()
    self.phase, self._searched, self._library_start = "start-up", 0.0, False
    self._shielded = 0
    if threading.current_thread() is threading.main_thread():
      self._saved = {s: signal.signal(s, self._on_signal) for s in _SIGNALS}
      self._saved[_MEMORY_SIGNAL] = signal.signal(_MEMORY_SIGNAL, self._on_children_memory)
      if self.timeout is not None or self.max_memory is not None:
        self._saved[signal.SIGALRM] = signal.signal(signal.SIGALRM, self._on_tick)
        signal.setitimer(signal.ITIMER_REAL, TICK, TICK)
    if self.max_memory is not None: reset_peak_memory()
    self._peak_before = peak_memory()
    self._unraisable, sys.unraisablehook = sys.unraisablehook, self._on_unraisable
    self._tell()
    # the console script's worker keeps the signals blocked until now (uopc_launch): one sent while uopc was imported
    # is handled here, by the handler above, as an interrupt of the start-up (a BoundHit: the command's output, empty)
    if self._saved: signal.pthread_sigmask(signal.SIG_UNBLOCK, _SIGNALS)
    return self

  def enter(self, phase: Phase) -> None:
    """Move on to ``phase`` (one of ``PHASES``; module doc) and tell the supervisor. The search's clock starts as the
    search begins after a start-up (and goes on where it stopped, after a later one); a start-up starts a clock of
    its own. A start-up past its clock as it ends is a bound hit (a cluster's runs shielded: no tick saw it). Once a
    bound was hit, its moment stays: only the phase changes."""
    if phase not in PHASES: raise ValueError(f"unknown phase {phase!r} (one of {', '.join(PHASES)})")
    if phase == self.phase: return
    if self.phase == "start-up": self._check_bounds()   # a start-up past its clock (shielded, as a cluster's is) is a bound hit
    now = time.monotonic()
    if self.reason is None and phase == "start-up":
      if self.phase == "search": self._searched += now - self.started
      self.started, self._library_start = now, True
    elif self.reason is None and phase == "search" and self.phase == "start-up": self.started = now - self._searched
    self.phase = phase
    self._tell()

  def _tell(self) -> None:
    """The supervisor's view of this budget now: the bound's code and moment, the memory bound, the phase."""
    if _supervisor is None: return
    if self.reason is not None:
      code = 128 + (self.signum or signal.SIGINT) if self.reason == "interrupted" else 3
      _tell_supervisor(code, self.hit_at, self.max_memory, self.phase, self.flag_text())
    elif (allowed := self._allowed()) is not None:
      _tell_supervisor(3, self.started + allowed, self.max_memory, self.phase, self.flag_text("timeout"))
    else: _tell_supervisor(3, float("inf"), self.max_memory, self.phase, "")

  def __exit__(self, *exc: Any) -> None:
    self.close()

  def close(self) -> None:
    """Put the handlers and the timer away (again: a tick due as ``with`` ended may have
    raised before ``__exit__`` ran its first line; it raises once, so this call completes)."""
    global _current
    self._delivered = True   # a tick due now must not raise into the clean-up
    if signal.SIGALRM in self._saved: signal.setitimer(signal.ITIMER_REAL, 0)
    if self._shielded and self._saved: signal.pthread_sigmask(signal.SIG_UNBLOCK, self._saved)   # pending ones run here, harmless
    self._shielded = 0
    for s, h in self._saved.items(): signal.signal(s, h)
    self._saved = {}
    if sys.unraisablehook == self._on_unraisable: sys.unraisablehook = self._unraisable
    limit_children(self._outer_limit)
    _current = self._outer

  def _set_shield(self, depth: int) -> None:
    """Block the signals while shielded: a handler run during a write to a pipe can make
    CPython's ``TextIOWrapper`` drop the rest of a large write (the buffered writer
    returns a short count, which it ignores), so output must not see a signal at all.

    The handlers read ``_shielded``, so it changes on the shielded side of the mask: set
    before blocking, after unblocking. A handler that runs in between (its signal came
    before the mask) then sees itself shielded and does not raise."""
    change = bool(self._saved) and (depth > 0) != (self._shielded > 0)
    if depth > 0: self._shielded = depth
    if change: signal.pthread_sigmask(signal.SIG_BLOCK if depth > 0 else signal.SIG_UNBLOCK, self._saved)
    self._shielded = depth

  # ---- the handlers

  def _on_tick(self, signum: int, frame: Any) -> None:
    self._check_bounds()
    self._raise_if_due()

  def _check_bounds(self) -> None:
    """Record a bound that the clock or the memory has passed (the tick's check; ``report_cut``'s while shielded); none
    while the output is written."""
    if self.reason is None and self.phase != "write":
      if (allowed := self._allowed()) is not None and time.monotonic() - self.started >= allowed: self.hit("timeout")
      elif self.max_memory is not None and self.memory() > self.max_memory: self.hit("max_memory")

  def _allowed(self) -> float | None:
    """Seconds the time bound allows on the clock now: ``--timeout``; at least ``LIBRARY_START_UP`` in a library's
    own start-up (Ray's, over 10 s on a loaded machine), which a search of a few seconds must not be refused for."""
    if self.timeout is None or not (self._library_start and self.phase == "start-up"): return self.timeout
    return max(self.timeout, LIBRARY_START_UP)

  def memory(self) -> int:
    """The memory the bound counts: the peak since the budget began (a bound crossed and given back inside
    one rule call is still crossed), or the level now where the peak could not be reset and has not risen."""
    peak = peak_memory()
    return peak if peak > self._peak_before else resident_memory()

  def _on_children_memory(self, signum: int, frame: Any) -> None:
    if self.max_memory is not None and self.phase != "write": self.hit("max_memory")
    self._raise_if_due()

  def _on_signal(self, signum: int, frame: Any) -> None:
    if self.reason == "interrupted":   # the second interrupt: stop now, whatever is lost (its signal the exit code's)
      self.signum = signum
      raise KeyboardInterrupt
    if signum == signal.SIGTERM and orphaned(): self.orphaned = True   # the kernel's word that the supervisor died
    self.signum = signum
    self.hit("interrupted")
    self._raise_if_due()

  def _on_unraisable(self, info: Any) -> None:
    """``sys.unraisablehook`` while the budget is on: a BoundHit raised where Python can only print it ("Exception
    ignored in", a ``gc`` callback or a ``__del__`` the handler happened to run in) is lost there, so it is raised
    again at the next check (a tick, a signal) instead of never; anything else goes to the hook from before."""
    if isinstance(info.exc_value, BoundHit): self._delivered = False
    else: self._unraisable(info)

  def cut_report(self, reason: StopReason) -> str:
    """Mark the output incomplete for a bound the report will not cross (memory it has not spent yet): ``reason`` names
    it (the report, the exit code and the closing line), but it is not hit: no ``BoundHit`` is raised and the
    supervisor is not told, since nothing is to be stopped (the smaller output is written). The flag, as ``flag_text``."""
    if self.reason is None: self.reason = reason
    self.cut = self.report_cut = True
    return self.flag_text(reason)

  def hit(self, reason: StopReason) -> None:
    """Record that ``reason`` stopped the command (an interrupt overrides an earlier bound)."""
    if self.reason is None or reason == "interrupted":
      self.reason, self.hit_at, self.hit_phase = reason, time.monotonic(), self.phase
      self._tell()

  def _raise_if_due(self) -> None:
    grace = 0.0 if self.orphaned else self._grace
    if self.reason is not None and not self._shielded and not self._delivered and time.monotonic() >= self.hit_at + grace:
      self._delivered = self.cut = True   # once: code that catches it (the explorer) may then wind up and report
      raise BoundHit(self.reason)

  # ---- facts

  @property
  def elapsed(self) -> float:
    """Seconds on the clock ``--timeout`` counts: since the search began (less a later start-up), the report and the
    output included; for a command that never searched, since its start-up began."""
    return time.monotonic() - self.started

  def flag_text(self, reason: StopReason | None = None) -> str:
    """What stopped the command, as the flag that set the bound: ``--timeout 5 s``."""
    reason = reason or self.reason
    if reason == "timeout": return f"--timeout {self.timeout:g} s"
    if reason == "max_memory": return f"--max-memory {memory_text(self.max_memory or 0)}"
    name = signal.Signals(self.signum).name if self.signum is not None else "SIGINT"
    return f"the end of its supervisor ({name})" if self.orphaned else f"an interrupt ({name})"


_current: Budget | None = None


def current() -> Budget | None:
  """The active budget, if a command runs under one."""
  return _current


def enter(phase: Phase) -> None:
  """The active budget moves on to ``phase`` (``Budget.enter``); without one, nothing."""
  if _current is not None: _current.enter(phase)


def phase() -> Phase | None:
  """The active budget's phase, or None without one."""
  return _current.phase if _current is not None else None


def stopped() -> StopReason | None:
  """The bound that stopped the command, or None: the check of a loop that can stop cleanly."""
  if _current is None or _current.reason is None: return None
  _current.cut = True   # the caller stops early because of it
  return _current.reason


REPORT_TIME = 1.0   # seconds a report may add detail once a bound was hit (well below the supervisor's 8: it must get out)
ORPHAN_REPORT_TIME = 0.25   # ... once the supervisor is gone (well below the guardian's 1 s: uopc_launch.ORPHAN)


def _look(b: Budget) -> None:
  """Record what the ticks and the signals would have said, for code that runs shielded (no handler runs then)."""
  if b._shielded and b._saved:
    # each pending signal to its handler: an interrupt (a second one raises KeyboardInterrupt), or the supervisor's word
    # on the child processes' memory (a cluster's workers are children too); shielded, a handler records, raises nothing
    handlers = {**{s: b._on_signal for s in _SIGNALS}, _MEMORY_SIGNAL: b._on_children_memory}
    for sig in signal.sigpending() & handlers.keys():
      if signal.sigtimedwait([sig], 0) is not None: handlers[sig](sig, None)
    b._check_bounds()


def taken() -> StopReason | None:
  """The bound that stopped the command, also while shielded, taken as a ``BoundHit`` would be: once it says so, none is
  raised into the current ``bounded`` call. For a loop that runs shielded and winds up by itself (a cluster run waits in
  Ray's C code, where a handler's exception would be a ``SystemError``: ``uopc.relational.cluster``)."""
  b = _current
  if b is None: return None
  _look(b)
  if b.reason is not None: b._delivered = b.cut = True
  return b.reason


def report_cut() -> StopReason | None:
  """The bound that ends a report's detail now, or None: a report built item by item asks between items, and once a
  bound was hit ``REPORT_TIME`` seconds ago (during the search or the report itself) it stops adding items, says how
  many it kept, and is written as it is."""
  b = _current
  if b is None: return None
  _look(b)   # while shielded: what the ticks and the signals would say
  detail = ORPHAN_REPORT_TIME if b.orphaned else REPORT_TIME
  if b.reason is None or (b.reason != "max_memory" and time.monotonic() < b.hit_at + detail): return None
  b.cut = b.report_cut = True
  return b.reason


def stopped_text() -> str | None:
  """``stopped by --timeout 5 s`` once a bound stopped the command, else None (as ``stopped``)."""
  return None if stopped() is None or _current is None else f"stopped by {_current.flag_text()}"


def bounded(fn: Callable[[], T], default: D, *, grace: bool = False) -> T | D:
  """``fn()``, or ``default`` if a bound stops it. With ``grace``, ``fn`` may run ``GRACE``
  seconds past the bound (and does not start once they are over). ``fn`` is the command's
  search: the budget is in the ``search`` phase while it runs and in ``report`` after it. Once the output has begun
  (``write``: a cluster's states, listed as its run ends), it stays there: no bound cuts the output from then on, and
  the supervisor, told of a search long after the bound, would stop the command at once."""
  b = _current
  if b is None: return fn()
  outer = b.phase
  if outer != "write": b.enter("search")
  try: return _bounded(b, fn, default, grace)
  finally:
    if b.phase != "write": b.enter("search" if outer == "search" else "report")   # (a bounded call inside another is still the search)


def _bounded(b: Budget, fn: Callable[[], T], default: D, grace: bool) -> T | D:
  if b.reason is not None and (not grace or b.orphaned or time.monotonic() >= b.hit_at + GRACE):
    b.cut = True
    return default
  saved = b._grace, b._shielded, b._delivered
  result: T | D = default
  try:
    b._grace, b._delivered = (GRACE if grace else 0.0), False
    b._set_shield(0)   # interruptible, even inside ``shielded()``
    result = fn()
  except BoundHit: pass
  finally:
    # A tick can land after fn returned and before the shield is back (its handler runs at the
    # next call): what it raises belongs to this call, not to the shielded code around it.
    while True:
      try:
        b._set_shield(saved[1])
        b._grace, b._delivered = saved[0], saved[2]
        break
      except BoundHit: pass   # raised once (``_delivered``), so the second pass restores
  return result


@contextmanager
def shielded() -> Iterator[None]:
  """Run the body without interruption by a bound, but for its ``bounded`` calls: a command
  whose work is all ``bounded`` runs shielded, so its report is printed whole."""
  b = _current
  if b is None:
    yield
    return
  b._set_shield(b._shielded + 1)
  try: yield
  finally: b._set_shield(b._shielded - 1)


class _BudgetLimits(Limits):
  """The active budget's bounds as a library loop takes them (``uopc.limits``): what the command line passes."""

  @property
  def max_memory(self) -> int | None:
    return _current.max_memory if _current is not None else None

  def should_stop(self) -> StopReason | None: return stopped()
  def take(self) -> StopReason | None: return taken()
  def shield(self) -> AbstractContextManager[None]: return shielded()
  def phase(self, name: str) -> None: enter(name)

  def describe(self, reason: StopReason) -> str:
    return _current.flag_text(reason) if _current is not None and reason in ("timeout", "max_memory", "interrupted") else reason


LIMITS: Limits = _BudgetLimits()   # what a command passes to the library's loops


_UNITS = {"": 1 << 20, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}


def parse_memory(text: str) -> int | None:
  """``--max-memory``: a size in MiB, or with a unit (``512M``, ``2G``, ``800K``); ``0`` lifts the bound.

  >>> parse_memory("2G"), parse_memory("300"), parse_memory("0")
  (2147483648, 314572800, None)
  """
  t = text.strip().upper().removesuffix("B").removesuffix("I")
  unit = t[-1:] if t[-1:] in _UNITS else ""
  number = t[:-1] if unit else t
  value = float(number) if number.replace(".", "", 1).isdigit() else -1.0
  if value < 0: raise ValueError(f"expected a size like 512M or 2G, got {text!r}")
  return int(value * _UNITS[unit]) or None


def memory_text(n: int) -> str:
  """``4 GiB``, ``300 MiB``: a size as ``--max-memory`` takes it."""
  for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
    if n >= size and n % size == 0: return f"{n // size} {unit}"
  return f"{n / (1 << 20):.1f} MiB"
