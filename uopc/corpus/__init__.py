"""A corpus of real compilers' rewrite inputs: the graphs tinygrad's ``graph_rewrite`` passes and PyTensor's rewriter
passes saw while a user's program ran (``capture``), kept one a line (``format``) and checked for rule-order findings
(``check``). tinygrad and PyTensor are imported only when one of their graphs is captured or loaded.
"""
from __future__ import annotations

from uopc.corpus.format import CorpusError, Entry, load

__all__ = ["CorpusError", "Entry", "load"]
