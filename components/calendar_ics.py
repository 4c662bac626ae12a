"""An iCalendar file (``.ics``, RFC 5545, as Google Calendar and Outlook export) as a prescale calendar.

Each ``VEVENT`` becomes an event named after its ``SUMMARY`` (lowercased, runs of other characters as ``-``):

* a one-off: its ``DTSTART`` and ``DTEND`` (or ``DURATION``) as local date-times in its ``TZID`` (a UTC time in UTC);
* a daily or weekly ``RRULE`` (``INTERVAL`` 1, weekly on its ``BYDAY`` days or ``DTSTART``'s): the two crons that
  fire at its start and end, in its ``TZID``, which KEDA then reads as the event's times.

What a cron cannot say exactly is refused with why: floating times (no zone), seconds, ``COUNT``/``UNTIL`` (a cron
never ends), ``EXDATE``/``RDATE``, other frequencies or intervals, monthly by weekday, events of a day or more.
Parsed with the ``icalendar`` package.
"""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import icalendar

from .model.config.base import INSTANT_YEARS

_DAYS = {"SU": 0, "MO": 1, "TU": 2, "WE": 3, "TH": 4, "FR": 5, "SA": 6}  # cron's day-of-week numbers


class IcsError(ValueError):
    """What in the file a prescale calendar cannot hold, and why."""


def ics_calendar(text: str) -> dict[str, Any]:
    """The calendar's events, as a prescale calendar map (``{"events": [...]}``); ``IcsError`` naming every event
    that cannot be one."""
    try:
        parsed = icalendar.Calendar.from_ical(text)
    except (ValueError, AttributeError) as error:  # icalendar's parser fails on some malformed parameters that way
        raise IcsError(f"not an iCalendar file: {error}") from None
    events, problems = [], []
    for index, component in enumerate(parsed.walk("VEVENT")):
        try:
            events.append(_event(component))
        except IcsError as error:
            problems.append(f"VEVENT {index} ({component.get('SUMMARY', 'no SUMMARY')}): {error}")
    if problems:
        raise IcsError("; ".join(problems))
    return {"events": events}


def _event(component: Any) -> dict[str, Any]:
    name = re.sub(r"[^a-z0-9]+", "-", str(component.get("SUMMARY", "")).lower()).strip("-")[:40].rstrip("-")
    if not name:
        raise IcsError("no SUMMARY to name it by")
    start = _time(component, "DTSTART")
    if "DTEND" in component:
        end = _time(component, "DTEND")
    else:
        length = _decoded(component, "DURATION") if "DURATION" in component else None
        if not isinstance(length, timedelta):
            raise IcsError("no end: give it a DTEND or a DURATION")
        if not timedelta(0) < length < timedelta(days=1):
            raise IcsError("it must end after it starts, within a day")
        end = start + length
    zone = _zone(start)
    start, end = start.astimezone(ZoneInfo(zone)), end.astimezone(ZoneInfo(zone))
    if start.second or end.second:
        raise IcsError("times with seconds: a cron and a window's date-times are whole minutes")
    if end <= start or end - start >= timedelta(days=1):
        raise IcsError("it must end after it starts, within a day")
    for unsupported in ("EXDATE", "RDATE", "EXRULE"):
        if unsupported in component:
            raise IcsError(f"{unsupported}: a cron cannot skip or add single dates; split the event instead")
    if "RRULE" not in component:
        return {"name": name, "timezone": zone, "start": f"{start:%Y-%m-%dT%H:%M}", "end": f"{end:%Y-%m-%dT%H:%M}"}
    try:
        rule = dict(_decoded(component, "RRULE"))
    except (TypeError, ValueError) as error:  # icalendar keeps a rule it cannot parse as a "broken" property
        raise IcsError(f"RRULE cannot be read: {error}") from None
    days = _days(rule, start.date())
    later = (end.date() - start.date()).days  # an end past midnight fires the next day
    return {"name": name, "timezone": zone, "start": f"{start.minute} {start.hour} * * {_cron_days(days, 0)}",
            "end": f"{end.minute} {end.hour} * * {_cron_days(days, later)}"}


def _time(component: Any, key: str) -> datetime:
    """The event's ``DTSTART`` or ``DTEND``: a date-time in the years a window's times may take."""
    moment = _decoded(component, key)
    if not isinstance(moment, datetime):
        raise IcsError(f"{key} is a date, not a time: an all-day event cannot be a window; give it times")
    if moment.year not in INSTANT_YEARS:
        raise IcsError(f"{key} must be in a year from {INSTANT_YEARS[0]} to {INSTANT_YEARS[-1]}, as a window's times")
    return moment


def _decoded(component: Any, key: str) -> Any:
    """The event's ``key`` property as a value, given once."""
    if key not in component:
        raise IcsError(f"no {key}")
    if isinstance(component.get(key), list):
        raise IcsError(f"{key} given more than once: an event has one")
    try:
        return component.decoded(key)
    except ValueError as error:  # icalendar's InvalidCalendar errors among them
        raise IcsError(f"{key} cannot be read: {error}") from None


def _zone(moment: datetime) -> str:
    if moment.tzinfo is None:
        raise IcsError("a floating time (no TZID): give DTSTART a TZID, or a UTC time ending in Z")
    if moment.tzinfo is UTC or moment.utcoffset() == timedelta(0) and getattr(moment.tzinfo, "key", "UTC") == "UTC":
        return "UTC"
    key = getattr(moment.tzinfo, "key", None)
    if key is None:
        raise IcsError(f"time zone {moment.tzinfo} is not an IANA zone: use a TZID such as Asia/Seoul")
    return str(key)


def _days(rule: dict[str, list[Any]], first: date) -> list[int]:
    """The cron day-of-week numbers a daily or weekly rule fires on."""
    frequency = rule.pop("FREQ", [None])[0]
    interval = rule.pop("INTERVAL", [1])[0]
    if "COUNT" in rule or "UNTIL" in rule:
        raise IcsError("COUNT or UNTIL: a cron never ends; end the window by removing it (prescale prune)")
    if frequency not in ("DAILY", "WEEKLY") or int(interval) != 1:
        raise IcsError(f"RRULE FREQ={frequency} INTERVAL={interval}: only daily or weekly, every day or week, map "
                       "to a cron exactly")
    by_day = rule.pop("BYDAY", None)
    rule.pop("WKST", None)
    if rule:
        raise IcsError(f"RRULE {', '.join(sorted(rule))}: a cron cannot say it")
    if frequency == "DAILY":
        if by_day:
            raise IcsError("RRULE FREQ=DAILY with BYDAY: write it FREQ=WEEKLY")
        return list(range(7))
    if not by_day:
        return [(first.weekday() + 1) % 7]
    days = []
    for day in by_day:
        text = str(day)
        if text not in _DAYS:
            raise IcsError(f"BYDAY {text}: the nth weekday of a month has no cron")
        days.append(_DAYS[text])
    return sorted(days)


def _cron_days(days: list[int], shift: int) -> str:
    moved = sorted((day + shift) % 7 for day in days)
    return "*" if len(moved) == 7 else ",".join(map(str, moved))
