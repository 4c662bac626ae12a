"""``prescale fleet``: three stacks of one project (two pinned to one account, one not) and their shared calendar,
lined up by event, with what no stack sees alone: an account and region above its vCPU quota, more launches in one
minute than EC2 takes at once, and a stack that gives the event times of its own; and where the instances are (one
stack reserves them in two zones, one lets Karpenter pick among three, one pins none)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from prescale.stack_file import read_stack_file

from prescale_cli import stack as stack_module
from prescale_cli.documents import FleetDocument
from prescale_cli.fleet import _stack_windows
from prescale_cli.main import instant, main
from tests.cli.test_documents import assert_passes
from tests.support.cli import make_project

CALENDAR = """\
events:
  - {name: black-friday-2027, timezone: America/New_York, start: "2027-11-26T06:00", end: "2027-11-26T23:00"}
"""
TYPE = "{key: node.kubernetes.io/instance-type, operator: In, values: [m7i.xlarge]}"
ZONE = "{key: topology.kubernetes.io/zone, operator: In, values: [%s]}"


def stack(cluster: str, nodes: int, account: str | None = None, window: str | None = None, quotas: str = "",
          zones: tuple[str, ...] = (), reserve: bool = False) -> str:
    """A stack file: a node pool of m7i.xlarge (in ``zones`` if any; On-Demand and reserved capacity if
    ``reserve``) and a window of ``nodes`` that takes the calendar's event (or ``window``'s own times)."""
    times = window or "event: black-friday-2027"
    pinned = f"  aws:allowedAccountIds: [\"{account}\"]\n" if account else ""
    requirements = ", ".join([TYPE, *([ZONE % ", ".join(zones)] if zones else [])])
    capacity_types = "capacityTypes: [on-demand, reserved], " if reserve else ""
    reserving = ", reserve: {instanceType: m7i.xlarge}" if reserve else ""
    return f"""\
config:
  aws:region: us-east-1
{pinned}  prescale:cluster: {{name: {cluster}}}
  prescale:calendar: calendar.yaml
{quotas}  prescale:nodePools: [{{name: event, {capacity_types}limits: {{cpu: "4000", memory: 16000Gi}},
                        requirements: [{requirements}]}}]
  prescale:eventWindows:
    - {{name: black-friday-2027, nodePool: event, {times}, nodes: {nodes}{reserving}}}
"""


@pytest.fixture
def project(tmp_path) -> Path:
    own_times = 'timezone: America/New_York, start: "2027-11-26T07:00", end: "2027-11-26T23:00"'
    directory = make_project(tmp_path, program="", stacks={
        "prod": stack("prod", 600, "111111111111", quotas="  prescale:quotas: {standard: 3000}\n",
                      zones=("us-east-1a", "us-east-1b"), reserve=True),
        "dr": stack("dr", 600, "111111111111", zones=("us-east-1a", "us-east-1b", "us-east-1c")),
        "staging": stack("staging", 2, window=own_times)})
    (directory / "calendar.yaml").write_text(CALENDAR)
    return directory


def test_the_fleet_adds_each_event_up_per_account_and_region_and_says_what_no_stack_sees(capsys, project):
    assert main(["fleet", "--project", str(project), "--at", "2027-11-01T00:00Z", "--from", "2027-11-20",
                 "--days", "14", "--json"]) == 1
    document = json.loads(capsys.readouterr().out)
    assert_passes(FleetDocument, document)
    assert document["stacks"] == ["dr", "prod", "staging"]
    (event,) = document["events"]
    assert event["event"] == "black-friday-2027"
    assert {(item["stack"], item["nodes"], item["vcpus"], item["scaleUp"]) for item in event["stacks"]} == {
        ("prod", 600, 2400, "2027-11-26T10:50:00Z"), ("dr", 600, 2400, "2027-11-26T10:50:00Z"),
        ("staging", 2, 8, "2027-11-26T11:50:00Z")}
    assert event["regions"] == [
        {"account": None, "region": "us-east-1", "vcpusByFamily": {"standard": 8}, "quota": {},
         "launchesPerMinute": 2, "instances": [{"instanceType": "m7i.xlarge", "zones": [], "count": 2}]},
        {"account": "111111111111", "region": "us-east-1", "vcpusByFamily": {"standard": 4800},
         "quota": {"standard": 3000}, "launchesPerMinute": 1200, "instances": [
             # prod's reservations, one per zone; dr's nodes in the zones its pool allows, not split over them
             {"instanceType": "m7i.xlarge", "zones": ["us-east-1a"], "count": 300},
             {"instanceType": "m7i.xlarge", "zones": ["us-east-1a", "us-east-1b", "us-east-1c"], "count": 600},
             {"instanceType": "m7i.xlarge", "zones": ["us-east-1b"], "count": 300}]}]
    problems = document["problems"]
    assert len(problems) == 3
    assert problems[0].startswith("event 'black-friday-2027': its stacks give it different times")
    assert "4800 standard vCPUs on 111111111111 in us-east-1, above its On-Demand quota of 3000" in problems[1]
    assert "1200 instances launch within one minute on 111111111111 in us-east-1" in problems[2]


def test_a_quota_given_on_the_command_line_and_the_text_output(capsys, project):
    assert main(["fleet", "--project", str(project), "--at", "2027-11-01T00:00Z", "--from", "2027-11-20",
                 "--stacks", "staging", "--quota", "standard=4"]) == 1
    out = capsys.readouterr().out
    assert "Event black-friday-2027" in out and "not pinned" in out
    # 2 nodes at prescale:pricing's default $0.05 per vCPU-hour, in whichever zone Karpenter picks
    assert "2 m7i.xlarge in any zone" in out and "$0.40" in out
    assert "8 standard vCPUs on an account not pinned (aws:allowedAccountIds) in us-east-1, above its On-Demand " \
           "quota of 4" in out


def test_the_account_comes_from_the_one_read_of_the_stack_file(monkeypatch, project):
    """The stack file is read once per stack: the validated config and the provider's allowedAccountIds from it."""
    reads = []

    def counted(directory: Path, name: str) -> dict[str, str]:
        reads.append(name)
        return read_stack_file(directory, name)

    monkeypatch.setattr(stack_module, "read_stack_file", counted)
    now = instant("2027-11-01T00:00Z")
    windows, problems, quotas = _stack_windows(str(project), "prod", "prod", now, instant("2027-11-20"), 14)
    assert (reads, problems) == (["prod"], [])
    assert {window.account for window in windows} == {"111111111111"}
    assert quotas == {("111111111111", "us-east-1"): {"standard": 3000}}


def test_stacks_of_several_projects_add_up_in_one_fleet(capsys, tmp_path, project):
    """A second project (another team's program) whose stack takes the same calendar event in the same account."""
    other = make_project(tmp_path / "payments", program="", stacks={"prod": stack("payments", 100, "111111111111")})
    (other / "calendar.yaml").write_text(CALENDAR)
    assert main(["fleet", "--project", str(project), "--project", str(other), "--at", "2027-11-01T00:00Z",
                 "--from", "2027-11-20", "--days", "14", "--json"]) == 1
    (event,) = json.loads(capsys.readouterr().out)["events"]
    # Named by their project's directory where several projects are read, so two `prod` stacks stay apart.
    ours = {f"{project.name}/{name}" for name in ("dr", "prod", "staging")}
    assert {item["stack"] for item in event["stacks"]} == ours | {"payments/prod"}
    pinned = next(region for region in event["regions"] if region["account"] == "111111111111")
    assert pinned["vcpusByFamily"] == {"standard": 4800 + 400}
