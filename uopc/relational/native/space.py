"""The bridge between ``UOp``s and the native core's nodes.

A native node is a *label* and its sources' ids. An inner node's label stands for its
``(op, dtype, arg)``, the key of ``UOp``'s own hash-consing tables, so a native node and a
``UOp`` are one-to-one; a leaf has a label of its own (constants are interned by value,
``-0.0`` apart from ``0.0``). Nodes cross to Python only where Python needs them: a node
some rule may match (to call the rules), a rule's result (to index it), a state's graph
when someone asks for it.

>>> from uopc import UOp, symbolic
>>> from uopc.relational.native import available
>>> from uopc.relational.space.step import Stepper
>>> if available():
...   space = NativeSpace(Stepper(symbolic))
...   g = (UOp.param(0) + 0) * 2
...   i = space.to_id(g)
...   space.uop(i) is g, space.to_id(g) == i, space.find(g) == i, space.find(g + 1)
... else: True, True, True, -1
(True, True, True, -1)
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

from uopc.dtype import DType
from uopc.ops import Ops
from uopc.relational.native import Space
from uopc.relational.native.patterns import CODES, compile_rules, python_may
from uopc.relational.native.folds import FOLD_CODES, rule_forms
from uopc.relational.native.templates import RuleTemplates
from uopc.relational.space.step import At, Redex, Stepper
from uopc.rule_check import rewrite_problem
from uopc.term import _let_names_list, parts_for
from uopc.uop import UOp, make_uop

if TYPE_CHECKING:
  from uopc.relational.space.forms import Forms

_OPS: list[Ops] = list(Ops)
TEXT_NAMES = 10_000   # NativeSpace.text: the let names it may give, so the longest limit it takes (LENGTHS.whole)
assert len(_OPS) < 256


class NotNative(Exception):
  """The native core does not handle this graph or step (a CALL, a failed step): the Python core takes it."""


class NativeSpace:
  """One exploration's native nodes, states and redexes, and the ``UOp``s made of them so far (held by the core)."""

  def __init__(self, stepper: Stepper) -> None:
    assert Space is not None, "the native core is not built"   # (available(), as the type checker reads it)
    self.stepper = stepper
    self.redexes = Redexes(self)    # a native redex id -> its Redex (made by the Python Stepper's matching, or on first read)
    self._labels: list[tuple] = []    # label -> (op, dtype, arg) of an inner node
    self._label_of: dict[tuple, int] = {}
    # the rules' patterns the core matches itself (patterns.py); the others by signature, as may_rewrite does
    self.patterns = compile_rules(stepper.pm, CODES)
    may = python_may(stepper.pm, self.patterns.python)
    asks = None if not self.patterns.python else lambda op, n, src: may(_OPS[op], None if src is None else tuple(_OPS[o] for o in src), n)
    self.core = Space(self._match, asks, self._label, lambda op, dtype, arg: self._label_of.get((op, dtype, arg), -1), CODES, stepper.map_limit,
                           tree=stepper.semantics == "tree")
    self.core.patterns(self.patterns.tables, self._check)
    # template rules are applied in the core (templates.py): uopc's own IR (its check of a result) and no ctx
    applies = stepper.ctx is None and stepper._problem is rewrite_problem
    specs, templates = rule_forms(stepper.pm, self.patterns, applies)   # and rules declared as data (folds.py)
    self.templates = RuleTemplates(templates, self.uop, self.to_id, self._label)
    self.core.templates(specs, self.templates.type_of, self.templates, FOLD_CODES)
    # a step key of the core -> what the Python core keys that step by: its Redex, or under tree semantics its At
    self.keys: Any = self.redexes if stepper.semantics == "graph" else TreeKeys(self)
    self.texts: Callable[[int | UOp, int], str | None] | None = None   # core.text once set up (on the first text(): a library run prints nothing)
    self._fingerprinting = False   # core.fingerprint_setup called (on the first fingerprint())
    # a cluster worker's share of the rules' work (cluster/native_steps.py): the own redexes another worker's core found
    # for a node, by node (the Python match they stand for not made again), and where lists, each node matched here and
    # its redexes, but the nodes of the set (a level's own states)
    self.given: dict[int, list[tuple[int, int]]] = {}
    self.matched: tuple[list[int], list[list[tuple[int, int]]], set[int]] | None = None

  def text(self, i: int | UOp, limit: int | None = None) -> str | None:
    """``uopc.term.show`` of native node ``i``'s ``UOp`` (or of a ``UOp`` bound to one; None if it is not), made in C from
    the core's nodes (``_space_text.h``): no ``UOp`` made, a node's pieces asked of Python once per label. None too for
    ``limit`` None or past ``TEXT_NAMES`` (a graph naming more subterms than there are names kept)."""
    if limit is None or limit > TEXT_NAMES: return None
    if self.texts is None:
      self.core.text_setup(self.pieces, _let_names_list(TEXT_NAMES))
      self.texts = self.core.text
    return self.core.text(i, limit)

  def fingerprint(self, i: int) -> bytes:
    """``space.fingerprint.Fingerprints().of`` of native node ``i``'s ``UOp``, computed in C (``Space.fingerprint``): each
    node's 16 bytes kept by the core, ``node_fields`` asked of Python once per label."""
    if not self._fingerprinting:
      from uopc.relational.space.fingerprint import node_fields   # the cluster's canonical fields: one definition
      self.core.fingerprint_setup(lambda j: node_fields(self.uop(j)))
      self._fingerprinting = True
    return self.core.fingerprint(i)

  def rows_setup(self, base: list[UOp]) -> None:
    """Set the core up for ``Space.rows`` (``cluster/codec.py``'s rows of a batch, made in C): ``base`` is the program's
    nodes in ``Codec.base`` order (ref ``-1 - i``), indexed here; an inner node's fields are read from this space's labels.
    The same base again changes nothing; NotNative for a base with a CALL."""
    self.core.rows_setup([self.to_id(u) for u in base], self._labels)

  def pieces(self, i: int) -> str | list[str | int]:
    """The core's question for ``text`` (and a report's node table): node ``i``'s ``node_parts``, each source as its
    index in the node's sources (in order: the core reads them so)."""
    u = self.uop(i)
    p = parts_for(u)(u)
    if isinstance(p, str): return p
    # by position, not identity: the pieces are cached by label, and add(a, a)'s two sources are one node
    src, kids = u.src, 0
    out: list[str | int] = []
    for c in p:
      if isinstance(c, str): out.append(c)
      else:
        assert src[kids] is c, "node_parts lists a node's sources in order"
        out.append(kids)
        kids += 1
    return out

  def to_id(self, u: UOp) -> int:
    """The native node of ``u`` (made with those below it where new); NotNative for a graph with a CALL."""
    return self.core.index(u)

  def _check(self, c: int, label: int, i: int) -> int:
    """The core's question for a compiled pattern's dtype and arg constraint ``c`` on node ``i`` of ``label``: 1 may pass, 0 cannot."""
    if label >= 0: _, dtype, arg = self._labels[label]
    else: u = self.uop(i); dtype, arg = u.dtype, u.arg   # a leaf: its UOp was made where it came in
    return self.patterns.check(c, dtype, arg)

  def _label(self, op: Ops, dtype: DType, arg: Any) -> int:
    """The core's question for a new (op, dtype, arg): its label."""
    if op is Ops.CALL: raise NotNative("a CALL")
    if (label := self._label_of.get(key := (op, dtype, arg))) is None:
      label = self._label_of[key] = len(self._labels)
      self._labels.append(key)
    return label

  def inert_asker(self, forms: Forms) -> Callable[[int, int, int], int]:
    """The core's question for a node of an op some rule may match: is it inert (``forms.inert``)? 1 or 0; 2 for
    0 and so for every node of its label, a head some pattern matches whatever the sources (``x=alu``: the core
    does not ask again). A head and source count some pattern always matches (``x + y``) is 0 too: no ``UOp`` made."""
    labels, always, inert, uop = self._labels, forms.always_matched, forms.inert, self.uop

    def ask(i: int, label: int, n: int) -> int:
      if label >= 0:
        op, dtype, arg = labels[label]
        if always(op, dtype, arg): return 2
        if always(op, dtype, arg, n): return 0
      return int(inert(uop(i)))
    return ask

  def find(self, u: UOp) -> int:
    """The native node of ``u`` if it exists, else -1 (makes none; binds ``u``'s nodes that exist, for the next time)."""
    return self.core.lookup(u)

  def uop(self, i: int) -> UOp:
    """The ``UOp`` of native node ``i`` (made, with those below it that have none, the first time: in C, by ``make_uop``)."""
    return self.core.materialize(i, make_uop, self._labels)

  def _match(self, i: int) -> list[tuple[int, int]] | None:
    """The core's question: node ``i``'s own redexes as (rule index, result node), numbered by the core in order from
    its ``n_redexes``; None where the Python core must go on. A node's redexes ``given`` are taken as they are: the same
    rules' match of the same node in another worker's core."""
    if (given := self.given.pop(i, None)) is not None: return given
    out, made = [], []
    for r in self.stepper._match(self.uop(i)):
      if r.error is not None: return None   # a stuck step: the Python core makes stuck states
      try: h = self.to_id(r.result)  # type: ignore[arg-type]  # no error: a result
      except NotNative: return None
      out.append((r.rule_index, h))
      made.append(r)
    self.redexes.made_by_python(self.core.n_redexes, made)
    if (log := self.matched) is not None and i not in log[2]: log[0].append(i); log[1].append(out)
    return out


class Redexes:
  """The core's redexes as the Python core's ``Redex``es, by id: one the Stepper made is kept as it is, one the core made
  from a template (``_space_templates.c``) is made on first read, once (redexes are compared by identity)."""
  __slots__ = ("_space", "_made")

  def __init__(self, space: NativeSpace) -> None:
    self._space = space
    self._made: dict[int, Redex] = {}

  def made_by_python(self, first: int, redexes: list[Redex]) -> None:
    """The Stepper's redexes of one node, which the core numbers from ``first`` in order."""
    for k, r in enumerate(redexes, first): self._made[k] = r

  def __len__(self) -> int: return self._space.core.n_redexes

  def __getitem__(self, k: int) -> Redex:
    if (r := self._made.get(k)) is None:
      space = self._space
      node, rule, result = space.core.redex(k)
      r = self._made[k] = Redex(space.uop(node), rule, space.uop(result))
    return r


class TreeKeys:
  """Tree semantics: the core's step keys as the Python core's ``At``s (``keys[k]``), each made once, on first read.

  A key is a position: the key one source down, at source ``i`` (``At(i, inner)``), down to a node's own ``Redex``. The
  ``At`` of a key is shared by every map and state that holds the key, as in the Python core.
  """
  __slots__ = ("_space", "_made")

  def __init__(self, space: NativeSpace) -> None:
    self._space = space
    self._made: dict[int, Redex | At] = {}

  def __getitem__(self, k: int) -> Any:   # a Redex or an At, which reads as one
    made, key = self._made, self._space.core.key
    down: list[tuple[int, int]] = []   # (key, source index) from k down to the first key made already: iterative, keys nest deep
    a: Redex | At | None
    while (a := made.get(k)) is None:
      i, inner = key(k)
      if i < 0:
        a = made[k] = self._space.redexes[inner]
        break
      down.append((k, i))
      k = inner
    for k, i in reversed(down): a = made[k] = At(i, a)
    return a
