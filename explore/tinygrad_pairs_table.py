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

from tinygrad.uop import symbolic as tsym
from tinygrad.uop.ops import PatternMatcher, graph_rewrite

from uopc import show
from uopc.relational import critical_pairs


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


def difference(p: Any) -> str:
  """What kind of difference a ``semantic`` pair's two values are (from its detail, ``... : X vs Y``): ``value`` (two
  numbers), ``nan`` (NaN on one side), ``zero sign`` (``-0.0`` and ``0.0``), ``type`` (the same number, two Python types:
  a rule changed the node's dtype, or the node's dtype is one ``exec_alu`` gives a value of another type)."""
  x, y = (p.verdict_detail or "").rsplit(": ", 1)[-1].split(" vs ", 1)
  try: fx, fy = float(x.strip("'")), float(y.strip("'"))
  except ValueError: return "value"
  if fx != fx or fy != fy: return "nan" if (fx != fx) != (fy != fy) else "value"
  if fx == fy and fx == 0 and x.startswith("-") != y.startswith("-") and "." in x and "." in y: return "zero sign"
  return "type" if fx == fy else "value"


def verdict_counts(report: Any) -> str:
  """The verdicts of a report's pairs that do not join, and the kinds of difference of the different ones."""
  pairs = [p for p in report.pairs if p.status == "not-joinable"]
  kinds = Counter(p.verdict or "unknown" for p in pairs)
  diffs = Counter(difference(p) for p in pairs if p.verdict == "semantic")
  words = ", ".join(f"{kinds[k]} {w}" for k, w in VERDICTS)
  of = ", ".join(f"{diffs[k]} {w}" for k, w in (("value", "in value"), ("nan", "NaN on one side"), ("zero sign", "in the sign of a zero"),
                                                ("type", "the same number of two types")))
  return f"Verdicts of the {len(pairs)} pairs that do not join: {words}; of the different ones, {of}."


def table(name: str, shown: set[tuple[str, str, str]]) -> list[str]:
  """The section of rule set ``name``: its summary, the rules not analyzed, and each pair that does not join or raised
  (a pair already in ``shown``, the earlier sets' rows by both rules and position, is counted, not repeated)."""
  pm = getattr(tsym, name)
  report = critical_pairs(pm)
  out = [f"## {name}", "", f"{report.summary(name)}", "", verdict_counts(report), ""]
  out += [f"Not analyzed: {rule}: {why}." for rule, why in report.skipped] + [""]
  out.append("| # | first rule | second rule | at | witness | results | graph_rewrite of the results | graph_rewrite of the witness: "
             "as written / first rule first / second rule first | verdict |")
  out.append("|---|---|---|---|---|---|---|---|---|")
  k = repeated = 0
  for p in report.pairs:
    if p.status == "joinable": continue
    ra, rb = (r.split(" ", 1)[1] for r in p.rules)
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
    if p.status == "error": verdict = f"error: {p.error_rule.split(' ', 1)[1] if p.error_rule else ''} raised {p.error}"
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
