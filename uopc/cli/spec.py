"""The command line as data: an ``Option`` is one argparse argument, a ``Command`` one command
(its name, the function it runs, its help, its options, what each of its exit codes means);
``add_command`` makes a command's parser from its spec. The table of every command is
``uopc.cli.commands.COMMANDS``, the options shared between commands ``uopc.cli.options``.

A command's function is named by ``"module:function"`` and imported only when the command
runs, so ``uopc --help`` and ``uopc run`` import no other command's module.

>>> import argparse
>>> parser = argparse.ArgumentParser(prog="uopc")
>>> sub = parser.add_subparsers()
>>> hello = Command("hello", "builtins:print", "say hello", "Say hello.", (option("--loud", action="store_true", help="louder"),),
...                 ((0, "said"), (2, "bad input")))
>>> p = add_command(sub, hello)
>>> p.description
'Say hello. Exit codes: 0 said, 2 bad input.'
>>> parser.parse_args(["hello", "--loud"]).loud
True
"""
from __future__ import annotations

import argparse
import importlib
from typing import Any, Callable, NamedTuple


class Option(NamedTuple):
  """One argument: its flags (``("--rules",)``; a positional's name: ``("file",)``) and ``add_argument``'s keywords.
  ``group`` names a required mutually exclusive group the option belongs to (``explore search``'s ``--target``, ``--to``, ...)."""
  flags: tuple[str, ...]
  kwargs: dict[str, Any]
  group: str | None = None

  def add(self, p: Any) -> None:
    p.add_argument(*self.flags, **self.kwargs)


def option(*flags: str, group: str | None = None, **kwargs: Any) -> Option:
  """An ``Option``, written as ``add_argument`` is called.

  >>> option("--seed", type=int, default=0).flags
  ('--seed',)
  """
  return Option(flags, kwargs, group)


class Command(NamedTuple):
  """One command: ``name`` (``"run"``, or ``"explore search"`` under a group), ``target`` (``"module:function"``, the function
  called with the parsed arguments, returning the exit code), its one-line ``help`` and its ``description``, its ``options``
  in order, and ``exits``: each exit code it returns with what it means for this command (``uopc.cli.support.EXIT_MEANINGS``
  says what they mean for every command)."""
  name: str
  target: str
  help: str
  description: str
  options: tuple[Option, ...]
  exits: tuple[tuple[int, str], ...]

  def exit_text(self) -> str:
    """The exit codes as the command's ``--help`` says them."""
    return "Exit codes: " + ", ".join(f"{code} {meaning}" for code, meaning in self.exits) + "."


class Lazy:
  """The function ``"module:function"``, imported at its first call (argparse's ``func`` default of a command)."""
  def __init__(self, target: str):
    self.target = target

  def resolve(self) -> Callable[[argparse.Namespace], int]:
    module, _, name = self.target.partition(":")
    func: Callable[[argparse.Namespace], int] = getattr(importlib.import_module(module), name)
    return func

  def __call__(self, args: argparse.Namespace) -> int:
    return self.resolve()(args)

  def __repr__(self) -> str:
    return f"Lazy({self.target!r})"


def add_command(sub: Any, cmd: Command) -> argparse.ArgumentParser:
  """The parser of ``cmd`` under the subparsers ``sub``: its options in order, its exit codes after its description."""
  p: argparse.ArgumentParser = sub.add_parser(cmd.name.rpartition(" ")[2], help=cmd.help, description=f"{cmd.description} {cmd.exit_text()}")
  groups: dict[str, Any] = {}
  for opt in cmd.options:
    if opt.group is None: opt.add(p)
    else: opt.add(groups.get(opt.group) or groups.setdefault(opt.group, p.add_mutually_exclusive_group(required=True)))
  p.set_defaults(func=Lazy(cmd.target))
  return p
