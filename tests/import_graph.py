"""What a Python file imports, read from its syntax tree: the tests that keep the layers use it."""

from __future__ import annotations

import ast
from pathlib import Path


def imported_modules(path: Path, *, with_names: bool = False) -> set[str]:
    """Absolute module names imported by `path`; with `with_names`, `module.name` for each from-import too."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
            if with_names:
                names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names
