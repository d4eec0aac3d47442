"""Which Ray cluster a run uses: ``local:N`` starts one here and stops it after; an address joins a running one.

``local:N`` is N shards on this machine (``ray.init(num_cpus=N)``, about 3 s to start).
Any other value is a Ray address (``auto``, ``HOST:6379``, ``ray://HOST:10001``): the
cluster started with ``ray start --head`` and joined by ``ray start --address=HOST:6379``
on each other machine (``docs/scaling.md``); its shards are one per CPU it has. A process
that already called ``ray.init`` (a notebook, the tests) uses that cluster and leaves it up.
A cluster a run started here stays up while the exploration it made is alive (its shards
keep their parts of the result for the reports: ``open_session``'s lease).

>>> parse_cluster("local:4"), parse_cluster("10.0.0.5:6379")
(('local', 4), ('address', '10.0.0.5:6379'))
"""
from __future__ import annotations

import contextlib
import logging
import os
import signal
import threading
from typing import Any, Callable, Iterator

from uopc.limits import NO_LIMITS, Limits
from uopc.relational.cluster.errors import ClusterError


def parse_cluster(spec: str) -> tuple[str, int | str]:
  """``("local", N)`` or ``("address", spec)``; a ``ClusterError`` for ``local:`` with no positive count, or an empty spec."""
  spec = spec.strip()
  if spec.startswith("local:"):
    n = spec[len("local:"):]
    if not n.isdigit() or int(n) < 1: raise ClusterError(f"--cluster {spec}: expected local:N with N a positive number of workers")
    return "local", int(n)
  if not spec: raise ClusterError("--cluster: expected local:N or the address of a Ray cluster")
  return "address", spec


def open_session(spec: str, limits: Limits = NO_LIMITS) -> tuple[int, Callable[[], None] | None]:
  """Connect (or start) the cluster of ``spec``: the number of shards to run, and the lease to give back when done
  (None where the cluster was up before: whoever started it stops it). A session this starts stays up while a lease is
  out (an exploration whose shards keep their records, ``result.py``); the last lease given back stops it. Ray's C code
  runs in the caller's ``limits.shield()``."""
  kind, value = parse_cluster(spec)
  # the calls a run leaves unread fail without a word (an interrupted level's, Shard.Stopped; a lost worker's): its result says why
  os.environ.setdefault("RAY_IGNORE_UNHANDLED_ERRORS", "1")
  try: import ray
  except ImportError: raise ClusterError("--cluster needs Ray: pip install -e '.[cluster]'") from None
  if ray.is_initialized():
    if not _leases: return (value if isinstance(value, int) else _cpus(ray)), None
    _leases[0] += 1   # one this process started and still holds: one more lease on it
    return (value if isinstance(value, int) else _cpus(ray)), _lease(limits)
  os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")   # no usage report from a compiler's exploration
  quiet = {"include_dashboard": False, "log_to_driver": False, "logging_level": logging.ERROR}
  try:
    with limits.shield(), _terminable(), _sigterm_kept(ray):   # no bound's handler inside Ray's C code (coordinator.py)
      if kind == "local":
        with _own_session(ray): ray.init(num_cpus=int(value), **quiet)   # type: ignore[arg-type]  # ray's own types
      else: ray.init(address=str(value), **quiet)   # type: ignore[arg-type]  # ray's own types
  except Exception as e:
    why = (str(e).splitlines() or [""])[0]
    raise ClusterError(f"--cluster {spec}: cannot start or join the Ray cluster: {type(e).__name__}: {why}") from None
  _leases[:] = [1]
  return (value if isinstance(value, int) else _cpus(ray)), _lease(limits)


@contextlib.contextmanager
def _terminable() -> Iterator[None]:
  """SIGTERM unblocked while Ray starts its processes, which inherit the mask: a shielded caller blocks it, and
  ``ray.shutdown`` asks each process to end with SIGTERM and waits a second for each that does not (5.4 s after every
  run of a command, first of all an interrupted one, before its output: 2026-12-03). A SIGTERM meanwhile is the
  caller's handler's, which does not raise while shielded (``uopc.cli.budget``)."""
  blocked = signal.SIGTERM in signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM})
  try: yield
  finally:
    if blocked: signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM})


@contextlib.contextmanager
def _own_session(ray: Any) -> Iterator[None]:
  """Ray's processes for a local cluster (its GCS, its raylet, and the workers the raylet starts) in a session of their
  own: a signal to the command's process group (``timeout``, a job runner stopping its step, ``kill -- -PGID``) is then
  the command's alone, which stops its workers and prints what the finished levels found. Ray's processes in the
  command's group died with such a SIGTERM, and the run waited on a cluster that was gone until it was stopped from
  outside, its output lost (2026-12-03). They still end with the command: ``ray.shutdown``, and Ray's own fate sharing
  (the kernel kills them when the process that started them dies), and the supervisor's guardian (their parent is the
  command's worker). Ray starts them with ``ConsolePopen`` (ray 2.60, as pinned)."""
  services = ray._private.services

  class Detached(services.ConsolePopen):  # type: ignore[name-defined]  # ray's class
    def __init__(self, *args: Any, **kwargs: Any) -> None: super().__init__(*args, start_new_session=True, **kwargs)
  with _swapped(services, ConsolePopen=Detached): yield


@contextlib.contextmanager
def _sigterm_kept(ray: Any) -> Iterator[None]:
  """The caller's SIGTERM handler, before, during and after ``ray.init``, which would replace it twice: in Python by its
  own (``sys.exit(15)``: a SIGTERM while Ray started ended the command with exit 15 and no word), and in C, as it starts
  the driver's core worker (``connect``), by a failure handler that prints a stack dump and aborts (a SIGTERM in the
  middle of a run: exit 134, what the finished levels had found lost; 2026-12-03). The first is not set (Ray's
  ``set_sigterm_handler``, ray 2.60 as pinned); the main thread blocks SIGTERM through ``connect``, so the core worker's
  threads start with it blocked, and sets the caller's handler again (in C as well) before unblocking it."""
  if threading.current_thread() is not threading.main_thread(): yield; return   # (only the main thread has handlers)
  kept, connect = signal.getsignal(signal.SIGTERM), ray._private.worker.connect

  def connect_blocked(*args: Any, **kwargs: Any) -> Any:
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM})
    try: return connect(*args, **kwargs)
    finally:
      signal.signal(signal.SIGTERM, kept)
      signal.pthread_sigmask(signal.SIG_SETMASK, mask)
  try:
    with _swapped(ray._private.utils, set_sigterm_handler=lambda handler: None), _swapped(ray._private.worker, connect=connect_blocked):
      yield
  finally: signal.signal(signal.SIGTERM, kept)


@contextlib.contextmanager
def _swapped(owner: Any, **attrs: Any) -> Iterator[None]:
  """``owner``'s attributes ``attrs`` replaced for the length of a block (Ray's internals, while it starts), then put back."""
  before = {name: getattr(owner, name) for name in attrs}
  for name, value in attrs.items(): setattr(owner, name, value)
  try: yield
  finally:
    for name, value in before.items(): setattr(owner, name, value)


_leases: list[int] = []   # [leases out] while this process holds a session it started


def _lease(limits: Limits) -> Callable[[], None]:
  """Give back one lease (once, however often called); the last one stops the session."""
  done = [False]

  def release() -> None:
    if done[0] or not _leases: return
    done[0] = True
    _leases[0] -= 1
    if _leases[0] > 0: return
    _leases.clear()
    _idle.clear()   # their handles go with the session
    import ray
    with limits.shield(): ray.shutdown()
  return release


HEAD = ("gcs_server", "raylet")   # the head's processes a run needs: with either gone no worker runs, no record is read


def ended_head() -> list[str]:
  """The head processes (``HEAD``) of the local cluster this process started that have ended: none where it started
  none, or joined one (another machine's processes are out of sight; Ray's own errors say so there).

  >>> ended_head()   # (no cluster started here)
  []
  """
  if not _leases: return []
  import ray
  node = getattr(ray._private.worker, "_global_node", None)
  procs = getattr(node, "all_processes", None) or {}
  return [name for name in HEAD for info in procs.get(name, []) if info.process.poll() is not None]


@contextlib.contextmanager
def session(spec: str, limits: Limits = NO_LIMITS) -> Iterator[int]:
  """``open_session`` for the length of a block: yields the number of shards to run."""
  n, release = open_session(spec, limits)
  try: yield n
  finally:
    if release is not None: release()


_idle: dict[tuple[str, str], list[Any]] = {}   # (Ray job, node) -> workers a finished run left, for the next run in the session


def idle_workers() -> list[Any]:
  """The idle workers of the Ray session now (a list to take from and give back to); another session's are forgotten."""
  import ray
  ctx = ray.get_runtime_context()
  key = (ctx.get_job_id(), ctx.get_node_id())   # a job id alone repeats after ray.shutdown() and ray.init()
  for k in [k for k in _idle if k != key]: del _idle[k]
  return _idle.setdefault(key, [])


def _cpus(ray: object) -> int:
  return max(1, int(ray.cluster_resources().get("CPU", 1)))  # type: ignore[attr-defined]  # ray, imported by the caller
