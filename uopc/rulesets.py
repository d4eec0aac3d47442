"""uopc's rule sets by name, as the command line's ``--rules`` takes them: a name, ``module:attr``, ``file.py:attr``, or a
sum of those. Other IRs' rule sets (``tinygrad:sym``, a PyTensor rewriter) are the explorer's registry's to name
(``uopc.relational.ir.registry.resolve_rules``); here, an object that is no ``PatternMatcher`` is a ``RuleSetError``.

>>> len(resolve_rules("symbolic+evaluate").rules)
44
>>> resolve_rules("uopc.symbolic:fold") is resolve_rules("fold")
True

A rule's name is unique in a sum as in one rule set: ``symbolic`` holds ``fold``'s rule, so their sum lists it twice.

>>> resolve_rules("symbolic+fold")
Traceback (most recent call last):
  ...
uopc.rulesets.RuleSetError: rule set symbolic+fold: two rules named fold-const: fold-const (symbolic.py:...) and ... (the same rule, listed twice)
"""
from __future__ import annotations

import importlib
import importlib.util
import os
import sys
import weakref
from types import ModuleType
from typing import Mapping, Sequence

from uopc.evaluate import evaluate
from uopc.matcher import PatternMatcher, require_matcher
from uopc.rule_check import RuleError, RuleNameClash
from uopc.symbolic import fold, symbolic

NAMED: dict[str, PatternMatcher] = {"fold": fold, "symbolic": symbolic, "evaluate": evaluate}


class RuleSetError(ValueError):
  """A ``--rules`` value that names no rule set, or whose code fails to load."""


def resolve_rules(spec: str, obj: object = None) -> PatternMatcher:
  """``symbolic``, ``fold``, ``evaluate``, ``module:attr``, ``file.py:attr``, or a sum of those (``symbolic+my_rules.py:rules``);
  ``obj``, where given, is what ``spec`` (one ``module:attr``) already named (``rule_object``).

  A rules file is code: loading it runs it. One that raises or exits while it loads is a ``RuleSetError``.
  """
  parts = [p.strip() for p in spec.split("+")]
  if len(parts) > 1: return add_rules(spec, [resolve_rules(p) for p in parts])
  if ":" in spec:
    try: return require_matcher(rule_object(spec) if obj is None else obj, spec)
    except TypeError as e: raise RuleSetError(str(e)) from None
  if spec not in NAMED:
    raise RuleSetError(f"unknown rule set {spec!r}: expected one of {', '.join(NAMED)}, a sum like symbolic+evaluate, "
                       "module:attr or file.py:attr")
  return NAMED[spec]


def add_rules(spec: str, sets: Sequence[PatternMatcher]) -> PatternMatcher:
  """The sum of rule sets ``sets`` (``spec``, ``a+b``), one matcher shared while something uses it."""
  if (pm := _sums.get(spec)) is None:
    try: pm = _sums[spec] = PatternMatcher([r for s in sets for r in s.rules], name=spec)
    except RuleNameClash as e: raise RuleSetError(str(e)) from None   # symbolic+fold: fold's rule is symbolic's too
  return pm


# A sum is shared while something uses it (one matcher, one set of compiled rules), and
# dropped with its last user: a long-lived process may resolve any number of them.
_sums: weakref.WeakValueDictionary[str, PatternMatcher] = weakref.WeakValueDictionary()


def rule_object(spec: str, installs: Mapping[str, str] | None = None) -> object:
  """What ``module:attr`` or ``file.py:attr`` names, as it is; ``installs`` says how to install a missing top-level
  module (``{"tinygrad": "pip install -e '.[tinygrad]'"}``)."""
  module, _, attr = spec.rpartition(":")
  mod = load_file(module) if module.endswith(".py") else _import(module, installs or {})
  if not hasattr(mod, attr): raise RuleSetError(f"{module} has no attribute {attr!r}")
  return getattr(mod, attr)


def _import(module: str, installs: Mapping[str, str]) -> ModuleType:
  try: return importlib.import_module(module)
  except ModuleNotFoundError as e:
    if e.name is not None and module.startswith(e.name):
      if e.name in installs: raise RuleSetError(f"{module}: {e.name} is not installed ({installs[e.name]})") from None
      raise RuleSetError(f"no module named {module!r}") from None
    raise _bad_code(module, e) from None
  except (Exception, SystemExit) as e: raise _bad_code(module, e) from None


def load_file(path: str) -> ModuleType:
  """The module of a rules file, run once under a name of its own."""
  if not os.path.isfile(path): raise RuleSetError(f"no file {path}")
  name = "uopc_rules." + os.path.splitext(os.path.basename(path))[0]   # rules are named after the file
  spec = importlib.util.spec_from_file_location(name, path)
  if spec is None or spec.loader is None: raise RuleSetError(f"{path}: not a Python file")
  module = importlib.util.module_from_spec(spec)
  sys.modules[name] = module   # the rules' module is importable by name while it runs (dataclasses, pickling)
  try: spec.loader.exec_module(module)
  except (Exception, SystemExit) as e:   # SystemExit too: a rules file does not decide uopc's exit code
    del sys.modules[name]
    raise _bad_code(path, e) from None
  return module


def _bad_code(where: str, e: BaseException) -> RuleSetError:
  """``file:line: bad rules file: it raised ...``, at the deepest line of the rules' own code (or the file)."""
  site = where
  tb = e.__traceback__
  while tb is not None:   # the innermost frame in the rules file itself
    if os.path.abspath(tb.tb_frame.f_code.co_filename) == os.path.abspath(where): site = f"{where}:{tb.tb_lineno}"
    tb = tb.tb_next
  if isinstance(e, SyntaxError) and e.lineno: site = f"{where}:{e.lineno}"
  if isinstance(e, RuleError): return RuleSetError(f"{site}: {e}")   # a rule it makes is bad: it names the rule
  what = f"exited (sys.exit({e.code!r}))" if isinstance(e, SystemExit) else f"raised {type(e).__name__}: {e}"
  return RuleSetError(f"{site}: bad rules file: loading it {what}")
