"""A capture of another process: ``uopc capture -o corpus.jsonl -- python my_model.py``.

The command runs the user's command with a directory of its own first on ``PYTHONPATH``, holding only a
``sitecustomize.py`` (``SITECUSTOMIZE``), which every Python process imports as it starts. It installs the hooks
(``uopc.corpus.capture.hooks``: tinygrad's and PyTensor's, for those installed) and, as the process exits, writes what
it recorded to a part file of its own (``PART_ENV`` names the directory; a program that starts more Python processes
gives one part each), which ``merge`` joins into the corpus: counts added, duplicates dropped. A ``sitecustomize`` the
process would have imported (the user's, a distribution's) is still imported after ours. Why ``sitecustomize`` and not
a wrapper like ``python -c``: it reaches any command (a shell script, ``pytest``, a process the program starts) without
rewriting it, and the user's program runs as ``__main__`` exactly as it does alone.
"""
from __future__ import annotations

import os
import sys
from collections import Counter

from uopc.corpus.format import Entry, Header, parse_entry, parse_header, write

PART_ENV = "UOPC_CAPTURE_PARTS"   # the directory of the part files
ROOT_ENV = "UOPC_CAPTURE_ROOT"    # the directory uopc is imported from

SITECUSTOMIZE = '''\
# written by uopc capture: records the rewrite passes of this process (uopc.corpus.child)
def _uopc_capture():
  import os, sys
  here = os.path.dirname(os.path.abspath(__file__))
  root = os.environ.get("UOPC_CAPTURE_ROOT")
  added = root is not None and root not in sys.path
  if added: sys.path.append(root)
  try:
    from uopc.corpus.child import start
    start()
  except Exception as e:
    print(f"uopc capture: the hook did not start in this process: {type(e).__name__}: {e}", file=sys.stderr)
  # the sitecustomize this one shadows, if any
  me = sys.modules.pop("sitecustomize", None)
  saved = list(sys.path)
  sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != here]
  try:
    import sitecustomize  # noqa: F401
  except ImportError:
    if me is not None: sys.modules["sitecustomize"] = me
  finally:
    sys.path[:] = saved
_uopc_capture()
'''


def start() -> None:
  """In the captured process: hook each compiler as it is imported, and write the part file as the process exits (a
  SIGTERM too)."""
  import atexit
  import signal
  from uopc.corpus.capture import Session
  from uopc.corpus.recorder import Recorder
  recorder = Recorder()
  session = Session(recorder).start()
  parts = os.environ[PART_ENV]

  def finish() -> None:
    session.stop()
    if recorder.passes: write(os.path.join(parts, f"part-{os.getpid()}.jsonl"), recorder.entries(), recorder.header())
  atexit.register(finish)
  if signal.getsignal(signal.SIGTERM) is signal.SIG_DFL:   # a stop by SIGTERM (uopc capture's --timeout) still writes
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))


def child_env(parts: str, hook_dir: str) -> dict[str, str]:
  """The environment of the captured command: the hook's directory first on ``PYTHONPATH``, what tinygrad needs."""
  import uopc
  from uopc.corpus.tinygrad_hook import NEEDS
  env = dict(os.environ)
  env["PYTHONPATH"] = os.pathsep.join([hook_dir] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
  env[PART_ENV], env[ROOT_ENV] = parts, os.path.dirname(os.path.dirname(os.path.abspath(uopc.__file__)))
  env.update(NEEDS)
  return env


def merge(part_files: list[str]) -> tuple[list[Entry], Header]:
  """The entries of the part files as one corpus: a graph seen by several processes once, its counts added."""
  entries: dict[tuple[str, str, str], Entry] = {}
  header = Header()
  skipped: Counter[str] = Counter()
  for path in sorted(part_files):
    with open(path, encoding="utf-8") as f: lines = f.read().splitlines()
    if not lines: continue
    h = parse_header(lines[0], f"{path}:1")
    header.captured_with.update(h.captured_with)
    skipped.update(h.not_checkable)
    for n, line in enumerate(lines[1:], 2):
      e = parse_entry(line, f"{path}:{n}", parse=False)
      if (seen := entries.get((e.ir, e.rules, e.text))) is not None: seen.count += e.count
      else: entries[(e.ir, e.rules, e.text)] = e
  header.not_checkable = dict(sorted(skipped.items()))
  return list(entries.values()), header
