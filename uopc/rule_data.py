"""Rules as data: what a rule's function computes, declared next to it in a small language a native core can run.

A rule stays ``(pattern, function, name)``; ``@as_data(form)`` attaches ``form`` to the function (``fn.data``), and
returns the function itself. The function stays the truth: the explorer's C core applies the form instead of calling
the function per match (``uopc/relational/native/folds.py``), and ``tests/test_relational_native_folds.py`` holds the
two to the same results. The forms:

- ``Fold(name)``: the ALU node bound to ``name``, all of whose sources are constants, as the constant of its value
  (``exec_alu``), or no rewrite where a source is no constant or the value is undefined (``_fold``).
- ``Pinned(name)``: the scalar int or bool node bound to ``name`` as the constant its bounds pin it to
  (``uopc.bounds``), or no rewrite (``_const_bounds``).
- ``Guarded(guard, then, orelse=None, consts=())``: where ``guard`` holds, ``then``'s result, else ``orelse``'s (None:
  no rewrite). ``then`` and ``orelse`` are templates (``uopc.egraph.template.Template.of``: they only combine their
  arguments with operators, ``<`` and ``>`` too) over the pattern's names and the ``consts``: ``(name, like, expr)``, a
  constant of ``like``'s dtype (a pattern's name, or a ``DType``) whose value is ``expr``. ``then`` may also be
  ``Rebuild(name, src)``: the node bound to ``name`` over other sources, all bound names (no ``orelse``, no ``consts``).

An expression (a guard, a constant's value) is an int, a ``DType``, or a tuple:

- ``("value", n)``: the value of the int or bool constant bound to ``n`` (a bool as 0 or 1);
- ``("dtype", n)``: the dtype of the node bound to ``n`` (compared with ``==`` to a ``DType`` or another);
- ``("const?", n)``: 1 if the node bound to ``n`` is a constant, else 0;
- ``("lo", n)``, ``("hi", n)``: ``vmin`` and ``vmax`` of the int or bool node bound to ``n`` (``uopc.bounds``);
- ``(op, a, b)`` for ``op`` in ``+ - * // % < <= == != > >=`` (Python's: ``//`` and ``%`` floor), ``("and", a, b)``,
  ``("or", a, b)`` (short-circuit, as Python's), ``("not", a)``, ``("wrap_i32", a)`` (``truncate(dtypes.i32, a)``).

>>> @as_data(Guarded((">", ("value", "c"), 0), lambda x: x))
... def keep_if_positive(x, c): return x if c.arg > 0 else None
>>> keep_if_positive.data.guard
('>', ('value', 'c'), 0)
"""
from __future__ import annotations

from typing import Any, Callable, NamedTuple, TypeVar

F = TypeVar("F", bound=Callable)
BINARY = ("+", "-", "*", "//", "%", "<", "<=", "==", "!=", ">", ">=", "and", "or")
UNARY = ("not", "wrap_i32")
READS = ("value", "dtype", "const?", "lo", "hi")


class Fold(NamedTuple):
  """The ALU node ``name`` of constant sources as its value's constant (``exec_alu``); no rewrite where undefined."""
  name: str


class Pinned(NamedTuple):
  """The scalar int or bool node ``name`` as the constant its bounds pin it to (``uopc.bounds``)."""
  name: str


class Rebuild(NamedTuple):
  """The node bound to ``name`` over the nodes bound to ``src`` instead of its sources (``u.replace(src=...)``)."""
  name: str
  src: tuple[str, ...]


class Guarded(NamedTuple):
  """``then``'s result where ``guard`` holds, else ``orelse``'s (None: no rewrite); ``consts`` are made first."""
  guard: Any
  then: Callable | Rebuild
  orelse: Callable | None = None
  consts: tuple[tuple[str, Any, Any], ...] = ()


Form = Fold | Pinned | Guarded


def as_data(form: Form) -> Callable[[F], F]:
  """Declare what a rule's function computes as ``form``; returns the function itself (its identity is kept)."""
  if isinstance(form, Guarded):
    check_expr(form.guard)
    for _, _, e in form.consts: check_expr(e)

  def declare(fn: F) -> F:
    fn.data = form  # type: ignore[attr-defined]
    return fn
  return declare


def declare_data(pm: Any, forms: dict[str, Form]) -> None:
  """``as_data`` for the rules of ``pm`` named in ``forms``: the table beside a rule list (each name must be a rule's).

  >>> from uopc.matcher import PatternMatcher
  >>> from uopc.upat import UPat
  >>> pm = PatternMatcher([(UPat.var("x") * 1, lambda x: x, "mul-1")], name="demo")
  >>> declare_data(pm, {"mul-1": Guarded(1, lambda x: x)})
  >>> data_of(pm.rules[0][1]).guard
  1
  """
  by_name = {pm.name_of(rule): rule[1] for rule in pm.rules}
  if unknown := sorted(set(forms) - set(by_name)): raise KeyError(f"{pm.name}: no rule named {', '.join(unknown)}")
  for name, form in forms.items(): as_data(form)(by_name[name])


def data_of(fn: Callable) -> Form | None:
  """The form ``fn`` declares, or None."""
  form = getattr(fn, "data", None)
  return form if isinstance(form, (Fold, Pinned, Guarded)) else None


def check_expr(e: Any) -> None:
  """Raise ValueError unless ``e`` is an expression of the language (iteratively: no recursion on deep input)."""
  from uopc.dtype import DType
  todo = [e]
  while todo:
    e = todo.pop()
    if type(e) is int or isinstance(e, DType): continue
    if not isinstance(e, tuple) or not e: raise ValueError(f"not an expression: {e!r}")
    op, args = e[0], e[1:]
    if op in READS and len(args) == 1 and isinstance(args[0], str): continue
    if (op in BINARY and len(args) == 2) or (op in UNARY and len(args) == 1): todo.extend(args)
    else: raise ValueError(f"not an expression: {e!r}")


def without_data(pm: Any) -> Any:
  """``pm`` (a ``PatternMatcher``) with each rule declared as data left to its function alone: what the data is worth,
  measured (``bench/folds.py``) and tested against. The functions are wrapped, keeping what they read."""
  from uopc.matcher import PatternMatcher

  def bare(fn: Callable) -> Callable:
    if data_of(fn) is None: return fn

    def call(**kw: Any) -> Any: return fn(**kw)
    if hasattr(fn, "footprint"): call.footprint = fn.footprint  # type: ignore[attr-defined]
    return call
  return PatternMatcher([(r[0], bare(r[1]), r.name) for r in pm.rules], name="without-data")
