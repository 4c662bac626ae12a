"""Everything in-cluster that turns ``prescale:nodePools`` and ``prescale:eventWindows`` into capacity.

:class:`PrescaleCapacity` is the one component ``__main__.py`` (or a library user's program) builds once the
platform exists; :func:`deploy_capacity` is its wrapper. It plans the config once
(:func:`prescale.model.plan.plan_capacity`), says the plan's warnings, checks each pool's subnets for addresses
(:mod:`prescale.capacity.addresses`), and renders the plan: the namespace and PriorityClass, the reservations held
now, one :class:`~prescale.capacity.node_pools.EventNodePool` per pool prescale owns, per armed window what its
strategy builds (:mod:`prescale.capacity.strategies`: a
:class:`~prescale.capacity.scheduled_capacity.ScheduledCapacity` and :class:`~prescale.capacity.failsafe.Failsafe`,
or the object a :class:`~prescale.capacity.drivers.CapacityDriver` sets and its
:class:`~prescale.capacity.node_prepull.NodePrepull`), and the alerts. What each becomes:
docs/capacity.md#what-each-config-entry-becomes; why names and aliases keep every existing URN:
docs/internals.md#prescalecapacitydeploy.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import pulumi
import pulumi_kubernetes as k8s

from ..contract import Platform
from ..model.config import CapacityConfig
from ..model.fleet.reservations import next_up
from ..model.plan import CapacityPlan, plan_capacity
from ..model.schedule.instants import utc_iso
from ..names import PLACEHOLDER_LABELS, PLACEHOLDER_NAMESPACE, PRIORITY_CLASS_NAME
from .addresses import address_checks
from .alerts import EventAlerts, EventAlertsArgs
from .drivers import CapacityDriver
from .failsafe import Failsafe
from .node_pools import EventNodePool, EventNodePoolArgs
from .node_prepull import NodePrepull
from .reservations import WindowReservations, WindowReservationsArgs, end_date
from .scheduled_capacity import ScheduledCapacity
from .strategies import WindowParts, WindowSite, deployer_for


@dataclass(frozen=True)
class DeployedCapacity:
    """What a :class:`PrescaleCapacity` declared, by config name (for stack outputs and the failsafe guard)."""

    plan: CapacityPlan
    namespace: k8s.core.v1.Namespace
    priority_class: k8s.scheduling.v1.PriorityClass
    node_pools: dict[str, EventNodePool]  # the pools prescale owns
    windows: dict[str, ScheduledCapacity]  # armed windows holding placeholders
    failsafes: dict[str, Failsafe]  # one per window holding placeholders
    alerts: EventAlerts | None = None  # with `prescale:alerts.prometheusRule` only
    reservations: dict[str, WindowReservations] = field(default_factory=dict)  # windows holding them now
    # The object each driven window's driver sets (a StaticNodePool, a WindowBuffer), its driver, its pre-pull.
    native: dict[str, pulumi.ComponentResource] = field(default_factory=dict)
    drivers: dict[str, CapacityDriver] = field(default_factory=dict)
    prepulls: dict[str, NodePrepull] = field(default_factory=dict)  # driven windows with prepullImages

    @property
    def idle_windows(self) -> dict[str, str]:
        """Window name → why nothing is deployed for it now."""
        return {plan.window.name: plan.reason for plan in self.plan.idle}

    @property
    def reservation_outputs(self) -> dict[str, dict[str, Any]]:
        """Window name → its capacity reservations, held now, not yet, or ended with their window until their nodes
        are released (the stack output ``reservations``)."""
        return {plan.window.name: {
            "instanceType": plan.instance_type, "zones": {share.zone: share.count for share in plan.zones},
            "holdFrom": utc_iso(plan.hold_from), "scaleUp": utc_iso(plan.scale_up), "endDate": end_date(plan),
            "held": plan.held, "ids": self.reservations[plan.window.name].ids if plan.held else [],
            "ended": plan.ended, "driftHeldUntil": utc_iso(plan.released)}
            for plan in self.plan.reservations}

    @property
    def next_up_for_reservations(self) -> str | None:
        """When the next ``pulumi up`` must run to create reservations not held yet (UTC), if any."""
        moment = next_up(self.plan.reservations)
        return utc_iso(moment) if moment else None


@dataclass(frozen=True)
class PrescaleCapacityArgs:
    config: CapacityConfig  # from :func:`prescale.model.validation.load_capacity_config` (or load_stack_config)
    # From :func:`prescale.platform.deploy_platform`, or built from your own cluster's provider.
    platform: Platform
    # The program's clock (aware): which windows are armed, idle or holding reservations is decided at it.
    now: datetime


class PrescaleCapacity(pulumi.ComponentResource):
    """Everything in-cluster for the stack's pools and windows, and the reservations they hold, under one parent.

    The names of its children are the ones they had at the stack's top (they derive from pool and window names,
    never from this component's name), and each carries the alias naming that old place, so no existing stack
    replaces anything: their own children follow them, the engine carries the alias down (docs/internals.md).
    """

    deployed: DeployedCapacity
    # The stack outputs it offers (`pulumi.export` each): nodePools, armedWindows, idleWindows, with static or
    # buffer windows nativeWindows, and with reserving one-offs reservations and nextUpForReservations.
    stack_outputs: dict[str, pulumi.Input[Any]]

    def __init__(self, name: str, args: PrescaleCapacityArgs, opts: pulumi.ResourceOptions | None = None):
        super().__init__("prescale:index:PrescaleCapacity", name, {}, opts)
        config, platform = args.config, args.platform
        plan = plan_capacity(config, args.now)
        for warning in plan.warnings:
            pulumi.log.warn(warning)
        # Where the children sat before this component parented them: the caller's parent, or the stack.
        moved = pulumi.ResourceOptions(parent=self, depends_on=opts.depends_on if opts else None, aliases=[
            pulumi.Alias(parent=opts.parent if opts and opts.parent else pulumi.ROOT_STACK_RESOURCE)])

        reservations: dict[str, WindowReservations] = {}
        reservation_ids: dict[str, list[pulumi.Output[str]]] = defaultdict(list)  # by node pool
        for held in (reservation for reservation in plan.reservations if reservation.held):
            window = held.window
            reservations[window.name] = WindowReservations(
                window.name, WindowReservationsArgs(held, platform.cluster_name, config.tags), moved)
            reservation_ids[window.node_pool] += reservations[window.name].ids
        checks = address_checks(plan, platform)
        node_pools = {name: EventNodePool(name, EventNodePoolArgs(pool_plan.pool, pool_plan.freezes, platform,
                                                                  config.tags, reservation_ids.get(name, ()),
                                                                  checks.get(name), pool_plan.drift_holds), moved)
                      for name, pool_plan in plan.pools.items() if pool_plan.pool.owned}

        shared = pulumi.ResourceOptions.merge(moved, pulumi.ResourceOptions(provider=platform.kubernetes_provider))
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

        # Names as outputs, so every window's objects wait for the namespace and the class to exist. Each read of
        # `metadata.name` lifts a new Output that every consumer then awaits: read once, shared by every window.
        namespace_name = namespace.metadata.name
        site = WindowSite(config, platform, node_pools, namespace_name, priority_class.metadata.name, moved,
                          pulumi.ResourceOptions(parent=self, depends_on=opts.depends_on if opts else None))
        parts: dict[str, WindowParts] = {}
        for armed in plan.armed:  # a loop, not a comprehension: docs/performance.md#how-the-program-stays-fast
            parts[armed.window.name] = deployer_for(armed)(armed, site)
        windows = {name: part.scheduled for name, part in parts.items() if part.scheduled is not None}
        failsafes = {name: part.failsafe for name, part in parts.items() if part.failsafe is not None}
        native = {name: part.native for name, part in parts.items() if part.native is not None}
        drivers = {name: part.driver for name, part in parts.items() if part.driver is not None}
        prepulls = {name: part.prepull for name, part in parts.items() if part.prepull is not None}
        alerts = EventAlerts("alerts", EventAlertsArgs(plan, namespace_name, platform), moved) \
            if config.alerts.prometheus_rule else None
        self.deployed = DeployedCapacity(plan, namespace, priority_class, node_pools, windows, failsafes, alerts,
                                         reservations, native, drivers, prepulls)
        self.stack_outputs = {"nodePools": sorted(node_pools), "armedWindows": sorted(windows),
                              "idleWindows": self.deployed.idle_windows}
        if native:
            self.stack_outputs["nativeWindows"] = sorted(native)
        if plan.reservations:  # one-off windows with `reserve`
            self.stack_outputs.update(reservations=self.deployed.reservation_outputs,
                                      nextUpForReservations=self.deployed.next_up_for_reservations)
        self.register_outputs(self.stack_outputs)


def deploy_capacity(config: CapacityConfig, platform: Platform, now: datetime,
                    opts: pulumi.ResourceOptions | None = None) -> DeployedCapacity:
    """Declare node pools, shared placeholder resources and every armed window (``now``: aware datetime) in one
    :class:`PrescaleCapacity` named ``prescale``, and return what it declared."""
    return PrescaleCapacity("prescale", PrescaleCapacityArgs(config, platform, now), opts).deployed
