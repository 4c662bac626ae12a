"""A cron moved earlier or later by a duration, as one 5-field cron: how a window's lead time becomes KEDA's
scale-up cron, and how a local time becomes a UTC freeze."""

from __future__ import annotations

from datetime import timedelta
from functools import lru_cache

from ..values.cron import FIELD_VALUES, CronSpec, parse_cron, render_field
from ..values.duration import format_duration

_MINUTE = timedelta(minutes=1)
_MINUTES_PER_DAY = 1_440
_SAFE_DAYS_OF_MONTH = range(1, 29)  # days every month has: shifting these by a day stays in the same month


class ShiftError(ValueError):
    """A move one cron cannot express: why (the message), and what a lead time or start would have to be instead
    (``fix``), which differs with the cause."""

    def __init__(self, reason: str, fix: str):
        super().__init__(reason)
        self.fix = fix


@lru_cache(maxsize=4096)  # pure; each window's checks, plan and components ask for its scale-up cron again
def shift_cron(expr: str, delta: timedelta) -> str:
    """The same schedule moved by ``delta`` in wall-clock terms (negative: earlier), as one 5-field cron.

    Times of day move by ``delta``; fires pushed past midnight move the day fields by whole days: day-of-week
    modulo 7, day-of-month only within days 1-28 (the ones every month has), month never. Anything one cron
    cannot express exactly raises :class:`ShiftError`: a delta that is not whole minutes; times of day that stop
    being every-hour × every-minute; some fires crossing midnight and others not while the day fields are
    restricted; a day-of-month shift that would leave the month; a restricted month with a day shift. Day
    fields are copied verbatim when no day moves; a zero ``delta`` returns ``expr`` unchanged.
    """
    if not delta:
        return expr
    if delta % _MINUTE:
        raise ShiftError(f"cannot shift by {_signed(delta)}: cron has whole minutes only", "whole minutes")
    spec = parse_cron(expr)
    if not spec.times:
        raise ShiftError(f"{expr!r} never fires", "a cron that fires")
    moved: dict[int, set[int]] = {}
    for minute in spec.times:
        day_shift, minute_of_day = divmod(minute + delta // _MINUTE, _MINUTES_PER_DAY)
        moved.setdefault(day_shift, set()).add(minute_of_day)
    every_day = _fires_every_day(spec)
    if len(moved) > 1 and not every_day:
        crossing = ", ".join(f"{_hhmm(m)} ({d:+d} day)" for d, ms in sorted(moved.items()) for m in sorted(ms))
        raise ShiftError(f"shifting {expr!r} by {_signed(delta)} moves some fires across midnight and not others "
                         f"({crossing}) while its day fields are restricted; one cron cannot do both",
                         "a lead time that keeps every start time on its day, a start on every day, or one window per "
                         "start time")
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
        raise ShiftError(f"shifting {expr!r} by {_signed(delta)} gives the times {shown}, which are not every listed "
                         "hour at every listed minute; one cron cannot express them",
                         "one window per start time, each with its own lead time")
    return render_field(minutes, "minute"), render_field(hours, "hour")


def _shifted_day_fields(spec: CronSpec, day_fields: list[str], days: int) -> list[str]:
    """Day-of-month, month, day-of-week texts for fires moved by ``days`` whole days (see :func:`shift_cron`)."""
    dom_text, month_text, dow_text = day_fields
    restricts_dom = not spec.dom_star
    restricts_dow = not spec.dow_star
    if spec.months != FIELD_VALUES["month"] and (restricts_dow or not restricts_dom):
        raise ShiftError(f"the fires of {spec.expr!r} move {_days(days)} and its month field {month_text!r} is "
                         "restricted: days at a month's edge would move into another month",
                         "a lead time that stays within the day, or a start without a month restriction")
    if restricts_dom:
        moved = {day + days for day in spec.days_of_month}
        unsafe = sorted(day for day in spec.days_of_month if day not in _SAFE_DAYS_OF_MONTH
                        or day + days not in _SAFE_DAYS_OF_MONTH)
        if unsafe:
            raise ShiftError(f"the fires of {spec.expr!r} move {_days(days)} and day-of-month {unsafe[0]} would "
                             "cross into another month (months differ in length), which one cron cannot express "
                             f"(days {_safe_days(days)} stay in their month)",
                             "a lead time within the day, or a start on the days that stay in their month")
        dom_text = render_field(frozenset(moved), "day-of-month", star=False)
    if restricts_dow:
        dow_text = render_field(frozenset((day + days) % 7 for day in spec.days_of_week), "day-of-week", star=False)
    return [dom_text, month_text, dow_text]


def _safe_days(days: int) -> str:
    """The days of month whose fires stay in their month when moved by ``days`` (``2-28`` a day earlier)."""
    safe = [day for day in _SAFE_DAYS_OF_MONTH if day + days in _SAFE_DAYS_OF_MONTH]
    return f"{safe[0]}-{safe[-1]}" if safe else "none"


def _signed(delta: timedelta) -> str:
    return ("-" if delta < timedelta(0) else "+") + format_duration(abs(delta))


def _hhmm(minute_of_day: int) -> str:
    return f"{minute_of_day // 60:02d}:{minute_of_day % 60:02d}"


def _days(days: int) -> str:
    return f"{abs(days)} day{'s' * (abs(days) != 1)} {'later' if days > 0 else 'earlier'}"
