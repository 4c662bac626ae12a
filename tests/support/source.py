"""Reading this repository's Python source as syntax trees, for the tests that check imports and structure."""

import ast
import gc
from pathlib import Path


def parse_file(path: Path) -> ast.Module:
    """``ast.parse`` of ``path`` with garbage collection held off while the tree is built.

    CPython 3.11 can fail building a tree with ``SystemError: AST constructor recursion depth mismatch`` when a
    collection runs finalizers in the middle of it, and by the time these tests run the suite holds many Pulumi SDK
    objects with finalizers.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        return ast.parse(path.read_text(), str(path))
    finally:
        if enabled:
            gc.enable()
