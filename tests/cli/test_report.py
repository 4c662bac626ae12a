"""``prescale report`` against a real Prometheus (tests/support/prometheus.py) holding synthetic events whose series
are shaped as kube-state-metrics and Karpenter write them: a served placeholder event (two placeholders preempted), a
late one (and NodeClaims that failed to launch), a short one (7 of 10 placeholders), a paused one (nothing scaled
up), a static window, a buffer window (provisioned, then not), and a day without the node label allowlist, the pod
scheduling series, Karpenter's, the placeholder pods' or the CapacityBuffer's. Each expected figure is computed here
from the synthetic events, not copied from the program's output."""

from __future__ import annotations

import contextlib
import difflib
import io
import json
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from prescale.model.plan import plan_capacity
from prescale.model.strategies.static import static_node_pool_name
from prescale.series import BUFFER_CONDITION

from prescale_cli.documents import ReportDocument, TuneDocument
from prescale_cli.main import main
from prescale_cli.prometheus import Prometheus
from prescale_cli.report import (
    NEEDS_BUFFER,
    NEEDS_KARPENTER,
    NEEDS_KEDA,
    NEEDS_NODE_LABELS,
    NEEDS_PODS,
    NEEDS_SCHEDULED,
    measure,
)
from prescale_cli.report_picture import report_figure
from prescale_cli.stack import load_config
from prescale_cli.timeline import build_timeline
from tests.cli.test_documents import assert_passes
from tests.support import ROOT, load_yaml
from tests.support.cli import make_project
from tests.support.prometheus import Series, prometheus_serving

PRICE = 0.2016  # m7i.xlarge, per node-hour (prescale:pricing below)
STACK = f"""\
config:
  aws:region: ap-northeast-2
  prescale:cluster: {{name: shop}}
  prescale:pricing: {{instanceTypes: {{"m7i.xlarge": {PRICE}}}}}
  prescale:nodePools:
    - name: event
      limits: {{cpu: "256", memory: 1024Gi}}
      requirements: [{{key: node.kubernetes.io/instance-type, operator: In, values: [m7i.xlarge]}}]
    - name: fixed
      strategy: static
      limits: {{nodes: 20}}
      requirements: [{{key: node.kubernetes.io/instance-type, operator: In, values: [m7i.xlarge]}},
                     {{key: topology.kubernetes.io/zone, operator: In, values: [ap-northeast-2a]}}]
    - {{name: warm, strategy: buffer, limits: {{cpu: "64", memory: 256Gi}}}}
  prescale:eventWindows:
    - {{name: lunch, nodePool: event, timezone: UTC, start: "0 12 * * *", end: "0 13 * * *", nodes: 4}}
    - {{name: dinner, nodePool: event, timezone: UTC, start: "0 18 * * *", end: "0 19 * * *", nodes: 10}}
    - {{name: batch, nodePool: fixed, timezone: UTC, start: "0 9 * * *", end: "0 10 * * *", nodes: 3}}
    - {{name: search, nodePool: warm, timezone: UTC, start: "0 15 * * *", end: "0 16 * * *",
       capacity: {{cpu: "4", memory: 8Gi}}}}
    - {{name: night, nodePool: event, timezone: Europe/Berlin, start: "0 1 * * 0", end: "0 5 * * 0", nodes: 2}}
"""
DAY1, DAY2, DAY3 = (datetime(2027, 1, day, tzinfo=UTC) for day in (11, 12, 13))
EVENT_POOL, BATCH_POOL = "prescale-event", static_node_pool_name("fixed", "batch")
LEAVE = timedelta(minutes=10)  # nodes leave this long after an end


def utc(instant: int) -> str:
    return f"{datetime.fromtimestamp(instant, UTC):%Y-%m-%dT%H:%M:%SZ}"


def at(day: datetime, clock: str) -> int:
    hours, minutes, *seconds = (int(part) for part in clock.split(":"))
    return int((day + timedelta(hours=hours, minutes=minutes, seconds=seconds[0] if seconds else 0)).timestamp())


@dataclass(frozen=True)
class Nodes:
    """Nodes of one NodePool that came for one occurrence: created together, Ready ``ready_after`` seconds later
    each, gone at ``gone``."""

    nodepool: str
    names: tuple[str, ...]
    created: int
    ready_after: tuple[int, ...]
    gone: int

    def write(self, series: Series) -> None:
        for name, after in zip(self.names, self.ready_after, strict=True):
            node = {"node": name}
            series.hold("kube_node_labels", {**node, "label_karpenter_sh_nodepool": self.nodepool}, self.created,
                        self.gone, 1)
            series.hold("kube_node_created", node, self.created, self.gone, self.created)
            ready = {**node, "condition": "Ready", "status": "true"}
            series.hold("kube_node_status_condition", ready, self.created, self.created + after, 0)
            series.hold("kube_node_status_condition", ready, self.created + after, self.gone, 1)

    @property
    def node_hours(self) -> float:
        return len(self.names) * (self.gone - self.created) / 3600


def placeholders(series: Series, window: str, day: datetime, counts: list[tuple[str, int]], until: str) -> None:
    """The window's placeholder Deployment's Ready replicas: each count from its clock on, until ``until``."""
    labels = {"namespace": "prescale", "deployment": f"prescale-{window}"}
    clocks = [clock for clock, _ in counts] + [until]
    for (clock, count), following in zip(counts, clocks[1:], strict=True):
        series.hold("kube_deployment_status_replicas_ready", labels, at(day, clock), at(day, following), count)


LUNCH_1 = Nodes(EVENT_POOL, ("l1a", "l1b", "l1c", "l1d"), at(DAY1, "11:50:30"), (60, 90, 120, 150),
                at(DAY1, "13:10"))
LUNCH_2 = Nodes(EVENT_POOL, ("l2a", "l2b", "l2c", "l2d"), at(DAY2, "11:56"), (120, 120, 420, 420), at(DAY2, "13:10"))
DINNER_1 = Nodes(EVENT_POOL, tuple(f"d1{index}" for index in range(7)), at(DAY1, "17:50:30"), (90,) * 7,
                 at(DAY1, "19:10"))
BATCH_1 = Nodes(BATCH_POOL, ("b1a", "b1b", "b1c"), at(DAY1, "08:50:30"), (90, 90, 90), at(DAY1, "10:01"))
BATCH_2 = Nodes(BATCH_POOL, ("b2a", "b2b", "b2c"), at(DAY2, "08:50:30"), (60, 60, 600), at(DAY2, "10:01"))


@dataclass(frozen=True)
class LaunchFailure:
    """A NodeClaim Karpenter deleted before it became a node, at ``at``, for ``reason``."""

    nodepool: str
    reason: str
    at: int


# Karpenter's NodeClaims that did not become nodes: two for lunch's second day (EC2 out of capacity, then one timed
# out), one between events, and a consolidation on lunch's first day, which is no launch failure.
FAILURES = (LaunchFailure(EVENT_POOL, "insufficient_capacity", at(DAY2, "11:51")),
            LaunchFailure(EVENT_POOL, "insufficient_capacity", at(DAY2, "11:52:30")),
            LaunchFailure(EVENT_POOL, "launch_timeout", at(DAY2, "11:59")),
            LaunchFailure(EVENT_POOL, "insufficient_capacity", at(DAY2, "15:00")),
            LaunchFailure(EVENT_POOL, "underutilized", at(DAY1, "12:30")))


def disruptions(series: Series, failures: tuple[LaunchFailure, ...], since: int, until: int) -> None:
    """``karpenter_nodeclaims_disrupted_total`` as Karpenter counts them (kubernetes-sigs/karpenter v1.14.1
    pkg/metrics/metrics.go, pkg/controllers/nodeclaim/lifecycle/launch.go, liveness.go): one counter per
    (reason, nodepool, capacity_type), created at its first count; and ``karpenter_build_info`` (pkg/operator/
    operator.go), a constant 1, while Karpenter is scraped from ``since`` to ``until``."""
    series.hold("karpenter_build_info", {"version": "1.14.1", "goversion": "go1.24.4", "goarch": "amd64",
                                         "commit": "0000000"}, since, until, 1, step=600)
    for nodepool, reason in {(failure.nodepool, failure.reason) for failure in failures}:
        times = sorted(failure.at for failure in failures if (failure.nodepool, failure.reason) == (nodepool, reason))
        labels = {"nodepool": nodepool, "reason": reason, "capacity_type": "on-demand"}
        for count, (counted, following) in enumerate(zip(times, [*times[1:], until], strict=True), 1):
            series.hold("karpenter_nodeclaims_disrupted_total", labels, counted, following, count)


def failed_to_launch(nodepool: str, scale_up: int, end: int) -> dict[str, int]:
    """The NodeClaims of ``nodepool`` that failed to launch from ``scale_up`` to ``end``, by reason."""
    reasons = [failure.reason for failure in FAILURES if failure.nodepool == nodepool and scale_up <= failure.at < end
               and failure.reason in ("insufficient_capacity", "launch_timeout", "nodeclass_not_ready",
                                      "registration_timeout")]
    return {reason: reasons.count(reason) for reason in sorted(set(reasons))}


@dataclass(frozen=True)
class Pods:
    """A window's placeholder pods of one occurrence, as kube-state-metrics writes ``kube_pod_created``
    (kubernetes/kube-state-metrics internal/store/pod.go): one series per pod, its value the pod's creation time,
    from then until the pod goes; each named after its ReplicaSet, named after the Deployment."""

    window: str
    created: tuple[int, ...]
    gone: int

    def write(self, series: Series) -> None:
        for index, created in enumerate(self.created):
            pod = f"prescale-{self.window}-5d8f7b9c{self.created[0] % 10}-x{index:04d}"
            series.hold("kube_pod_created", {"namespace": "prescale", "pod": pod, "uid": f"{pod}-uid"}, created,
                        self.gone, created)

    def replaced(self, planned: int, scale_up: int, end: int) -> int:
        """Pods made from 5 minutes before the scale-up to the end beyond the ``planned`` the scale-up made."""
        return max(0, sum(scale_up - 300 <= created < end for created in self.created) - planned)


# Lunch's first day: its 4 placeholders made at the scale-up, 2 more as the event's pods preempted two (12:20,
# 12:41:30); its second day and dinner's first: none replaced (dinner's 3 left Pending are no replacements).
LUNCH_PODS_1 = Pods("lunch", (at(DAY1, "11:50:15"),) * 4 + (at(DAY1, "12:20"), at(DAY1, "12:41:30")),
                    at(DAY1, "13:00:30"))
LUNCH_PODS_2 = Pods("lunch", (at(DAY2, "11:50:15"),) * 4, at(DAY2, "13:00:30"))
DINNER_PODS_1 = Pods("dinner", (at(DAY1, "17:50:15"),) * 10, at(DAY1, "19:00:30"))


def buffer_conditions(series: Series, buffer: str, day: datetime, reasons: list[tuple[str, str]], until: str) -> None:
    """The CapacityBuffer's Provisioning condition as kube-state-metrics writes it with docs/report.md's custom
    resource config (kubernetes/kube-state-metrics pkg/customresourcestate: a Gauge per condition, labelled by the
    resource's group, kind and version and the config's labelsFromPath; "True" is 1): each reason from its clock on
    (Karpenter's, kubernetes-sigs/karpenter v1.14.1 pkg/controllers/provisioning/buffers.go)."""
    clocks = [clock for clock, _ in reasons] + [until]
    for (clock, reason), following in zip(reasons, clocks[1:], strict=True):
        labels = {"customresource_group": "autoscaling.x-k8s.io", "customresource_kind": "CapacityBuffer",
                  "customresource_version": "v1beta1", "namespace": "prescale", "name": buffer,
                  "type": "Provisioning", "reason": reason}
        series.hold("kube_customresource_capacitybuffer_condition", labels, at(day, clock), at(day, following),
                    1 if reason == "FitsExistingCapacity" else 0)


def keda_trigger(series: Series, window: str, day: datetime, active: tuple[str, str] | None) -> None:
    """``keda_scaler_active`` of the window's ScaledObject as KEDA's operator writes it (kedacore/keda v2.20
    pkg/metricscollector/prommetrics.go): 0, and 1 while the cron trigger is active (``active``: from, until; None:
    paused, never active), over the day's event hours."""
    labels = {"namespace": "prescale", "scaledObject": f"prescale-{window}", "scaler": "cronScaler",
              "triggerIndex": "0", "metric": "s0-cron-UTC-xxxxx", "type": "scaledobject"}
    if active is None:
        series.hold("keda_scaler_active", labels, at(day, "10:00"), at(day, "20:00"), 0)
        return
    series.hold("keda_scaler_active", labels, at(day, "10:00"), at(day, active[0]), 0)
    series.hold("keda_scaler_active", labels, at(day, active[0]), at(day, active[1]), 1)
    series.hold("keda_scaler_active", labels, at(day, active[1]), at(day, "20:00"), 0)


def driver_job(series: Series, window: str, day: datetime, started: str) -> None:
    """The driver's scale-up Job of one occurrence, as kube-state-metrics writes it (internal/store/job.go):
    ``kube_job_status_start_time`` (its value the start) and ``kube_job_owner``, the CronJob that made it, while the
    Job is kept (its CronJob's history)."""
    job = {"namespace": "prescale", "job_name": f"scale-up-{window}-{at(day, started) // 60}"}
    series.hold("kube_job_status_start_time", job, at(day, started), at(day, "23:30"), at(day, started))
    series.hold("kube_job_owner", {**job, "owner_kind": "CronJob", "owner_name": f"scale-up-{window}",
                                   "owner_is_controller": "true"}, at(day, started), at(day, "23:30"), 1)


# The scale-ups as they happened: KEDA turned lunch's trigger active 30 s after its planned 11:50 on the first day
# (the report's 30-second step), a minute after on the second; dinner's on the first day, none on the second (paused);
# the drivers' Jobs started 5 and 40 s after batch's 08:50 and 3 s after search's 14:50. None on the third day.
LUNCH_ACTIVE = {DAY1: ("11:50:30", "13:00:30"), DAY2: ("11:51", "13:00:30")}
BATCH_STARTED = {DAY1: "08:50:05", DAY2: "08:50:40"}


# The search window's buffer (scale-up 14:50, start 15:00, where its driver sets it to 0): provisioned at 14:53:30
# on the first day; on the second still waiting for new nodes when its driver emptied it.
SEARCH_PROVISIONED_1 = "14:53:30"


# Sunday 2027-03-28, when Berlin moves from CET to CEST at 02:00: 01:00 CET is 00:00 UTC, 05:00 CEST is 03:00 UTC;
# the scale-up, 10 minutes before, is 23:50 UTC the day before.
DST_EVE, DST_DAY = datetime(2027, 3, 27, tzinfo=UTC), datetime(2027, 3, 28, tzinfo=UTC)
NIGHT = Nodes(EVENT_POOL, ("n1", "n2"), at(DST_EVE, "23:50:30"), (60, 60), at(DST_DAY, "03:10"))


def synthetic() -> Series:
    series = Series()
    night = {"namespace": "prescale", "deployment": "prescale-night"}
    series.hold("kube_deployment_status_replicas_ready", night, at(DST_EVE, "23:45"), at(DST_EVE, "23:56"), 0)
    series.hold("kube_deployment_status_replicas_ready", night, at(DST_EVE, "23:56"), at(DST_DAY, "03:00"), 2)
    series.hold("kube_deployment_status_replicas_ready", night, at(DST_DAY, "03:00"), at(DST_DAY, "03:15"), 0)
    for nodes in (LUNCH_1, LUNCH_2, DINNER_1, BATCH_1, BATCH_2, NIGHT):
        nodes.write(series)
    for pods in (LUNCH_PODS_1, LUNCH_PODS_2, DINNER_PODS_1):  # none on the third day
        pods.write(series)
    for day in (DAY1, DAY2):
        keda_trigger(series, "lunch", day, LUNCH_ACTIVE[day])
        driver_job(series, "batch", day, BATCH_STARTED[day])
        driver_job(series, "search", day, "14:50:03")
    keda_trigger(series, "dinner", DAY1, ("17:50:30", "19:00:30"))
    keda_trigger(series, "dinner", DAY2, None)
    buffer_conditions(series, "prescale-search", DAY1, [("14:45", "BufferEmpty"), ("14:50:15", "RequiresNewCapacity"),
                                                        (SEARCH_PROVISIONED_1, "FitsExistingCapacity"),
                                                        ("15:00:15", "BufferEmpty")], "16:15")
    buffer_conditions(series, "prescale-search", DAY2, [("14:45", "BufferEmpty"), ("14:50:15", "RequiresNewCapacity"),
                                                        ("15:00:15", "BufferEmpty")], "16:15")
    disruptions(series, FAILURES, at(DAY1, "00:00"), at(DAY2, "23:59"))  # Karpenter not scraped on the third day
    placeholders(series, "lunch", DAY1, [("11:45", 0), ("11:54", 4), ("13:00", 0)], "13:15")  # served
    placeholders(series, "lunch", DAY2, [("11:45", 0), ("11:58", 2), ("12:03", 4), ("13:00", 0)], "13:15")  # late
    placeholders(series, "dinner", DAY1, [("17:45", 0), ("17:56", 7), ("19:00", 0)], "19:15")  # short: 7 of 10
    placeholders(series, "dinner", DAY2, [("17:45", 0)], "19:15")  # paused: never scaled up
    placeholders(series, "lunch", DAY3, [("11:45", 0), ("11:55", 4), ("13:00", 0)], "13:15")  # no node labels
    requests(series, DAY1, "12:00", "13:00", [("web-a", "l1a", 6, 12), ("web-b", "l1b", 4, 8)])  # 10 CPU, 20Gi
    requests(series, DAY2, "12:10", "12:40", [("web-c", "l2a", 14, 28)])  # 14 CPU, 28Gi
    requests(series, DAY1, "12:00", "13:00", [("agent", "l1a", 8, 16)], owner="DaemonSet")  # not the event's
    requests(series, DAY1, "11:55", "13:00", [("prescale-lunch-x", "l1c", 1, 2)], namespace="prescale")
    for pod in ("web-1", "web-2", "web-3"):  # day 2, late lunch: three pods wait five minutes
        labels = {"namespace": "shop", "pod": pod, "condition": "false"}
        series.hold("kube_pod_status_scheduled", labels, at(DAY1, "00:00"), at(DAY2, "12:00"), 0, step=600)
        series.hold("kube_pod_status_scheduled", labels, at(DAY2, "12:00"), at(DAY2, "12:05"), 1)
        series.hold("kube_pod_status_scheduled", labels, at(DAY2, "12:05"), at(DAY2, "23:59"), 0, step=120)
    return series


def requests(series: Series, day: datetime, since: str, until: str, pods: list[tuple[str, str, int, int]],
             owner: str = "ReplicaSet", namespace: str = "shop") -> None:
    """Each pod's one container's CPU (cores) and memory (GiB) requests on its node, as kube-state-metrics writes
    them, from ``since`` to ``until``."""
    for pod, node, cpu, gib in pods:
        where = {"namespace": namespace, "pod": pod}
        for resource, value, unit in (("cpu", cpu, "core"), ("memory", gib * 2**30, "byte")):
            series.hold("kube_pod_container_resource_requests", {**where, "container": "main", "node": node,
                                                                 "resource": resource, "unit": unit},
                        at(day, since), at(day, until), value)
        series.hold("kube_pod_owner", {**where, "owner_kind": owner, "owner_name": f"{pod}-owner"},
                    at(day, since), at(day, until), 1)


@pytest.fixture(scope="module")
def prometheus(tmp_path_factory) -> str:
    with prometheus_serving(synthetic(), tmp_path_factory.mktemp("prometheus")) as url:
        yield url


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    return make_project(tmp_path_factory.mktemp("report"), program="", stacks={"test": STACK})


def report(capsys, project: Path, prometheus: str, *args: str, code: int = 1, now: str = "2027-01-14T00:00Z") -> dict:
    assert main(["report", "--project", str(project), "--stack", "test", "--at", now,
                 "--prometheus", prometheus, "--json", *args]) == code
    document = json.loads(capsys.readouterr().out)
    assert_passes(ReportDocument, document)
    return document


@pytest.fixture(scope="module")
def two_days(prometheus, project) -> dict:
    """The first two days' report, by (window, start date): read once for the tests below."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["report", "--project", str(project), "--stack", "test", "--at", "2027-01-14T00:00Z",
                     "--prometheus", prometheus, "--json", "--from", "2027-01-11", "--to", "2027-01-13"]) == 1
    document = json.loads(out.getvalue())
    assert_passes(ReportDocument, document)
    return {(item["window"], item["start"][:10]): item for item in document["occurrences"]}


def test_a_served_event_shows_its_margin_node_times_and_node_hours(two_days):
    lunch = two_days["lunch", "2027-01-11"]
    assert (lunch["planned"], lunch["readyAtStart"], lunch["verdict"]) == (4, 4, "served")
    assert lunch["completeAt"] == "2027-01-11T11:54:00Z" and lunch["marginSeconds"] == 6 * 60
    assert lunch["nodeReadySeconds"] == {"p50": 90, "p95": 150, "max": 150}
    assert lunch["nodeHours"] == round(LUNCH_1.node_hours, 2)
    assert lunch["idealNodeHours"] == round(4 * 70 / 60, 2)  # 4 nodes from the 11:50 scale-up to the 13:00 end
    assert lunch["cost"] == round(LUNCH_1.node_hours * PRICE, 2)
    assert lunch["unschedulablePodMinutes"] == lunch["unschedulablePods"] == 0 and lunch["missing"] == []
    assert lunch["nodesGoneAt"] == utc(LUNCH_1.gone)  # the pool's only nodes then: its count stops
    assert lunch["nodeClaimLaunchFailures"] == {}  # the consolidation that day is no launch failure
    assert lunch["placeholdersReplaced"] == LUNCH_PODS_1.replaced(4, at(DAY1, "11:50"), at(DAY1, "13:00")) == 2
    assert lunch["scaleUpMeasured"] == f"2027-01-11T{LUNCH_ACTIVE[DAY1][0]}Z"
    assert lunch["scaleUpDelaySeconds"] == at(DAY1, LUNCH_ACTIVE[DAY1][0]) - at(DAY1, "11:50")


def test_a_late_event_shows_how_late_and_the_pods_that_waited(two_days):
    lunch = two_days["lunch", "2027-01-12"]
    assert (lunch["readyAtStart"], lunch["completeAt"], lunch["marginSeconds"]) == (2, "2027-01-12T12:03:00Z", -180)
    assert lunch["verdict"] == "late"
    assert (lunch["unschedulablePods"], lunch["unschedulablePodMinutes"]) == (3, 3 * 5)  # three, for 5 minutes
    assert lunch["nodeReadySeconds"] == {"p50": 120, "p95": 420, "max": 420}
    assert lunch["nodeClaimLaunchFailures"] == failed_to_launch(EVENT_POOL, at(DAY2, "11:50"), at(DAY2, "13:00"))
    assert lunch["nodeClaimLaunchFailures"] == {"insufficient_capacity": 2, "launch_timeout": 1}
    assert lunch["placeholdersReplaced"] == 0
    assert lunch["scaleUpDelaySeconds"] == at(DAY2, LUNCH_ACTIVE[DAY2][0]) - at(DAY2, "11:50")  # a minute late


def test_short_and_paused_events_are_short(two_days):
    short, paused = two_days["dinner", "2027-01-11"], two_days["dinner", "2027-01-12"]
    assert (short["planned"], short["readyAtStart"], short["completeAt"], short["verdict"]) == (10, 7, None, "short")
    assert (paused["readyAtStart"], paused["completeAt"], paused["verdict"]) == (0, None, "short")
    assert paused["nodeReadySeconds"] is None and paused["nodeHours"] == 0
    assert paused["nodeClaimLaunchFailures"] == {}  # the afternoon's failure was before its scale-up
    assert short["placeholdersReplaced"] == paused["placeholdersReplaced"] == 0
    assert short["scaleUpDelaySeconds"] == 30 and paused["scaleUpMeasured"] is None  # paused: KEDA never scaled up


def test_a_static_window_is_measured_on_its_own_node_pool(two_days):
    first, second = two_days["batch", "2027-01-11"], two_days["batch", "2027-01-12"]
    assert (first["strategy"], first["planned"], first["verdict"]) == ("static", 3, "served")
    assert first["completeAt"] == "2027-01-11T08:52:00Z"  # the last of the three Ready 90 s after 08:50:30
    assert second["completeAt"] == "2027-01-12T09:00:30Z" and second["verdict"] == "late"  # one took 10 minutes
    assert first["nodeHours"] == round(BATCH_1.node_hours, 2) and first["nodesGoneAt"] == utc(BATCH_1.gone)
    assert first["placeholdersReplaced"] is None and NEEDS_PODS not in first["missing"]  # no placeholder pods
    assert (first["scaleUpMeasured"], second["scaleUpMeasured"]) == tuple(
        f"2027-01-{day.day}T{BATCH_STARTED[day]}Z" for day in (DAY1, DAY2))  # its driver's scale-up Job
    assert second["scaleUpDelaySeconds"] == at(DAY2, BATCH_STARTED[DAY2]) - at(DAY2, "08:50")


def test_a_buffer_window_is_ready_while_its_capacity_buffer_is_provisioned(capsys, project, prometheus, two_days):
    served, short = two_days["search", "2027-01-11"], two_days["search", "2027-01-12"]
    assert (served["strategy"], served["planned"]) == ("buffer", 1)  # 4 CPU / 8Gi: one virtual pod of maxPodSize
    assert (served["readyAtStart"], served["completeAt"], served["verdict"]) == (
        1, f"2027-01-11T{SEARCH_PROVISIONED_1}Z", "served")
    assert served["marginSeconds"] == (at(DAY1, "15:00") - at(DAY1, SEARCH_PROVISIONED_1))
    assert served["placeholdersReplaced"] is None and NEEDS_BUFFER not in served["missing"]
    assert served["scaleUpDelaySeconds"] == 3
    assert (short["readyAtStart"], short["completeAt"], short["verdict"]) == (0, None, "short")
    # The third day has no CapacityBuffer series: no-data, with the config to turn on.
    (third,) = report(capsys, project, prometheus, "--from", "2027-01-13", "--days", "1", "--window", "search",
                      code=0)["occurrences"]
    assert (third["verdict"], third["readyAtStart"]) == ("no-data", None) and NEEDS_BUFFER in third["missing"]


def test_the_capacity_buffer_config_in_the_docs_writes_the_series_the_report_reads():
    """docs/report.md's kube-state-metrics config, against the CapacityBuffer CRD the Karpenter chart ships: a version
    it serves, the conditions' path in its status, each label and the value a field of a condition, and the metric
    name kube-state-metrics makes of it (``kube_customresource_`` + its name) the one the report reads."""
    block = (ROOT / "docs/report.md").read_text().split("### CapacityBuffers")[1].split("```yaml\n")[1].split("```")[0]
    (resource,) = load_yaml(block)["spec"]["resources"]
    crd = load_yaml((ROOT / "tests/charts/karpenter/crds/autoscaling.x-k8s.io_capacitybuffers.yaml").read_text())
    kind = resource["groupVersionKind"]
    assert (kind["group"], kind["kind"]) == (crd["spec"]["group"], crd["spec"]["names"]["kind"])
    (version,) = [version for version in crd["spec"]["versions"] if version["name"] == kind["version"]]
    assert version["served"]
    (metric,) = resource["metrics"]
    assert "kube_customresource_" + metric["name"] == BUFFER_CONDITION
    gauge = metric["each"]["gauge"]
    node = version["schema"]["openAPIV3Schema"]
    for key in gauge["path"]:
        node = node["properties"][key]
    condition = node["items"]["properties"]
    assert all(path == [field] and field in condition
               for path in [*gauge["labelsFromPath"].values(), gauge["valueFrom"]] for field in path)
    assert {**resource["labelsFromPath"], **gauge["labelsFromPath"]}.keys() == {"namespace", "name", "type", "reason"}


def test_without_node_labels_or_pod_scheduling_series_those_figures_are_missing_not_zero(capsys, project, prometheus):
    document = report(capsys, project, prometheus, "--from", "2027-01-13", "--days", "1", "--window", "lunch",
                      code=0)
    (lunch,) = document["occurrences"]
    assert (lunch["verdict"], lunch["marginSeconds"]) == ("served", 5 * 60)
    assert lunch["nodeReadySeconds"] is None and lunch["nodeHours"] is None and lunch["cost"] is None
    assert lunch["unschedulablePodMinutes"] is None and lunch["nodeClaimLaunchFailures"] is None
    assert lunch["placeholdersReplaced"] is None and lunch["scaleUpMeasured"] is None
    assert lunch["missing"] == [NEEDS_NODE_LABELS, NEEDS_SCHEDULED, NEEDS_KARPENTER, NEEDS_KEDA, NEEDS_PODS]


def test_the_text_report_shows_each_window_and_the_exit_code_says_late_or_short(capsys, project, prometheus):
    assert main(["report", "--project", str(project), "--stack", "test", "--at", "2027-01-14T00:00Z",
                 "--prometheus", prometheus, "--from", "2027-01-11", "--to", "2027-01-13"]) == 1
    out = capsys.readouterr().out
    assert "Window lunch (pool event, placeholders)" in out and "12:03:00 UTC, 3m after the start" in out
    assert "11:54:00 UTC, 6m before the start" in out and "short" in out
    assert "2 insufficient_capacity, 1 launch_timeout" in out
    assert "+30s" in out and "+1m" in out and "never" in out  # lunch's scale-ups, and the paused dinner's
    assert "3 of 8 occurrences served" in out  # lunch, batch and search on the first day


def test_an_unreachable_prometheus_is_one_clear_line(capsys, project):
    assert main(["report", "--project", str(project), "--stack", "test", "--at", "2027-01-14T00:00Z",
                 "--prometheus", "http://127.0.0.1:9", "--days", "1"]) == 2
    assert capsys.readouterr().err.startswith("prescale: cannot reach Prometheus at 127.0.0.1:9")


def tune(capsys, project: Path, prometheus: str, *args: str) -> dict:
    assert main(["tune", "--project", str(project), "--stack", "test", "--at", "2027-01-14T00:00Z",
                 "--prometheus", prometheus, "--json", *args]) == 0
    captured = capsys.readouterr()
    document = json.loads(captured.out)
    assert_passes(TuneDocument, document)
    return {item["window"]: item for item in document["windows"]}


def test_tune_suggests_a_lead_time_and_nodes_from_the_measured_occurrences(capsys, project, prometheus):
    windows = tune(capsys, project, prometheus)
    lunch = windows["lunch"]
    # complete 4, 13 and 5 minutes after the 11:50 scale-up: p95 (nearest rank) 13m, + the 2m margin
    assert lunch["leadTime"] == {"current": "10m", "suggested": "15m"}
    # peak requests 14 CPU / 28Gi (the second day; DaemonSets' and placeholders' left out), + 10%, in nodes of the
    # default nodeSize (1 CPU, 2Gi): 15.4 CPU → 16, 30.8Gi → 16
    assert lunch["nodes"] == {"current": 4, "suggested": 16} and lunch["occurrences"] == 3
    assert windows["batch"]["leadTime"] == {"current": "10m", "suggested": "13m"}  # 2m and 10m30s: p95 10m30s + 2m
    assert windows["batch"]["nodes"]["suggested"] is None  # no pod requested anything on its NodePool
    assert windows["dinner"]["leadTime"]["suggested"] is None  # short and paused: never complete
    assert windows["search"]["capacity"] == {"current": {"cpu": "4", "memory": "8Gi"}, "suggested": None}


BLOCK_BATCH = """\
    - name: batch  # the morning batch, in block style
      nodePool: fixed
      timezone: UTC
      start: "0 9 * * *"
      end: "0 10 * * *"
      nodes: 3
"""


def test_tune_write_changes_only_the_suggested_values(capsys, tmp_path, prometheus):
    batch = '    - {name: batch, nodePool: fixed, timezone: UTC, start: "0 9 * * *", end: "0 10 * * *", nodes: 3}\n'
    commented = "# the shop's stack\n" + STACK.replace("    - {name: lunch,",
                                                      "    # the lunch rush\n    - {name: lunch,")
    commented = commented.replace(batch, BLOCK_BATCH)
    project = make_project(tmp_path, program="", stacks={"test": commented})
    tune(capsys, project, prometheus, "--write")
    after = (project / "Pulumi.test.yaml").read_text()
    diff = [line for line in difflib.ndiff(commented.splitlines(), after.splitlines()) if line[:1] in "+-"]
    lunch = 'nodePool: event, timezone: UTC, start: "0 12 * * *", end: "0 13 * * *"'
    assert diff == [f"-     - {{name: lunch, {lunch}, nodes: 4}}",
                    f"+     - {{name: lunch, leadTime: 15m, {lunch}, nodes: 16}}",
                    "+       leadTime: 13m"]  # added under the block entry's name, at its keys' indentation


def test_tune_write_leaves_a_window_whose_suggestion_breaks_a_limit_alone(capsys, tmp_path, prometheus):
    tight = STACK.replace('limits: {cpu: "256", memory: 1024Gi}', 'limits: {cpu: "48", memory: 1024Gi}')
    project = make_project(tmp_path, program="", stacks={"test": tight})
    assert main(["tune", "--project", str(project), "--stack", "test", "--at", "2027-01-14T00:00Z",
                 "--prometheus", prometheus, "--write"]) == 0
    out = capsys.readouterr().out
    after = (project / "Pulumi.test.yaml").read_text()
    assert "nodes: 4}" in after and "leadTime: 13m" in after  # lunch left alone, batch written
    assert "lunch: left as it is: prescale:" in out


def test_png_draws_each_window_s_occurrences_around_their_start(capsys, project, prometheus, tmp_path):
    picture = tmp_path / "report.png"
    assert main(["report", "--project", str(project), "--stack", "test", "--at", "2027-01-14T00:00Z",
                 "--prometheus", prometheus, "--from", "2027-01-11", "--to", "2027-01-13", "--png",
                 str(picture)]) == 1
    assert picture.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    since, until = datetime(2027, 1, 11, tzinfo=UTC), datetime(2027, 1, 13, tzinfo=UTC)
    config = load_config(project, "test", until)
    measured = measure("test", build_timeline(plan_capacity(config, since), since, until), Prometheus.at(prometheus),
                       until)
    figure = report_figure(measured)
    lines = {line.get_gid() for axis in figure.axes for line in axis.lines if line.get_gid()}
    assert lines == {"ready:lunch:served", "ready:lunch:late", "ready:dinner:short", "ready:batch:served",
                     "ready:batch:late", "ready:search:served", "ready:search:short"}
    lunch = next(axis for axis in figure.axes if axis.get_title(loc="left").startswith("lunch"))
    late = next(line for line in lunch.lines if line.get_gid() == "ready:lunch:late")
    x, y = late.get_data()
    assert list(y[list(x).index(3.0):][:1]) == [4]  # all four Ready 3 minutes after the start


def test_an_event_across_a_dst_change_is_measured_in_utc(capsys, project, prometheus):
    document = report(capsys, project, prometheus, "--from", "2027-03-27", "--days", "2", "--window", "night",
                      code=0, now="2027-04-01T00:00Z")
    (night,) = document["occurrences"]
    assert (night["scaleUp"], night["start"], night["end"]) == (  # 00:50 CET, 01:00 CET, 05:00 CEST
        "2027-03-27T23:50:00Z", "2027-03-28T00:00:00Z", "2027-03-28T03:00:00Z")
    assert (night["completeAt"], night["marginSeconds"], night["verdict"]) == ("2027-03-27T23:56:00Z", 4 * 60,
                                                                               "served")
    assert night["idealNodeHours"] == round(2 * 3 + 2 * 10 / 60, 2)  # 3 hours of event, not 4, and the lead time
    assert night["nodeHours"] == round(NIGHT.node_hours, 2)


def test_tunes_last_is_a_count_of_occurrences_not_days(capsys):
    with pytest.raises(SystemExit) as exited:
        main(["tune", "--last", "0"])
    assert exited.value.code == 2
    assert "argument --last: '0' is not a whole number of occurrences, 1 or more" in capsys.readouterr().err
