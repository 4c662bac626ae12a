"""Was each event served? Every occurrence of the range, as the plan had it, measured from Prometheus.

For each occurrence (the timeline's, the same ``prescale schedule`` shows) it measures, from series the cluster
already exports (docs/report.md names each one and its source):

* **planned vs Ready**: the count the window asked for and how much of it was Ready at the start, the first instant
  all of it was (``completeAt``) and the margin to the start: its placeholder pods' Deployment's Ready replicas
  (kube-state-metrics ``kube_deployment_status_replicas_ready``), or on a window with its own NodePool (static) that
  NodePool's Ready nodes (``kube_node_status_condition`` by the node label ``karpenter.sh/nodepool``, which
  kube-state-metrics exports when allowlisted), or a buffer window's CapacityBuffer: all of its room while its
  ``Provisioning`` condition is True (every virtual pod fits on existing nodes), none otherwise, which
  kube-state-metrics exports with the custom resource config docs/report.md gives;
* **each new node's launch → Ready** (``kube_node_created`` to its first Ready sample), p50, p95 and max;
* **pods that could not be scheduled** during the event, in pod-minutes (``kube_pod_status_scheduled``, outside
  namespace prescale);
* **NodeClaims that failed to launch** from the scale-up to the end, by Karpenter's reason (Karpenter's
  ``karpenter_nodeclaims_disrupted_total`` of the window's NodePool, for the reasons a NodeClaim is deleted before
  becoming a node);
* **node-hours** of the window's NodePool above what it held just before the scale-up, from the scale-up until they
  left (at most two hours after the end), against the ideal N × (lead time + duration), and their cost at the price
  ``schedule`` uses.

A missing series makes its figures ``None`` and names what to turn on, never a zero. Queries ask for every window at
once, one per series, so their number grows with the series read, not with windows or occurrences.
"""

from __future__ import annotations

import math
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Literal

from prescale.model.plan import CapacityPlan
from prescale.model.schedule.keda import Occurrence
from prescale.model.strategies import Capacity, Strategy
from prescale.model.strategies.driven import driver_names
from prescale.model.windows import ArmedWindow, WindowPlan
from prescale.names import PLACEHOLDER_NAMESPACE, node_pool_object_name, placeholder_name
from prescale.series import (
    BUFFER_CONDITION,
    DEPLOYMENT_READY,
    JOB_OWNER,
    JOB_START,
    KARPENTER_BUILD_INFO,
    NODECLAIMS_DISRUPTED,
    POD_CREATED,
    POD_SCHEDULED,
    READY_NODE,
    SCALER_ACTIVE,
    launch_failures,
    nodes_of_pool,
)
from prescale.series import NODEPOOL_NODE_LABEL as NODEPOOL

from .cost import window_fleet
from .prometheus import Labels, Prometheus, Samples
from .timeline import Timeline

STEP = 30  # seconds between the samples a report reads: the resolution of completeAt and the margin
PRESENCE = 3600  # whether a series was exported at all is asked hourly: a year in one request
BEFORE = timedelta(minutes=5)  # read from this long before a scale-up (the count the pool held before it)
AFTER = timedelta(hours=2)  # and at most this long after an end (the nodes leaving)

Verdict = Literal["served", "late", "short", "no-data"]

# What each figure needs, and how to get it, as the report names a missing one.
NEEDS_DEPLOYMENTS = ("kube_deployment_status_replicas_ready for the placeholder Deployments (kube-state-metrics, "
                     "scraped by your Prometheus)")
NEEDS_NODE_LABELS = ("kube_node_labels with label_karpenter_sh_nodepool (kube-state-metrics "
                     "--metric-labels-allowlist=nodes=[karpenter.sh/nodepool])")
NEEDS_BUFFER = (f"{BUFFER_CONDITION} for the CapacityBuffers (kube-state-metrics with the CustomResourceStateMetrics "
                "config in docs/report.md#capacitybuffers)")
NEEDS_SCHEDULED = "kube_pod_status_scheduled (kube-state-metrics)"
NEEDS_KARPENTER = (f"{NODECLAIMS_DISRUPTED} and {KARPENTER_BUILD_INFO} (Karpenter's own metrics, scraped by your "
                   "Prometheus: the Karpenter chart's serviceMonitor.enabled)")
NEEDS_KEDA = (f"{SCALER_ACTIVE} (KEDA's operator metrics, scraped by your Prometheus: the KEDA chart's "
              "prometheus.operator.enabled)")
NEEDS_JOBS = f"{JOB_START} and {JOB_OWNER} for the driver's Jobs (kube-state-metrics)"
NEEDS_PODS = f"{POD_CREATED} for the placeholder pods (kube-state-metrics)"
NO_SAMPLES = "samples of its readiness series around this occurrence (none were scraped then)"


@dataclass(frozen=True)
class Spread:
    """Launch → Ready seconds of the nodes that came for an occurrence."""

    p50: float
    p95: float
    max: float


@dataclass(frozen=True)
class Measured:
    """One occurrence, as planned and as the cluster's series saw it (``None``: no data for that figure)."""

    window: str
    node_pool: str
    strategy: Strategy
    occurrence: Occurrence
    planned: int
    counted: str  # what `planned` counts: pods, nodes...
    ready_at_start: int | None
    complete_at: datetime | None
    node_ready_seconds: Spread | None
    unschedulable_pod_minutes: float | None
    unschedulable_pods: int | None  # how many pods waited (pod-minutes says how long, together)
    launch_failures: dict[str, int] | None  # NodeClaims deleted before becoming nodes, by Karpenter's reason
    # The scale-up as it happened: KEDA's trigger turning active, or the driver's scale-up Job starting; None if it
    # did not (a paused ScaledObject, a missed run) or without the series.
    measured_scale_up: datetime | None
    # Placeholder pods made to replace ones that went during the occurrence (preempted by the event's pods, or lost
    # with their node); None for a strategy without placeholder pods, or without the series.
    placeholders_replaced: int | None
    node_hours: float | None
    nodes_gone_at: datetime | None  # when the NodePool was back at its count before the scale-up (None: not in AFTER)
    ideal_node_hours: float | None
    cost: float | None
    missing: list[str] = field(default_factory=list)
    # What `tune` sizes the next occurrence from: the CPU cores and memory bytes the pods on its NodePool requested
    # at their peak during the event (DaemonSets' and placeholders' left out); None without the node labels.
    peak_requests: tuple[float, float] | None = None
    ready: Samples = field(default_factory=list)  # its readiness series from scale-up - BEFORE to the end, as read

    @property
    def scale_up_to_complete(self) -> timedelta | None:
        """From the planned scale-up to complete: what a lead time must cover."""
        return None if self.complete_at is None else self.complete_at - self.occurrence.scale_up_utc

    @property
    def scale_up_delay_seconds(self) -> int | None:
        """How long after the planned instant the scale-up happened."""
        if self.measured_scale_up is None:
            return None
        return int((self.measured_scale_up - self.occurrence.scale_up_utc).total_seconds())

    @property
    def margin_seconds(self) -> int | None:
        """How long before the start it was complete (negative: after it)."""
        if self.complete_at is None:
            return None
        return int((self.occurrence.start_utc - self.complete_at).total_seconds())

    @property
    def verdict(self) -> Verdict:
        if self.ready_at_start is None:
            return "no-data"
        if self.complete_at is not None and self.complete_at <= self.occurrence.start_utc:
            return "served"
        return "late" if self.complete_at is not None else "short"


@dataclass(frozen=True)
class Report:
    stack: str
    since: datetime
    until: datetime
    occurrences: list[Measured]

    @property
    def failed(self) -> bool:
        """Whether an occurrence was late or short (the command's exit code 1)."""
        return any(measured.verdict in ("late", "short") for measured in self.occurrences)


def measure(stack: str, timeline: Timeline, prometheus: Prometheus, now: datetime,
            windows: Sequence[str] = ()) -> Report:
    """Every occurrence of ``timeline`` that started by ``now`` (of ``windows`` only, if given), measured."""
    plan = timeline.plan
    entries = [entry for entry in timeline.entries if entry.occurrence.scale_up_utc < now
               and (not windows or entry.window.name in windows)]
    if not entries:
        return Report(stack, timeline.since, timeline.until, [])
    start = min(entry.occurrence.scale_up_utc for entry in entries) - BEFORE
    end = min(max(entry.occurrence.end_utc for entry in entries) + AFTER, now)
    names = sorted({entry.window.name for entry in entries})
    nodepools = sorted({_node_pool(plan, entry.window.node_pool, entry.capacity) for entry in entries})
    series = _Series(prometheus, start, end, names, nodepools)
    found = []
    for entry in entries:
        window_plan = plan.window(entry.window.name)
        nodepool = _node_pool(plan, entry.window.node_pool, entry.capacity)
        found.append(_measure_one(entry.window.name, entry.window.node_pool, entry.strategy, entry.occurrence,
                                  entry.placeholders.pods if not entry.strategy.holds_nodes
                                  else entry.window.nodes or entry.placeholders.pods,
                                  nodepool, window_plan, plan, series))
    return Report(stack, timeline.since, timeline.until, found)


def _node_pool(plan: CapacityPlan, pool: str, capacity: Capacity | None) -> str:
    """The NodePool a window's nodes are on: its own (static), else its pool's (``prescale-<pool>``, or an existing
    pool's own name)."""
    own = capacity.node_pool_object if capacity is not None else None
    if own is not None:
        return own
    return node_pool_object_name(pool) if plan.pools[pool].pool.owned else pool


class _Series:
    """The series a report reads, each asked once for every window over the whole range, and only where its
    exporter is scraped at all (asked first, hourly)."""

    def __init__(self, prometheus: Prometheus, start: datetime, end: datetime, windows: list[str],
                 nodepools: list[str]):
        self.until = end  # the last instant read: a series that stops before it stopped in the cluster
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


def _measure_one(window: str, pool: str, strategy: Strategy, occurrence: Occurrence, planned: int, nodepool: str,
                 window_plan: WindowPlan, plan: CapacityPlan, series: _Series) -> Measured:
    missing: list[str] = []
    scale_up, start, end = occurrence.scale_up_utc, occurrence.start_utc, occurrence.end_utc
    if strategy.keda_scaled:
        ready = series.ready_pods.get(placeholder_name(window))
        if ready is None:
            missing.append(NEEDS_DEPLOYMENTS)
    elif isinstance(window_plan, ArmedWindow) and window_plan.capacity.node_pool_object is not None:
        ready = series.ready_nodes.get(nodepool, [] if series.labelled else None)
        if ready is None:
            missing.append(NEEDS_NODE_LABELS)
    elif (buffer := _buffer(window_plan)) is not None:
        provisioned = series.buffers.get(buffer, [] if series.buffers_exported else None)
        # All of the buffer's room while it is provisioned, none otherwise: its status counts no fraction.
        ready = None if provisioned is None else [(at, value * planned) for at, value in provisioned]
        if ready is None:
            missing.append(NEEDS_BUFFER)
    else:
        ready = None  # an idle window: nothing deployed to measure
    if ready is not None and not _within(ready, scale_up - BEFORE, end):
        ready = None  # no sample around this occurrence: before the series existed, or a scrape gap
        missing.append(NO_SAMPLES)
    ready_at_start = complete_at = None
    if ready is not None:
        at_start = _value_at(ready, start)
        ready_at_start = int(at_start) if at_start is not None else 0
        complete_at = _first(ready, scale_up, end, lambda value: value >= planned)
    spread = node_hours = gone = ideal = cost = None
    if series.labelled:
        spread = _spread(series.launches.get(nodepool, []), scale_up, complete_at or end)
        node_hours, gone = _after_scale_up(series.nodes.get(nodepool, []), scale_up, end, series.until)
        fleet = window_fleet(plan, window_plan) if isinstance(window_plan, ArmedWindow) else None
        nodes = fleet.nodes if fleet else None
        ideal = nodes * (end - scale_up) / timedelta(hours=1) if nodes else None
        cost = node_hours * fleet.shape.price_per_hour if fleet else None
    elif NEEDS_NODE_LABELS not in missing:
        missing.append(NEEDS_NODE_LABELS)
    unschedulable = waited = None
    if series.scheduled_exported:
        during = [samples for samples in (_within(pod, start, end) for pod in series.unschedulable.values()) if samples]
        unschedulable, waited = sum(len(samples) for samples in during) * STEP / 60, len(during)
    else:
        missing.append(NEEDS_SCHEDULED)
    failures = None
    if series.karpenter_scraped:
        failures = {reason: int(total) for (pool_of, reason), samples in sorted(series.failures.items())
                    if pool_of == nodepool and (total := sum(value for _, value in _within(samples, scale_up, end)))}
    else:
        missing.append(NEEDS_KARPENTER)
    scaled_up = _scaled_up(window, strategy, occurrence, series, missing)
    replaced = None
    if strategy.keda_scaled and series.pods_exported:
        times = series.created.get(placeholder_name(window), [])
        made = bisect_left(times, end.timestamp()) - bisect_left(times, (scale_up - BEFORE).timestamp())
        replaced = max(0, made - planned)  # KEDA's scale-up makes `planned` pods; each one more replaced one
    elif strategy.keda_scaled:
        missing.append(NEEDS_PODS)
    peak = None
    if series.labelled:
        cpu, memory = (max((value for _, value in _within(series.requests.get((nodepool, resource), []), start, end)),
                           default=0.0) for resource in ("cpu", "memory"))
        peak = (cpu, memory)
    drawn = _within(ready, scale_up - BEFORE, end + timedelta(seconds=STEP)) if ready is not None else []
    return Measured(window=window, node_pool=pool, strategy=strategy, occurrence=occurrence, planned=planned,
                    counted=strategy.counted, ready_at_start=ready_at_start, complete_at=complete_at,
                    node_ready_seconds=spread, unschedulable_pod_minutes=unschedulable, unschedulable_pods=waited,
                    launch_failures=failures, measured_scale_up=scaled_up, placeholders_replaced=replaced,
                    node_hours=node_hours, nodes_gone_at=gone, ideal_node_hours=ideal, cost=cost, missing=missing,
                    peak_requests=peak, ready=drawn)


def _scaled_up(window: str, strategy: Strategy, occurrence: Occurrence, series: _Series,
               missing: list[str]) -> datetime | None:
    """The occurrence's scale-up as it happened: the first activation of the window's KEDA trigger, or start of its
    driver's scale-up Job, from ``BEFORE`` the planned instant to the end."""
    since, end = occurrence.scale_up_utc - BEFORE, occurrence.end_utc
    if strategy.keda_scaled:
        if not series.keda_exported:
            missing.append(NEEDS_KEDA)
            return None
        return _first(series.activated.get(placeholder_name(window), []), since, end, lambda value: True)
    if not series.jobs_exported:
        missing.append(NEEDS_JOBS)
        return None
    begun = [value for _, value in _within(series.started.get(driver_names(window)[0], []), since, end + BEFORE)
             if since.timestamp() <= value < end.timestamp()]
    return datetime.fromtimestamp(begun[0], UTC) if begun else None


def _buffer(window_plan: WindowPlan) -> str | None:
    """The window's CapacityBuffer, if what it deploys is one."""
    driven = window_plan.capacity.driven if isinstance(window_plan, ArmedWindow) else None
    return driven[1] if driven is not None and driven[0] == "CapacityBuffer" else None


def _within(samples: Samples, since: datetime, until: datetime) -> Samples:
    """The samples in ``[since, until)``: bisected, as every occurrence reads a slice of a year-long series."""
    return samples[_index(samples, since.timestamp()):_index(samples, until.timestamp())]


def _index(samples: Samples, at: float, after: bool = False) -> int:
    """Where ``at`` goes in the time-ordered ``samples``: before its equal (after it, with ``after``)."""
    return (bisect_right if after else bisect_left)(samples, at, key=_time)


def _time(sample: tuple[float, float]) -> float:
    return sample[0]


def _value_at(samples: Samples, moment: datetime) -> float | None:
    """The series' value at ``moment``: its last sample at or before it, within a step."""
    at = moment.timestamp()
    index = _index(samples, at, after=True)
    return samples[index - 1][1] if index and samples[index - 1][0] > at - STEP else None


def _first(samples: Samples, since: datetime, until: datetime, holds: Callable[[float], bool]) -> datetime | None:
    """The first sample instant in ``[since, until]`` whose value ``holds``."""
    span = samples[_index(samples, since.timestamp()):_index(samples, until.timestamp(), after=True)]
    return next((datetime.fromtimestamp(at, UTC) for at, value in span if holds(value)), None)


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


def _spread(launches: Samples, since: datetime, until: datetime) -> Spread | None:
    """Launch → Ready of the nodes created in ``[since - STEP, until]``, p50, p95 and max."""
    seconds = sorted(ready for _, ready in launches[_index(launches, since.timestamp() - STEP):
                                                    _index(launches, until.timestamp(), after=True)])
    if not seconds:
        return None
    return Spread(_rank(seconds, 0.5), _rank(seconds, 0.95), seconds[-1])


def _rank(ordered: list[float], share: float) -> float:
    """The nearest-rank percentile of ``ordered``."""
    return ordered[max(math.ceil(share * len(ordered)) - 1, 0)]


def _after_scale_up(counts: Samples, scale_up: datetime, end: datetime,
                    read_until: datetime) -> tuple[float, datetime | None]:
    """Node-hours above the NodePool's count just before ``scale_up``, from then until the count is back there
    after ``end``, and that instant (``None``: not within :data:`AFTER`, which bounds the hours). A NodePool with
    no node has no count at all: a step without a sample after the end is one where the nodes are gone."""
    baseline = _value_at(counts, scale_up - timedelta(seconds=STEP)) or 0.0
    hours, previous = 0.0, None
    for at, value in _within(counts, scale_up, end + AFTER):
        if at >= end.timestamp() and previous is not None and at - previous > STEP >= end.timestamp() - previous:
            return hours, datetime.fromtimestamp(max(previous + STEP, end.timestamp()), UTC)
        if at >= end.timestamp() and value <= baseline:
            return hours, datetime.fromtimestamp(at, UTC)
        hours += max(value - baseline, 0.0) * STEP / 3600
        previous = at
    emptied = (previous or scale_up.timestamp()) + STEP
    gone = emptied <= min(end + AFTER, read_until).timestamp() and emptied >= end.timestamp()
    return hours, datetime.fromtimestamp(emptied, UTC) if gone else None
