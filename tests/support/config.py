"""Shared by the config tests: a fixed clock, and the problems a raw stack config is refused with."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from prescale.model.validation import ConfigError, load_stack_config

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


def problems(raw: dict) -> list[str]:
    """Every problem ``raw`` (full keys → decoded values) is refused with; fails the test if it is accepted."""
    with pytest.raises(ConfigError) as caught:
        load_stack_config(raw, NOW)
    return caught.value.problems


def only_problem(raw: dict) -> str:
    found = problems(raw)
    assert len(found) == 1, found
    return found[0]
