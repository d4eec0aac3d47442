"""``capture(path)``: record what the compilers' rewrite passes see while the block runs, and write the corpus.

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
import importlib.util
import os
from typing import Any, Callable, Iterator

from uopc.corpus.format import load, write
from uopc.corpus.recorder import Recorder

__all__ = ["capture", "hooks", "load"]


def hooks(recorder: Recorder, which: tuple[str, ...] = ("tinygrad", "pytensor")) -> list[Any]:
  """The hooks of the compilers among ``which`` that are installed (imported here: a capture is for their programs)."""
  out: list[Any] = []
  if "tinygrad" in which and importlib.util.find_spec("tinygrad") is not None:
    from uopc.corpus.tinygrad_hook import TinygradHook
    out.append(TinygradHook(recorder))
  if "pytensor" in which and importlib.util.find_spec("pytensor") is not None:
    from uopc.corpus.pytensor_hook import PyTensorHook
    out.append(PyTensorHook(recorder))
  return out


@contextlib.contextmanager
def capture(path: str | os.PathLike[str] | None, which: tuple[str, ...] = ("tinygrad", "pytensor"),
            say: Callable[[str], Any] | None = print) -> Iterator[Recorder]:
  """Record the input graph of every rewrite pass of tinygrad and PyTensor while the block runs, and write them to the
  corpus ``path`` (None: not written; the ``Recorder`` has them). ``say`` hears, once, what was set for the passes to
  be seen (tinygrad's ``CACHELEVEL=0 PARALLEL=0``)."""
  recorder = Recorder()
  installed = hooks(recorder, which)
  for h in installed:
    h.install()
    if say is not None and getattr(h, "NEEDS_TEXT", None): say(f"capture sets {h.NEEDS_TEXT}")
  try: yield recorder
  finally:
    for h in reversed(installed): h.uninstall()
    if path is not None: write(path, recorder.entries(), recorder.header())
