"""Type-check the `prescale` package and the `prescale` command with mypy (configured in pyproject.toml).

mypy cannot follow the editable install's import hook, and the package's folder is `components/` while its name
is `prescale`, so this links both packages under their import names in a scratch folder and checks them there.
Run as ``python -m tools.typecheck``; extra arguments go to mypy.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = {"prescale": ROOT / "components", "prescale_cli": ROOT / "prescale_cli"}


def main(argv: list[str]) -> int:
    with tempfile.TemporaryDirectory(prefix="prescale-typecheck-") as scratch:
        for name, folder in PACKAGES.items():
            (Path(scratch) / name).symlink_to(folder, target_is_directory=True)
        command = [sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml"),
                   "--cache-dir", str(ROOT / ".mypy_cache"), *(arg for name in PACKAGES for arg in ("-p", name)), *argv]
        return subprocess.run(command, cwd=ROOT, env={"MYPYPATH": scratch, "PATH": ""}, check=False).returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
