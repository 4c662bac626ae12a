"""What ``prescale report`` reads from Prometheus: each series once for every window over the whole range, only
where its exporter is scraped at all, and reduced server-side to the points a figure needs (an activation, a pod's
creation, a failure), so the number of queries grows with the series and their size with the events, not with the
range's steps. The figures made of them: :mod:`prescale_cli.report`."""

from __future__ import annotations

from datetime import datetime, timedelta

from prescale.model.strategies.driven import driver_names
from prescale.names import PLACEHOLDER_NAMESPACE, placeholder_name
from prescale.series import (
    BUFFER_CONDITION,
    DEPLOYMENT_READY,
    JOB_OWNER,
    JOB_START,
    KARPENTER_BUILD_INFO,
    POD_CREATED,
    POD_SCHEDULED,
    READY_NODE,
    SCALER_ACTIVE,
    launch_failures,
    nodes_of_pool,
)
from prescale.series import NODEPOOL_NODE_LABEL as NODEPOOL

from .prometheus import Labels, Prometheus, Samples

STEP = 30  # seconds between the samples a report reads: the resolution of completeAt and the margin
PRESENCE = 3600  # whether a series was exported at all is asked hourly: a year in one request


class ReportSeries:
    """The series a report reads, each asked once for every window over the whole range, and only where its
    exporter is scraped at all (asked first, hourly)."""

    def __init__(self, prometheus: Prometheus, start: datetime, end: datetime, windows: list[str],
                 nodepools: list[str]):
        self.until = end  # the last instant read: a series that stops before it stopped in the cluster, not here
        deployments = "|".join(placeholder_name(name) for name in windows)
        pools = "|".join(nodepools)
        where = f'namespace="{PLACEHOLDER_NAMESPACE}", deployment=~"{deployments}"'

        def ask(query: str) -> dict[Labels, Samples]:
            return prometheus.range(query, start, end, STEP)

        def exported(selector: str) -> bool:
            """Whether ``selector`` had any sample in the range (each hourly point counts the hour before it)."""
            hour = timedelta(seconds=PRESENCE)
            return bool(prometheus.range(f"count(count_over_time({selector}[{PRESENCE}s]))", start + hour, end + hour,
                                         PRESENCE))

        # Whether any node of any NodePool carries the label, kube-state-metrics' pods and Karpenter's series are
        # exported at all: without them their figures cannot be had, and their year-long queries are not asked.
        self.labelled = exported(nodes_of_pool('!=""'))
        self.scheduled_exported = exported(POD_SCHEDULED)
        self.karpenter_scraped = exported(KARPENTER_BUILD_INFO)
        placeholder_pods = f'{POD_CREATED}{{namespace="{PLACEHOLDER_NAMESPACE}"}}'
        self.pods_exported = exported(placeholder_pods)
        self.buffers_exported = exported(BUFFER_CONDITION)
        self.keda_exported = exported(SCALER_ACTIVE)
        self.jobs_exported = exported(JOB_OWNER)
        objects = "|".join(placeholder_name(name) for name in windows)
        # When each ScaledObject's trigger turned active: a point at each step it is 1 and was not a step before.
        self.activated = _by(ask(_turning_on(f'max by (scaledObject) ({SCALER_ACTIVE}{{type="scaledobject", '
                                             f'scaledObject=~"{objects}"}}%s)')), "scaledObject"
                             ) if self.keda_exported else {}
        # When each driver's scale-up Job started: its start time, once, at the step its series appears.
        runs = "|".join(driver_names(name)[0] for name in windows)
        started = (f'max by (owner_name) ({JOB_START}{{namespace="{PLACEHOLDER_NAMESPACE}"}}%s * on (namespace, '
                   f'job_name) group_left (owner_name) {JOB_OWNER}{{namespace="{PLACEHOLDER_NAMESPACE}", '
                   f'owner_kind="CronJob", owner_name=~"{runs}"}}%s)')
        self.started = _by(ask(f"{started % ('', '')} unless {started % ((f' offset {STEP}s',) * 2)}"),
                           "owner_name") if self.jobs_exported else {}
        # Per CapacityBuffer, 1 while every virtual pod fits on existing nodes (its reason labels one series each).
        self.buffers = _by(ask(f'max by (name) ({BUFFER_CONDITION}{{namespace="{PLACEHOLDER_NAMESPACE}", '
                               'type="Provisioning"})'), "name") if self.buffers_exported else {}
        # Each placeholder pod once, at the step its series appears: a year of them is a point per pod.
        self.created = _created(ask(f"{placeholder_pods} unless {placeholder_pods} offset {STEP}s")
                                ) if self.pods_exported else {}
        labelled = nodes_of_pool(f'=~"{pools}"')  # the nodes of the windows' NodePools
        self.ready_pods = _by(ask(f"{DEPLOYMENT_READY}{{{where}}}"), "deployment")
        self.nodes: dict[str, Samples] = {}
        self.ready_nodes: dict[str, Samples] = {}
        self.launches: dict[str, Samples] = {}
        self.requests: dict[tuple[str, str], Samples] = {}
        if self.labelled:
            self.nodes = _by(ask(f"count by ({NODEPOOL}) ({labelled})"), NODEPOOL)
            self.ready_nodes = _by(ask(f"count by ({NODEPOOL}) ({labelled} * on (node) group_left () "
                                       f"({READY_NODE} == 1))"), NODEPOOL)
            self.launches = _launches(ask(f"kube_node_created * on (node) group_left ({NODEPOOL}) {labelled}"),
                                      ask(f"{READY_NODE} * on (node) group_left ({NODEPOOL}) {labelled}"))
            requested = (f'sum by ({NODEPOOL}, resource) ((kube_pod_container_resource_requests{{resource=~'
                         f'"cpu|memory", namespace!="{PLACEHOLDER_NAMESPACE}"}} unless on (namespace, pod) '
                         f'kube_pod_owner{{owner_kind="DaemonSet"}}) * on (node) group_left ({NODEPOOL}) '
                         f"{labelled})")
            self.requests = {(dict(labels).get(NODEPOOL, ""), dict(labels).get("resource", "")): samples
                             for labels, samples in ask(requested).items()}
        # Each pod only while it could not be scheduled: the rest of a year of pods is no point at all.
        self.unschedulable = ask(f'{POD_SCHEDULED}{{condition="false", namespace!="{PLACEHOLDER_NAMESPACE}"}} == 1'
                                 ) if self.scheduled_exported else {}
        failed = _counted(launch_failures(f'=~"{pools}"'))
        self.failures = {(dict(labels).get("nodepool", ""), dict(labels).get("reason", "")): samples
                         for labels, samples in ask(f"sum by (nodepool, reason) ({failed})").items()
                         } if self.karpenter_scraped else {}


def _counted(counter: str) -> str:
    """What ``counter`` counted at each step since the step before, only where it counted anything: its growth, a
    new series' value (Karpenter creates one at its first count, and again after a restart) and a reset one's.
    The sum of these over an occurrence is its count, and a year of a counter that rarely moves is a few samples."""
    before = f"{counter} offset {STEP}s"
    return f"({counter} - {before}) > 0 or ({counter} unless {before}) or ({counter} < {before})"


def _turning_on(query: str) -> str:
    """``query`` (a ``%s`` where an offset goes) only at the steps it is 1 and was not one step before: a year of a
    trigger that is active an hour a day is a point a day."""
    return f"({query % ''}) == 1 unless ({query % f' offset {STEP}s'}) == 1"


def _created(found: dict[Labels, Samples]) -> dict[str, list[float]]:
    """Each placeholder Deployment's pods' creation times, ordered. A pod is named after its ReplicaSet, which is
    named after its Deployment (``<deployment>-<template hash>-<suffix>``), and kept once however many times its
    series reappears after a scrape gap."""
    pods = {(named["pod"], named.get("uid", "")): samples[0][1] for labels, samples in found.items()
            if samples and "pod" in (named := dict(labels))}
    by_deployment: dict[str, list[float]] = {}
    for (pod, _), created in pods.items():
        by_deployment.setdefault(pod.rsplit("-", 2)[0], []).append(created)
    return {deployment: sorted(times) for deployment, times in by_deployment.items()}


def _by(found: dict[Labels, Samples], label: str) -> dict[str, Samples]:
    return {dict(labels).get(label, ""): samples for labels, samples in found.items()}


def _launches(node_created: dict[Labels, Samples], node_ready: dict[Labels, Samples]) -> dict[str, Samples]:
    """Each NodePool's nodes as (creation time, launch → Ready seconds), by creation time: from its creation time
    (``kube_node_created``'s value) to its first Ready sample; a node never Ready is left out."""
    created = {dict(labels)["node"]: samples[-1][1] for labels, samples in node_created.items() if samples}
    found: dict[str, Samples] = {}
    for labels, samples in node_ready.items():
        named = dict(labels)
        launched = created.get(named.get("node", ""))
        if launched is None:
            continue
        ready = next((at for at, value in samples if value == 1 and at >= launched), None)
        if ready is not None:
            found.setdefault(named.get(NODEPOOL, ""), []).append((launched, ready - launched))
    return {nodepool: sorted(launches) for nodepool, launches in found.items()}
