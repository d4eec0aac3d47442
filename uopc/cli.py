"""The ``uopc`` command line: ``run``, ``simplify``, ``trace``, and the ``explore`` family.

Exit codes: 0 success, 1 the program failed (out-of-bounds index, did not evaluate,
rules loop), 2 bad input (unreadable file, parse or type error, bad flag), 3 a search
bound was hit before the work was complete. Errors are one line on stderr, never a
traceback.
"""
from __future__ import annotations

import argparse
import ast
import importlib
import sys
from typing import Any, Callable, Sequence

from uopc.evaluate import bind_params, run, to_python
from uopc.rewrite import RewriteLoopError, graph_rewrite
from uopc.rulesets import RuleSetError, resolve_rules
from uopc.term import show
from uopc.trace import TERM_LIMIT, StatsMatcher, TracingMatcher
from uopc.uir import UIRError, parse_uir, to_uir
from uopc.uop import UOp, UOpError, call_params

EXIT_OK, EXIT_FAILED, EXIT_BAD_INPUT, EXIT_BOUND = 0, 1, 2, 3

# Command groups that live outside the engine register themselves through these modules'
# ``register(subparsers)``; importing them is cheap (their heavy imports are deferred).
COMMAND_MODULES: list[str] = ["uopc.backend.cli", "explore.cli"]


class CLIError(Exception):
  """An error to report as one line and exit with ``code``."""
  def __init__(self, message: str, code: int = EXIT_BAD_INPUT):
    super().__init__(message)
    self.code = code


def load_program(path: str) -> UOp:
  """Parse a ``.uir`` file (``-`` is stdin); every failure becomes a ``CLIError``."""
  try:
    data = sys.stdin.buffer.read() if path == "-" else open(path, "rb").read()
  except OSError as e: raise CLIError(f"{path}: cannot read: {e.strerror or e}") from None
  try: return parse_uir(data, filename="<stdin>" if path == "-" else path)
  except UIRError as e: raise CLIError(str(e)) from None


def rules_arg(spec: str):
  """argparse type for ``--rules``."""
  try: return resolve_rules(spec)
  except RuleSetError as e: raise argparse.ArgumentTypeError(str(e)) from None


_NAMES = {"inf": float("inf"), "nan": float("nan"), "True": True, "False": False}


def _literal(node: ast.AST) -> Any:
  """A number, True/False, inf/nan, a sign, or a (nested) list of those."""
  if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)): return node.value
  if isinstance(node, ast.Name) and node.id in _NAMES: return _NAMES[node.id]
  if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
    v = _literal(node.operand)
    if isinstance(v, (int, float)) and not isinstance(v, bool): return -v if isinstance(node.op, ast.USub) else v
  if isinstance(node, (ast.List, ast.Tuple)): return [_literal(e) for e in node.elts]
  raise ValueError


def param_arg(text: str) -> tuple[int, Any]:
  """argparse type for ``--param SLOT=VALUE``: VALUE is a number, True/False, inf, nan or nested lists."""
  slot, eq, value = text.partition("=")
  if not eq or not slot.strip().isdigit(): raise argparse.ArgumentTypeError(f"expected SLOT=VALUE, got {text!r}")
  try: return int(slot), _literal(ast.parse(value.strip(), mode="eval").body)
  except (ValueError, SyntaxError, RecursionError, MemoryError):
    raise argparse.ArgumentTypeError(f"bad value {value!r} for slot {slot}: expected a number, True/False, inf, nan "
                                     "or a nested list of those") from None


def positive_int(text: str) -> int:
  """argparse type for a count that must be at least 1."""
  try: n = int(text)
  except ValueError: n = 0
  if n <= 0: raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
  return n


def bind_cli_params(prog: UOp, params: list[tuple[int, Any]], path: str) -> UOp:
  """Bind ``--param`` values to the program's free PARAMs; an unbound one is an error."""
  values = dict(params)
  free = {p.arg.slot: p for p in call_params(prog)}
  if missing := sorted(set(free) - set(values)):
    p = free[missing[0]]
    raise CLIError(f"{path}: PARAM slot {p.arg.slot} ({p.dtype.name}{list(p.shape) if p.shape else ''}) is not bound: "
                   f"pass --param {p.arg.slot}=VALUE")
  if extra := sorted(set(values) - set(free)): raise CLIError(f"{path}: the program has no PARAM slot {extra[0]}")
  try: return bind_params(prog, values)
  except (ValueError, UOpError) as e: raise CLIError(f"{path}: --param: {e}") from None


def max_steps_for(prog: UOp, requested: int | None) -> int:
  """``--max-steps``, or a default that grows with the program: a looping rule set fails fast."""
  return requested if requested is not None else 1_000_000 + 100 * len(prog.toposort())


def cmd_run(args: argparse.Namespace) -> int:
  if args.backend == "c":
    from uopc.backend.cli import cmd_run_c   # lazy: the engine never imports the backend
    return cmd_run_c(args)
  prog = bind_cli_params(load_program(args.file), args.param, args.file)
  try: value = to_python(run(prog, max_steps_for(prog, args.max_steps)))
  except (IndexError, ValueError, RewriteLoopError) as e: raise CLIError(f"{args.file}: {type(e).__name__}: {e}", EXIT_FAILED) from None
  print(repr(value))   # a Python literal: [11, 42, 93], -0.0, nan
  return EXIT_OK


def cmd_simplify(args: argparse.Namespace) -> int:
  prog = load_program(args.file)
  try: out = graph_rewrite(prog, args.rules, max_steps=max_steps_for(prog, args.max_steps))
  except (IndexError, RewriteLoopError) as e: raise CLIError(f"{args.file}: {type(e).__name__}: {e}", EXIT_FAILED) from None
  sys.stdout.write(to_uir(out))
  return EXIT_OK


def cmd_trace(args: argparse.Namespace) -> int:
  prog = load_program(args.file)
  if args.param: prog = bind_cli_params(prog, args.param, args.file)
  pm = StatsMatcher(args.rules) if args.stats else TracingMatcher(args.rules, out=sys.stdout)
  print(f"program: {show(prog, TERM_LIMIT)}")
  try: out = graph_rewrite(prog, pm, max_steps=max_steps_for(prog, args.max_steps))
  except (IndexError, RewriteLoopError) as e:
    if args.stats: print(pm.table())   # where a looping rewrite spent its rule lookups
    raise CLIError(f"{args.file}: {type(e).__name__}: {e}", EXIT_FAILED) from None
  print(f"result: {show(out, TERM_LIMIT)}")
  if args.stats: print(pm.table())
  return EXIT_OK


def add_max_steps(p: argparse.ArgumentParser) -> None:
  """The ``--max-steps`` option of every command that runs the canonical engine."""
  p.add_argument("--max-steps", type=int, default=None, metavar="N",
                 help="rule lookups before giving up on a looping rule set (default: 1,000,000 + 100 per node)")


def build_parser() -> argparse.ArgumentParser:
  parser = argparse.ArgumentParser(prog="uopc", description="A tinygrad-style UOp compiler with a relational rewrite explorer.")
  sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

  p = sub.add_parser("run", help="value of a closed program", description="Evaluate a program by rewriting and print its value.")
  p.add_argument("file", help=".uir program (- for stdin)")
  p.add_argument("--param", action="append", default=[], type=param_arg, metavar="SLOT=VALUE", help="bind a PARAM (repeatable)")
  p.add_argument("--backend", choices=("python", "c"), default="python",
                 help="python: evaluate by rewriting (default); c: compile the simplified program with the system C compiler and run it")
  add_max_steps(p)
  p.set_defaults(func=cmd_run)

  p = sub.add_parser("simplify", help="canonical normal form, as .uir", description="Rewrite a program to its canonical normal form.")
  p.add_argument("file", help=".uir program (- for stdin)")
  p.add_argument("--rules", type=rules_arg, default="symbolic", help="rule set: symbolic (default), fold, symbolic+evaluate, module:attr, file.py:attr")
  add_max_steps(p)
  p.set_defaults(func=cmd_simplify)

  p = sub.add_parser("trace", help="each rule firing of the canonical engine", description="Print every rule lookup of graph_rewrite.")
  p.add_argument("file", help=".uir program (- for stdin)")
  p.add_argument("--rules", type=rules_arg, default="symbolic", help="rule set (default: symbolic)")
  p.add_argument("--param", action="append", default=[], type=param_arg, metavar="SLOT=VALUE", help="bind a PARAM first")
  p.add_argument("--stats", action="store_true", help="per-rule tries/matches/fires/time instead of the trace")
  add_max_steps(p)
  p.set_defaults(func=cmd_trace)

  for module in COMMAND_MODULES: importlib.import_module(module).register(sub)
  return parser


def main(argv: Sequence[str] | None = None) -> int:
  """Entry point of the ``uopc`` console script."""
  args = build_parser().parse_args(argv)
  func: Callable[[argparse.Namespace], int] = args.func
  try: return func(args)
  except CLIError as e: return _fail(str(e), e.code)
  except KeyboardInterrupt: return _fail("uopc: interrupted", 130)
  except BrokenPipeError: return EXIT_OK
  except RecursionError: return _fail("uopc: internal error: recursion too deep (please report this)", 4)
  except Exception as e:   # never a traceback: a one-line report of the unexpected
    return _fail(f"uopc: internal error: {type(e).__name__}: {e}", 4)


def _fail(message: str, code: int) -> int:
  print(message, file=sys.stderr)
  return code
