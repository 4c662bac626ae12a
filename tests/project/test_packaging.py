"""The wheel a library user installs: what it declares it needs, what requirements.txt pins, what it contains.

A module's needs are read from the source (its absolute imports, with ast) and mapped to distributions with
``importlib.metadata.packages_distributions()``. The wheel is built once, offline, from a copy of the sources,
so the worktree gets no build/ or egg-info.
"""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
import tomllib
import zipfile
from functools import cache
from importlib.metadata import packages_distributions
from pathlib import Path

import pytest
from packaging.metadata import Metadata
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from tests.support import ROOT
from tests.support.source import parse_file

ROOT = ROOT
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
SETUPTOOLS = PROJECT["tool"]["setuptools"]
NAME = canonicalize_name(PROJECT["project"]["name"])
# Needed at run time without an import: zoneinfo reads its zones from tzdata where the OS has no tz database.
UNIMPORTED_RUNTIME = {"tzdata"}


def source_folder(package: str) -> Path:
    """Where ``package`` (``prescale.model``…) lives in the repository, per pyproject's package-dir."""
    top, *rest = package.split(".")
    return ROOT.joinpath(SETUPTOOLS["package-dir"].get(top, top), *rest)


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> zipfile.ZipFile:
    source = tmp_path_factory.mktemp("source")
    shutil.copy(ROOT / "pyproject.toml", source)
    for top in {package.split(".")[0] for package in SETUPTOOLS["packages"]}:
        folder = source_folder(top)
        shutil.copytree(folder, source / folder.name, ignore=shutil.ignore_patterns("__pycache__"))
    subprocess.run([sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir", "dist", "."],
                   cwd=source, check=True, capture_output=True)
    (built,) = (source / "dist").glob("*.whl")
    return zipfile.ZipFile(built)


@pytest.fixture(scope="module")
def metadata(wheel) -> Metadata:
    (name,) = [n for n in wheel.namelist() if n.endswith(".dist-info/METADATA")]
    return Metadata.from_email(wheel.read(name).decode(), validate=False)


def declared(metadata: Metadata, extra: str | None = None) -> dict[str, Requirement]:
    """The requirements of the runtime (``extra=None``) or of one extra, by distribution name."""
    def applies(requirement: Requirement) -> bool:
        if requirement.marker is None:
            return extra is None
        return extra is not None and requirement.marker.evaluate({"extra": extra})
    return {canonicalize_name(r.name): r for r in metadata.requires_dist or [] if applies(r)}


installed = cache(packages_distributions)  # import name -> distributions; slow to compute, so once


def distributions_of(import_name: str) -> set[str]:
    return {canonicalize_name(d) for d in installed().get(import_name, [])}


def first_party(import_name: str) -> bool:
    return (ROOT / import_name).is_dir() or (ROOT / f"{import_name}.py").is_file() or \
        NAME in distributions_of(import_name)


@cache
def imports(folder: Path) -> dict[str, Path]:
    """Every top-level name the modules under ``folder`` import absolutely (but a script's sibling module),
    with one file that does."""
    found: dict[str, Path] = {}
    for path in sorted(folder.rglob("*.py")):
        for node in ast.walk(parse_file(path)):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            for top in {name.split(".")[0] for name in names}:
                if not (path.parent / f"{top}.py").is_file():
                    found.setdefault(top, path)
    return {name: path for name, path in found.items() if name not in sys.stdlib_module_names}


def uncovered(folders: list[Path], allowed: set[str]) -> list[str]:
    """Third-party imports under ``folders`` whose distribution is not in ``allowed``."""
    return [f"{name} ({path.relative_to(ROOT)}, distributions {sorted(distributions_of(name)) or 'not installed'})"
            for folder in folders for name, path in imports(folder).items()
            if not first_party(name) and not distributions_of(name) & allowed]


def test_the_runtime_is_what_the_library_imports(metadata):
    """All of it, and no more: the program's virtualenv needs no CLI or test tool (no pytest, no helm)."""
    library = source_folder("prescale")
    runtime = set(declared(metadata))
    assert uncovered([library], runtime) == []
    imported = {d for name in imports(library) if not first_party(name) for d in distributions_of(name)}
    assert runtime - UNIMPORTED_RUNTIME == imported


def test_the_cli_extra_covers_the_command(metadata):
    assert uncovered([ROOT / "prescale_cli"], set(declared(metadata)) | set(declared(metadata, "cli"))) == []


def test_the_test_extra_covers_the_suite_and_what_it_imports(metadata):
    """tests/ and the repository folders it imports (bench/, tools/, policy/…)."""
    local = sorted(ROOT / name for name in imports(ROOT / "tests") if (ROOT / name).is_dir())
    everything = set().union(*(declared(metadata, extra) for extra in (None, "cli", "test")))
    assert uncovered(local, everything) == []


def test_requirements_pin_every_declared_distribution_within_its_range(metadata):
    """CI installs the project with all its extras, each distribution at one exact version the ranges allow."""
    lines = [line.split("#")[0].strip() for line in (ROOT / "requirements.txt").read_text().splitlines()]
    (editable,) = [line for line in lines if line.startswith("-e ")]
    assert Requirement(f"{NAME}{editable.removeprefix('-e .')}").extras == set(metadata.provides_extra or [])
    pins = {canonicalize_name(pin.name): pin
            for pin in (Requirement(line) for line in lines if line and not line.startswith("-"))}
    assert all(str(pin.specifier).startswith("==") for pin in pins.values())
    for extra in (None, *(metadata.provides_extra or [])):
        for name, requirement in declared(metadata, extra).items():
            assert name in pins, f"{name} ({extra or 'runtime'}) is not pinned in requirements.txt"
            (version,) = [spec.version for spec in pins[name].specifier]
            assert requirement.specifier.contains(version), f"{name}=={version} is outside {requirement}"


def test_the_wheel_holds_every_module_of_every_package(wheel):
    """Each folder with an ``__init__.py`` is listed in pyproject's packages, so its modules are in the wheel."""
    expected = {"/".join((top, *module.relative_to(source_folder(top)).parts))
                for top in {package.split(".")[0] for package in SETUPTOOLS["packages"]}
                for module in source_folder(top).rglob("*.py")}
    assert {"prescale/model/__init__.py", "prescale/platform/__init__.py", "prescale/capacity/__init__.py",
            "prescale_cli/__init__.py"} <= expected
    assert {name for name in wheel.namelist() if name.endswith(".py")} == expected
