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


def modules_after(argv: list[str]) -> tuple[int, set[str]]:
    """``prescale <argv>``'s exit code in a fresh interpreter, and every module that interpreter loaded."""
    script = ("import sys, contextlib, io\n"
              "from prescale_cli.main import main\n"
              "with contextlib.redirect_stdout(io.StringIO()):\n"
              f"    code = main({argv!r})\n"
              "print(code, *sys.modules)")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True, cwd=ROOT)
    code, *loaded = done.stdout.split()
    return int(code), set(loaded)


@pytest.mark.parametrize("argv", [["schedule", "--stack", "dev", "--project", str(ROOT), "--at", "2026-11-30T12:00Z"],
                                  ["schema"]], ids=lambda argv: argv[0])
def test_the_offline_commands_load_no_pulumi_sdk(argv):
    """`prescale schedule` and `prescale schema` are pure model and CLI: neither the Pulumi SDK nor any provider SDK
    is imported."""
    code, loaded = modules_after(argv)
    assert (code, {module for module in loaded if module.split(".")[0].startswith("pulumi")}) == (0, set())


def test_plan_loads_no_other_commands_modules(tmp_path):
    """A plan waits for the SDKs' imports already; the status checks, the cost and schedule reports and the --json
    documents' models (pydantic builds them on import) are not its to pay."""
    project = make_project(tmp_path, program="", stacks={"dev": "config: {}\n"})
    code, loaded = modules_after(["plan", "--stack", "dev", "--project", str(project)])
    assert code == 0
    assert {module for module in loaded if module.startswith("prescale_cli.")} <= {
        "prescale_cli.main", "prescale_cli.output", "prescale_cli.stack", "prescale_cli.timeline",
        "prescale_cli.resources", "prescale_cli.wire", "prescale_cli.manifests"}
