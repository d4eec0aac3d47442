"""The one compiled part: the explorer's native core (uopc/relational/native/_space.c, docs/native.md).

Everything else is in pyproject.toml. ``optional=True``: without a C compiler the install
still succeeds and the explorer runs its pure-Python core, with the same results.
"""
from setuptools import Extension, setup

setup(ext_modules=[Extension("uopc.relational.native._space", ["uopc/relational/native/_space.c"], optional=True,
                             extra_compile_args=["-O2", "-std=c11", "-Wall", "-Wextra", "-Wno-unused-parameter",
                                                 "-Wno-missing-field-initializers", "-Wno-cast-function-type"])])
