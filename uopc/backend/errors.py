"""The C backend's errors. Each is one line of text, fit for the command line.

>>> str(CRuntimeError("division by zero: 1 // 0"))
'division by zero: 1 // 0'
"""
from __future__ import annotations


class BackendError(Exception):
  """Base class: the C backend could not produce a value."""


class RenderError(BackendError):
  """The program uses something the C backend cannot lower (a standalone RANGE, ...)."""


class CompileError(BackendError):
  """No C compiler, or it rejected the generated source."""


class CRuntimeError(BackendError):
  """The compiled program stopped with a runtime error (division by zero, bad index, UB cast)."""


class CInputError(BackendError):
  """A PARAM value that does not fit its PARAM's dtype or shape."""
