"""``uopc/cli/commands/__init__.py``: the table of commands is what the parser is made of, its exit codes are the documented ones,
and a shared option is one declaration wherever it is used."""
import argparse
import os
import pathlib
import re
import subprocess
import sys

import pytest

from uopc.cli.main import build_parser
from uopc.cli.options import CLUSTER, COST, MAX_MEMORY, PARAM, PROGRAM, RULES, RULESET, SAMPLES, SEMANTICS
from uopc.cli.spec import Lazy
from uopc.cli.support import EXIT_CODES, EXIT_INTERNAL, EXIT_MEANINGS, RULES_HELP
from uopc.cli.commands import COMMANDS

ROOT = pathlib.Path(__file__).resolve().parents[1]


def parsers() -> dict[str, argparse.ArgumentParser]:
  """Every (sub)command's parser by its name (``"explore search"``)."""
  out, todo = {}, [("", build_parser())]
  while todo:
    name, p = todo.pop()
    out[name] = p
    todo.extend((f"{name} {n}".strip(), c) for a in p._actions if isinstance(a, argparse._SubParsersAction) for n, c in a.choices.items())
  return out


def table_rows(path: pathlib.Path) -> dict[str, str]:
  """The first column -> the second of the markdown table under ``## Exit codes`` (or the first table), bold removed."""
  text = path.read_text()
  if "## Exit codes" in text: text = text.split("## Exit codes", 1)[1]
  rows = {}
  for line in text.splitlines():
    if not line.startswith("|"):
      if rows: break
      continue
    cells = [c.strip().replace("**", "") for c in line.strip("|").split("|")]
    if re.fullmatch(r"[0-9, ]+", cells[0]): rows[cells[0]] = cells[1]
  return rows


def head(meaning: str) -> str:
  """What a meaning says before its parenthesis: ``"bad input (a file, ...)"`` -> ``"bad input"``."""
  return meaning.split(" (", 1)[0]


def test_the_failure_contract_documents_the_exit_codes_of_the_data():
  rows = table_rows(ROOT / "docs" / "failure-contract.md")
  assert sorted(int(c) for c in rows) == [c for c in sorted(EXIT_MEANINGS) if c <= 3]
  for code, text in rows.items(): assert text.startswith(head(EXIT_MEANINGS[int(code)])), (code, text)
  contract = (ROOT / "docs" / "failure-contract.md").read_text()
  assert f"exit code of {EXIT_INTERNAL}" in contract and "130 (SIGINT) or 143 (SIGTERM)" in contract


def test_the_readme_lists_the_same_exit_codes():
  codes = {int(c) for key in table_rows(ROOT / "README.md") for c in key.split(",")}
  assert codes == set(EXIT_MEANINGS) - {EXIT_INTERNAL}


def test_every_command_is_in_the_parser_with_its_exit_codes_and_the_epilog():
  by_name = parsers()
  assert {c.name for c in COMMANDS} == {n for n, p in by_name.items() if not p._subparsers} - {""}
  for cmd in COMMANDS:
    p = by_name[cmd.name]
    codes = [code for code, _ in cmd.exits]
    assert codes == sorted(codes) and {0, 2} <= set(codes) <= set(EXIT_MEANINGS), cmd.name
    help_text = " ".join(p.format_help().split())
    assert cmd.exit_text() in help_text and " ".join(EXIT_CODES.split()) in help_text, cmd.name
    assert isinstance(p.get_default("func"), Lazy) and p.get_default("func").target == cmd.target


def test_every_command_names_a_function_that_exists():
  for cmd in COMMANDS: assert callable(Lazy(cmd.target).resolve()), cmd.target


@pytest.mark.parametrize("shared", [PROGRAM, RULES, RULESET, PARAM, COST, CLUSTER, SEMANTICS, SAMPLES, MAX_MEMORY], ids=lambda o: o.flags[0])
def test_a_shared_option_is_one_declaration_wherever_it_is_used(shared):
  # (the same flag and help with another default is another option: check's --rules defaults to each graph's own)
  users = [(cmd.name, o) for cmd in COMMANDS for o in cmd.options if o.flags == shared.flags and o.kwargs.get("help") == shared.kwargs.get("help")
           and o.kwargs.get("default") == shared.kwargs.get("default")]
  assert len(users) >= 2 and all(o is shared for _, o in users), [n for n, o in users if o is not shared]


def test_rules_have_one_help_text_in_either_form():
  rules = [(cmd.name, o) for cmd in COMMANDS for o in cmd.options if o.flags in (("--rules",), ("rules",))]
  assert {o.kwargs["help"] for _, o in rules} == {RULES_HELP}
  assert {o.flags for _, o in rules} == {("--rules",), ("rules",)}
  assert {n for n, o in rules if o is RULESET} == {"check-rules", "explore pairs", "rules"}


def test_making_the_parser_imports_no_command_module_and_of_the_explorer_only_its_registry():
  """--rules' help names each IR's rule sets, read from the adapters' declarations: those and the protocol are imported, no
  IR's own module (no tinygrad, no PyTensor, not even uopc's IR or the registry), nothing above (no kanren) and no command."""
  code = ("import sys; from uopc.cli.main import build_parser; build_parser(); "
          "print(sorted(m for m in sys.modules if m.startswith(('uopc.backend', 'uopc.cli.commands.', 'uopc.relational',"
          " 'kanren', 'tinygrad', 'pytensor'))))")
  env = {**os.environ, "PYTHONPATH": str(ROOT)}
  out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, env=env, check=True)
  assert out.stdout.strip() == str(["uopc.relational", "uopc.relational.adapters", "uopc.relational.adapters.pytensor",
                                    "uopc.relational.adapters.tinygrad", "uopc.relational.ir", "uopc.relational.ir.discovery",
                                    "uopc.relational.ir.protocol"])


# each command's exit codes as its page says them: (page, where the paragraph starts, where it ends, the commands it is of)
DOC_EXITS = [
  ("search.md", "Exit codes: **0** found", "With `--all`", ["explore search"]),
  ("cli-explore.md", "**Exit codes**", "\n\n", ["explore reachable", "explore normal-forms"]),
  ("confluence.md", "`order`: 0", "`pairs`:", ["explore order"]),
  ("confluence.md", "`pairs`: 0", "Both:", ["explore pairs"]),
  ("c-backend.md", "- **Exit code**: 0", "\n- ", ["check-rules"]),
  ("rules.md", "Exit codes: 0", "\n\n", ["rules"]),
]


def doc_codes(text: str) -> set[int]:
  """The exit codes 0-3 a paragraph names (``**1**``, ``` `1` ```, or a bare ``1``), not counting 130/143."""
  return {int(c) for c in re.findall(r"(?<![0-9/])([0-3])(?![0-9/])", text.replace("130/143", ""))}


def test_doc_codes_reads_the_three_ways_pages_write_them():
  assert doc_codes("**0** found; `1` not; 3 a bound, 130/143 interrupted, 2 bad input, within 10,000 lookups") == {0, 1, 2, 3}


@pytest.mark.parametrize("page, start, end, names", DOC_EXITS, ids=[f"{d[0]}:{d[3][0]}" for d in DOC_EXITS])
def test_each_page_names_the_exit_codes_its_commands_return(page, start, end, names):
  text = (ROOT / "docs" / page).read_text()
  at = text.index(start)
  paragraph = text[at:text.index(end, at + len(start))]
  for name in names:
    cmd = next(c for c in COMMANDS if c.name == name)
    assert doc_codes(paragraph) == {code for code, _ in cmd.exits}, (page, name, paragraph)


# every command's arguments when the table replaced the register() functions: a command may gain options, never lose one
# (explore pairs' RULESET was stored as args.ruleset then, as args.rules now, as check-rules' is)
OPTIONS_THEN = {
  "run": "file --param --backend --max-steps --timeout --max-memory",
  "simplify": "file --rules --max-steps --timeout --max-memory --format --output",
  "trace": "file --rules --param --stats --max-steps --timeout --max-memory --format --output",
  "emit-c": "file --no-simplify --output",
  "check-rules": "rules --samples --inputs --seed --timeout --max-memory",
  "explore reachable": "file --rules --max-states --max-depth --timeout --max-memory --max-steps --format --output --dot-max-nodes "
                       "--dot-paths --dfs --semantics --cluster",
  "explore normal-forms": "file --rules --max-states --max-depth --timeout --max-memory --max-steps --format --output --dot-max-nodes "
                          "--dot-paths --no-reduce --semantics --samples --seed --cluster",
  "explore search": "file --rules --max-states --max-depth --timeout --max-memory --format --output --target --target-file --to --to-term "
                    "--all --cluster",
  "explore order": "file --rules --max-states --max-depth --timeout --max-memory --max-steps --format --output --no-reduce --permutations "
                   "--max-orders --bindings --seed --samples",
  "explore pairs": "rules --format --output --all --max-instances --max-states --max-steps --timeout --max-memory",
  "explore best": "file --rules --max-states --max-depth --timeout --max-memory --max-steps --format --output --cost",
  "explore view": "file --output",
  "saturate": "file --rules --cost --max-iterations --max-enodes --timeout --max-memory --max-steps --max-states --format --output",
}


def test_no_option_of_any_command_has_gone():
  by_name = parsers()
  for name, then in OPTIONS_THEN.items():
    now = [a.option_strings[-1] if a.option_strings else a.dest for a in by_name[name]._actions if not isinstance(a, argparse._HelpAction)]
    assert [f for f in then.split() if f not in now] == [], name
