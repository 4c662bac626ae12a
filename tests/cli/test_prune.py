"""``prescale prune``: one-off windows whose event is over, listed and removed from the stack file, its other lines
kept as written, only where what is left validates; and `plan`/`schedule`'s pointer to it a week after."""

from __future__ import annotations

import difflib
from datetime import UTC, datetime

from prescale.model.plan import plan_capacity
from prescale.model.validation import load_stack_config

from prescale_cli.main import main
from tests.support.cli import make_project

AT = "2026-12-05T00:00:00Z"  # Black Friday (27 November) is over, the 2027 launch ahead
STACK = """\
# The shop's stack.
config:
  aws:region: ap-northeast-2
  prescale:cluster: {name: shop}
  prescale:nodePools:
    - name: event
      limits: {cpu: "512", memory: 2048Gi}
  prescale:eventWindows:
    # Every day: lunch.
    - name: lunch
      nodePool: event
      timezone: Asia/Seoul
      start: "15 11 * * *"
      end: "30 11 * * *"
      nodes: 5
    # Black Friday 2026: over.
    - name: black-friday
      nodePool: event
      timezone: 'America/New_York'
      start: "2026-11-27T08:00"
      end: "2026-11-27T20:00"
      nodes: 10

    # The 2027 launch, ahead.
    - {name: launch-2027, nodePool: event, timezone: America/New_York, start: "2027-03-02T08:00",
       end: "2027-03-02T14:00", nodes: 4}
  # Alerts stay off.
  prescale:alerts: {prometheusRule: false}
"""


def prune(capsys, tmp_path, *args: str, stack: str = STACK) -> tuple[int, str, str, str]:
    project = make_project(tmp_path, program="", stacks={"shop": stack})
    code = main(["prune", "--project", str(project), "--stack", "shop", "--at", AT, *args])
    out, err = capsys.readouterr()
    return code, out, err, (project / "Pulumi.shop.yaml").read_text()


def removed(before: str, after: str) -> list[str]:
    diff = list(difflib.ndiff(before.splitlines(), after.splitlines()))
    assert not [line for line in diff if line.startswith("+ ")]
    return [line[2:] for line in diff if line.startswith("- ")]


def test_it_lists_the_ended_one_offs_and_leaves_the_file_alone(capsys, tmp_path):
    code, out, _, after = prune(capsys, tmp_path)
    assert code == 0 and after == STACK
    assert "black-friday  event  2026-11-27 20:00 EST (America/New_York)" in out
    assert "launch-2027" not in out and "lunch " not in out
    assert "`prescale prune --stack shop --write` removes them" in out


def test_write_removes_exactly_the_ended_windows_lines_and_its_comment(capsys, tmp_path):
    code, out, _, after = prune(capsys, tmp_path, "--write")
    assert code == 0 and "Removed 1 from Pulumi.shop.yaml" in out
    assert removed(STACK, after) == ["    # Black Friday 2026: over.", "    - name: black-friday",
                                     "      nodePool: event", "      timezone: 'America/New_York'",
                                     '      start: "2026-11-27T08:00"', '      end: "2026-11-27T20:00"',
                                     "      nodes: 10", ""]


def test_the_last_window_goes_with_its_lines_and_the_next_keys_comment_stays(capsys, tmp_path):
    ended_last = STACK.replace('start: "2027-03-02T08:00"', 'start: "2026-12-01T08:00"').replace(
        'end: "2027-03-02T14:00"', 'end: "2026-12-01T14:00"')
    code, _, _, after = prune(capsys, tmp_path, "--write", stack=ended_last)
    assert code == 0
    gone = removed(ended_last, after)
    assert "    # The 2027 launch, ahead." in gone and "  # Alerts stay off." not in gone
    assert after.endswith("  # Alerts stay off.\n  prescale:alerts: {prometheusRule: false}\n")


def test_older_than_keeps_what_ended_more_recently(capsys, tmp_path):
    code, out, _, after = prune(capsys, tmp_path, "--older-than", "9d", "--write")
    assert code == 0 and after == STACK and out.startswith("No one-off window of stack shop ended before")


def test_a_removal_that_would_leave_the_stack_invalid_is_refused_and_the_file_kept(capsys, tmp_path):
    """The pool's reserved capacity comes only from the ended window's reserve: without it the pool is refused."""
    limits = '      limits: {cpu: "512", memory: 2048Gi}\n'
    reserve = "      reserve: {instanceType: m7i.xlarge, availabilityZones: [ap-northeast-2a]}\n"
    reserving = STACK.replace(limits, f"{limits}      capacityTypes: [on-demand, reserved]\n").replace(
        "      nodes: 10\n", f"      nodes: 10\n{reserve}")
    code, _, err, after = prune(capsys, tmp_path, "--write", stack=reserving)
    assert code == 1 and after == reserving
    assert err.startswith("prescale: invalid stack config")
    assert "removing 'black-friday' would leave Pulumi.shop.yaml invalid, so it was left as it is: " \
        "prescale:nodePools[0]" in err


def test_a_stack_that_reads_a_calendar_file_is_checked_with_it(capsys, tmp_path):
    """The rewrite is validated as the project's stack file, so its prescale:calendar path still finds the file."""
    calendar = ('events:\n  - {name: launch-2027, timezone: America/New_York, start: "2027-03-02T08:00", '
                'end: "2027-03-02T14:00"}\n')
    make_project(tmp_path, program="", stacks={})
    (tmp_path / "calendar.yaml").write_text(calendar)
    reading = STACK.replace("  prescale:cluster: {name: shop}\n",
                            "  prescale:cluster: {name: shop}\n  prescale:calendar: calendar.yaml\n")
    code, out, err, after = prune(capsys, tmp_path, "--write", stack=reading)
    assert (code, err) == (0, "") and "Removed 1 from Pulumi.shop.yaml" in out
    assert "name: black-friday" not in after and (tmp_path / "calendar.yaml").read_text() == calendar


def test_the_plan_points_at_prune_a_week_after_a_one_off_ended():
    raw = {"aws:region": "ap-northeast-2", "prescale:cluster": {"name": "shop"},
           "prescale:nodePools": [{"name": "event", "limits": {"cpu": "64"}}],
           "prescale:eventWindows": [{"name": "black-friday", "nodePool": "event", "timezone": "America/New_York",
                                      "start": "2026-11-27T08:00", "end": "2026-11-27T20:00", "nodes": 2}]}

    def warning(now: datetime) -> str:
        (found,) = [w for w in plan_capacity(load_stack_config(raw, now), now).warnings if "black-friday" in w]
        return found

    assert "prescale prune" not in warning(datetime(2026, 12, 4, tzinfo=UTC))  # six days after
    assert "over a week ago: `prescale prune --write` removes it" in warning(datetime(2026, 12, 5, 2, tzinfo=UTC))
