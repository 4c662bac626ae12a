"""The ``--json`` documents: what each command prints passes the JSON Schema docs/cli.md shows for it (instants in
UTC as ``...Z``, every key present, none unknown), and ``schedule --json`` carries the reservations its text shows."""

from __future__ import annotations

import json

import pytest
from jsonschema import Draft202012Validator

from prescale_cli import cluster_reader
from prescale_cli import main as cli
from prescale_cli.documents import PlanDocument, Record, ScheduleDocument, StatusDocument, json_schema
from tests.capacity.test_reservations import RESERVING_STACK
from tests.support.cli import ROOT, SMALL_PROGRAM, make_project
from tests.support.status import LEAD_TIME_NOW, RecordedCluster


def printed(capsys, *args: str) -> dict:
    assert cli.main([*args, "--json"]) in (0, 1)  # status exits 1 when not ready
    return json.loads(capsys.readouterr().out)


def assert_passes(document: type[Record], printed: dict) -> None:
    validator = Draft202012Validator(json_schema(document))
    errors = [f"{'/'.join(map(str, error.absolute_path))}: {error.message}" for error in validator.iter_errors(printed)]
    assert not errors, errors


@pytest.mark.parametrize("document", [PlanDocument, ScheduleDocument, StatusDocument])
def test_each_schema_is_a_valid_draft_2020_12_schema_describing_every_key(document):
    schema = json_schema(document)
    Draft202012Validator.check_schema(schema)
    assert schema["properties"]["schemaVersion"]["const"] == 1
    for name, record in {"": schema, **schema.get("$defs", {})}.items():
        assert record["additionalProperties"] is False and record["description"], name
        assert set(record["required"]) == set(record["properties"]), name


def test_the_plan_passes_its_schema(capsys, tmp_path):
    project = make_project(tmp_path, program=SMALL_PROGRAM, stacks={"dev": "config: {}\n"})
    assert_passes(PlanDocument, printed(capsys, "plan", "--project", str(project)))


def test_the_schedule_passes_its_schema_with_utc_instants_in_one_format(capsys):
    doc = printed(capsys, "schedule", "--project", str(ROOT), "--at", "2026-11-30T12:00Z", "--from", "2027-03-01")
    assert_passes(ScheduleDocument, doc)
    assert (doc["from"], doc["now"]) == ("2027-03-01T00:00:00Z", "2026-11-30T12:00:00Z")
    assert doc["occurrences"][0]["scaleUpUtc"] == "2027-02-28T22:45:00Z"
    assert doc["occurrences"][0]["scaleUp"] == "2027-03-01T07:45:00+09:00"  # local: with the zone's offset


def test_the_status_passes_its_schema(capsys, monkeypatch):
    monkeypatch.setattr(cluster_reader, "connect", lambda kubeconfig, context: RecordedCluster("not-ready"))
    doc = printed(capsys, "status", "--project", str(ROOT), "--at", LEAD_TIME_NOW)
    assert_passes(StatusDocument, doc)
    assert doc["now"] == "2026-11-30T22:55:00Z"


@pytest.mark.parametrize("at, held, state, next_up, billed_from, hours, cost", [
    # 5 × m7i.xlarge at $0.2016 from the earliest `up` (24h before the 23:50 UTC scale-up) to the end + 4m: 27.23 h.
    ("2027-02-27T00:00Z", False, "not created yet", "2027-02-28T23:50:00Z", "2027-02-28T23:50:00Z", 27.23, 27.45),
    # Inside the hold: from now, never from the hold's start in the past.
    ("2027-03-01T12:00Z", True, "held", None, "2027-03-01T12:00:00Z", 15.07, 15.19),
    # After the end date, its drift hold still standing: nothing more to bill.
    ("2027-03-02T03:30Z", False, "ended", None, "2027-03-02T03:30:00Z", 0, 0)])
def test_the_schedule_carries_the_reservations_its_text_shows(tmp_path, capsys, at, held, state, next_up,
                                                              billed_from, hours, cost):
    project = make_project(tmp_path, program="", stacks={"test": RESERVING_STACK})
    doc = printed(capsys, "schedule", "--project", str(project), "--stack", "test", "--at", at, "--days", "3")
    assert_passes(ScheduleDocument, doc)
    assert doc["reservations"] == [{
        "window": "launch", "instanceType": "m7i.xlarge", "zones": {"ap-northeast-2a": 3, "ap-northeast-2c": 2},
        "holdFrom": "2027-02-28T23:50:00Z", "endDate": "2027-03-02T03:04:00Z",
        "driftHeldUntil": "2027-03-02T04:14:00Z", "held": held, "state": state, "billedFrom": billed_from,
        "hours": hours, "pricePerHour": 1.008, "cost": cost}]
    assert doc["nextUpForReservations"] == next_up
    assert cli.main(["schedule", "--project", str(project), "--stack", "test", "--at", at, "--days", "3"]) == 0
    text = capsys.readouterr().out
    row = next(line for line in text[text.index("Capacity reservations"):].splitlines() if line.startswith("launch"))
    assert "Tue 2027-03-02 04:14" in row
    assert f"  {state}  " in row and row.split()[-3:] == [f"{hours:.1f}", "$1.01", f"${cost:.2f}"]
