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
  ``schedule`` uses;
* and the scale-up as it happened, the placeholders preempted, when the nodes were gone (docs/report.md: each one).

A missing series makes its figures ``None`` and names what to turn on, never a zero. The series are read by
:mod:`prescale_cli.report_series`, once for every window.
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
from prescale.names import node_pool_object_name, placeholder_name
from prescale.series import (
    BUFFER_CONDITION,
    JOB_OWNER,
    JOB_START,
    KARPENTER_BUILD_INFO,
    NODECLAIMS_DISRUPTED,
    POD_CREATED,
    SCALER_ACTIVE,
)

from .cost import window_fleet
from .prometheus import Prometheus, Samples
from .report_series import STEP, ReportSeries
from .timeline import Timeline

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
    series = ReportSeries(prometheus, start, end, names, nodepools)
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


def _measure_one(window: str, pool: str, strategy: Strategy, occurrence: Occurrence, planned: int, nodepool: str,
                 window_plan: WindowPlan, plan: CapacityPlan, series: ReportSeries) -> Measured:
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


def _scaled_up(window: str, strategy: Strategy, occurrence: Occurrence, series: ReportSeries,
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
