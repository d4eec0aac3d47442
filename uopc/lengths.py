"""How many characters of a term each place prints: one table, ``LENGTHS``, read by every caller of the printers.

A term expands sharing only where a let name does not (``uopc.term.show``), but a big graph's text is still as
long as the graph: every printer takes a ``limit``, and past it a term is a label (its tree's first characters
and an ellipsis). Which limit is a question of where the text goes, so it is answered here, by name, once.

>>> from uopc import UOp
>>> from uopc.term import show
>>> show(UOp.param(0) + 1, LENGTHS.label)
'add(p0, 1)'
>>> sorted(LENGTHS._asdict().items(), key=lambda kv: -kv[1])[0]
('whole', 10000)
"""
from __future__ import annotations

from typing import NamedTuple


class TermLengths(NamedTuple):
  """The table: a name for each place a term is printed, and its characters."""
  whole: int = 10_000
  """The explorer's text and JSON outputs: every state prints its graph, whole up to this (programs of several hundred
  nodes, 10-15 characters a node, print whole and parse back as ``--target`` and ``--to-term``); past it a 20,000-node
  program cannot flood the output."""
  line: int = 2_000
  """A line a reader reads whole: ``uopc trace``'s lines and the canonical engine's ``--format json`` firings, a graph
  target's text."""
  repr: int = 200
  """A node's or pattern's ``repr``, the C source's header comment, a drawn node's tooltip, a join's message."""
  instance: int = 160
  """A rule instance in ``check-rules``' table."""
  message: int = 80
  """An error message or a result's ``repr`` naming a graph (``State``, ``SearchResult``, replay errors), a drawing's caption."""
  label: int = 60
  """A box's label (the DOT drawing's states), a step in a ``repr`` or a loop's error, a rule's check message."""
  operand: int = 40
  """An operand inside such a message (the stand-ins of ``footprint_check``)."""


LENGTHS = TermLengths()
