"""The one switch of uopc's four C extensions: the environment variable ``UOPC_NATIVE``.

Each compiled core has a Python twin that gives the same results, only slower: the explorer's search
(``uopc/relational/native/_space.c``), saturation (``uopc/egraph/_egraph.c``), the let form's text (``uopc/_term.c``,
twin in ``uopc/term.py``) and the ``.uir`` plain lines (``uopc/_uir.c``, twin in ``uopc/uir.py``). ``UOPC_NATIVE`` set
to ``0``, ``false``, ``no`` or ``off`` (any case, spaces around ignored) turns all four off and the Python twins run;
unset or anything else leaves each on where it is built. ``enabled`` reads the variable at each call, so a test or a
notebook flips it by setting the variable (``monkeypatch.setenv``); each core asks once per unit of its work (an
exploration, a saturation, a memo of texts, a parse), never per node.

>>> from unittest import mock
>>> with mock.patch.dict(os.environ, {"UOPC_NATIVE": " Off "}): enabled(), why_off()
(False, 'UOPC_NATIVE= Off ')
>>> with mock.patch.dict(os.environ, {"UOPC_NATIVE": "1"}): enabled(), why_off()
(True, None)
"""
from __future__ import annotations

import os

VARIABLE = "UOPC_NATIVE"
OFF_VALUES = frozenset({"0", "false", "no", "off"})   # compared lower-cased and stripped


def enabled() -> bool:
  """Whether uopc's C extensions run where they are built (``UOPC_NATIVE`` unset or not one of ``OFF_VALUES``)."""
  return os.environ.get(VARIABLE, "").strip().lower() not in OFF_VALUES


def why_off() -> str | None:
  """The setting that turns the C extensions off, as a reason to show (``UOPC_NATIVE=0``), or None if they are on."""
  return None if enabled() else f"{VARIABLE}={os.environ[VARIABLE]}"
