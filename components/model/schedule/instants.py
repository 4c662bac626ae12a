"""How instants are written: for people in a window's zone, and for tools in UTC (one format everywhere); and how
the instant taken as "now" is read (``--at``, ``$PRESCALE_NOW``)."""

from __future__ import annotations

from datetime import UTC, datetime
from zoneinfo import ZoneInfo

from ..config.base import INSTANT_YEARS


def show_instant(instant: int | datetime, tz: ZoneInfo) -> str:
    """``Tue 2026-12-01 07:45 KST``: an instant (epoch seconds or aware) as a person reads it in ``tz``."""
    moment = instant if isinstance(instant, datetime) else datetime.fromtimestamp(instant, tz)
    return f"{moment.astimezone(tz):%a %Y-%m-%d %H:%M %Z}"


def utc_iso(moment: datetime) -> str:
    """``2026-12-01T07:45:00Z``: an aware instant as every JSON document and stack output writes it (RFC 3339 in
    UTC, whole seconds, as EC2 takes a reservation's end date)."""
    return f"{moment.astimezone(UTC):%Y-%m-%dT%H:%M:%SZ}"


INSTANT_EXAMPLE = "2027-03-01 or 2027-03-01T08:00+09:00"


def parse_instant(text: str) -> datetime:
    """An ISO-8601 date or date-time as an aware instant, one without an offset in UTC; ``ValueError`` otherwise."""
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise ValueError(f"{text!r} is not an ISO-8601 date or date-time (e.g. {INSTANT_EXAMPLE})") from None
    if moment.year not in INSTANT_YEARS:
        raise ValueError(f"{text!r} is not in a year from {INSTANT_YEARS[0]} to {INSTANT_YEARS[-1]}")
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)
