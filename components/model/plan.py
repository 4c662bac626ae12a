"""Everything a run deploys and shows, decided once: :func:`plan_capacity` → :class:`CapacityPlan`.

Pure (no Pulumi, no logging). The capacity components render the plan and ``prescale plan`` / ``prescale
schedule`` read the same object, so a window's triggers, sizes and failsafe, a pool's fitted budgets and every
warning are computed in one place. Warnings are returned, never printed: the program hands them to
``pulumi.log.warn``, the CLI to its report.
"""

from __future__ import annotations

import difflib
from collections import defaultdict
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from .checks.eks_versions import kubectl_skew_warning
from .config import (
    CONFIG_NAMESPACE,
    CapacityConfig,
    EventWindow,
    NodePoolConfig,
    PricingConfig,
    StackConfig,
)
from .fleet.addresses import WindowAddresses
from .fleet.instances import instance_type, instance_types
from .fleet.reservations import ReservationPlan, reservation_id_warnings
from .fleet.zones import unknown_zone
from .schedule.after_end import POLLING_INTERVAL_SECONDS
from .schedule.freezes import FREEZE_SLOTS, MAX_BUDGETS, STANDING_BUDGETS, FittedFreezes, Freeze, fit_freezes
from .strategies import Strategy, strategy_of
from .values.duration import format_duration
from .values.labels import ZONE
from .windows import (
    ArmedWindow,
    IdleWindow,
    WindowPlan,
    address_demand,
    plan_windows,
    requested_freezes,
)


@dataclass(frozen=True)
class PoolPlan:
    """One node pool's strategy and disruption budgets: the consolidation freezes its deployed windows ask for and
    the drift holds of its windows' capacity reservations, as they fit in a NodePool (a static pool's windows each
    have their own NodePool, with their own freeze)."""

    pool: NodePoolConfig
    requested: tuple[Freeze, ...]  # one per armed window on the pool (none on a pool prescale does not own)
    fitted: FittedFreezes
    fitted_drift_holds: FittedFreezes  # of the reservations its windows hold or just ended
    region: str | None = None  # the stack's, when known (a library program's platform decides it)

    @property
    def strategy(self) -> Strategy:
        """How the pool's windows get their nodes (``nodePools[].strategy``): renderers ask it, never its name."""
        return strategy_of(self.pool)

    @property
    def freezes(self) -> list[Freeze]:
        """The ``nodes: "0"`` budgets the NodePool gets, beside its standing ones; on a static pool, those of its
        windows' NodePools, one each."""
        return self.fitted.freezes

    @property
    def drift_holds(self) -> list[Freeze]:
        """The ``nodes: "0"`` budgets for reason ``Drifted`` only (:attr:`.fleet.reservations.ReservationPlan.
        drift_hold`)."""
        return self.fitted_drift_holds.freezes

    @property
    def warnings(self) -> tuple[str, ...]:
        found = []
        if self.fitted.merged:
            found.append(f"node pool {self.pool.name!r}: its windows need {self.fitted.requested} consolidation "
                         f"freezes but a NodePool holds {MAX_BUDGETS} budgets ({len(STANDING_BUDGETS)} of them "
                         f"standing); they were merged into {len(self.fitted.freezes)} covering ones, so "
                         "consolidation stays frozen longer than the windows (no window loses its freeze). Spread "
                         "windows over more node pools to avoid this.")
        if self.fitted_drift_holds.merged:
            found.append(f"node pool {self.pool.name!r}: its windows' capacity reservations need "
                         f"{self.fitted_drift_holds.requested} drift holds, more than the {FREEZE_SLOTS // 2} "
                         f"budgets prescale gives them; they were merged into {len(self.drift_holds)} covering ones, "
                         "so drifted nodes are replaced later than they could be (no reservation loses its hold).")
        found += reservation_id_warnings(self.pool)
        alias = self.pool.ami_alias
        if self.pool.owned and self.pool.node_class_name is None and alias.endswith("@latest"):
            found.append(f"node pool {self.pool.name!r}: amiAlias {alias!r} follows every AMI release: each one "
                         "drifts all of the pool's nodes, which Karpenter then replaces wherever no window's freeze "
                         "holds, and nodes launched during an event (for preempted placeholders) boot the newest "
                         "AMI, possibly one released mid-event that nothing ran on yet. Pin a release "
                         "(al2023@vYYYYMMDD or bottlerocket@vX.Y.Z) to roll nodes only when you change it.")
        return (*found, *self._zone_warnings())

    def _zone_warnings(self) -> tuple[str, ...]:
        if self.region is None:
            return ()
        return tuple(f"node pool {self.pool.name!r}: {ZONE} requirement: {problem}; the pool launches only in the "
                     "zones it lists that exist"
                     for requirement in self.pool.requirements if requirement.key == ZONE
                     and requirement.operator == "In"
                     for zone in requirement.values if (problem := unknown_zone(zone, self.region)))


@dataclass(frozen=True)
class CapacityPlan:
    """What the capacity wing deploys at ``now``, and why anything is left out."""

    config: CapacityConfig
    now: datetime
    windows: tuple[WindowPlan, ...]  # every configured window, in config order
    pools: Mapping[str, PoolPlan]  # every configured pool, by name

    @property
    def armed(self) -> tuple[ArmedWindow, ...]:
        """The windows deployed now, whatever their strategy."""
        return tuple(plan for plan in self.windows if isinstance(plan, ArmedWindow))

    @property
    def idle(self) -> tuple[IdleWindow, ...]:
        return tuple(plan for plan in self.windows if isinstance(plan, IdleWindow))

    @property
    def reservations(self) -> tuple[ReservationPlan, ...]:
        """The capacity reservations of every one-off window whose reserved nodes are not released yet: held by this
        run, not yet, or ended with their window (their drift hold still standing)."""
        return tuple(plan.reservation for plan in self.windows if plan.reservation is not None)

    def window(self, name: str) -> WindowPlan:
        return next(plan for plan in self.windows if plan.window.name == name)

    def address_demand(self, pools: Collection[str], prefixes: bool, armed_only: bool = False) -> list[WindowAddresses]:
        """What each window on ``pools`` holds in their subnets while it is open (:func:`.windows.address_demand`).

        Asked rather than stored: the count depends on the networking (``prefixes``: EKS Auto Mode's /28 prefixes,
        else the VPC CNI's interfaces), which the platform decides, and only the address checks need it.
        """
        return address_demand(self.windows, {name: pool.pool for name, pool in self.pools.items()}, pools, prefixes,
                              armed_only)

    @property
    def warnings(self) -> tuple[str, ...]:
        """Every warning, windows first (in config order), then pools: what ``pulumi up`` and ``prescale
        schedule`` both say."""
        return (*(warning for plan in self.windows for warning in (*plan.warnings, *lead_time_warnings(plan.window))),
                *self._reservation_zone_warnings(),
                *(warning for pool in self.pools.values() for warning in pool.warnings),
                *pricing_warnings(self.config.pricing), *self._kubectl_warnings())

    def _reservation_zone_warnings(self) -> tuple[str, ...]:
        """Reservations in a zone of the stack's region that AWS does not list (as a pool's zones are warned)."""
        if not isinstance(self.config, StackConfig):
            return ()
        return tuple(f"event window {plan.window.name!r}: reserve: {problem}; EC2 refuses a reservation there"
                     for plan in self.reservations for share in plan.zones
                     if (problem := unknown_zone(share.zone, self.config.region)))

    def _kubectl_warnings(self) -> tuple[str, ...]:
        """The failsafes' and drivers' kubectl too far from a new cluster's version (an existing one's is unknown)."""
        config = self.config
        if not isinstance(config, StackConfig) or not config.cluster.create or not self.windows:
            return ()
        warning = kubectl_skew_warning(config.cluster.kubernetes_version, config.placeholders.failsafe_image)
        return () if warning is None else (warning,)


# The least lead time that lets nodes be Ready at a window's start, before any image pull: KEDA acts within one
# poll (keda_timing), Karpenter batches pending pods for up to 10 s (BATCH_MAX_DURATION) and a node needs about
# 30-80 s from launch to Ready. Sources and reasoning: docs/capacity.md, "How long a lead time".
READY_LEAD = timedelta(minutes=2)


# The least a prepulled image takes: pulls take tens of seconds per image, minutes for large ones, one at a time by
# default (docs/capacity.md, "Event images").
PULL_TIME = timedelta(seconds=20)


def lead_time_warnings(window: EventWindow) -> tuple[str, ...]:
    """A lead time too short for nodes to be Ready when the event starts, or for them to pull its ``prepullImages``
    too (allowed, since some events only need nodes soon after their start)."""
    if window.lead >= READY_LEAD:
        needed = READY_LEAD + PULL_TIME * len(window.prepull_images)
        needed += -needed % timedelta(minutes=1)  # a lead time is whole minutes
        if window.lead >= needed:
            return ()
        return (f"event window {window.name!r}: leadTime {window.lead_time!r} leaves "
                f"{format_duration(window.lead - READY_LEAD)} after the node is Ready (about "
                f"{format_duration(READY_LEAD)}) to pull its {len(window.prepull_images)} prepullImages, which the "
                f"kubelet pulls one at a time: even at {PULL_TIME.seconds} s per image (pulls take tens of seconds, "
                "minutes for large images) that takes longer, so the placeholders would not be Ready at the start "
                f"(docs/capacity.md, \"Event images\"); give it at least {format_duration(needed)}, or fewer images",)
    return (f"event window {window.name!r}: leadTime {window.lead_time!r} is shorter than a node needs to become "
            f"Ready: KEDA scales up within {POLLING_INTERVAL_SECONDS} s, Karpenter batches pending pods for up to "
            "10 s, and a new node takes about 30-80 s from launch to Ready before the event's images are even "
            f"pulled (docs/capacity.md, \"How long a lead time\"); give it at least {format_duration(READY_LEAD)} "
            "(the default is 10m)",)


def pricing_warnings(pricing: PricingConfig) -> tuple[str, ...]:
    """Prices of instance types Karpenter does not know (a typo, most likely): the estimate never uses them."""
    unknown = [name for name in pricing.instance_types if instance_type(name) is None]
    known = [instance.name for instance in instance_types()] if unknown else []
    return tuple(f"{CONFIG_NAMESPACE}:pricing.instanceTypes: {name!r} is not in Karpenter's instance-type list "
                 f"(v1.14), so prescale schedule's cost estimate never uses its price{_did_you_mean(name, known)}"
                 for name in unknown)


def _did_you_mean(name: str, known: list[str]) -> str:
    close = difflib.get_close_matches(name, known, n=1)
    return f"; did you mean {close[0]!r}?" if close else ""


def plan_capacity(config: CapacityConfig, now: datetime) -> CapacityPlan:
    """Plan every window and pool of a validated ``config`` at ``now`` (an aware datetime)."""
    windows = tuple(plan_windows(config, now))
    asked = requested_freezes(list(windows))
    holds: dict[str, list[Freeze]] = defaultdict(list)
    for plan in windows:
        if plan.reservation is not None and plan.reservation.holds_drift:
            holds[plan.window.node_pool].append(plan.reservation.drift_hold)
    region = config.region if isinstance(config, StackConfig) else None
    pools = {pool.name: plan_pool(pool, asked.get(pool.name, ()), holds.get(pool.name, ()), region)
             for pool in config.node_pools}
    return CapacityPlan(config, now, windows, pools)


def plan_pool(pool: NodePoolConfig, freezes: Sequence[Freeze], drift_holds: Sequence[Freeze],
              region: str | None = None) -> PoolPlan:
    """``pool``'s budgets fitted beside its standing ones: the drift holds take the slots they need, up to half of
    them (there are seldom more than one or two), and the freezes the rest; a static pool's freezes are its windows'
    own, one on each of their NodePools, and it holds no drift (its nodes go at each end). ``region``: the stack's,
    when known."""
    if strategy_of(pool).own_node_pools:
        unfitted = FittedFreezes(list(dict.fromkeys(freezes)), len(set(freezes)), merged=False)
        return PoolPlan(pool, tuple(freezes), unfitted, fit_freezes(()), region)
    fitted_holds = fit_freezes(drift_holds, FREEZE_SLOTS // 2)
    return PoolPlan(pool, tuple(freezes), fit_freezes(freezes, FREEZE_SLOTS - len(fitted_holds.freezes)),
                    fitted_holds, region)
