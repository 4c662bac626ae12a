"""``prescale status`` on static and buffer pools, on recorded clusters (tests/data/status/native*.yaml): a static
window is ready with its NodePool at its count and that many nodes Ready, a buffer window with its CapacityBuffer at
its count and Provisioning; both need their driver's CronJobs, whose failed last Job is a reason."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from prescale.model.strategies.static import static_node_pool_name

from prescale_cli import cluster_reader
from prescale_cli import main as cli
from prescale_cli.cluster_reader import connect
from prescale_cli.documents import StatusDocument
from tests.cli.test_documents import assert_passes
from tests.cli.test_status import answering, kubeconfig  # noqa: F401 - the fixture, used by name
from tests.support.cli import make_project
from tests.support.status import RecordedCluster, recorded

STACK = """\
config:
  aws:region: ap-northeast-2
  prescale:cluster: {name: shop}
  prescale:nodePools:
    - name: fixed
      strategy: static
      limits: {nodes: 10}
      requirements: [{key: node.kubernetes.io/instance-type, operator: In, values: [m7i.xlarge]},
                     {key: topology.kubernetes.io/zone, operator: In, values: [ap-northeast-2a]}]
    - {name: warm, strategy: buffer, instanceCategories: [c, m], limits: {cpu: "64", memory: 256Gi}}
  prescale:eventWindows:
    - {name: lunch, nodePool: fixed, timezone: Asia/Seoul, start: "0 12 * * *", end: "0 13 * * *", nodes: 3}
    - {name: lunch-warm, nodePool: warm, timezone: Asia/Seoul, start: "0 12 * * *", end: "0 14 * * *", nodes: 2}
    - {name: dinner, nodePool: fixed, timezone: Asia/Seoul, start: "0 18 * * *", end: "0 19 * * *", nodes: 2}
"""
LEAD = "2026-11-30T02:55Z"  # 11:55 KST: both lunch windows scaled up at 11:50, dinner's scale-up at 17:50
RUNNING = "2026-11-30T03:40Z"  # 12:40 KST: native-failing.yaml's instant
LUNCH = static_node_pool_name("fixed", "lunch")


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    return make_project(tmp_path_factory.mktemp("native-status"), program="", stacks={"shop": STACK})


def status(capsys, monkeypatch, project: Path, cluster, *args: str, at: str = LEAD) -> tuple[int, str]:
    monkeypatch.setattr(cluster_reader, "connect", lambda _kubeconfig, _context: cluster)
    code = cli.main(["status", "--project", str(project), "--stack", "shop", "--at", at, *args])
    captured = capsys.readouterr()
    assert captured.err == ""
    return code, captured.out


def document(capsys, monkeypatch, project: Path, cluster, at: str = LEAD) -> tuple[int, dict]:
    code, out = status(capsys, monkeypatch, project, cluster, "--json", at=at)
    doc = json.loads(out)
    assert_passes(StatusDocument, doc)
    return code, doc


def window(doc: dict, name: str) -> dict:
    return next(record for record in doc["windows"] if record["window"] == name)


def edited(name: str, edit) -> RecordedCluster:
    items = tuple(copy.deepcopy(item) for item in recorded(name))
    for item in items:
        edit(item)
    return RecordedCluster(name, items)


def test_counts_set_and_provisioned_in_the_lead_time_are_ready(capsys, monkeypatch, project):
    code, doc = document(capsys, monkeypatch, project, RecordedCluster("native"))
    assert (code, doc["ready"]) == (0, True)
    lunch = window(doc, "lunch")
    assert (lunch["strategy"], lunch["state"], lunch["ready"], lunch["scaledObject"], lunch["placeholders"]) == (
        "static", "lead", True, None, None)
    assert lunch["static"] == {"desired": 3, "replicas": 3, "nodes": 3}
    assert lunch["nodes"] == {"total": 3, "ready": 3, "reserved": 0, "reservations": []}  # not dinner's nor warm's
    assert lunch["karpenter"]["nodePool"]["name"] == LUNCH
    assert lunch["freeze"] == {"schedule": "50 2 * * *", "duration": "1h10m"}  # its own NodePool's
    assert [(run["name"], run["sets"], run["lastJob"] and run["lastJob"]["state"]) for run in lunch["driver"]] == [
        ("scale-up-lunch", 3, "succeeded"), ("scale-down-lunch", 0, "succeeded"), ("failsafe-lunch", 0, None)]
    warm = window(doc, "lunch-warm")
    assert warm["buffer"] | {"conditions": []} == {
        "name": "prescale-lunch-warm", "found": True, "desired": 2, "replicas": 2, "provisioned": 2,
        "readyForProvisioning": True, "provisioning": True, "conditions": []}
    assert (warm["nodes"]["total"], warm["karpenter"]["nodePool"]["name"]) == (2, "prescale-warm")
    dinner = window(doc, "dinner")
    assert (dinner["state"], dinner["ready"], dinner["static"]) == (
        "upcoming", True, {"desired": 2, "replicas": 0, "nodes": 0})
    assert dinner["freeze"] is None  # lunch's freeze, in force now on lunch's own NodePool, is not dinner's


def test_the_cluster_is_asked_for_what_the_strategies_need(project, capsys, monkeypatch):
    """No ScaledObject or placeholder without a placeholder window; nodes and NodeClaims of each static window by
    Karpenter's label on its own NodePool, the buffer pool's by prescale's."""
    cluster = RecordedCluster("native")
    status(capsys, monkeypatch, project, cluster)
    assert cluster.calls == [
        ("cron_jobs", "prescale"), ("jobs", "prescale"), ("capacity_buffers", "prescale"),
        ("nodes", {"karpenter.sh/nodepool": LUNCH}), ("nodes", {"prescale.io/node-pool": "warm"}),
        ("nodes", {"karpenter.sh/nodepool": static_node_pool_name("fixed", "dinner")}),
        ("node_claims", {"karpenter.sh/nodepool": LUNCH}), ("node_claims", {"prescale.io/node-pool": "warm"}),
        ("node_claims", {"karpenter.sh/nodepool": static_node_pool_name("fixed", "dinner")}),
        ("node_claim_events",), ("node_pools",), ("node_classes", "karpenter.k8s.aws", "EC2NodeClass")]


def test_a_static_pool_short_of_its_count_is_not_ready(capsys, monkeypatch, project):
    """One node launched but not Ready yet (its CNI not up): 2 of 3."""
    def not_ready(item):
        if item["kind"] == "Node" and item["metadata"]["name"].startswith("ip-10-0-97-88"):
            next(c for c in item["status"]["conditions"] if c["type"] == "Ready")["status"] = "False"
    code, doc = document(capsys, monkeypatch, project, edited("native", not_ready))
    assert (code, window(doc, "lunch")["notReady"]) == (1, ["2 of 3 nodes Ready"])


def test_a_failed_scale_up_job_leaves_the_static_pool_at_0_and_says_why(capsys, monkeypatch, project):
    code, doc = document(capsys, monkeypatch, project, RecordedCluster("native-failing"), at=RUNNING)
    lunch = window(doc, "lunch")
    assert (code, lunch["state"], lunch["static"]) == (1, "running", {"desired": 3, "replicas": 0, "nodes": 0})
    assert lunch["notReady"] == [
        f"NodePool {LUNCH} at replicas 0, the window needs 3 (its CronJob prescale/scale-up-lunch has not set it)",
        "0 of 3 nodes Ready",
        "Job prescale/scale-up-lunch-29933450 of CronJob prescale/scale-up-lunch failed (DeadlineExceeded: Job was "
        "active longer than specified deadline): its count (3) may not be set"]
    assert lunch["driver"][0]["lastJob"] == {
        "name": "scale-up-lunch-29933450", "state": "failed", "reason": "DeadlineExceeded",
        "message": "Job was active longer than specified deadline", "started": "2026-11-30T02:50:01Z"}
    assert lunch["driver"][0]["lastSuccessfulTime"] == "2026-11-29T02:50:09Z"
    _, out = status(capsys, monkeypatch, project, RecordedCluster("native-failing"), at=RUNNING)
    rows = [" ".join(line.split()) for line in out.splitlines()]
    assert any(row.startswith("lunch fixed static running, ends in 20m") and
               row.endswith("scale-up-lunch failed 0/3 nodes Ready, NodePool at 0 0/0 Ready 50 2 * * * for 1h10m NO")
               for row in rows), rows


def test_a_running_buffer_is_back_at_0_and_stays_ready(capsys, monkeypatch, project):
    """From the event's start the buffer is at 0 (Provisioning False, BufferEmpty): that is the plan, not a fault."""
    doc = document(capsys, monkeypatch, project, RecordedCluster("native-failing"), at=RUNNING)[1]
    warm = window(doc, "lunch-warm")
    assert (warm["state"], warm["ready"], warm["buffer"]["replicas"], warm["buffer"]["provisioning"]) == (
        "running", True, 0, False)


def test_a_buffer_still_provisioning_in_its_lead_time_is_not_ready(capsys, monkeypatch, project):
    def requires_new_capacity(item):
        if item["kind"] == "CapacityBuffer":
            item["status"]["conditions"][1].update(status="False", reason="RequiresNewCapacity",
                                                   message="1/2 virtual pods required new capacity, 0 failed")
    code, doc = document(capsys, monkeypatch, project, edited("native", requires_new_capacity))
    assert (code, window(doc, "lunch-warm")["notReady"]) == (1, [
        "CapacityBuffer prescale/prescale-lunch-warm not Provisioning (RequiresNewCapacity: 1/2 virtual pods required "
        "new capacity, 0 failed): not every virtual pod fits on a node yet"])


def test_a_buffer_karpenter_never_reconciled_is_named(capsys, monkeypatch, project):
    """No conditions at all: Karpenter runs no CapacityBuffer controller (its gate is off), so nothing provisions."""
    def unreconciled(item):
        if item["kind"] == "CapacityBuffer":
            item.pop("status")
    doc = document(capsys, monkeypatch, project, edited("native", unreconciled))[1]
    assert window(doc, "lunch-warm")["notReady"][0] == (
        "CapacityBuffer prescale/prescale-lunch-warm has no ReadyForProvisioning condition yet: Karpenter's "
        "CapacityBuffer controller has not reconciled it (its CapacityBuffer feature gate off?)")


@pytest.mark.parametrize("edit, blocker", [
    (lambda item: item["kind"] == "CronJob" and item["metadata"]["name"] == "scale-up-dinner",
     "CronJob prescale/scale-up-dinner not found (run `pulumi up`?): nothing sets the count to 2"),
    (lambda item: False, None)], ids=["missing", "present"])
def test_an_upcoming_window_without_its_scale_up_cron_job_is_not_armed(capsys, monkeypatch, project, edit, blocker):
    cluster = RecordedCluster("native", tuple(item for item in recorded("native") if not edit(item)))
    code, doc = document(capsys, monkeypatch, project, cluster)
    dinner = window(doc, "dinner")
    assert code == 0  # upcoming windows do not decide the exit code
    assert dinner["notReady"] == ([blocker] if blocker else [])
    assert dinner["driver"][0]["found"] is (blocker is None)


def test_a_suspended_cron_job_runs_nothing(capsys, monkeypatch, project):
    def suspend(item):
        if item["kind"] == "CronJob" and item["metadata"]["name"] == "scale-down-lunch":
            item["spec"]["suspend"] = True
    doc = document(capsys, monkeypatch, project, edited("native", suspend))[1]
    assert window(doc, "lunch")["notReady"] == [
        "CronJob prescale/scale-down-lunch is suspended: its runs do not start, nothing sets the count to 0"]


def test_the_kubernetes_client_reads_cron_jobs_jobs_and_buffers_as_recorded(capsys, monkeypatch, project,
                                                                           kubeconfig):  # noqa: F811
    reader = connect(str(kubeconfig), None)
    cluster = RecordedCluster("native-failing")
    calls = answering(reader, cluster)
    through_client = document(capsys, monkeypatch, project, reader, at=RUNNING)
    assert through_client == document(capsys, monkeypatch, project, cluster, at=RUNNING)
    assert calls[:3] == [("list_namespaced_cron_job", "prescale", "", 10), ("list_namespaced_job", "prescale", "", 10),
                         ("list_namespaced_custom_object", "autoscaling.x-k8s.io", "v1beta1", "prescale",
                          "capacitybuffers", "", 10)]
