"""The package's layers, read from its source: the pure model imports no Pulumi, and no modules import each other
in a cycle (a cycle makes import order matter and hides which layer a module belongs to)."""

import ast
from graphlib import CycleError, TopologicalSorter
from pathlib import Path

import pytest

PACKAGE_DIR = Path(__file__).resolve().parent.parent / "components"  # installed as `prescale`


def module_name(path: Path) -> str:
    parts = ["prescale", *path.relative_to(PACKAGE_DIR).with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(path: Path) -> set[str]:
    """Every module ``path`` imports, anywhere in the file (function-level imports count too)."""
    package = module_name(path).rsplit(".", 1)[0] if path.name != "__init__.py" else module_name(path)
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[:len(package.split(".")) - (node.level - 1)]
                base = ".".join(anchor + ([base] if base else []))
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
    return found


MODULES = {module_name(path): imports_of(path) for path in PACKAGE_DIR.rglob("*.py")}


def test_the_package_is_read_from_its_folder():
    assert {"prescale.model.config", "prescale.model.schedule", "prescale.capacity", "prescale.model"} <= set(MODULES)


@pytest.mark.parametrize("module", sorted(m for m in MODULES if m.startswith("prescale.model")))
def test_the_model_layer_is_pure(module):
    """Config model and schedule math never import Pulumi or the Pulumi components above them."""
    outside = {imported for imported in MODULES[module]
               if imported.split(".")[0].startswith("pulumi")
               or (imported.startswith("prescale.") and not imported.startswith("prescale.model"))}
    assert not outside, f"{module} imports {sorted(outside)}"


def test_no_import_cycle():
    graph = {module: {imported for imported in imports if imported in MODULES and imported != module}
             for module, imports in MODULES.items()}
    try:
        list(TopologicalSorter(graph).static_order())
    except CycleError as error:
        pytest.fail(f"import cycle: {' -> '.join(error.args[1])}")
