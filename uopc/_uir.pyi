# The C plain lines' interface (uopc/_uir.c), for the type checker and the reader.
from typing import Any, Callable

def configure(uop: type, param_arg: type, param_op: Any, uop_globals: dict[str, Any], binary: list[tuple[str, Any, bool, bool]],
              dtypes: list[tuple[str, Any]], bool_dtype: Any, i32_dtype: Any, /) -> None: ...
def plain_lines(lines: list[str], i: int, refs: dict[str, Any], lines_of: list[int], params: dict[Any, tuple[int, int]],
                literals: dict[str, Any], literal: Callable[[str, Any], Any], /) -> tuple[int, Any]: ...
