"""``prescale status``: is each window that runs now, or starts soon, ready in the cluster?

The windows and their instants come from the same timeline ``prescale schedule`` shows (the stack's plan at
``now``, KEDA's own times); the cluster answers through a :class:`~prescale_cli.cluster_reader.ClusterReader`.
A window in its lead time or running is **ready** when its ScaledObject is Ready and Active (KEDA has opened
it) and all its placeholders are Ready; a merely upcoming one is ready when its ScaledObject exists and is
Ready, so KEDA will open it. Launch failures, reservations and the freeze are shown beside, to say why.
What each reason means, with its upstream source: docs/cli.md#prescale-status.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Final, Literal

from prescale.model.fleet.labels import WINDOW_LABEL
from prescale.model.schedule.freezes import Freeze, freeze_active
from prescale.names import (
    PLACEHOLDER_LABELS,
    PLACEHOLDER_NAMESPACE,
    node_pool_object_name,
    placeholder_name,
    pool_node_selector,
)

from .cluster_reader import ClusterReader, Object
from .timeline import Entry, Timeline

WindowState = Literal["lead", "running", "upcoming"]
LEAD: Final = "lead"
RUNNING: Final = "running"
UPCOMING: Final = "upcoming"
CAPACITY_TYPE_LABEL = "karpenter.sh/capacity-type"  # Karpenter's; `reserved` for a capacity reservation's node
RESERVATION_LABEL = "karpenter.k8s.aws/capacity-reservation-id"  # karpenter-provider-aws v1.14 node label
# A NodeClaim condition Karpenter has not reconciled yet is Unknown with this reason (awslabs/operatorpkg status).
AWAITING = "AwaitingReconciliation"
# Warning events Karpenter publishes on a NodeClaim it then deletes (kubernetes-sigs/karpenter v1.14
# pkg/controllers/nodeclaim/lifecycle/launch.go): no capacity for any of its offerings, or its node class not ready.
DELETED_LAUNCH_REASONS = frozenset({"InsufficientCapacityError", "NodeClassNotReady"})


@dataclass(frozen=True)
class ScaledObjectState:
    name: str
    found: bool
    conditions: Mapping[str, Object]  # KEDA's status.conditions by type (Ready, Active, Fallback, Paused)

    def holds(self, kind: str) -> bool:
        return self.conditions.get(kind, {}).get("status") == "True"


@dataclass(frozen=True)
class Waiting:
    """Why one placeholder is not Ready: the scheduler's or the kubelet's reason, as the pod says it."""

    pod: str
    reason: str
    message: str


@dataclass(frozen=True)
class Placeholders:
    desired: int  # what the window holds while KEDA has it open
    ready: int
    pending: int
    waiting: tuple[Waiting, ...]  # one per placeholder that is not Ready


@dataclass(frozen=True)
class Nodes:
    total: int
    ready: int
    reserved: int  # launched into a capacity reservation
    reservations: tuple[str, ...]  # their reservation ids


@dataclass(frozen=True)
class LaunchFailure:
    node_claim: str
    reason: str
    message: str
    deleted: bool  # Karpenter deleted the NodeClaim and retries: only its event is left


@dataclass(frozen=True)
class NodeClaims:
    total: int
    ready: int
    launch_failures: tuple[LaunchFailure, ...]


@dataclass(frozen=True)
class WindowStatus:
    entry: Entry
    state: WindowState
    scaled_object: ScaledObjectState
    placeholders: Placeholders
    nodes: Nodes
    node_claims: NodeClaims
    freeze: Freeze | None  # the pool's `nodes: "0"` budget in force now, from the plan

    @property
    def counts(self) -> bool:
        """Whether this window decides the exit code: it is in its lead time or running."""
        return self.state != UPCOMING

    @property
    def blockers(self) -> list[str]:
        """Why the window is not ready; empty when it is."""
        so, held = self.scaled_object, self.placeholders
        if self.entry.not_armed:
            return [f"not armed yet: {self.entry.not_armed}"]
        if not so.found:
            return [f"ScaledObject {so.name} not found in namespace {PLACEHOLDER_NAMESPACE} (run `pulumi up`?)"]
        wrong = [kind for kind, wanted in (("Ready", True), ("Paused", False), ("Active", True))
                 if so.holds(kind) != wanted and (kind != "Active" or self.counts)]
        found = [f"ScaledObject {_condition_text(so.conditions, kind)}" for kind in wrong]
        if self.counts and held.ready < held.desired:
            found.append(f"{held.ready} of {held.desired} placeholders Ready")
        return found

    @property
    def ready(self) -> bool:
        return not self.blockers


def check_windows(timeline: Timeline, reader: ClusterReader) -> list[WindowStatus]:
    """Every window whose occurrence meets the timeline's range, once (its first occurrence there), as the
    cluster holds it now."""
    now, plan = timeline.now, timeline.plan
    scaled_objects = {so["metadata"]["name"]: so for so in reader.scaled_objects(PLACEHOLDER_NAMESPACE)}
    pods_by_window: dict[str, list[Object]] = defaultdict(list)
    for pod in reader.pods(PLACEHOLDER_NAMESPACE, PLACEHOLDER_LABELS):
        if not pod["metadata"].get("deletionTimestamp"):  # a preempted placeholder on its way out
            pods_by_window[_labels(pod).get(WINDOW_LABEL, "")].append(pod)
    first: dict[str, Entry] = {}
    for entry in timeline.entries:
        first.setdefault(entry.window.name, entry)
    pools = dict.fromkeys(entry.window.node_pool for entry in first.values())  # in the windows' order
    selectors = {pool: pool_node_selector(pool, plan.pools[pool].pool.owned) for pool in pools}
    nodes = {pool: reader.nodes(selector) for pool, selector in selectors.items()}
    claims = {pool: reader.node_claims(selector) for pool, selector in selectors.items()}
    events = reader.node_claim_events() if pools else []
    statuses = []
    for entry in first.values():
        window, occurrence, pool = entry.window, entry.occurrence, plan.pools[entry.window.node_pool]
        state: WindowState = (RUNNING if occurrence.start_utc <= now else
                              LEAD if occurrence.scale_up_utc <= now else UPCOMING)
        name = placeholder_name(window.name)
        nodepool = node_pool_object_name(window.node_pool) if pool.pool.owned else window.node_pool
        since = occurrence.scale_up_utc if state != UPCOMING else None
        statuses.append(WindowStatus(
            entry, state,
            ScaledObjectState(name, name in scaled_objects, _conditions(scaled_objects.get(name, {}))),
            _placeholders(entry.placeholders.pods, pods_by_window[window.name]),
            _nodes(nodes[window.node_pool]),
            _node_claims(claims[window.node_pool], events, nodepool, since),
            next((budget for budget in pool.freezes if freeze_active(budget, now)), None)))
    return statuses


def _placeholders(desired: int, pods: list[Object]) -> Placeholders:
    waiting = tuple(_waiting(pod) for pod in pods if not _holds(pod, "Ready"))
    pending = sum(1 for pod in pods if pod.get("status", {}).get("phase") == "Pending")
    return Placeholders(desired, len(pods) - len(waiting), pending, waiting)


def _waiting(pod: Object) -> Waiting:
    """The first thing a placeholder waits for: a node (PodScheduled False, e.g. Unschedulable), then its
    containers (init ones first: e.g. ErrImagePull, ImagePullBackOff, ContainerCreating)."""
    name, status = pod["metadata"]["name"], pod.get("status", {})
    scheduled = _conditions(pod).get("PodScheduled", {})
    if scheduled.get("status") == "False":
        return Waiting(name, scheduled.get("reason") or "NotScheduled", scheduled.get("message", ""))
    for container in [*(status.get("initContainerStatuses") or []), *(status.get("containerStatuses") or [])]:
        state = container.get("state") or {}
        stuck = state.get("waiting") or (state.get("terminated") if not container.get("ready") else None)
        if stuck and stuck.get("reason"):
            return Waiting(name, stuck["reason"], stuck.get("message", ""))
    not_ready = _conditions(pod).get("Ready", {})
    return Waiting(name, not_ready.get("reason") or status.get("phase") or "Pending", not_ready.get("message", ""))


def _nodes(nodes: list[Object]) -> Nodes:
    reserved = [node for node in nodes if _labels(node).get(CAPACITY_TYPE_LABEL) == "reserved"]
    return Nodes(len(nodes), sum(1 for node in nodes if _holds(node, "Ready")),
                 len(reserved), tuple(sorted({_labels(node)[RESERVATION_LABEL] for node in reserved
                                              if RESERVATION_LABEL in _labels(node)})))


def _node_claims(claims: list[Object], events: list[Object], nodepool: str, since: datetime | None) -> NodeClaims:
    """The pool's NodeClaims, and its launches that failed: a NodeClaim whose Launched condition Karpenter set
    Unknown or False with a reason (e.g. RequestLimitExceeded, Unauthorized), or, since ``since``, the Warning
    event of one it deleted (InsufficientCapacityError). NodeClaims are named ``<NodePool>-<5 characters>``."""
    ready = sum(1 for claim in claims if _holds(claim, "Ready"))
    failures = []
    for claim in claims:
        launched = _conditions(claim).get("Launched", {})
        if launched.get("status") != "True" and launched.get("reason") not in (None, "", AWAITING):
            failures.append(LaunchFailure(claim["metadata"]["name"], launched["reason"], launched.get("message", ""),
                                          deleted=False))
    if since is not None:
        present = {claim["metadata"]["name"] for claim in claims}
        of_pool = re.compile(rf"{re.escape(nodepool)}-[a-z0-9]{{5}}")
        for event in sorted(events, key=_event_time):
            claim = event.get("involvedObject", {}).get("name", "")
            if (event.get("reason") in DELETED_LAUNCH_REASONS and of_pool.fullmatch(claim) and claim not in present
                    and _event_time(event) >= since):
                failures.append(LaunchFailure(claim, event["reason"], event.get("message", ""), deleted=True))
    return NodeClaims(len(claims), ready, tuple(failures))


def _event_time(event: Object) -> datetime:
    """When an event last happened: ``lastTimestamp`` (core/v1 recorders), else ``eventTime``, else creation."""
    text = event.get("lastTimestamp") or event.get("eventTime") or event["metadata"]["creationTimestamp"]
    return datetime.fromisoformat(text)


def _conditions(obj: Mapping[str, Any]) -> dict[str, Object]:
    return {condition["type"]: condition for condition in (obj.get("status") or {}).get("conditions") or []}


def _holds(obj: Mapping[str, Any], kind: str) -> bool:
    return _conditions(obj).get(kind, {}).get("status") == "True"


def _labels(obj: Object) -> Mapping[str, str]:
    return obj["metadata"].get("labels") or {}


def _condition_text(conditions: Mapping[str, Object], kind: str) -> str:
    """``not Active (ScalerNotActive: Scaling is not performed because triggers are not active)``."""
    condition = conditions.get(kind)
    if condition is None:
        return f"has no {kind} condition yet"
    detail = ": ".join(part for part in (condition.get("reason"), condition.get("message")) if part)
    status = condition.get("status")
    return (f"{kind}" if status == "True" else f"not {kind}" if status == "False" else f"{kind} {status}") + \
        (f" ({detail})" if detail else "")
