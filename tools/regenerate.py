"""Regenerate every generated file of the repository, or list the stale ones: one command after any change.

Each file is written from the one source it derives from, so it cannot drift from it:

- ``components/model/checks/chart_keys.py``, the values keys of the charts in ``tests/charts/``
  (:mod:`tools.chart_keys_gen`);
- ``components/plugin_types.py``, the plugin component's input types, from the config models
  (:mod:`tools.plugin_types_gen`);
- the key tables of ``docs/config.md``, from the stack file's JSON Schema (:mod:`tools.config_reference`);
- every place a doc quotes the program: sample output, the ``--json`` documents' JSON Schemas, counts, stack
  outputs (:mod:`tests.support.doc_quotes`). ::

    python -m tools.regenerate          # lists the stale files, exit 1 if any
    python -m tools.regenerate --write  # rewrites them; review the diff

``tests/project/test_generated.py`` fails while any file differs from what this writes. Not here:
``components/model/fleet/ec2_instance_types.py``, written by :mod:`tools.ec2_instance_types_gen` from two upstream
files of each Karpenter and VPC CNI release (Karpenter's instance-types reference, the CNI's limits table), which
the repository does not keep: a new release brings new files, and that tool's docstring says how to run it.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from tests.support import doc_quotes
from tools import chart_keys_gen, config_reference, plugin_types_gen

ROOT = Path(__file__).resolve().parent.parent
COMMAND = "python -m tools.regenerate --write"


@dataclass(frozen=True)
class Generated:
    """A generated file: its path from the repository root and its text as written from its source now, given its
    current text (a doc is generated in parts, its prose kept)."""

    path: str
    render: Callable[[str], str]

    def stale(self, root: Path = ROOT) -> bool:
        text = (root / self.path).read_text(encoding="utf-8")
        return text != self.render(text)


def modules() -> list[Generated]:
    """The generated Python modules: the program imports them, so they are written before the docs it quotes."""
    return [Generated("components/model/checks/chart_keys.py", lambda text: chart_keys_gen.render_module()),
            Generated("components/plugin_types.py", lambda text: plugin_types_gen.render_module())]


def docs(program: doc_quotes.Program | None = None) -> list[Generated]:
    """The generated docs and parts of docs; the quotes share one offline run of the program."""
    program = program or doc_quotes.Program()
    return [Generated("docs/config.md", config_reference.rewritten),
            *(Generated(doc, lambda text, doc=doc: doc_quotes.rewritten(program, doc, text))
              for doc in doc_quotes.DOCS)]


def write(files: list[Generated], root: Path = ROOT) -> list[str]:
    """Rewrite every stale file of ``files``; returns their paths."""
    changed = []
    for file in files:
        path = root / file.path
        text = path.read_text(encoding="utf-8")
        if (new := file.render(text)) != text:
            path.write_text(new, encoding="utf-8")
            changed.append(file.path)
    return changed


def main(argv: list[str]) -> int:
    if argv not in ([], ["--write"]):
        print(f"usage: {COMMAND.removesuffix(' --write')} [--write]", file=sys.stderr)
        return 2
    if not argv:
        stale = [file.path for file in [*modules(), *docs()] if file.stale()]
        for path in stale:
            print(f"{path} is stale: run `{COMMAND}`")
        return 1 if stale else 0
    changed = write(modules())
    for path in changed:
        print(f"rewrote {path}")
    if changed:  # the docs quote the program as it runs with the new modules: a fresh interpreter imports them
        return subprocess.run([sys.executable, "-m", "tools.regenerate", "--write"], cwd=ROOT).returncode
    for path in write(docs()):
        print(f"rewrote {path}")
    return 0

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
