"""Everything in-cluster that turns ``prescale:nodePools`` and ``prescale:eventWindows`` into capacity.

:func:`deploy_capacity` is the one entry point ``__main__.py`` calls once the platform (cluster, Karpenter,
KEDA) exists. It builds the pieces shared by all windows (the placeholders' namespace and PriorityClass),
one :class:`~prescale.node_pools.EventNodePool` per configured pool, and one
:class:`~prescale.scheduled_capacity.ScheduledCapacity` per window that is armed now (see
:mod:`prescale.model.windows`; windows with nothing to deploy are reported with a warning), each guarded by a
:class:`~prescale.failsafe.Failsafe` that scales it to zero after the window even if KEDA cannot.

Every Pulumi name derives from a pool's or a window's own name, never from its position in the config, so
adding, removing, reordering or editing one window leaves every other window's resources untouched.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

import pulumi
import pulumi_kubernetes as k8s

from .model.config import CapacityConfig
from .failsafe import Failsafe
from .node_pools import EventNodePool
from .platform import Platform
from .scheduled_capacity import COMMON_LABELS, ScheduledCapacity
from .model.windows import ArmedWindow, IdleWindow, one_off_repeat_warning, plan_windows, requested_freezes

NAMESPACE = "prescale"
PRIORITY_CLASS = "prescale-placeholder"


@dataclass(frozen=True)
class Capacity:
    """What :func:`deploy_capacity` built, by config name (for stack outputs and the failsafe guard)."""

    namespace: k8s.core.v1.Namespace
    priority_class: k8s.scheduling.v1.PriorityClass
    node_pools: dict[str, EventNodePool]  # the pools prescale owns
    windows: dict[str, ScheduledCapacity]  # armed windows only
    failsafes: dict[str, Failsafe]  # one per armed window
    idle_windows: dict[str, str]  # window name → why nothing is deployed for it now


def deploy_capacity(config: CapacityConfig, platform: Platform, now: datetime,
                    opts: pulumi.ResourceOptions | None = None) -> Capacity:
    """Declare node pools, shared placeholder resources and every armed window (``now``: aware datetime).

    The entry point for a program that uses prescale as a library, too: ``config`` from
    :func:`prescale.model.validation.load_capacity_config`, ``platform`` built from its own cluster's provider.
    """
    plans = plan_windows(config, now)
    armed = [plan for plan in plans if isinstance(plan, ArmedWindow)]
    idle = {plan.window.name: plan.reason for plan in plans if isinstance(plan, IdleWindow)}
    for name, reason in idle.items():
        pulumi.log.warn(f"event window {name!r}: {reason}")
    for plan in armed:
        if repeats := one_off_repeat_warning(plan):
            pulumi.log.warn(f"event window {plan.window.name!r}: {repeats}")

    freezes = requested_freezes(plans)
    node_pools = {pool.name: EventNodePool(pool.name, pool, freezes.get(pool.name, []), platform, config.tags, opts)
                  for pool in config.node_pools if pool.owned}

    shared = pulumi.ResourceOptions.merge(opts, pulumi.ResourceOptions(provider=platform.kubernetes_provider))
    namespace = k8s.core.v1.Namespace("prescale-namespace", metadata={
        "name": NAMESPACE,
        # The API server itself refuses any pod here that breaks the "restricted" standard.
        "labels": {**COMMON_LABELS, "pod-security.kubernetes.io/enforce": "restricted",
                   "pod-security.kubernetes.io/enforce-version": "latest"},
    }, opts=shared)
    priority_class = k8s.scheduling.v1.PriorityClass(
        "prescale-placeholder-priority",
        metadata={"name": PRIORITY_CLASS, "labels": COMMON_LABELS},
        value=config.placeholders.priority,
        preemption_policy="Never",
        global_default=False,
        description="prescale placeholders: below every real pod, which preempts them; they preempt nothing.",
        opts=shared)

    # Names as outputs, so every window's objects wait for the namespace and the class to exist.
    pools = {pool.name: pool for pool in config.node_pools}
    windows = {plan.window.name: ScheduledCapacity(plan.window.name, plan, pools[plan.window.node_pool],
                                                   config.placeholders, namespace.metadata.name,
                                                   priority_class.metadata.name, platform, opts)
               for plan in armed}
    failsafes = {name: Failsafe(name, window, config.placeholders, platform, opts) for name, window in windows.items()}
    return Capacity(namespace, priority_class, node_pools, windows, failsafes, idle)
