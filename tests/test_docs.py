"""Every ```console block in README.md and docs/ is a real transcript: each ``$ `` command runs and prints what is shown.

Inside a block, ``$ cat FILE`` followed by lines *makes* FILE (the page shows a file, the test writes it),
``$ uopc ...`` runs in this process, ``; echo $?`` (or a separate ``$ echo $?``) shows the exit code, and
any other command runs in bash. A page's blocks run in order in one fresh folder (a later block may use a
file an earlier one made), in which ``examples/`` and ``explore/`` are the project's.
In expected output, a line ``...`` stands for any number of lines and ``…`` inside a line for any text;
a time in seconds (``0.02 s``) matches any other. Synopses that are not transcripts are fenced as ```text.
"""
from __future__ import annotations

import os
import pathlib
import re
import shlex
import subprocess
import sys

import pytest

from uopc.cli.main import main

ROOT = pathlib.Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
SET_UP = ("make ",)   # the README's set-up commands: they are what runs this suite


def console_blocks(text: str) -> list[list[tuple[str, list[str]]]]:
  """Each ```console block as ``[(command, expected output lines), ...]``."""
  blocks = []
  for body in re.findall(r"^```console\n(.*?)^```", text, re.S | re.M):
    steps: list[tuple[str, list[str]]] = []
    for line in body.splitlines():
      if line.startswith("$ "): steps.append((line[2:], []))
      elif steps: steps[-1][1].append(line)
    blocks.append(steps)
  return blocks


def matches(expected: list[str], actual: str) -> bool:
  """Whether ``actual`` has the ``expected`` lines: ``...`` skips lines, ``…`` inside a line any text."""
  def line(text: str) -> str: return "[^\n]*".join(re.escape(part) for part in text.rstrip().split("…")) + "\n"
  expected = [_TIME.sub("0.00 s", l) for l in expected]   # timings differ from run to run and machine to machine
  pattern = "".join("(?:[^\n]*\n)*?" if l.strip() == "..." else line(l) for l in expected)
  return re.fullmatch(pattern, "".join(_TIME.sub("0.00 s", l).rstrip() + "\n" for l in actual.splitlines())) is not None


_TIME = re.compile(r"\b\d+\.\d+ s\b")


def run_steps(steps: list[tuple[str, list[str]]], folder: pathlib.Path, capsys) -> None:
  env = {**os.environ, "PATH": f"{pathlib.Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
  code = 0
  for command, expected in steps:
    echo = command.endswith("; echo $?")
    command = command.removesuffix("; echo $?")
    if command.startswith("cat ") and expected:
      (folder / command[4:].strip()).write_text("\n".join(expected) + "\n")
      continue
    if command == "echo $?": out = f"{code}\n"
    elif command.startswith("uopc "):
      cwd, path = os.getcwd(), os.environ.get("PATH", "")
      os.chdir(folder)
      os.environ["PATH"] = env["PATH"]   # a command uopc runs (uopc capture -- python ...) finds this Python first, as bash's do
      try: code = main(shlex.split(command, comments=True)[1:])
      except SystemExit as e: code = e.code if isinstance(e.code, int) else 1
      finally:
        os.chdir(cwd)
        os.environ["PATH"] = path
      captured = capsys.readouterr()
      out = captured.out + captured.err
    else:
      proc = subprocess.run(["bash", "-c", command], cwd=folder, env=env, capture_output=True, text=True, timeout=120)
      code, out = proc.returncode, proc.stdout + proc.stderr
    if echo: out += f"{code}\n"
    assert matches(expected, out), f"$ {command}\n--- documented\n" + "\n".join(expected) + f"\n--- real\n{out}"


TRANSCRIPTS = {page.name: [step for block in console_blocks(page.read_text()) for step in block if not step[0].startswith(SET_UP)]
               for page in PAGES}
TRANSCRIPTS = {name: steps for name, steps in TRANSCRIPTS.items() if steps}


def test_every_page_with_commands_has_checked_transcripts():
  assert {"guide.md", "cli-explore.md", "confluence.md", "search.md", "c-backend.md"} <= set(TRANSCRIPTS)


@pytest.mark.parametrize("page", sorted(TRANSCRIPTS))
def test_console_transcripts(page, tmp_path, capsys):
  for folder in ("examples", "explore"): (tmp_path / folder).symlink_to(ROOT / folder)   # the input files and the explorations
  run_steps(TRANSCRIPTS[page], tmp_path, capsys)


def test_the_checker_rejects_wrong_output():
  assert matches(["a", "...", "z (… s)"], "a\nb\nc\nz (1.5 s)\n")
  assert not matches(["a", "b"], "a\nc\n") and not matches(["a"], "a\nb\n")
  assert matches(["done (0.00 s)"], "done (12.34 s)\n") and not matches(["done (0.00 s)"], "done (12.34 ms)\n")
