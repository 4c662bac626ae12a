"""Every generated file is what its generator writes from its source now (tools/regenerate.py lists them)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.cli import ROOT
from tests.support.doc_quotes import QUOTES, Program, differences, rewrite
from tools import regenerate
from tools.regenerate import COMMAND, Generated


@pytest.fixture(scope="module")
def program() -> Program:
    """One offline run of the dev stack for every quote."""
    return Program()


@pytest.fixture(scope="module")
def files(program) -> list[Generated]:
    return [*regenerate.modules(), *regenerate.docs(program)]


def test_every_generated_file_is_current(program, files):
    stale = [file.path for file in files if file.stale()]
    quotes = [f"{found.quote.doc} after {found.quote.before.strip()[:60]!r}" for found in differences(program)] \
        if stale else []
    assert not stale, f"stale: {', '.join(stale)} (quotes: {quotes}); run `{COMMAND}` and review the diff"


def test_the_command_rewrites_a_stale_file_and_only_its_generated_part(files, tmp_path: Path):
    for file in files:
        (tmp_path / file.path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / file.path).write_text((regenerate.ROOT / file.path).read_text())
    reference = tmp_path / "docs" / "config.md"
    reference.write_text(reference.read_text().replace("### `prescale:cluster`", "### `prescale:gone`"))
    (tmp_path / "components" / "plugin_types.py").write_text("stale\n")

    assert regenerate.write(files, tmp_path) == ["components/plugin_types.py", "docs/config.md"]
    assert not any(file.stale(tmp_path) for file in files)
    assert all((tmp_path / file.path).read_text() == (regenerate.ROOT / file.path).read_text() for file in files)


def test_the_command_lists_nothing_when_every_file_is_current(program, monkeypatch, capsys):
    monkeypatch.setattr(regenerate.doc_quotes, "Program", lambda: program)  # the module's one offline run
    assert regenerate.main([]) == 0
    assert capsys.readouterr().out == ""
    assert regenerate.main(["--check"]) == 2


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
