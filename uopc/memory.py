"""This process's memory, as the kernel counts it: what a bound on memory, or a measurement, reads.

>>> resident_memory() > 0, peak_memory() >= resident_memory() // 2
(True, True)
"""
from __future__ import annotations

import os
import sys


def resident_memory() -> int:
  """Resident set size of this process in bytes (peak RSS where ``/proc`` is missing)."""
  try:
    with open("/proc/self/statm", "rb") as f: return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
  except (OSError, ValueError, IndexError): return peak_memory()


def peak_memory() -> int:
  """The most resident memory this process has held since ``reset_peak_memory`` (or since it started), in bytes:
  the kernel's high-water mark, which sees what was taken and given back between two looks."""
  try:
    with open("/proc/self/status", "rb") as f:
      for line in f:
        if line.startswith(b"VmHWM:"): return int(line.split()[1]) * 1024
  except (OSError, ValueError, IndexError): pass
  import resource
  peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
  return peak if sys.platform == "darwin" else peak * 1024


def reset_peak_memory() -> None:
  """Start ``peak_memory`` again from the level now (Linux: ``/proc/self/clear_refs``; elsewhere it cannot be)."""
  try:
    with open("/proc/self/clear_refs", "w") as f: f.write("5")
  except OSError: pass
