"""What the import graph cannot show: `prescale schedule` and `prescale schema`, run, load no Pulumi SDK.

The layers themselves are import-linter contracts in pyproject.toml (``lint-imports``). ``prescale_cli.main`` stays
out of them: it imports the ``plan`` command's Pulumi harness inside that command's function, so only a run proves
that the other commands never reach it.
"""

import subprocess
import sys

import pytest

from tests.support import ROOT


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
