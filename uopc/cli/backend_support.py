"""What the C backend's commands share (``run --backend c``, ``emit-c``, ``check-rules``): SIGTERM that unwinds like Ctrl-C,
and the backend's errors as one line with their exit code."""
from __future__ import annotations

import contextlib
import signal
import sys
import threading
from typing import Any, Iterator

from uopc.cli.support import EXIT_BAD_INPUT, EXIT_FAILED, CLIError


@contextlib.contextmanager
def sigterm_cleans_up() -> Iterator[None]:
  """While a backend command runs, SIGTERM raises ``SystemExit(143)`` in the main thread:
  like Ctrl-C, it unwinds, so the compiler is killed, temporary sources are removed and no
  half-installed binary is left (by default SIGTERM ends Python without any cleanup).
  """
  if threading.current_thread() is not threading.main_thread(): yield; return

  def stop(signum: int, frame: Any) -> None:
    print("uopc: terminated", file=sys.stderr)
    raise SystemExit(128 + signum)

  previous = signal.signal(signal.SIGTERM, stop)
  try: yield
  finally: signal.signal(signal.SIGTERM, previous)


def backend_error(path: str, e: Exception) -> CLIError:
  """A backend error as the command says it: bad --param values exit 2, the rest 1."""
  from uopc.backend.errors import CInputError, CRuntimeError
  if isinstance(e, CInputError): return CLIError(f"{path}: --param: {e}", EXIT_BAD_INPUT)
  if isinstance(e, CRuntimeError): return CLIError(f"{path}: runtime error: {e}", EXIT_FAILED)
  return CLIError(f"{path}: {e}", EXIT_FAILED)
