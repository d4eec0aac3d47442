"""The compiled parts: the explorer's native core (uopc/relational/native/_space*.c, docs/native.md), the e-graph's
(uopc/egraph/_egraph.c, docs/saturation.md), the let form's walk that reports print with (uopc/_letform.c, in both uopc/_term.c's
extension and the explorer's core; docs/performance.md)
and the .uir parser's plain lines (uopc/_uir.c, docs/uir-format.md).

Everything else is in pyproject.toml. ``optional=True``: without a C compiler the install
still succeeds and the explorer and saturation run their pure-Python cores, with the same results.
"""
from setuptools import Extension, setup

# -fvisibility=hidden: the units of one extension share their functions, and each exports only its PyInit_ (PyMODINIT_FUNC
# marks it visible), so two extensions that link the same unit (uopc/_letform.c) keep their own copies
FLAGS = ["-O2", "-std=c11", "-Wall", "-Wextra", "-Wno-unused-parameter", "-Wno-missing-field-initializers", "-Wno-cast-function-type",
         "-fvisibility=hidden"]

NATIVE = "uopc/relational/native/"
# the explorer's core, one extension of several units: the type (_space.c), the core (nodes, step maps, grouped steps,
# the search, its states) and the modules beside it; dev/asan.sh reads this list
SPACE_SOURCES = [NATIVE + f"_space{unit}.c" for unit in ("", "_tables", "_nodes", "_steps", "_groups", "_search", "_states", "_patterns", "_templates", "_folds", "_uops",
                                                          "_reduction", "_cycles", "_fingerprint", "_rows", "_decode", "_level", "_json", "_table")] + ["uopc/_letform.c"]
SPACE_HEADERS = [NATIVE + f"_space{unit}.h" for unit in ("", "_tables", "_groups", "_patterns", "_templates", "_folds", "_uops", "_reduction", "_cycles", "_fingerprint",
                                                         "_rows", "_decode", "_level", "_text", "_json", "_table", "_label_cache")] + [NATIVE + "_blake2b.h", "uopc/_letform.h"]

setup(ext_modules=[Extension("uopc.relational.native._space", SPACE_SOURCES, optional=True, extra_compile_args=FLAGS, depends=SPACE_HEADERS),
                   Extension("uopc.egraph._egraph", ["uopc/egraph/_egraph.c"], optional=True, extra_compile_args=FLAGS),
                   Extension("uopc._term", ["uopc/_term.c", "uopc/_letform.c"], optional=True, extra_compile_args=FLAGS, depends=["uopc/_letform.h"]),
                   Extension("uopc._uir", ["uopc/_uir.c"], optional=True, extra_compile_args=FLAGS)])
