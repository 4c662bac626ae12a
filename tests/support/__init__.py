"""What the tests share: the repository's paths, stack configs, stand-in platforms, and checks against the real
artefacts (CRDs, charts).

No fixtures here: the session fixtures built on these live in tests/conftest.py and tests/capacity/conftest.py."""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]  # the repository
TESTS = ROOT / "tests"  # its data: bad_configs/, charts/, crds/, data/
