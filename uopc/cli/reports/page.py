"""``--format html``: one self-contained page that renders the JSON a command prints.

The page embeds the command's ``--format json`` dict unchanged (so anything the page
shows, the JSON holds, and new JSON keys reach the page) plus the viewer, a small
hand-written script and stylesheet shipped as package data (``uopc/cli/reports/static/``). It
loads nothing at view time: it works offline, from a file. Every command with
``--format html`` writes its page here: the canonical engine's (``simplify``, ``trace``,
``saturate``) and the explorer's (``uopc.cli.reports.html.emit``).

>>> text = page({"program": "add(p0, </script>)"}, "trace", "t")
>>> "</script>)" in text, text.count("<script")
(False, 2)
"""
from __future__ import annotations

import html
import json
import sys
from importlib import resources
from typing import Any

from uopc.cli.support import shown_name, write_file, write_out
from uopc.term import RESERVED_NAMES   # the words a let name is not: the viewer names shared nodes as show does

KINDS = ("reachable", "normal-forms", "order", "search", "pairs", "trace", "saturate", "best", "check")


def _asset(name: str) -> str:
  return resources.files("uopc.cli.reports").joinpath("static").joinpath(name).read_text(encoding="utf-8")


def embedded_json(data: dict[str, Any]) -> str:
  """JSON that can sit inside ``<script>``: every ``<`` escaped, so no term can close the element."""
  return json.dumps(data, ensure_ascii=False, separators=(",", ":")).replace("<", "\\u003c")


CHUNK_STATES = 20_000          # an exploration with more states than this is cut into chunks the page parses when needed
WARN_BYTES = 100_000_000       # a page bigger than this is written with a warning: browsers take long to open it


def chunked(data: dict[str, Any], size: int) -> tuple[dict[str, Any], list[dict[str, Any]]]:
  """A format-2 exploration too big to parse at once: the dict without its states and edges, with a ``chunks`` summary (the
  counts, the depth histogram, the rules, a path to the canonical state), and the chunks: ``states`` with ids in
  [k * size, (k + 1) * size) and the ``edges`` from them. The chunks' states and edges, concatenated, are the dict's.

  >>> main, parts = chunked({"format": 2, "states": [{"id": i, "depth": i, "parent": i - 1 if i else None, "rule": "r" if i else None,
  ...                        "normal": i == 2} for i in range(3)], "edges": [{"from": 0, "to": 1}, {"from": 1, "to": 2}],
  ...                        "canonical_state": 2}, 2)
  >>> [len(p["states"]) for p in parts], [len(p["edges"]) for p in parts], main["chunks"]["canonical_path"]
  ([2, 1], [2, 0], [0, 1, 2])
  """
  states, edges = data["states"], data["edges"]
  parts = [{"states": states[k:k + size], "edges": []} for k in range(0, len(states), size)]
  targets: dict[int, set[int]] = {}
  for e in edges:
    parts[e["from"] // size]["edges"].append(e)
    targets.setdefault(e["from"], set()).add(e["to"])
  depths: dict[int, list[int]] = {}   # depth -> [states, normal forms, forks, first id, last id]
  for s in states:
    row = depths.setdefault(s["depth"], [0, 0, 0, s["id"], s["id"]])
    row[0] += 1
    row[1] += bool(s["normal"])
    row[2] += len(targets.get(s["id"], ())) > 1
    row[4] = s["id"]
  path, at = [], data.get("canonical_state")
  if at is not None and not 0 <= at < len(states): at = None   # past a cut report's states: no path to draw
  while at is not None:
    path.append(at)
    at = states[at]["parent"]
  main = {k: v for k, v in data.items() if k not in ("states", "edges")}
  main["chunks"] = {"size": size, "count": len(parts), "states": len(states), "edges": len(edges), "canonical_path": path[::-1],
                    "depths": [[d, *depths[d]] for d in sorted(depths)], "rules": sorted({s["rule"] for s in states if s["rule"]})}
  return main, parts


def page(data: dict[str, Any], kind: str, title: str, chunk_states: int = CHUNK_STATES) -> str:
  """The page for one command's JSON; ``kind`` (one of ``KINDS``) picks the view. An exploration of more than
  ``chunk_states`` states is embedded in chunks (``chunked``): the page opens on its summary and parses a chunk when needed."""
  if kind not in KINDS: raise ValueError(f"unknown page kind {kind!r}")
  chunks: list[dict[str, Any]] = []
  if data.get("format") == 2 and isinstance(data.get("states"), list) and len(data["states"]) > chunk_states:
    data, chunks = chunked(data, chunk_states)
  parts = "".join(f'<script type="application/json" id="uopc-chunk-{k}">{embedded_json(c)}</script>\n' for k, c in enumerate(chunks))
  return f"""{page_top(kind, title)}<script type="application/json" id="uopc-data">{embedded_json(data)}</script>
{parts}{page_tail()}"""


def page_top(kind: str, title: str) -> str:
  """The page up to its data: the head, the stylesheet, the elements the viewer draws in."""
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
"""


def page_tail() -> str:
  """The page after its data: the viewer, which reads the data's elements by id once the page is there."""
  return f"""<script>
{_asset("viewer.js")}</script>
</body>
</html>
"""


def write_page(path: str | None, data: dict[str, Any], kind: str, title: str) -> None:
  """The page to ``path`` (whole or not at all), or to stdout when ``path`` is None; a warning on stderr past ``WARN_BYTES``."""
  text = page(data, kind, shown_name(title))   # the title names the input file: its name may not be UTF-8
  if len(text) > WARN_BYTES:   # characters: the terms are ASCII but for names, so about the bytes
    print(f"uopc: warning: the page is {len(text) / 1e6:.0f} MB: a browser takes long to open it (--max-states keeps it smaller)",
          file=sys.stderr)
  write_text(path, text)


def write_text(path: str | None, text: str) -> None:
  """``text`` to ``path`` (whole or not at all), or to stdout when ``path`` is None."""
  if path is None: write_out(text)
  else: write_file(path, text)
