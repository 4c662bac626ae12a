"""What the import graph cannot show: `prescale schedule` and `prescale schema`, run, load no Pulumi SDK, and
`prescale plan` loads no other command's modules.

The layers themselves are import-linter contracts in pyproject.toml (``lint-imports``). ``prescale_cli.main`` stays
out of them: it imports the ``plan`` command's Pulumi harness inside that command's function, so only a run proves
that the other commands never reach it.
"""

import subprocess
import sys

import pytest

from tests.support import ROOT
from tests.support.cli import make_project


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


def test_plan_loads_no_other_commands_modules(tmp_path):
    """A plan waits for the SDKs' imports already; the status checks, the cost and schedule reports and the --json
    documents' models (pydantic builds them on import) are not its to pay."""
    project = make_project(tmp_path, program="", stacks={"dev": "config: {}\n"})
    script = ("import sys, contextlib, io\n"
              "from prescale_cli.main import main\n"
              "with contextlib.redirect_stdout(io.StringIO()):\n"
              f"    code = main(['plan', '--stack', 'dev', '--project', {str(project)!r}])\n"
              "print(code, *sorted(m for m in sys.modules if m.startswith('prescale_cli.')))")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True, cwd=ROOT)
    code, *loaded = done.stdout.split()
    assert code == "0", done.stdout + done.stderr
    assert set(loaded) <= {"prescale_cli.main", "prescale_cli.output", "prescale_cli.stack", "prescale_cli.timeline",
                           "prescale_cli.resources", "prescale_cli.wire", "prescale_cli.manifests"}, loaded
