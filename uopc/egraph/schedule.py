"""The backoff scheduler (egg's ``BackoffScheduler``): a rule that matches too much sits out a while.

Commutativity and associativity match more every iteration. A rule whose matches in
one iteration pass its limit (``match_limit``, doubled each time it was banned) is
banned, its matches dropped, for ``ban_length`` iterations (doubled each time too),
so the other rules catch up. When nothing else changes, the bans are lifted early.

>>> s = BackoffScheduler(match_limit=2, ban_length=1)
>>> s.admit(0, iteration=0, matches=3), s.can_run(0, 1), s.can_run(0, 3)
(False, False, True)
>>> s.admit(0, iteration=3, matches=3)   # the limit doubled: 4
True
"""
from __future__ import annotations


class BackoffScheduler:
  """Per rule: how often it was banned, and until which iteration."""

  def __init__(self, match_limit: int = 1000, ban_length: int = 5):
    self.match_limit, self.ban_length = match_limit, ban_length
    self.times_banned: dict[int, int] = {}
    self.banned_until: dict[int, int] = {}

  def can_run(self, rule: int, iteration: int) -> bool:
    """Whether rule ``rule`` runs in ``iteration``."""
    return iteration >= self.banned_until.get(rule, 0)

  def admit(self, rule: int, iteration: int, matches: int) -> bool:
    """Whether ``matches`` matches of ``rule`` are applied; if not, the rule is banned."""
    n = self.times_banned.get(rule, 0)
    if matches <= self.match_limit << n: return True
    self.times_banned[rule] = n + 1
    self.banned_until[rule] = iteration + 1 + (self.ban_length << n)
    return False

  def any_banned(self, iteration: int) -> bool:
    """Whether some rule sits out the next iteration."""
    return any(until > iteration + 1 for until in self.banned_until.values())

  def lift_bans(self) -> None:
    """Let every rule run again (nothing else changed)."""
    self.banned_until.clear()
