"""Windows that name a calendar event take its times, before anything is validated.

A window with ``event: <name>`` gets the event's ``timezone``, ``start`` and ``end`` from ``prescale:calendar``, as
if written in the window, so every rule and message about a window's times holds for it (the calendar's own events
are checked by the same rules under their own path, :mod:`prescale.model.checks.stack`). A window that gives both an
event and times of its own, names an event the calendar does not have, or names one in a stack without a calendar
is refused here, whole. Part of the validation door (:mod:`prescale.model.validation`); details:
docs/fleet.md#one-calendar.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from typing import Any

from .config import CONFIG_NAMESPACE

CALENDAR_KEY = f"{CONFIG_NAMESPACE}:calendar"
WINDOWS_KEY = f"{CONFIG_NAMESPACE}:eventWindows"
EVENT_TIMES = ("timezone", "start", "end")


def with_event_times(raw: Mapping[str, Any], calendar_unread: bool = False) -> tuple[dict[str, Any], list[str],
                                                                                      set[int]]:
    """``raw`` with each window that names an event given the event's times; the problems, and the windows they
    are about (whose missing times are then no problem of their own). With ``calendar_unread`` (the stack file
    could not hand the calendar over, a secret offline, and says so itself) a window that names an event is only
    left without times."""
    windows = raw.get(WINDOWS_KEY)
    if not isinstance(windows, list) or not any(isinstance(window, dict) and "event" in window for window in windows):
        return dict(raw), [], set()
    events = _events(raw.get(CALENDAR_KEY))
    problems: list[str] = []
    refused: set[int] = set()
    expanded = []
    for index, window in enumerate(windows):
        name = window.get("event") if isinstance(window, dict) else None
        if not isinstance(name, str):
            expanded.append(window)
            continue
        problem = None if calendar_unread else _problem(f"{WINDOWS_KEY}[{index}]", window, name, events,
                                                         raw.get(CALENDAR_KEY))
        if problem or calendar_unread:  # unread: the stack file says why; the window only lacks its times
            problems += [problem] if problem else []
            refused.add(index)
            expanded.append(window)
            continue
        expanded.append({**window, **{key: events[name][key] for key in EVENT_TIMES if key in events[name]}})
    return {**raw, WINDOWS_KEY: expanded}, problems, refused


def _events(calendar: Any) -> dict[str, dict[str, Any]]:
    """The calendar's events by name, as written (each is validated as its own key)."""
    listed = calendar.get("events") if isinstance(calendar, dict) else None
    return {event["name"]: event for event in listed or () if isinstance(event, dict)
            and isinstance(event.get("name"), str)} if isinstance(listed, list) else {}


def _problem(path: str, window: dict[str, Any], name: str, events: dict[str, dict[str, Any]],
             calendar: Any) -> str | None:
    own = [key for key in EVENT_TIMES if key in window]
    if own:
        return (f"{path}: event {name!r} gives the window its timezone, start and end, and it also has "
                f"{', '.join(own)}; allowed: the event, or times of its own, not both")
    if calendar is None:
        return (f"{path}.event: {name!r}, and this stack has no {CALENDAR_KEY}; allowed: set {CALENDAR_KEY} to the "
                "shared calendar file's path, or give the window its own timezone, start and end")
    if name not in events:
        close = difflib.get_close_matches(name, list(events), n=1)
        known = ", ".join(sorted(events)) or f"none ({CALENDAR_KEY} has no events)"
        return (f"{path}.event: {name!r} is not an event of {CALENDAR_KEY}; allowed: {known}"
                + (f"; did you mean {close[0]!r}?" if close else ""))
    return None
