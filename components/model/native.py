"""What a window on a static or buffer pool deploys: the object its driver sets, named stably, and what pulls its
images.

* **static**: the window's own static NodePool (``spec.replicas``), made from its pool's template: N nodes from
  scale-up to the end, never consolidated, each at least the pool's ``nodeSize`` (:mod:`prescale.model.checks.
  strategies`). One NodePool per window, so adding a window never touches another's, and never the pool's own name:
  a NodePool cannot switch between static and dynamic, so a pool that changes strategy gets new objects.
* **buffer**: a ``CapacityBuffer`` (``autoscaling.x-k8s.io/v1beta1``) and the ``PodTemplate`` it refers to, with the
  window's placeholder pod shape: Karpenter provisions for N virtual pods on the pool's own NodePool from scale-up
  to the event's start, where the buffer goes back to 0 (it would refill as real pods take its room) and the window's
  freeze keeps the nodes.

Both are driven by two CronJobs (:mod:`prescale.model.schedule.drivers`). Pure: the components render this; the
object names are decided here so that every renderer reads the same ones. Details: docs/internals.md
(`prescale.model.native`).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import datetime, timedelta
from math import ceil
from typing import ClassVar

from .config import EventWindow, NodePoolConfig
from .fleet.labels import NODEPOOL_LABEL, POOL_LABEL
from .fleet.sizing import PlaceholderPlan
from .schedule.drivers import ConvergeRun, DriverSchedule, driver_schedule

LABEL_VALUE_LIMIT = 63  # a static NodePool's name is the value of its nodes' karpenter.sh/nodepool label
_HASH_LENGTH = 8


def window_object_name(window_name: str) -> str:
    """A window's own objects in namespace prescale: its placeholder Deployment and ScaledObject, or its
    CapacityBuffer and PodTemplate (one name per window, whatever its strategy)."""
    return f"prescale-{window_name}"


def static_node_pool_name(pool_name: str, window_name: str) -> str:
    """A static window's NodePool: ``prescale-<pool>-<window>``, cut to fit a label value, then 8 hex digits of the
    pair's SHA-256, so that no two pairs (nor a pool's own ``prescale-<pool>``) share one: names of pools and windows
    may contain any run of ``-``, so no separator alone keeps them apart."""
    digest = hashlib.sha256(f"{pool_name}/{window_name}".encode()).hexdigest()[:_HASH_LENGTH]
    readable = f"prescale-{pool_name}-{window_name}"[:LABEL_VALUE_LIMIT - _HASH_LENGTH - 1].rstrip("-")
    return f"{readable}-{digest}"


def driver_names(window_name: str) -> tuple[str, str]:
    """The driver's scale-up and scale-down CronJobs: within a CronJob's 52 characters for a 40-character window
    name (``prescale.names.failsafe_name`` explains the limit)."""
    return f"scale-up-{window_name}", f"scale-down-{window_name}"


def driver_failsafe_name(window_name: str) -> str:
    """The driver's failsafe CronJob: named as a placeholder window's failsafe (which a window of another strategy
    never has), so that one name means "the run that sets 0 after the window" whatever the strategy."""
    return f"failsafe-{window_name}"


def converge_name(window_name: str) -> str:
    """The Job a `pulumi up` registers to set the window's count at once (a Job's 63 characters, less the 6 its
    pods append, hold a 40-character window name)."""
    return f"converge-{window_name}"


def driver_account_name(window_name: str) -> str:
    """The driver's ServiceAccount and the Role or ClusterRole (prefixed ``prescale-``, cluster-wide) it is bound to."""
    return f"driver-{window_name}"


def prepull_name(window_name: str) -> str:
    """The DaemonSet that pulls a static or buffer window's ``prepullImages`` onto its nodes."""
    return f"prepull-{window_name}"


@dataclass(frozen=True)
class Prepull:
    """A DaemonSet on the nodes labelled ``node_label`` whose init containers pull ``images`` as placeholders do."""

    name: str
    node_label: tuple[str, str]  # (key, value)
    images: tuple[str, ...]


@dataclass(frozen=True)
class StaticNodes:
    """A window's static NodePool: ``nodes`` nodes of its pool's template while the driver says so."""

    strategy: ClassVar[str] = "static"
    node_pool_name: str
    nodes: int  # spec.replicas at scale-up
    node_limit: int  # its limits.nodes: N and a surge (:func:`static_node_limit`)
    driver: DriverSchedule
    created_replicas: int  # spec.replicas a `pulumi up` at the plan's `now` creates it with (then ignored)
    converge: ConvergeRun | None = None  # the Job that sets the count at the plan's `now`, away from the edges
    prepull: Prepull | None = None


@dataclass(frozen=True)
class BufferedCapacity:
    """A window's CapacityBuffer, referring to its PodTemplate (the window's placeholder pod shape)."""

    strategy: ClassVar[str] = "buffer"
    buffer_name: str
    pod_template_name: str
    pods: int  # spec.replicas at scale-up: the window's placeholders, as virtual pods
    driver: DriverSchedule
    created_replicas: int  # spec.replicas a `pulumi up` at the plan's `now` creates it with (then ignored)
    converge: ConvergeRun | None = None  # the Job that sets the count at the plan's `now`, away from the edges
    prepull: Prepull | None = None


NativeCapacity = StaticNodes | BufferedCapacity


def plan_native(window: EventWindow, pool: NodePoolConfig, placeholders: PlaceholderPlan, grace: timedelta,
                now: datetime) -> NativeCapacity:
    """What ``window`` on ``pool`` (strategy static or buffer, validated) deploys at ``now``; ``grace``:
    ``placeholders.failsafeGrace``, how long after its scale-down the driver's failsafe sets 0 again."""
    names = (*driver_names(window.name), driver_failsafe_name(window.name))
    if pool.strategy == "static":
        assert window.nodes is not None  # the config checks refuse capacity windows on static pools
        node_pool = static_node_pool_name(pool.name, window.name)
        driver = driver_schedule(window, window.nodes, "end", names, grace, now)
        return StaticNodes(node_pool, window.nodes, static_node_limit(window.nodes, pool), driver,
                           driver.created_replicas(now),
                           driver.converge(converge_name(window.name), now),
                           _prepull(window, (NODEPOOL_LABEL, node_pool)))
    driver = driver_schedule(window, placeholders.pods, "start", names, grace, now)
    return BufferedCapacity(window_object_name(window.name), window_object_name(window.name), placeholders.pods,
                            driver, driver.created_replicas(now), driver.converge(converge_name(window.name), now),
                            _prepull(window, (POOL_LABEL, pool.name)))


def static_node_limit(nodes: int, pool: NodePoolConfig) -> int:
    """A static window's ``limits.nodes``: its N and a surge of a quarter of N (a Deployment's default maxSurge), at
    least one node, within the pool's own ``limits.nodes``. Karpenter counts nodes still terminating against the
    limit (kubernetes-sigs/karpenter v1.14.1 ``pkg/controllers/state/statenodepool.go`` ``ReserveNodeCount``), so
    with the limit at N a node lost mid-window (an interruption, a repair, an expiry) is replaced only once it is
    gone, up to its ``terminationGracePeriod`` later; the surge replaces it at once. It never adds nodes: the
    static controller creates only what brings the running ones up to ``replicas``
    (``pkg/controllers/static/provisioning/controller.go``), and drift replacements still wait for the budgets,
    which the window's freeze holds at 0."""
    limit = nodes + max(1, ceil(nodes / 4))
    cap = pool.limits.nodes if pool.limits is not None else None
    return max(nodes, min(limit, cap)) if cap is not None else limit


def _prepull(window: EventWindow, label: tuple[str, str]) -> Prepull | None:
    return Prepull(prepull_name(window.name), label, window.prepull_images) if window.prepull_images else None
