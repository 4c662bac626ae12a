"""What the tests share: the repository's paths, stack configs, stand-in platforms, and checks against the real
artefacts (CRDs, charts).

No fixtures here: the session fixtures built on these live in tests/conftest.py and tests/capacity/conftest.py."""

from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[2]  # the repository
TESTS = ROOT / "tests"  # its data: bad_configs/, charts/, crds/, data/


def load_yaml(text: str) -> Any:
    """``yaml.safe_load`` through libyaml (PyYAML's ``CSafeLoader``): the same objects, several times faster on the
    recordings, CRDs and manifests the tests read."""
    return yaml.load(text, Loader=yaml.CSafeLoader)
