"""The alerting rules, run by Prometheus's own rule engine: ``promtool test rules`` (Debian package ``prometheus``).

Each alert gets input series shaped as kube-state-metrics, KEDA and Karpenter export them (names and labels from
their sources, docs/alerts.md) that make it fire, and series that must leave it silent. All cases run in one
promtool call, on the rule groups of a plan with two prescale pools (two lead times on one), an existing pool, a
static pool (three windows, each its own NodePool) and a buffer pool.
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
from prescale.model.strategies.static import static_node_pool_name

from tests.support.capacity import pool, stack_config, window
from tests.support.promtool import promtool as find_promtool

NOW = datetime(2026, 12, 1, tzinfo=UTC)
WINDOWS = [  # the pools interleave: the groups are still one per pool, in pool-name order
    window("lunch", "0 12 * * *", "0 13 * * *", nodes=2),  # lead 10m
    window("lunch-rush", "0 12 * * 1", "0 14 * * 1", "batch", nodes=1),  # starts like a window of another pool
    window("late", "0 20 * * *", "0 21 * * *", nodes=3, leadTime="20m"),
    window("shop", "0 9 * * *", "0 10 * * *", "shared", nodes=1),
    window("night", "0 22 * * *", "0 23 * * *", "batch", nodes=1),
    window("noon", "0 12 * * *", "0 13 * * *", "fixed", nodes=3),  # static
    window("brunch", "0 10 * * *", "0 11 * * *", "fixed", nodes=2),
    window("supper", "0 18 * * *", "0 19 * * *", "fixed", nodes=2),
    window("tea", "0 15 * * *", "0 16 * * *", "warm", nodes=2, prepullImages=["nginx:1.27"]),  # buffer
]
M7I = {"key": "node.kubernetes.io/instance-type", "operator": "In", "values": ["m7i.xlarge"]}
STATIC_POOL = {"name": "fixed", "strategy": "static", "limits": {"nodes": 20}, "requirements": [
    M7I, {"key": "topology.kubernetes.io/zone", "operator": "In", "values": ["ap-northeast-2a"]}]}
NOON, BRUNCH, SUPPER = (static_node_pool_name("fixed", name) for name in ("noon", "brunch", "supper"))


@pytest.fixture(scope="module")
def groups():
    config = stack_config([pool("event"), pool("batch"), {"name": "shared", "existing": True}, STATIC_POOL,
                           pool("warm", strategy="buffer")], WINDOWS, NOW)
    return rule_groups(plan_capacity(config, NOW))


# --- what the exporters export (docs/alerts.md has the sources) ----------------------------------------

def ksm(metric: str, values: str, /, **labels: str) -> dict:
    """A kube-state-metrics series of a placeholder Deployment (``deployment=``) or pod (``pod=``)."""
    return series(metric, values, namespace="prescale", **labels)


def keda(metric: str, scaled_object: str, values: str) -> dict:
    """A KEDA operator series of one ScaledObject (``keda_scaled_object_paused``, ``..._errors_total``)."""
    return series(metric, values, namespace="prescale", scaledObject=scaled_object)


def keda_active(scaled_object: str, values: str) -> dict:
    return series("keda_scaler_active", values, namespace="prescale", scaledObject=scaled_object, scaler="cron",
                  triggerIndex="0", metric="s0-cron-Asia-Seoul-50xxxx-01xxxx", type="scaledobject")


def disrupted(nodepool: str, reason: str, values: str) -> dict:
    return series("karpenter_nodeclaims_disrupted_total", values, nodepool=nodepool, reason=reason,
                  capacity_type="on-demand")


def pod(name: str, owner_kind: str, owner_name: str, unscheduled: str, namespace: str = "prescale") -> list[dict]:
    """A pod, its owner and its ``PodScheduled`` condition: ``unscheduled`` are the values of its False series."""
    uid = f"uid-{name}"
    return [series("kube_pod_status_scheduled", unscheduled, namespace=namespace, pod=name, uid=uid,
                   condition="false"),
            series("kube_pod_owner", "1x30", namespace=namespace, pod=name, uid=uid, owner_kind=owner_kind,
                   owner_name=owner_name, owner_is_controller="true")]


def waiting(name: str, container: str, reason: str, values: str, init: bool = True) -> dict:
    """A container of pod ``name`` waiting with ``reason`` (kube-state-metrics exports only waiting ones)."""
    metric = "kube_pod_init_container_status_waiting_reason" if init else "kube_pod_container_status_waiting_reason"
    return series(metric, values, namespace="prescale", pod=name, uid=f"uid-{name}", container=container,
                  reason=reason)


def last_run(cron_job: str, values: str) -> dict:
    """When a driver CronJob last started a run (kube-state-metrics, from its status.lastScheduleTime)."""
    return series("kube_cronjob_status_last_schedule_time", values, namespace="prescale", cronjob=cron_job)


def karpenter_node(name: str, nodepool: str, ready: bool, values: str = "1x20") -> list[dict]:
    """A node as Karpenter's node metrics name it (its NodePool) and as kube-state-metrics says it is Ready."""
    return [series("karpenter_nodes_allocatable", "4x20", node_name=name, nodepool=nodepool, resource_type="cpu",
                   instance_type="m7i.xlarge", capacity_type="on-demand", zone="ap-northeast-2a", phase="",
                   managed="true"),
            *(series("kube_node_status_condition", values if status == str(ready).lower() else "0x20", node=name,
                     condition="Ready", status=status) for status in ("true", "false", "unknown"))]


def labelled_node(name: str, nodepool: str, ready: bool) -> list[dict]:
    """A node as kube-state-metrics exports it with --metric-labels-allowlist=nodes=[karpenter.sh/nodepool]:
    kube_node_labels carries the label as label_karpenter_sh_nodepool (no Karpenter series at all)."""
    return [series("kube_node_labels", "1x20", node=name, label_karpenter_sh_nodepool=nodepool),
            *(series("kube_node_status_condition", "1x20" if status == str(ready).lower() else "0x20", node=name,
                     condition="Ready", status=status) for status in ("true", "false", "unknown"))]


def prepull_owner(pod_name: str) -> dict:
    return series("kube_pod_owner", "1x10", namespace="prescale", pod=pod_name, uid=f"uid-{pod_name}",
                  owner_kind="DaemonSet", owner_name="prepull-tea", owner_is_controller="true")


def hpa(scaled_object: str, values: str) -> dict:
    """The HPA KEDA keeps for a ScaledObject, as kube-state-metrics exports it."""
    return series("kube_horizontalpodautoscaler_spec_max_replicas", values, namespace="prescale",
                  horizontalpodautoscaler=f"keda-hpa-{scaled_object}")


def driver_job(job: str, cron_job: str, started: str, failed: bool) -> list[dict]:
    """A Job of a driver CronJob, its owner, its start (epoch seconds) and whether its Failed condition is True."""
    return [series("kube_job_status_start_time", f"{started}x10", namespace="prescale", job_name=job),
            series("kube_job_owner", "1x10", namespace="prescale", job_name=job, owner_kind="CronJob",
                   owner_name=cron_job, owner_is_controller="true"),
            series("kube_job_failed", f"{int(failed)}x10", namespace="prescale", job_name=job, condition="true"),
            series("kube_job_failed", f"{int(not failed)}x10", namespace="prescale", job_name=job, condition="false")]


def series(metric: str, values: str, /, **labels: str) -> dict:
    return {"series": metric + "{" + ", ".join(f'{k}="{v}"' for k, v in labels.items()) + "}", "values": values}


KARPENTER_SCRAPED = series("karpenter_build_info", "1x20", version="1.14.1", goversion="go1.25", commit="0")


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


def of_window(severity: str, pool: str, window: str, **labels: str) -> dict:
    """The labels of an alert about one window's ScaledObject."""
    return {"severity": severity, "node_pool": pool, "scaledObject": f"prescale-{window}", "window": window, **labels}


def of_pod(severity: str, pool: str, window: str, pod: str, **labels: str) -> dict:
    """The labels of an alert about one placeholder pod."""
    return {"severity": severity, "node_pool": pool, "namespace": "prescale", "pod": pod, "window": window, **labels}


CASES = {
    "a paused ScaledObject fires after 5m, at any time; unpaused ones and others' stay silent": {
        "input_series": [
            keda("keda_scaled_object_paused", "prescale-lunch", "0 0 1x10"),  # paused at 2m
            keda("keda_scaled_object_paused", "prescale-night", "0x12"),
            keda("keda_scaled_object_paused", "prescale-late", "0 1 1 0x9"),  # paused for 2m, then resumed
            keda("keda_scaled_object_paused", "prescale-other", "1x12")],
        "alert_rule_test": [
            alert("PrescaleScaledObjectPaused", "6m"),
            alert("PrescaleScaledObjectPaused", "8m", of_window("critical", "event", "lunch"))]},
    "no scaler series for 5m fires, also for a window never seen; a short gap and a paused one stay silent": {
        "input_series": [
            keda_active("prescale-lunch", "0 0 0"),  # KEDA stopped evaluating it after 2m
            keda_active("prescale-late", "0x12"),
            keda_active("prescale-lunch-rush", "0 0 _ _ 0x8"),  # deleted at a reconcile, back at the next poll
            keda("keda_scaled_object_paused", "prescale-night", "1x12")],  # paused: its own alert says so
        # prescale-shop: no series at all (its check failed from the start, or KEDA is not scraped)
        "alert_rule_test": [
            alert("PrescaleWindowTriggerNotEvaluated", "6m", of_window("critical", "shared", "shop")),
            alert("PrescaleWindowTriggerNotEvaluated", "8m", of_window("critical", "event", "lunch"),
                  of_window("critical", "shared", "shop"))]},
    "KEDA errors within 10m fire, a series born at 1 included; errors long past and series born at 0 are silent": {
        "input_series": [
            keda("keda_scaled_object_errors_total", "prescale-lunch", "0 0 0 1 2 3x20"),
            keda("keda_scaled_object_errors_total", "prescale-night", "_ _ _ _ _ 1x20"),  # after a KEDA restart
            keda("keda_scaled_object_errors_total", "prescale-late", "0x25"),
            keda("keda_scaled_object_errors_total", "prescale-shop", "_ _ _ _ _ 0x20"),  # initialised by success
            keda("keda_scaled_object_errors_total", "prescale-other", "0 1 2 3 4 5x20")],
        "alert_rule_test": [
            alert("PrescaleScaledObjectErrors", "2m"),
            alert("PrescaleScaledObjectErrors", "4m", of_window("warning", "event", "lunch")),
            alert("PrescaleScaledObjectErrors", "6m", of_window("warning", "event", "lunch"),
                  of_window("warning", "batch", "night")),
            alert("PrescaleScaledObjectErrors", "25m")]},
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
    "a placeholder without a node for 5m fires, named by its window; scheduled, pulling, failsafe and foreign pods "
    "stay silent": {
        "input_series": [
            *pod("prescale-lunch-rush-5d8f7c9b4-x2x9q", "ReplicaSet", "prescale-lunch-rush-5d8f7c9b4", "1x10"),
            *pod("prescale-lunch-6b9c7d5f8-qzv4k", "ReplicaSet", "prescale-lunch-6b9c7d5f8", "1 1 1 0x7"),
            # on its node, pulling a prepull image for 10m: Pending all along, but it has a node
            *pod("prescale-night-7f6d5c4b3-pl9kx", "ReplicaSet", "prescale-night-7f6d5c4b3", "0x10"),
            waiting("prescale-night-7f6d5c4b3-pl9kx", "prepull-0", "PodInitializing", "1x10"),
            *pod("failsafe-lunch-29123456-7xk2p", "Job", "failsafe-lunch-29123456", "1x10"),
            *pod("prescale-lunch-6b9c7d5f8-abcde", "ReplicaSet", "prescale-lunch-6b9c7d5f8", "1x10", namespace="shop")],
        "alert_rule_test": [
            alert("PrescalePlaceholdersPending", "4m"),
            alert("PrescalePlaceholdersPending", "6m", of_pod(
                "warning", "batch", "lunch-rush", "prescale-lunch-rush-5d8f7c9b4-x2x9q",
                uid="uid-prescale-lunch-rush-5d8f7c9b4-x2x9q", condition="false"))]},
    "an image that cannot be pulled for 5m fires, its reason flipping or not; pulling and a pull that recovers "
    "stay silent": {
        "input_series": [
            *pod("prescale-lunch-rush-5d8f7c9b4-x2x9q", "ReplicaSet", "prescale-lunch-rush-5d8f7c9b4", "0x10"),
            # the kubelet's retries: ErrImagePull, then ImagePullBackOff until the next try (a new series each time)
            waiting("prescale-lunch-rush-5d8f7c9b4-x2x9q", "prepull-1", "ErrImagePull",
                    "1 stale _ 1 stale _ 1 stale _ 1"),
            waiting("prescale-lunch-rush-5d8f7c9b4-x2x9q", "prepull-1", "ImagePullBackOff",
                    "_ 1 1 stale 1 1 stale 1 1 stale"),
            *pod("prescale-lunch-6b9c7d5f8-qzv4k", "ReplicaSet", "prescale-lunch-6b9c7d5f8", "0x10"),
            waiting("prescale-lunch-6b9c7d5f8-qzv4k", "pause", "ImagePullBackOff", "1x10", init=False),
            *pod("prescale-late-5c4b3a2d1-mn8bv", "ReplicaSet", "prescale-late-5c4b3a2d1", "0x10"),
            waiting("prescale-late-5c4b3a2d1-mn8bv", "prepull-0", "ErrImagePull", "1 1 1 stale"),  # then pulled
            *pod("prescale-night-7f6d5c4b3-pl9kx", "ReplicaSet", "prescale-night-7f6d5c4b3", "0x10"),
            waiting("prescale-night-7f6d5c4b3-pl9kx", "prepull-0", "PodInitializing", "1x10")],
        "alert_rule_test": [
            alert("PrescalePlaceholderImagePullFailing", "4m"),
            alert("PrescalePlaceholderImagePullFailing", "7m",
                  of_pod("warning", "event", "lunch", "prescale-lunch-6b9c7d5f8-qzv4k"),
                  of_pod("warning", "batch", "lunch-rush", "prescale-lunch-rush-5d8f7c9b4-x2x9q"))]},
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


def driver_failed(pool: str, window: str, cron_job: str, job: str) -> dict:
    return {"severity": "critical", "node_pool": pool, "namespace": "prescale", "job_name": job,
            "owner_name": cron_job, "cronjob": cron_job, "window": window}


CASES |= {
    "a static NodePool short of its count 5m after its scale-up run fires; all Ready, or after its end, silent": {
        "input_series": [
            # noon: scaled up (its scale-down never ran yet), 2 of its 3 nodes Ready; another pool's Ready node
            # does not count; Karpenter's metrics are scraped
            KARPENTER_SCRAPED, last_run("scale-up-noon", "1000x20"),
            *karpenter_node("ip-10-0-1-1", NOON, True), *karpenter_node("ip-10-0-1-2", NOON, True),
            *karpenter_node("ip-10-0-1-3", NOON, False), *karpenter_node("ip-10-0-9-9", "prescale-event", True),
            # brunch: scaled up after its last scale-down, both nodes Ready
            last_run("scale-up-brunch", "1000x20"), last_run("scale-down-brunch", "500x20"),
            *karpenter_node("ip-10-0-2-1", BRUNCH, True), *karpenter_node("ip-10-0-2-2", BRUNCH, True),
            # supper: its scale-down ran last (the window is over): no node, and no alarm
            last_run("scale-up-supper", "500x20"), last_run("scale-down-supper", "1000x20")],
        "alert_rule_test": [
            alert("PrescaleStaticNodePoolShort", "4m"),
            alert("PrescaleStaticNodePoolShort", "6m", ({"severity": "critical", "node_pool": "fixed",
                                                         "window": "noon", "nodepool": NOON}, "2"))]},
    "a static NodePool with no node at all fires too, where nodes can be counted": {
        "input_series": [KARPENTER_SCRAPED, last_run("scale-up-noon", "1000x20"),
                         last_run("scale-down-noon", "500x20")],
        "alert_rule_test": [alert("PrescaleStaticNodePoolShort", "6m", (
            {"severity": "critical", "node_pool": "fixed", "window": "noon", "nodepool": NOON}, "0")),
            alert("PrescaleNodeCountMetricsMissing", "6m")]},
    "no Karpenter series at all (Auto Mode, no ServiceMonitor), the nodes Ready by kube-state-metrics' labels: "
    "silent; one short: fires": {
        "input_series": [
            last_run("scale-up-noon", "1000x20"), last_run("scale-up-brunch", "1000x20"),
            *labelled_node("ip-10-0-1-1", NOON, True), *labelled_node("ip-10-0-1-2", NOON, True),
            *labelled_node("ip-10-0-1-3", NOON, True),
            *labelled_node("ip-10-0-2-1", BRUNCH, True), *labelled_node("ip-10-0-2-2", BRUNCH, False)],
        "alert_rule_test": [
            alert("PrescaleStaticNodePoolShort", "6m", (
                {"severity": "critical", "node_pool": "fixed", "window": "brunch", "nodepool": BRUNCH}, "1")),
            alert("PrescaleNodeCountMetricsMissing", "6m")]},
    "no series says which node is whose: no page for nodes that may be there, a warning saying what to turn on": {
        "input_series": [
            last_run("scale-up-noon", "1000x20"),
            *(series("kube_node_status_condition", "1x20", node=f"ip-10-0-1-{n}", condition="Ready", status="true")
              for n in (1, 2, 3)),
            # supper is over: no warning for it
            last_run("scale-up-supper", "500x20"), last_run("scale-down-supper", "1000x20")],
        "alert_rule_test": [
            alert("PrescaleStaticNodePoolShort", "6m"),
            alert("PrescaleNodeCountMetricsMissing", "4m"),
            alert("PrescaleNodeCountMetricsMissing", "6m", {"severity": "warning", "node_pool": "fixed",
                                                            "namespace": "prescale", "window": "noon"})]},
    "a driver Job failed since its CronJob's last success fires; older failures, successes, others' Jobs silent": {
        "input_series": [
            *driver_job("scale-up-noon-29933450", "scale-up-noon", "2000", failed=True),
            series("kube_cronjob_status_last_successful_time", "1500x10", namespace="prescale",
                   cronjob="scale-up-noon"),
            series("kube_cronjob_created", "100x10", namespace="prescale", cronjob="scale-up-noon"),
            # a failure kept in the history from before the CronJob's last success
            *driver_job("scale-down-noon-29933000", "scale-down-noon", "1000", failed=True),
            *driver_job("scale-down-noon-29933500", "scale-down-noon", "1190", failed=False),
            series("kube_cronjob_status_last_successful_time", "1200x10", namespace="prescale",
                   cronjob="scale-down-noon"),
            series("kube_cronjob_created", "100x10", namespace="prescale", cronjob="scale-down-noon"),
            # a buffer's scale-up that never succeeded at all
            *driver_job("scale-up-tea-29933510", "scale-up-tea", "3000", failed=True),
            series("kube_cronjob_created", "100x10", namespace="prescale", cronjob="scale-up-tea"),
            # a placeholder window's failsafe Job is not a driver's
            *driver_job("failsafe-lunch-29933520", "failsafe-lunch", "3000", failed=True),
            series("kube_cronjob_created", "100x10", namespace="prescale", cronjob="failsafe-lunch"),
            # a static window's failsafe is its driver's
            *driver_job("failsafe-brunch-29933530", "failsafe-brunch", "3000", failed=True),
            series("kube_cronjob_created", "100x10", namespace="prescale", cronjob="failsafe-brunch")],
        "alert_rule_test": [alert(
            "PrescaleDriverRunFailed", "1m",
            driver_failed("fixed", "brunch", "failsafe-brunch", "failsafe-brunch-29933530"),
            driver_failed("fixed", "noon", "scale-up-noon", "scale-up-noon-29933450"),
            driver_failed("warm", "tea", "scale-up-tea", "scale-up-tea-29933510"))]},
    "a converge Job failed after the window's last successful run fires; one a run has succeeded since, silent": {
        "input_series": [
            series("kube_job_status_start_time", "2000x10", namespace="prescale", job_name="converge-noon"),
            series("kube_job_failed", "1x10", namespace="prescale", job_name="converge-noon", condition="true"),
            series("kube_cronjob_created", "100x10", namespace="prescale", cronjob="scale-up-noon"),
            series("kube_cronjob_status_last_successful_time", "1500x10", namespace="prescale",
                   cronjob="scale-up-noon"),
            series("kube_job_status_start_time", "2000x10", namespace="prescale", job_name="converge-tea"),
            series("kube_job_failed", "1x10", namespace="prescale", job_name="converge-tea", condition="true"),
            series("kube_cronjob_created", "100x10", namespace="prescale", cronjob="scale-down-tea"),
            series("kube_cronjob_status_last_successful_time", "2500x10", namespace="prescale",
                   cronjob="scale-down-tea")],
        "alert_rule_test": [alert("PrescaleConvergeJobFailed", "1m", {
            "severity": "critical", "node_pool": "fixed", "namespace": "prescale", "job_name": "converge-noon",
            "window": "noon"})]},
    "a pre-pull DaemonSet's pod that cannot pull fires after 5m; a pull in progress is silent": {
        "input_series": [
            prepull_owner("prepull-tea-x7k2p"),
            waiting("prepull-tea-x7k2p", "pull-0", "ErrImagePull", "1 _ 1 _ 1 _ 1 _ 1 _"),
            waiting("prepull-tea-x7k2p", "pull-0", "ImagePullBackOff", "_ 1 _ 1 _ 1 _ 1 _ 1"),
            prepull_owner("prepull-tea-abcde"),
            waiting("prepull-tea-abcde", "pull-0", "PodInitializing", "1x10")],
        "alert_rule_test": [
            alert("PrescalePrepullImagePullFailing", "4m"),
            alert("PrescalePrepullImagePullFailing", "6m", of_pod("warning", "warm", "tea", "prepull-tea-x7k2p"))]},
    "a deleted ScaledObject fires though KEDA's stale series go on; one with its HPA, or paused, is silent": {
        "input_series": [
            keda_active("prescale-lunch", "0x12"), keda("keda_scaled_object_paused", "prescale-lunch", "0x12"),
            hpa("prescale-lunch", "1 1 1"),  # deleted at 2m: its HPA went with it, KEDA's series stayed
            keda_active("prescale-late", "0x12"), hpa("prescale-late", "1x12"),
            keda_active("prescale-shop", "0x12"), hpa("prescale-shop", "1x12"),
            keda_active("prescale-lunch-rush", "0x12"), hpa("prescale-lunch-rush", "1x12"),
            keda("keda_scaled_object_paused", "prescale-night", "1x12")],  # paused: KEDA removed its HPA
        "alert_rule_test": [
            alert("PrescaleScaledObjectGone", "6m"),
            alert("PrescaleScaledObjectGone", "8m", of_window("critical", "event", "lunch"))]},
    "pods Karpenter cannot place for 5m while a buffer is up fire; before it or once it is down, silent": {
        "input_series": [
            last_run("scale-up-tea", "1000x12"), last_run("scale-down-tea", "500x12"),
            series("karpenter_scheduler_unschedulable_pods_count", "0 0 3x10", controller="provisioner")],
        "alert_rule_test": [
            alert("PrescaleBufferCannotProvision", "6m"),
            alert("PrescaleBufferCannotProvision", "8m", {"severity": "warning", "node_pool": "warm",
                                                          "namespace": "prescale", "window": "tea"})]},
    "pods Karpenter cannot place while no buffer is up stay silent": {
        "input_series": [
            last_run("scale-up-tea", "500x12"), last_run("scale-down-tea", "1000x12"),
            series("karpenter_scheduler_unschedulable_pods_count", "3x12", controller="provisioner")],
        "alert_rule_test": [alert("PrescaleBufferCannotProvision", "8m")]},
    "a static window's failed launches fire while it is on; a buffer pool's while its buffer is down do not": {
        "input_series": [
            last_run("scale-up-noon", "1000x10"), last_run("scale-down-noon", "500x10"),
            disrupted(NOON, "insufficient_capacity", "_ _ 1x8"),
            last_run("scale-up-tea", "500x10"), last_run("scale-down-tea", "1000x10"),
            disrupted("prescale-warm", "launch_timeout", "0 1 2x8")],
        "alert_rule_test": [alert("PrescaleNodeClaimsFailingToLaunch", "4m",
                                  failing("fixed", NOON, "insufficient_capacity"))]},
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


def test_one_group_per_pool_in_pool_name_order(groups):
    """The windows interleave their pools (WINDOWS): grouped as listed, a pool would get two groups of one name,
    which Prometheus refuses to load."""
    assert [group["name"] for group in groups] == ["prescale-pool-batch", "prescale-pool-event", "prescale-pool-fixed",
                                                   "prescale-pool-shared", "prescale-pool-warm"]


def test_static_and_buffer_pools_get_their_own_rules(groups):
    """KEDA plays no part there: no rule of theirs reads a KEDA series or a placeholder Deployment."""
    rules = {group["name"]: [rule["alert"] for rule in group["rules"]] for group in groups}
    assert rules["prescale-pool-fixed"] == ["PrescaleStaticNodePoolShort"] * 3 + [
        "PrescaleNodeCountMetricsMissing", "PrescaleDriverRunFailed", "PrescaleConvergeJobFailed",
        "PrescaleNodeClaimsFailingToLaunch"]
    assert rules["prescale-pool-warm"] == ["PrescaleBufferCannotProvision", "PrescaleDriverRunFailed",
                                           "PrescaleConvergeJobFailed", "PrescalePrepullImagePullFailing",
                                           "PrescaleNodeClaimsFailingToLaunch"]
    native = [rule["expr"] for group in groups if group["name"] in ("prescale-pool-fixed", "prescale-pool-warm")
              for rule in group["rules"]]
    assert not any("keda_" in expr or "kube_deployment" in expr for expr in native)
