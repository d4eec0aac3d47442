"""The PyTensor side of a capture: the graph each rewrite database pass of ``pytensor.function`` starts from.

PyTensor compiles a function by querying its rewrite databases; each of ``canonicalize``, ``stabilize``, ``specialize``
(and the others) runs as an ``EquilibriumGraphRewriter`` named after its database. The hook wraps that class's
``apply`` and records the ``FunctionGraph``'s outputs as it starts: a pass's input, coarser than tinygrad's (one graph
per database pass, not per node rewriter). A database the adapter names (``pytensor:canonicalize``, ``...:stabilize``,
``...:specialize``) is that rules spec; any other is ``?NAME`` (kept, skipped by ``check``). The graph is kept as its text
at once (``pytensor_text``): the pass then changes the graph in place. Only expressions of elementwise ops are kept.
"""
from __future__ import annotations

import importlib.metadata
from typing import Any, Callable

from uopc.corpus.format import UNNAMED
from uopc.corpus.recorder import Recorder


class PyTensorHook:
  """While installed, records the graph each equilibrium rewrite pass starts from into ``recorder``."""
  NEEDS_TEXT = ""

  def __init__(self, recorder: Recorder) -> None:
    self.recorder = recorder
    self.saved: Any = None   # the method replaced, to put back

  def install(self) -> None:
    from pytensor.graph.rewriting.basic import EquilibriumGraphRewriter
    from uopc.relational.adapters.pytensor.ir import DATABASES
    self.recorder.versions["pytensor"] = importlib.metadata.version("pytensor")
    hook, method = self, EquilibriumGraphRewriter.apply
    self.saved = method

    def recorded(self: Any, fgraph: Any, *args: Any, **kwargs: Any) -> Any:
      name = getattr(self, "name", None) or type(self).__name__
      hook.seen(f"pytensor:{name}" if name in DATABASES else f"{UNNAMED}{name}", fgraph)
      return method(self, fgraph, *args, **kwargs)
    recorded.__wrapped__ = method   # type: ignore[attr-defined]
    EquilibriumGraphRewriter.apply = recorded   # type: ignore[method-assign]

  def seen(self, rules: str, fgraph: Any, text_of: Callable[[Any], str] | None = None) -> None:
    from uopc.corpus.pytensor_text import Unsupported, dump_variable, is_expression
    rec = self.recorder
    rec.passes += 1
    for out in fgraph.outputs:
      if not is_expression(out):
        rec.skip(rules, out, f"{rules if not rules.startswith(UNNAMED) else 'unnamed passes'}: not an expression graph")
        continue
      try: text = (text_of or dump_variable)(out)
      except Unsupported as e:
        rec.skip(rules, out, f"{rules}: no text form ({e})")
        continue
      if not rec.again("pytensor", rules, text): rec.keep("pytensor", rules, text, f"{rules.lstrip(UNNAMED)} pass", text)

  def uninstall(self) -> None:
    from pytensor.graph.rewriting.basic import EquilibriumGraphRewriter
    if self.saved is not None: EquilibriumGraphRewriter.apply = self.saved   # type: ignore[method-assign]
    self.saved = None
