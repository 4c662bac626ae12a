"""``prescale schedule``: the timeline and cost estimate as tables for people and JSON for tools.

Every instant is shown twice: in the window's own zone (what the user wrote in the stack config) and in
UTC (what Karpenter's budgets use, and what to compare across zones). The JSON is
:class:`prescale_cli.documents.ScheduleDocument`: a window's own instants with its zone's offset, the others in UTC,
so a tool never has to guess a zone.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from prescale.model.config import CapacityConfig
from prescale.model.fleet.reservations import next_up
from prescale.model.plan import CapacityPlan
from prescale.model.schedule.keda import Occurrence
from prescale.model.strategies import DEFAULT, STRATEGIES, Strategy
from prescale.model.values.duration import format_duration
from prescale.model.values.quantity import format_cpu, format_memory

from . import documents
from .cost import CURRENCY, CostEstimate, PoolCost, Rate, WindowCost
from .output import Output
from .reservation_report import ReservationCost, reservation_costs
from .timeline import DriverFire, Entry, Interval, Timeline


def schedule_document(stack: str, timeline: Timeline, cost: CostEstimate) -> documents.ScheduleDocument:
    """``--json``: occurrences, overlaps, freezes and the cost estimate of the range (with each window's tail), the
    capacity reservations, and the plan's warnings (what ``pulumi up`` says)."""
    plan = timeline.plan
    return documents.ScheduleDocument(
        stack=stack, since=timeline.since, until=timeline.until, now=timeline.now,
        occurrences=[_occurrence(entry) for entry in timeline.entries],
        overlaps=[documents.Overlap(node_pool=overlap.node_pool, since=overlap.start, until=overlap.end,
                                    windows=list(overlap.windows), pods=overlap.pods, cpu=format_cpu(overlap.cpu),
                                    memory=format_memory(overlap.memory)) for overlap in timeline.overlaps],
        freezes=[documents.PoolFreeze(node_pool=budget.node_pool, node_pool_object=budget.node_pool_object,
                                      schedule=budget.freeze.schedule, duration=budget.freeze.duration)
                 for budget in timeline.freezes],
        cost=_cost(cost, reservation_bills(plan, cost)),
        reservations=[_reservation(reserved) for reserved in reservation_costs(plan)],
        next_up_for_reservations=next_up(plan.reservations),
        warnings=list(plan.warnings))


def _occurrence(entry: Entry) -> documents.Occurrence:
    window, occurrence, placeholders = entry.window, entry.occurrence, entry.placeholders
    return documents.Occurrence(
        window=window.name, node_pool=window.node_pool, strategy=entry.strategy.name, timezone=window.timezone,
        one_off=window.is_one_off,
        scale_up=occurrence.scale_up, start=occurrence.start, end=occurrence.end,
        zone_abbreviations=documents.ZoneAbbreviations(scale_up=f"{occurrence.scale_up:%Z}",
                                                       start=f"{occurrence.start:%Z}", end=f"{occurrence.end:%Z}"),
        scale_up_utc=occurrence.scale_up_utc, start_utc=occurrence.start_utc, end_utc=occurrence.end_utc,
        nodes=window.nodes, capacity=documents.Capacity(cpu=window.capacity.cpu, memory=window.capacity.memory)
        if window.capacity else None,
        placeholders=documents.PlaceholderSizes(pods=placeholders.pods, cpu=placeholders.cpu,
                                                memory=placeholders.memory, one_per_node=placeholders.one_per_node),
        frozen=documents.Span(since=entry.freeze[0], until=entry.freeze[1]) if entry.freeze else None,
        armed=entry.not_armed is None, not_armed_reason=entry.not_armed,
        protection="do-not-disrupt" if entry.existing_pool else "budget", driver=_driver(entry))


def _driver(entry: Entry) -> documents.Driver | None:
    driven = entry.capacity.driven if entry.capacity is not None else None
    if driven is None or entry.driver is None:
        return None
    kind, name = driven
    up, down, failsafe = entry.driver
    return documents.Driver(kind=kind, name=name, scale_up=_run(up), scale_down=_run(down),
                            failsafe=_run(failsafe))


def _run(fire: DriverFire) -> documents.DriverRun:
    run = fire.run
    return documents.DriverRun(cron_job=run.name, schedule=run.schedule, replicas=run.replicas, at=fire.at,
                               at_utc=fire.at_utc, starting_deadline_seconds=run.starting_deadline_seconds,
                               active_deadline_seconds=run.active_deadline_seconds)


def _cost(cost: CostEstimate, bills: dict[str, ReservationBill]) -> documents.Cost:
    return documents.Cost(
        currency=CURRENCY, days=cost.days,
        windows=[documents.WindowCost(
            window=window.window, node_pool=window.node_pool, strategy=window.strategy.name,
            occurrences=window.occurrences,
            instance_type=window.fleet.shape.name if window.fleet else None,
            nodes_estimated=window.fleet.nodes if window.fleet else None,
            price_per_node_hour=_round(window.fleet.shape.price_per_hour, 4) if window.fleet else None,
            node_hours=_round(window.node_hours), cost=_round(window.cost),
            node_hours_per_week=_round(window.rate.node_hours_per_week) if window.rate else None,
            cost_per_week=_round(window.rate.cost_per_week) if window.rate else None,
            all_day_cost=_round(window.all_day_cost),
            rate_per=window.rate.period if window.rate else None,
            node_hours_per_month=_round(monthly.node_hours) if (monthly := _monthly(window)) else None,
            cost_per_month=_round(monthly.cost) if monthly else None)
            for window in cost.windows],
        node_pools=[documents.PoolCost(
            node_pool=pool.node_pool, cost=_round(pool.cost),
            recurring_cost_per_week=_round(pool.recurring_cost_per_week),
            peak_price_per_hour=_round(pool.peak_price_per_hour), all_day_cost=_round(pool.all_day_cost),
            reservation_cost=_round(bills[pool.node_pool].billed if pool.node_pool in bills else 0.0),
            total_cost=_round(_total(pool, bills)), existing=pool.existing)
            for pool in cost.pools],
        tails=[documents.Tail(
            window=tail.window, strategy=tail.strategy.name, nodes_stay_after_end=format_duration(tail.usual),
            cost_per_end=_round(tail.usual_cost),
            if_keda_fails_stay=format_duration(tail.without_keda),
            if_keda_fails_cost_per_end=_round(tail.without_keda_cost)) for tail in cost.tails])


def _monthly(window: WindowCost) -> Rate | None:
    return window.rate if window.rate is not None and window.rate.period == "month" else None


@dataclass
class ReservationBill:
    """What a pool's capacity reservations bill, and the part of its estimate they pay for: EC2 bills no instance
    in a reservation on top of it, so the reserved nodes' hours the estimate counts for a window are in the bill."""

    billed: float = 0.0
    covered: float = 0.0


def reservation_bills(plan: CapacityPlan, cost: CostEstimate) -> dict[str, ReservationBill]:
    """Per pool, the bill of the reservations (:func:`reservation_costs`, whole) of its windows that occur in the
    range."""
    windows = {window.window: window for window in cost.windows}
    bills: dict[str, ReservationBill] = defaultdict(ReservationBill)
    for reserved in reservation_costs(plan):
        window = windows[reserved.plan.window.name]
        if window.occurrences:
            bill, fleet = bills[window.node_pool], window.fleet
            bill.billed += reserved.cost
            bill.covered += window.cost * min(reserved.plan.count, fleet.nodes) / fleet.nodes if fleet else 0.0
    return dict(bills)


def _total(pool: PoolCost, bills: dict[str, ReservationBill]) -> float:
    """The pool's headline: its nodes' cost with what its reservations bill instead of their reserved nodes."""
    bill = bills.get(pool.node_pool, ReservationBill())
    return pool.cost + bill.billed - bill.covered


def _reservation(reserved: ReservationCost) -> documents.Reservation:
    plan = reserved.plan
    return documents.Reservation(
        window=plan.window.name, instance_type=plan.instance_type,
        zones={share.zone: share.count for share in plan.zones}, hold_from=plan.hold_from,
        end_date=plan.end, drift_held_until=plan.released, held=plan.held, state=reserved.state,
        billed_from=reserved.billed_from, hours=_round(reserved.hours),
        price_per_hour=_round(reserved.price_per_hour, 4), cost=_round(reserved.cost))


def show_schedule(stack: str, timeline: Timeline, cost: CostEstimate, output: Output) -> None:
    output.heading(f"Schedule of stack {stack}: {_utc_day(timeline.since)} to {_utc_day(timeline.until)} "
                   f"({cost.days:g} day{'s' * (cost.days != 1)}, now {_utc_day(timeline.now)})")
    output.line()
    if timeline.entries:
        strategies = _shows_strategies(timeline)
        output.table(["Window", "Pool", *(["Strategy"] if strategies else []), "Local: scale-up → start – end",
                      "UTC: scale-up → start – end", "Holds" if strategies else "Placeholders", "Frozen (UTC)"],
                     [_entry_row(entry, strategies) for entry in timeline.entries], title="Occurrences")
        output.line(_zone_legend(timeline.entries))
        output.line()
        _show_drivers(timeline, output)
    else:
        output.line("No window occurs in this range.")
        output.line()
    for warning in timeline.plan.warnings:
        output.line(f"warning: {warning}")
    if timeline.plan.warnings:
        output.line()
    _show_overlaps(timeline, output)
    if timeline.freezes:
        output.table(["Pool", "NodePool", "Budget schedule (UTC)", "Duration"],
                     [(budget.node_pool, budget.node_pool_object, budget.freeze.schedule, budget.freeze.duration)
                      for budget in timeline.freezes],
                     title='Consolidation freezes (Karpenter budgets with nodes: "0")')
    if cost.windows:
        _show_cost(timeline, cost, output)


def _shows_strategies(timeline: Timeline) -> bool:
    """Whether a pool of the stack has a strategy other than the default: only then is each window's a column."""
    return any(pool.strategy is not DEFAULT for pool in timeline.plan.pools.values())


def _entry_row(entry: Entry, strategies: bool) -> list[str]:
    occurrence = entry.occurrence
    local = local_times(occurrence)
    utc = _span(occurrence.scale_up_utc, occurrence.start_utc, occurrence.end_utc)
    frozen = "not armed yet" if entry.not_armed else \
        "do-not-disrupt pods" if entry.existing_pool else _frozen(entry.freeze, occurrence.scale_up_utc)
    return [entry.window.name, entry.window.node_pool, *([entry.strategy.name] if strategies else []), local, utc,
            _holds(entry), frozen]


def _show_drivers(timeline: Timeline, output: Output) -> None:
    """When each driven window's CronJobs fire in the range, in its zone and in UTC, and how late each
    run may act (within its half of the window, so the two never race: docs/internals.md)."""
    driven = [entry for entry in timeline.entries if entry.driver]
    if not driven:
        return
    output.table(["Window", "Sets", "Count", "Local: scale-up run → scale-down run", "UTC: scale-up → scale-down",
                  "Failsafe (UTC)"],
                 [_driver_row(entry) for entry in driven],
                 title="Driver runs (CronJobs in namespace prescale that set the count: 0 at the end, or for a "
                       "CapacityBuffer at the event's start, and 0 again at that + failsafeGrace)")
    runs = {entry.window.name: entry.driver for entry in driven}
    output.table(["Window", "CronJob", "Cron (window's zone)", "Sets", "Starts up to", "Then retries for"],
                 [[window, fire.run.name, fire.run.schedule, str(fire.run.replicas),
                   f"{format_duration(timedelta(seconds=fire.run.starting_deadline_seconds))} late",
                   format_duration(timedelta(seconds=fire.run.active_deadline_seconds))]
                  for window, fires in runs.items() if fires for fire in fires],
                 title="Driver CronJobs (each run stays inside its half of the window; a missed one runs late "
                       "within it)")


def _driver_row(entry: Entry) -> list[str]:
    assert entry.capacity is not None and entry.capacity.driven is not None and entry.driver is not None
    kind, name = entry.capacity.driven
    up, down, failsafe = entry.driver
    zones = dict.fromkeys(f"{fire.at:%Z}" for fire in (up, down))
    local = (f"{up.at:%a %Y-%m-%d %H:%M} → {_clock(down.at, up.at)} {zones.popitem()[0]}" if len(zones) == 1 else
             f"{up.at:%a %Y-%m-%d %H:%M %Z} → {_clock(down.at, up.at)} {down.at:%Z}")
    return [entry.window.name, f"{kind} {name}", f"{up.run.replicas} → {down.run.replicas}", local,
            f"{up.at_utc:%a %Y-%m-%d %H:%M} → {_clock(down.at_utc, up.at_utc)}",
            f"{_clock(failsafe.at_utc, up.at_utc)} (0 again)"]


def local_times(occurrence: Occurrence) -> str:
    """``Tue 2026-12-01 07:45 → 08:00 – 11:00 KST``, in the window's zone, each time with its abbreviation."""
    return zoned_times(occurrence, _clocks(occurrence.scale_up, occurrence.start, occurrence.end))


def zoned_times(occurrence: Occurrence, clocks: tuple[str, str, str]) -> str:
    """``scale-up → start – end`` from the three local ``clocks``, with the zone's abbreviation once if all three
    share it, else after each (a window across a DST change: ``00:50 CET → 01:00 CET – 04:00 CEST``)."""
    zones = [f"{moment:%Z}" for moment in (occurrence.scale_up, occurrence.start, occurrence.end)]
    if len(set(zones)) == 1:
        return f"{clocks[0]} → {clocks[1]} – {clocks[2]} {zones[0]}"
    return f"{clocks[0]} {zones[0]} → {clocks[1]} {zones[1]} – {clocks[2]} {zones[2]}"


def _zone_legend(entries: list[Entry]) -> str:
    """Which zone each abbreviation in the Local column stands for: people copy ``KST`` into a stack file,
    which needs the IANA name (``Asia/Seoul``); the abbreviation alone is refused, and may be ambiguous."""
    zones: dict[str, tuple[dict[str, None], dict[str, None]]] = {}  # zone → (abbreviations, windows), ordered
    for entry in entries:
        abbreviations, windows = zones.setdefault(entry.window.timezone, ({}, {}))
        abbreviations.update(dict.fromkeys(f"{moment:%Z}" for moment in
                                           (entry.occurrence.scale_up, entry.occurrence.start, entry.occurrence.end)))
        windows[entry.window.name] = None
    return "Local times: " + "; ".join(f"{'/'.join(abbreviations)} = {zone} ({', '.join(windows)})"
                                       for zone, (abbreviations, windows) in zones.items())


def _holds(entry: Entry) -> str:
    window, placeholders = entry.window, entry.placeholders
    if window.nodes is not None:
        return f"{window.nodes} node{'s' * (window.nodes != 1)} ({placeholders.cpu} CPU/{placeholders.memory} free)"
    assert window.capacity is not None  # the config model guarantees nodes or capacity
    return f"{window.capacity.cpu} CPU/{window.capacity.memory} ({placeholders.pods} {entry.strategy.counted})"


def _frozen(freeze: Interval | None, reference: datetime) -> str:
    return "NOT FROZEN" if freeze is None else f"{_clock(freeze[0], reference)} – {_clock(freeze[1], reference)}"


def _span(scale_up: datetime, start: datetime, end: datetime) -> str:
    return "{} → {} – {}".format(*_clocks(scale_up, start, end))


def _clocks(scale_up: datetime, start: datetime, end: datetime) -> tuple[str, str, str]:
    return f"{scale_up:%a %Y-%m-%d %H:%M}", _clock(start, scale_up), _clock(end, scale_up)


def _clock(moment: datetime, reference: datetime) -> str:
    """``HH:MM``, with the date when it is not ``reference``'s (a window across midnight)."""
    return f"{moment:%H:%M}" if moment.date() == reference.date() else f"{moment:%a %m-%d %H:%M}"


def _show_overlaps(timeline: Timeline, output: Output) -> None:
    if not timeline.overlaps:
        output.line("No windows overlap on a node pool in this range.")
        output.line()
        return
    output.table(["Pool", "UTC from → until", "Windows", "Placeholders together"],
                 [(overlap.node_pool, _span_utc(overlap.start, overlap.end), ", ".join(overlap.windows),
                   f"{overlap.pods} pods, {format_cpu(overlap.cpu)} CPU, {format_memory(overlap.memory)}")
                  for overlap in timeline.overlaps],
                 title="Overlaps (windows on a pool add up; validation refuses sums above its limits)")


def _span_utc(start: datetime, end: datetime) -> str:
    return f"{start:%a %Y-%m-%d %H:%M} → {_clock(end, start)}"


def _show_cost(timeline: Timeline, cost: CostEstimate, output: Output) -> None:
    rows = []
    for window in cost.windows:
        fleet = window.fleet
        rows.append([window.window, window.node_pool, str(window.occurrences),
                     f"{fleet.nodes} × {fleet.shape.name}" if fleet else "no estimate",
                     f"{window.node_hours:.1f}", _money(window.cost), _rate(window), _money(window.all_day_cost)])
    output.table(["Window", "Pool", "Times", "Nodes (estimate)", "Node-hours", "Cost", "Rate", "All day"], rows,
                 title=f"Cost estimate over the range ({CURRENCY}, on-demand)")
    bills = reservation_bills(timeline.plan, cost)
    for pool in cost.pools:
        total = _total(pool, bills)
        saved = f", {1 - total / pool.all_day_cost:.0%} less" if pool.all_day_cost else ""
        reserved = (f", with {_money(bills[pool.node_pool].billed)} of capacity reservations billed whole in place of "
                    "their nodes' hours" if pool.node_pool in bills else "")
        existing = (" It is an existing pool: its instance types and consolidateAfter are its owner's, and the "
                    "estimate assumes prescale's defaults." if pool.existing else "")
        output.line(f"Pool {pool.node_pool}: {_money(total)} pre-scaled{reserved} vs {_money(pool.all_day_cost)} "
                    f"keeping its busiest moment's nodes all day{saved}; recurring windows "
                    f"{_money(pool.recurring_cost_per_week)}/week.{existing}")
    pricing = timeline.plan.config.pricing
    priced = ", ".join(f"{name} ${price}/h" for name, price in pricing.instance_types.items())
    output.line(f"Prices: {priced or f'${pricing.vcpu_hour} per vCPU-hour'} (prescale:pricing). Each node counts "
                "once, from scale-up until its window or the freeze holding it ends, plus consolidateAfter; a later "
                "window on the pool pays for the nodes it takes over. A rate is a week of the window's schedule from "
                "now, or the coming year's average month for one that repeats by the month, whatever the range. "
                "`prescale schedule --help` explains the estimate.")
    for strategy in _in_registry_order(window.strategy for window in cost.windows):
        if strategy.cost_basis:
            output.line(strategy.cost_basis)
    _show_tails(timeline.plan.config, cost, output)


def _rate(window: WindowCost) -> str:
    """``$1.58/week``, ``$0.40/month``, or ``once`` for a one-off."""
    return f"{_money(window.rate.cost)}/{window.rate.period}" if window.rate else "once"


def _show_tails(config: CapacityConfig, cost: CostEstimate, output: Output) -> None:
    tails = cost.tails
    if not tails:
        return
    output.line()
    output.table(["Window", "Nodes stay after the end", "Cost per end", "If the scale-down is late: stay",
                  "Cost per end"],
                 [(tail.window, format_duration(tail.usual), _money(tail.usual_cost),
                   format_duration(tail.without_keda), _money(tail.without_keda_cost)) for tail in tails],
                 title="Tail after each window (the cost above counts only consolidateAfter of it)")
    for strategy in _in_registry_order(tail.strategy for tail in tails):
        output.line(strategy.tail_basis(config.placeholders.failsafe_grace))


def _in_registry_order(used: Iterable[Strategy]) -> list[Strategy]:
    """The strategies ``used``, once each, in the registry's order (placeholders, static, buffer)."""
    names = {strategy.name for strategy in used}
    return [strategy for name, strategy in STRATEGIES.items() if name in names]


def _money(amount: float) -> str:
    return f"${amount:,.2f}"


def _round(value: float, digits: int = 2) -> float:
    return round(value, digits)


def _utc_day(moment: datetime) -> str:
    return f"{moment.astimezone(UTC):%Y-%m-%d %H:%M} UTC"
