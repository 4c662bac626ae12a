"""Everything in-cluster that turns ``prescale:nodePools`` and ``prescale:eventWindows`` into capacity.

:func:`deploy_capacity` is the one entry point ``__main__.py`` (or a library user's program) calls once the
platform exists. It plans the config once (:func:`prescale.model.plan.plan_capacity`), says the plan's warnings,
checks each pool's subnets for addresses (:mod:`prescale.capacity.addresses`), and renders it: the pieces shared by
all windows (the placeholders' namespace and PriorityClass), one
:class:`~prescale.capacity.node_pools.EventNodePool` per pool prescale owns, and one
:class:`~prescale.capacity.scheduled_capacity.ScheduledCapacity` per window armed now, each guarded by a
:class:`~prescale.capacity.failsafe.Failsafe` that scales it to zero after the window even if KEDA cannot.

Every Pulumi name derives from a pool's or a window's own name, never from its position in the config, so
adding, removing, reordering or editing one window leaves every other window's resources untouched.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

import pulumi
import pulumi_kubernetes as k8s

from ..contract import Platform
from ..model.config import CapacityConfig
from ..model.plan import CapacityPlan, plan_capacity
from ..names import PLACEHOLDER_LABELS, PLACEHOLDER_NAMESPACE, PRIORITY_CLASS_NAME
from .addresses import address_checks
from .failsafe import Failsafe, FailsafeArgs
from .node_pools import EventNodePool, EventNodePoolArgs
from .scheduled_capacity import ScheduledCapacity, ScheduledCapacityArgs


@dataclass(frozen=True)
class DeployedCapacity:
    """What :func:`deploy_capacity` built, by config name (for stack outputs and the failsafe guard)."""

    plan: CapacityPlan
    namespace: k8s.core.v1.Namespace
    priority_class: k8s.scheduling.v1.PriorityClass
    node_pools: dict[str, EventNodePool]  # the pools prescale owns
    windows: dict[str, ScheduledCapacity]  # armed windows only
    failsafes: dict[str, Failsafe]  # one per armed window

    @property
    def idle_windows(self) -> dict[str, str]:
        """Window name → why nothing is deployed for it now."""
        return {plan.window.name: plan.reason for plan in self.plan.idle}


def deploy_capacity(config: CapacityConfig, platform: Platform, now: datetime,
                    opts: pulumi.ResourceOptions | None = None) -> DeployedCapacity:
    """Declare node pools, shared placeholder resources and every armed window (``now``: aware datetime).

    ``config`` from :func:`prescale.model.validation.load_capacity_config`; ``platform`` from
    :func:`prescale.platform.deploy_platform`, or built from your own cluster's provider.
    """
    plan = plan_capacity(config, now)
    for warning in plan.warnings:
        pulumi.log.warn(warning)

    checks = address_checks(plan, platform)
    node_pools = {name: EventNodePool(name, EventNodePoolArgs(pool_plan.pool, pool_plan.freezes, platform,
                                                              config.tags, checks.get(name)), opts)
                  for name, pool_plan in plan.pools.items() if pool_plan.pool.owned}

    shared = pulumi.ResourceOptions.merge(opts, pulumi.ResourceOptions(provider=platform.kubernetes_provider))
    namespace = k8s.core.v1.Namespace("prescale-namespace", metadata={
        "name": PLACEHOLDER_NAMESPACE,
        # The API server itself refuses any pod here that breaks the "restricted" standard.
        "labels": {**PLACEHOLDER_LABELS, "pod-security.kubernetes.io/enforce": "restricted",
                   "pod-security.kubernetes.io/enforce-version": "latest"},
    }, opts=shared)
    priority_class = k8s.scheduling.v1.PriorityClass(
        "prescale-placeholder-priority",
        metadata={"name": PRIORITY_CLASS_NAME, "labels": PLACEHOLDER_LABELS},
        value=config.placeholders.priority,
        preemption_policy="Never",
        global_default=False,
        description="prescale placeholders: below every real pod, which preempts them; they preempt nothing.",
        opts=shared)

    # Names as outputs, so every window's objects wait for the namespace and the class to exist.
    windows = {armed.window.name: ScheduledCapacity(armed.window.name, ScheduledCapacityArgs(
        armed, plan.pools[armed.window.node_pool].pool, config.placeholders, namespace.metadata.name,
        priority_class.metadata.name, platform), opts) for armed in plan.armed}
    failsafes = {name: Failsafe(name, FailsafeArgs(window, config.placeholders.failsafe_image, platform), opts)
                 for name, window in windows.items()}
    return DeployedCapacity(plan, namespace, priority_class, node_pools, windows, failsafes)
