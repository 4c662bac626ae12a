"""The ``prescale`` script without the ``cli`` extra: one line saying to install it, no traceback."""

from __future__ import annotations

import importlib.metadata
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

# Runs the declared script's function with ``module`` made impossible to import, as on an install without it.
WITHOUT = """
import importlib, sys
class Missing:
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] == {module!r}:
            raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
sys.meta_path.insert(0, Missing())
module, _, function = {script!r}.partition(":")
sys.argv = ["prescale", *{argv!r}]
sys.exit(getattr(importlib.import_module(module), function)())
"""


@pytest.mark.parametrize("module, argv", [
    ("rich", ["schedule"]),  # imported with the command
    ("kubernetes", ["status", "--kubeconfig", "/nonexistent"]),  # imported once the command needs it
])
def test_without_the_cli_extra_the_command_says_to_install_it_in_one_line(module, argv):
    done = subprocess.run([sys.executable, "-c", WITHOUT.format(module=module, script=SCRIPT, argv=argv)], cwd=ROOT,
                          capture_output=True, text=True, timeout=60, check=False)
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr == (f"prescale: the prescale command needs its cli extra ({module} is not installed): "
                           "pip install 'prescale[cli]'\n")


def test_the_modules_named_are_the_cli_extras_own():
    extra = {canonicalize_name(Requirement(spec).name) for spec in PROJECT["optional-dependencies"]["cli"]}
    providers = importlib.metadata.packages_distributions()
    assert {canonicalize_name(providers[module][0]) for module in CLI_EXTRA_MODULES} == extra
