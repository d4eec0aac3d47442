"""The explorer's pages: ``emit`` (a command's ``--format json`` or ``--format html``) and ``uopc explore view``.

The page itself is ``uopc.cli.reports.page``'s (its names are importable from here too), which the
canonical engine's commands write as well.

>>> text = page({"program": "add(p0, </script>)"}, "trace", "t")
>>> "</script>)" in text, text.count("<script")
(False, 2)
"""
from __future__ import annotations

from typing import Any

from uopc.cli.reports.page import CHUNK_STATES, KINDS, WARN_BYTES, chunked, embedded_json, page, write_page, write_text

__all__ = ["CHUNK_STATES", "KINDS", "WARN_BYTES", "chunked", "cmd_view", "embedded_json", "emit", "page", "write_page", "write_text"]


def emit(args: Any, data: dict[str, Any], kind: str) -> None:
  """A command's ``--format json`` (the dict) or ``--format html`` (its page, titled by the command) to ``-o FILE``, else stdout."""
  if args.format == "json":
    from uopc.cli.reports.exploration import json_text
    write_text(getattr(args, "output", None), json_text(data) + "\n")
    return
  source = getattr(args, "file", None) or getattr(getattr(args, "rules", None), "spec", "")
  write_page(getattr(args, "output", None), data, kind, f"uopc {kind}: {source}")


def cmd_view(args: Any) -> int:
  from uopc.cli.support import EXIT_OK, CLIError
  from uopc.relational.space.saved import LoadError, load
  try: saved = load(args.file)
  except LoadError as e: raise CLIError(str(e)) from None
  write_page(args.output, saved.data, saved.kind, f"uopc {saved.kind}: {args.file}")
  return EXIT_OK
