"""The cost estimate tells the truth: a recurring window's rate comes from its own schedule whatever range is shown
(per month for a monthly one), no fleet is priced that the pool's limits forbid, a pool's headline includes what its
reservations bill, and an existing pool's estimate says what it assumes. Figures checked by hand."""

from __future__ import annotations

import io
from datetime import UTC, datetime, timedelta

import pytest
from prescale.model.plan import plan_capacity

from prescale_cli.cost import CostEstimate, estimate_cost
from prescale_cli.output import Output
from prescale_cli.schedule_report import schedule_document, show_schedule
from prescale_cli.timeline import Timeline, build_timeline
from tests.support.capacity import pool, stack_config, window

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)  # a Monday
RESERVED_POOL = pool(capacityTypes=["on-demand", "reserved"])


def estimate(config, since: datetime, days: float, now: datetime = NOW) -> tuple[Timeline, CostEstimate]:
    timeline = build_timeline(plan_capacity(config, now), since, since + timedelta(days=days))
    return timeline, estimate_cost(timeline)


def text(timeline: Timeline, cost: CostEstimate) -> str:
    stream = io.StringIO()
    show_schedule("test", timeline, cost, Output(stream))
    return stream.getvalue()


OFFICE = window("office", "0 9 * * 1-5", "0 17 * * 1-5", timezone="UTC", nodes=2)


@pytest.mark.parametrize("since, days", [(datetime(2026, 12, 5, tzinfo=UTC), 2),  # a weekend: no occurrence
                                         (datetime(2026, 12, 1, tzinfo=UTC), 1), (NOW, 30)],
                         ids=["weekend", "one-weekday", "thirty-days"])
def test_a_weekday_windows_rate_is_its_week_whatever_the_range(since, days):
    """Each weekday 2 nodes from the 08:50 scale-up to the freeze's end at 17:00, plus consolidateAfter (2m): 8h12m,
    16.4 node-hours; five a week, on c8a.large at 2 × $0.05 per hour: 82 node-hours, $8.20."""
    timeline, cost = estimate(stack_config([pool()], [OFFICE]), since, days)
    (office,) = cost.windows
    assert office.rate is not None and office.rate.period == "week"
    assert (round(office.rate.node_hours_per_week, 2), round(office.rate.cost_per_week, 2)) == (82.0, 8.2)
    assert round(cost.pools[0].recurring_cost_per_week, 2) == 8.2
    assert "$8.20/week" in text(timeline, cost)


def test_a_monthly_window_is_rated_per_month_and_its_average_week():
    """On the 1st, 3h10m from scale-up to end plus 2m, 2 nodes: 6.4 node-hours a month, each of the coming year's
    twelve; its average week is 6.4 × 12 × 7/365. Scaling a 7-day range with the 1st in it would say 6.4 a week."""
    monthly = window("monthly", "0 9 1 * *", "0 12 1 * *", timezone="UTC", nodes=2)
    timeline, cost = estimate(stack_config([pool()], [monthly]), datetime(2026, 12, 1, tzinfo=UTC), 7)
    (window_cost,) = cost.windows
    rate = window_cost.rate
    assert rate is not None and rate.period == "month"
    assert round(window_cost.node_hours, 2) == round(rate.node_hours, 2) == 6.4  # one occurrence in the range
    assert round(rate.node_hours_per_week, 4) == round(6.4 * 12 * 7 / 365, 4)
    assert "$0.64/month" in text(timeline, cost)
    (document,) = schedule_document("test", timeline, cost).cost.windows
    assert (document.rate_per, document.cost_per_month, document.cost_per_week) == ("month", 0.64, 0.15)


def test_the_estimate_never_prices_a_fleet_the_limits_forbid():
    """r7i.large is priced cheapest, but 10 of them have 10 × 15155Mi of memory, above the pool's 100Gi: Karpenter
    would leave them out (its limits count capacity), so the estimate takes the cheapest fleet within them."""
    pricing = {"instanceTypes": {"r7i.large": 0.05, "c7i.large": 0.08925}}
    within = pool(limits={"cpu": "1000", "memory": "160Gi"})
    config = stack_config([within], [window("sale", "0 9 * * *", "0 12 * * *", timezone="UTC", nodes=10)],
                          pricing=pricing)
    assert estimate(config, NOW, 1)[1].windows[0].fleet.shape.name == "r7i.large"
    config = stack_config([{**within, "limits": {"cpu": "1000", "memory": "100Gi"}}],
                          [window("sale", "0 9 * * *", "0 12 * * *", timezone="UTC", nodes=10)], pricing=pricing)
    assert estimate(config, NOW, 1)[1].windows[0].fleet.shape.name == "c7i.large"


def test_a_pools_headline_includes_what_its_reservations_bill():
    """5 reserved m7i.xlarge hold the window's 5 nodes: the reservation's bill replaces their node-hours."""
    at = datetime(2027, 3, 1, 12, 0, tzinfo=UTC)  # the reservation is held (holdFrom 24h before the scale-up)
    reserving = window("launch", "2027-03-02T09:00", "2027-03-02T12:00", nodes=5, reserve={
        "instanceType": "m7i.xlarge", "availabilityZones": ["ap-northeast-2a", "ap-northeast-2c"]})
    timeline, cost = estimate(stack_config([RESERVED_POOL], [reserving], at), at, 3, now=at)
    document = schedule_document("test", timeline, cost)
    (reservation,), (pool_cost,) = document.reservations, document.cost.node_pools
    assert pool_cost.cost == document.cost.windows[0].cost > 0
    assert pool_cost.reservation_cost == reservation.cost > pool_cost.cost
    assert pool_cost.total_cost == reservation.cost  # every node of the window is a reserved one
    assert (f"Pool event: ${reservation.cost:,.2f} pre-scaled, with ${reservation.cost:,.2f} of capacity reservations "
            "billed whole in place of their nodes' hours vs") in text(timeline, cost)


def test_an_existing_pools_estimate_says_it_assumes_prescales_defaults():
    existing = {"name": "event", "existing": True, "limits": {"cpu": "100"}}
    timeline, cost = estimate(stack_config([existing], [OFFICE]), NOW, 1)
    assert cost.pools[0].existing and schedule_document("test", timeline, cost).cost.node_pools[0].existing
    assert ("It is an existing pool: its instance types and consolidateAfter are its owner's, and the estimate "
            "assumes prescale's defaults.") in text(timeline, cost)


ZONE_A = {"key": "topology.kubernetes.io/zone", "operator": "In", "values": ["ap-northeast-2a"]}


def test_a_static_windows_fleet_is_its_nodes_of_the_cheapest_type_whatever_the_pools_other_limits():
    """Karpenter launches a static NodePool's N nodes of the cheapest type its requirements allow, and that NodePool
    carries limits.nodes only: a memory limit the pool's own NodePool would have does not make the estimate price
    a dearer type (2 r7i.large have 32Gi of memory, above 20Gi)."""
    types = {"key": "node.kubernetes.io/instance-type", "operator": "In", "values": ["r7i.large", "c7i.xlarge"]}
    static = pool(strategy="static", limits={"nodes": 10, "memory": "20Gi"}, requirements=[types, ZONE_A])
    config = stack_config([static], [window("sale", "0 9 * * *", "0 12 * * *", timezone="UTC", nodes=2)],
                          pricing={"instanceTypes": {"r7i.large": 0.05, "c7i.xlarge": 0.1785}})
    fleet = estimate(config, NOW, 1)[1].windows[0].fleet
    assert fleet is not None and (fleet.shape.name, fleet.nodes) == ("r7i.large", 2)


def test_a_fleet_exactly_at_the_pools_limit_is_priced():
    """Karpenter launches up to its limits, the limit included."""
    at_limit = pool(limits={"nodes": 3})
    config = stack_config([at_limit], [window("sale", "0 9 * * *", "0 12 * * *", timezone="UTC", nodes=3)])
    fleet = estimate(config, NOW, 1)[1].windows[0].fleet
    assert fleet is not None and fleet.nodes == 3
