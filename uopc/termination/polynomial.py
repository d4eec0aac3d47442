"""Polynomials over the naturals with integer coefficients, and the test termination provers use to compare them.

A polynomial is a dict from monomials (a sorted tuple of (variable, exponent)) to coefficients. ``p`` is at least
``q`` for every value of the variables >= 0 when every coefficient of ``p - q`` is >= 0 (*absolute positiveness*: a
sufficient test, no solver needed); ``p`` is above ``q`` when ``p - q - 1`` passes it. Variables over values >= 1 are
written ``x + 1`` with ``x >= 0`` (``Polynomial.variable(name) + 1``), so that the test sees that
``2*x*(a + 1) > 2*x*a + 1``: its difference, ``2x - 1``, has a negative coefficient over ``x >= 1``, but not, as
``2y + 1``, over ``y = x - 1 >= 0``.

>>> x, y = Polynomial.variable("x") + 1, Polynomial.variable("y") + 1
>>> p, q = 2 * x * (y + 1), 2 * x * y + 1
>>> str(p - q), above(p, q), above(q, p), at_least(p, p) and not above(p, p)
('2*x + 1', True, False, True)
"""
from __future__ import annotations

from typing import Union

__all__ = ["Polynomial", "above", "at_least"]

Monomial = tuple[tuple[str, int], ...]   # (variable, exponent) pairs sorted by variable; () is the constant term


def _times(a: Monomial, b: Monomial) -> Monomial:
  exps = dict(a)
  for v, e in b: exps[v] = exps.get(v, 0) + e
  return tuple(sorted(exps.items()))


class Polynomial:
  """An integer polynomial (immutable by convention): ``+``, ``-`` and ``*`` with polynomials and ints."""
  __slots__ = ("terms",)

  def __init__(self, terms: dict[Monomial, int]):
    self.terms = {m: c for m, c in terms.items() if c}

  @staticmethod
  def variable(name: str) -> Polynomial: return Polynomial({((name, 1),): 1})

  @staticmethod
  def of(v: Number) -> Polynomial: return v if isinstance(v, Polynomial) else Polynomial({(): v})

  def __add__(self, other: Number) -> Polynomial:
    out = dict(self.terms)
    for m, c in Polynomial.of(other).terms.items(): out[m] = out.get(m, 0) + c
    return Polynomial(out)

  __radd__ = __add__

  def __neg__(self) -> Polynomial: return Polynomial({m: -c for m, c in self.terms.items()})
  def __sub__(self, other: Number) -> Polynomial: return self + -Polynomial.of(other)
  def __rsub__(self, other: Number) -> Polynomial: return Polynomial.of(other) - self

  def __mul__(self, other: Number) -> Polynomial:
    out: dict[Monomial, int] = {}
    for m, c in self.terms.items():
      for n, d in Polynomial.of(other).terms.items():
        k = _times(m, n)
        out[k] = out.get(k, 0) + c * d
    return Polynomial(out)

  __rmul__ = __mul__

  def __eq__(self, other: object) -> bool:
    return isinstance(other, (Polynomial, int)) and self.terms == Polynomial.of(other).terms

  def __hash__(self) -> int: return hash(frozenset(self.terms.items()))

  def nonnegative(self) -> bool:
    """Every coefficient >= 0: the polynomial is >= 0 for every value of its variables >= 0."""
    return all(c >= 0 for c in self.terms.values())

  def __str__(self) -> str:
    def monomial(m: Monomial, c: int) -> str:
      factors = [v if e == 1 else f"{v}^{e}" for v, e in m]
      return "*".join(([str(c)] if c != 1 or not m else []) + factors)
    ordered = sorted(self.terms.items(), key=lambda mc: (-sum(e for _, e in mc[0]), mc[0]))
    return " + ".join(monomial(m, c) for m, c in ordered).replace("+ -", "- ") or "0"

  __repr__ = __str__


Number = Union[Polynomial, int]


def at_least(p: Number, q: Number) -> bool:
  """``p >= q`` for every value of the variables (>= 0), by absolute positiveness (module doc)."""
  return Polynomial.of(p - q).nonnegative()


def above(p: Number, q: Number) -> bool:
  """``p > q`` for every value of the variables (>= 0): ``p - q - 1`` is absolutely positive."""
  return Polynomial.of(p - q - 1).nonnegative()
