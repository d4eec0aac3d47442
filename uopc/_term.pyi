# The C let form's interface (uopc/_term.c), for the type checker and the reader.
from typing import Any, Callable

def let_text(root: Any, parts: dict[Any, Any], make: Callable[[Any], Any], plain: dict[Any, str], names: list[str],
             max_nodes: int, /) -> tuple[str, int] | None: ...
