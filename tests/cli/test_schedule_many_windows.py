"""``prescale schedule`` of busy stacks: 60 windows over three pools, whose freezes no longer fit one NodePool
(merged), and windows that overlap. Each node is paid once (checked by hand), the plan's warnings are
repeated, and the picture stays readable."""

from __future__ import annotations

import contextlib
import io
import json
from datetime import datetime, timedelta
from pathlib import Path

import matplotlib.pyplot as plt
import pytest
from prescale.model.plan import plan_capacity

from prescale_cli.main import main
from prescale_cli.node_hours import released
from prescale_cli.picture import MAX_ROWS_PER_POOL, week_figure
from prescale_cli.stack import load_config
from prescale_cli.timeline import build_timeline
from tests.support.cli import make_project

NOW = "2026-11-30T12:00:00+00:00"


def _clock(minutes: int) -> str:
    return f"{minutes % 60} {minutes // 60}"


def sixty_windows() -> str:
    """50 daily 15-minute sales on `web`, 28 minutes apart (Seoul; 10 minutes' lead: 3 minutes between freezes,
    so 50 freezes that fit in 48 budgets only merged), 7 weekday windows on `api`, 3 Sunday ones on `batch`."""
    windows = [f'{{name: sale-{i:02d}, nodePool: web, timezone: Asia/Seoul, start: "{_clock(28 * i)} * * *", '
               f'end: "{_clock(28 * i + 15)} * * *", nodes: {3 + i % 4}}}' for i in range(50)]
    windows += [f'{{name: api-{i}, nodePool: api, timezone: Europe/Berlin, start: "{_clock(540 + 60 * i)} * * 1-5", '
                f'end: "{_clock(630 + 60 * i)} * * 1-5", capacity: {{cpu: "{8 * (i + 1)}", memory: {32 * (i + 1)}Gi}}}}'
                for i in range(7)]
    windows += [f'{{name: batch-{i}, nodePool: batch, timezone: America/New_York, start: "0 {18 + i} * * 0", '
                f'end: "0 {20 + i} * * 0", nodes: 4, leadTime: 30m}}' for i in range(3)]
    pools = "".join(f'    - {{name: {pool}, limits: {{cpu: "2000", memory: 8000Gi}}}}\n'
                    for pool in ("web", "api", "batch"))
    return ("config:\n  aws:region: ap-northeast-2\n  prescale:cluster: {name: prescale-test}\n"
            f"  prescale:nodePools:\n{pools}  prescale:eventWindows:\n"
            + "".join(f"    - {window}\n" for window in windows))


OVERLAPPING = """\
config:
  aws:region: ap-northeast-2
  prescale:cluster: {name: prescale-test}
  prescale:nodePools: [{name: event, limits: {cpu: "512", memory: 2048Gi}}]
  prescale:eventWindows:
    - {name: morning, nodePool: event, timezone: Asia/Seoul, start: "0 8 * * *", end: "0 11 * * *", nodes: 10}
    - {name: late-morning, nodePool: event, timezone: Asia/Seoul, start: "0 10 * * *", end: "0 12 * * *", nodes: 5}
"""


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    return make_project(tmp_path_factory.mktemp("many"), program="",
                        stacks={"sixty": sixty_windows(), "overlapping": OVERLAPPING})


def run(project: Path, stack: str, *args: str, since: str = "2027-03-01T00:00Z") -> str:
    """One day of the stack's schedule (from a Monday, by default)."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["schedule", "--project", str(project), "--stack", stack, "--at", NOW, "--from", since,
                     "--days", "1", *args]) == 0
    return out.getvalue()


@pytest.fixture(scope="module")
def sixty(project) -> dict:
    return json.loads(run(project, "sixty", "--json"))


def node_hours(doc: dict) -> dict[str, float]:
    return {window["window"]: window["nodeHours"] for window in doc["cost"]["windows"]}


def test_a_freeze_covering_several_windows_keeps_each_node_paid_once(sixty):
    # sale-20, -21 and -22 (3, 4 and 5 nodes) scale up at 00:10, 00:38 and 01:06 UTC and end 25 minutes later;
    # fitting 50 freezes into 48 budgets merged theirs into one, 00:10–01:31.
    frozen = {o["window"]: (o["scaleUpUtc"][11:16], o["endUtc"][11:16], o["frozen"]["from"][11:16],
                            o["frozen"]["until"][11:16]) for o in sixty["occurrences"]}
    assert [frozen[f"sale-{i}"] for i in (20, 21, 22)] == [("00:10", "00:35", "00:10", "01:31"),
                                                           ("00:38", "01:03", "00:10", "01:31"),
                                                           ("01:06", "01:31", "00:10", "01:31")]
    # The freeze keeps sale-20's 3 emptied nodes; sale-21 takes them over at 00:38 and launches one more; sale-22
    # takes those 4 at 01:06 and launches a fifth; all 5 go at 01:31 + consolidateAfter (2m). Each window pays
    # from its scale-up until the next one takes its nodes over: 3 × 28m, 4 × 28m, 5 × 27m.
    hours = node_hours(sixty)
    assert (hours["sale-20"], hours["sale-21"], hours["sale-22"]) == (1.4, 1.87, 2.25)
    # A window outside the merge pays its own 10m lead + 15m + 2m: 6 nodes × 27m.
    assert frozen["sale-23"][2:] == ("01:34", "01:59") and hours["sale-23"] == 2.7


def test_overlapping_windows_add_up_and_a_freeze_keeps_the_emptied_nodes(project):
    # morning: 10 nodes from 22:50 to 02:00 UTC; late-morning: 5 more from 00:50 to 03:00 (15 up together).
    # The freezes unite to 22:50–03:00, so morning's nodes stay until 03:00 + 2m: 10 × 4h12m and 5 × 2h12m.
    doc = json.loads(run(project, "overlapping", "--json", since="2027-02-28T12:00Z"))
    assert node_hours(doc) == {"morning": 42.0, "late-morning": 11.0}
    (overlap,) = doc["overlaps"]
    assert (overlap["from"], overlap["until"], overlap["pods"]) == (
        "2027-03-01T00:50:00Z", "2027-03-01T02:00:00Z", 15)


def test_schedule_says_the_plans_warnings(project, sixty):
    merged = ("node pool 'web': its windows need 50 consolidation freezes but a NodePool holds 50 budgets (2 of them "
              "standing); they were merged into 48 covering ones, so consolidation stays frozen longer than the "
              "windows (no window loses its freeze). Spread windows over more node pools to avoid this.")
    assert sixty["warnings"] == [merged]
    assert f"warning: {merged}" in run(project, "sixty").splitlines()


@pytest.fixture(scope="module")
def picture(project):
    now, since = datetime.fromisoformat(NOW), datetime.fromisoformat("2027-03-01T00:00:00+00:00")
    config = load_config(project, "sixty", now)
    figure = week_figure(build_timeline(plan_capacity(config, now), since, since + timedelta(days=7)))
    yield figure, figure.axes[0]
    plt.close(figure)


def test_png_draws_a_pool_with_many_windows_on_one_row(picture):
    figure, axis = picture
    labels = [label.get_text() for label in axis.get_yticklabels()]
    assert 50 > MAX_ROWS_PER_POOL >= 7
    assert [label.split("  ·  ")[0] for label in labels] == [
        "NodePool web", "50 windows: sale-00 … sale-49\n(their times: the table)",
        "NodePool api", *(f"api-{i}" for i in range(7)), "NodePool batch", "batch-0", "batch-1", "batch-2"]
    web = [patch for patch in axis.patches if (patch.get_gid() or "").startswith("event:sale-")]
    # 50 windows × 7 days, and sale-19 of Sunday the 28th (23:42–00:07 UTC), all on one row.
    assert len(web) == 351 and len({patch.get_y() for patch in web}) == 1
    assert not any((line.get_gid() or "").startswith("short:sale-") for line in axis.lines)  # bars side by side
    assert figure.get_size_inches()[1] < 9  # 14 rows, not 63


def test_png_overlap_bands_cover_only_the_rows_of_the_windows_that_overlap(picture):
    _, axis = picture
    rows = {label.get_text().split("  ·  ")[0]: y for label, y in zip(axis.get_yticklabels(), axis.get_yticks())}
    bands = {(band.get_y() + 0.5, band.get_y() + band.get_height() - 0.5)
             for band in axis.patches if band.get_gid() == "overlap"}
    # Each api window overlaps the next one only. On Sunday night (New York) batch-0 (18:00–20:00, 30m lead)
    # overlaps batch-1 from 18:30, all three overlap 19:30–20:00, then batch-1 and batch-2 until 21:00.
    api = {(rows[f"api-{i}"], rows[f"api-{i + 1}"]) for i in range(6)}
    batch = {(rows["batch-0"], rows["batch-1"]), (rows["batch-0"], rows["batch-2"]), (rows["batch-1"], rows["batch-2"])}
    assert bands == api | batch


@pytest.mark.parametrize(("emptied", "goes"), [
    ("08:00", "08:02"),  # no freeze near: consolidateAfter
    ("10:00", "10:02"),  # the freeze ended as the node emptied
    ("09:30", "10:02"),  # emptied inside a freeze: consolidateAfter after its end
    ("10:59", "12:02"),  # a freeze starts before consolidateAfter is over: held until it ends
    ("10:58", "12:02"),  # a freeze starts the instant it would go: a budget is active at its start, so held
    ("10:57", "10:59"),  # it goes a minute before the freeze starts
])
def test_an_emptied_node_goes_consolidate_after_later_unless_a_freeze_holds_it(emptied, goes):
    def at(clock: str) -> datetime:
        return datetime.fromisoformat(f"2027-03-01T{clock}:00+00:00")

    frozen = [(at("09:00"), at("10:00")), (at("11:00"), at("12:00"))]
    assert released(at(emptied), frozen, timedelta(minutes=2)) == at(goes)
