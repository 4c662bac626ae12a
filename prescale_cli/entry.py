"""The ``prescale`` script: the command, or, where prescale was installed without its ``cli`` extra, one line that
says to install it (the library alone, ``pip install prescale``, lacks what the command prints and reads with)."""

from __future__ import annotations

import sys

# The modules of the cli extra (pyproject.toml), by import name: tests/project/test_packaging.py holds them to it.
CLI_EXTRA_MODULES = frozenset({"rich", "matplotlib", "yaml", "kubernetes", "urllib3", "botocore", "boto3"})


def main() -> int:
    try:
        from .main import main as run_command

        return run_command()
    except ModuleNotFoundError as error:
        missing = (error.name or "").partition(".")[0]
        if missing not in CLI_EXTRA_MODULES:
            raise
        print(f"prescale: the prescale command needs its cli extra ({missing} is not installed): "
              "pip install 'prescale[cli]'", file=sys.stderr)
        return 1
