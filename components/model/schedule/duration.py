"""Go-style durations (``"10m"``, ``"1h30m"``, ``"720h"``) as written in stack config and Karpenter specs.

Karpenter's ``consolidateAfter``/``expireAfter`` and our ``leadTime`` use Go's duration syntax restricted to
hours, minutes and seconds; parsing them into ``timedelta`` lets the schedule math and the validation compare
them with event windows.
"""

from __future__ import annotations

import re
from datetime import timedelta

# Also the pattern of the editors' JSON Schema (prescale.model.config_schema).
PATTERN = r"(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?"
_DURATION = re.compile(f"^{PATTERN}$")
ALLOWED = "hours, minutes and seconds like \"10m\", \"1h30m\" or \"90s\""


def parse_duration(text: str) -> timedelta:
    """The ``timedelta`` of a Go-style ``XhYmZs`` duration; ``ValueError`` if malformed or empty."""
    match = _DURATION.match(text) if isinstance(text, str) else None
    if not text or match is None:
        raise ValueError(f"{text!r} is not a duration; use {ALLOWED}")
    hours, minutes, seconds = (int(part or 0) for part in match.groups())
    return timedelta(hours=hours, minutes=minutes, seconds=seconds)


def format_duration(delta: timedelta) -> str:
    """``timedelta`` → ``"3h10m"``/``"45m"``/``"0s"``: the shortest form Karpenter's patterns accept."""
    total = int(delta.total_seconds())
    hours, rest = divmod(total, 3600)
    minutes, seconds = divmod(rest, 60)
    text = (f"{hours}h" if hours else "") + (f"{minutes}m" if minutes else "") + (f"{seconds}s" if seconds else "")
    return text or "0s"
