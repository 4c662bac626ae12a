"""Go durations (``"10m"``, ``"1h30m"``, ``"1.5h"``, ``"500ms"``) as written in stack config, and the narrower form
the NodePool CRD takes.

Stack config durations follow Go's ``time.ParseDuration`` (golang/go src/time/format.go): a sequence of decimal
numbers, each with a unit among ``ns``, ``us`` (``µs``), ``ms``, ``s``, ``m`` and ``h``, or a lone ``0``. Each field
then says how fine it may be: lead times and the failsafe's grace are whole minutes (KEDA's cron has no seconds),
and the NodePool CRD's ``consolidateAfter``, ``expireAfter`` and ``terminationGracePeriod`` take only whole
``h``/``m``/``s`` (``^([0-9]+(s|m|h))+$``), so :func:`nodepool_duration` writes them in that form.
"""

from __future__ import annotations

import re
from datetime import timedelta
from decimal import Decimal
from functools import lru_cache

# Go's units, in nanoseconds (time.unitMap). Also the alternatives of PATTERN: longer units first, so "ms" is not
# read as "m" followed by a stray "s".
_UNITS = {"ns": 1, "us": 10**3, "µs": 10**3, "μs": 10**3, "ms": 10**6, "s": 10**9, "m": 60 * 10**9,
          "h": 3600 * 10**9}
_NUMBER = r"(?:\d+(?:\.\d*)?|\.\d+)"
_UNIT = "|".join(_UNITS)
# Also the pattern of the editors' JSON Schema (prescale.model.config_schema): no sign, as no duration here is negative.
PATTERN = rf"(?:0|(?:{_NUMBER}(?:{_UNIT}))+)"
_DURATION = re.compile(PATTERN)
_PART = re.compile(rf"({_NUMBER})({_UNIT})")
_MAX_NANOSECONDS = 2**63 - 1  # Go's time.Duration is an int64 of nanoseconds
# The NodePool CRD's pattern for terminationGracePeriod (and, beside Never, for consolidateAfter and expireAfter).
_NODEPOOL = re.compile(r"([0-9]+(s|m|h))+")
ALLOWED = ('a Go duration: numbers with a unit each, h, m, s, ms, us or ns, decimals allowed (e.g. "10m", "1h30m" '
           'or "1.5h")')


def shorter_than(minimum: timedelta) -> str:
    """A pattern (for the editors' schema) of Go durations certainly shorter than ``minimum``, a whole number of
    minutes: zero parts of any unit and at most one part below it (``"0"``, ``"1m"``, ``"90s"``, ``"0h500ms"``). A sum
    of several short parts is left to the check, so the pattern never matches a duration the check accepts."""
    minutes = minimum // timedelta(minutes=1)
    assert minutes >= 1 and minimum % timedelta(minutes=1) == timedelta(0), minimum

    def below(limit: int) -> str:
        return "|".join(map(str, range(limit)))
    zero = rf"(?:(?:0+(?:\.0*)?|\.0+)(?:{_UNIT}))"
    short = [rf"0*(?:{below(minutes)})(?:\.\d*)?m", r"\.\d+m", rf"0*(?:{below(60 * minutes)})(?:\.\d*)?s",
             *(rf"0*\d{{1,{len(str(60 * minutes * per_second)) - 1}}}(?:\.\d*)?{unit}"
               for unit, per_second in (("ms", 10**3), ("us", 10**6), ("µs", 10**6), ("μs", 10**6), ("ns", 10**9)))]
    return rf"^(?:0|{zero}*(?:{'|'.join(short)})?{zero}*)$"


@lru_cache(maxsize=1024)  # pure, and a window's lead time is read by each of its checks (`EventWindow.lead`)
def parse_duration(text: str) -> timedelta:
    """The exact ``timedelta`` of Go duration ``text``; ``ValueError`` if it is not one, is negative, or is finer
    than ``timedelta``'s microsecond (which no setting here needs)."""
    if not isinstance(text, str) or not _DURATION.fullmatch(text):
        if isinstance(text, str) and text.startswith("-") and _DURATION.fullmatch(text[1:]):
            raise ValueError("is negative: a duration here is a length of time")
        if isinstance(text, str) and re.fullmatch(_NUMBER, text):
            raise ValueError(f'has no unit: write one, like "{text}m" or "{text}h" (m for minutes, h for hours)')
        raise ValueError(f"is not a duration; use {ALLOWED}")
    total = sum(int(Decimal(number) * _UNITS[unit]) for number, unit in _PART.findall(text))
    if total > _MAX_NANOSECONDS:
        raise ValueError("is longer than a Go duration can be (about 2562047h)")
    microseconds, rest = divmod(total, 1000)
    if rest:
        raise ValueError("is finer than a microsecond, which no setting here needs")
    return timedelta(microseconds=microseconds)


def format_duration(delta: timedelta) -> str:
    """``timedelta`` → ``"3h10m"``/``"45m"``/``"0s"``: the shortest form Karpenter's patterns accept."""
    total = int(delta.total_seconds())
    hours, rest = divmod(total, 3600)
    minutes, seconds = divmod(rest, 60)
    text = (f"{hours}h" if hours else "") + (f"{minutes}m" if minutes else "") + (f"{seconds}s" if seconds else "")
    return text or "0s"


def nodepool_duration(text: str) -> str:
    """A duration of whole seconds (or ``Never``), as config validation leaves those of a NodePool, in the form the
    NodePool CRD takes: as written when its pattern accepts that (so a deployed NodePool keeps its value), else in
    hours, minutes and seconds."""
    if text == "Never" or _NODEPOOL.fullmatch(text):
        return text
    return format_duration(parse_duration(text))
