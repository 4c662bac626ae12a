"""The ``prescale`` script without the ``cli`` extra: one line saying to install it, no traceback."""

from __future__ import annotations

import importlib.metadata
import json
import subprocess
import sys
import tomllib

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from prescale_cli.entry import CLI_EXTRA_MODULES
from tests.support import ROOT

PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
SCRIPT = PROJECT["scripts"]["prescale"]  # "module:function", as the installed script calls it

# Runs the declared script's function with ``modules`` made impossible to import, as on an install without them.
WITHOUT = """
import importlib, sys
class Missing:
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in {modules!r}:
            raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
sys.meta_path.insert(0, Missing())
module, _, function = {script!r}.partition(":")
sys.argv = ["prescale", *{argv!r}]
sys.exit(getattr(importlib.import_module(module), function)())
"""


def without(modules: frozenset[str], argv: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", WITHOUT.format(modules=set(modules), script=SCRIPT, argv=argv)],
                          cwd=ROOT, capture_output=True, text=True, timeout=60, check=False)


@pytest.mark.parametrize("module, argv", [
    ("kubernetes", ["status", "--kubeconfig", "/nonexistent"]),  # imported once the command needs it
])
def test_without_the_cli_extra_the_command_says_to_install_it_in_one_line(module, argv):
    done = without(frozenset({module}), argv)
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr == (f"prescale: the prescale command needs its cli extra ({module} is not installed): "
                           "pip install 'prescale[cli]'\n")


def test_the_modules_named_are_the_cli_extras_own():
    extra = {canonicalize_name(Requirement(spec).name) for spec in PROJECT["optional-dependencies"]["cli"]}
    providers = importlib.metadata.packages_distributions()
    assert {canonicalize_name(providers[module][0]) for module in CLI_EXTRA_MODULES} == extra


def test_the_version_and_the_schema_need_no_cli_extra():
    """`prescale --version` and `prescale schema` use the library alone (the stack file's schema is the library's)."""
    version = without(CLI_EXTRA_MODULES, ["--version"])
    assert (version.returncode, version.stdout, version.stderr) == (0, f"prescale {PROJECT['version']}\n", "")
    schema = without(CLI_EXTRA_MODULES, ["schema", "--library"])
    assert schema.returncode == 0 and schema.stderr == ""
    assert json.loads(schema.stdout)["title"].startswith("Pulumi.<stack>.yaml")
