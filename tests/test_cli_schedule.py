"""``prescale schedule``: occurrence instants checked by hand for daily, weekday (across a DST change),
cross-midnight and one-off windows in their zones; overlaps, freezes, the cost estimate, the PNG, errors."""

from __future__ import annotations

import contextlib
import io
import json
from datetime import datetime
from pathlib import Path

import pytest
from PIL import Image

from prescale_cli.main import main
from tests.cli_support import ROOT, make_project

STACK = """\
config:
  aws:region: ap-northeast-2
  prescale:cluster: {name: prescale-test}
  prescale:nodePools:
    - {name: event, instanceCategories: [c, m], limits: {cpu: "512", memory: 2048Gi}}
    - {name: batch, limits: {cpu: "64", memory: 256Gi}}
  prescale:eventWindows:
    - {name: seoul-daily, nodePool: event, timezone: Asia/Seoul, start: "0 8 * * *", end: "0 11 * * *",
       nodes: 10, leadTime: 15m}
    - {name: seoul-overlap, nodePool: event, timezone: Asia/Seoul, start: "0 10 * * *", end: "0 12 * * *",
       capacity: {cpu: "8", memory: 32Gi}, leadTime: 30m}
    - {name: ny-weekdays, nodePool: batch, timezone: America/New_York, start: "0 9 * * 1-5",
       end: "0 17 * * 1-5", nodes: 2, leadTime: 30m}
    - {name: berlin-friday-night, nodePool: batch, timezone: Europe/Berlin, start: "0 22 * * 5",
       end: "0 2 * * 6", nodes: 3, leadTime: 10m}
    - {name: tokyo-launch, nodePool: event, timezone: Asia/Tokyo, start: "2027-03-13T10:00",
       end: "2027-03-13T12:00", nodes: 4, leadTime: 20m}
"""

COST_STACK = """\
config:
  aws:region: ap-northeast-2
  prescale:cluster: {name: prescale-test}
  prescale:nodePools: [{name: event, instanceCategories: [c, m], limits: {cpu: "512", memory: 2048Gi}}]
  prescale:eventWindows:
    - {name: seoul-daily, nodePool: event, timezone: Asia/Seoul, start: "0 8 * * *", end: "0 11 * * *",
       nodes: 10, leadTime: 15m}
"""
PRICED = '  prescale:pricing: {instanceTypes: {"m7i.large": 0.1008, "c7i.large": 0.08925, "m7g.large": 0.0816}}\n'

BEFORE = "2027-03-01T00:00:00+00:00"  # "now" for most tests: every window still to come


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    return make_project(tmp_path_factory.mktemp("schedule"), program="", stacks={
        "test": STACK, "cost": COST_STACK, "priced": COST_STACK + PRICED,
        "broken": STACK.replace("Asia/Tokyo", "Asia/Tokio")})


def schedule(capsys, project: Path, *args: str, stack: str = "test", at: str = BEFORE) -> tuple[int, str, str]:
    code = main(["schedule", "--project", str(project), "--stack", stack, "--at", at, *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def document(capsys, project: Path, *args: str, **options) -> dict:
    code, out, err = schedule(capsys, project, "--json", *args, **options)
    assert code == 0, err
    return json.loads(out)


@pytest.fixture(scope="module")
def week_of_march(project) -> dict:
    """Fri 2027-03-12 to Tue 03-16 UTC: New York moves to EDT on Sun 03-14; Berlin and Tokyo do not."""
    out = io.StringIO()  # a module-scoped fixture cannot use capsys
    with contextlib.redirect_stdout(out):
        assert main(["schedule", "--project", str(project), "--stack", "test", "--at", BEFORE, "--json",
                     "--from", "2027-03-12T00:00Z", "--days", "4"]) == 0
    return json.loads(out.getvalue())


def occurrences_of(doc: dict, window: str) -> list[dict]:
    return [o for o in doc["occurrences"] if o["window"] == window]


def instants(occurrence: dict, *keys: str) -> tuple[str, ...]:
    return tuple(occurrence[key] for key in keys)


def test_daily_window_in_its_zone_and_in_utc(week_of_march):
    first = occurrences_of(week_of_march, "seoul-daily")[0]
    assert instants(first, "scaleUp", "start", "end") == (
        "2027-03-12T07:45:00+09:00", "2027-03-12T08:00:00+09:00", "2027-03-12T11:00:00+09:00")
    assert instants(first, "scaleUpUtc", "startUtc", "endUtc") == (
        "2027-03-11T22:45:00+00:00", "2027-03-11T23:00:00+00:00", "2027-03-12T02:00:00+00:00")
    assert (first["nodes"], first["capacity"], first["timezone"], first["oneOff"]) == (10, None, "Asia/Seoul", False)
    assert [o["start"][:10] for o in occurrences_of(week_of_march, "seoul-daily")] == [
        "2027-03-12", "2027-03-13", "2027-03-14", "2027-03-15", "2027-03-16"]


def test_weekday_window_skips_the_weekend_and_follows_dst(week_of_march):
    friday, monday = occurrences_of(week_of_march, "ny-weekdays")
    assert instants(friday, "scaleUp", "start", "end") == (
        "2027-03-12T08:30:00-05:00", "2027-03-12T09:00:00-05:00", "2027-03-12T17:00:00-05:00")
    assert friday["scaleUpUtc"] == "2027-03-12T13:30:00+00:00"
    assert instants(monday, "scaleUp", "start", "end") == (
        "2027-03-15T08:30:00-04:00", "2027-03-15T09:00:00-04:00", "2027-03-15T17:00:00-04:00")
    assert monday["scaleUpUtc"] == "2027-03-15T12:30:00+00:00"  # same wall clock, an hour earlier in UTC


def test_cross_midnight_window_ends_the_next_day(week_of_march):
    (night,) = occurrences_of(week_of_march, "berlin-friday-night")
    assert instants(night, "scaleUp", "start", "end") == (
        "2027-03-12T21:50:00+01:00", "2027-03-12T22:00:00+01:00", "2027-03-13T02:00:00+01:00")
    assert instants(night, "scaleUpUtc", "endUtc") == ("2027-03-12T20:50:00+00:00", "2027-03-13T01:00:00+00:00")


def test_one_off_appears_once_in_its_zone(week_of_march):
    (launch,) = occurrences_of(week_of_march, "tokyo-launch")
    assert instants(launch, "scaleUp", "start", "end") == (
        "2027-03-13T09:40:00+09:00", "2027-03-13T10:00:00+09:00", "2027-03-13T12:00:00+09:00")
    assert (launch["scaleUpUtc"], launch["oneOff"]) == ("2027-03-13T00:40:00+00:00", True)


def test_one_off_never_recurs_and_is_gone_once_over(capsys, project):
    a_year_later = document(capsys, project, "--from", "2028-03-10T00:00Z", "--days", "7")
    assert occurrences_of(a_year_later, "seoul-daily") and not occurrences_of(a_year_later, "tokyo-launch")
    during = document(capsys, project, "--from", "2027-03-12T00:00Z", "--days", "4", at="2027-03-13T02:00Z")
    assert len(occurrences_of(during, "tokyo-launch")) == 1
    over = document(capsys, project, "--from", "2027-03-12T00:00Z", "--days", "4", at="2027-03-13T03:00Z")
    assert not occurrences_of(over, "tokyo-launch")
    assert "40 0 13 3 *" not in {freeze["schedule"] for freeze in over["freezes"]}  # its budget is gone too


def test_one_off_more_than_a_year_ahead_is_listed_but_not_armed(capsys, project):
    early = document(capsys, project, "--from", "2027-03-12T00:00Z", "--days", "4", at="2026-01-01T00:00Z")
    (launch,) = occurrences_of(early, "tokyo-launch")
    assert (launch["armed"], launch["frozen"]) == (False, None)
    assert "not armed yet" in launch["notArmedReason"]
    assert "40 0 13 3 *" not in {freeze["schedule"] for freeze in early["freezes"]}
    code, out, _ = schedule(capsys, project, "--from", "2027-03-12T00:00Z", "--days", "4", at="2026-01-01T00:00Z")
    assert "Not armed yet: tokyo-launch: one-off event is not armed yet" in out


def test_json_shape_and_offsets(week_of_march):
    assert list(week_of_march) == ["stack", "from", "until", "now", "occurrences", "overlaps", "freezes", "cost"]
    for occurrence in week_of_march["occurrences"]:
        assert {"window", "scaleUp", "start", "end", "nodes", "capacity"} <= set(occurrence)
        for key in ("scaleUp", "start", "end", "scaleUpUtc", "startUtc", "endUtc"):
            assert datetime.fromisoformat(occurrence[key]).utcoffset() is not None
    assert [o["scaleUpUtc"] for o in week_of_march["occurrences"]] == \
        sorted(o["scaleUpUtc"] for o in week_of_march["occurrences"])
    overlap = occurrences_of(week_of_march, "seoul-overlap")[0]
    assert overlap["capacity"] == {"cpu": "8", "memory": "32Gi"}
    assert overlap["placeholders"] == {"pods": 2, "cpu": "4", "memory": "16Gi", "onePerNode": False}


def test_every_occurrence_is_covered_by_a_consolidation_freeze(week_of_march):
    for occurrence in week_of_march["occurrences"]:
        frozen = occurrence["frozen"]
        assert frozen["from"] <= occurrence["scaleUpUtc"] and occurrence["endUtc"] <= frozen["until"]
    assert {(f["nodePool"], f["schedule"], f["duration"]) for f in week_of_march["freezes"]} == {
        ("event", "45 22 * * *", "3h15m"), ("event", "30 0 * * *", "2h30m"), ("event", "40 0 13 3 *", "2h20m"),
        ("batch", "30 12 * * 1-5", "9h30m"), ("batch", "50 19 * * 5", "5h10m")}


def test_overlaps_per_node_pool_add_up_placeholders(week_of_march):
    overlaps = week_of_march["overlaps"]
    assert overlaps[0] == {"nodePool": "batch", "from": "2027-03-12T20:50:00+00:00",
                           "until": "2027-03-12T22:00:00+00:00", "windows": ["ny-weekdays", "berlin-friday-night"],
                           "pods": 5, "cpu": "5", "memory": "10Gi"}
    assert {"nodePool": "event", "from": "2027-03-13T00:40:00+00:00", "until": "2027-03-13T02:00:00+00:00",
            "windows": ["seoul-daily", "seoul-overlap", "tokyo-launch"], "pods": 16, "cpu": "22",
            "memory": "60Gi"} in overlaps


def test_table_shows_local_and_utc_times(capsys, project):
    code, out, _ = schedule(capsys, project, "--from", "2027-03-12T00:00Z", "--days", "4")
    assert code == 0
    rows = [" ".join(line.split()) for line in out.splitlines()]
    assert ("berlin-friday-night batch Fri 2027-03-12 21:50 → 22:00 – Sat 03-13 02:00 CET "
            "Fri 2027-03-12 20:50 → 21:00 – Sat 03-13 01:00 3 nodes (1 CPU/2Gi free) 12:30 – Sat 03-13 01:00") in rows
    assert any(row.startswith("ny-weekdays batch Mon 2027-03-15 08:30 → 09:00 – 17:00 EDT") for row in rows)
    assert "NOT FROZEN" not in out and "Overlaps" in out and "Consolidation freezes" in out
    assert "Pool event:" in out and "\x1b[" not in out


def test_cost_counts_node_hours_until_the_freeze_ends_plus_consolidation(capsys, project):
    # One whole occurrence: 22:45Z scale-up to 02:00Z end, plus consolidateAfter 2m = 3h17m, 10 nodes.
    per_vcpu = document(capsys, project, "--from", "2027-03-12T12:00Z", "--days", "1", stack="cost")["cost"]
    (window,) = per_vcpu["windows"]
    assert (window["instanceType"], window["nodesEstimated"], window["pricePerNodeHour"]) == ("m.large", 10, 0.1)
    assert (window["nodeHours"], window["cost"], window["costPerWeek"]) == (32.83, 3.28, 22.98)
    assert (window["allDayCost"], per_vcpu["nodePools"][0]["allDayCost"]) == (24.0, 24.0)
    # Priced types: the pool is amd64 (no m7g) and 2Gi does not fit on a c7i.large after overhead.
    priced = document(capsys, project, "--from", "2027-03-12T12:00Z", "--days", "1", stack="priced")["cost"]
    (window,) = priced["windows"]
    assert (window["instanceType"], window["pricePerNodeHour"], window["cost"]) == ("m7i.large", 0.1008, 3.31)


def test_one_off_cost_has_no_weekly_figure(week_of_march):
    launch = next(w for w in week_of_march["cost"]["windows"] if w["window"] == "tokyo-launch")
    assert launch["occurrences"] == 1 and launch["costPerWeek"] is None and launch["cost"] > 0


def test_png_is_a_valid_image(capsys, project, tmp_path):
    picture = tmp_path / "week.png"
    code, out, _ = schedule(capsys, project, "--from", "2027-03-12T00:00Z", "--png", str(picture))
    assert code == 0 and f"to {picture}" in out
    assert picture.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    with Image.open(picture) as image:
        assert image.format == "PNG" and image.size[0] == 1400 and image.size[1] > 400


def test_dev_stack_schedule(capsys):
    doc = document(capsys, ROOT, "--from", "2027-03-01T00:00Z", "--days", "7", stack="dev",
                   at="2026-11-30T12:00Z")
    assert {o["window"] for o in doc["occurrences"]} == {"lunch-rush", "morning-peak", "launch-2027"}
    assert len(occurrences_of(doc, "launch-2027")) == 1
    assert occurrences_of(doc, "launch-2027")[0]["scaleUp"] == "2027-03-02T07:40:00-05:00"


def test_invalid_stack_exits_1_with_the_config_message(capsys, project):
    code, out, err = schedule(capsys, project, stack="broken")
    assert code == 1 and out == ""
    assert "prescale:eventWindows[4].timezone: 'Asia/Tokio' is not an IANA time zone" in err
    assert "Traceback" not in err


@pytest.mark.parametrize("args", [["--days", "0"], ["--days", "many"], ["--from", "next week"]])
def test_bad_range_is_a_usage_error(args, capsys, project):
    with pytest.raises(SystemExit) as exited:
        schedule(capsys, project, *args)
    assert exited.value.code == 2


def test_the_cost_estimate_says_what_the_tail_after_each_end_costs(capsys, project):
    # 10 × m.large at $0.10/h; after each end: KEDA's cooldown 1m + consolidateAfter 2m + drain 1m = 4m,
    # or, if KEDA never scales down, failsafeGrace 15m + 2m + 1m = 18m.
    code, out, _ = schedule(capsys, project, "--from", "2027-03-12T12:00Z", "--days", "1", stack="cost")
    rows = [" ".join(line.split()) for line in out.splitlines()]
    assert code == 0 and "Tail after each window (the cost above counts only consolidateAfter of it)" in rows
    assert "seoul-daily 4m $0.07 18m $0.30" in rows
    assert "KEDA's cooldown (1m), then the pool's consolidateAfter, then about 1m to drain" in " ".join(rows)
    assert "the failsafe does at the end + failsafeGrace (15m) instead of the cooldown" in " ".join(rows)


def test_an_armed_one_off_is_said_to_freeze_its_pool_every_year_until_the_next_pulumi_up(capsys, project):
    code, out, _ = schedule(capsys, project, "--from", "2027-03-12T00:00Z", "--days", "4")
    text = " ".join(out.split())
    assert code == 0 and ("Deployed now: tokyo-launch: one-off event: its consolidation freeze on node pool 'event' "
                          "(UTC budget '40 0 13 3 *' for 2h20m) has no year, so it freezes the pool again on the "
                          "same date every year until a `pulumi up` after the event removes it; run `pulumi up` "
                          "after 2027-03-13 12:00 JST") in text
    code, later, _ = schedule(capsys, project, "--days", "1", at="2027-03-14T00:00:00+00:00")  # over: not deployed
    assert code == 0 and "seoul-daily" in later and "Deployed now:" not in later
