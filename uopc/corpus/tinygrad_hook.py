"""The tinygrad side of a capture: every ``graph_rewrite`` pass's input graph, with its rule set named.

Every pass goes through ``RewriteContext.unified_rewrite`` (or ``walk_rewrite``, for ``walk=True``), whichever module
imported ``graph_rewrite`` by name, so the hook wraps those two methods of the class (and puts them back after). The
rule set is named by identity: a ``PatternMatcher`` of ``tinygrad.uop.symbolic`` is ``tinygrad:NAME`` (what ``--rules``
resolves); any other, a sum made on the fly included, is ``?file.py:line`` of the code that called ``graph_rewrite``,
kept for the record and skipped by ``check``. Only expression graphs (``tinygrad_text.is_expression``) are kept.

tinygrad caches compiled schedules and kernels on disk (``CACHELEVEL``) and compiles in worker processes
(``PARALLEL``): with either on, a run may never rewrite anything in this process. ``NEEDS`` is what a capture sets.
"""
from __future__ import annotations

import os
import sys
from typing import Any, Callable

from uopc.corpus.format import UNNAMED
from uopc.corpus.recorder import Recorder

NEEDS = {"CACHELEVEL": "0", "PARALLEL": "0"}
NEEDS_TEXT = "tinygrad CACHELEVEL=0 PARALLEL=0 (no disk cache, no compile workers: every rewrite pass runs in this process)"


def named_sets() -> dict[int, str]:
  """``id(pm) -> 'tinygrad:NAME'`` for every ``PatternMatcher`` of ``tinygrad.uop.symbolic`` (``named_rules`` resolves them)."""
  import tinygrad.uop.symbolic as sets
  from tinygrad.uop.ops import PatternMatcher
  return {id(pm): f"tinygrad:{name}" for name, pm in sorted(vars(sets).items()) if isinstance(pm, PatternMatcher) and not name.startswith("_")}


def _caller() -> tuple[str, str | None, bool]:
  """``file:line`` of the code that called ``graph_rewrite`` (the first frame outside tinygrad's ``uop/ops.py`` and this
  module), the pass's ``name`` and whether it is bottom up, read from ``graph_rewrite``'s own frame."""
  f: Any = sys._getframe(2)
  name, bottom_up = None, False
  while f is not None:
    code = f.f_code
    if code.co_name == "graph_rewrite" and "sink" in f.f_locals:
      name, bottom_up = f.f_locals.get("name"), bool(f.f_locals.get("bottom_up"))
    elif not code.co_filename.endswith(("uop/ops.py", "tinygrad_hook.py")):
      parts = code.co_filename.replace(os.sep, "/").split("/")
      short = "/".join(parts[parts.index("tinygrad"):] if "tinygrad" in parts else parts[-1:])
      return f"{short}:{f.f_lineno}", name, bottom_up
    f = f.f_back
  return "?", name, bottom_up


class TinygradHook:
  NEEDS_TEXT = NEEDS_TEXT
  """While installed, records each pass's input graph into ``recorder``."""

  def __init__(self, recorder: Recorder) -> None:
    self.recorder = recorder
    self.saved: dict[str, Callable] = {}   # the methods replaced, to put back
    self.names: dict[int, str] = {}

  def install(self) -> None:
    import importlib.metadata
    from tinygrad.helpers import CACHELEVEL, PARALLEL
    from tinygrad.uop.ops import RewriteContext
    from uopc.corpus.tinygrad_text import is_expression
    self.recorder.versions["tinygrad"] = importlib.metadata.version("tinygrad")
    self.names = named_sets()
    self.saved_context = (CACHELEVEL.value, PARALLEL.value)
    CACHELEVEL.value, PARALLEL.value = 0, 0
    hook = self

    def wrap(method: Callable) -> Callable:
      def recorded(self: Any, root: Any) -> Any:
        hook.seen(self, root, is_expression)
        return method(self, root)
      recorded.__wrapped__ = method   # type: ignore[attr-defined]
      return recorded
    for name in ("unified_rewrite", "walk_rewrite"):
      self.saved[name] = method = getattr(RewriteContext, name)
      setattr(RewriteContext, name, wrap(method))

  def seen(self, context: Any, root: Any, is_expression: Callable[[Any], bool]) -> None:
    rec = self.recorder
    rec.passes += 1
    for pm in (context.pm, context.bpm):
      if pm is None: continue
      where = None
      if (rules := self.names.get(id(pm))) is None:
        where, name, bottom_up = _caller()
        rules = f"{UNNAMED}{where}"
      if rec.again("tinygrad", rules, root): continue
      if not is_expression(root):
        rec.skip(rules, root, f"{rules if where is None else 'unnamed rule sets'}: not an expression graph")
        continue
      if where is None: where, name, bottom_up = _caller()
      rec.keep("tinygrad", rules, root, f"{name or 'graph_rewrite'}{' bottom_up' if bottom_up else ''} at {where}")

  def uninstall(self) -> None:
    from tinygrad.helpers import CACHELEVEL, PARALLEL
    from tinygrad.uop.ops import RewriteContext
    for name, method in self.saved.items(): setattr(RewriteContext, name, method)
    self.saved = {}
    CACHELEVEL.value, PARALLEL.value = self.saved_context
