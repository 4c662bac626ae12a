"""``prescale status`` on recorded API objects (tests/data/status/, shaped as upstream documents them): what
each window's ScaledObject, placeholders, nodes and NodeClaims say, the exit code, and every way it ends in 2.
The reads go through the recorded cluster or, to test the client's translation, through the real
``kubernetes`` client with its API methods answering from the same recording."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from datetime import timedelta
from pathlib import Path
from types import SimpleNamespace

import kubernetes_validate
import pytest
from kubernetes.client import ApiClient
from kubernetes.client.exceptions import ApiException
from prescale.names import PLACEHOLDER_LABELS

from prescale_cli import cluster_reader
from prescale_cli import main as cli
from prescale_cli.cluster_reader import ClusterError, KubernetesReader, connect
from tests.support.cli import ROOT, make_project
from tests.support.crd_validation import CRD_FILES, validate
from tests.support.status import LEAD_TIME_NOW, RecordedCluster, overlaid, recorded

KUBERNETES_VERSION = "1.35"  # the dev stack's cluster
RUNNING_NOW = "2026-11-30T23:30Z"  # morning-peak started at 23:00 UTC
BEFORE_SCALE_UP = "2026-11-30T12:00Z"  # both daily windows still to come
ICE = "InsufficientCapacityError"


def status(capsys, monkeypatch, cluster, *args: str, at: str = LEAD_TIME_NOW, project: Path = ROOT,
           stack: str = "dev") -> tuple[int, str, str]:
    """``prescale status`` with ``cluster`` answering its reads."""
    monkeypatch.setattr(cluster_reader, "connect", lambda kubeconfig, context: cluster)
    code = cli.main(["status", "--project", str(project), "--stack", stack, "--at", at, *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def document(capsys, monkeypatch, cluster, *args: str, **options) -> tuple[int, dict]:
    code, out, err = status(capsys, monkeypatch, cluster, "--json", *args, **options)
    assert err == "", err
    return code, json.loads(out)


def window(doc: dict, name: str) -> dict:
    found = [record for record in doc["windows"] if record["window"] == name]
    assert len(found) == 1, [record["window"] for record in doc["windows"]]
    return found[0]


def changed(name: str, edit) -> RecordedCluster:
    """The recording ``name`` with ``edit(item)`` applied to a copy of every item."""
    items = tuple(copy.deepcopy(item) for item in recorded(name))
    for item in items:
        edit(item)
    return RecordedCluster(name, items)


# --- the recordings ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["ready", "not-ready", "karpenter-failing", "native", "native-failing"])
def test_the_recordings_pass_the_upstream_schemas(name):
    """Pods, Nodes, Events against Kubernetes' own OpenAPI (status included, no unknown field); ScaledObjects,
    NodeClaims, NodePools and EC2NodeClasses against the KEDA 2.20.2 and Karpenter 1.14.1 CRDs, whose status schemas
    list every field."""
    for item in recorded(name):
        if (item["apiVersion"], item["kind"]) in CRD_FILES:
            assert validate(item) == [], item["metadata"]["name"]
        else:
            kubernetes_validate.validate(item, KUBERNETES_VERSION, strict=True)


def test_the_schema_check_covers_status():
    claim = copy.deepcopy(next(item for item in recorded("not-ready") if item["kind"] == "NodeClaim"))
    claim["status"]["conditions"][0]["status"] = "Yes"
    assert validate(claim) == ["status.conditions[0].status: 'Yes' is not one of ['True', 'False', 'Unknown']"]


# --- ready -----------------------------------------------------------------------------------------------------

def test_every_placeholder_ready_in_the_lead_time_exits_0(capsys, monkeypatch):
    code, doc = document(capsys, monkeypatch, RecordedCluster("ready"))
    assert code == 0 and doc["ready"] is True
    assert (doc["stack"], doc["now"], doc["within"]) == ("dev", "2026-11-30T22:55:00Z", "24h")
    peak = window(doc, "morning-peak")  # once, though its next occurrence also starts within 24h
    assert {key: peak[key] for key in ("nodePool", "state", "scaleUp", "start", "end", "ready", "notReady")} == {
        "nodePool": "event", "state": "lead", "scaleUp": "2026-12-01T07:45:00+09:00",
        "start": "2026-12-01T08:00:00+09:00", "end": "2026-12-01T11:00:00+09:00", "ready": True, "notReady": []}
    assert {key: peak["scaledObject"][key] for key in ("name", "found", "ready", "active", "paused", "fallback")} == {
        "name": "prescale-morning-peak", "found": True, "ready": True, "active": True, "paused": False,
        "fallback": False}
    assert peak["placeholders"] == {"desired": 10, "ready": 10, "pending": 0, "reasons": []}
    assert peak["nodes"] == {"total": 10, "ready": 10, "reserved": 0, "reservations": []}  # system nodes left out
    assert peak["nodeClaims"] == {"total": 10, "ready": 10, "launchFailures": []}
    assert peak["freeze"] == {"schedule": "45 22 * * *", "duration": "3h15m"}
    lunch = window(doc, "lunch-rush")
    assert (lunch["state"], lunch["ready"], lunch["scaledObject"]["active"]) == ("upcoming", True, False)


def test_a_running_window_that_holds_its_placeholders_is_ready(capsys, monkeypatch):
    code, out, _ = status(capsys, monkeypatch, RecordedCluster("ready"), at=RUNNING_NOW)
    assert code == 0
    assert "morning-peak  event  running, ends in 2h30m" in out
    assert out.rstrip().endswith("Ready: every window in its lead time or running is ready.")


@pytest.mark.parametrize("at, state", [
    ("2026-11-30T22:44:59Z", "upcoming"), ("2026-11-30T22:45Z", "lead"), ("2026-11-30T22:59:59Z", "lead"),
    ("2026-11-30T23:00Z", "running"), ("2026-12-01T01:59:59Z", "running"),
    ("2026-12-01T02:00Z", "upcoming")])  # ended: its next occurrence is the one shown
def test_the_state_follows_the_windows_half_open_spans(capsys, monkeypatch, at, state):
    """Lead time [scale-up, start), running [start, end): at the start instant the event is running, not in lead."""
    doc = document(capsys, monkeypatch, RecordedCluster("ready"), at=at)[1]
    assert window(doc, "morning-peak")["state"] == state


def test_now_is_printed_in_utc_whatever_offset_at_has(capsys, monkeypatch):
    seoul = "2026-12-01T07:55+09:00"  # LEAD_TIME_NOW in Seoul's time
    assert document(capsys, monkeypatch, RecordedCluster("ready"), at=seoul)[1]["now"] == "2026-11-30T22:55:00Z"
    _, out, _ = status(capsys, monkeypatch, RecordedCluster("ready"), at=seoul)
    assert out.startswith("Status of stack dev at 2026-11-30 22:55 UTC: ")


def test_the_table_shows_each_window_once(capsys, monkeypatch):
    _, out, _ = status(capsys, monkeypatch, RecordedCluster("ready"))
    rows = out.splitlines()[3:5]
    assert rows[0].split()[:6] == ["morning-peak", "event", "lead,", "starts", "in", "5m"]
    assert rows[0].endswith("10/10 Ready    10/10 Ready  45 22 * * * for 3h15m  yes")
    assert "Ready, not Active  5 at scale-up" in rows[1] and rows[1].endswith("armed")


# --- not ready -------------------------------------------------------------------------------------------------

@pytest.fixture
def not_ready(capsys, monkeypatch) -> tuple[int, dict]:
    return document(capsys, monkeypatch, RecordedCluster("not-ready"))


def test_a_pending_placeholder_in_the_lead_time_exits_1_with_its_reason(capsys, monkeypatch):
    code, out, err = status(capsys, monkeypatch, RecordedCluster("not-ready"))
    assert (code, err) == (1, "")
    assert "morning-peak (in its lead time): NOT READY\n  7 of 10 placeholders Ready\n" in out
    assert '    1 × ImagePullBackOff: Back-off pulling image "registry.k8s.io/pause:3.10"\n' in out
    assert ("    2 × Unschedulable: 0/10 nodes are available: 2 node(s) didn't match Pod's node affinity/selector, "
            "8 node(s) didn't match pod anti-affinity rules.") in out
    assert out.rstrip().endswith("NOT READY: morning-peak.")


def test_placeholders_count_ready_and_pending_pods_but_not_terminating_ones(not_ready):
    code, doc = not_ready
    held = window(doc, "morning-peak")["placeholders"]
    assert (code, doc["ready"]) == (1, False)
    assert (held["desired"], held["ready"], held["pending"]) == (10, 7, 3)  # 11 recorded, one being preempted
    assert [(reason["pod"][-5:], reason["reason"]) for reason in held["reasons"]] == [
        ("m9n3w", "ImagePullBackOff"), ("p2q4x", "Unschedulable"), ("r3s5z", "Unschedulable")]
    assert window(doc, "morning-peak")["notReady"] == ["7 of 10 placeholders Ready"]


def test_launch_failures_carry_karpenters_reason(not_ready):
    """A NodeClaim whose Launched condition Karpenter left Unknown with a reason, and one it deleted after
    InsufficientCapacity, known by its Warning event; not the one still launching (AwaitingReconciliation), not
    an event from before this scale-up, not another NodePool's NodeClaim."""
    claims = window(not_ready[1], "morning-peak")["nodeClaims"]
    assert (claims["total"], claims["ready"]) == (10, 8)
    assert [(f["nodeClaim"], f["reason"], f["deleted"]) for f in claims["launchFailures"]] == [
        ("prescale-event-l9z4d", "RequestLimitExceeded", False), ("prescale-event-x7k2p", ICE, True)]
    assert claims["launchFailures"][0]["message"] == "Error creating fleet request: Request limit exceeded"
    assert "insufficient capacity, with fleet error(s), InsufficientInstanceCapacity" in \
        claims["launchFailures"][1]["message"]
    # An upcoming window has no scale-up yet to count events from.
    assert [f["nodeClaim"] for f in window(not_ready[1], "lunch-rush")["nodeClaims"]["launchFailures"]] == [
        "prescale-event-l9z4d"]


def test_reservations_in_use_are_the_pools_reserved_nodes(capsys, monkeypatch, not_ready):
    assert window(not_ready[1], "morning-peak")["nodes"] == {
        "total": 8, "ready": 8, "reserved": 1, "reservations": ["cr-0a1b2c3d4e5f67890"]}
    _, out, _ = status(capsys, monkeypatch, RecordedCluster("not-ready"))
    assert ("Pool event: 8/8 nodes Ready, 8/10 NodeClaims Ready\n"
            "  Capacity reservations in use: cr-0a1b2c3d4e5f67890 (1 node)\n"
            "  NodeClaims failing to launch or register (Karpenter's reason):\n"
            "    prescale-event-l9z4d: RequestLimitExceeded: Error creating fleet request: Request limit exceeded\n"
            "    prescale-event-x7k2p (deleted, Karpenter retries): InsufficientCapacityError: NodeClaim ") in out


def test_an_upcoming_window_without_its_scaled_object_is_shown_but_does_not_fail(capsys, monkeypatch):
    code, doc = document(capsys, monkeypatch, RecordedCluster("not-ready"), at=BEFORE_SCALE_UP)
    lunch = window(doc, "lunch-rush")
    assert (code, doc["ready"]) == (0, True)
    assert (lunch["state"], lunch["ready"]) == ("upcoming", False)
    assert lunch["notReady"] == ["ScaledObject prescale-lunch-rush not found in namespace prescale (run `pulumi up`?)"]
    _, out, _ = status(capsys, monkeypatch, RecordedCluster("not-ready"), at=BEFORE_SCALE_UP)
    assert "lunch-rush (upcoming): NOT ARMED\n" in out
    assert out.rstrip().endswith("upcoming windows do not decide readiness.")


def _condition(kind: str, status: str, reason: str, message: str):
    def edit(item):
        if item["kind"] == "ScaledObject":
            item["status"]["conditions"] = [
                {"type": kind, "status": status, "reason": reason, "message": message} if c["type"] == kind else c
                for c in item["status"]["conditions"]]
    return edit


@pytest.fixture
def failing(capsys, monkeypatch) -> tuple[int, dict]:
    return document(capsys, monkeypatch, overlaid("not-ready", "karpenter-failing"))


def test_a_node_class_that_is_not_ready_keeps_every_window_of_its_pool_from_being_ready(failing):
    """Karpenter publishes no event for it (its NodeClassNotReady event is never published): only the EC2NodeClass's
    conditions say which one failed, and the NodePool's that Karpenter launches nothing for it."""
    code, doc = failing
    blockers = ["NodePool prescale-event not NodeClassReady (UnhealthyDependents: SubnetsReady=False): Karpenter "
                "launches no node for it",
                "EC2NodeClass prescale-event not SubnetsReady (SubnetsNotFound: SubnetSelector did not match any "
                "Subnets)"]
    assert code == 1
    assert window(doc, "morning-peak")["notReady"] == ["7 of 10 placeholders Ready", *blockers]
    assert window(doc, "lunch-rush")["notReady"][1:] == blockers  # upcoming: its next event would start with nothing
    karpenter = window(doc, "morning-peak")["karpenter"]
    assert {key: karpenter["nodePool"][key] for key in ("kind", "name", "found", "ready")} == {
        "kind": "NodePool", "name": "prescale-event", "found": True, "ready": False}
    assert {key: karpenter["nodeClass"][key] for key in ("kind", "name", "found", "ready")} == {
        "kind": "EC2NodeClass", "name": "prescale-event", "found": True, "ready": False}
    assert {"type": "SubnetsReady", "status": "False", "reason": "SubnetsNotFound",
            "message": "SubnetSelector did not match any Subnets"} in karpenter["nodeClass"]["conditions"]


def test_ready_karpenter_objects_block_nothing(not_ready):
    karpenter = window(not_ready[1], "morning-peak")["karpenter"]
    assert (karpenter["nodePool"]["ready"], karpenter["nodeClass"]["ready"]) == (True, True)
    assert window(not_ready[1], "morning-peak")["notReady"] == ["7 of 10 placeholders Ready"]


def _without(kind: str) -> RecordedCluster:
    return RecordedCluster("ready", tuple(item for item in recorded("ready") if item["kind"] != kind))


@pytest.mark.parametrize("cluster, blocker, node_class", [
    (_without("NodePool"), "NodePool prescale-event not found: Karpenter launches no node for it", None),
    (_without("EC2NodeClass"), "EC2NodeClass prescale-event not found",
     {"kind": "EC2NodeClass", "name": "prescale-event", "found": False, "ready": False, "conditions": []}),
], ids=["no-node-pool", "no-node-class"])
def test_a_missing_node_pool_or_node_class_keeps_the_window_from_being_ready(capsys, monkeypatch, cluster, blocker,
                                                                            node_class):
    code, doc = document(capsys, monkeypatch, cluster)
    assert code == 1
    assert window(doc, "morning-peak")["notReady"] == [blocker]
    assert window(doc, "morning-peak")["karpenter"]["nodeClass"] == node_class


def test_a_node_claim_launched_without_its_node_is_late_after_5_minutes(capsys, monkeypatch):
    """Karpenter deletes it without an event at 15 minutes (registration_timeout): until then only its Registered
    condition tells, NodeNotFound since 22:46:11."""
    def late(at: str) -> list[tuple[str, str, str]]:
        doc = document(capsys, monkeypatch, overlaid("not-ready", "karpenter-failing"), at=at)[1]
        return [(f["nodeClaim"], f["condition"], f["since"])
                for f in window(doc, "morning-peak")["nodeClaims"]["launchFailures"] if f["condition"] == "Registered"]
    assert late("2026-11-30T22:51:10Z") == []
    assert late("2026-11-30T22:51:11Z") == [("prescale-event-m2b8f", "Registered", "2026-11-30T22:46:11Z")]


def test_the_pool_shows_its_late_node_claims_and_karpenters_registration_health(capsys, monkeypatch):
    _, out, _ = status(capsys, monkeypatch, overlaid("not-ready", "karpenter-failing"))
    assert ("  NodePool prescale-event not NodeRegistrationHealthy: half of its last NodeClaims failed to launch or "
            "register (RegistrationFailed: Failed to register node)\n") in out
    assert ("    prescale-event-m2b8f (launched, no node for 8m): NodeNotFound: Node not registered with "
            "cluster\n") in out


@pytest.mark.parametrize("edit, blocker", [
    (_condition("Active", "False", "ScalerNotActive", "Scaling is not performed because triggers are not active"),
     "ScaledObject not Active (ScalerNotActive: Scaling is not performed because triggers are not active)"),
    (_condition("Paused", "True", "ScaledObjectPaused", "ScaledObject is paused"),
     "ScaledObject Paused (ScaledObjectPaused: ScaledObject is paused)"),
    (_condition("Ready", "False", "ScaledObjectCheckFailed", "ScaledObject doesn't have correct triggers"),
     "ScaledObject not Ready (ScaledObjectCheckFailed: ScaledObject doesn't have correct triggers)"),
], ids=["not-active", "paused", "not-ready"])
def test_a_scaled_object_keda_has_not_opened_keeps_the_window_not_ready(capsys, monkeypatch, edit, blocker):
    """KEDA v2.20 condition reasons (pkg/scaling/executor/scale_scaledobjects.go, controllers/keda)."""
    code, doc = document(capsys, monkeypatch, changed("ready", edit))
    assert code == 1
    assert window(doc, "morning-peak")["notReady"] == [blocker]


def test_within_chooses_the_windows(capsys, monkeypatch):
    def windows(within: str) -> list[str]:
        return [record["window"] for record in document(capsys, monkeypatch, RecordedCluster("ready"),
                                                        "--within", within)[1]["windows"]]
    assert windows("3h") == ["morning-peak"]  # lunch-rush scales up at 02:05 UTC, 3h10m away
    assert windows("200m") == ["morning-peak", "lunch-rush"]
    assert windows("2d") == ["morning-peak", "lunch-rush"]
    code, out, _ = status(capsys, monkeypatch, RecordedCluster("ready"), "--within", "1m", at=BEFORE_SCALE_UP)
    assert code == 0 and "No window is running or starts within 1m: nothing to be ready for." in out


@pytest.mark.parametrize("text, span", [("24h", timedelta(hours=24)), ("90m", timedelta(minutes=90)),
                                        ("1h30m", timedelta(minutes=90)), ("1.5h", timedelta(minutes=90)),
                                        ("2d", timedelta(days=2))])
def test_within_reads_durations_and_days(text, span):
    assert cli._within(text) == span


@pytest.mark.parametrize("text", ["1w", "0m", "367d", "", "d", "-1h", "500ms"])
def test_within_refuses_what_is_not_a_duration(capsys, text):
    with pytest.raises(SystemExit) as exit_:
        cli.main(["status", f"--within={text}"])
    assert exit_.value.code == 2
    assert f"argument --within: {text!r} is not a duration from 1s to 366d" in capsys.readouterr().err


# --- what the cluster is asked ---------------------------------------------------------------------------------

def test_the_cluster_is_asked_for_the_pools_nodes_and_node_claims_by_label(capsys, monkeypatch):
    cluster = RecordedCluster("ready")
    status(capsys, monkeypatch, cluster)
    pool = {"prescale.io/node-pool": "event"}
    assert cluster.calls == [("scaled_objects", "prescale"), ("pods", "prescale", PLACEHOLDER_LABELS),
                             ("nodes", pool), ("node_claims", pool), ("node_claim_events",), ("node_pools",),
                             ("node_classes", "karpenter.k8s.aws", "EC2NodeClass")]


EXISTING_POOL_STACK = """\
config:
  aws:region: ap-northeast-2
  prescale:cluster: {name: shop}
  prescale:nodePools: [{name: general-purpose, existing: true}]
  prescale:eventWindows:
    - {name: lunch, nodePool: general-purpose, timezone: Asia/Seoul, start: "15 11 * * *", end: "30 11 * * *",
       nodes: 3}
"""


def test_a_pool_prescale_does_not_own_is_found_by_karpenters_label(capsys, monkeypatch, tmp_path):
    """Its nodes and NodeClaims by ``karpenter.sh/nodepool``, its deleted NodeClaims' events by the NodePool's
    own name (no ``prescale-`` prefix), and no freeze: its placeholders carry do-not-disrupt instead."""
    project = make_project(tmp_path, program="", stacks={"shop": EXISTING_POOL_STACK})

    def rename(item):
        if item["kind"] == "Event" and item["involvedObject"]["name"] == "prescale-event-x7k2p":
            item["involvedObject"]["name"] = "general-purpose-x7k2p"
            item["lastTimestamp"] = "2026-12-01T02:06:30Z"
    cluster = changed("not-ready", rename)
    code, doc = document(capsys, monkeypatch, cluster, at="2026-12-01T02:10Z", project=project, stack="shop")
    assert cluster.calls[2:4] == [("nodes", {"karpenter.sh/nodepool": "general-purpose"}),
                                  ("node_claims", {"karpenter.sh/nodepool": "general-purpose"})]
    lunch = window(doc, "lunch")
    assert (code, lunch["state"], lunch["freeze"]) == (1, "lead", None)
    assert [f["nodeClaim"] for f in lunch["nodeClaims"]["launchFailures"]] == ["general-purpose-x7k2p"]


# --- the kubernetes client ------------------------------------------------------------------------------------

KUBECONFIG = """\
apiVersion: v1
kind: Config
clusters: [{name: loopback, cluster: {server: "https://127.0.0.1:1", insecure-skip-tls-verify: true}}]
users: [{name: tester, user: {token: not-a-secret}}]
contexts: [{name: loopback, context: {cluster: loopback, user: tester}}]
current-context: loopback
"""


@pytest.fixture
def kubeconfig(tmp_path) -> Path:
    """A kubeconfig for a port nothing listens on (loopback only)."""
    path = tmp_path / "kubeconfig"
    path.write_text(KUBECONFIG)
    return path


def selected(selector: str) -> dict[str, str]:
    return dict(part.split("=", 1) for part in selector.split(",")) if selector else {}


def answering(reader: KubernetesReader, cluster: RecordedCluster) -> list[tuple]:
    """Make the reader's CoreV1Api and CustomObjectsApi methods answer from ``cluster`` as the API server
    would: typed lists deserialized by the client itself, custom objects as plain JSON. Returns the calls."""
    calls: list[tuple] = []
    client = ApiClient()

    def typed(method: str, list_type: str, kind: str, namespaced: bool):
        def call(*args, label_selector="", field_selector="", _request_timeout=None):
            calls.append((method, *args, label_selector or field_selector, _request_timeout))
            items = cluster.listed(kind, args[0] if namespaced else None, selected(label_selector))
            if kind == "Event":
                items = [item for item in items if {"involvedObject.kind": item["involvedObject"]["kind"],
                                                    "type": item["type"]} == selected(field_selector)]
            body = {"apiVersion": "v1", "kind": list_type[2:] if list_type.startswith("V1") else "EventList",
                    "metadata": {}, "items": items}
            return client.deserialize(SimpleNamespace(data=json.dumps(body)), list_type)  # as the client's REST answer
        return call

    def custom(method: str):
        def call(group, version, *args, label_selector="", _request_timeout=None):
            calls.append((method, group, version, *args, label_selector, _request_timeout))
            namespace = args[0] if len(args) == 2 else None
            kind = KINDS[args[-1]]
            return {"apiVersion": f"{group}/{version}", "kind": f"{kind}List", "metadata": {},
                    "items": [item for item in cluster.listed(kind, namespace, selected(label_selector))
                              if item["apiVersion"] == f"{group}/{version}"]}
        return call

    reader.core.list_namespaced_pod = typed("list_namespaced_pod", "V1PodList", "Pod", True)
    reader.core.list_node = typed("list_node", "V1NodeList", "Node", False)
    reader.core.list_event_for_all_namespaces = typed("list_event_for_all_namespaces", "CoreV1EventList", "Event",
                                                      False)
    reader.batch.list_namespaced_cron_job = typed("list_namespaced_cron_job", "V1CronJobList", "CronJob", True)
    reader.batch.list_namespaced_job = typed("list_namespaced_job", "V1JobList", "Job", True)
    reader.custom.list_namespaced_custom_object = custom("list_namespaced_custom_object")
    reader.custom.list_cluster_custom_object = custom("list_cluster_custom_object")
    return calls


KINDS = {"scaledobjects": "ScaledObject", "nodeclaims": "NodeClaim", "nodepools": "NodePool",
         "ec2nodeclasses": "EC2NodeClass", "nodeclasses": "NodeClass",
         "capacitybuffers": "CapacityBuffer"}  # a custom resource's plural → its kind


@pytest.mark.parametrize("cluster", [RecordedCluster("ready"), RecordedCluster("not-ready"),
                                     overlaid("not-ready", "karpenter-failing")], ids=["ready", "not-ready", "failing"])
def test_the_kubernetes_client_reader_reports_what_the_recording_says(capsys, monkeypatch, kubeconfig, cluster):
    """The same answer whether the recording is served directly or through the client's models and back."""
    reader = connect(str(kubeconfig), None)
    calls = answering(reader, cluster)
    through_client = document(capsys, monkeypatch, reader)
    assert through_client == document(capsys, monkeypatch, cluster)
    assert calls == [
        ("list_namespaced_custom_object", "keda.sh", "v1alpha1", "prescale", "scaledobjects", "", 10),
        ("list_namespaced_pod", "prescale",
         "app.kubernetes.io/managed-by=prescale,app.kubernetes.io/name=prescale-placeholder", 10),
        ("list_node", "prescale.io/node-pool=event", 10),
        ("list_cluster_custom_object", "karpenter.sh", "v1", "nodeclaims", "prescale.io/node-pool=event", 10),
        ("list_event_for_all_namespaces", "involvedObject.kind=NodeClaim,type=Warning", 10),
        ("list_cluster_custom_object", "karpenter.sh", "v1", "nodepools", "", 10),
        ("list_cluster_custom_object", "karpenter.k8s.aws", "v1", "ec2nodeclasses", "", 10)]


def test_auto_modes_node_classes_are_read_from_their_own_api(kubeconfig):
    """A NodePool on EKS Auto Mode names ``{group: eks.amazonaws.com, kind: NodeClass}``."""
    reader = connect(str(kubeconfig), None)
    calls = answering(reader, RecordedCluster("ready"))
    assert reader.node_classes("eks.amazonaws.com", "NodeClass") == []
    assert calls == [("list_cluster_custom_object", "eks.amazonaws.com", "v1", "nodeclasses", "", 10)]


def test_an_api_that_is_not_served_reads_as_empty(capsys, monkeypatch, kubeconfig):
    """A CRD that is not installed answers 404: no ScaledObject, so the window is not ready (exit 1, not 2)."""
    reader = connect(str(kubeconfig), None)
    answering(reader, RecordedCluster("ready"))

    def not_found(*args, **kwargs):
        raise ApiException(status=404, reason="Not Found")
    reader.custom.list_namespaced_custom_object = not_found
    code, doc = document(capsys, monkeypatch, reader)
    assert code == 1
    assert window(doc, "morning-peak")["scaledObject"]["found"] is False


def test_an_api_refusal_exits_2_with_the_servers_message(capsys, monkeypatch, kubeconfig):
    reader = connect(str(kubeconfig), None)
    answering(reader, RecordedCluster("ready"))
    forbidden = json.dumps({"kind": "Status", "apiVersion": "v1", "status": "Failure", "reason": "Forbidden",
                            "code": 403, "message": 'nodes is forbidden: User "viewer" cannot list resource "nodes" '
                                                    'in API group "" at the cluster scope'})

    def refuse(*args, **kwargs):  # the client's exception from the server's answer, as its REST layer raises it
        raise ApiException(http_resp=SimpleNamespace(status=403, reason="Forbidden", data=forbidden,
                                                     getheaders=dict))
    reader.core.list_node = refuse
    code, out, err = status(capsys, monkeypatch, reader)
    assert (code, out) == (2, "")
    assert err == ("prescale: the cluster at https://127.0.0.1:1 refused to list nodes: 403 Forbidden: nodes is "
                   'forbidden: User "viewer" cannot list resource "nodes" in API group "" at the cluster scope\n')


# --- exit 2: no cluster, no config -----------------------------------------------------------------------------

def test_an_unreachable_cluster_exits_2_with_one_message(capsys, kubeconfig):
    code = cli.main(["status", "--project", str(ROOT), "--stack", "dev", "--at", LEAD_TIME_NOW,
                     "--kubeconfig", str(kubeconfig)])
    captured = capsys.readouterr()
    assert (code, captured.out) == (2, "")
    assert captured.err.startswith("prescale: cannot reach the cluster at https://127.0.0.1:1 to list KEDA "
                                   "ScaledObjects in namespace prescale: ")
    assert captured.err.count("\n") == 1 and "Traceback" not in captured.err


def test_a_missing_kubeconfig_exits_2(capsys, monkeypatch, tmp_path):
    missing = tmp_path / "no-such-kubeconfig"
    monkeypatch.setenv("KUBECONFIG", str(missing))
    code = cli.main(["status", "--project", str(ROOT), "--stack", "dev", "--at", LEAD_TIME_NOW])  # from $KUBECONFIG
    assert (code, capsys.readouterr().err) == (
        2, f"prescale: no kubeconfig at {missing}; pass --kubeconfig FILE or set $KUBECONFIG\n")
    with pytest.raises(ClusterError, match="no kubeconfig at /nowhere/config"):
        connect("/nowhere/config", None)


@pytest.mark.parametrize(("text", "why"), [
    ("- current-context\n", "TypeError"),
    ("clusters: 5\n", "TypeError"),
    ("users: [{name: u, user: {token: s3cr3t}}]\n{{{\n", "ScannerError, line 3, column 1"),
])
def test_a_file_that_is_no_kubeconfig_exits_2_saying_where_without_its_content(capsys, tmp_path, text, why):
    """Found trying the commands at their edges: the client's loader failed on these with a traceback; the parser's
    own message would quote the line, which may hold a token."""
    kubeconfig = tmp_path / "kubeconfig"
    kubeconfig.write_text(text)
    code = cli.main(["status", "--project", str(ROOT), "--stack", "dev", "--at", LEAD_TIME_NOW,
                     "--kubeconfig", str(kubeconfig)])
    assert (code, capsys.readouterr().err) == (
        2, f"prescale: cannot use the kubeconfig {kubeconfig}: not a kubeconfig ({why})\n")


def test_an_unknown_context_exits_2(capsys, kubeconfig):
    code = cli.main(["status", "--project", str(ROOT), "--stack", "dev", "--kubeconfig", str(kubeconfig),
                     "--context", "production"])
    err = capsys.readouterr().err
    assert code == 2 and err.startswith(f"prescale: cannot use the kubeconfig {kubeconfig}: ")
    assert "production" in err and err.count("\n") == 1


@pytest.mark.parametrize("stacks, stack, message", [
    ({"bad": EXISTING_POOL_STACK.replace("nodes: 3", "nodes: 0")}, "bad", "eventWindows[0].nodes"),
    ({}, "missing", "Pulumi.missing.yaml"),
], ids=["invalid-config", "no-stack-file"])
def test_a_config_that_cannot_be_used_exits_2_before_any_cluster_read(capsys, monkeypatch, tmp_path, stacks, stack,
                                                                      message):
    project = make_project(tmp_path, program="", stacks=stacks)

    def never(*args):
        raise AssertionError("the cluster was read for an invalid config")
    monkeypatch.setattr(cluster_reader, "connect", never)
    code = cli.main(["status", "--project", str(project), "--stack", stack])
    captured = capsys.readouterr()
    assert (code, captured.out) == (2, "")
    assert captured.err.startswith("prescale: ") and message in captured.err and "Traceback" not in captured.err


def test_only_status_loads_the_kubernetes_client():
    """`prescale schedule` stays free of it (the client takes over a second to import)."""
    script = ("import sys, contextlib, io\n"
              "from prescale_cli.main import main\n"
              "with contextlib.redirect_stdout(io.StringIO()):\n"
              f"    code = main(['schedule', '--stack', 'dev', '--project', {str(ROOT)!r},\n"
              f"                 '--at', {LEAD_TIME_NOW!r}])\n"
              "print(code, 'kubernetes' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True, cwd=ROOT)
    assert done.stdout == "0 False\n", done.stderr


def test_no_pulumi_project_exits_2_for_status_and_1_for_the_others(capsys, monkeypatch, tmp_path):
    """Not finding the project is a config problem: `status` says 2 (1 means "not ready"), plan and schedule 1."""
    monkeypatch.chdir(tmp_path)
    assert cli.main(["status", "--stack", "dev"]) == 2
    assert "Pulumi.yaml" in capsys.readouterr().err
    assert cli.main(["schedule", "--stack", "dev"]) == 1
