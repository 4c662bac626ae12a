"""docs/config.md, the config reference: its key tables are what ``tools.config_reference`` writes from the schema,
every field of every model has its row, and every link in it reaches a heading that exists."""

from __future__ import annotations

import re

from prescale.model.config import CapacityConfig, StackConfig

from tests.model.test_config_schema import models_below
from tests.support import ROOT
from tools.config_reference import BEGIN, COMMAND, END, REFERENCE, rewritten

TEXT = REFERENCE.read_text(encoding="utf-8")
ROWS = dict(re.findall(r"^\| `([^`]+)` \| (.+)$", TEXT, re.MULTILINE))  # key path -> the rest of its row


def test_the_key_tables_are_what_the_generator_writes():
    assert TEXT == rewritten(TEXT), f"docs/config.md is stale: run `{COMMAND}` and review the diff"


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


def _anchors(markdown: str) -> set[str]:
    """GitHub's heading anchors: lowercase, punctuation dropped, spaces as hyphens."""
    return {re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")
            for heading in re.findall(r"^#+ (.+)$", markdown, re.MULTILINE)}


def test_every_link_to_the_docs_reaches_a_heading():
    links = re.findall(r"\]\(([\w-]+\.md)(?:#([\w-]+))?\)", TEXT)
    assert len(links) >= 20
    for page, anchor in links:
        target = ROOT / "docs" / page
        assert target.exists(), page
        assert not anchor or anchor in _anchors(target.read_text(encoding="utf-8")), f"{page}#{anchor}"
