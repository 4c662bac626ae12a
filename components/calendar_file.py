"""``prescale:calendar`` as a path: the calendar file read, relative to the project directory, for the model.

Several stacks (and projects) share one calendar file, so the stack names its path and the program and the CLI,
which know the project's directory, hand the model its content (the model reads no file). A YAML file holds
``events: [{name, timezone, start, end, tags}]``; an ``.ics`` file is read as iCalendar. Details:
docs/fleet.md#one-calendar.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.error import YAMLError

from .model.calendar import CALENDAR_KEY


class CalendarFileError(Exception):
    """The calendar file cannot be read; the message names the key, the file and why."""


def read_calendar(path: Path) -> Any:
    """The calendar file's content (a map with ``events``, as the stack would hold it inline); an ``.ics`` file read
    as iCalendar (:mod:`prescale.calendar_ics`)."""
    if path.suffix.lower() == ".ics":
        from .calendar_ics import IcsError, ics_calendar  # icalendar takes 30 ms to import: only for an .ics

        try:
            return ics_calendar(path.read_text(encoding="utf-8-sig"))
        except FileNotFoundError:
            pass  # said below, as for any calendar file
        except (OSError, UnicodeDecodeError, IcsError) as error:
            raise CalendarFileError(f"{CALENDAR_KEY}: {str(path)!r}: {error}") from None
    try:
        content = YAML(typ="safe").load(path.read_text(encoding="utf-8-sig"))
    except FileNotFoundError:
        raise CalendarFileError(f"{CALENDAR_KEY}: {str(path)!r} does not exist; allowed: the path of the shared "
                                "calendar file, relative to the project directory") from None
    except (OSError, UnicodeDecodeError, YAMLError) as error:
        raise CalendarFileError(f"{CALENDAR_KEY}: {str(path)!r} cannot be read as YAML: {error}") from None
    if not isinstance(content, dict) or "events" not in content:
        raise CalendarFileError(f"{CALENDAR_KEY}: {str(path)!r} is not a calendar; allowed: a YAML map whose "
                                "events: lists the events (name, timezone, start, end)")
    return content


def with_calendar(raw: dict[str, Any], project: Path) -> dict[str, Any]:
    """``raw`` with a ``prescale:calendar`` path replaced by the file's content (read relative to ``project``)."""
    value = raw.get(CALENDAR_KEY)
    if not isinstance(value, str):
        return raw
    return {**raw, CALENDAR_KEY: read_calendar(project / value)}
