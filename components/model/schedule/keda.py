"""KEDA's cron scaler, exactly: when a trigger is active, and each occurrence of a window that follows.

A window is a ``start``/``end`` cron pair in one IANA time zone (recurring) or a pair of local date-times
(one-off). The program deploys it as a KEDA cron trigger whose start is moved earlier by the lead time
(:mod:`.shift`). KEDA's rule (``cron_scaler.go``, v2.20): ``nextStart = Next(now)``, ``nextEnd = Next(now)``;
the trigger is active iff ``nextEnd <= nextStart``, i.e. iff the next fire of either cron is an end. So activity
only changes at fires, and merging the two fire streams ("events") gives every active interval in one linear pass.

Aware datetimes returned here are in the window's zone; compare them through UTC (``Occurrence`` has ``*_utc``
properties): Python compares and subtracts two datetimes of the *same* zone by wall clock, ignoring ``fold``
and the UTC offset, which is wrong across a DST change.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from functools import lru_cache
from itertools import chain
from operator import lt
from typing import cast
from zoneinfo import ZoneInfo

from ..config import EventWindow
from ..values.cron import (
    CronSpec,
    ceil_epoch_seconds,
    dated_cron,
    epoch_seconds,
    fire_timestamps,
    next_fire_timestamp,
    parse_cron,
    wall_instants,
)
from ..values.time_zones import load_zone
from .dst import dst_problem_local
from .instants import show_instant
from .shift import shift_cron

_MINUTE = timedelta(minutes=1)
DAY = 86_400
START, END = 1, 2  # event kinds; a fire of both crons at one instant is START | END
_MAX_OPEN = 400 * DAY  # a window that stays open longer than this is a mistake (or never closes)


def keda_window(start: str, end: str, timezone: str) -> tuple[CronSpec, CronSpec, ZoneInfo]:
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
    start_spec, end_spec, tz = keda_window(start, end, timezone)
    now = epoch_seconds(at)
    never = -(2**63)  # Go's zero time: earlier than any instant, as KEDA compares it
    next_start = next_fire_timestamp(start_spec, tz, at)
    next_end = next_fire_timestamp(end_spec, tz, at)
    next_start = never if next_start is None else next_start
    next_end = never if next_end is None else next_end
    if next_start < next_end:
        return next_start < now < next_end
    return now > next_start or now < next_end


def events(start_spec: CronSpec, end_spec: CronSpec, tz: ZoneInfo, since: int,
           until: int) -> list[tuple[int, int]]:
    """Both crons' fires in ``[since, until)`` merged in time order as ``(instant, kind)``.

    A start before an end at the same instant (what merging the two streams gives), and then fires at one
    instant joined into one event: the two tagged runs sorted together, the innermost step of every check
    (docs/performance.md). Readers that may stop early ask for their range in pieces (:func:`_events_in_pieces`).
    """
    starts = list(fire_timestamps(start_spec, tz, since, until))
    ends = list(fire_timestamps(end_spec, tz, since, until))
    merged = sorted([(instant, START) for instant in starts] + [(instant, END) for instant in ends])
    if set(starts).isdisjoint(ends):  # each cron's own fires are distinct instants
        return merged
    joined: list[tuple[int, int]] = []
    for instant, kind in merged:
        if joined and joined[-1][0] == instant:
            joined[-1] = (instant, joined[-1][1] | kind)
        else:
            joined.append((instant, kind))
    return joined


def _events_in_pieces(start_spec: CronSpec, end_spec: CronSpec, tz: ZoneInfo, since: int, until: int,
                      horizon: int) -> Iterator[tuple[int, int]]:
    """:func:`events` in ``[since, horizon)``, lazily: ``[since, until)`` at once, then a week past ``until``
    and pieces doubling from there, so a reader that stops soon after ``until`` builds little of the horizon."""
    return chain.from_iterable(events(start_spec, end_spec, tz, begin, end)
                               for begin, end in _pieces(since, until, horizon))


def _pieces(since: int, until: int, horizon: int) -> Iterator[tuple[int, int]]:
    """Consecutive ranges covering ``[since, horizon)``: up to ``until``, then 8 days, 16 days and so on."""
    begin, end, length = since, max(since, min(until, horizon)), 8 * DAY
    while begin < horizon:
        yield begin, end
        begin, end, length = end, min(end + length, horizon), 2 * length


def keda_intervals(start_spec: CronSpec, end_spec: CronSpec, tz: ZoneInfo, since: int,
                   until: int) -> list[tuple[int, int]]:
    """KEDA's active intervals ``[open, close)`` (epoch seconds) that intersect ``[since, until)``.

    Active on ``[previous event, e)`` for every event ``e`` that includes an end; consecutive such events
    merge into one interval. The first interval may have opened before ``since``: the scan starts a week
    earlier and doubles its look-back until it sees the opening (up to ``_MAX_OPEN``). Most windows alternate (one
    end after each start), and :func:`_alternating_bounds` reads theirs without an event-by-event walk.
    """
    return list(zip(*interval_bounds(start_spec, end_spec, tz, since, until), strict=True))


def interval_bounds(start_spec: CronSpec, end_spec: CronSpec, tz: ZoneInfo, since: int,
                    until: int) -> tuple[list[int], list[int]]:
    """:func:`keda_intervals` as its opens and its closes: what a year of occurrences is built from."""
    alternating = _alternating_bounds(start_spec, end_spec, tz, since, until)
    if alternating is not None:
        return alternating
    lookback = 8 * DAY
    while True:
        intervals = _scan_intervals(start_spec, end_spec, tz, since - lookback, since, until)
        if not intervals or intervals[0][0] is not None:
            found = cast(list[tuple[int, int]], intervals)  # every interval's opening seen
            return [opened for opened, _ in found], [closed for _, closed in found]
        if lookback >= _MAX_OPEN:
            raise ValueError(f"KEDA keeps this window open since before {show_instant(since - lookback, tz)}: start "
                             "and end do not alternate")
        lookback *= 2


def _alternating_bounds(start_spec: CronSpec, end_spec: CronSpec, tz: ZoneInfo, since: int,
                        until: int) -> tuple[list[int], list[int]] | None:
    """:func:`interval_bounds` when, from a week before ``since`` to the first start at or after ``until``, each start
    is followed by exactly one end before the next start, never at the same instant (ends before the first start
    close intervals that are over by ``since``): each interval is then a start and the end after it. ``None`` when
    they do not alternate there (the event-by-event walk then decides) or no start follows ``until`` within
    ``_MAX_OPEN``."""
    scan_from = since - 8 * DAY
    starts = list(fire_timestamps(start_spec, tz, scan_from, until))
    following = next(fire_timestamps(start_spec, tz, until, until + _MAX_OPEN), None)
    if not starts or following is None:
        return None
    starts.append(following)
    ends = list(fire_timestamps(end_spec, tz, scan_from, following + 1))
    before = bisect_left(ends, starts[0])  # ends closing what opened before ``scan_from``
    if before and ends[before - 1] > since:
        return None  # that interval reaches into ``[since, until)``: the walk looks further back for its opening
    del ends[:before]
    if not interleaved(starts, ends):
        return None
    first = bisect_right(ends, since)  # the intervals that close after ``since``
    return starts[first:-1], ends[first:]


def interleaved(first: list[int], second: list[int]) -> bool:
    """Whether two ascending lists of fires strictly interleave, ``first[0] < second[0] < first[1] < …``, with
    ``first`` the longer by at most one: each fire comes before the next of the other list."""
    return (0 <= len(first) - len(second) <= 1 and all(map(lt, first, second))
            and all(map(lt, second, first[1:])))


def _scan_intervals(start_spec: CronSpec, end_spec: CronSpec, tz: ZoneInfo, scan_from: int, since: int,
                    until: int) -> list[tuple[int | None, int]]:
    """One pass of :func:`keda_intervals`; ``None`` opens an interval whose opening precedes ``scan_from``."""
    horizon = until + _MAX_OPEN
    intervals: list[tuple[int | None, int]] = []
    previous: int | None = None
    opened: int | None = None
    closed: int | None = None  # the last end of the run of ends being read, if any
    for instant, kind in _events_in_pieces(start_spec, end_spec, tz, scan_from, until, horizon):
        if kind & END:
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
        began = "" if opened is None else f" from {show_instant(opened, tz)}"
        raise ValueError(f"KEDA keeps this window open{began} past {show_instant(horizon, tz)}: start and end do not "
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


@dataclass(frozen=True)
class OccurrenceInstants:
    """A window's occurrences as epoch seconds, in order: occurrence ``i`` opens at ``scale_ups[i]``, its event
    starts at ``starts[i]`` and KEDA closes it at ``ends[i]`` (:class:`Occurrence` for one, as datetimes).

    A column per instant, because what reads a year of them asks for one instant of each (every scale-up, or every
    end) or pairs an end with the next scale-up.
    """

    scale_ups: tuple[int, ...]  # KEDA opens the window (the lead-shifted start)
    starts: tuple[int, ...]  # the event starts
    ends: tuple[int, ...]  # KEDA closes the window

    def __len__(self) -> int:
        return len(self.ends)


def recurring_occurrences(start: str, end: str, timezone: str, lead: timedelta, since: datetime,
                          until: datetime) -> list[Occurrence]:
    """Every occurrence of a recurring window whose ``[scale_up, end)`` intersects ``[since, until)``.

    Computed from the pair KEDA actually runs, ``shift_cron(start, -lead)`` and ``end``, so ``[scale_up, end)``
    is exactly where :func:`cron_window_active` of that pair is true; ``start`` is the first fire of the
    original start in that interval (``scale_up`` itself if DST or a too-long lead left none: such windows
    fail :func:`~prescale.model.schedule.dst.dst_problem` or
    :func:`~prescale.model.checks.window_times.lead_problem`). Linear in the number of fires; ``ValueError`` if
    KEDA would keep the window open for more than ``_MAX_OPEN``.
    """
    tz = load_zone(timezone)
    occurrences = occurrence_instants(start, end, timezone, lead, since, until)
    return [Occurrence(*(datetime.fromtimestamp(moment, tz) for moment in instants))
            for instants in zip(occurrences.scale_ups, occurrences.starts, occurrences.ends, strict=True)]


@lru_cache(maxsize=64)
def occurrence_instants(start: str, end: str, timezone: str, lead: timedelta, since: datetime,
                        until: datetime) -> OccurrenceInstants:
    """:func:`recurring_occurrences` as epoch seconds.

    Cached: the config checks, the window's budget and its failsafe each walk the same window's year, one
    window after another, so a few windows' worth is enough (and memory stays flat however many windows).
    """
    _check_lead(lead)
    start_spec, end_spec, tz = keda_window(start, end, timezone)
    scale_up_spec = keda_window(shift_cron(start, -lead), end, timezone)[0] if lead else start_spec
    opens, closes = interval_bounds(scale_up_spec, end_spec, tz, epoch_seconds(since), ceil_epoch_seconds(until))
    if not lead or not opens:  # without a lead, each interval opens at a start fire: the occurrence's start
        return OccurrenceInstants(tuple(opens), tuple(opens), tuple(closes))
    # Each occurrence's event starts at the first start fire after its scale-up, if one comes before its end.
    fires = [*fire_timestamps(start_spec, tz, opens[0], closes[-1]), closes[-1]]  # ends the searches below
    firsts = [fires[bisect_left(fires, opened)] for opened in opens]
    starts = [begins if begins < closed else opened
              for opened, begins, closed in zip(opens, firsts, closes, strict=True)]
    return OccurrenceInstants(tuple(opens), tuple(starts), tuple(closes))


def one_off(window: EventWindow) -> Occurrence:
    """A one-off window's only occurrence: scale-up, start and end in its zone."""
    return one_off_occurrence(window.local_start, window.local_end, window.timezone, window.lead)


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
        start_spec, end_spec, zone = keda_window(start, end, str(occurrence.start.tzinfo))
        intervals = keda_intervals(start_spec, end_spec, zone, epoch_seconds(now), expected[0][1])
    except ValueError as error:
        return f"its dated crons {start!r} → {end!r} repeat every year and {error}"
    if intervals == expected:
        return None
    shown = "; ".join(f"{show_instant(opened, zone)} → {show_instant(closed, zone)}" for opened, closed in intervals)
    return (f"its dated crons {start!r} → {end!r} repeat every year, so before the event ends KEDA would be "
            f"active {shown or 'never'} instead of {show_instant(expected[0][0], zone)} → "
            f"{show_instant(expected[0][1], zone)}")
