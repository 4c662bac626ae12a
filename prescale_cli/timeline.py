"""When each window's capacity is up in a date range, where windows overlap, and when consolidation is frozen.

All time maths is :mod:`prescale.model.schedule`'s and every deployment decision the
:class:`~prescale.model.plan.CapacityPlan`'s (what the program deploys at ``now``, the same object the components
render); this module only asks them about a range and lines the answers up
(docs/internals.md#prescale_clitimeline).
"""

from __future__ import annotations

from bisect import bisect_right
from collections import defaultdict
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal
from zoneinfo import ZoneInfo

from prescale.model.config import EventWindow
from prescale.model.fleet.quantity import parse_quantity
from prescale.model.fleet.sizing import PlaceholderPlan
from prescale.model.plan import CapacityPlan
from prescale.model.schedule.cron import epoch_seconds, fire_timestamps, parse_cron
from prescale.model.schedule.duration import parse_duration
from prescale.model.schedule.freezes import Freeze, unite
from prescale.model.schedule.keda import Occurrence, recurring_occurrences
from prescale.model.schedule.overlaps import coinciding
from prescale.model.windows import IdleWindow, WindowPlan

_UTC_ZONE = ZoneInfo("UTC")  # Karpenter evaluates budget schedules in UTC

Interval = tuple[datetime, datetime]  # [from, until) in UTC


@dataclass(frozen=True)
class Entry:
    """One occurrence of one window, with what it holds and the freeze that protects it."""

    window: EventWindow
    occurrence: Occurrence
    placeholders: PlaceholderPlan
    freeze: Interval | None
    not_armed: str | None = None  # why the program deploys nothing for it yet (a one-off far ahead)
    # On a NodePool prescale does not own: no freeze, its placeholders carry `karpenter.sh/do-not-disrupt`.
    existing_pool: bool = False


@dataclass(frozen=True)
class Overlap:
    """A stretch where several windows hold placeholders on one NodePool at once."""

    node_pool: str
    start: datetime  # UTC
    end: datetime
    windows: tuple[str, ...]
    pods: int
    cpu: Decimal  # cores requested together
    memory: Decimal  # bytes requested together


@dataclass(frozen=True)
class Timeline:
    since: datetime
    until: datetime
    now: datetime
    entries: list[Entry]  # by scale-up instant
    overlaps: list[Overlap]
    freezes: dict[str, list[Freeze]]  # NodePool name → its fitted `nodes: "0"` budgets
    frozen: dict[str, list[Interval]]  # NodePool name → when those budgets are active around the range (united)
    plan: CapacityPlan  # what the program deploys for each window and pool at `now`


def build_timeline(plan: CapacityPlan, since: datetime, until: datetime) -> Timeline:
    """Everything ``prescale schedule`` shows for ``[since, until)``, as the program deploys it at ``plan.now``."""
    now = plan.now
    freezes = {name: pool.freezes for name, pool in plan.pools.items() if pool.freezes}
    frozen = {pool: _frozen_intervals(budgets, since, until) for pool, budgets in freezes.items()}
    entries = []
    for window_plan in plan.windows:
        window = window_plan.window
        placeholders = window_plan.placeholders
        for occurrence in window_occurrences(window_plan, since, until, now):
            existing_pool = not plan.pools[window.node_pool].pool.owned
            if isinstance(window_plan, IdleWindow):
                entries.append(Entry(window, occurrence, placeholders, None, not_armed=window_plan.reason,
                                     existing_pool=existing_pool))
            else:
                entries.append(Entry(window, occurrence, placeholders,
                                     _covering(frozen.get(window.node_pool, []), occurrence),
                                     existing_pool=existing_pool))
    entries.sort(key=lambda entry: (entry.occurrence.scale_up_utc, entry.window.name))
    return Timeline(since, until, now, entries, overlaps(entries), freezes, frozen, plan)


def window_occurrences(plan: WindowPlan, since: datetime, until: datetime, now: datetime) -> list[Occurrence]:
    """The window's occurrences whose ``[scale_up, end)`` meets ``[since, until)``; a finished one-off has none."""
    window, occurrence = plan.window, plan.occurrence
    if occurrence is None:
        return recurring_occurrences(window.start, window.end, window.timezone, window.lead, since, until)
    if occurrence.end_utc <= max(since, now) or occurrence.scale_up_utc >= until:
        return []
    return [occurrence]


def _frozen_intervals(budgets: list[Freeze], since: datetime, until: datetime) -> list[Interval]:
    """When any of the budgets is active around ``[since, until)``, as united UTC intervals."""
    intervals = []
    for budget in budgets:
        length = parse_duration(budget.duration)
        spec = parse_cron(budget.schedule, allow_descriptors=True)
        # A budget that fired up to `length` before `since` is still active at `since`.
        for fire in fire_timestamps(spec, _UTC_ZONE, epoch_seconds(since - length), epoch_seconds(until)):
            start = datetime.fromtimestamp(fire, UTC)
            intervals.append((start, start + length))
    return unite(intervals)


def _covering(frozen: list[Interval], occurrence: Occurrence) -> Interval | None:
    """The united interval holding the whole occurrence: the last one starting by its scale-up, if it lasts."""
    index = bisect_right(frozen, occurrence.scale_up_utc, key=lambda interval: interval[0]) - 1
    return frozen[index] if index >= 0 and occurrence.end_utc <= frozen[index][1] else None


def overlaps(entries: list[Entry]) -> list[Overlap]:
    """Maximal stretches where two or more windows' placeholders are up on the same NodePool (one sweep)."""
    by_pool: dict[str, list[Entry]] = defaultdict(list)
    for entry in entries:
        by_pool[entry.window.node_pool].append(entry)
    return [_overlap(pool, start, end, active) for pool, pool_entries in sorted(by_pool.items())
            for start, end, active in coinciding((entry.occurrence.scale_up_utc, entry.occurrence.end_utc, entry)
                                                 for entry in pool_entries)]


def _overlap(pool: str, start: datetime, end: datetime, active: tuple[Entry, ...]) -> Overlap:
    plans = [entry.placeholders for entry in active]
    return Overlap(pool, start, end, tuple(entry.window.name for entry in active),
                   pods=sum(plan.pods for plan in plans),
                   cpu=sum((plan.pods * parse_quantity(plan.cpu) for plan in plans), Decimal(0)),
                   memory=sum((plan.pods * parse_quantity(plan.memory) for plan in plans), Decimal(0)))
