"""Which time-zone names a window may use, and what to write instead of the ones it may not.

A window's ``timezone`` must name a *place* (``Asia/Seoul``, ``America/New_York``) or be ``UTC``: KEDA
and the failsafe CronJob follow that place's clock, daylight saving included. Abbreviations, legacy tzdata names
and fixed offsets look like zones but are traps, each refused with the place it is usually taken for
(docs/guardrails.md#time-zones; how the tables are kept: docs/internals.md#prescalemodelvaluestime_zones).
"""

from __future__ import annotations

import difflib
import re
from datetime import datetime, timedelta
from functools import cache
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

# abbreviation as tzdata prints it → (zone, where) people mostly mean by it, most likely first; "where"
# is shown when there are several.
ABBREVIATIONS: dict[str, tuple[tuple[str, str], ...]] = {
    "ACDT": (("Australia/Adelaide", "South Australia"),),
    "ACST": (("Australia/Adelaide", "South Australia"), ("Australia/Darwin", "Northern Territory")),
    "ADT": (("America/Halifax", "Atlantic Canada"),),
    "AEDT": (("Australia/Sydney", "New South Wales, Victoria"),),
    "AEST": (("Australia/Sydney", "New South Wales, Victoria"), ("Australia/Brisbane", "Queensland")),
    "AKDT": (("America/Anchorage", "Alaska"),),
    "AKST": (("America/Anchorage", "Alaska"),),
    "AST": (("America/Halifax", "Atlantic Canada"), ("America/Puerto_Rico", "Caribbean")),
    "AWST": (("Australia/Perth", "Western Australia"),),
    "BST": (("Europe/London", "UK"),),
    "CAT": (("Africa/Maputo", "Central Africa"),),
    "CDT": (("America/Chicago", "US Central"),),
    "CEST": (("Europe/Berlin", "Germany"), ("Europe/Paris", "France")),
    "CET": (("Europe/Berlin", "Germany"), ("Europe/Paris", "France")),
    "ChST": (("Pacific/Guam", "Guam"),),
    "CST": (("America/Chicago", "US Central"), ("Asia/Shanghai", "China"), ("America/Mexico_City", "Mexico")),
    "EAT": (("Africa/Nairobi", "East Africa"),),
    "EDT": (("America/New_York", "US Eastern"),),
    "EEST": (("Europe/Athens", "Greece"), ("Europe/Helsinki", "Finland"), ("Africa/Cairo", "Egypt")),
    "EET": (("Europe/Athens", "Greece"), ("Europe/Helsinki", "Finland"), ("Africa/Cairo", "Egypt")),
    "EST": (("America/New_York", "US Eastern"),),
    "GMT": (("Europe/London", "UK, BST in summer"), ("UTC", "no daylight saving")),
    "HDT": (("America/Adak", "Aleutian Islands"),),
    "HKT": (("Asia/Hong_Kong", "Hong Kong"),),
    "HST": (("Pacific/Honolulu", "Hawaii"),),
    "IDT": (("Asia/Jerusalem", "Israel"),),
    "IST": (("Asia/Kolkata", "India"), ("Europe/Dublin", "Ireland"), ("Asia/Jerusalem", "Israel")),
    "JST": (("Asia/Tokyo", "Japan"),),
    "KST": (("Asia/Seoul", "South Korea"),),
    "MDT": (("America/Denver", "US Mountain"),),
    "MSK": (("Europe/Moscow", "Moscow"),),
    "MST": (("America/Denver", "US Mountain, with daylight saving"), ("America/Phoenix", "Arizona, without")),
    "NDT": (("America/St_Johns", "Newfoundland"),),
    "NST": (("America/St_Johns", "Newfoundland"),),
    "NZDT": (("Pacific/Auckland", "New Zealand"),),
    "NZST": (("Pacific/Auckland", "New Zealand"),),
    "PDT": (("America/Los_Angeles", "US Pacific"),),
    "PKT": (("Asia/Karachi", "Pakistan"),),
    "PST": (("America/Los_Angeles", "US Pacific"), ("Asia/Manila", "Philippines")),
    "SAST": (("Africa/Johannesburg", "South Africa"),),
    "SST": (("Pacific/Pago_Pago", "American Samoa"),),
    "WAT": (("Africa/Lagos", "West Africa"),),
    "WEST": (("Europe/Lisbon", "Portugal"),),
    "WET": (("Europe/Lisbon", "Portugal"),),
    "WIB": (("Asia/Jakarta", "Western Indonesia"),),
    "WIT": (("Asia/Jayapura", "Eastern Indonesia"),),
    "WITA": (("Asia/Makassar", "Central Indonesia"),),
}

# tzdata names that are an abbreviation or a POSIX TZ string → the abbreviation whose places to suggest.
LEGACY_NAMES = {"EST": "EST", "MST": "MST", "HST": "HST", "EST5EDT": "EDT", "CST6CDT": "CDT", "MST7MDT": "MDT",
                "PST8PDT": "PDT", "CET": "CET", "MET": "CET", "EET": "EET", "WET": "WET"}
GMT_NAMES = frozenset({"GMT", "GMT0", "GMT+0", "GMT-0", "Greenwich", "Etc/GMT", "Etc/GMT0", "Etc/GMT+0",
                       "Etc/GMT-0", "Etc/Greenwich"})
NO_PLACE = {"localtime": "is whatever zone the machine running it is set to",
            "Factory": "is tzdata's placeholder for a zone not yet chosen"}

_ETC_OFFSET = re.compile(r"^Etc/GMT([+-])(\d{1,2})$")
_UTC_OFFSET = re.compile(r"^(UTC|GMT)?\s*[+-]\d{1,2}(:?\d{2})?$", re.IGNORECASE)
_BY_UPPER = {abbreviation.upper(): places for abbreviation, places in ABBREVIATIONS.items()}
# Two instants half a year apart: a zone's smaller offset of the two is its standard (winter) time.
_SEASONS = (datetime(2026, 1, 15, 12), datetime(2026, 7, 15, 12))
_AREA_CITY = 'write the place as Area/City like "Asia/Seoul", or "UTC"'


def time_zone_problem(name: str) -> str | None:
    """Why ``name`` cannot be a window's time zone (a phrase that follows the quoted name), or None if it can."""
    if name in _accepted():
        return None
    if name in LEGACY_NAMES:
        return _legacy(name)
    if name in GMT_NAMES:
        return ("is UTC all year, not the UK's clock (BST, UTC+01:00, in summer); write 'UTC' for UTC, "
                "or 'Europe/London' for the UK")
    if _ETC_OFFSET.match(name):
        return _etc_offset(name)
    if name in NO_PLACE:
        return f"{NO_PLACE[name]}, not a place's time zone; {_AREA_CITY}"
    if name.upper() in _BY_UPPER:
        return f"is a time-zone abbreviation, not an IANA time zone; {_suggest(_BY_UPPER[name.upper()])}"
    if _UTC_OFFSET.match(name):
        return (f"is a UTC offset, not an IANA time zone: an offset names no place and has no daylight saving; "
                f"{_AREA_CITY}")
    if re.fullmatch(r"[A-Za-z]{2,5}", name):
        return f"is not an IANA time zone (abbreviations are not zones); {_AREA_CITY}"
    close = difflib.get_close_matches(name, sorted(_accepted()), n=1, cutoff=0.6)
    hint = f"; did you mean {close[0]!r}?" if close else ""
    return f"is not an IANA time zone like \"Asia/Seoul\" or \"UTC\"{hint}"


@cache
def _accepted() -> frozenset[str]:
    refused = {*LEGACY_NAMES, *GMT_NAMES, *NO_PLACE}
    return frozenset(name for name in available_timezones()
                     if name not in refused and not _ETC_OFFSET.match(name))


def _legacy(name: str) -> str:
    places = ABBREVIATIONS[LEGACY_NAMES[name]]
    offsets = {_offset(name, moment) for moment in _SEASONS}
    if len(offsets) > 1:
        return (f"is a legacy tzdata name kept for old systems, not a place: depending on the tzdata version it "
                f"is a US or EU rule set or a link to one city; {_suggest(places)}")
    fixed, meant = offsets.pop(), places[0][0]
    summer = max(_offset(meant, moment) for moment in _SEASONS)
    late = (f" ({meant} moves to {_utc(summer)} in summer: a window in {name} would run an hour late there "
            f"all summer)") if summer != fixed else ""
    return f"is tzdata's legacy name for a fixed {_utc(fixed)} all year, not a place's clock{late}; {_suggest(places)}"


def _etc_offset(name: str) -> str:
    match = _ETC_OFFSET.match(name)
    assert match is not None, name  # only called for names the pattern matched
    sign, hours = match.groups()
    offset = timedelta(hours=int(hours)) * (-1 if sign == "+" else 1)
    places = dict.fromkeys(zone for entries in ABBREVIATIONS.values() for zone, _ in entries
                           if zone != "UTC" and _standard_offset(zone) == offset)
    example = f"e.g. {' or '.join(repr(zone) for zone in list(places)[:2])}, " if places else ""
    direction = "behind" if sign == "+" else "ahead of"
    return (f"is a fixed {_utc(offset)} without daylight saving, and its sign is inverted (tzdata's {name} is "
            f"{hours} hour{'s' * (hours != '1')} {direction} UTC); write the place whose clock the window follows, "
            f"{example}or 'UTC' with the times in UTC")


def _standard_offset(zone: str) -> timedelta:
    return min(_offset(zone, moment) for moment in _SEASONS)


def _offset(zone: str, moment: datetime) -> timedelta:
    """The zone's UTC offset at a naive wall-clock ``moment`` (every real zone has one)."""
    offset = ZoneInfo(zone).utcoffset(moment)
    assert offset is not None, zone
    return offset


def _utc(offset: timedelta) -> str:
    minutes = int(offset.total_seconds()) // 60
    sign = "-" if minutes < 0 else "+"
    return f"UTC{sign}{abs(minutes) // 60:02d}:{abs(minutes) % 60:02d}"


def _suggest(places: tuple[tuple[str, str], ...]) -> str:
    if len(places) == 1:
        return f"did you mean {places[0][0]!r}?"
    named = [f"{zone!r} ({where})" for zone, where in places]
    return f"write the place's zone, e.g. {', '.join(named[:-1])} or {named[-1]}"


def load_zone(name: str) -> ZoneInfo:
    """The IANA zone ``name``; ``ValueError`` like KEDA's ``unable to load timezone`` for anything else."""
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, TypeError):
        raise ValueError(f"unable to load timezone: unknown time zone {name}") from None
