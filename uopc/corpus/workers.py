"""Checking a corpus on several cores: forked worker processes check one graph each at a time, the parent folds their
outcomes in corpus order (``check.Checker``), so the report is the one a single process makes.

The job (the entries, the rule sets, the bounds) is set here before the workers fork and inherited by them: only a
task (an entry's index) and its ``GraphOutcome`` (plain values) cross between processes. A worker leaves interrupts to
the parent (which stops it) and runs with no signal blocked: the parent may fork while a command shields itself
(``uopc.cli.budget.shielded`` blocks SIGINT and SIGTERM, and a fork inherits the mask), and the pool stops its workers
with SIGTERM.
"""
from __future__ import annotations

import multiprocessing
import signal
from typing import Any, Callable, Generator

_job: dict[str, Any] = {}


def _start_worker() -> None:
  signal.signal(signal.SIGINT, signal.SIG_IGN)   # a Ctrl-C reaches the whole process group: the parent handles it
  signal.signal(signal.SIGTERM, signal.SIG_DFL)
  signal.pthread_sigmask(signal.SIG_SETMASK, set())


def _check_one(task: tuple[int, str]) -> Any:
  i, spec = task
  return _job["check"](i, _job["entries"][i].program, _job["sets"][spec], spec, **_job["bounds"])


def outcomes(check: Callable[..., Any], entries: list, sets: dict[str, Any], tasks: list[tuple[int, str]], jobs: int,
             bounds: dict[str, Any]) -> Generator[Any, None, None]:
  """``check(index, program, rules, spec, **bounds)`` (``check.check_graph``) of each task ``(entry index, rules spec)``,
  in order, by ``jobs`` forked workers; closing the generator stops the workers."""
  _job.update(check=check, entries=entries, sets=sets, bounds=bounds)
  try:
    with multiprocessing.get_context("fork").Pool(jobs, initializer=_start_worker) as pool:
      yield from pool.imap(_check_one, tasks)
  finally: _job.clear()
