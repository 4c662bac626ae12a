"""Where clocks change: the offset changes of a zone, and the fires or local times that DST makes KEDA and the
CronJob controller skip or repeat (robfig/cron walks wall-clock time)."""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from functools import lru_cache
from itertools import repeat
from operator import add
from zoneinfo import ZoneInfo

from ..values.cron import (
    CronSpec,
    calendar_months,
    clock_change_days,
    day_offsets,
    epoch_seconds,
    next_fire_timestamp,
    parse_cron,
    wall_instants,
)
from ..values.time_zones import load_zone
from .instants import show_instant

_MINUTE = timedelta(minutes=1)
_DAY = 86_400


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
    before = offset_at(tz, low)
    while high - low > 1:
        middle = (low + high) // 2
        if offset_at(tz, middle) == before:
            low = middle
        else:
            high = middle
    after = offset_at(tz, high)
    walls = sorted(datetime.fromtimestamp(high + offset, UTC).replace(tzinfo=None) for offset in (before, after))
    return _Transition(high, before, after, walls[0], walls[1])


def clock_changes(tz: ZoneInfo, since: int, until: int) -> list[int]:
    """The instants of the offset changes in ``[since, until]``: every window asks for a range of its own, and each
    month's changes are found once per zone (:func:`_month_transitions`)."""
    first, last = (datetime.fromtimestamp(instant, tz).date() for instant in (since, until))
    days = (first - timedelta(days=1), last + timedelta(days=1))  # a change's day is its instant's date ±1 day
    return sorted({transition.instant for transition in _transitions(tz, *days)
                   if since <= transition.instant <= until})


def offset_at(tz: ZoneInfo, instant: int) -> int:
    offset = datetime.fromtimestamp(instant, tz).utcoffset()
    assert offset is not None, tz.key  # an aware datetime in a ZoneInfo always has one
    return offset // timedelta(seconds=1)


def wall_shifted(instants: list[int], delta: timedelta, tz: ZoneInfo) -> list[int]:
    """Each of the ascending ``instants`` moved by ``delta`` on ``tz``'s wall clock, as a cron moved by
    :func:`~prescale.model.schedule.shift.shift_cron` fires: a scale-up is the start's wall time minus the lead, a
    failsafe run the end's plus the grace. More than a day from a clock change that is adding the seconds (mapped in
    C: a year of daily fires per window); nearer one it goes through the local time (the first of a repeated one)."""
    seconds = delta // timedelta(seconds=1)
    shifted = list(map(add, instants, repeat(seconds)))
    if not instants:
        return shifted
    before, after = max(seconds, 0) + _DAY, _DAY - min(seconds, 0)  # how far an instant moved across a change may be
    for change in clock_changes(tz, instants[0] - after, instants[-1] + before):
        for index in range(bisect_left(instants, change - before), bisect_right(instants, change + after)):
            wall = datetime.fromtimestamp(instants[index], tz).replace(tzinfo=None) + delta
            shifted[index] = epoch_seconds(wall.replace(tzinfo=tz))
    return shifted


@lru_cache(maxsize=256)  # every cron of every window in a zone is checked over the same year
def _transitions(tz: ZoneInfo, first: date, last: date) -> tuple[_Transition, ...]:
    """Every offset change whose day lies in ``[first, last]``, from the months' (:func:`_month_transitions`)."""
    found: dict[int, _Transition] = {}  # a change at midnight shows on two days
    for year, month in calendar_months(first, last):
        found |= {transition.instant: transition for day, transition in _month_transitions(tz, year, month)
                  if first <= day <= last}
    return tuple(sorted(found.values(), key=lambda transition: transition.instant))


@lru_cache(maxsize=1024)
def _month_transitions(tz: ZoneInfo, year: int, month: int) -> tuple[tuple[date, _Transition], ...]:
    """The offset changes a month's days touch, each with the day that shows it.

    Found from the days whose offsets differ (:func:`~prescale.model.values.cron.clock_change_days`, the cache the
    month's fires read too), then to the second. Cached: every cron of every window in a zone asks for the same
    months.
    """
    found = []
    for day in sorted(clock_change_days(tz, year, month)):
        on = date(year, month, day)
        start_offset, end_offset = day_offsets(tz, on)
        midnight = epoch_seconds(datetime.combine(on, time(0), UTC))
        found.append((on, _transition_between(tz, midnight - start_offset - _DAY // 2,
                                              midnight + _DAY - end_offset + _DAY // 2)))
    return tuple(found)


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
        fire = next_fire_timestamp(spec, tz, datetime.fromtimestamp(transition.instant - 1, UTC)) \
            if transition.off_the_hour else None  # only such a change can skip the first fire after it
        if fire is not None:
            return (f"its first fire after the clock change in {tz.key} on {transition.low:%Y-%m-%d} "
                    f"({transition.describe()}) is at {show_instant(fire, tz)}: robfig/cron, which KEDA uses, walks "
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
