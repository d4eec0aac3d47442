"""Worker processes for benchmarks that compare builds of uopc (``bench.start``, ``bench.native``).

Each build runs in a process of its own: two builds in one process would share one heap
and one garbage collector, and each one's collections would walk the other's nodes. The
benchmark's module is run as ``python -m MODULE --worker`` with the build's folder first
on the path; the worker says where it imported its modules from (so that an installed
uopc shadowing the build is caught), then answers one line of input with one line.
"""
from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Callable

REPO = Path(__file__).resolve().parent.parent


def serve(modules: list[str], answer: Callable[[str], str]) -> None:
  """The worker's side: the files ``modules`` were imported from, then ``answer(line)`` for each line of input."""
  print(json.dumps([importlib.import_module(m).__file__ for m in modules]), flush=True)
  for line in sys.stdin: print(answer(line.strip()), flush=True)


class Worker:
  """``python -m module --worker`` with the uopc under ``path`` first on the path, checked to have imported it from there."""

  def __init__(self, module: str, path: Path):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(path), str(REPO)])}
    self.proc = subprocess.Popen([sys.executable, "-m", module, "--worker"], env=env, cwd=path,   # -m puts cwd first
                                 stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert self.proc.stdin is not None and self.proc.stdout is not None
    self.stdin, self.stdout = self.proc.stdin, self.proc.stdout
    line = self.stdout.readline()
    self.files = [Path(f) for f in json.loads(line)] if line else []
    if not self.files or not all(f.resolve().is_relative_to(path.resolve()) for f in self.files):
      self.close()
      raise RuntimeError(f"the worker for {path} imported {self.files or 'nothing'}")

  def ask(self, line: str) -> str:
    """The worker's answer to one line."""
    self.stdin.write(line + "\n")
    self.stdin.flush()
    return self.stdout.readline()

  def close(self) -> None:
    self.stdin.close()
    self.proc.wait()
