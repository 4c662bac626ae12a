"""``prescale --version``: the installed distribution's version, as pyproject.toml declares it, without any SDK."""

from __future__ import annotations

import subprocess
import sys
import tomllib

import pytest

from prescale_cli.main import main
from tests.support.cli import ROOT


def test_version_prints_the_version_pyproject_declares_and_exits_0(capsys):
    with pytest.raises(SystemExit) as exited:
        main(["--version"])
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    assert exited.value.code == 0 and capsys.readouterr().out == f"prescale {declared}\n"


def test_it_loads_no_pulumi_sdk():
    script = ("import sys\nfrom prescale_cli.main import main\n"
              "try:\n    main(['--version'])\nexcept SystemExit as exit:\n"
              "    print(exit.code, sorted({m.split('.')[0] for m in sys.modules if m.startswith('pulumi')}))\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True, cwd=ROOT)
    assert done.stdout.splitlines()[1:] == ["0 []"], done.stdout + done.stderr
