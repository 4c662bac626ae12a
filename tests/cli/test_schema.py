"""``prescale schema``: the stack file's JSON Schema on stdout or in a file, outside any project too."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator
from prescale.model.config_schema import stack_file_schema
from prescale.stack_file import stack_document

from prescale_cli.main import main
from tests.support import ROOT


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue(), err.getvalue()


@pytest.mark.parametrize("library", [False, True], ids=["program", "library"])
def test_it_prints_a_valid_json_schema_of_the_stack_file(library, tmp_path: Path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # no Pulumi.yaml here or above: the schema reads no project
    code, out, err = run("schema", *(["--library"] if library else []))
    assert (code, err) == (0, "")
    schema = json.loads(out)
    Draft202012Validator.check_schema(schema)
    assert schema == stack_file_schema(library=library)
    assert ("prescale:cluster" in schema["properties"]["config"]["properties"]) is not library


def test_the_printed_schema_validates_the_dev_stack():
    code, out, _ = run("schema")
    validator = Draft202012Validator(json.loads(out))
    assert code == 0 and list(validator.iter_errors(stack_document(ROOT / "Pulumi.dev.yaml"))) == []
    (error,) = validator.iter_errors({"config": {"aws:region": "eu-west-1", "prescale:cluster": {"name": "a1"},
                                                 "prescale:keda": {"version": 2.2}}})
    assert list(error.absolute_path) == ["config", "prescale:keda", "version"]


def test_out_writes_the_file_and_says_where(tmp_path: Path):
    target = tmp_path / "prescale.schema.json"
    code, out, err = run("schema", "--out", str(target))
    assert (code, err) == (0, "")
    assert out == f"Wrote the JSON Schema of prescale's stack files to {target}\n"
    assert json.loads(target.read_text(encoding="utf-8")) == stack_file_schema()


def test_out_into_a_missing_directory_is_one_line_and_exit_code_1(tmp_path: Path):
    code, out, err = run("schema", "--out", str(tmp_path / "missing" / "schema.json"))
    assert (code, out) == (1, "")
    assert err == (f"prescale: cannot write the schema to {tmp_path / 'missing' / 'schema.json'}: its directory "
                   f"{tmp_path / 'missing'} does not exist\n")


def test_stack_options_are_not_taken(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["schema", "--stack", "dev"])
    assert exit_.value.code == 2
    assert "usage: prescale schema" in capsys.readouterr().err
