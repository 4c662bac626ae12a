"""Event windows in time: what KEDA reports, when capacity is up, and the UTC budgets that keep it there.

A window is a ``start``/``end`` cron pair in one IANA time zone (recurring) or a pair of local date-times
(one-off). The program deploys it as a KEDA cron trigger whose start is moved earlier by the lead time, and
freezes Karpenter consolidation with a UTC disruption budget from scale-up to the event's end. This module
is the pure maths behind that (no Pulumi): KEDA's activity rule, occurrences, the lead shift, budgets, and the
checks that refuse windows KEDA would not open and close as the user means.

KEDA's rule (``cron_scaler.go``, v2.20): ``nextStart = Next(now)``, ``nextEnd = Next(now)``; the trigger is
active iff ``nextEnd <= nextStart``, i.e. iff the next fire of either cron is an end. So activity only changes
at fires, and merging the two fire streams ("events") gives every active interval in one linear pass.

Aware datetimes returned here are in the window's zone; compare them through UTC (``Occurrence`` has ``*_utc``
properties): Python compares and subtracts two datetimes of the *same* zone by wall clock, ignoring ``fold``
and the UTC offset, which is wrong across a DST change.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from functools import cache, lru_cache
from itertools import chain, pairwise
from typing import cast
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from .cron import (
    FIELD_VALUES,
    CronSpec,
    ceil_epoch_seconds,
    dated_cron,
    day_offsets,
    epoch_seconds,
    fire_timestamps,
    next_fire_timestamp,
    parse_cron,
    render_field,
    wall_instants,
)
from .duration import format_duration, parse_duration

_MINUTE = timedelta(minutes=1)
_SECOND = timedelta(seconds=1)
_DAY = 86_400
_MINUTES_PER_DAY = 1_440
_START, _END = 1, 2  # event kinds; a fire of both crons at one instant is _START | _END
_MAX_OPEN = 400 * _DAY  # a window that stays open longer than this is a mistake (or never closes)
_UTC_ZONE = ZoneInfo("UTC")  # Karpenter parses budgets with "TZ=UTC "
_SAFE_DAYS_OF_MONTH = range(1, 29)  # days every month has: shifting these by a day stays in the same month


def load_zone(name: str) -> ZoneInfo:
    """The IANA zone ``name``; ``ValueError`` like KEDA's ``unable to load timezone`` for anything else."""
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, TypeError):
        raise ValueError(f"unable to load timezone: unknown time zone {name}") from None


def _keda_window(start: str, end: str, timezone: str) -> tuple[CronSpec, CronSpec, ZoneInfo]:
    """Parse a trigger's ``start``/``end``/``timezone`` with KEDA's checks, in KEDA's order and wording."""
    try:
        start_spec = parse_cron(start)
    except ValueError as error:
        raise ValueError(f"error parsing start schedule: {error}") from None
    try:
        end_spec = parse_cron(end)
    except ValueError as error:
        raise ValueError(f"error parsing end schedule: {error}") from None
    if start.strip() == end.strip():
        raise ValueError("start and end can not have exactly same time input")
    return start_spec, end_spec, load_zone(timezone)


# --- KEDA's activity rule --------------------------------------------------------------------------------


def cron_window_active(start: str, end: str, timezone: str, at: datetime) -> bool:
    """Whether KEDA v2.20's cron scaler reports this trigger active at the aware instant ``at``.

    A literal port of ``GetMetricsAndActivity``: with Go's zero time (a cron that never fires) taken as
    minus infinity, a start that never fires keeps the window always active and an end that never fires keeps
    it always inactive. The window is ``[start, end)`` at one-second granularity. Raises ``ValueError`` for
    what KEDA refuses (bad cron, identical start and end, unknown zone) and for a naive ``at``.
    """
    start_spec, end_spec, tz = _keda_window(start, end, timezone)
    now = epoch_seconds(at)
    never = -(2**63)  # Go's zero time: earlier than any instant, as KEDA compares it
    next_start = next_fire_timestamp(start_spec, tz, at)
    next_end = next_fire_timestamp(end_spec, tz, at)
    next_start = never if next_start is None else next_start
    next_end = never if next_end is None else next_end
    if next_start < next_end:
        return next_start < now < next_end
    return now > next_start or now < next_end


def _events(start_spec: CronSpec, end_spec: CronSpec, tz: ZoneInfo, since: int,
            until: int) -> Iterator[tuple[int, int]]:
    """Both crons' fires in ``[since, until)`` merged in time order as ``(instant, kind)``; lazy.

    The smaller head first, a start before an end at the same instant (``heapq.merge`` of the two streams),
    and then fires at one instant joined into one event. Written out because it is the innermost loop of every
    check: ``heapq.merge`` over generator expressions cost almost twice as much.
    """
    starts = fire_timestamps(start_spec, tz, since, until)
    ends = fire_timestamps(end_spec, tz, since, until)
    start, end = next(starts, None), next(ends, None)
    pending: int | None = None
    pending_kind = 0
    while start is not None or end is not None:
        if end is None or (start is not None and start <= end):
            instant, kind, start = start, _START, next(starts, None)
        else:
            instant, kind, end = end, _END, next(ends, None)
        if instant == pending:
            pending_kind |= kind
            continue
        if pending is not None:
            yield pending, pending_kind
        pending, pending_kind = instant, kind
    if pending is not None:
        yield pending, pending_kind


def _keda_intervals(start_spec: CronSpec, end_spec: CronSpec, tz: ZoneInfo, since: int,
                    until: int) -> list[tuple[int, int]]:
    """KEDA's active intervals ``[open, close)`` (epoch seconds) that intersect ``[since, until)``.

    Active on ``[previous event, e)`` for every event ``e`` that includes an end; consecutive such events
    merge into one interval. The first interval may have opened before ``since``: the scan starts a week
    earlier and doubles its look-back until it sees the opening (up to ``_MAX_OPEN``).
    """
    lookback = 8 * _DAY
    while True:
        intervals = _scan_intervals(start_spec, end_spec, tz, since - lookback, since, until)
        if not intervals or intervals[0][0] is not None:
            return cast(list[tuple[int, int]], intervals)
        if lookback >= _MAX_OPEN:
            raise ValueError(f"KEDA keeps this window open since before {_show(since - lookback, tz)}: start "
                             "and end do not alternate")
        lookback *= 2


def _scan_intervals(start_spec: CronSpec, end_spec: CronSpec, tz: ZoneInfo, scan_from: int, since: int,
                    until: int) -> list[tuple[int | None, int]]:
    """One pass of :func:`_keda_intervals`; ``None`` opens an interval whose opening precedes ``scan_from``."""
    horizon = until + _MAX_OPEN
    intervals: list[tuple[int | None, int]] = []
    previous: int | None = None
    opened: int | None = None
    closed: int | None = None  # the last end of the run of ends being read, if any
    for instant, kind in _events(start_spec, end_spec, tz, scan_from, horizon):
        if kind & _END:
            if closed is None:
                opened = previous
            closed = instant
        else:
            if closed is not None and closed > since:
                intervals.append((opened, closed))
            closed = None
            if instant >= until:
                return intervals
        previous = instant
    if closed is not None and closed > since:
        began = "" if opened is None else f" from {_show(opened, tz)}"
        raise ValueError(f"KEDA keeps this window open{began} past {_show(horizon, tz)}: start and end do not "
                         "alternate")
    return intervals


# --- occurrences ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Occurrence:
    """One time a window's capacity is up: KEDA opens at ``scale_up`` (the lead-shifted start), the event
    starts at ``start`` and KEDA closes at ``end``. Aware datetimes in the window's zone; use the ``*_utc``
    properties to compare or subtract (same-zone datetimes ignore the UTC offset)."""

    scale_up: datetime
    start: datetime
    end: datetime

    @property
    def scale_up_utc(self) -> datetime:
        return self.scale_up.astimezone(UTC)

    @property
    def start_utc(self) -> datetime:
        return self.start.astimezone(UTC)

    @property
    def end_utc(self) -> datetime:
        return self.end.astimezone(UTC)

    @property
    def capacity_time(self) -> timedelta:
        """How long capacity is held: from scale-up to end, in real (UTC) time."""
        return self.end_utc - self.scale_up_utc


def recurring_occurrences(start: str, end: str, timezone: str, lead: timedelta, since: datetime,
                          until: datetime) -> list[Occurrence]:
    """Every occurrence of a recurring window whose ``[scale_up, end)`` intersects ``[since, until)``.

    Computed from the pair KEDA actually runs, ``shift_cron(start, -lead)`` and ``end``, so ``[scale_up, end)``
    is exactly where :func:`cron_window_active` of that pair is true; ``start`` is the first fire of the
    original start in that interval (``scale_up`` itself if DST or a too-long lead left none: such windows
    fail :func:`dst_problem`/:func:`lead_problem`). Linear in the number of fires; ``ValueError`` if KEDA
    would keep the window open for more than ``_MAX_OPEN``.
    """
    instants = occurrence_instants(start, end, timezone, lead, since, until)
    tz = load_zone(timezone)
    return [Occurrence(*(datetime.fromtimestamp(moment, tz) for moment in occurrence)) for occurrence in instants]


@lru_cache(maxsize=64)
def occurrence_instants(start: str, end: str, timezone: str, lead: timedelta, since: datetime,
                        until: datetime) -> tuple[tuple[int, int, int], ...]:
    """:func:`recurring_occurrences` as epoch seconds ``(scale_up, start, end)``.

    Cached: the config checks, the window's budget and its failsafe each walk the same window's year, one
    window after another, so a few windows' worth is enough (and memory stays flat however many windows).
    """
    _check_lead(lead)
    start_spec, end_spec, tz = _keda_window(start, end, timezone)
    scale_up_spec = _keda_window(shift_cron(start, -lead), end, timezone)[0] if lead else start_spec
    intervals = _keda_intervals(scale_up_spec, end_spec, tz, epoch_seconds(since), ceil_epoch_seconds(until))
    if not lead:  # each interval opens at a start fire: the occurrence's start
        return tuple((opened, opened, closed) for opened, closed in intervals)
    if not intervals:
        return ()
    starts = list(fire_timestamps(start_spec, tz, intervals[0][0], intervals[-1][1]))
    occurrences = []
    for opened, closed in intervals:
        index = bisect_left(starts, opened)
        begins = starts[index] if index < len(starts) and starts[index] < closed else opened
        occurrences.append((opened, begins, closed))
    return tuple(occurrences)


def one_off_occurrence(start_local: datetime, end_local: datetime, timezone: str,
                       lead: timedelta) -> Occurrence:
    """The single occurrence of a one-off event given as naive local date-times in ``timezone``.

    Refuses local times that are not whole minutes (the dated crons have no seconds) or that do not exist or
    exist twice in the zone (their crons would be skipped or fire twice), and an end not after the start.
    """
    _check_lead(lead)
    tz = load_zone(timezone)
    scale_up, begins, ends = (_localize(moment, tz) for moment in (start_local - lead, start_local, end_local))
    if ends.astimezone(UTC) <= begins.astimezone(UTC):
        raise ValueError(f"end {end_local.isoformat()} is not after start {start_local.isoformat()}")
    return Occurrence(scale_up, begins, ends)


def _localize(wall: datetime, tz: ZoneInfo) -> datetime:
    problem = dst_problem_local(wall, tz.key)
    if problem:
        raise ValueError(problem)
    if wall.second or wall.microsecond:
        raise ValueError(f"{wall.isoformat()} is not a whole minute; cron has no seconds field")
    return datetime.fromtimestamp(wall_instants(wall, tz)[0], tz)


def _check_lead(lead: timedelta) -> None:
    if lead < timedelta(0) or lead % _MINUTE:
        raise ValueError(f"lead time {lead} must be zero or positive whole minutes")


def one_off_trigger(occurrence: Occurrence) -> tuple[str, str]:
    """KEDA ``start``/``end`` crons for a one-off occurrence: ``M H D Mon *`` at scale-up and at the end.

    They have no year and fire every year: the caller must remove them after the event, and
    :func:`one_off_problem` checks KEDA opens them exactly once before then.
    """
    start, end = dated_cron(occurrence.scale_up), dated_cron(occurrence.end)
    if start == end:
        raise ValueError(f"scale-up and end fall on the same date and time of year ({start!r})")
    return start, end


# --- lead shift -----------------------------------------------------------------------------------------


def shift_cron(expr: str, delta: timedelta) -> str:
    """The same schedule moved by ``delta`` in wall-clock terms (negative: earlier), as one 5-field cron.

    Times of day move by ``delta``; fires pushed past midnight move the day fields by whole days: day-of-week
    modulo 7, day-of-month only within days 1-28 (the ones every month has), month never. Anything one cron
    cannot express exactly raises ``ValueError``: a delta that is not whole minutes; times of day that stop
    being every-hour × every-minute; some fires crossing midnight and others not while the day fields are
    restricted; a day-of-month shift that would leave the month; a restricted month with a day shift. Day
    fields are copied verbatim when no day moves; a zero ``delta`` returns ``expr`` unchanged.
    """
    if not delta:
        return expr
    if delta % _MINUTE:
        raise ValueError(f"cannot shift by {_signed(delta)}: cron has whole minutes only")
    spec = parse_cron(expr)
    if not spec.times:
        raise ValueError(f"{expr!r} never fires")
    moved: dict[int, set[int]] = {}
    for minute in spec.times:
        day_shift, minute_of_day = divmod(minute + delta // _MINUTE, _MINUTES_PER_DAY)
        moved.setdefault(day_shift, set()).add(minute_of_day)
    every_day = _fires_every_day(spec)
    if len(moved) > 1 and not every_day:
        crossing = ", ".join(f"{_hhmm(m)} ({d:+d} day)" for d, ms in sorted(moved.items()) for m in sorted(ms))
        raise ValueError(f"shifting {expr!r} by {_signed(delta)} moves some fires across midnight and not others "
                         f"({crossing}) while its day fields are restricted; one cron cannot do both")
    minute_field, hour_field = _time_fields(set().union(*moved.values()), expr, delta)
    day_shift = next(iter(moved)) if len(moved) == 1 else 0
    day_fields = spec.expr.split()[2:]
    if day_shift and not every_day:
        day_fields = _shifted_day_fields(spec, day_fields, day_shift)
    return " ".join((minute_field, hour_field, *day_fields))


def _fires_every_day(spec: CronSpec) -> bool:
    """Whether the month and day fields admit every date (then moving fires across days changes nothing)."""
    dom_all = spec.days_of_month == FIELD_VALUES["day-of-month"]
    dow_all = spec.days_of_week == FIELD_VALUES["day-of-week"]
    days_all = (dom_all and dow_all) if spec.days_anded else (dom_all or dow_all)
    return days_all and spec.months == FIELD_VALUES["month"]


def _time_fields(minutes_of_day: set[int], expr: str, delta: timedelta) -> tuple[str, str]:
    hours = frozenset(minute // 60 for minute in minutes_of_day)
    minutes = frozenset(minute % 60 for minute in minutes_of_day)
    if len(hours) * len(minutes) != len(minutes_of_day):
        shown = ", ".join(_hhmm(minute) for minute in sorted(minutes_of_day))
        raise ValueError(f"shifting {expr!r} by {_signed(delta)} gives the times {shown}, which are not every listed "
                         "hour at every listed minute; one cron cannot express them")
    return render_field(minutes, "minute"), render_field(hours, "hour")


def _shifted_day_fields(spec: CronSpec, day_fields: list[str], days: int) -> list[str]:
    """Day-of-month, month, day-of-week texts for fires moved by ``days`` whole days (see :func:`shift_cron`)."""
    dom_text, month_text, dow_text = day_fields
    restricts_dom = not spec.dom_star
    restricts_dow = not spec.dow_star
    if spec.months != FIELD_VALUES["month"] and (restricts_dow or not restricts_dom):
        raise ValueError(f"the fires of {spec.expr!r} move {_days(days)} and its month field {month_text!r} is "
                         "restricted: days at a month's edge would move into another month; drop the month "
                         "restriction or use a lead time that stays within the day")
    if restricts_dom:
        moved = {day + days for day in spec.days_of_month}
        unsafe = sorted(day for day in spec.days_of_month if day not in _SAFE_DAYS_OF_MONTH
                        or day + days not in _SAFE_DAYS_OF_MONTH)
        if unsafe:
            raise ValueError(f"the fires of {spec.expr!r} move {_days(days)} and day-of-month {unsafe[0]} would "
                             "cross into another month (months differ in length), which one cron cannot "
                             "express; use days 1-28 away from the edge, or a lead time within the day")
        dom_text = render_field(frozenset(moved), "day-of-month", star=False)
    if restricts_dow:
        dow_text = render_field(frozenset((day + days) % 7 for day in spec.days_of_week), "day-of-week", star=False)
    return [dom_text, month_text, dow_text]


def _signed(delta: timedelta) -> str:
    return ("-" if delta < timedelta(0) else "+") + format_duration(abs(delta))


def _hhmm(minute_of_day: int) -> str:
    return f"{minute_of_day // 60:02d}:{minute_of_day % 60:02d}"


def _days(days: int) -> str:
    return f"{abs(days)} day{'s' * (abs(days) != 1)} {'later' if days > 0 else 'earlier'}"


# --- Karpenter disruption budgets (UTC only) ------------------------------------------------------------


@dataclass(frozen=True)
class BudgetSchedule:
    """A Karpenter ``spec.disruption.budgets[]`` time window (with ``nodes: "0"``): UTC cron + duration."""

    schedule: str
    duration: str


@cache  # pure, and asked twice per window: by the config checks and by the component that renders it
def recurring_budget(start: str, end: str, timezone: str, lead: timedelta, since: datetime) -> BudgetSchedule:
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
    tz = load_zone(timezone)
    scale_ups = [scale_up for scale_up, _, _ in occurrences]
    # The offset is the same from one clock change to the next: read it at the first scale-up after each.
    firsts = {0, *(bisect_left(scale_ups, change) for change in _clock_changes(tz, scale_ups[0], scale_ups[-1]))}
    largest = max(_offset_at(tz, scale_ups[index]) for index in firsts if index < len(scale_ups))
    schedule = shift_cron(start, -(lead + timedelta(seconds=largest)))
    fires = list(fire_timestamps(parse_cron(schedule), _UTC_ZONE, occurrences[0][0] - 2 * _DAY,
                                 occurrences[-1][0] + 1))
    needed = 0
    for scale_up, _, ends in occurrences:
        latest = bisect_right(fires, scale_up) - 1
        if latest < 0:
            raise ValueError(f"UTC schedule {schedule!r} does not fire before the scale-up at "
                             f"{datetime.fromtimestamp(scale_up, UTC):%Y-%m-%d %H:%M} UTC")
        needed = max(needed, ends - fires[latest])
    return BudgetSchedule(schedule, _budget_duration(timedelta(seconds=needed)))


def one_off_budget(occurrence: Occurrence) -> BudgetSchedule:
    """A dated UTC budget for a one-off occurrence; like its KEDA crons it recurs yearly until removed."""
    return BudgetSchedule(dated_cron(occurrence.scale_up_utc), _budget_duration(occurrence.capacity_time))


def _budget_duration(length: timedelta) -> str:
    """Whole minutes, rounded up, in Karpenter's ``duration`` pattern (``3h10m``, ``45m``, ``60h``)."""
    return format_duration(-(-length // _MINUTE) * _MINUTE)


def budget_active(budget: BudgetSchedule, at: datetime) -> bool:
    """Karpenter's ``Budget.IsActive``: ``Next(at - duration) <= at`` in UTC (a never-firing schedule: always)."""
    spec = parse_cron(budget.schedule, allow_descriptors=True)
    hit = next_fire_timestamp(spec, _UTC_ZONE, at - parse_duration(budget.duration))
    return hit is None or hit <= epoch_seconds(at)


# --- validation helpers: a message naming the problem, or None -----------------------------------------


def never_fires_problem(expr: str, timezone: str, since: datetime) -> str | None:
    """A cron no date matches (``0 0 30 2 *``): robfig gives up after five years and returns the zero time."""
    if next_fire_timestamp(parse_cron(expr), load_zone(timezone), since) is not None:
        return None
    return (f"never fires: no date in the five years after {since:%Y-%m-%d} matches its day-of-month, month and "
            "day-of-week (as a start KEDA would keep the window always open, as an end never open it)")


def alternation_problem(start: str, end: str, timezone: str, since: datetime, days: int = 366) -> str | None:
    """Whether start and end fires strictly alternate (start, end, start...) over ``days`` from ``since``.

    KEDA only looks at which fire comes next, so two starts in a row open the window at the second one, two
    ends in a row keep it open from the start before them to the last end (kedacore/keda#4677), and a start
    and an end at the same instant count as an end. The event just before ``since`` is included so that a run
    straddling ``since`` is found too.
    """
    if start.strip() == end.strip():
        return f"start and end are the same cron {end.strip()!r}, which KEDA refuses (kedacore/keda#2031)"
    start_spec, end_spec, tz = _keda_window(start, end, timezone)
    first = epoch_seconds(since)
    events = _events(start_spec, end_spec, tz, first, first + days * _DAY)
    before = _event_before(start_spec, end_spec, tz, first, days)
    stream = events if before is None else chain((before,), events)
    run: list[int] = []
    run_kind = opened = None
    for instant, kind in stream:
        if kind == _START | _END:
            return (f"start and end both fire at {_show(instant, tz)}: KEDA counts that as an end only, so the "
                    "window closes there and the start is lost")
        if kind != run_kind:
            if len(run) > 1:
                return _run_problem(run_kind, run, opened, tz)
            opened = run[-1] if run and kind == _END else None
            run, run_kind = [], kind
        run.append(instant)
    return _run_problem(run_kind, run, opened, tz) if len(run) > 1 else None


def _event_before(start_spec: CronSpec, end_spec: CronSpec, tz: ZoneInfo, instant: int,
                  days: int) -> tuple[int, int] | None:
    """The last event before ``instant`` within ``days`` (look-back doubling from a week: cheap when daily)."""
    lookback = 8
    while True:
        last = deque(_events(start_spec, end_spec, tz, instant - min(lookback, days) * _DAY, instant), maxlen=1)
        if last or lookback >= days:
            return last[0] if last else None
        lookback *= 2


def _run_problem(kind: int | None, run: list[int], opened: int | None, tz: ZoneInfo) -> str:
    fires = f"{len(run)} times in a row ({_show(run[0], tz)} … {_show(run[-1], tz)})"
    if kind == _START:
        return (f"start fires {fires} with no end in between: KEDA ignores all but the last, so the window "
                f"opens only at {_show(run[-1], tz)}")
    since = f"from {_show(opened, tz)} " if opened is not None else ""
    return (f"end fires {fires} with no start in between: KEDA keeps the window open {since}until "
            f"{_show(run[-1], tz)} (kedacore/keda#4677)")


def lead_problem(start: str, end: str, timezone: str, lead: timedelta, since: datetime,
                 days: int = 366) -> str | None:
    """Whether the lead time moves a scale-up to or before the end of the previous occurrence.

    KEDA pairs each scale-up with the *next* end, so a lead longer than the gap between occurrences makes it
    open and close the window within the gap (``0 9 * * *`` → ``0 17 * * *`` with 17h: open 16:00-17:00).
    """
    try:
        occurrences = occurrence_instants(start, end, timezone, timedelta(0), since - lead - timedelta(days=2),
                                          since + timedelta(days=days))
    except ValueError as error:
        return str(error)
    tz = load_zone(timezone)
    lead_seconds = -(-lead // _SECOND)  # so that begins - lead_seconds is epoch_seconds(begins - lead)
    changes = _clock_changes(tz, occurrences[0][1] - lead_seconds - _DAY, occurrences[-1][1] + _DAY) \
        if occurrences else []
    for (_, _, previous_end), (_, begins, _) in pairwise(occurrences):
        scale_up = begins - lead_seconds
        if bisect_left(changes, scale_up - _DAY) != bisect_right(changes, begins + _DAY):
            # A clock change nearby: move the start on the wall clock (far from one, that is the subtraction).
            wall = datetime.fromtimestamp(begins, tz).replace(tzinfo=None) - lead
            scale_up = epoch_seconds(wall.replace(tzinfo=tz))
        if scale_up <= previous_end:
            gap = min(later[1] - earlier[2] for earlier, later in pairwise(occurrences))
            return (f"lead time {format_duration(lead)} moves the scale-up for {_show(begins, tz)} to "
                    f"{_show(scale_up, tz)}, not after the previous occurrence's end ({_show(previous_end, tz)}): "
                    f"KEDA would pair it with that earlier end; allowed: less than "
                    f"{format_duration(timedelta(seconds=gap))}")
    return None


def one_off_problem(occurrence: Occurrence, now: datetime) -> str | None:
    """Whether KEDA runs a one-off's dated crons exactly once, as ``[scale_up, end)``, from ``now`` on.

    The crons have no year, so an event more than a year ahead would open a year early, and an end on a date
    that is not every year (29 February) leaves ends in a row that keep the window open for years. ``None``
    once the event is over (what to do with past events is the caller's decision).
    """
    if epoch_seconds(now) >= epoch_seconds(occurrence.end):
        return None
    start, end = one_off_trigger(occurrence)
    expected = [(epoch_seconds(occurrence.scale_up), epoch_seconds(occurrence.end))]
    try:
        start_spec, end_spec, zone = _keda_window(start, end, str(occurrence.start.tzinfo))
        intervals = _keda_intervals(start_spec, end_spec, zone, epoch_seconds(now), expected[0][1])
    except ValueError as error:
        return f"its dated crons {start!r} → {end!r} repeat every year and {error}"
    if intervals == expected:
        return None
    shown = "; ".join(f"{_show(opened, zone)} → {_show(closed, zone)}" for opened, closed in intervals)
    return (f"its dated crons {start!r} → {end!r} repeat every year, so before the event ends KEDA would be "
            f"active {shown or 'never'} instead of {_show(expected[0][0], zone)} → {_show(expected[0][1], zone)}")


# --- DST ------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Transition:
    """A UTC-offset change at ``instant``; ``low``/``high`` bound the wall times it skips or repeats."""

    instant: int
    before: int  # offset in seconds
    after: int
    low: datetime  # naive wall clock, inclusive
    high: datetime  # naive wall clock, exclusive

    @property
    def is_gap(self) -> bool:
        return self.after > self.before

    @property
    def touches_midnight(self) -> bool:
        return self.low.time() == time(0) or self.low.date() != (self.high - _MINUTE).date()

    @property
    def off_the_hour(self) -> bool:
        """A change by a fraction of an hour (Lord_Howe's 30 minutes): robfig's hour walk across it lands on
        :30 and stays there until its next minute wrap, so it can skip the first fire after the change,
        however many days later that is."""
        return bool((self.after - self.before) % 3600)

    @property
    def is_irregular(self) -> bool:
        """robfig walks whole hours and re-checks the day only when the hour wraps to 0: a change that does
        not start on the hour or includes local midnight makes it skip or add fires on the days next to it
        (depending on where ``Next`` starts), which our fire model does not follow."""
        return bool(self.low.minute or self.low.second or self.touches_midnight)

    @property
    def irregular_days(self) -> list[date]:
        """Days robfig can get wrong: the change's days, and the day before when midnight is affected (its
        hour walk runs into the next day without checking that day)."""
        days = {self.low.date(), (self.high - _MINUTE).date()}
        if self.touches_midnight:
            days.add(min(days) - timedelta(days=1))
        return sorted(days)

    def describe(self) -> str:
        if self.is_gap:
            return f"clocks jump from {self.low:%H:%M} to {self.high:%H:%M}"
        return f"clocks go back from {self.high:%H:%M} to {self.low:%H:%M}"


def _transition_between(tz: ZoneInfo, low: int, high: int) -> _Transition:
    """The offset change between two instants with different offsets (bisection to the second)."""
    before = _offset_at(tz, low)
    while high - low > 1:
        middle = (low + high) // 2
        if _offset_at(tz, middle) == before:
            low = middle
        else:
            high = middle
    after = _offset_at(tz, high)
    walls = sorted(datetime.fromtimestamp(high + offset, UTC).replace(tzinfo=None) for offset in (before, after))
    return _Transition(high, before, after, walls[0], walls[1])


def _clock_changes(tz: ZoneInfo, since: int, until: int) -> list[int]:
    """The instants of the offset changes in ``[since, until]`` (from the cached :func:`_transitions`)."""
    first, last = (datetime.fromtimestamp(instant, tz).date() for instant in (since, until))
    return [transition.instant for transition in _transitions(tz, first - timedelta(days=1), last + timedelta(days=1))
            if since <= transition.instant <= until]


def _offset_at(tz: ZoneInfo, instant: int) -> int:
    offset = datetime.fromtimestamp(instant, tz).utcoffset()
    assert offset is not None, tz.key  # an aware datetime in a ZoneInfo always has one
    return offset // timedelta(seconds=1)


@lru_cache(maxsize=256)
def _transitions(tz: ZoneInfo, first: date, last: date) -> tuple[_Transition, ...]:
    """Every offset change whose day lies in ``[first, last]``; found from the cached per-day offsets.

    Cached: every cron of every window in a zone is checked over the same year.
    """
    found: dict[int, _Transition] = {}
    day = first
    while day <= last:
        start_offset, end_offset = day_offsets(tz, day)
        if start_offset != end_offset:
            midnight = epoch_seconds(datetime.combine(day, time(0), UTC))
            transition = _transition_between(tz, midnight - start_offset - _DAY // 2,
                                             midnight + _DAY - end_offset + _DAY // 2)
            found[transition.instant] = transition
        day += timedelta(days=1)
    return tuple(sorted(found.values(), key=lambda transition: transition.instant))


def dst_problem(expr: str, timezone: str, since: datetime, days: int = 366) -> str | None:
    """A fire that DST makes KEDA skip or repeat within ``days`` from ``since``, or ``None``.

    A time of day in a spring-forward gap does not fire that day (the window then opens a day early or not at
    all); one in a fall-back overlap fires twice. Changes robfig walks wrongly are refused too: one of part of an
    hour whenever the cron fires after it (``_Transition.off_the_hour``), one that starts off the hour or
    includes midnight whenever the cron fires on the days next to it (``_Transition.is_irregular``).
    """
    spec, tz = parse_cron(expr), load_zone(timezone)
    first = datetime.fromtimestamp(epoch_seconds(since), tz).date()
    for transition in _transitions(tz, first, first + timedelta(days=days)):
        problem = _fire_in_transition(spec, tz, transition)
        if problem:
            return problem
        fire = next_fire_timestamp(spec, tz, datetime.fromtimestamp(transition.instant - 1, UTC))
        if transition.off_the_hour and fire is not None:
            return (f"its first fire after the clock change in {tz.key} on {transition.low:%Y-%m-%d} "
                    f"({transition.describe()}) is at {_show(fire, tz)}: robfig/cron, which KEDA uses, walks "
                    "whole hours across a change of part of an hour and can skip that fire; pick another zone")
        if transition.is_irregular:
            fired = [day for day in transition.irregular_days if spec.matches_day(day)]
            if fired:
                return (f"fires on {fired[0]:%a %Y-%m-%d}, next to an irregular clock change in {tz.key} on "
                        f"{transition.low:%Y-%m-%d} ({transition.describe()}): robfig/cron, which KEDA uses, "
                        "skips or adds fires around such changes; pick days away from it or another zone")
    return None


def _fire_in_transition(spec: CronSpec, tz: ZoneInfo, transition: _Transition) -> str | None:
    for day in sorted({transition.low.date(), (transition.high - _MINUTE).date()}):
        if not spec.matches_day(day):
            continue
        for minute in spec.times:
            wall = datetime.combine(day, time(0)) + timedelta(minutes=minute)
            if transition.low <= wall < transition.high:
                effect = ("that time does not exist, so robfig/cron (used by KEDA) skips that fire"
                          if transition.is_gap else "that time happens twice, so KEDA fires twice")
                return (f"fires at {wall:%H:%M} on {day:%a %Y-%m-%d} in {tz.key}, where {transition.describe()}: "
                        f"{effect}; move it out of {transition.low:%H:%M}-{transition.high:%H:%M}")
    return None


def dst_problem_local(moment: datetime, timezone: str) -> str | None:
    """A one-off local date-time that does not exist or exists twice in ``timezone``, or ``None``."""
    if moment.tzinfo is not None:
        raise ValueError(f"{moment.isoformat()} must be a naive local date-time")
    tz = load_zone(timezone)
    instants = wall_instants(moment, tz)
    if len(instants) == 1:
        return None
    guess = epoch_seconds(moment.replace(tzinfo=UTC))
    transition = _transition_between(tz, guess - _DAY, guess + _DAY)
    effect = "does not exist" if not instants else "happens twice"
    return f"{moment:%Y-%m-%d %H:%M} {effect} in {tz.key} ({transition.describe()}); pick another time"


def _show(instant: int | datetime, tz: ZoneInfo) -> str:
    moment = instant if isinstance(instant, datetime) else datetime.fromtimestamp(instant, tz)
    return f"{moment.astimezone(tz):%a %Y-%m-%d %H:%M %Z}"
