"""``prescale schedule``: the timeline and cost estimate as tables for people and JSON for tools.

Every instant is shown twice: in the window's own zone (what the user wrote in the stack config) and in
UTC (what Karpenter's budgets use, and what to compare across zones). JSON instants are ISO-8601 with
their UTC offset, so a tool never has to guess a zone.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from prescale.model.config import CapacityConfig
from prescale.model.fleet.quantity import format_cpu, format_memory
from prescale.model.schedule.after_end import DRAIN, KEDA_COOLDOWN
from prescale.model.schedule.duration import format_duration
from prescale.model.schedule.keda import Occurrence

from .cost import CURRENCY, CostEstimate, Fleet, window_tails
from .output import Output
from .timeline import Entry, Interval, Timeline


def schedule_document(stack: str, config: CapacityConfig, timeline: Timeline, cost: CostEstimate) -> dict[str, Any]:
    """``--json``: occurrences, overlaps, freezes and the cost estimate of the range (with each window's tail), and
    the plan's warnings (what ``pulumi up`` says)."""
    return {
        "stack": stack, "from": _iso(timeline.since), "until": _iso(timeline.until), "now": _iso(timeline.now),
        "occurrences": [_occurrence(entry) for entry in timeline.entries],
        "overlaps": [{"nodePool": overlap.node_pool, "from": _iso(overlap.start), "until": _iso(overlap.end),
                      "windows": list(overlap.windows), "pods": overlap.pods, "cpu": format_cpu(overlap.cpu),
                      "memory": format_memory(overlap.memory)} for overlap in timeline.overlaps],
        "freezes": [{"nodePool": pool, "schedule": budget.schedule, "duration": budget.duration}
                    for pool, budgets in timeline.freezes.items() for budget in budgets],
        "cost": {**_cost(cost), "tails": [
            {"window": tail.window, "nodesStayAfterEnd": format_duration(tail.usual),
             "costPerEnd": _round(tail.usual_cost), "ifKedaFailsStay": format_duration(tail.without_keda),
             "ifKedaFailsCostPerEnd": _round(tail.without_keda_cost)} for tail in window_tails(config, cost)]},
        "warnings": list(timeline.plan.warnings),
    }


def _occurrence(entry: Entry) -> dict[str, Any]:
    window, occurrence, placeholders = entry.window, entry.occurrence, entry.placeholders
    return {
        "window": window.name, "nodePool": window.node_pool, "timezone": window.timezone, "oneOff": window.is_one_off,
        "scaleUp": occurrence.scale_up.isoformat(), "start": occurrence.start.isoformat(),
        "end": occurrence.end.isoformat(),
        "zoneAbbreviations": {key: f"{moment:%Z}" for key, moment in
                              (("scaleUp", occurrence.scale_up), ("start", occurrence.start), ("end", occurrence.end))},
        "scaleUpUtc": _iso(occurrence.scale_up_utc),
        "startUtc": _iso(occurrence.start_utc), "endUtc": _iso(occurrence.end_utc),
        "nodes": window.nodes,
        "capacity": window.capacity.model_dump() if window.capacity else None,
        "placeholders": {"pods": placeholders.pods, "cpu": placeholders.cpu, "memory": placeholders.memory,
                         "onePerNode": placeholders.one_per_node},
        "frozen": {"from": _iso(entry.freeze[0]), "until": _iso(entry.freeze[1])} if entry.freeze else None,
        "armed": entry.not_armed is None, "notArmedReason": entry.not_armed,
        "protection": "do-not-disrupt" if entry.existing_pool else "budget",
    }


def _cost(cost: CostEstimate) -> dict[str, Any]:
    return {
        "currency": CURRENCY, "days": cost.days,
        "windows": [{"window": window.window, "nodePool": window.node_pool, "occurrences": window.occurrences,
                     **_fleet(window.fleet), "nodeHours": _round(window.node_hours), "cost": _round(window.cost),
                     "nodeHoursPerWeek": _weekly(cost, window.node_hours, window.recurring),
                     "costPerWeek": _weekly(cost, window.cost, window.recurring),
                     "allDayCost": _round(window.all_day_cost)} for window in cost.windows],
        "nodePools": [{"nodePool": pool.node_pool, "cost": _round(pool.cost),
                       "recurringCostPerWeek": _round(cost.per_week(pool.recurring_cost)),
                       "peakPricePerHour": _round(pool.peak_price_per_hour),
                       "allDayCost": _round(pool.all_day_cost)} for pool in cost.pools],
    }


def _weekly(cost: CostEstimate, amount: float, recurring: bool) -> float | None:
    return _round(cost.per_week(amount)) if recurring else None


def _fleet(fleet: Fleet | None) -> dict[str, Any]:
    if fleet is None:
        return {"instanceType": None, "nodesEstimated": None, "pricePerNodeHour": None}
    return {"instanceType": fleet.shape.name, "nodesEstimated": fleet.nodes,
            "pricePerNodeHour": _round(fleet.shape.price_per_hour, 4)}


def show_schedule(stack: str, config: CapacityConfig, timeline: Timeline, cost: CostEstimate, output: Output) -> None:
    output.heading(f"Schedule of stack {stack}: {_utc_day(timeline.since)} to {_utc_day(timeline.until)} "
                   f"({cost.days:g} day{'s' * (cost.days != 1)}, now {_utc_day(timeline.now)})")
    output.line()
    if timeline.entries:
        output.table(["Window", "Pool", "Local: scale-up → start – end", "UTC: scale-up → start – end",
                      "Placeholders", "Frozen (UTC)"],
                     [_entry_row(entry) for entry in timeline.entries], title="Occurrences")
        output.line(_zone_legend(timeline.entries))
        output.line()
    else:
        output.line("No window occurs in this range.")
        output.line()
    for warning in timeline.plan.warnings:
        output.line(f"warning: {warning}")
    if timeline.plan.warnings:
        output.line()
    _show_overlaps(timeline, output)
    freezes = [(pool, budget.schedule, budget.duration) for pool, budgets in timeline.freezes.items()
               for budget in budgets]
    if freezes:
        output.table(["Pool", "Budget schedule (UTC)", "Duration"], freezes,
                     title='Consolidation freezes (Karpenter budgets with nodes: "0")')
    if cost.windows:
        _show_cost(config, cost, output)


def _entry_row(entry: Entry) -> list[str]:
    occurrence = entry.occurrence
    local = local_times(occurrence)
    utc = _span(occurrence.scale_up_utc, occurrence.start_utc, occurrence.end_utc)
    frozen = "not armed yet" if entry.not_armed else \
        "do-not-disrupt pods" if entry.existing_pool else _frozen(entry.freeze, occurrence.scale_up_utc)
    return [entry.window.name, entry.window.node_pool, local, utc, _holds(entry), frozen]


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
    return f"{window.capacity.cpu} CPU/{window.capacity.memory} ({placeholders.pods} pods)"


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


def _show_cost(config: CapacityConfig, cost: CostEstimate, output: Output) -> None:
    rows = []
    for window in cost.windows:
        fleet = window.fleet
        weekly = ((f"{cost.per_week(window.node_hours):.1f}", _money(cost.per_week(window.cost)))
                  if window.recurring else ("once", "once"))
        rows.append([window.window, window.node_pool, str(window.occurrences),
                     f"{fleet.nodes} × {fleet.shape.name}" if fleet else "no estimate",
                     f"{window.node_hours:.1f}", _money(window.cost), *weekly, _money(window.all_day_cost)])
    output.table(["Window", "Pool", "Times", "Nodes (estimate)", "Node-hours", "Cost", "Node-h/week", "Cost/week",
                  "All day"], rows, title=f"Cost estimate over the range ({CURRENCY}, on-demand)")
    for pool in cost.pools:
        saved = f", {1 - pool.cost / pool.all_day_cost:.0%} less" if pool.all_day_cost else ""
        output.line(f"Pool {pool.node_pool}: {_money(pool.cost)} pre-scaled vs {_money(pool.all_day_cost)} keeping "
                    f"its busiest moment's nodes all day{saved}; recurring windows "
                    f"{_money(cost.per_week(pool.recurring_cost))}/week.")
    pricing = config.pricing
    priced = ", ".join(f"{name} ${price}/h" for name, price in pricing.instance_types.items())
    output.line(f"Prices: {priced or f'${pricing.vcpu_hour} per vCPU-hour'} (prescale:pricing). Each node counts "
                "once, from scale-up until its window or the freeze holding it ends, plus consolidateAfter; a later "
                "window on the pool pays for the nodes it takes over. `prescale schedule --help` explains the "
                "estimate.")
    _show_tails(config, cost, output)


def _show_tails(config: CapacityConfig, cost: CostEstimate, output: Output) -> None:
    tails = window_tails(config, cost)
    if not tails:
        return
    output.line()
    output.table(["Window", "Nodes stay after the end", "Cost per end", "If KEDA fails: stay", "Cost per end"],
                 [(tail.window, format_duration(tail.usual), _money(tail.usual_cost),
                   format_duration(tail.without_keda), _money(tail.without_keda_cost)) for tail in tails],
                 title="Tail after each window (the cost above counts only consolidateAfter of it)")
    output.line(f"Nodes stay after each end for KEDA's cooldown ({format_duration(KEDA_COOLDOWN)}), then the "
                f"pool's consolidateAfter, then about {format_duration(DRAIN)} to drain and terminate them (empty "
                "nodes go all at once; a drain may take up to the pool's terminationGracePeriod). If KEDA never "
                "scales the placeholders down, the failsafe does at the end + failsafeGrace "
                f"({config.placeholders.failsafe_grace}) instead of the cooldown.")


def _money(amount: float) -> str:
    return f"${amount:,.2f}"


def _round(value: float, digits: int = 2) -> float:
    return round(value, digits)


def _iso(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat()


def _utc_day(moment: datetime) -> str:
    return f"{moment.astimezone(UTC):%Y-%m-%d %H:%M} UTC"
