"""Three stacks of one project share a calendar file: each stack's window takes the event's times as `prescale
schedule` reads them, moving the event in the file moves all three, and a calendar file that is missing is one
clear line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from prescale_cli.main import main
from tests.support.cli import make_project

CALENDAR = """\
# the retail team's events
events:
  - {name: black-friday-2027, timezone: America/New_York, start: "2027-11-26T06:00", end: "2027-11-26T23:00"}
"""


def stack(cluster: str, nodes: int) -> str:
    return f"""\
config:
  aws:region: us-east-1
  prescale:cluster: {{name: {cluster}}}
  prescale:calendar: calendar.yaml
  prescale:nodePools: [{{name: event, limits: {{cpu: "512", memory: 2048Gi}}}}]
  prescale:eventWindows:
    - {{name: black-friday, nodePool: event, event: black-friday-2027, nodes: {nodes}}}
"""


@pytest.fixture
def project(tmp_path) -> Path:
    directory = make_project(tmp_path, program="", stacks={"prod": stack("prod", 40), "dr": stack("dr", 20),
                                                           "staging": stack("staging", 2)})
    (directory / "calendar.yaml").write_text(CALENDAR)
    return directory


def starts(capsys, project: Path) -> dict[str, tuple[str, int]]:
    found = {}
    for name in ("prod", "dr", "staging"):
        assert main(["schedule", "--project", str(project), "--stack", name, "--at", "2027-11-01T00:00Z",
                     "--from", "2027-11-20", "--days", "14", "--json"]) == 0
        (occurrence,) = json.loads(capsys.readouterr().out)["occurrences"]
        found[name] = (occurrence["startUtc"], occurrence["nodes"])
    return found


def test_three_stacks_take_the_events_times_and_move_with_it(capsys, project):
    assert starts(capsys, project) == {"prod": ("2027-11-26T11:00:00Z", 40), "dr": ("2027-11-26T11:00:00Z", 20),
                                       "staging": ("2027-11-26T11:00:00Z", 2)}
    (project / "calendar.yaml").write_text(CALENDAR.replace("06:00", "05:00"))
    assert {start for start, _ in starts(capsys, project).values()} == {"2027-11-26T10:00:00Z"}


def test_a_missing_calendar_file_is_one_clear_line(capsys, project):
    (project / "calendar.yaml").unlink()
    assert main(["schedule", "--project", str(project), "--stack", "prod", "--at", "2027-11-01T00:00Z"]) == 1
    err = capsys.readouterr().err
    assert "prescale:calendar: " in err and "does not exist" in err and "relative to the project directory" in err


def test_an_ics_calendar_serves_as_the_shared_file(capsys, project):
    (project / "events.ics").write_text(
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\nBEGIN:VEVENT\r\nUID:1@test\r\n"
        "SUMMARY:Black Friday 2027\r\nDTSTART;TZID=America/New_York:20271126T040000\r\n"
        "DTEND;TZID=America/New_York:20271126T230000\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n")
    for name in ("prod", "dr", "staging"):
        path = project / f"Pulumi.{name}.yaml"
        path.write_text(path.read_text().replace("calendar.yaml", "events.ics"))
    assert {start for start, _ in starts(capsys, project).values()} == {"2027-11-26T09:00:00Z"}


def test_a_stack_importing_an_esc_environment_is_told_what_the_offline_commands_cannot_see(capsys, project):
    path = project / "Pulumi.prod.yaml"
    without = path.read_text().replace("  prescale:calendar: calendar.yaml\n", "")
    path.write_text("environment: [retail/calendar]\n" + without)
    assert main(["schedule", "--project", str(project), "--stack", "prod", "--at", "2027-11-01T00:00Z"]) == 1
    err = capsys.readouterr().err
    assert "imports the Pulumi ESC environment(s) ['retail/calendar'], which prescale's offline commands cannot " \
           "resolve" in err
    assert "and this stack has no prescale:calendar" in err


def test_prune_lists_and_removes_ended_calendar_events_no_stack_takes(capsys, project):
    (project / "calendar.yaml").write_text(CALENDAR + """\
  # last year's sale, over
  - {name: black-friday-2026, timezone: America/New_York, start: "2026-11-27T06:00", end: "2026-11-27T23:00"}
""")
    assert main(["prune", "--project", str(project), "--stack", "prod", "--at", "2027-01-10T00:00Z"]) == 0
    out = capsys.readouterr().out
    assert "black-friday-2026" in out and "black-friday-2027" not in out  # the other is taken, and still ahead
    assert main(["prune", "--project", str(project), "--stack", "prod", "--at", "2027-01-10T00:00Z", "--write"]) == 0
    assert (project / "calendar.yaml").read_text() == CALENDAR
