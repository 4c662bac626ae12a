"""The layers, read from the source: the pure model imports no Pulumi, the capacity wing reads the platform only
through the contract, and nothing imports in a cycle (a cycle makes import order matter)."""

import ast
import subprocess
import sys
from graphlib import CycleError, TopologicalSorter
from pathlib import Path

import pytest

from tests.support import ROOT
from tests.support.source import parse_file

ROOT = ROOT
PACKAGE_DIR = ROOT / "components"  # installed as `prescale`
CLI_DIR = ROOT / "prescale_cli"


def module_name(path: Path) -> str:
    if path == ROOT / "__main__.py":
        return "__main__"
    if path.is_relative_to(PACKAGE_DIR):
        parts = ["prescale", *path.relative_to(PACKAGE_DIR).with_suffix("").parts]
    else:
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(path: Path) -> set[str]:
    """Every module ``path`` imports, anywhere in the file (function-level imports count too)."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    found = set()
    for node in ast.walk(parse_file(path)):
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


SOURCES = [*PACKAGE_DIR.rglob("*.py"), *CLI_DIR.rglob("*.py"), ROOT / "__main__.py"]
MODULES = {module_name(path): imports_of(path) for path in SOURCES}
# Module → the project modules it imports (a package's own parents are imported by Python anyway: not edges).
GRAPH = {module: {imported for imported in imports if imported in MODULES and imported != module
                  and not module.startswith(f"{imported}.")}
         for module, imports in MODULES.items()}


def in_layer(module: str, layer: str) -> bool:
    return module == layer or module.startswith(f"{layer}.")


def test_the_layers_are_read_from_their_folders():
    assert {"prescale.model.config", "prescale.model.plan", "prescale.contract", "prescale.names",
            "prescale.platform.deploy", "prescale.capacity.deploy", "prescale.offline", "prescale_cli.main",
            "__main__"} <= set(MODULES)


@pytest.mark.parametrize("module", sorted(m for m in MODULES if in_layer(m, "prescale.model")))
def test_the_model_layer_is_pure(module):
    """Config model and schedule math never import Pulumi or the Pulumi components above them."""
    outside = {imported for imported in MODULES[module]
               if imported.split(".")[0].startswith("pulumi")
               or (imported.startswith("prescale.") and not in_layer(imported, "prescale.model"))}
    assert not outside, f"{module} imports {sorted(outside)}"


@pytest.mark.parametrize("module", sorted(m for m in MODULES if in_layer(m, "prescale.capacity")))
def test_the_capacity_wing_reads_the_platform_only_through_the_contract(module):
    assert not {imported for imported in GRAPH[module] if in_layer(imported, "prescale.platform")}


@pytest.mark.parametrize("module", ["prescale.contract", "prescale.names"])
def test_the_shared_modules_import_neither_wing(module):
    assert not {imported for imported in GRAPH[module]
                if in_layer(imported, "prescale.platform") or in_layer(imported, "prescale.capacity")}


def test_no_import_cycle():
    try:
        list(TopologicalSorter(GRAPH).static_order())
    except CycleError as error:
        pytest.fail(f"import cycle: {' -> '.join(error.args[1])}")


@pytest.mark.parametrize("argv", [["schedule", "--stack", "dev", "--project", str(ROOT), "--at", "2026-11-30T12:00Z"],
                                  ["schema"]], ids=lambda argv: argv[0])
def test_the_offline_commands_load_no_pulumi_sdk(argv):
    """`prescale schedule` and `prescale schema` are pure model and CLI: neither the Pulumi SDK nor any provider SDK
    is imported."""
    script = ("import sys, contextlib, io\n"
              "from prescale_cli.main import main\n"
              "with contextlib.redirect_stdout(io.StringIO()):\n"
              f"    code = main({argv!r})\n"
              "print(code, sorted({m.split('.')[0] for m in sys.modules if m.split('.')[0].startswith('pulumi')}))")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True, cwd=ROOT)
    assert done.stdout.split(None, 1) == ["0", "[]\n"], done.stdout + done.stderr
