"""Every critical pair of tinygrad 0.14's rule sets that does not join, as the tables of docs/tinygrad-pairs.md.

  python explore/tinygrad_pairs_table.py                                   # div_and_mod_symbolic: 3 rules, a second
  python explore/tinygrad_pairs_table.py symbolic_simple symbolic sym > docs/tinygrad-pairs.md

For each rule set named (a ``PatternMatcher`` of ``tinygrad.uop.symbolic``; by default ``div_and_mod_symbolic``, the
rules of the index expressions' division and modulo): ``critical_pairs`` (uopc's analysis on
tinygrad's own UPats, nodes and rules), then for each pair that is not joinable or raised, both
rules by ``file:line``, the witness, the two one-step results, what tinygrad's ``graph_rewrite``
makes of each result and of the witness (as written, and with each rule of the pair moved first),
and the verdict in tinygrad's semantics (``values.compare_values``: proved equal by z3, different values at an input
tinygrad's evaluation confirms, no difference found, unknown); a pair an earlier set already lists (each set contains
the one before) is counted, not repeated. Each set's section says how many pairs got each verdict, and of the
different ones how many differ in value (a number, NaN, the sign of a zero) and how many only in the Python type of the
same number (a dtype a rule changed). The three rule sets of the doc take several minutes (``sym`` most of them).
"""
from __future__ import annotations

import os
import sys
from collections import Counter
from typing import Any

if __name__ == "__main__":   # run by path: the repository's root importable
  sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from tinygrad.dtype import InvalidType, dtypes
from tinygrad.uop import symbolic as tsym
from tinygrad.uop.ops import Ops, PatternMatcher, graph_rewrite

from uopc import show
from uopc.relational import critical_pairs
from uopc.relational.adapters.tinygrad.ir import adapt
from uopc.relational.adapters.tinygrad.values import _key, value_of


def cell(text: Any, width: int = 90) -> str:
  """A table cell: the text cut to ``width``, ``|`` escaped."""
  t = "" if text is None else str(text)
  t = t if len(t) <= width else t[:width - 1] + "…"
  return "`" + t.replace("|", "\\|").replace("`", "'") + "`" if t else ""


def rewritten(u: Any, pm: PatternMatcher) -> str:
  try: return show(graph_rewrite(u, pm), 200)
  except Exception as e: return f"raises {type(e).__name__}"


def moved_first(pm: PatternMatcher, i: int) -> PatternMatcher:
  return PatternMatcher([pm.patterns[i]] + pm.patterns[:i] + pm.patterns[i + 1:])


VERDICTS = (("syntactic", "equal for all inputs (proved)"), ("semantic", "different values at an input"),
            ("no-difference-found", "no difference found"), ("unknown", "unknown"))


def where(rule_name: str) -> str:
  """A rule's ``file:line`` (of its ``UPat``) from its name in a report (``symbolic#13 symbolic.py:111``, or a named
  function's ``fold_const_alu#40``)."""
  return _LOCATIONS.get(rule_name) or rule_name.split(" ", 1)[-1]


_LOCATIONS: dict[str, str] = {}   # rule name -> file:line, of the rule sets tabled so far


def _number(text: str) -> tuple[type, float]:
  """A value's repr as (its Python type, its number): ``False`` is (bool, 0.0), ``-0.0`` (float, -0.0)."""
  t = text.strip()
  if t in ("True", "False"): return bool, float(t == "True")
  return (float if any(c in t for c in ".nae") else int), float(t)


def difference(p: Any) -> str:
  """What kind of difference a ``semantic`` pair's two values are (from its detail, ``... : X vs Y``): ``value`` (two
  numbers), ``nan`` (NaN on one side), ``zero sign`` (``-0.0`` and ``0.0``), ``type`` (the same number, two Python types:
  a rule changed the node's dtype, or the node's dtype is one ``exec_alu`` gives a value of another type)."""
  x, y = (p.verdict_detail or "").rsplit(": ", 1)[-1].split(" vs ", 1)
  try: (tx, fx), (ty, fy) = _number(x), _number(y)
  except ValueError: return "value"
  if (fx != fx) != (fy != fy): return "nan"
  if tx is float and ty is float and fx == fy == 0: return "zero sign"
  return "type" if fx == fy or (fx != fx and fy != fy) else "value"


_FLOAT_OPS = {Ops.RECIPROCAL, Ops.POW, Ops.EXP2, Ops.LOG2, Ops.SIN, Ops.SQRT}


def int_float_op(p: Any) -> bool:
  """Does the pair's witness or a result hold a float op of an int dtype (``RECIPROCAL`` of a ``weakint``: ``exec_alu``
  gives Python's float ``1/x``, a value no int dtype has)?"""
  return any(n.op in _FLOAT_OPS and dtypes.is_int(n.dtype) for u in (p.witness, *p.results) if u is not None for n in u.toposort())


def binding_of(p: Any) -> dict[str, Any]:
  """The input a ``semantic`` pair's detail names (``... at a=0, b=True: ...``)."""
  head = (p.verdict_detail or "").rsplit(": ", 1)[0]
  if " at " not in head: return {}
  out = {}
  for kv in head.split(" at ", 1)[1].split(", "):
    k, v = kv.split("=", 1)
    out[k] = v == "True" if v in ("True", "False") else float(v) if any(c in v for c in ".nae") else int(v)
  return out


def wrong_rule(p: Any) -> str:
  """The rule of a ``semantic`` pair whose one-step result's value differs from the witness's own (tinygrad's
  evaluation at the input), or ``both``/``neither`` (the witness cannot tell: it is undefined, or both differ)."""
  b = binding_of(p)
  ok, vw = value_of(p.witness, b)
  if not ok or isinstance(vw, InvalidType): return "the witness has no value there"
  off = [r for r, res in zip(p.rules, p.results) if not same(res, b, vw)]
  return where(off[0]) if len(off) == 1 else "both rules" if off else "neither rule"


def same(u: Any, b: dict[str, Any], v: Any) -> bool:
  ok, w = value_of(u, b)
  return ok and not isinstance(w, InvalidType) and _key(w) == _key(v)


def verdict_counts(report: Any) -> list[str]:
  """The verdicts of a report's pairs that do not join, the kinds of difference of the different ones, and the real
  value bugs (different numbers, NaN or zero signs, no int-typed float op) by the rule whose result is off."""
  pairs = [p for p in report.pairs if p.status == "not-joinable"]
  kinds = Counter(p.verdict or "unknown" for p in pairs)
  sem = [p for p in pairs if p.verdict == "semantic"]
  diffs = Counter(difference(p) for p in sem)
  words = ", ".join(f"{kinds[k]} {w}" for k, w in VERDICTS)
  of = ", ".join(f"{diffs[k]} {w}" for k, w in (("value", "in value"), ("nan", "NaN on one side"), ("zero sign", "in the sign of a zero"),
                                                ("type", "the same number of two types")))
  real = [p for p in sem if difference(p) != "type" and not int_float_op(p)]
  rules = Counter(wrong_rule(p) for p in real)
  by = ", ".join(f"{r} {n}" for r, n in sorted(rules.items(), key=lambda x: (-x[1], x[0])))
  return [f"Verdicts of the {len(pairs)} pairs that do not join: {words}; of the different ones, {of}.", "",
          f"Real value bugs (two values that differ as numbers, as NaN or in the sign of a zero, both defined, at an input within "
          f"the variables' bounds, without a float op of an int dtype): {len(real)}; by the rule whose result is not the witness's "
          f"own value there: {by or 'none'}."]


def table(name: str, shown: set[tuple[str, str, str]]) -> list[str]:
  """The section of rule set ``name``: its summary, the rules not analyzed, and each pair that does not join or raised
  (a pair already in ``shown``, the earlier sets' rows by both rules and position, is counted, not repeated)."""
  pm = getattr(tsym, name)
  _LOCATIONS.update((r.name, r.location) for r in adapt(pm).rules)
  report = critical_pairs(pm)
  out = [f"## {name}", "", f"{report.summary(name)}", "", *verdict_counts(report), ""]
  out += [f"Not analyzed: {rule}: {why}." for rule, why in report.skipped] + [""]
  out.append("| # | first rule | second rule | at | witness | results | graph_rewrite of the results | graph_rewrite of the witness: "
             "as written / first rule first / second rule first | verdict |")
  out.append("|---|---|---|---|---|---|---|---|---|")
  k = repeated = 0
  for p in report.pairs:
    if p.status == "joinable": continue
    ra, rb = (where(r) for r in p.rules)
    at = "root" if not p.position else ".".join(map(str, p.position))
    if (ra, rb, at) in shown:
      repeated += 1
      continue
    shown.add((ra, rb, at))
    k += 1
    if p.witness is None:
      out.append(f"| {k} | {ra} | {rb} | {at} | | | | | {p.status}: {cell(p.how, 60)} |")
      continue
    w = p.witness
    res = " ; ".join("-" if r is None else show(r, 80) for r in p.results)
    nfs = " ; ".join("-" if r is None else show(r, 80) for r in p.normal_forms)
    i, j = p.rule_indices
    gr = " / ".join((rewritten(w, pm), rewritten(w, moved_first(pm, i)), rewritten(w, moved_first(pm, j))))
    verdict = f"{p.verdict}: {p.verdict_detail}" if p.verdict else p.status
    if p.status == "error": verdict = f"error: {where(p.error_rule) if p.error_rule else ''} raised {p.error}"
    out.append(f"| {k} | {ra} | {rb} | {at} | {cell(show(w, 200))} | {cell(res)} | {cell(nfs)} | {cell(gr, 160)} | {cell(verdict, 130)} |")
  if repeated: out += ["", f"{repeated} more pairs that do not join or raised are those of the rule sets above (same rules, same position)."]
  return out + [""]


def main(names: list[str]) -> None:
  print("# Critical pairs of tinygrad 0.14's rule sets that do not join\n")
  print(f"Generated by `python explore/tinygrad_pairs_table.py {' '.join(names)}` (docs/tinygrad.md, section 6, says what they mean). "
        "Rules are `file:line` of their `UPat` in tinygrad 0.14; terms are uopc's one-line form of tinygrad's nodes "
        "(`a`, `b`, ... variables: `UOp.variable` in [0, 10] or [-5, 5]); `Invalid` is tinygrad's undefined value. "
        "A verdict is `syntactic` only where z3 proved the two results equal for every input within the variables' bounds "
        "(wherever both are defined), `semantic` with an input at which tinygrad's own evaluation gives two values, "
        "otherwise `no-difference-found` or `unknown`, with the reason.\n")
  shown: set[tuple[str, str, str]] = set()
  for name in names:   # symbolic_simple, symbolic and sym: each contains the one before
    print("\n".join(table(name, shown)))


if __name__ == "__main__":
  main(sys.argv[1:] or ["div_and_mod_symbolic"])
