"""``prescale schedule`` on static and buffer pools: each window's strategy, when its driver's CronJobs fire (read
from their own crons, in the window's zone and in UTC, across a DST change), each static window's freeze on its own
NodePool, and the cost of exactly N nodes of the cheapest allowed type that go at the end."""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from pathlib import Path

import matplotlib.dates as mdates
import matplotlib.pyplot as plt
import pytest
from prescale.model.plan import plan_capacity
from prescale.model.strategies.static import static_node_pool_name

from prescale_cli.documents import ScheduleDocument
from prescale_cli.main import main
from prescale_cli.picture import week_figure
from prescale_cli.stack import load_config
from prescale_cli.timeline import build_timeline
from tests.cli.test_documents import assert_passes
from tests.support.cli import make_project

TYPES = '[{key: node.kubernetes.io/instance-type, operator: In, values: [m7i.xlarge, c7i.xlarge]}]'
PINNED = TYPES[:-1] + ', {key: topology.kubernetes.io/zone, operator: In, values: [ap-northeast-2a]}]'
STACK = f"""\
config:
  aws:region: ap-northeast-2
  prescale:cluster: {{name: shop}}
  prescale:pricing: {{instanceTypes: {{"m7i.xlarge": 0.2016, "c7i.xlarge": 0.1785}}}}
  prescale:nodePools:
    - {{name: fixed, strategy: static, limits: {{nodes: 20}}, requirements: {PINNED}}}
    - {{name: dynamic, limits: {{nodes: 20}}, requirements: {TYPES}}}
    - {{name: warm, strategy: buffer, instanceCategories: [c, m], limits: {{cpu: "256", memory: 1024Gi}}}}
  prescale:eventWindows:
    - {{name: lunch, nodePool: fixed, timezone: Asia/Seoul, start: "0 12 * * *", end: "0 13 * * *", nodes: 5}}
    - {{name: afternoon, nodePool: fixed, timezone: Asia/Seoul, start: "0 13 * * *", end: "0 14 * * *", nodes: 5}}
    - {{name: lunch-dyn, nodePool: dynamic, timezone: Asia/Seoul, start: "0 12 * * *", end: "0 13 * * *", nodes: 5}}
    - {{name: afternoon-dyn, nodePool: dynamic, timezone: Asia/Seoul, start: "0 13 * * *", end: "0 14 * * *",
       nodes: 5}}
    - {{name: spring, nodePool: fixed, timezone: Europe/Berlin, start: "0 1 * * 0", end: "0 5 * * 0", nodes: 2,
       leadTime: 30m}}
    - {{name: sale, nodePool: warm, timezone: Asia/Seoul, start: "2027-03-26T20:00", end: "2027-03-26T22:00",
       capacity: {{cpu: "6", memory: 12Gi}}, leadTime: 20m}}
"""
NOW = "2027-03-24T00:00Z"


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    return make_project(tmp_path_factory.mktemp("strategies"), program="", stacks={"test": STACK})


def schedule(capsys, project: Path, *args: str) -> str:
    assert main(["schedule", "--project", str(project), "--stack", "test", "--at", NOW, *args]) == 0
    return capsys.readouterr().out


def document(capsys, project: Path, *args: str) -> dict:
    doc = json.loads(schedule(capsys, project, "--json", *args))
    assert_passes(ScheduleDocument, doc)
    return doc


def occurrence(doc: dict, window: str) -> dict:
    return next(item for item in doc["occurrences"] if item["window"] == window)


def test_a_static_windows_runs_fire_at_its_scale_up_and_end_in_its_zone_and_in_utc(capsys, project):
    """Berlin moves to CEST at 02:00 on Sun 2027-03-28: the scale-up fires at 00:30 CET (23:30 UTC the day
    before), the scale-down at 05:00 CEST (03:00 UTC)."""
    spring = occurrence(document(capsys, project, "--from", "2027-03-27T12:00Z", "--days", "1"), "spring")
    assert spring["strategy"] == "static"
    assert spring["driver"] == {
        "kind": "NodePool", "name": static_node_pool_name("fixed", "spring"),
        "scaleUp": {"cronJob": "scale-up-spring", "schedule": "30 0 * * 0", "replicas": 2,
                    "at": "2027-03-28T00:30:00+01:00", "atUtc": "2027-03-27T23:30:00Z",
                    "startingDeadlineSeconds": 8940, "activeDeadlineSeconds": 3600},
        "scaleDown": {"cronJob": "scale-down-spring", "schedule": "0 5 * * 0", "replicas": 0,
                      "at": "2027-03-28T05:00:00+02:00", "atUtc": "2027-03-28T03:00:00Z",
                      "startingDeadlineSeconds": 584940, "activeDeadlineSeconds": 3600},
        # failsafeGrace (15m) later, bounded to end before the next scale-up as the scale-down is
        "failsafe": {"cronJob": "failsafe-spring", "schedule": "15 5 * * 0", "replicas": 0,
                     "at": "2027-03-28T05:15:00+02:00", "atUtc": "2027-03-28T03:15:00Z",
                     "startingDeadlineSeconds": 584940 - 900, "activeDeadlineSeconds": 3600}}
    # The driver's crons fire exactly at KEDA's instants of the same occurrence.
    assert (spring["driver"]["scaleUp"]["at"], spring["driver"]["scaleDown"]["at"]) == (spring["scaleUp"],
                                                                                       spring["end"])


def test_a_buffer_goes_back_to_0_at_the_events_start(capsys, project):
    sale = occurrence(document(capsys, project, "--from", "2027-03-26T00:00Z", "--days", "1"), "sale")
    driver = sale["driver"]
    assert (sale["strategy"], driver["kind"], driver["name"]) == ("buffer", "CapacityBuffer", "prescale-sale")
    assert (driver["scaleUp"]["schedule"], driver["scaleUp"]["at"], driver["scaleUp"]["replicas"]) == (
        "40 19 26 3 *", "2027-03-26T19:40:00+09:00", 2)  # a one-off's dated crons; 6 CPU as 2 virtual pods
    assert (driver["scaleDown"]["at"], driver["scaleDown"]["atUtc"]) == (sale["start"], "2027-03-26T11:00:00Z")
    assert sale["frozen"] == {"from": "2027-03-26T10:40:00Z", "until": "2027-03-26T13:00:00Z"}  # to the end


def test_placeholder_windows_have_no_driver(capsys, project):
    doc = document(capsys, project, "--from", "2027-03-24T00:00Z", "--days", "1")
    dynamic = occurrence(doc, "lunch-dyn")
    assert (dynamic["strategy"], dynamic["driver"]) == ("placeholders", None)


def test_the_text_shows_each_strategy_and_every_run_in_local_time_and_utc(capsys, project):
    out = schedule(capsys, project, "--from", "2027-03-27T12:00Z", "--days", "1")
    rows = [" ".join(line.split()) for line in out.splitlines()]
    assert "Window Pool Strategy Local: scale-up → start – end UTC: scale-up → start – end Holds Frozen (UTC)" in rows
    assert any(row.startswith("lunch-dyn dynamic placeholders Sun 2027-03-28 11:50") for row in rows)
    spring = static_node_pool_name("fixed", "spring")
    assert (f"spring NodePool {spring} 2 → 0 Sun 2027-03-28 00:30 CET → 05:00 CEST "
            "Sat 2027-03-27 23:30 → Sun 03-28 03:00 Sun 03-28 03:15 (0 again)") in rows
    assert "spring scale-down-spring 0 5 * * 0 0 162h29m late 1h" in rows


def test_placeholder_only_stacks_keep_their_columns(capsys, project, tmp_path):
    plain = make_project(tmp_path, program="", stacks={"test": STACK.replace("strategy: static, ", "").replace(
        "strategy: buffer, ", "").replace('capacity: {cpu: "32", memory: 64Gi}', "nodes: 2")})
    out = schedule(capsys, plain, "--days", "1")
    assert "Strategy" not in out and "Driver runs" not in out
    assert "Window         Pool     Local: scale-up → start – end" in out


def test_each_static_windows_freeze_is_on_its_own_node_pool(capsys, project):
    doc = document(capsys, project, "--days", "1")
    assert [(budget["nodePool"], budget["nodePoolObject"], budget["schedule"]) for budget in doc["freezes"]] == [
        ("fixed", static_node_pool_name("fixed", "lunch"), "50 2 * * *"),
        ("fixed", static_node_pool_name("fixed", "afternoon"), "50 3 * * *"),
        ("fixed", static_node_pool_name("fixed", "spring"), "30 22 * * 6"),  # from 23:30 CET or 22:30 CEST
        ("dynamic", "prescale-dynamic", "50 2 * * *"),  # lunch-dyn's and afternoon-dyn's, merged
        ("warm", "prescale-warm", "40 10 26 3 *")]
    # lunch's own freeze ends at its end, though afternoon's (on another NodePool) runs on.
    assert occurrence(doc, "lunch")["frozen"] == {"from": "2027-03-24T02:50:00Z", "until": "2027-03-24T04:00:00Z"}
    assert occurrence(doc, "lunch-dyn")["frozen"] == {"from": "2027-03-24T02:50:00Z",
                                                      "until": "2027-03-24T05:00:00Z"}


def test_a_static_window_costs_its_nodes_of_the_cheapest_type_from_scale_up_to_the_end(capsys, project):
    """5 × c7i.xlarge ($0.1785/h, cheaper than m7i.xlarge) from 11:50 to 13:00: 5 × 70 min. The same window on a
    dynamic pool pays on while the next window's freeze keeps its emptied nodes (to 14:00, plus consolidateAfter)."""
    windows = {cost["window"]: cost for cost in document(capsys, project, "--days", "1")["cost"]["windows"]}
    lunch = windows["lunch"]
    assert (lunch["strategy"], lunch["instanceType"], lunch["nodesEstimated"], lunch["pricePerNodeHour"]) == (
        "static", "c7i.xlarge", 5, 0.1785)
    assert (lunch["nodeHours"], lunch["cost"]) == (round(5 * 70 / 60, 2), round(5 * 70 / 60 * 0.1785, 2))
    assert windows["afternoon"]["nodeHours"] == lunch["nodeHours"]  # no node taken over across NodePools
    assert windows["lunch-dyn"]["nodeHours"] > 2 * lunch["nodeHours"] - 1


def test_each_strategys_tail_after_the_end(capsys, project):
    doc = document(capsys, project, "--from", "2027-03-26T00:00Z", "--days", "3")
    tails = {tail["window"]: tail for tail in doc["cost"]["tails"]}
    # static: the drain; a late scale-down acts at most startingDeadlineSeconds + activeDeadlineSeconds later.
    down = occurrence(doc, "spring")["driver"]["scaleDown"]
    late = timedelta(seconds=down["startingDeadlineSeconds"] + down["activeDeadlineSeconds"]) + timedelta(minutes=1)
    assert (tails["spring"]["strategy"], tails["spring"]["nodesStayAfterEnd"]) == ("static", "1m")
    assert tails["spring"]["ifKedaFailsStay"] == f"{late // timedelta(hours=1)}h{late.seconds // 60 % 60}m"
    # buffer: consolidateAfter (2m) and the drain, no KEDA cooldown; nothing scales down at the end to be late.
    assert (tails["sale"]["nodesStayAfterEnd"], tails["sale"]["ifKedaFailsStay"]) == ("3m", "3m")
    assert (tails["lunch-dyn"]["nodesStayAfterEnd"], tails["lunch-dyn"]["ifKedaFailsStay"]) == ("4m", "18m")
    out = schedule(capsys, project, "--from", "2027-03-26T00:00Z", "--days", "3")
    assert "Static windows: exactly their nodes, of the cheapest instance type the pool allows" in out
    assert "A static NodePool's nodes go as soon as its scale-down run sets 0 at the end" in out
    assert "A buffer's nodes stay frozen to the end" in out


def test_the_picture_ticks_each_driver_run_and_labels_the_strategy(project):
    now = datetime.fromisoformat(NOW)
    since = datetime.fromisoformat("2027-03-26T00:00Z")
    timeline = build_timeline(plan_capacity(load_config(project, "test", now), now), since, since + timedelta(days=7))
    figure = week_figure(timeline)
    try:
        axis = figure.axes[0]
        ticks = sorted(line.get_xdata()[0] for line in axis.lines if line.get_gid() == "driver:spring")
        assert ticks == [mdates.date2num(datetime.fromisoformat(at)) for at in ("2027-03-27T23:30Z",
                                                                                 "2027-03-28T03:00Z",
                                                                                 "2027-03-28T03:15Z")]
        labels = [label.get_text() for label in axis.get_yticklabels()]
        assert any(label.startswith("sale  ·  buffer: 6 CPU/12Gi (2 virtual pods)") for label in labels)
        assert "driver CronJob run (sets the count)" in [text.get_text() for text in figure.legends[0].get_texts()]
    finally:
        plt.close(figure)
