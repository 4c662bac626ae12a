"""The alerting rules, run by Prometheus's own rule engine: ``promtool test rules`` (Debian package ``prometheus``).

Each alert gets input series shaped as kube-state-metrics, KEDA and Karpenter export them (names and labels from
their sources, docs/alerts.md) that make it fire, and series that must leave it silent. All cases run in one
promtool call, on the rule groups of a plan with two prescale pools (two lead times on one) and an existing pool.
"""

from __future__ import annotations

import re
import subprocess
from datetime import UTC, datetime
from pathlib import Path

import pytest
import yaml
from prescale.capacity.alert_rules import rule_groups
from prescale.model.plan import plan_capacity

from tests.support.capacity import pool, stack_config, window
from tests.support.promtool import promtool as find_promtool

NOW = datetime(2026, 12, 1, tzinfo=UTC)
WINDOWS = [
    window("lunch", "0 12 * * *", "0 13 * * *", nodes=2),  # lead 10m
    window("late", "0 20 * * *", "0 21 * * *", nodes=3, leadTime="20m"),
    window("lunch-rush", "0 12 * * 1", "0 14 * * 1", "batch", nodes=1),  # starts like a window of another pool
    window("night", "0 22 * * *", "0 23 * * *", "batch", nodes=1),
    window("shop", "0 9 * * *", "0 10 * * *", "shared", nodes=1),
]


@pytest.fixture(scope="module")
def groups():
    config = stack_config([pool("event"), pool("batch"), {"name": "shared", "existing": True}], WINDOWS, NOW)
    return rule_groups(plan_capacity(config, NOW))


# --- what the exporters export (docs/alerts.md has the sources) ----------------------------------------

def ksm(metric: str, values: str, /, **labels: str) -> dict:
    """A kube-state-metrics series of a placeholder Deployment (``deployment=``) or pod (``pod=``)."""
    return series(metric, values, namespace="prescale", **labels)


def keda_active(scaled_object: str, values: str) -> dict:
    return series("keda_scaler_active", values, namespace="prescale", scaledObject=scaled_object, scaler="cron",
                  triggerIndex="0", metric="s0-cron-Asia-Seoul-50xxxx-01xxxx", type="scaledobject")


def disrupted(nodepool: str, reason: str, values: str) -> dict:
    return series("karpenter_nodeclaims_disrupted_total", values, nodepool=nodepool, reason=reason,
                  capacity_type="on-demand")


def pod(name: str, owner_kind: str, owner_name: str, pending: str, namespace: str = "prescale") -> list[dict]:
    uid = f"uid-{name}"
    return [series("kube_pod_status_phase", pending, namespace=namespace, pod=name, uid=uid, phase="Pending"),
            series("kube_pod_owner", "1x30", namespace=namespace, pod=name, uid=uid, owner_kind=owner_kind,
                   owner_name=owner_name, owner_is_controller="true")]


def series(metric: str, values: str, /, **labels: str) -> dict:
    return {"series": metric + "{" + ", ".join(f'{k}="{v}"' for k, v in labels.items()) + "}", "values": values}


def alert(name: str, at: str, *expected: dict | tuple[dict, str]) -> dict:
    """At ``at``, exactly the ``expected`` alerts fire: their labels, or (labels, what ``{{ $value }}`` shows)."""
    pairs = [item if isinstance(item, tuple) else (item, "") for item in expected]
    return {"eval_time": at, "alertname": name,
            "exp_alerts": [{"exp_labels": {"alertname": name, **labels}, "value": value} for labels, value in pairs]}


def rendered(test: dict, groups) -> dict:
    """``test`` as promtool reads it: each expected alert with its rule's annotations, templates filled in.

    Rendering them here as well checks that every template names a label the alert really has.
    """
    alerts = []
    for expected in test["exp_alerts"]:
        labels, value = expected["exp_labels"], expected["value"]
        rule = next(rule for group in groups for rule in group["rules"]
                    if rule["alert"] == labels["alertname"] and rule["labels"].items() <= labels.items())
        alerts.append({"exp_labels": labels, "exp_annotations": {k: _filled(v, labels, value)
                                                                 for k, v in rule["annotations"].items()}})
    return {**test, "exp_alerts": alerts}


def _filled(text: str, labels: dict[str, str], value: str) -> str:
    """An annotation template as Prometheus renders it for one alert."""
    return re.sub(r"\{\{ \$labels\.(\w+) \}\}", lambda m: labels[m.group(1)], text).replace("{{ $value }}", value)


# --- the cases --------------------------------------------------------------------------------------------

def started(window: str, pool: str, lead: str, ready: int) -> tuple[dict, str]:
    return ({"severity": "critical", "node_pool": pool, "lead_time": lead, "namespace": "prescale",
             "deployment": f"prescale-{window}", "window": window}, str(ready))


def failing(pool: str, nodepool: str, reason: str) -> dict:
    return {"severity": "warning", "node_pool": pool, "nodepool": nodepool, "reason": reason}


CASES = {
    "KEDA active, Deployment left at zero: fires after 2m; scaled, inactive or unknown windows stay silent": {
        "input_series": [
            keda_active("prescale-lunch", "1x10"),
            ksm("kube_deployment_spec_replicas", "0x10", deployment="prescale-lunch"),
            keda_active("prescale-lunch-rush", "1x10"),
            ksm("kube_deployment_spec_replicas", "0 0 3x8", deployment="prescale-lunch-rush"),
            keda_active("prescale-night", "0x10"),
            ksm("kube_deployment_spec_replicas", "0x10", deployment="prescale-night"),
            keda_active("prescale-other", "1x10")],
        "alert_rule_test": [
            alert("PrescalePlaceholdersNotScaledUp", "1m"),  # still within KEDA's 2 minutes
            alert("PrescalePlaceholdersNotScaledUp", "5m", {"severity": "critical", "node_pool": "event",
                                                            "scaledObject": "prescale-lunch", "window": "lunch"})]},
    "a placeholder Pending for 5m fires, named by its window; running, failsafe and foreign pods stay silent": {
        "input_series": [
            *pod("prescale-lunch-rush-5d8f7c9b4-x2x9q", "ReplicaSet", "prescale-lunch-rush-5d8f7c9b4", "1x10"),
            *pod("prescale-lunch-6b9c7d5f8-qzv4k", "ReplicaSet", "prescale-lunch-6b9c7d5f8", "1 1 1 0x7"),
            *pod("failsafe-lunch-29123456-7xk2p", "Job", "failsafe-lunch-29123456", "1x10"),
            *pod("prescale-lunch-6b9c7d5f8-abcde", "ReplicaSet", "prescale-lunch-6b9c7d5f8", "1x10", namespace="shop")],
        "alert_rule_test": [
            alert("PrescalePlaceholdersPending", "4m"),
            alert("PrescalePlaceholdersPending", "6m", {
                "severity": "warning", "namespace": "prescale",
                "pod": "prescale-lunch-rush-5d8f7c9b4-x2x9q", "uid": "uid-prescale-lunch-rush-5d8f7c9b4-x2x9q",
                "phase": "Pending", "window": "lunch-rush", "node_pool": "batch"})]},
    "short of Ready for a whole lead time since the scale-up fires; Ready at some moment of it stays silent": {
        "input_series": [
            # lunch (lead 10m): scaled up at 2m, never all Ready: fires at 12m, its event's start
            ksm("kube_deployment_spec_replicas", "0 0 2x20", deployment="prescale-lunch"),
            ksm("kube_deployment_status_replicas_ready", "0 0 0 1x19", deployment="prescale-lunch"),
            # late (lead 20m): never Ready either, but its event starts 20m after its scale-up at 0m
            ksm("kube_deployment_spec_replicas", "3x22", deployment="prescale-late"),
            ksm("kube_deployment_status_replicas_ready", "0x22", deployment="prescale-late"),
            # night (lead 10m): all Ready at 4m, one preempted at 8m and never replaced: silent at its start
            # (10m), firing once it has been short for a whole lead time (18m)
            ksm("kube_deployment_spec_replicas", "1x22", deployment="prescale-night"),
            ksm("kube_deployment_status_replicas_ready", "0 0 0 0 1 1 1 1 0x14", deployment="prescale-night"),
            # shop: outside its window (no replicas)
            ksm("kube_deployment_spec_replicas", "0x22", deployment="prescale-shop"),
            ksm("kube_deployment_status_replicas_ready", "0x22", deployment="prescale-shop")],
        "alert_rule_test": [
            alert("PrescaleEventStartedNotReady", "11m"),
            alert("PrescaleEventStartedNotReady", "13m", started("lunch", "event", "10m", ready=1)),
            alert("PrescaleEventStartedNotReady", "19m", started("lunch", "event", "10m", ready=1),
                  started("night", "batch", "10m", ready=0)),
            alert("PrescaleEventStartedNotReady", "21m", started("lunch", "event", "10m", ready=1),
                  started("late", "event", "20m", ready=0), started("night", "batch", "10m", ready=0))]},
    "NodeClaims deleted unlaunched while a window of the pool is on fire, a pool's first failure included": {
        "input_series": [
            ksm("kube_deployment_spec_replicas", "2x30", deployment="prescale-lunch"),
            disrupted("prescale-event", "insufficient_capacity", "_ _ _ 1x27"),  # a new series: first ICE at 3m
            ksm("kube_deployment_spec_replicas", "1x30", deployment="prescale-shop"),
            disrupted("shared", "launch_timeout", "0x5 1x25"),  # an existing pool, under its own name
            disrupted("shared", "underutilized", "0 1 2 3 4 5x26"),  # consolidation, not a failed launch
            ksm("kube_deployment_spec_replicas", "0x30", deployment="prescale-night"),
            disrupted("prescale-batch", "insufficient_capacity", "0 1 2 3x28")],  # no window on: silent
        "alert_rule_test": [
            alert("PrescaleNodeClaimsFailingToLaunch", "5m",
                  failing("event", "prescale-event", "insufficient_capacity")),
            alert("PrescaleNodeClaimsFailingToLaunch", "8m",
                  failing("event", "prescale-event", "insufficient_capacity"),
                  failing("shared", "shared", "launch_timeout")),
            alert("PrescaleNodeClaimsFailingToLaunch", "25m")]},  # the failures are older than 10m
}


def test_promtool_runs_every_alert_on_its_cases(groups, tmp_path: Path):
    promtool = find_promtool()
    (tmp_path / "rules.yaml").write_text(yaml.safe_dump({"groups": groups}, sort_keys=False))
    tests = [{"name": name, "interval": "1m", "input_series": case["input_series"],
              "alert_rule_test": [rendered(test, groups) for test in case["alert_rule_test"]]}
             for name, case in CASES.items()]
    (tmp_path / "tests.yaml").write_text(yaml.safe_dump(
        {"rule_files": ["rules.yaml"], "evaluation_interval": "1m", "tests": tests}, sort_keys=False))
    done = subprocess.run([promtool, "test", "rules", "tests.yaml"], cwd=tmp_path, capture_output=True, text=True,
                          timeout=60, check=False)
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_cases_cover_every_alert(groups):
    tested = {test["alertname"] for case in CASES.values() for test in case["alert_rule_test"]}
    assert tested == {rule["alert"] for group in groups for rule in group["rules"]}
