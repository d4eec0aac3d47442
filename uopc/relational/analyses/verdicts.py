"""Do two programs compute the same value? Equal for all inputs (proved), different (with an input), or not known.

The four kinds (``uopc.smt.classify``, where the definitions and the definedness of a fork are):
``semantic`` (an input where the values differ, replayed through ``run()``), ``syntactic`` (equal for all
inputs, proved: by z3, or a closed program evaluated exactly), ``no-difference-found`` (not proved, and a witness
search on edge and random inputs found no difference) and ``unknown``. Values are compared bit for bit:
``-0.0`` and ``0.0`` differ, a NaN equals a NaN, ``1`` and ``True`` and ``1.0`` are three different values.
Without z3 installed, nothing is proved: the witness search only (the report's ``values:`` line says so once).

>>> from uopc import UOp, dtypes
>>> compare(UOp.const(0.0), UOp.const(-0.0)).detail
'different values: 0.0 vs -0.0'
>>> p0 = UOp.param(0)
>>> v = compare(p0 + p0, p0 * 2)
>>> v.kind, v.detail
('syntactic', 'equal for all inputs (proved by z3)')
>>> kinds_text(["semantic", "syntactic", "syntactic", "no-difference-found"])
'1 semantic, 2 syntactic (proved), 1 no difference found'
"""
from __future__ import annotations

from typing import Any, NamedTuple

from uopc.dtype import value_key
from uopc.evaluate import bind_params, evaluate, to_python
from uopc.relational.ir import IR, UOPC
from uopc.probe_values import random_bindings
from uopc.rewrite import graph_rewrite
from uopc.smt.classify import KINDS, Classification, classify, kinds_count, kinds_text, verdict_words
from uopc.symbolic import symbolic
from uopc.uop import UOp, call_params

__all__ = ["KINDS", "OrderVerdict", "Verdict", "compare", "evaluate_value", "kinds_count", "kinds_text", "order_verdict", "random_bindings",
           "value_key", "verdict_words"]

_RUN = symbolic + evaluate

Verdict = Classification
"""``kind`` (one of ``KINDS``), ``detail`` in words, ``binding`` where the values differ (free PARAMs only)."""

def evaluate_value(u: UOp, values: dict[int, Any] | None = None, max_steps: int = 200_000) -> tuple[bool, Any]:
  """``(True, python value)`` of ``u`` with ``values`` bound to its free PARAMs, or ``(False, why not)``.

  >>> evaluate_value(UOp.param(0) * 2 + 1, {0: 20}), evaluate_value(UOp.const(1) // 0)[0]
  ((True, 41), False)
  """
  try:
    if values: u = bind_params(u, values)
    return True, to_python(graph_rewrite(u, _RUN, max_steps=max_steps))
  except Exception as e:   # out-of-bounds index, division by zero left unevaluated, a loop
    return False, f"{type(e).__name__}: {e}"


def compare(a: UOp, b: UOp, params: list[UOp] | None = None, n: int = 8, seed: int = 0) -> Verdict:
  """The kind of ``a`` vs ``b`` (``uopc.smt.classify.classify``); ``params`` are the free PARAMs, ``n`` the random
  bindings the witness search tries after the edge values (``seed``)."""
  return classify(a, b, params, n, seed)


def compare_results(ir: IR, a: Any, b: Any, prog: Any, bindings: int = 8, seed: int = 0) -> tuple[str, str]:
  """``(kind, detail)`` of results ``a`` and ``b`` of ``prog`` in ``ir``'s semantics: uopc's by ``compare`` here (z3 and
  ``run()``), another IR's by its own ``IR.compare``."""
  if ir is not UOPC: return ir.compare(a, b, prog, bindings, seed)
  v = compare(a, b, call_params(prog), bindings, seed)
  return v.kind, v.detail


class OrderVerdict(NamedTuple):
  """What a search established about rule order: ``kind`` is ``depends``, ``independent``, ``loops`` (one normal form,
  or none known, but some order never terminates), ``no-normal-form`` or ``unknown`` (the search stopped before it could
  tell); ``text`` says it in words, and says what is not known. The two properties apart: ``one_form`` (True: exactly one
  normal form, False: two or more, or none; None: not established) and ``terminates`` (every order terminates: True,
  False, or None: not established). "Does not depend on rule order" is said only where both are True."""
  kind: str
  text: str
  one_form: bool | None = None
  terminates: bool | None = None


def order_verdict(complete: bool, forms: int, forks: int, witness: bool = False, runs: int = 0,
                  terminates: bool | None = None) -> OrderVerdict:
  """The verdict of ``uopc explore order``, only as far as the search established it.

  ``forms``: the normal forms found (explored and sampled), ``forks``: the explored ones other
  than the canonical result, ``witness``: a sampled run reached a normal form other than the
  canonical result (or two runs reached different ones), ``runs``: the sampled runs, ``terminates``:
  whether every order terminates (``uopc.relational.space.termination``: False once a reachable cycle
  is found, True only after an exhaustive search found none, None not established). Two normal forms
  prove that the result depends on rule order, and a reachable cycle that some order never ends; that
  the result does not depend on it (one normal form, and every order ends), or that there is no normal
  form, only an exhaustive search proves.

  >>> order_verdict(True, 1, 0, terminates=True).text
  'the result does not depend on rule order: one normal form, and every rule order terminates'
  >>> order_verdict(True, 1, 0, terminates=False).text
  'one normal form, but not every rule order terminates: some orders loop forever on a reachable cycle'
  >>> order_verdict(False, 0, 0, runs=0).kind
  'unknown'
  >>> order_verdict(False, 3, 0, witness=True).text
  'the result depends on rule order: a sampled run reaches a normal form other than the canonical result'
  """
  loops = "some orders loop forever on a reachable cycle"
  also = f"; and not every rule order terminates: {loops}" if terminates is False else ""
  if forks:
    more = "" if complete else " found (there may be more: the search stopped before exhausting the space)"
    return OrderVerdict("depends", f"the result depends on rule order: {forks} other normal form{'s' * (forks != 1)}{more}{also}",
                        False, terminates)
  if witness:
    return OrderVerdict("depends", "the result depends on rule order: a sampled run reaches a normal form other than the canonical "
                                   f"result{also}", False, terminates)
  if forms >= 2: return OrderVerdict("depends", f"the result depends on rule order: {forms} normal forms{also}", False, terminates)
  if complete and forms == 1:
    if terminates: return OrderVerdict("independent", "the result does not depend on rule order: one normal form, and every rule order "
                                                      "terminates", True, True)
    if terminates is False: return OrderVerdict("loops", f"one normal form, but not every rule order terminates: {loops}", True, False)
    return OrderVerdict("unknown", "one normal form; not established whether every rule order terminates", True, None)
  if complete:
    return OrderVerdict("no-normal-form", "no normal form: every rewrite ordering ends in a cycle or a failing step", False, terminates)
  seen = "no normal form was found" if forms == 0 else "one normal form was found"
  if runs: seen += f" ({runs:,} sampled run{'s' * (runs != 1)}{' all' if runs > 1 and forms == 1 else ''}"
  if runs: seen += " reached it)" if forms == 1 else " reached none)"
  if terminates is False:
    return OrderVerdict("loops", f"not every rule order terminates: {loops}; not established whether the result depends on rule order "
                                 f"otherwise: the search stopped before exhausting the space, and {seen}", None, False)
  return OrderVerdict("unknown", f"not established whether the result depends on rule order: the search stopped before exhausting "
                                 f"the space, and {seen}; there may be normal forms it did not reach, and orders that never end", None, None)
