"""``prescale status``: is each window that runs now, or starts soon, ready in the cluster?

The windows and their instants come from the same timeline ``prescale schedule`` shows (the stack's plan at
``now``, KEDA's own times); the cluster answers through a :class:`~prescale_cli.cluster_reader.ClusterReader`.
A window in its lead time or running is **ready** when its ScaledObject is Ready and Active (KEDA has opened
it) and all its placeholders are Ready; a merely upcoming one is ready when its ScaledObject exists and is
Ready, so KEDA will open it. Either way its pool's NodePool and node class must be Ready too: Karpenter
launches nothing for a NodePool that is not, and says so only in their conditions (it publishes no event for
a node class that is not Ready, nor for a launch or registration that timed out). Launch failures,
NodeClaims that launched but never registered, reservations and the freeze are shown beside, to say why.

A static or buffer window is ready by its own NodePool or its CapacityBuffer holding its count, and by its
driver's CronJobs (:mod:`prescale_cli.driver_status`): docs/cli.md#static-and-buffer-windows. What each reason
means, with its upstream source: docs/cli.md#prescale-status.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Final, Literal

from prescale.model.plan import CapacityPlan
from prescale.model.schedule.freezes import Freeze, freeze_active
from prescale.model.strategies import Strategy
from prescale.model.values.labels import NODEPOOL_LABEL, WINDOW_LABEL
from prescale.model.windows import ArmedWindow
from prescale.names import (
    PLACEHOLDER_LABELS,
    PLACEHOLDER_NAMESPACE,
    node_pool_object_name,
    placeholder_name,
    pool_node_selector,
)

from .cluster_reader import NODE_CLASS_APIS, ClusterReader, Object
from .driver_status import CronJobState, driver_states
from .timeline import Entry, Timeline

WindowState = Literal["lead", "running", "upcoming"]
NodeClaimStep = Literal["Launched", "Registered"]  # the NodeClaim conditions a failing launch has not reached
LEAD: Final = "lead"
RUNNING: Final = "running"
UPCOMING: Final = "upcoming"
CAPACITY_TYPE_LABEL = "karpenter.sh/capacity-type"  # Karpenter's; `reserved` for a capacity reservation's node
RESERVATION_LABEL = "karpenter.k8s.aws/capacity-reservation-id"  # karpenter-provider-aws v1.14 node label
# A NodeClaim condition Karpenter has not reconciled yet is Unknown with this reason (awslabs/operatorpkg status).
AWAITING = "AwaitingReconciliation"
# The one Warning event Karpenter publishes on a NodeClaim it then deletes: no capacity for any of its offerings
# (kubernetes-sigs/karpenter v1.14.1 pkg/controllers/nodeclaim/lifecycle/launch.go; its NodeClassNotReady event is
# defined but never published, and launch or registration timeouts publish none, liveness.go).
DELETED_LAUNCH_REASONS = frozenset({"InsufficientCapacityError"})
# A node is Ready 30 to 80 s after its launch (docs/alerts.md); Karpenter deletes a NodeClaim still without its
# node after 15 minutes (liveness.go `registrationTimeout`): one launched this long ago without a node is late.
REGISTRATION_LATE_AFTER = timedelta(minutes=5)
# The NodePool's condition Karpenter sets False when half of its last four NodeClaims failed to launch or
# register (pkg/state/nodepoolhealth, liveness.go); not one of the NodePool's Ready conditions.
REGISTRATION_HEALTHY = "NodeRegistrationHealthy"
# A CapacityBuffer's conditions (kubernetes-sigs/karpenter v1.14.1 pkg/apis/autoscaling/v1beta1/constants.go): its
# controller sets ReadyForProvisioning once it resolved the PodTemplate; the provisioner sets Provisioning True
# (FitsExistingCapacity) once every virtual pod fits on existing nodes, False while some need new ones
# (RequiresNewCapacity) or the buffer is at 0 (BufferEmpty): pkg/controllers/provisioning/buffers.go.
READY_FOR_PROVISIONING = "ReadyForProvisioning"
PROVISIONING = "Provisioning"


@dataclass(frozen=True)
class ObjectState:
    """An object the window depends on, with its status conditions by type, as its controller wrote them."""

    kind: str
    name: str
    found: bool
    conditions: Mapping[str, Object]

    def holds(self, kind: str) -> bool:
        return self.conditions.get(kind, {}).get("status") == "True"

    def not_ready(self) -> str | None:
        """``EC2NodeClass x not SubnetsReady (SubnetsNotFound: …)``: why it is not found or not Ready, naming the
        conditions that are False (the root ``Ready`` names them only by type); None when it is Ready."""
        if not self.found:
            return f"{self.kind} {self.name} not found"
        if self.holds("Ready"):
            return None
        false = [kind for kind, condition in self.conditions.items()
                 if kind not in ("Ready", REGISTRATION_HEALTHY) and condition.get("status") == "False"]
        return f"{self.kind} {self.name} " + "; ".join(_condition_text(self.conditions, kind)
                                                      for kind in false or ["Ready"])


@dataclass(frozen=True)
class PoolState:
    """The pool's NodePool and its node class: Karpenter launches nodes for it only while both are Ready."""

    node_pool: ObjectState
    node_class: ObjectState | None  # None: no NodePool to name it, or a kind prescale cannot read
    listed: Object | None = None  # the NodePool as the API returned it (a static one's count is in it)

    @property
    def blockers(self) -> list[str]:
        found = []
        if (text := self.node_pool.not_ready()) is not None:
            found.append(f"{text}: Karpenter launches no node for it")
        if self.node_class is not None and (text := self.node_class.not_ready()) is not None:
            found.append(text)
        return found

    @property
    def registration_unhealthy(self) -> Object | None:
        """The NodePool's NodeRegistrationHealthy condition when it is False (Karpenter's reason and message)."""
        condition = self.node_pool.conditions.get(REGISTRATION_HEALTHY)
        return condition if condition is not None and condition.get("status") == "False" else None


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
    condition: NodeClaimStep  # Launched, or Registered (launched, no node yet)
    reason: str
    message: str
    since: datetime  # when that condition last changed, or the deleted NodeClaim's event
    deleted: bool  # Karpenter deleted the NodeClaim and retries: only its event is left


@dataclass(frozen=True)
class NodeClaims:
    total: int
    ready: int
    launch_failures: tuple[LaunchFailure, ...]


@dataclass(frozen=True)
class StaticState:
    """A static window's own NodePool's count, as its driver set it and as Karpenter counts its nodes."""

    desired: int  # the window's nodes
    replicas: int | None  # spec.replicas (None: no NodePool, or a dynamic one)
    nodes: int | None  # status.nodes, Karpenter's count of its nodes


@dataclass(frozen=True)
class BufferState:
    """A buffer window's CapacityBuffer: the count its driver set, and Karpenter's conditions on it."""

    buffer: ObjectState
    desired: int  # the window's virtual pods
    replicas: int | None  # spec.replicas
    provisioned: int | None  # status.replicas: the count Karpenter provisions for


@dataclass(frozen=True)
class WindowStatus:
    entry: Entry
    state: WindowState
    scaled_object: ObjectState | None  # placeholders only, as the two below
    placeholders: Placeholders | None
    nodes: Nodes
    node_claims: NodeClaims
    pool: PoolState  # on a static pool, the window's own NodePool
    freeze: Freeze | None  # the `nodes: "0"` budget in force now on its NodePool, from the plan
    static: StaticState | None = None
    buffer: BufferState | None = None
    driver: tuple[CronJobState, ...] = ()  # a static or buffer window's scale-up, scale-down and failsafe CronJobs

    @property
    def strategy(self) -> Strategy:
        return self.entry.strategy

    @property
    def counts(self) -> bool:
        """Whether this window decides the exit code: it is in its lead time or running."""
        return self.state != UPCOMING

    @property
    def blockers(self) -> list[str]:
        """Why the window is not ready; empty when it is."""
        if self.entry.not_armed:
            return [f"not armed yet: {self.entry.not_armed}"]
        if self.static is not None:
            return self._static_blockers(self.static) + self._driver_blockers()
        if self.buffer is not None:
            return self._buffer_blockers(self.buffer) + self._driver_blockers()
        so, held = self.scaled_object, self.placeholders
        assert so is not None and held is not None
        if not so.found:
            return [f"ScaledObject {so.name} not found in namespace {PLACEHOLDER_NAMESPACE} (run `pulumi up`?)",
                    *self.pool.blockers]
        wrong = [kind for kind, wanted in (("Ready", True), ("Paused", False), ("Active", True))
                 if so.holds(kind) != wanted and (kind != "Active" or self.counts)]
        found = [f"ScaledObject {_condition_text(so.conditions, kind)}" for kind in wrong]
        if self.counts and held.ready < held.desired:
            found.append(f"{held.ready} of {held.desired} placeholders Ready")
        return found + self.pool.blockers

    def _static_blockers(self, static: StaticState) -> list[str]:
        """In its lead time or running: its NodePool at the window's count, and that many nodes Ready."""
        found = []
        if self.counts and self.pool.node_pool.found and static.replicas != static.desired:
            found.append(f"NodePool {self.pool.node_pool.name} at replicas {static.replicas}, the window needs "
                         f"{static.desired}{self._not_set_yet}")
        if self.counts and self.nodes.ready < static.desired:
            found.append(f"{self.nodes.ready} of {static.desired} nodes Ready")
        return found + self.pool.blockers

    def _buffer_blockers(self, state: BufferState) -> list[str]:
        """Its CapacityBuffer resolved (at any time); in its lead time also at the window's count and provisioned."""
        buffer = state.buffer
        where = f"CapacityBuffer {PLACEHOLDER_NAMESPACE}/{buffer.name}"
        if not buffer.found:
            return [f"{where} not found (run `pulumi up`?)", *self.pool.blockers]
        found = []
        if not buffer.holds(READY_FOR_PROVISIONING):
            unreconciled = READY_FOR_PROVISIONING not in buffer.conditions
            found.append(f"{where} {_condition_text(buffer.conditions, READY_FOR_PROVISIONING)}" + (
                ": Karpenter's CapacityBuffer controller has not reconciled it (its CapacityBuffer feature gate "
                "off?)" if unreconciled else ": Karpenter provisions nothing for it"))
        if self.state == LEAD and state.replicas != state.desired:
            found.append(f"{where} at replicas {state.replicas}, the window needs {state.desired} until the event's "
                         f"start{self._not_set_yet}")
        elif self.state == LEAD and buffer.holds(READY_FOR_PROVISIONING) and not buffer.holds(PROVISIONING):
            found.append(f"{where} {_condition_text(buffer.conditions, PROVISIONING)}: not every virtual pod fits "
                         "on a node yet")
        return found + self.pool.blockers

    @property
    def _not_set_yet(self) -> str:
        """`` (its CronJob prescale/scale-up-x has not set it)``: the driver's scale-up, which sets the count."""
        return f" (its CronJob {PLACEHOLDER_NAMESPACE}/{self.driver[0].name} has not set it)" if self.driver else ""

    def _driver_blockers(self) -> list[str]:
        return [blocker for cron_job in self.driver if (blocker := cron_job.blocker()) is not None]

    @property
    def ready(self) -> bool:
        return not self.blockers


def check_windows(timeline: Timeline, reader: ClusterReader) -> list[WindowStatus]:
    """Every window whose occurrence meets the timeline's range, once (its first occurrence there), as the
    cluster holds it now. Each kind of object is listed once, and only when a window needs it."""
    now, plan = timeline.now, timeline.plan
    first: dict[str, Entry] = {}
    for entry in timeline.entries:
        first.setdefault(entry.window.name, entry)
    driven = {kind for entry in first.values() if entry.capacity and (kind := _driven_kind(entry))}
    scaled_objects: dict[str, Object] = {}
    pods_by_window: dict[str, list[Object]] = defaultdict(list)
    if any(entry.strategy.keda_scaled for entry in first.values()):
        scaled_objects = {so["metadata"]["name"]: so for so in reader.scaled_objects(PLACEHOLDER_NAMESPACE)}
        for pod in reader.pods(PLACEHOLDER_NAMESPACE, PLACEHOLDER_LABELS):
            if not pod["metadata"].get("deletionTimestamp"):  # a preempted placeholder on its way out
                pods_by_window[_labels(pod).get(WINDOW_LABEL, "")].append(pod)
    cron_jobs = {item["metadata"]["name"]: item for item in reader.cron_jobs(PLACEHOLDER_NAMESPACE)} if driven else {}
    jobs = reader.jobs(PLACEHOLDER_NAMESPACE) if driven else []
    buffers = {item["metadata"]["name"]: item for item in reader.capacity_buffers(PLACEHOLDER_NAMESPACE)} \
        if "CapacityBuffer" in driven else {}
    nodepools = {name: _node_pool_of(entry, plan) for name, entry in first.items()}  # window → (NodePool, selector)
    selectors = dict(nodepools.values())
    nodes = {nodepool: reader.nodes(selector) for nodepool, selector in selectors.items()}
    claims = {nodepool: reader.node_claims(selector) for nodepool, selector in selectors.items()}
    events = reader.node_claim_events() if selectors else []
    pool_states = _pool_states(reader, list(selectors)) if selectors else {}
    statuses = []
    for entry in first.values():
        window, occurrence = entry.window, entry.occurrence
        state = window_state(occurrence.scale_up_utc, occurrence.start_utc, now)
        nodepool = nodepools[window.name][0]
        since = occurrence.scale_up_utc if state != UPCOMING else None
        placeholders = entry.strategy.keda_scaled
        name = placeholder_name(window.name)
        statuses.append(WindowStatus(
            entry, state,
            ObjectState("ScaledObject", name, name in scaled_objects, _conditions(scaled_objects.get(name, {})))
            if placeholders else None,
            _placeholders(entry.placeholders.pods, pods_by_window[window.name]) if placeholders else None,
            _nodes(nodes[nodepool]),
            _node_claims(claims[nodepool], events, nodepool, since, now),
            pool_states[nodepool],
            next((budget for budget in _budgets(entry, plan) if freeze_active(budget, now)), None),
            static=_static(entry, pool_states[nodepool]),
            buffer=_buffer(entry, buffers),
            driver=driver_states(driver.runs, cron_jobs, jobs)
            if entry.capacity and (driver := entry.capacity.driver) else ()))
    return statuses


def _driven_kind(entry: Entry) -> str | None:
    driven = entry.capacity.driven if entry.capacity is not None else None
    return driven[0] if driven is not None else None


def _own_node_pool(entry: Entry) -> str | None:
    return entry.capacity.node_pool_object if entry.capacity is not None else None


def _node_pool_of(entry: Entry, plan: CapacityPlan) -> tuple[str, dict[str, str]]:
    """The NodePool a window's nodes come from, and the labels its nodes and NodeClaims carry: the window's own
    (static; ``karpenter.sh/nodepool``, which Karpenter sets), else its pool's
    (:func:`prescale.names.pool_node_selector`)."""
    own = _own_node_pool(entry)
    if own is not None:
        return own, {NODEPOOL_LABEL: own}
    pool = entry.window.node_pool
    owned = plan.pools[pool].pool.owned
    return node_pool_object_name(pool) if owned else pool, pool_node_selector(pool, owned)


def _budgets(entry: Entry, plan: CapacityPlan) -> list[Freeze]:
    """The freezes of the NodePool the window's nodes are on: the window's own (static), else its pool's."""
    window = plan.window(entry.window.name)
    if _own_node_pool(entry) is not None and isinstance(window, ArmedWindow):
        return [window.freeze] if window.freeze is not None else []
    return plan.pools[entry.window.node_pool].freezes


def _static(entry: Entry, pool: PoolState) -> StaticState | None:
    """A driven NodePool's count: planned, set (``spec.replicas``) and running (``status.nodes``)."""
    if entry.capacity is None or entry.capacity.driver is None or _driven_kind(entry) != "NodePool":
        return None
    listed = pool.listed or {}
    return StaticState(entry.capacity.driver.up.replicas, (listed.get("spec") or {}).get("replicas"),
                       (listed.get("status") or {}).get("nodes"))


def _buffer(entry: Entry, buffers: Mapping[str, Object]) -> BufferState | None:
    """A driven CapacityBuffer: its conditions, and its count planned, set and provisioned."""
    if entry.capacity is None or entry.capacity.driver is None or entry.capacity.driven is None \
            or entry.capacity.driven[0] != "CapacityBuffer":
        return None
    name = entry.capacity.driven[1]
    listed = buffers.get(name, {})
    return BufferState(ObjectState("CapacityBuffer", name, name in buffers, _conditions(listed)),
                       entry.capacity.driver.up.replicas, (listed.get("spec") or {}).get("replicas"),
                       (listed.get("status") or {}).get("replicas"))


def window_state(scale_up: datetime, start: datetime, now: datetime) -> WindowState:
    """An occurrence is in its lead time in [scale-up, start), running in [start, end), upcoming before."""
    return RUNNING if start <= now else LEAD if scale_up <= now else UPCOMING


def _pool_states(reader: ClusterReader, nodepools: list[str]) -> dict[str, PoolState]:
    """Each NodePool (by its name) and the node class its ``nodeClassRef`` names, each kind listed once."""
    listed = {item["metadata"]["name"]: item for item in reader.node_pools()}
    refs = {name: (listed.get(name, {}).get("spec", {}).get("template", {}).get("spec", {})
                   .get("nodeClassRef") or {}) for name in nodepools}
    kinds = {(ref["group"], ref["kind"]) for ref in refs.values() if (ref.get("group"), ref.get("kind")) in
             NODE_CLASS_APIS}
    classes = {kind: {item["metadata"]["name"]: item for item in reader.node_classes(*kind)} for kind in sorted(kinds)}
    states = {}
    for name in nodepools:
        ref = refs[name]
        of_kind = classes.get((ref.get("group"), ref.get("kind")))
        node_class = None if of_kind is None else ObjectState(
            ref["kind"], ref["name"], ref["name"] in of_kind, _conditions(of_kind.get(ref["name"], {})))
        states[name] = PoolState(ObjectState("NodePool", name, name in listed, _conditions(listed.get(name, {}))),
                                 node_class, listed.get(name))
    return states


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


def _node_claims(claims: list[Object], events: list[Object], nodepool: str, since: datetime | None,
                 now: datetime) -> NodeClaims:
    """The pool's NodeClaims, and those failing: a NodeClaim whose Launched condition Karpenter set Unknown or
    False with a reason (e.g. RequestLimitExceeded, Unauthorized); one launched whose Registered condition has
    not been True for :data:`REGISTRATION_LATE_AFTER` (reason NodeNotFound); or, since ``since``, the Warning
    event of one it deleted (InsufficientCapacityError). NodeClaims are named ``<NodePool>-<5 characters>``."""
    ready = sum(1 for claim in claims if _holds(claim, "Ready"))
    failures = []
    for claim in claims:
        conditions = _conditions(claim)
        launched, registered = conditions.get("Launched", {}), conditions.get("Registered", {})
        step: NodeClaimStep
        if launched.get("status") != "True":
            step, failing = "Launched", launched.get("reason") not in (None, "", AWAITING)
        else:
            step, failing = "Registered", registered.get("status", "True") != "True" and \
                now - _changed(registered) >= REGISTRATION_LATE_AFTER
        if failing:
            condition = conditions[step]
            failures.append(LaunchFailure(claim["metadata"]["name"], step, condition.get("reason", ""),
                                          condition.get("message", ""), _changed(condition), deleted=False))
    if since is not None:
        present = {claim["metadata"]["name"] for claim in claims}
        of_pool = re.compile(rf"{re.escape(nodepool)}-[a-z0-9]{{5}}")
        for event in sorted(events, key=_event_time):
            claim = event.get("involvedObject", {}).get("name", "")
            if (event.get("reason") in DELETED_LAUNCH_REASONS and of_pool.fullmatch(claim) and claim not in present
                    and _event_time(event) >= since):
                failures.append(LaunchFailure(claim, "Launched", event["reason"], event.get("message", ""),
                                              _event_time(event), deleted=True))
    return NodeClaims(len(claims), ready, tuple(failures))


def _changed(condition: Object) -> datetime:
    return datetime.fromisoformat(condition["lastTransitionTime"])


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
