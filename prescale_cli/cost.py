"""What pre-scaling costs for a range, compared with keeping the same nodes all day: an estimate.

The estimate step by step: docs/cli.md#the-cost-estimate; how each step is computed:
docs/internals.md#prescale_clicost.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Final, Literal

from prescale.model.config import EventWindow, Limits, NodePoolConfig, PricingConfig
from prescale.model.fleet.instances import InstanceType, instance_type, pool_launchable
from prescale.model.fleet.sizing import PlaceholderPlan, pods_per_node
from prescale.model.plan import CapacityPlan
from prescale.model.strategies import Strategy
from prescale.model.windows import ArmedWindow, WindowPlan

from .node_hours import Hold, paid_node_hours
from .timeline import Timeline, build_timeline

CURRENCY: Final = "USD"


@dataclass(frozen=True)
class InstanceShape:
    """An instance type the pool can launch, at the price the estimate takes for it."""

    instance: InstanceType
    price_per_hour: float
    per_vcpu: bool  # priced from vcpuHour rather than a configured instance price

    @property
    def name(self) -> str:
        return self.instance.name


@dataclass(frozen=True)
class Fleet:
    shape: InstanceShape
    nodes: int

    @property
    def price_per_hour(self) -> float:
        return self.nodes * self.shape.price_per_hour


RatePeriod = Literal["week", "month"]


@dataclass(frozen=True)
class Rate:
    """What a recurring window's nodes cost as its schedule repeats, whatever range is shown: per ``period``, and per
    week in any case (docs/internals.md, `prescale_cli.cost`, step 5)."""

    period: RatePeriod
    node_hours: float  # per period
    cost: float
    node_hours_per_week: float
    cost_per_week: float


@dataclass(frozen=True)
class WindowCost:
    window: str
    node_pool: str
    strategy: Strategy
    occurrences: int
    fleet: Fleet | None  # None: no candidate fleet holds the placeholders within the pool's limits (no estimate)
    node_hours: float
    cost: float
    all_day_cost: float  # the fleet kept for the whole range (0 if the window does not occur in it)
    rate: Rate | None  # None for a one-off event


@dataclass(frozen=True)
class PoolCost:
    node_pool: str
    cost: float
    recurring_cost_per_week: float  # what the pool's recurring windows cost in a week
    peak_price_per_hour: float
    all_day_cost: float
    existing: bool  # an existing pool: the estimate assumes prescale's instance types and consolidateAfter


@dataclass(frozen=True)
class WindowTail:
    """How long a window's nodes outlive each of its ends, and what that costs per occurrence."""

    window: str
    strategy: Strategy
    usual: timedelta  # its strategy's usual tail (placeholders: KEDA's cooldown + consolidateAfter + drain)
    usual_cost: float
    without_keda: timedelta  # at the latest (placeholders: failsafeGrace + consolidateAfter + drain, no KEDA)
    without_keda_cost: float


@dataclass(frozen=True)
class CostEstimate:
    days: float  # length of the range
    windows: list[WindowCost]
    pools: list[PoolCost]
    tails: list[WindowTail]  # of every estimated window


_WEEK = timedelta(days=7)


def estimate_cost(timeline: Timeline) -> CostEstimate:
    """Node-hours and USD per window and NodePool over the timeline's range, each recurring window's rate, and
    each window's tail after an end, from the plan's placeholders and pools (docs/cli.md#the-cost-estimate)."""
    plan = timeline.plan
    hours = (timeline.until - timeline.since) / timedelta(hours=1)
    fleets = {window.window.name: window_fleet(plan, window) for window in plan.windows}
    paid = _paid(timeline, fleets)
    rates = _rates(plan, fleets)
    occurrences = Counter(entry.window.name for entry in timeline.entries)
    windows = []
    for window in (window_plan.window for window_plan in plan.windows):
        fleet = fleets[window.name]
        nodes, price = (fleet.nodes, fleet.shape.price_per_hour) if fleet else (0, 0.0)
        node_hours = paid.get(window.name, 0.0)
        windows.append(WindowCost(
            window=window.name, node_pool=window.node_pool, strategy=plan.pools[window.node_pool].strategy,
            occurrences=occurrences[window.name], fleet=fleet,
            node_hours=node_hours, cost=node_hours * price,
            all_day_cost=nodes * price * hours if occurrences[window.name] else 0.0, rate=rates.get(window.name)))
    pools = []
    for name, pool in plan.pools.items():
        pool_windows = [cost for cost in windows if cost.node_pool == name]
        peak = _peak_price(timeline, name, fleets)
        pools.append(PoolCost(node_pool=name, cost=sum(cost.cost for cost in pool_windows),
                              recurring_cost_per_week=sum(cost.rate.cost_per_week for cost in pool_windows
                                                          if cost.rate),
                              peak_price_per_hour=peak, all_day_cost=peak * hours, existing=not pool.pool.owned))
    return CostEstimate(days=hours / 24, windows=windows, pools=pools, tails=_tails(plan, windows))


def rate_period(window: EventWindow) -> RatePeriod:
    """``week`` for a recurring schedule that repeats every week (every day of the month, every month: any week of
    it is like the next), ``month`` for one that names days of the month or leaves months out."""
    spec = window.start_cron
    return "week" if len(spec.days_of_month) == 31 and len(spec.months) == 12 else "month"


def _rates(plan: CapacityPlan, fleets: dict[str, Fleet | None]) -> dict[str, Rate]:
    """Each recurring window's rate from its own schedule, from ``now``: a weekly one's coming week, a monthly one's
    coming year (its average month, and week). The same whatever range is shown."""
    now, periods = plan.now, {window.window.name: rate_period(window.window)
                              for window in plan.windows if not window.window.is_one_off}
    year = _a_year_after(now) if "month" in periods.values() else None
    week_paid = _paid(build_timeline(plan, now, now + _WEEK), fleets) if "week" in periods.values() else {}
    year_paid = _paid(build_timeline(plan, now, year), fleets) if year else {}
    rates = {}
    for name, period in periods.items():
        fleet = fleets[name]
        price = fleet.shape.price_per_hour if fleet else 0.0
        if period == "week":
            weekly = week_paid.get(name, 0.0)
            rates[name] = Rate("week", weekly, weekly * price, weekly, weekly * price)
        else:
            assert year is not None
            yearly = year_paid.get(name, 0.0)
            weekly = yearly * (_WEEK / (year - now))
            rates[name] = Rate("month", yearly / 12, yearly / 12 * price, weekly, weekly * price)
    return rates


def _a_year_after(moment: datetime) -> datetime:
    """The same instant a calendar year later (from 29 February: 1 March), so that a monthly schedule fires in it
    as often as in any year."""
    try:
        return moment.replace(year=moment.year + 1)
    except ValueError:
        return moment.replace(year=moment.year + 1, month=3, day=1)


def _paid(timeline: Timeline, fleets: dict[str, Fleet | None]) -> dict[str, float]:
    """Node-hours each window pays within the timeline's range (:func:`prescale_cli.node_hours.paid_node_hours`)."""
    waits = {name: pool.pool.consolidation_wait for name, pool in timeline.plan.pools.items()}
    holds = _holds(timeline, fleets)
    waits |= {hold.node_pool: timedelta(0) for hold in holds if hold.node_pool not in waits}  # static: none
    return paid_node_hours(holds, timeline.frozen, waits, timeline.since, timeline.until)


def window_fleet(plan: CapacityPlan, window: WindowPlan) -> Fleet | None:
    """The cheapest fleet holding the window's planned placeholders, of the types its pool may launch, within its
    limits; on a static pool, its N nodes of the cheapest type the pool allows, which is what Karpenter launches for
    a static NodePool (whose only limit is its N nodes)."""
    pool = plan.pools[window.window.node_pool]
    shapes = window_candidates(window.window, pool.pool, plan.config.pricing)
    if pool.strategy.holds_nodes:
        return cheapest_fleet(window.placeholders, shapes)  # one pod per node: N nodes (the checks: any type fits)
    return cheapest_fleet(window.placeholders, shapes, pool.pool.limits)


def _holds(timeline: Timeline, fleets: dict[str, Fleet | None]) -> list[Hold]:
    """Each estimated occurrence's fleet, from scale-up to the end; a static window's on its own NodePool, where no
    other window takes its nodes over and nothing keeps them past the end."""
    return [Hold(entry.window.name, own if entry.capacity is not None and (own := entry.capacity.node_pool_object)
                 else entry.window.node_pool, fleet.shape.name, fleet.nodes,
                 entry.occurrence.scale_up_utc, entry.occurrence.end_utc)
            for entry in timeline.entries if (fleet := fleets[entry.window.name])]


def _tails(plan: CapacityPlan, windows: list[WindowCost]) -> list[WindowTail]:
    """The tail after each end of every estimated window (docs/cli.md#the-cost-estimate, steps 3 and 7)."""
    tails = []
    for window in windows:
        if window.fleet is None:
            continue
        usual, late = _tail(plan, plan.window(window.window))
        price = window.fleet.price_per_hour
        tails.append(WindowTail(window.window, window.strategy, usual, price * (usual / timedelta(hours=1)),
                                late, price * (late / timedelta(hours=1))))
    return tails


def _tail(plan: CapacityPlan, window: WindowPlan) -> tuple[timedelta, timedelta]:
    """How long a window's nodes stay after its end, usually and when the scale-down is as late as it can be, as
    its strategy says (``Strategy.usual_tail``, ``Strategy.latest_tail``)."""
    pool, strategy = plan.pools[window.window.node_pool].pool, window.strategy
    capacity = window.capacity if isinstance(window, ArmedWindow) else None
    return strategy.usual_tail(pool), strategy.latest_tail(window.window, pool, capacity,
                                                           plan.config.placeholders.grace, plan.now)


def _peak_price(timeline: Timeline, pool: str, fleets: dict[str, Fleet | None]) -> float:
    """The highest hourly price of the pool's fleets whose placeholders are up at the same moment."""
    changes: list[tuple[datetime, float]] = []
    for entry in timeline.entries:
        fleet = fleets.get(entry.window.name)
        if entry.window.node_pool == pool and fleet:
            changes += [(entry.occurrence.scale_up_utc, fleet.price_per_hour),
                        (entry.occurrence.end_utc, -fleet.price_per_hour)]
    peak = level = 0.0
    for _, change in sorted(changes):  # at equal instants a fleet leaving (negative) sorts first
        level += change
        peak = max(peak, level)
    return peak


def window_candidates(window: EventWindow, pool: NodePoolConfig, pricing: PricingConfig) -> list[InstanceShape]:
    """The instance types a window's nodes may be: its ``pool``'s :func:`candidates`, or the type it reserves."""
    reserved = instance_type(window.reserve.instance_type) if window.reserve else None
    return [priced(reserved, pricing)] if reserved else candidates(pool, pricing)


def candidates(pool: NodePoolConfig, pricing: PricingConfig) -> list[InstanceShape]:
    """Instance types the estimate may pick for ``pool``, in the order that breaks ties
    (docs/cli.md#the-cost-estimate, step 1)."""
    types = sorted(pool_launchable(pool).types, key=lambda instance: (
        -int(instance.labels["karpenter.k8s.aws/instance-generation"]), instance.memory_mib, instance.name))
    shapes = [priced(instance, pricing) for instance in types]
    return [shape for shape in shapes if not shape.per_vcpu] or shapes


def priced(instance: InstanceType, pricing: PricingConfig) -> InstanceShape:
    """``instance`` at its price in ``instanceTypes``, or else at ``vcpuHour`` × its vCPUs."""
    if instance.name in pricing.instance_types:
        return InstanceShape(instance, pricing.instance_types[instance.name], per_vcpu=False)
    return InstanceShape(instance, instance.vcpus * pricing.vcpu_hour, per_vcpu=True)


def cheapest_fleet(placeholders: PlaceholderPlan, shapes: list[InstanceShape],
                   limits: Limits | None = None) -> Fleet | None:
    """The cheapest single-type fleet holding every placeholder pod that the pool's ``limits`` let Karpenter launch
    (its nodes' capacity counted, as Karpenter counts it); the earlier candidate wins a tie."""
    best: Fleet | None = None
    for shape in shapes:
        per_node = pods_per_node(placeholders, shape.instance.room)  # room beside DaemonSets
        if per_node:
            fleet = Fleet(shape, math.ceil(placeholders.pods / per_node))
            if (best is None or fleet.price_per_hour < best.price_per_hour) and _within(fleet, limits):
                best = fleet
    return best


def _within(fleet: Fleet, limits: Limits | None) -> bool:
    if limits is None:
        return True
    cpu, memory = fleet.shape.instance.capacity
    counted = {"cpu": cpu, "memory": memory, "nodes": Decimal(1)}
    return all(fleet.nodes * each <= bound for resource, each in counted.items()
               if (bound := limits.amount(resource)) is not None)


