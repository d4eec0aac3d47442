"""``capture(path)``: record what the compilers' rewrite passes see while the block runs, and write the corpus.

A compiler is hooked once it is imported (``on_import``): a block that uses only PyTensor never imports tinygrad.

>>> import os, tempfile
>>> from tinygrad.uop.ops import UOp
>>> path = os.path.join(tempfile.mkdtemp(), "corpus.jsonl")
>>> v = UOp.variable("v", 0, 2)
>>> with capture(path, say=None) as rec:
...   _ = (v * 2 + 3).simplify()
>>> [(e.rules, e.count) for e in load(path)]
[('tinygrad:symbolic', 1)]
"""
from __future__ import annotations

import contextlib
import functools
import importlib
import importlib.util
import os
import sys
from typing import Any, Callable, Iterator

from uopc.corpus.format import load, write
from uopc.corpus.on_import import when_imported
from uopc.corpus.recorder import Recorder

__all__ = ["Session", "capture", "load"]

HOOKS = {"tinygrad": "uopc.corpus.tinygrad_hook:TinygradHook", "pytensor": "uopc.corpus.pytensor_hook:PyTensorHook"}


class Session:
  """The hooks of one capture: each compiler's installed as it is imported (at once if it is), all taken out by ``stop``."""

  def __init__(self, recorder: Recorder, which: tuple[str, ...] = tuple(HOOKS), say: Callable[[str], Any] | None = None) -> None:
    self.recorder, self.which, self.say = recorder, which, say
    self.installed: list[Any] = []
    self.waiting: list[Callable[[], None]] = []

  def start(self) -> Session:
    for lib in self.which:
      if importlib.util.find_spec(lib) is not None: self.waiting.append(when_imported(lib, functools.partial(self._install, lib)))
    return self

  def _install(self, lib: str, module: Any = None) -> None:
    module, _, name = HOOKS[lib].partition(":")
    hook = getattr(importlib.import_module(module), name)(self.recorder)
    try: hook.install()
    except Exception as e:   # a version of the library the hook does not know: say so, and let the program run
      print(f"uopc capture: {lib} is not hooked: {type(e).__name__}: {e}", file=sys.stderr)
      return
    self.installed.append(hook)
    if self.say is not None and hook.NEEDS_TEXT: self.say(f"uopc capture: sets {hook.NEEDS_TEXT}")

  def stop(self) -> None:
    for undo in self.waiting: undo()
    for h in reversed(self.installed): h.uninstall()
    self.waiting, self.installed = [], []


@contextlib.contextmanager
def capture(path: str | os.PathLike[str] | None, which: tuple[str, ...] = tuple(HOOKS),
            say: Callable[[str], Any] | None = print) -> Iterator[Recorder]:
  """Record the input graph of every rewrite pass of tinygrad and PyTensor (``which``) while the block runs, and write them
  to the corpus ``path`` (None: not written; the ``Recorder`` yielded has them). ``say`` hears, once, what was set for
  the passes to be seen (tinygrad's ``CACHELEVEL=0 PARALLEL=0``, put back after)."""
  recorder = Recorder()
  session = Session(recorder, which, say).start()
  try: yield recorder
  finally:
    session.stop()
    if path is not None: write(path, recorder.entries(), recorder.header())
