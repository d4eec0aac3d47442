"""JSON a user hands uopc (``uopc explore view saved.json``): what Python's ``json`` accepts
but nothing downstream can use is refused here, as one ``file:line:col: why`` line.

Python's parser takes ``NaN`` and ``Infinity`` (which no browser's ``JSON.parse`` does), a
lone ``\\ud800`` escape (which cannot be written out as UTF-8), integers of any length (which
``int`` then refuses past 4,300 digits) and floats like ``1e999`` (which become ``inf``); it
recurses once per nesting level (a ``RecursionError`` on a deep file). Each is an error here.

>>> parse_json('{"a": [1, 2.5, "x"]}', "f.json")
{'a': [1, 2.5, 'x']}
>>> parse_json('{"a": NaN}', "f.json")
Traceback (most recent call last):
...
uopc.json_input.JSONInputError: f.json:1:7: NaN is not a JSON number
"""
from __future__ import annotations

import json
import math
import re
from typing import Any, NoReturn

MAX_NESTING = 200   # uopc's own JSON nests a handful of levels (terms are strings); far below the parser's recursion limit
MAX_DIGITS = 4300   # int() refuses longer decimal strings (sys.get_int_max_str_digits' default)

_STRING = r'"(?:[^"\\]|\\.)*"'
_SURROGATE = re.compile(r"[\ud800-\udfff]")
_LONE_ESCAPE = re.compile(r"\\u[dD][89abAB][0-9a-fA-F]{2}(?!\\u[dD][c-fC-F][0-9a-fA-F]{2})"
                          r"|(?<![dD][89abAB][0-9a-fA-F]{2})\\u[dD][c-fC-F][0-9a-fA-F]{2}")


class JSONInputError(ValueError):
  """JSON that uopc does not take; the message is ``source:line:col: why`` (``source: why`` when there is no place to point at)."""


class _Refused(ValueError):
  def __init__(self, literal: str, why: str):
    super().__init__(why)
    self.literal = literal


def parse_json(text: str, source: str) -> Any:
  """``json.loads(text)``, refusing NaN and infinities, lone surrogates, integers over ``MAX_DIGITS`` digits and
  nesting deeper than ``MAX_NESTING``: a ``JSONInputError`` naming ``source`` and the place."""
  _check_nesting(text, source)
  try: data = json.loads(text, parse_constant=_constant, parse_float=_float, parse_int=_int)
  except json.JSONDecodeError as e: raise JSONInputError(f"{source}:{e.lineno}:{e.colno}: not JSON: {e.msg}") from None
  except _Refused as e: raise JSONInputError(f"{_place(text, source, re.escape(e.literal))}: {e}") from None
  except RecursionError: raise JSONInputError(f"{source}: nested too deep") from None   # a deep call stack left less room
  if (bad := _lone_surrogate(data)) is not None:
    raise JSONInputError(f"{_place(text, source, _LONE_ESCAPE.pattern)}: \\u{ord(bad):04x} is a lone surrogate, not a character")
  return data


def _constant(name: str) -> NoReturn: raise _Refused(name, f"{name} is not a JSON number")


def _float(text: str) -> float:
  value = float(text)
  if not math.isfinite(value): raise _Refused(text, f"{text} is too large for a float")
  return value


def _int(text: str) -> int:
  if len(text.lstrip("-")) > MAX_DIGITS: raise _Refused(text, f"an integer of {len(text.lstrip('-')):,} digits (at most {MAX_DIGITS:,})")
  return int(text)


def _check_nesting(text: str, source: str) -> None:
  """Refuse nesting deeper than ``MAX_NESTING`` before parsing: the parser recurses once per level."""
  if text.count("[") + text.count("{") <= MAX_NESTING: return
  depth = 0
  for m in re.finditer(_STRING + r"|[\[{]|[\]}]", text):
    c = m.group()
    if c in "[{":
      depth += 1
      if depth > MAX_NESTING: raise JSONInputError(f"{_line_col(text, source, m.start())}: nested more than {MAX_NESTING} deep")
    elif c in "]}": depth -= 1


def _lone_surrogate(data: Any) -> str | None:
  """The first lone surrogate in any string (key or value) of ``data``, walked without recursion."""
  todo = [data]
  while todo:
    x = todo.pop()
    if isinstance(x, str):
      if (m := _SURROGATE.search(x)) is not None: return m.group()
    elif isinstance(x, dict): todo.extend(x.keys()); todo.extend(x.values())
    elif isinstance(x, list): todo.extend(x)
  return None


def _place(text: str, source: str, pattern: str) -> str:
  """``source:line:col`` of the first match of ``pattern`` (outside strings unless it is an escape); ``source`` if none."""
  inside_strings = pattern is _LONE_ESCAPE.pattern
  for m in re.finditer(pattern if inside_strings else f"{_STRING}|({pattern})", text):
    if inside_strings or m.group(1) is not None: return _line_col(text, source, m.start())
  return source


def _line_col(text: str, source: str, offset: int) -> str:
  line = text.count("\n", 0, offset) + 1
  return f"{source}:{line}:{offset - (text.rfind(chr(10), 0, offset) + 1) + 1}"

