"""docs/config.md, the config reference: its key tables are what ``tools.config_reference`` writes from the schema,
and every field of every model has its row (its links are checked with every page's, in test_docs.py)."""

from __future__ import annotations

import re

from prescale.model.config import CapacityConfig, StackConfig

from tests.model.test_config_schema import models_below
from tools.config_reference import BEGIN, END, REFERENCE, rewritten

TEXT = REFERENCE.read_text(encoding="utf-8")
ROWS = dict(re.findall(r"^\| `([^`]+)` \| (.+)$", TEXT, re.MULTILINE))  # key path -> the rest of its row


def test_the_generator_rewrites_only_its_part():
    start, end = TEXT.index(BEGIN) + len(BEGIN), TEXT.index(END)
    stale = TEXT[:start] + "\n### `prescale:gone`\n" + TEXT[end:]
    assert rewritten(stale) == TEXT
    assert rewritten("Prose before.\n" + BEGIN + END + "Prose after.\n").startswith("Prose before.\n" + BEGIN)


def test_every_field_of_every_model_has_its_row():
    keys = {field.alias or name for model in models_below(StackConfig) | models_below(CapacityConfig)
            if model not in (StackConfig, CapacityConfig) for name, field in model.model_fields.items()}
    named = {path.rsplit(".", 1)[-1] for path in ROWS}
    assert keys - named == set()
    sections = set(re.findall(r"^### `([^`]+)`$", TEXT, re.MULTILINE))
    assert sections == {"aws:region", *(f"prescale:{field.alias}" for name, field in StackConfig.model_fields.items()
                                        if name != "region")}


def test_rows_say_type_default_and_description():
    assert ROWS["prescale:nodePools[].limits.cpu"].startswith("integer ≥ 1 or string | unset | Most CPU")
    assert ROWS["prescale:cluster.name"].startswith("string, **required** | unset | The EKS cluster's name")
    assert ROWS["prescale:cluster.supportType"].startswith('`STANDARD` \\| `EXTENDED` | `"STANDARD"` | EKS upgrade')
    assert ROWS["prescale:eventWindows[].leadTime"].endswith(
        'Format: a Go duration: numbers with a unit each, h, m, s, ms, us or ns, decimals allowed (e.g. "10m", '
        '"1h30m" or "1.5h"). |')
    assert "[capacity.md#requirements](capacity.md#requirements)" in ROWS["prescale:nodePools[].requirements"]

