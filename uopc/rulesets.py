"""Rule sets by name, as the command line's ``--rules`` takes them.

``tinygrad:NAME`` (``tinygrad:symbolic``, ``tinygrad:sym``, ``tinygrad:symbolic_simple``) and any ``module:attr``
naming a tinygrad ``PatternMatcher`` give tinygrad's rule set as it is, for the explorer's commands.

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

from uopc.evaluate import evaluate
from uopc.matcher import PatternMatcher, require_matcher
from uopc.rule_check import RuleError, RuleNameClash
from uopc.symbolic import fold, symbolic

NAMED: dict[str, PatternMatcher] = {"fold": fold, "symbolic": symbolic, "evaluate": evaluate}


class RuleSetError(ValueError):
  """A ``--rules`` value that names no rule set, or whose code fails to load."""


def resolve_rules(spec: str) -> PatternMatcher:
  """``symbolic``, ``fold``, ``evaluate``, ``module:attr``, ``file.py:attr``, or a sum of those (``symbolic+my_rules.py:rules``).

  A rules file is code: loading it runs it. One that raises or exits while it loads is a ``RuleSetError``.
  """
  parts = [p.strip() for p in spec.split("+")]
  if len(parts) == 1: return _resolve_one(parts[0])
  if (pm := _sums.get(spec)) is None:
    sets = [_resolve_one(p) for p in parts]
    if any(is_pytensor_rules(s) for s in sets):   # PyTensor's sum: its node rewriters, one list
      if not all(is_pytensor_rules(s) for s in sets): raise RuleSetError(f"{spec}: a sum of PyTensor and other rule sets")
      from uopc.relational.ir.pytensor import adapt
      return adapt([rw for s in sets for rw in s.rewriters], spec)  # type: ignore[attr-defined,return-value]  # PyTensorRules
    if any(is_tinygrad_matcher(s) for s in sets):   # tinygrad's sum: its own +, of tinygrad's rule sets only
      if not all(is_tinygrad_matcher(s) for s in sets):
        raise RuleSetError(f"{spec}: a sum of tinygrad and uopc rule sets (each rewrites only its own IR's nodes)")
      total = sets[0]
      for more in sets[1:]: total = total + more
      return total
    try: pm = _sums[spec] = PatternMatcher([r for s in sets for r in s.rules], name=spec)
    except RuleNameClash as e: raise RuleSetError(str(e)) from None   # symbolic+fold: fold's rule is symbolic's too
  return pm


# A sum is shared while something uses it (one matcher, one set of compiled rules), and
# dropped with its last user: a long-lived process may resolve any number of them.
_sums: weakref.WeakValueDictionary[str, PatternMatcher] = weakref.WeakValueDictionary()


def _resolve_one(spec: str) -> PatternMatcher:
  if ":" in spec:
    module, _, attr = spec.rpartition(":")
    if module == "tinygrad": module = "tinygrad.uop.symbolic"   # tinygrad:symbolic, tinygrad:sym, tinygrad:symbolic_simple
    if module == "pytensor": return _pytensor_named(attr)   # pytensor:canonicalize, pytensor:local_exp_log (docs/pytensor.md)
    mod = _load_file(module) if module.endswith(".py") else _import(module)
    if not hasattr(mod, attr): raise RuleSetError(f"{module} has no attribute {attr!r}")
    obj = getattr(mod, attr)
    if is_tinygrad_matcher(obj): return obj   # the explorer's commands take it as it is (uopc.relational.ir.tinygrad)
    if is_pytensor_rewriter(obj):   # PyTensor node rewriters, or a list of them: the explorer's commands take them as they are
      from uopc.relational.ir.pytensor import adapt
      return adapt(obj)  # type: ignore[return-value]  # another IR's rule protocol, as tinygrad's matcher is
    try: return require_matcher(obj, spec)
    except TypeError as e: raise RuleSetError(str(e)) from None
  if spec not in NAMED:
    raise RuleSetError(f"unknown rule set {spec!r}: expected one of {', '.join(NAMED)}, a sum like symbolic+evaluate, "
                       "module:attr or file.py:attr")
  return NAMED[spec]


def is_pytensor_rewriter(obj: object) -> bool:
  """True for a PyTensor rewriter or a non-empty list of them (told by their types' modules: nothing here imports PyTensor)."""
  items = obj if isinstance(obj, (list, tuple)) and obj else [obj]
  return all(type(o).__module__.startswith("pytensor.graph.rewriting") for o in items)


def is_pytensor_rules(obj: object) -> bool:
  """True for PyTensor rewriters as the explorer's rule protocol (``uopc.relational.ir.pytensor.PyTensorRules``)."""
  return type(obj).__module__ == "uopc.relational.ir.pytensor" and type(obj).__qualname__ == "PyTensorRules"


def _pytensor_named(name: str) -> PatternMatcher:
  try:
    from uopc.relational.ir.pytensor import named_rules
    return named_rules(name)  # type: ignore[return-value]  # another IR's rule protocol
  except ModuleNotFoundError as e:
    if e.name == "pytensor": raise RuleSetError(f"pytensor:{name}: PyTensor is not installed (pip install -e '.[pytensor]')") from None
    raise
  except KeyError as e: raise RuleSetError(str(e.args[0])) from None


def is_tinygrad_matcher(obj: object) -> bool:
  """True for a tinygrad ``PatternMatcher`` (told by its type's name: nothing here imports tinygrad)."""
  t = type(obj)
  return t.__module__ == "tinygrad.uop.ops" and t.__qualname__ == "PatternMatcher"


def _import(module: str) -> ModuleType:
  try: return importlib.import_module(module)
  except ModuleNotFoundError as e:
    if e.name == "tinygrad" and module.startswith("tinygrad"):
      raise RuleSetError(f"{module}: tinygrad is not installed (pip install -e '.[tinygrad]')") from None
    if e.name is not None and module.startswith(e.name): raise RuleSetError(f"no module named {module!r}") from None
    raise _bad_code(module, e) from None
  except (Exception, SystemExit) as e: raise _bad_code(module, e) from None


def _load_file(path: str) -> ModuleType:
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
