"""The docs quote the program truly: every quote in ``tests/support/doc_quotes.py`` reads as the program says now.

A failure here means the program changed what it prints (or a doc was edited): rewrite the quotes with
``.venv/bin/python -m tests.support.doc_quotes --write`` and review the diff.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.support.cli import ROOT
from tests.support.doc_quotes import QUOTES, Program, Quote, differences, rewrite


@pytest.fixture(scope="module")
def program() -> Program:
    """One offline run of the dev stack for every quote."""
    return Program()


@pytest.mark.parametrize("quote", QUOTES, ids=lambda quote: f"{quote.doc}:{quote.before.strip()[:40]}")
def test_doc_quotes_the_program(program, quote: Quote):
    found = differences(program, [quote])
    assert not found, (f"{quote.doc} says {found[0].written!r} where the program says {found[0].expected!r}; "
                       "run `.venv/bin/python -m tests.support.doc_quotes --write`")


def test_every_command_sample_in_the_docs_is_a_checked_quote():
    anchors = {quote.before for quote in QUOTES}
    for path in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        for sample in re.findall(r"```\n\$ (?:\.venv/bin/)?prescale [^\n]*\n", path.read_text()):
            assert sample in anchors, \
                f"{path.name}: the sample {sample.strip()!r} is not in tests/support/doc_quotes.py"


def test_the_writer_restores_every_stale_quote(program, tmp_path: Path):
    docs = sorted({quote.doc for quote in QUOTES})
    for doc in docs:
        (tmp_path / doc).parent.mkdir(parents=True, exist_ok=True)
        text = (ROOT / doc).read_text()
        for quote in (quote for quote in QUOTES if quote.doc == doc):
            for start, end in reversed(quote.spans(text)):
                text = text[:start] + "stale" + text[end:]
        (tmp_path / doc).write_text(text)
    spans = sum(len(quote.spans((ROOT / quote.doc).read_text())) for quote in QUOTES)
    assert len(differences(program, root=tmp_path)) == spans

    assert sorted(rewrite(program, root=tmp_path)) == docs
    assert differences(program, root=tmp_path) == []
    for doc in docs:
        assert (tmp_path / doc).read_text().split() == (ROOT / doc).read_text().split(), doc


def test_a_quote_whose_place_is_gone_fails_loudly(program, tmp_path: Path):
    (tmp_path / "README.md").write_text("# prescale\n\nNo sample here.\n")
    with pytest.raises(LookupError, match="README.md: no quote between"):
        differences(program, [QUOTES[0]], root=tmp_path)


def test_the_dev_stack_describes_each_window_in_its_readers_words():
    """Each window's comment says when it is, in the window's own zone."""
    text = (ROOT / "Pulumi.dev.yaml").read_text()
    for comment, body in re.findall(r"((?:\n *#[^\n]*)+)\n *- name: [\w-]+\n((?: {6}[^\n]*\n)+)", text):
        if "timezone:" not in body:
            continue  # a pool
        fields = dict(re.findall(r"(\w+): (.+)", body))
        start = fields["start"].strip('"')
        hour_minute = (start[11:16] if "T" in start
                       else f"{int(start.split()[1]):02d}:{int(start.split()[0]):02d}")
        city = fields["timezone"].split("/")[-1].replace("_", " ")
        assert hour_minute in comment and city in comment, (comment, fields)
