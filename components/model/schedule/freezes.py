"""A window's consolidation freeze: a Karpenter disruption budget with ``nodes: "0"``, in UTC, from scale-up to end.

Karpenter budgets have no time zone (it parses them with ``TZ=UTC``), so each window's freeze is computed in UTC
(:func:`recurring_freeze`, :func:`one_off_freeze`), and a pool's freezes are fitted into the 50 budgets a NodePool
holds without losing one (:func:`fit_freezes`). Why: docs/capacity.md#consolidation-freezes-disruption-budgets; how:
docs/internals.md#prescalemodelschedulefreezes.
"""

from __future__ import annotations

import heapq
import math
from bisect import bisect_left, bisect_right
from collections import defaultdict
from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from functools import lru_cache
from typing import Literal, TypedDict, TypeVar
from zoneinfo import ZoneInfo

from ..values.cron import (
    CronSpec,
    dated_cron,
    epoch_seconds,
    fire_timestamps,
    next_fire_timestamp,
    parse_cron,
    render_field,
)
from ..values.duration import format_duration, parse_duration
from ..values.time_zones import load_zone
from .dst import clock_changes, offset_at
from .keda import DAY, Occurrence, occurrence_instants
from .overlaps import Ordered
from .shift import shift_cron

T = TypeVar("T", bound=Ordered)  # minutes of the day here, instants in the CLI's timeline

_MINUTE = timedelta(minutes=1)
_UTC_ZONE = ZoneInfo("UTC")  # Karpenter parses budgets with "TZ=UTC "


@dataclass(frozen=True)
class Freeze:
    """A Karpenter ``spec.disruption.budgets[]`` time window (with ``nodes: "0"``): UTC cron + duration."""

    schedule: str
    duration: str

    @property
    def spec(self) -> CronSpec:
        """The schedule as Karpenter parses it (``TZ=UTC`` prepended, descriptors allowed)."""
        return parse_cron(self.schedule, allow_descriptors=True)

    @property
    def length(self) -> timedelta:
        return parse_duration(self.duration)


# Asked twice per window (by the config checks, then by the plan), with the run's `now` in the key: bounded, so that
# re-planning in a long-lived process keeps at most a big stack's worth.
@lru_cache(maxsize=1024)
def recurring_freeze(start: str, end: str, timezone: str, lead: timedelta, since: datetime) -> Freeze:
    """One UTC budget that is active from every occurrence's scale-up to its end.

    Karpenter schedules are UTC-only and a budget is active on ``[fire, fire + duration)``. In a zone with DST
    the UTC time of a local scale-up moves with the offset, so the schedule is the local scale-up shifted by the
    zone's *largest* offset (its earliest UTC instant, via :func:`shift_cron`, so days move correctly when UTC
    crosses midnight) and the duration is the longest ``end - budget fire`` over a year of occurrences: the
    longest occurrence plus the offset spread. One budget per window rather than one per offset keeps the
    NodePool under its 50-budget limit; the cost is freezing up to an hour longer in the other season.
    ``ValueError`` if the window has no occurrence within a year or the UTC schedule is not one exact cron.
    """
    occurrences = occurrence_instants(start, end, timezone, lead, since, since + timedelta(days=366))
    if not occurrences:
        raise ValueError(f"window {start!r} → {end!r} has no occurrence in the year from {since:%Y-%m-%d}")
    scale_ups = occurrences.scale_ups
    schedule = shift_cron(start, -(lead + timedelta(seconds=_largest_offset(load_zone(timezone), scale_ups))))
    # The budget is active from its latest fire at or before a scale-up: from there it must last to that end.
    fires = list(fire_timestamps(parse_cron(schedule), _UTC_ZONE, scale_ups[0] - 2 * DAY, scale_ups[-1] + 1))
    latest_fires = [bisect_right(fires, scale_up) - 1 for scale_up in scale_ups]
    if latest_fires[0] < 0:  # they ascend: if one scale-up has no fire before it, the first has none
        raise ValueError(f"UTC schedule {schedule!r} does not fire before the scale-up at "
                         f"{datetime.fromtimestamp(scale_ups[0], UTC):%Y-%m-%d %H:%M} UTC")
    needed = max(end - fires[latest] for end, latest in zip(occurrences.ends, latest_fires, strict=True))
    return Freeze(schedule, _freeze_duration(timedelta(seconds=needed)))


def _largest_offset(tz: ZoneInfo, scale_ups: Sequence[int]) -> int:
    """The zone's largest UTC offset (seconds) at any of the ascending ``scale_ups``: it puts the budget's fire at or
    before every scale-up. The offset holds from one clock change to the next, so it is read at the first scale-up
    and at the first after each change."""
    firsts = {0, *(bisect_left(scale_ups, change) for change in clock_changes(tz, scale_ups[0], scale_ups[-1]))}
    return max(offset_at(tz, scale_ups[index]) for index in firsts if index < len(scale_ups))


def one_off_freeze(occurrence: Occurrence) -> Freeze:
    """A dated UTC budget for a one-off occurrence; like its KEDA crons it recurs yearly until removed."""
    return dated_freeze(occurrence.scale_up_utc, occurrence.end_utc)


def dated_freeze(since: datetime, until: datetime) -> Freeze:
    """A budget active from ``since``'s minute (UTC) until at least ``until``; it has no year, so it recurs."""
    start = since.astimezone(UTC).replace(second=0, microsecond=0)
    return Freeze(dated_cron(start), _freeze_duration(until - start))


def _freeze_duration(length: timedelta) -> str:
    """Whole minutes in Karpenter's ``duration`` pattern (``3h10m``, ``45m``, ``60h``), rounded up: a freeze or a
    drift hold that ended on the minute before would free the nodes it guards for its last seconds."""
    return format_duration(math.ceil(length / _MINUTE) * _MINUTE)


def freeze_active(budget: Freeze, at: datetime) -> bool:
    """Karpenter's ``Budget.IsActive``: ``Next(at - duration) <= at`` in UTC (a never-firing schedule: always)."""
    hit = next_fire_timestamp(budget.spec, _UTC_ZONE, at - budget.length)
    return hit is None or hit <= epoch_seconds(at)


# --- fitting a pool's freezes into its 50 budgets ----------------------------------------------------------


MAX_BUDGETS = 50  # NodePool CRD: spec.disruption.budgets maxItems


class StandingBudget(TypedDict):
    """A NodePool disruption budget without a schedule, in Karpenter's shape (``prescale.capacity.crds.Budget``)."""

    nodes: str  # a percentage of the pool's nodes
    reasons: list[Literal["Underutilized", "Empty", "Drifted"]]


# Every pool's always-active budgets beside its freezes. Karpenter v1 applies, per disruption reason, the most
# restrictive of the active budgets that name it or name no reason: a freeze (``nodes: "0"``, no reasons)
# still stops everything during a window, and outside windows empty nodes may all leave at once (emptied event
# nodes go promptly after a window, not 10% at a time) while consolidating busy nodes and replacing drifted
# ones keep Karpenter's default pace of 10%.
STANDING_BUDGETS: tuple[StandingBudget, ...] = (
    {"nodes": "100%", "reasons": ["Empty"]},
    {"nodes": "10%", "reasons": ["Underutilized", "Drifted"]},
)


FREEZE_SLOTS = MAX_BUDGETS - len(STANDING_BUDGETS)  # budgets left for freezes


@dataclass(frozen=True)
class DayPattern:
    """The days a cron fires on, in robfig's terms: months, and days-of-month and/or days-of-week.

    ``days_of_month``/``days_of_week`` of ``None`` mean the field is ``*``. With both restricted a day
    matches either (robfig ORs them); with one restricted it alone decides.
    """

    months: frozenset[int]
    days_of_month: frozenset[int] | None
    days_of_week: frozenset[int] | None

    def union(self, other: DayPattern) -> DayPattern:
        """A pattern matching every day either pattern matches: exactly those days if both have the same months
        (robfig ORs two restricted day fields, so day-of-month and day-of-week rules add up too), else more."""
        months = self.months | other.months
        if self.is_every_day or other.is_every_day:
            return DayPattern(months, None, None)
        doms = (self.days_of_month or frozenset()) | (other.days_of_month or frozenset())
        dows = (self.days_of_week or frozenset()) | (other.days_of_week or frozenset())
        # A pattern restricted on one field only (the other a star) stays so; any mix must OR both fields.
        return DayPattern(months, doms or None, dows or None)

    @property
    def sort_key(self) -> str:
        return self.cron_fields()

    @property
    def is_every_day(self) -> bool:
        return self.days_of_month is None and self.days_of_week is None

    def cron_fields(self) -> str:
        """The day-of-month, month and day-of-week fields of a cron matching exactly these days."""
        # A full set stays a list: `*` in one day field would change how robfig combines it with the other.
        return " ".join((render_field(self.days_of_month, "day-of-month", star=False),
                         render_field(None if len(self.months) == 12 else self.months, "month"),
                         render_field(self.days_of_week, "day-of-week", star=False)))


@dataclass(frozen=True)
class FittedFreezes:
    """The freezes to write as budgets, and whether fitting them cost extra frozen time."""

    freezes: list[Freeze]  # each meant for a `nodes: "0"` budget
    requested: int  # distinct freezes asked for
    merged: bool  # True if covering merges (steps 2-3) were needed: consolidation is frozen longer


def fit_freezes(freezes: Iterable[Freeze], slots: int = FREEZE_SLOTS) -> FittedFreezes:
    """At most ``slots`` freezes covering every instant ``freezes`` cover (the steps:
    docs/internals.md#prescalemodelschedulefreezes)."""
    distinct = set(freezes)
    by_days = _intervals_by_day_pattern(distinct)
    merged = False
    if _count(by_days) > slots:  # exact joins: same hours, and the same months or the same day rules
        by_days = _unite_day_patterns(by_days, key=lambda days, hours: (days.months, hours))
        by_days = _unite_day_patterns(by_days, key=lambda days, hours: (days.days_of_month, days.days_of_week, hours))
    if len(by_days) > slots:
        merged = True
        by_days = _unite_day_patterns(by_days, key=lambda days, hours: days.months)
    if len(by_days) > slots:
        by_days = _unite_day_patterns(by_days, key=lambda days, hours: None)
    if _count(by_days) > slots:
        merged = True
        by_days = _join_nearest_intervals(by_days, slots)
    fitted = sorted((Freeze(f"{start % 60} {start // 60} {days.cron_fields()}",
                                    format_duration(timedelta(minutes=end - start)))
                     for days, intervals in by_days.items() for start, end in intervals),
                    key=lambda freeze: (freeze.schedule, freeze.duration))
    return FittedFreezes(fitted, requested=len(distinct), merged=merged)


Interval = tuple[int, int]  # minutes after the day's midnight (UTC): [start, end); end may pass midnight


def _count(by_days: dict[DayPattern, list[Interval]]) -> int:
    """How many budgets these would take: one per interval."""
    return sum(len(intervals) for intervals in by_days.values())


def _intervals_by_day_pattern(freezes: Iterable[Freeze]) -> dict[DayPattern, list[Interval]]:
    """Freezes as intervals per day pattern, overlapping and touching ones united (step 1)."""
    grouped: dict[DayPattern, list[Interval]] = defaultdict(list)
    for freeze in freezes:
        spec = freeze.spec
        days = DayPattern(spec.months, None if spec.dom_star else spec.days_of_month,
                          None if spec.dow_star else spec.days_of_week)
        minutes = math.ceil(freeze.length.total_seconds() / 60)  # budgets count whole minutes
        grouped[days] += [(start, start + minutes) for start in spec.times]
    return {days: unite(intervals) for days, intervals in grouped.items()}


def frozen_between(budgets: Iterable[Freeze], since: datetime, until: datetime) -> list[tuple[datetime, datetime]]:
    """When any of the budgets is active around ``[since, until)``, as united UTC intervals."""
    intervals = []
    for budget in budgets:
        length = budget.length
        # A budget that fired up to `length` before `since` is still active at `since`.
        for fire in fire_timestamps(budget.spec, _UTC_ZONE, epoch_seconds(since - length), epoch_seconds(until)):
            start = datetime.fromtimestamp(fire, UTC)
            intervals.append((start, start + length))
    return unite(intervals)


def unite(intervals: Iterable[tuple[T, T]]) -> list[tuple[T, T]]:
    """Sorted ``[start, end)`` intervals with every overlapping or touching pair joined."""
    united: list[tuple[T, T]] = []
    for start, end in sorted(intervals):
        if united and start <= united[-1][1]:
            united[-1] = (united[-1][0], max(united[-1][1], end))
        else:
            united.append((start, end))
    return united


def _unite_day_patterns(by_days: dict[DayPattern, list[Interval]],
                        key: Callable[[DayPattern, tuple[Interval, ...]], Hashable],
                        ) -> dict[DayPattern, list[Interval]]:
    """Patterns with the same ``key(days, intervals)`` become their union, carrying all their intervals."""
    groups: dict[Hashable, list[DayPattern]] = defaultdict(list)
    for days in sorted(by_days, key=lambda days: days.sort_key):
        groups[key(days, tuple(by_days[days]))].append(days)
    united: dict[DayPattern, list[Interval]] = {}
    for members in groups.values():
        days = members[0]
        for other in members[1:]:
            days = days.union(other)
        united[days] = unite(united.get(days, []) + [i for member in members for i in by_days[member]])
    return united


def _join_nearest_intervals(by_days: dict[DayPattern, list[Interval]], slots: int) -> dict[DayPattern, list[Interval]]:
    """Step 3: join the two closest intervals of one day pattern until at most ``slots`` remain.

    A heap of the gaps between neighbours; joining two intervals retires both of their gaps and adds the
    gap between the joined interval and its new neighbour, so this is O(n log n).
    """
    count = _count(by_days)
    # Per pattern, a linked list over interval indexes; None marks an interval joined into its left neighbour.
    intervals: dict[DayPattern, list[Interval | None]] = {days: list(items) for days, items in by_days.items()}
    following = {days: [*range(1, len(items)), None] for days, items in intervals.items()}
    heap = [(items[i + 1][0] - items[i][1], days.sort_key, i, i + 1, days)
            for days, items in by_days.items() for i in range(len(items) - 1)]
    heapq.heapify(heap)
    while count > slots and heap:
        _, _, left, right, days = heapq.heappop(heap)
        items, nexts = intervals[days], following[days]
        joined, absorbed = items[left], items[right]
        if joined is None or absorbed is None or nexts[left] != right:
            continue  # stale: one side was joined since this gap was pushed
        joined = items[left] = (joined[0], max(joined[1], absorbed[1]))
        items[right] = None
        nexts[left] = nexts[right]
        count -= 1
        successor = nexts[left]
        if successor is not None and (after := items[successor]) is not None:
            heapq.heappush(heap, (after[0] - joined[1], days.sort_key, left, successor, days))
    return {days: [item for item in items if item is not None] for days, items in intervals.items()}
