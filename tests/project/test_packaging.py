"""The wheel a library user installs: what each installable part needs, what requirements.txt pins, what it holds.

``deptry .`` (CI) checks every import in the repository against everything pyproject.toml declares; here deptry
scans one installable part at a time, with the extras it may not rely on as development dependencies. The wheel is
built once, offline, from a copy of the sources, so the worktree gets no build/ or egg-info.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest
from packaging.metadata import Metadata
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from tests.support import ROOT

ROOT = ROOT
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
SETUPTOOLS = PROJECT["tool"]["setuptools"]
NAME = canonicalize_name(PROJECT["project"]["name"])
TOP_PACKAGES = sorted({package.split(".")[0] for package in SETUPTOOLS["packages"]})  # prescale, prescale_cli


def source_folder(package: str) -> Path:
    """Where ``package`` (``prescale.model``…) lives in the repository, per pyproject's package-dir."""
    top, *rest = package.split(".")
    return ROOT.joinpath(SETUPTOOLS["package-dir"].get(top, top), *rest)


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> zipfile.ZipFile:
    source = tmp_path_factory.mktemp("source")
    shutil.copy(ROOT / "pyproject.toml", source)
    for top in TOP_PACKAGES:
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


def deptry(*packages: str, dev_extras: str) -> subprocess.CompletedProcess[str]:
    """deptry on the folders of ``packages`` with pyproject's configuration, the extras ``dev_extras`` counted as
    development dependencies: an import that only they provide is misplaced (DEP004)."""
    folders = [str(source_folder(package).relative_to(ROOT)) for package in packages]
    return subprocess.run([sys.executable, "-m", "deptry", *folders, "--no-ansi",
                           "--optional-dependencies-dev-groups", dev_extras],
                          cwd=ROOT, capture_output=True, text=True, check=False)


def test_the_library_needs_the_runtime_dependencies_and_no_more():
    """All of it, and no more: `pip install prescale` is enough for the library (no rich, no pytest, no helm),
    and every runtime dependency is imported (tzdata excepted, see pyproject's deptry section)."""
    scan = deptry("prescale", dev_extras="cli,test")
    assert scan.returncode == 0, scan.stdout + scan.stderr


def test_the_command_needs_the_runtime_and_cli_extra_and_no_test_tool():
    """The wheel (library and command) imports no test tool, and each of its runtime and cli dependencies."""
    scan = deptry(*TOP_PACKAGES, dev_extras="test")
    assert scan.returncode == 0, scan.stdout + scan.stderr


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
                for top in TOP_PACKAGES
                for module in source_folder(top).rglob("*.py")}
    assert {"prescale/model/__init__.py", "prescale/platform/__init__.py", "prescale/capacity/__init__.py",
            "prescale_cli/__init__.py"} <= expected
    assert {name for name in wheel.namelist() if name.endswith(".py")} == expected
