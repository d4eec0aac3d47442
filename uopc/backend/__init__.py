"""The C backend: the committed program (``simplify``'s output) as C, compiled and run.

``exec_alu`` (``uopc/alu.py``) is the reference semantics; the generated C agrees with
``run()`` bit for bit, and reports the cases exec_alu refuses (division by zero,
``INT_MIN // -1``, undefined casts, bad indices) as runtime errors instead of UB.

>>> from uopc.dtype import dtypes
>>> from uopc.uop import UOp
>>> from uopc.backend import run_c
>>> run_c(UOp.stack(1.0, 2.0) * UOp.param(0, dtypes.f32, (2,)), {0: [0.5, -0.0]})
[0.5, -0.0]

The engine never imports this package; only the command line does, lazily.
Modules: ``runtime`` (the C helpers), ``lower`` (simplify, inline, check), ``emit``
(the only way program text and values become C text), ``c`` (one kernel as a C function), ``program`` (whole files), ``toolchain`` (compiler, cache),
``values`` (tokens in, bits out), ``driver`` (``run_c``, ``Batch``), ``instances`` and
``soundness`` (``check-rules``), ``cli`` (the commands).
"""
from uopc.backend.c import Kernel, render_kernel
from uopc.backend.driver import Batch, Outcome, program_source, run_c
from uopc.backend.errors import BackendError, CInputError, CompileError, CRuntimeError, RenderError
from uopc.backend.lower import prepare

__all__ = ["Batch", "BackendError", "CInputError", "CRuntimeError", "CompileError", "Kernel", "Outcome", "RenderError",
           "prepare", "program_source", "render_kernel", "run_c"]
