"""The bad-input corpus: every broken stack config is refused whole, by key path and value, with nothing registered.

Each file in ``tests/bad_configs/`` is a stack file a user could have written; its header says why it is
wrong and which key and value the error must name. Each runs through the whole program (``__main__.py``)
under mocks, exactly as ``pulumi up`` would run it.
"""

import re
from datetime import UTC, datetime
from pathlib import Path

import pytest
from prescale.model.validation import ConfigError
from prescale.offline import OfflineMocks, run_program
from prescale.stack_file import read_config_file

from tests.support import ROOT, TESTS

ROOT = ROOT
CORPUS = sorted((TESTS / "bad_configs").glob("*.yaml"))
NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


def expectation(path: Path) -> tuple[str, str]:
    header = dict(re.findall(r"^# expect-(path|value): (.*)$", path.read_text(), re.MULTILINE))
    return header["path"], header["value"]


@pytest.mark.parametrize("case", CORPUS, ids=lambda p: p.stem)
def test_broken_config_is_refused_whole(case):
    key_path, value = expectation(case)
    mocks = OfflineMocks()
    with pytest.raises(ConfigError) as caught:
        run_program(ROOT, "corpus", NOW, config=read_config_file(case), mocks=mocks)
    named = [p for p in caught.value.problems if p.startswith(f"{key_path}:")]
    assert named, (key_path, caught.value.problems)
    assert any(value in problem for problem in named), (value, named)
    assert mocks.registrations == []
