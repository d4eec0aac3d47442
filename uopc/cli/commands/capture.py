"""``uopc capture -o corpus.jsonl -- python my_model.py``: record every rewrite pass's input graph while a program runs.

The command runs the program given after ``--`` with a hook in each of its Python processes (``uopc.corpus.child``):
tinygrad's ``graph_rewrite`` passes and PyTensor's rewriter passes are recorded, deduplicated, and written to the corpus
(``uopc.corpus.format``) once the program ends. It sets what tinygrad needs for its passes to run in the process
(``CACHELEVEL=0 PARALLEL=0``) and says so. The program's own output goes through; its exit code is reported, and a
program that fails still leaves the corpus of what ran (exit 1).

>>> from uopc.cli.commands import COMMANDS
>>> [c.name for c in COMMANDS if c.target.startswith('uopc.cli.commands.capture:')]
['capture']
"""
from __future__ import annotations

import argparse
import glob
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from typing import Any

from uopc.cli.budget import bounded, shielded, stopped_text
from uopc.cli.support import EXIT_BOUND, EXIT_FAILED, EXIT_OK, CLIError, write_file

STOP_WAIT = 5.0   # seconds a stopped program has to write its part after SIGTERM


def cmd_capture(args: argparse.Namespace) -> int:
  from uopc.corpus.format import corpus_text
  from uopc.corpus.tinygrad_hook import NEEDS_TEXT
  command = list(args.command)
  if command and command[0] == "--": command = command[1:]
  if not command: raise CLIError("uopc capture: no program to run (uopc capture -o corpus.jsonl -- python my_model.py)")
  if shutil.which(command[0]) is None and not os.path.exists(command[0]): raise CLIError(f"uopc capture: {command[0]}: command not found")
  print(f"uopc capture: sets {NEEDS_TEXT} in the program's environment", flush=True)
  with shielded():   # from here only the program's run is interrupted by a bound: what it recorded is written whole
    work = tempfile.mkdtemp(prefix="uopc-capture-")
    try:
      code, entries, header = _run(command, work)
    finally: shutil.rmtree(work, ignore_errors=True)
    write_file(args.output, corpus_text(entries, header))
    _report(args.output, entries, header)
    if code is None:
      print(f"uopc capture: incomplete: {stopped_text() or 'stopped'}; the corpus holds what ran until then", file=sys.stderr)
      return EXIT_BOUND
    if code != 0:
      print(f"uopc capture: the program exited {code}; the corpus holds what ran", file=sys.stderr)
      return EXIT_FAILED
    return EXIT_OK


def _run(command: list[str], work: str) -> tuple[int | None, list, Any]:
  """Run ``command`` with the hook (its ``sitecustomize.py`` in ``work``), and merge what its processes recorded: its exit
  code (None: a bound stopped it) and the corpus."""
  from uopc.corpus.child import SITECUSTOMIZE, child_env, merge
  hook_dir, parts = os.path.join(work, "hook"), os.path.join(work, "parts")
  os.makedirs(hook_dir)
  os.makedirs(parts)
  with open(os.path.join(hook_dir, "sitecustomize.py"), "w", encoding="utf-8") as f: f.write(SITECUSTOMIZE)
  # (the program starts with no signal blocked: shielded() blocks SIGINT and SIGTERM here, and a mask is inherited)
  proc = subprocess.Popen(command, env=child_env(parts, hook_dir), preexec_fn=_unblock_signals)
  code = bounded(proc.wait, None)
  if code is None:   # a bound: the program is stopped, and writes what it recorded (uopc.corpus.child.start)
    proc.terminate()
    try: proc.wait(STOP_WAIT)
    except subprocess.TimeoutExpired:
      proc.kill()
      proc.wait()
  entries, header = merge(glob.glob(os.path.join(parts, "part-*.jsonl")))
  return code, entries, header


def _unblock_signals() -> None:
  signal.pthread_sigmask(signal.SIG_SETMASK, set())


def _report(path: str, entries: list, header: object) -> None:
  from collections import Counter
  by_rules = Counter(e.rules for e in entries)
  named = sum(n for r, n in by_rules.items() if not r.startswith("?"))
  skipped = getattr(header, "not_checkable", {})
  lines = [f"{path}: {len(entries):,} graph{'s' * (len(entries) != 1)} ({named:,} of named rule sets, "
           f"{len(entries) - named:,} of unnamed ones: check them with --rules)"]
  lines += [f"  {n:6,}  {r}" for r, n in by_rules.most_common() if not r.startswith("?")]
  if skipped: lines.append(f"not kept (not expressions the explorer takes): {sum(skipped.values()):,} graphs; " +
                           ", ".join(f"{k} {v:,}" for k, v in skipped.items()))
  print("\n".join(lines))

