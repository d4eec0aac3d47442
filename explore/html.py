"""``--format html``: one self-contained page that renders the JSON a command prints.

The page embeds the command's ``--format json`` dict unchanged (so anything the page
shows, the JSON holds, and new JSON keys reach the page) plus the viewer, a small
hand-written script and stylesheet shipped as package data (``explore/static/``). It
loads nothing at view time: it works offline, from a file.

>>> text = page({"program": "add(p0, </script>)"}, "trace", "t")
>>> "</script>)" in text, text.count("<script")
(False, 2)
"""
from __future__ import annotations

import html
import json
from importlib import resources
from typing import Any

from uopc.term import RESERVED_NAMES   # the words a let name is not: the viewer names shared nodes as show does

KINDS = ("reachable", "normal-forms", "order", "search", "pairs", "trace", "saturate", "best")


def _asset(name: str) -> str:
  # by its installed name: `explore` is importable only from the repository's root
  return resources.files("uopc.explore").joinpath("static").joinpath(name).read_text(encoding="utf-8")


def embedded_json(data: dict[str, Any]) -> str:
  """JSON that can sit inside ``<script>``: every ``<`` escaped, so no term can close the element."""
  return json.dumps(data, ensure_ascii=False, separators=(",", ":")).replace("<", "\\u003c")


def page(data: dict[str, Any], kind: str, title: str) -> str:
  """The page for one command's JSON; ``kind`` (one of ``KINDS``) picks the view."""
  if kind not in KINDS: raise ValueError(f"unknown page kind {kind!r}")
  return f"""<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{html.escape(title)}</title>
<style>
{_asset("viewer.css")}</style>
</head>
<body data-kind="{kind}" data-reserved="{" ".join(sorted(RESERVED_NAMES))}">
<header><h1>{html.escape(title)}</h1><div class="summary" id="summary"></div></header>
<noscript>This page draws the embedded JSON with JavaScript; the data is in the element with id uopc-data.</noscript>
<main><div id="overview"></div><div id="inspector"></div></main>
<script type="application/json" id="uopc-data">{embedded_json(data)}</script>
<script>
{_asset("viewer.js")}</script>
</body>
</html>
"""


def emit(args: Any, data: dict[str, Any], kind: str) -> None:
  """A command's ``--format json`` (the dict) or ``--format html`` (its page, titled by the command) to ``-o FILE``, else stdout."""
  if args.format == "json":
    from uopc.explore.report import json_text
    write_text(getattr(args, "output", None), json_text(data) + "\n")
    return
  source = getattr(args, "file", None) or getattr(getattr(args, "ruleset", None), "spec", "")
  write_page(getattr(args, "output", None), data, kind, f"uopc {kind}: {source}")


def register(esub: Any) -> None:
  """Add ``view`` (a saved ``--format json`` output as a page) to the ``uopc explore`` subcommands."""
  p = esub.add_parser("view", help="the page of a saved --format json output",
                      description="Write the --format html page of a saved --format json output of an explorer command "
                                  "(reachable, normal-forms, order, search, pairs, best), of saturate or of trace/simplify. Exit codes: 0 "
                                  "written, 2 bad input.")
  p.add_argument("file", help="the saved JSON")
  p.add_argument("-o", "--output", metavar="FILE", help="write the page to FILE (default stdout)")
  p.set_defaults(func=cmd_view)


def cmd_view(args: Any) -> int:
  from uopc.cli_support import EXIT_OK, CLIError
  from uopc.relational.space.saved import LoadError, load
  try: saved = load(args.file)
  except LoadError as e: raise CLIError(str(e)) from None
  write_page(args.output, saved.data, saved.kind, f"uopc {saved.kind}: {args.file}")
  return EXIT_OK


def write_page(path: str | None, data: dict[str, Any], kind: str, title: str) -> None:
  """The page to ``path`` (whole or not at all), or to stdout when ``path`` is None."""
  from uopc.cli_support import shown_name   # the title names the input file: its name may not be UTF-8
  write_text(path, page(data, kind, shown_name(title)))


def write_text(path: str | None, text: str) -> None:
  """``text`` to ``path`` (whole or not at all), or to stdout when ``path`` is None."""
  from uopc.cli_support import write_file, write_out
  if path is None: write_out(text)
  else: write_file(path, text)
