"""Strategy ``static``: each window gets its own static NodePool (Karpenter's ``spec.replicas``, gate
StaticCapacity), made from its pool's template, holding N nodes from scale-up to the end, never consolidated.

One NodePool per window, so adding a window never touches another's, and never the pool's own name: a NodePool
cannot switch between static and dynamic, so a pool that changes strategy gets new objects. Its driver sets N at
scale-up and 0 at the end (:mod:`.driven`), when Karpenter deletes the nodes at once. Why and when to choose it:
docs/strategies.md.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal

from ..config import CapacityConfig, EventWindow, FeatureGate, NodePoolConfig
from ..fleet.instances import InstanceType, pool_launchable
from ..fleet.sizing import PlaceholderPlan
from ..schedule.after_end import DRAIN
from ..schedule.drivers import ConvergeRun, DriverSchedule, Edge, run_bounds
from ..schedule.keda import Occurrence
from ..values.duration import format_duration
from ..values.labels import NODEPOOL_LABEL, ZONE
from ..values.quantity import format_cpu, format_memory
from .base import DrivenKind, Prepull
from .driven import existing_pool_refusal, plan_driven

LABEL_VALUE_LIMIT = 63  # a static NodePool's name is the value of its nodes' karpenter.sh/nodepool label
_HASH_LENGTH = 8
# Keys a static NodePool cannot take (its CEL rule refuses weight) or ignores (consolidation, with replicas set).
IGNORED_KEYS = frozenset({"weight", "consolidationPolicy", "consolidateAfter"})


def static_node_pool_name(pool_name: str, window_name: str) -> str:
    """A static window's NodePool: ``prescale-<pool>-<window>``, cut to fit a label value, then 8 hex digits of the
    pair's SHA-256, so that no two pairs (nor a pool's own ``prescale-<pool>``) share one: names of pools and windows
    may contain any run of ``-``, so no separator alone keeps them apart."""
    digest = hashlib.sha256(f"{pool_name}/{window_name}".encode()).hexdigest()[:_HASH_LENGTH]
    readable = f"prescale-{pool_name}-{window_name}"[:LABEL_VALUE_LIMIT - _HASH_LENGTH - 1].rstrip("-")
    return f"{readable}-{digest}"


@dataclass(frozen=True)
class StaticNodes:
    """A window's static NodePool: ``nodes`` nodes of its pool's template while the driver says so."""

    node_pool_name: str
    nodes: int  # spec.replicas at scale-up
    node_limit: int  # its limits.nodes: N and a surge (:func:`static_node_limit`)
    driver: DriverSchedule
    created_replicas: int  # spec.replicas a `pulumi up` at the plan's `now` creates it with (then ignored)
    converge: ConvergeRun | None = None  # the Job that sets the count at the plan's `now`, away from the edges
    prepull: Prepull | None = None

    @property
    def node_pool_object(self) -> str:
        return self.node_pool_name

    @property
    def driven(self) -> tuple[DrivenKind, str]:
        return "NodePool", self.node_pool_name


def static_node_limit(nodes: int, pool: NodePoolConfig) -> int:
    """A static window's ``limits.nodes``: its N and a surge of a quarter of N (a Deployment's default maxSurge), at
    least one node, within the pool's own ``limits.nodes``. Karpenter counts nodes still terminating against the
    limit (kubernetes-sigs/karpenter v1.14.1 ``pkg/controllers/state/statenodepool.go`` ``ReserveNodeCount``), so
    with the limit at N a node lost mid-window (an interruption, a repair, an expiry) is replaced only once it is
    gone, up to its ``terminationGracePeriod`` later; the surge replaces it at once. It never adds nodes: the
    static controller creates only what brings the running ones up to ``replicas``
    (``pkg/controllers/static/provisioning/controller.go``), and drift replacements still wait for the budgets,
    which the window's freeze holds at 0."""
    limit = nodes + max(1, math.ceil(nodes / 4))
    cap = pool.limits.nodes if pool.limits is not None else None
    return max(nodes, min(limit, cap)) if cap is not None else limit


class StaticStrategy:
    name: str = "static"
    summary: str = "its own static NodePool of N nodes per window, set by a driver"
    gate: FeatureGate | None = "StaticCapacity"
    gated_objects: str = "spec.replicas and launches nothing"
    on_auto_mode: bool = True  # Auto Mode runs static NodePools without a gate
    on_existing_pools: bool = False
    own_node_pools: bool = True
    holds_nodes: bool = True
    keda_scaled: bool = False
    scale_down: Edge | None = "end"
    counted: str = "nodes"
    cost_basis: str | None = (
        "Static windows: exactly their nodes, of the cheapest instance type the pool allows, which Karpenter launches "
        "for a static NodePool (another when EC2 has none of it: kubernetes-sigs/karpenter "
        "designs/static-capacity.md), from the scale-up run to the scale-down run at the end.")

    def plan(self, window: EventWindow, pool: NodePoolConfig | None, sizing: PlaceholderPlan, grace: timedelta,
             occurrence: Occurrence | None, now: datetime) -> StaticNodes:
        assert pool is not None and window.nodes is not None  # the checks refuse capacity windows on static pools
        node_pool = static_node_pool_name(pool.name, window.name)
        driven = plan_driven(window, window.nodes, "end", grace, now, (NODEPOOL_LABEL, node_pool))
        return StaticNodes(node_pool, window.nodes, static_node_limit(window.nodes, pool), driven.driver,
                           driven.created_replicas, driven.converge, driven.prepull)

    def pool_key_problem(self, existing: bool, given: set[str]) -> str | None:
        if existing:
            return existing_pool_refusal(self.name)
        if given & IGNORED_KEYS:
            ignored = sorted(given & IGNORED_KEYS)
            return (f"{', '.join(ignored)} do{'es' * (len(ignored) == 1)} not apply to strategy static: its "
                    "NodePools keep exactly their windows' nodes, are never consolidated, and the NodePool CRD "
                    "refuses a weight on them (Karpenter 1.14); allowed: remove them, or strategy placeholders or "
                    "buffer")
        return None

    def window_problems(self, path: str, window: EventWindow, pool: NodePoolConfig,
                        config: CapacityConfig) -> list[str]:
        return [_capacity_on_static(path, window, pool, config)] if window.capacity is not None else []

    def pool_problems(self, path: str, pool: NodePoolConfig, config: CapacityConfig, has_windows: bool,
                      sized: bool) -> list[str]:
        problems = [] if _pinned_to_one_zone(pool) else [_unpinned_static(path, pool)]
        return problems + (_small_types(path, pool, config) if has_windows and sized else [])

    def usual_tail(self, pool: NodePoolConfig) -> timedelta:
        """The drain alone: the driver sets the window's NodePool to 0 at the end and Karpenter deletes the surplus
        NodeClaims at once, without ``consolidateAfter`` or budgets (kubernetes-sigs/karpenter v1.14.1
        ``pkg/controllers/static/deprovisioning/controller.go``, ``Reconcile``)."""
        return DRAIN

    def latest_tail(self, window: EventWindow, pool: NodePoolConfig, capacity: object | None, grace: timedelta,
                    now: datetime) -> timedelta:
        """The drain after the scale-down run's latest act: it may start ``startingDeadlineSeconds`` late and its
        Job retries for ``activeDeadlineSeconds`` (a window not armed yet: its bounds as it will get them)."""
        if isinstance(capacity, StaticNodes):
            down = capacity.driver.down
            starting, active = down.starting_deadline_seconds, down.active_deadline_seconds
        else:
            starting, active, _ = run_bounds(window, "end", now)[1]
        return DRAIN + timedelta(seconds=starting + active)

    def tail_basis(self, grace: str) -> str:
        return ("A static NodePool's nodes go as soon as its scale-down run sets 0 at the end: Karpenter deletes them "
                "without waiting for consolidation or disruption budgets, draining them as PodDisruptionBudgets "
                f"allow (about {format_duration(DRAIN)}, at most the pool's terminationGracePeriod). A late run (its "
                "CronJob controller down, its Job failing) acts at the latest its deadlines allow, as shown; one that "
                "never succeeds leaves them up to the next scale-up.")


STATIC = StaticStrategy()


def _capacity_on_static(path: str, window: EventWindow, pool: NodePoolConfig, config: CapacityConfig) -> str:
    """A ``capacity`` window on a static pool, with the ``nodes`` that hold as much: of the smallest type the pool
    launches that holds its ``nodeSize`` (Karpenter gives a static pool its cheapest type), counted by their room
    beside DaemonSets; of ``nodeSize`` itself if none holds it (refused on its own: :func:`_small_types`)."""
    assert window.capacity is not None
    cpu, memory = window.capacity.requests
    size = config.placeholders_for(pool).node_size
    holding = [instance for instance in pool_launchable(pool).types
               if _room_for(instance, *size.requests)]
    if holding:
        smallest = min(holding, key=_smallest)
        room_cpu, room_memory = smallest.room
        nodes = max(math.ceil(cpu / room_cpu), math.ceil(memory / room_memory), 1)
        why = (f"the smallest type the pool launches, {smallest.name}, has {format_cpu(room_cpu)} CPU and "
               f"{format_memory(room_memory)} beside DaemonSets; the capacity takes {nodes} of them")
    else:
        nodes = max(math.ceil(cpu / size.requests[0]), math.ceil(memory / size.requests[1]), 1)
        why = f"nodes of nodeSize {size.cpu} CPU / {size.memory} hold as much"
    limit = pool.limits.nodes if pool.limits is not None else None
    raise_limit = f" with the pool's limits.nodes at least {nodes}" if limit is not None and nodes > limit else ""
    return (f"{path}.capacity: {{cpu: {window.capacity.cpu!r}, memory: {window.capacity.memory!r}}} cannot go on "
            f"static node pool {pool.name!r}: a static NodePool holds a number of whole nodes, not pod requests; "
            f"allowed: nodes: {nodes}{raise_limit} ({why}), or a pool with strategy placeholders or buffer")


def _pinned_to_one_zone(pool: NodePoolConfig) -> bool:
    return any(requirement.key == ZONE and requirement.operator == "In" and len(requirement.values) == 1
               for requirement in pool.requirements)


def _unpinned_static(path: str, pool: NodePoolConfig) -> str:
    """A static pool that more than one zone could serve: Karpenter launches a static NodePool's nodes where its
    cheapest offering is, with no spread over zones (kubernetes-sigs/karpenter v1.14.1 ``designs/static-capacity.md``
    pins one NodePool per zone), so every node of a window could land in one zone and one zone's outage (or its
    shortage of the type) takes them all."""
    return (f"{path}.requirements: node pool {pool.name!r} has strategy static and is not pinned to one zone: "
            "Karpenter does not spread a static NodePool's nodes over zones, so all of a window's nodes may land in "
            "one zone, and one zone's outage or shortage takes them all; allowed: the requirement "
            f"{{key: {ZONE}, operator: In, values: [<one zone>]}}, and for nodes in several zones one static pool "
            "per zone with each window's nodes split between them")


def _small_types(path: str, pool: NodePoolConfig, config: CapacityConfig) -> list[str]:
    """Karpenter gives a static NodePool the cheapest type its requirements allow, whatever its windows ask for:
    every such type must hold the pool's ``nodeSize`` beside DaemonSets, or N nodes are not N nodes of that size."""
    types = pool_launchable(pool).types
    size = config.placeholders_for(pool).node_size
    cpu, memory = size.requests
    small = [instance for instance in types if not _room_for(instance, cpu, memory)]
    if not types or not small:
        return []  # a pool that launches nothing is refused by prescale.model.checks.pools
    small.sort(key=_smallest)
    holding = sorted((instance for instance in types if instance not in small), key=_smallest)
    fix = (f"requirements that leave only types that hold it, e.g. {{key: node.kubernetes.io/instance-type, operator: "
           f"In, values: [{holding[0].name}]}}" if holding else "a smaller nodeSize")
    return [f"{path}.requirements: node pool {pool.name!r} has strategy static, and Karpenter launches the cheapest "
            f"type its requirements allow; {len(small)} of the {len(types)} types they allow cannot hold its nodeSize "
            f"({size.cpu} CPU, {size.memory}) beside DaemonSets, such as {small[0].describe()}, so its windows' nodes "
            f"could be smaller than asked; allowed: {fix}"]


def _smallest(instance: InstanceType) -> tuple[int, int, str]:
    return instance.vcpus, instance.memory_mib, instance.name


def _room_for(instance: InstanceType, cpu: Decimal, memory: Decimal) -> bool:
    room_cpu, room_memory = instance.room
    return cpu <= room_cpu and memory <= room_memory
