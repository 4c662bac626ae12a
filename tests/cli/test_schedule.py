"""``prescale schedule``: occurrence instants checked by hand for daily, weekday (across a DST change),
cross-midnight and one-off windows in their zones; overlaps, freezes, the cost estimate, the PNG, errors."""

from __future__ import annotations

import contextlib
import io
import json
from datetime import datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import matplotlib.dates as mdates
import matplotlib.pyplot as plt
import pytest
from matplotlib.axes import Axes
from matplotlib.collections import LineCollection
from matplotlib.colors import to_rgba
from matplotlib.figure import Figure
from PIL import Image
from prescale.model.plan import plan_capacity

from prescale_cli.main import main
from prescale_cli.picture import RESOLUTION, week_figure
from prescale_cli.stack import load_config
from prescale_cli.timeline import build_timeline
from tests.support.cli import ROOT, make_project

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
SHORT_STACK = """\
config:
  aws:region: ap-northeast-2
  prescale:cluster: {name: prescale-test}
  prescale:nodePools: [{name: event, limits: {cpu: "512", memory: 2048Gi}}]
  prescale:eventWindows:
    - {name: quarter-hour, nodePool: event, timezone: Asia/Seoul, start: "15 11 * * *", end: "30 11 * * *", nodes: 5}
    - {name: three-hours, nodePool: event, timezone: Asia/Seoul, start: "0 8 * * *", end: "0 11 * * *", nodes: 5}
"""
BERLIN_STACK = """\
config:
  aws:region: eu-central-1
  prescale:cluster: {name: prescale-test}
  prescale:nodePools: [{name: event, limits: {cpu: "512", memory: 2048Gi}}]
  prescale:eventWindows:
    - {name: night, nodePool: event, timezone: Europe/Berlin, start: "0 1 * * *", end: "0 4 * * *", nodes: 3}
    - {name: office, nodePool: event, timezone: Europe/Berlin, start: "0 9 * * *", end: "0 17 * * *", nodes: 10}
"""
PRICED = '  prescale:pricing: {instanceTypes: {"m7i.large": 0.1008, "c7i.large": 0.08925, "m7g.large": 0.0816}}\n'

BEFORE = "2027-03-01T00:00:00+00:00"  # "now" for most tests: every window still to come


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    return make_project(tmp_path_factory.mktemp("schedule"), program="", stacks={
        "test": STACK, "cost": COST_STACK, "short": SHORT_STACK, "berlin": BERLIN_STACK, "priced": COST_STACK + PRICED,
        "broken": STACK.replace("Asia/Tokyo", "Asia/Tokio"),
        "unparsable": STACK.replace("nodes: 2, leadTime: 30m}", "nodes: 2, leadTime: 30m")})


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
        "2027-03-11T22:45:00Z", "2027-03-11T23:00:00Z", "2027-03-12T02:00:00Z")
    assert (first["nodes"], first["capacity"], first["timezone"], first["oneOff"]) == (10, None, "Asia/Seoul", False)
    assert [o["start"][:10] for o in occurrences_of(week_of_march, "seoul-daily")] == [
        "2027-03-12", "2027-03-13", "2027-03-14", "2027-03-15", "2027-03-16"]


def test_weekday_window_skips_the_weekend_and_follows_dst(week_of_march):
    friday, monday = occurrences_of(week_of_march, "ny-weekdays")
    assert instants(friday, "scaleUp", "start", "end") == (
        "2027-03-12T08:30:00-05:00", "2027-03-12T09:00:00-05:00", "2027-03-12T17:00:00-05:00")
    assert friday["scaleUpUtc"] == "2027-03-12T13:30:00Z"
    assert instants(monday, "scaleUp", "start", "end") == (
        "2027-03-15T08:30:00-04:00", "2027-03-15T09:00:00-04:00", "2027-03-15T17:00:00-04:00")
    assert monday["scaleUpUtc"] == "2027-03-15T12:30:00Z"  # same wall clock, an hour earlier in UTC


def test_cross_midnight_window_ends_the_next_day(week_of_march):
    (night,) = occurrences_of(week_of_march, "berlin-friday-night")
    assert instants(night, "scaleUp", "start", "end") == (
        "2027-03-12T21:50:00+01:00", "2027-03-12T22:00:00+01:00", "2027-03-13T02:00:00+01:00")
    assert instants(night, "scaleUpUtc", "endUtc") == ("2027-03-12T20:50:00Z", "2027-03-13T01:00:00Z")


def test_one_off_appears_once_in_its_zone(week_of_march):
    (launch,) = occurrences_of(week_of_march, "tokyo-launch")
    assert instants(launch, "scaleUp", "start", "end") == (
        "2027-03-13T09:40:00+09:00", "2027-03-13T10:00:00+09:00", "2027-03-13T12:00:00+09:00")
    assert (launch["scaleUpUtc"], launch["oneOff"]) == ("2027-03-13T00:40:00Z", True)


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
    assert "warning: event window 'tokyo-launch': one-off event is not armed yet" in out
    assert early["warnings"][0].startswith("event window 'tokyo-launch': one-off event is not armed yet")


def test_json_shape_and_offsets(week_of_march):
    assert list(week_of_march) == ["schemaVersion", "stack", "from", "until", "now", "occurrences", "overlaps",
                                   "freezes", "cost", "reservations", "nextUpForReservations", "warnings"]
    assert (week_of_march["from"], week_of_march["now"]) == ("2027-03-12T00:00:00Z", "2027-03-01T00:00:00Z")
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
    assert overlaps[0] == {"nodePool": "batch", "from": "2027-03-12T20:50:00Z",
                           "until": "2027-03-12T22:00:00Z", "windows": ["ny-weekdays", "berlin-friday-night"],
                           "pods": 5, "cpu": "5", "memory": "10Gi"}
    assert {"nodePool": "event", "from": "2027-03-13T00:40:00Z", "until": "2027-03-13T02:00:00Z",
            "windows": ["seoul-daily", "seoul-overlap", "tokyo-launch"], "pods": 16, "cpu": "22",
            "memory": "60Gi"} in overlaps


def test_table_shows_local_and_utc_times(capsys, project):
    code, out, _ = schedule(capsys, project, "--from", "2027-03-12T00:00Z", "--days", "4")
    assert code == 0
    rows = [" ".join(line.split()) for line in out.splitlines()]
    assert ("berlin-friday-night batch Fri 2027-03-12 21:50 → 22:00 – Sat 03-13 02:00 CET "
            "Fri 2027-03-12 20:50 → 21:00 – Sat 03-13 01:00 3 nodes (1 CPU/2Gi free) 12:30 – Sat 03-13 01:00") in rows
    assert any(row.startswith("ny-weekdays batch Mon 2027-03-15 08:30 → 09:00 – 17:00 EDT") for row in rows)
    # People copy "KST" into stack files, which refuse it: the legend gives the zone to write instead.
    assert ("Local times: KST = Asia/Seoul (seoul-daily, seoul-overlap); EST/EDT = America/New_York (ny-weekdays); "
            "CET = Europe/Berlin (berlin-friday-night); JST = Asia/Tokyo (tokyo-launch)") in out.splitlines()
    assert "NOT FROZEN" not in out and "Overlaps" in out and "Consolidation freezes" in out
    assert "Pool event:" in out and "\x1b[" not in out


@pytest.mark.parametrize(("day", "row", "zones", "end"), [
    # Sun 2027-03-28: 02:00 CET becomes 03:00 CEST; Sun 2027-10-31: 03:00 CEST becomes 02:00 CET.
    ("2027-03-28", "Sun 2027-03-28 00:50 CET → 01:00 CET – 04:00 CEST", ("CET", "CET", "CEST"),
     "2027-03-28T04:00:00+02:00"),
    ("2027-10-31", "Sun 2027-10-31 00:50 CEST → 01:00 CEST – 04:00 CET", ("CEST", "CEST", "CET"),
     "2027-10-31T04:00:00+01:00")])
def test_each_local_time_carries_its_own_zone_abbreviation(capsys, project, day, row, zones, end):
    options = {"stack": "berlin", "at": "2027-01-01T00:00Z"}
    code, out, _ = schedule(capsys, project, "--from", f"{day}T00:00Z", "--days", "1", **options)
    rows = [" ".join(line.split()) for line in out.splitlines()]
    assert code == 0 and any(line.startswith(f"night event {row} ") for line in rows)
    office = next(line for line in rows if line.startswith("office event"))  # all after the change: said once
    assert f"09:00 – 17:00 {zones[2]} " in office
    doc = document(capsys, project, "--from", f"{day}T00:00Z", "--days", "1", **options)
    (night,) = [o for o in occurrences_of(doc, "night") if o["start"].startswith(day)]
    assert night["end"] == end
    assert night["zoneAbbreviations"] == dict(zip(("scaleUp", "start", "end"), zones))


def test_png_gives_each_local_time_its_zone_across_a_dst_change(week):
    figure, axis = week("2027-03-25T00:00Z", stack="berlin", at="2027-01-01T00:00Z")
    assert figure.get_suptitle() == ("Event windows, Thu 2027-03-25 01:00 CET to Thu 2027-04-01 02:00 CEST "
                                     "(Europe/Berlin)")
    assert axis.get_xlabel() == "hour of the day in CET/CEST (Europe/Berlin)"
    # Thu–Sat in CET and Mon–Wed in CEST, the same clock times; Sunday's night starts in CET and ends in CEST.
    assert ("night  ·  3 nodes (1 CPU/2Gi free)\n"
            "00:50 → 01:00 – 04:00 CET/CEST\n00:50 CET → 01:00 CET – 04:00 CEST") in row_labels(axis)


def test_cost_counts_node_hours_to_the_freeze_end_when_it_outlasts_the_event(capsys, project):
    # Summer in Berlin: 09:00–17:00 CEST is 07:00–15:00 UTC, but Karpenter's budget is UTC and must also cover
    # winter's 08:00–16:00 UTC, so it runs from the 06:50 scale-up (lead time 10m) for 9h10m, to 16:00 UTC.
    # The 10 nodes stay until then plus consolidateAfter (2m): 06:50 → 16:02 = 9h12m, 92 node-hours, not 82.
    doc = document(capsys, project, "--from", "2027-07-01T00:00Z", "--days", "1", stack="berlin",
                   at="2027-01-01T00:00Z")
    (office,) = occurrences_of(doc, "office")
    assert (office["scaleUpUtc"], office["endUtc"]) == ("2027-07-01T06:50:00Z", "2027-07-01T15:00:00Z")
    assert office["frozen"] == {"from": "2027-07-01T06:50:00Z", "until": "2027-07-01T16:00:00Z"}
    (cost,) = [window for window in doc["cost"]["windows"] if window["window"] == "office"]
    assert (cost["nodesEstimated"], cost["nodeHours"]) == (10, 92.0)


def test_cost_counts_node_hours_until_the_freeze_ends_plus_consolidation(capsys, project):
    # One whole occurrence: 22:45Z scale-up to 02:00Z end, plus consolidateAfter 2m = 3h17m, 10 nodes.
    per_vcpu = document(capsys, project, "--from", "2027-03-12T12:00Z", "--days", "1", stack="cost")["cost"]
    (window,) = per_vcpu["windows"]
    # Priced per vCPU: of the 2-vCPU types that hold a 1 CPU / 2Gi placeholder, the newest generation with the least
    # memory (then by name): a real type the pool can launch.
    assert (window["instanceType"], window["nodesEstimated"], window["pricePerNodeHour"]) == ("c8a.large", 10, 0.1)
    assert (window["nodeHours"], window["cost"], window["costPerWeek"]) == (32.83, 3.28, 22.98)
    assert (window["allDayCost"], per_vcpu["nodePools"][0]["allDayCost"]) == (24.0, 24.0)
    # Priced types: the pool is amd64 (no m7g), and 2Gi fits on a c7i.large (3114Mi allocatable by Karpenter's
    # figure, 2858Mi after DaemonSets), the cheapest.
    priced = document(capsys, project, "--from", "2027-03-12T12:00Z", "--days", "1", stack="priced")["cost"]
    (window,) = priced["windows"]
    assert (window["instanceType"], window["pricePerNodeHour"], window["cost"]) == ("c7i.large", 0.0892, 2.93)


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


@pytest.fixture(scope="module")
def week(project):
    """Pictures of a week of the project's stacks, each drawn once (so extents are real), closed at the end."""
    figures: dict[tuple[str, str, str], Figure] = {}

    def draw(since: str, stack: str = "test", at: str = BEFORE) -> tuple[Figure, Axes]:
        if (since, stack, at) not in figures:
            now, start = datetime.fromisoformat(at), datetime.fromisoformat(since)
            config = load_config(project, stack, now)
            figure = week_figure(build_timeline(plan_capacity(config, now), start, start + timedelta(days=7)))
            figure.canvas.draw()
            figures[since, stack, at] = figure
        figure = figures[since, stack, at]
        return figure, figure.axes[0]

    yield draw
    for figure in figures.values():
        plt.close(figure)


def drawn_windows(axis: Axes, kind: str = "event") -> set[str]:
    gids = [patch.get_gid() or "" for patch in axis.patches]
    return {gid.split(":", 1)[1] for gid in gids if gid.startswith(f"{kind}:")}


def row_labels(axis: Axes) -> list[str]:
    return [label.get_text() for label in axis.get_yticklabels()]


def test_png_lists_only_the_windows_it_draws(week):
    # 2027-03-20 to 03-27: the Tokyo one-off (03-13) is over; every other window recurs.
    _, axis = week("2027-03-20T00:00Z")
    assert drawn_windows(axis) == {"seoul-daily", "seoul-overlap", "ny-weekdays", "berlin-friday-night"}
    labels = row_labels(axis)
    assert not any("tokyo-launch" in label for label in labels)
    assert [label.split("  ·  ")[0] for label in labels] == [
        "NodePool event", "seoul-daily", "seoul-overlap", "NodePool batch", "ny-weekdays", "berlin-friday-night"]
    _, launch_week = week("2027-03-12T00:00Z")
    assert "tokyo-launch" in drawn_windows(launch_week)
    labels = row_labels(launch_week)
    assert "tokyo-launch  ·  4 nodes (1 CPU/2Gi free)\nSat 03-13 09:40 → 10:00 – 12:00 JST" in labels
    # New York changes to EDT on Sun 03-14: the same wall-clock times, both abbreviations, said once.
    assert "ny-weekdays  ·  2 nodes (1 CPU/2Gi free)\n08:30 → 09:00 – 17:00 EST/EDT" in labels


def test_png_marks_a_window_not_armed_yet(week):
    figure, axis = week("2027-03-12T00:00Z", at="2026-01-01T00:00Z")  # the one-off is more than a year ahead
    (launch,) = [patch for patch in axis.patches if patch.get_gid() == "event:tokyo-launch"]
    assert launch.get_hatch() == "///"
    assert not any(patch.get_hatch() for patch in axis.patches if patch.get_gid() == "event:seoul-daily")
    assert any(label.startswith("tokyo-launch") and label.endswith("(not armed yet)") for label in row_labels(axis))
    key = [text.get_text() for text in figure.legends[0].get_texts()]
    assert "not armed yet (deployed by a later pulumi up)" in key
    assert not any((patch.get_gid() or "").startswith("frozen:tokyo-launch") for patch in axis.patches)


def test_png_key_lists_only_what_is_drawn_and_never_covers_the_title(week):
    figure, axis = week("2027-03-20T00:00Z")
    (key,) = figure.legends
    assert [text.get_text() for text in key.get_texts()] == [
        "placeholders up before the event (lead time)", "event window", "consolidation frozen",
        "windows overlap on the NodePool"]  # every occurrence is frozen: no "NOT frozen" entry
    title = figure.get_suptitle()
    assert title == "Event windows, Sat 2027-03-20 00:00 to Sat 2027-03-27 00:00 UTC"
    renderer = figure.canvas.get_renderer()
    key_box = key.get_window_extent(renderer)
    assert not key_box.overlaps(figure._suptitle.get_window_extent(renderer))
    assert not key_box.overlaps(axis.get_window_extent(renderer))
    _, quiet = week("2027-03-20T00:00Z", stack="cost")  # one window: nothing overlaps
    assert "windows overlap on the NodePool" not in [text.get_text() for text in quiet.figure.legends[0].get_texts()]


def test_png_key_shows_the_colours_of_the_bars(week):
    figure, axis = week("2027-03-12T00:00Z")
    (key,) = figure.legends
    shown = {text.get_text(): handle for text, handle in zip(key.get_texts(), key.legend_handles)}

    def drawn(kind: str) -> set[tuple[float, ...]]:
        return {to_rgba(patch.get_facecolor()) for patch in axis.patches
                if (patch.get_gid() or "").split(":")[0] == kind}

    assert drawn("lead") == {to_rgba(shown["placeholders up before the event (lead time)"].get_facecolor())}
    assert drawn("event") == {to_rgba(shown["event window"].get_facecolor())}
    assert drawn("frozen") == {to_rgba(shown["consolidation frozen"].get_color())}
    assert drawn("overlap") == {to_rgba(shown["windows overlap on the NodePool"].get_facecolor())}


def test_png_hours_are_labelled_in_the_windows_zone_when_they_share_one(week):
    figure, axis = week("2027-03-20T00:00Z", stack="cost")  # Seoul only
    assert axis.get_xlabel() == "hour of the day in KST (Asia/Seoul)"
    assert figure.get_suptitle().endswith("KST (Asia/Seoul)")
    seoul = ZoneInfo("Asia/Seoul")
    ticks = [(mdates.num2date(value, tz=seoul), label.get_text())
             for value, label in zip(axis.get_xticks(), axis.get_xticklabels())]
    assert len(ticks) == 28 and all(moment.hour in (0, 6, 12, 18) and moment.minute == 0 and
                                    text == f"{moment:%H:%M}" for moment, text in ticks)
    (top,) = axis.child_axes  # day names, above the hours
    assert [label.get_text() for label in top.get_xticklabels()] == [
        "Sat 03-20", "Sun 03-21", "Mon 03-22", "Tue 03-23", "Wed 03-24", "Thu 03-25", "Fri 03-26"]
    # A mark at every hour of the zone along the bottom (one collection of 168 marks for the week).
    (marks,) = [collection for collection in axis.collections if isinstance(collection, LineCollection)]
    hours = [mdates.num2date(segment[0][0], tz=seoul) for segment in marks.get_segments()]
    assert len(hours) == 7 * 24 and all(hour.minute == 0 for hour in hours)
    assert all(later - earlier == timedelta(hours=1) for earlier, later in zip(hours, hours[1:]))
    # Several zones: UTC, said in the axis label; each row keeps its window's own times.
    _, mixed = week("2027-03-20T00:00Z")
    assert mixed.get_xlabel() == "hour of the day in UTC; each window's own times are in its label"
    assert any(label.startswith("ny-weekdays") and "08:30 → 09:00 – 17:00 EDT" in label
               for label in row_labels(mixed))


def test_png_short_windows_are_drawn_to_scale_with_a_marker(week):
    _, axis = week("2027-03-20T00:00Z", stack="short")
    span = axis.get_xlim()[1] - axis.get_xlim()[0]
    quarter_hour = 15 / (24 * 60)
    assert quarter_hour < RESOLUTION * span
    bars = [patch for patch in axis.patches if patch.get_gid() == "event:quarter-hour"]
    assert len(bars) == 7 and all(bar.get_width() == pytest.approx(quarter_hour) for bar in bars)
    # Never longer than its freeze (11:05–11:30, 25 minutes): the marker is a point above each bar, not a bar.
    freezes = [patch for patch in axis.patches if patch.get_gid() == "frozen:quarter-hour"]
    assert all(bar.get_width() < freeze.get_width() for bar, freeze in zip(bars, freezes))
    markers = [line for line in axis.lines if line.get_gid() == "short:quarter-hour"]
    assert sorted(line.get_xdata()[0] for line in markers) == pytest.approx(
        sorted(bar.get_x() + bar.get_width() / 2 for bar in bars))
    (label,) = [label for label in row_labels(axis) if label.startswith("quarter-hour")]
    assert label.endswith("11:05 → 11:15 – 11:30 KST")
    long_bars = [patch for patch in axis.patches if patch.get_gid() == "event:three-hours"]
    assert all(bar.get_width() == pytest.approx(3 / 24) for bar in long_bars)
    assert not any(line.get_gid() == "short:three-hours" for line in axis.lines)


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


def test_stack_file_that_is_not_yaml_exits_1_with_one_line_naming_file_line_and_column(capsys, project):
    code, out, err = schedule(capsys, project, stack="unparsable")
    assert code == 1 and out == ""
    assert err == (f"prescale: {project / 'Pulumi.unparsable.yaml'}, line 14, column 7: not valid YAML: expected ',' "
                   "or '}', but got '{' (while parsing a flow mapping that starts at line 12, column 7)\n")


@pytest.mark.parametrize("args", [["--days", "0"], ["--days", "many"], ["--from", "next week"]])
def test_bad_range_is_a_usage_error(args, capsys, project):
    with pytest.raises(SystemExit) as exited:
        schedule(capsys, project, *args)
    assert exited.value.code == 2


def test_the_cost_estimate_says_what_the_tail_after_each_end_costs(capsys, project):
    # 10 × c8a.large at $0.10/h; after each end: KEDA's cooldown 1m + consolidateAfter 2m + drain 1m = 4m,
    # or, if KEDA never scales down, failsafeGrace 15m + 2m + 1m = 18m.
    code, out, _ = schedule(capsys, project, "--from", "2027-03-12T12:00Z", "--days", "1", stack="cost")
    rows = [" ".join(line.split()) for line in out.splitlines()]
    assert code == 0 and "Tail after each window (the cost above counts only consolidateAfter of it)" in rows
    assert "seoul-daily 4m $0.07 18m $0.30" in rows
    assert "KEDA's cooldown (1m), then the pool's consolidateAfter, then about 1m to drain" in " ".join(rows)
    assert "the failsafe does at the end + failsafeGrace (15m) instead of the cooldown" in " ".join(rows)
    code, out, _ = schedule(capsys, project, "--from", "2027-03-12T12:00Z", "--days", "1", "--json", stack="cost")
    assert code == 0 and {"window": "seoul-daily", "strategy": "placeholders", "nodesStayAfterEnd": "4m",
                          "costPerEnd": 0.07, "ifKedaFailsStay": "18m",
                          "ifKedaFailsCostPerEnd": 0.3} in json.loads(out)["cost"]["tails"]


def test_schedule_repeats_the_one_off_warnings_of_pulumi_up(capsys, project):
    code, out, _ = schedule(capsys, project, "--from", "2027-03-12T00:00Z", "--days", "4")
    text = " ".join(out.split())
    assert code == 0 and ("warning: event window 'tokyo-launch': one-off event: its consolidation freeze on node "
                          "pool 'event' (UTC budget '40 0 13 3 *' for 2h20m) has no year, so it freezes the pool again "
                          "on the same date every year until a `pulumi up` after the event removes it; run `pulumi up` "
                          "after 2027-03-13 12:00 JST (Asia/Tokyo)") in text
    code, later, _ = schedule(capsys, project, "--days", "1", at="2027-03-14T00:00:00+00:00")  # over: not deployed
    warnings = [line for line in later.splitlines() if line.startswith("warning:")]
    assert code == 0 and "seoul-daily" in later and warnings == [  # as `pulumi up` says it: remove it from config
        "warning: event window 'tokyo-launch': one-off event ended at 2027-03-13 12:00 JST (Asia/Tokyo); nothing is "
        "deployed for it (its dated crons would fire again next year); remove it from prescale:eventWindows"]
