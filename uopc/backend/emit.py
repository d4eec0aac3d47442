"""The one door from a program into C source: every name, comment and literal that comes
from a program (or any caller) becomes C text here, and only here.

A ``.uir`` file is untrusted input, and C source is code: a CALL name pasted into a
comment once closed the comment (``*/`` rebuilt by a backslash-newline splice or the
trigraph ``??/``) and the rest of the name was compiled. So program text never reaches
the C source verbatim. What this module emits cannot change the meaning of the code
around it:

- ``ident``: an identifier of ``[A-Za-z0-9_]`` only (anything else hex-mangled);
- ``comment``: ``/* ... */`` whose body is printable ASCII without ``*``, ``/``,
  ``\\``, ``?``, ``#``, quotes or ``%`` (anything else is written ``%XX`` or ``%uXXXX``),
  so no comment end, no line splice, no trigraph;
- ``literal``: a scalar constant as an exact C expression, from the value's type (never
  its ``str``), checked to be a bool, an i32 or an f32;
- ``number``: a size, slot, stride or count, checked to be an int.

Everything else in the generated C is fixed text of the backend. ``docs/c-backend.md``
("What reaches the C source") states the model; the fuzz tests in
``tests/test_backend_emit.py`` check it.

>>> ident("my-kernel*/"), comment("a */ b\\\\\\n??/ #include")
('my_x2d_kernel_x2a__x2f_', '/* a %2A%2F b%5C%0A%3F%3F%2F %23include */')
"""
from __future__ import annotations

import math
import string
from typing import Any

from uopc.dtype import DType, dtypes

_IDENT_CHARS = frozenset(string.ascii_letters + string.digits + "_")
# printable ASCII that cannot end a comment, splice a line, start a trigraph or a directive
_COMMENT_CHARS = frozenset(string.ascii_letters + string.digits + " _.,:;=+-<>()[]{}!&|^~'@$")


def ident(text: str) -> str:
  """``text`` as a C identifier: letters, digits and ``_`` kept, every other character
  ``_xHH_``; an empty or leading-digit result gets a ``_`` prefix.

  >>> ident("k0"), ident("uopc_kernel"), ident("0a"), ident("é")
  ('k0', 'uopc_kernel', '_0a', '_xe9_')
  """
  out = "".join(c if c in _IDENT_CHARS else f"_x{ord(c):x}_" for c in text)
  return "_" + out if not out or out[0].isdigit() else out


def comment(text: str) -> str:
  """``text`` as one C comment, safe whatever the text holds.

  >>> comment("add(p0, 1)"), comment("é\\ud800")
  ('/* add(p0, 1) */', '/* %uE9%uD800 */')
  """
  return "/* " + "".join(c if c in _COMMENT_CHARS else _hex(c) for c in text) + " */"


def _hex(c: str) -> str: return f"%{ord(c):02X}" if ord(c) < 0x80 else f"%u{ord(c):X}"


def number(v: Any) -> str:
  """A size, slot, stride or count (a Python int, never a bool) as C text.

  >>> number(12), number(-3)
  ('12', '-3')
  """
  if type(v) is not int: raise TypeError(f"expected an int for the C source, got {type(v).__name__}")
  return int.__repr__(v)


def literal(v: Any, dtype: DType) -> str:
  """A C expression for a scalar constant, exactly the value (``-0.0f``, ``NAN``, ``INT32_MIN``).

  >>> literal(-0.0, dtypes.f32), literal(-2**31, dtypes.i32), literal(True, dtypes.bool)
  ('(-0.0f)', 'INT32_MIN', '1')
  """
  if dtype is dtypes.bool:
    if type(v) is not bool: raise TypeError(f"expected a bool constant, got {type(v).__name__}")
    return "1" if v else "0"
  if dtype is dtypes.i32:
    if type(v) is not int or not -2**31 <= v < 2**31: raise TypeError(f"expected an i32 constant, got {v!r:.40}")
    if v == -2**31: return "INT32_MIN"   # 2147483648 is not an int literal
    return f"({int.__repr__(v)})" if v < 0 else int.__repr__(v)
  if dtype is not dtypes.f32 or type(v) is not float: raise TypeError(f"expected an f32 constant, got {v!r:.40}")
  if math.isnan(v): return "NAN"
  if math.isinf(v): return "INFINITY" if v > 0 else "(-INFINITY)"
  text = float.__repr__(v) + "f"   # v is an f32 value, so its double repr parses back to exactly v as a float
  return f"({text})" if text.startswith("-") else text
