"""``prescale:calendar``: events several stacks share, which windows name (:mod:`prescale.model.calendar`)."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import AfterValidator, Field, StrictStr

from .base import Model, WindowName, WindowTime, _fail, _time_zone


class CalendarEvent(Model):
    """One event of ``prescale:calendar``: when it happens, in the form a window's times take."""

    name: WindowName = Field(description="Unique in the calendar; windows name it in their event key.")
    timezone: Annotated[StrictStr, AfterValidator(_time_zone)] = Field(description=(
        "IANA time zone its start and end are read in, as a window's timezone."))
    start: WindowTime = Field(description="When the event starts, as a window's start: a cron or a local date-time.")
    end: WindowTime = Field(description="When the event ends, in the same form as start.")
    tags: list[StrictStr] = Field(default=[], description="Free labels (a team, a region), for people and fleet.")


class CalendarConfig(Model):
    """Events several stacks share (``prescale:calendar``), read from the file its path names or given inline."""

    events: list[CalendarEvent] = Field(default=[], description="The events windows may name.")


# A calendar file's path, relative to the project directory: prescale's program and CLI read it (prescale.calendar_
# file), so the model only ever sees the calendar's content.
CalendarPath = StrictStr


def _calendar_content(value: Any) -> Any:
    """A path is refused before the content is validated, so that the content's problems are reported as a map's,
    not as one branch each of a map-or-text union (``prescale:calendar.CalendarConfig.events``, ``...str``)."""
    if isinstance(value, str):
        raise _fail("value", f"a calendar file ({value!r}) is read by prescale's program and CLI, which hand its "
                             "content over; a program that validates config itself passes the content, read with "
                             "prescale.calendar_file.read_calendar")
    return value
