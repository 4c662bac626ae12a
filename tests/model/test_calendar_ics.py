"""An ``.ics`` calendar (as Google Calendar and Outlook export) read as a prescale calendar: one-offs with their
TZID, daily and weekly RRULEs as the crons that fire at their start and end, and what a cron cannot say refused
with why."""

from __future__ import annotations

import re

import pytest
from prescale.calendar_ics import IcsError, ics_calendar


def ics(*events: str) -> str:
    body = "".join(f"BEGIN:VEVENT\r\nUID:{index}@test\r\n{event.strip()}\r\nEND:VEVENT\r\n"
                   for index, event in enumerate(events))
    return f"BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\n{body}END:VCALENDAR\r\n".replace("\n    ", "\r\n")


def test_a_one_off_keeps_its_local_times_and_zone():
    calendar = ics_calendar(ics("""SUMMARY:Black Friday 2027
    DTSTART;TZID=America/New_York:20271126T060000
    DTEND;TZID=America/New_York:20271126T230000"""))
    assert calendar == {"events": [{"name": "black-friday-2027", "timezone": "America/New_York",
                                    "start": "2027-11-26T06:00", "end": "2027-11-26T23:00"}]}


def test_weekly_and_daily_rules_become_crons_and_an_end_past_midnight_fires_the_next_day():
    calendar = ics_calendar(ics("""SUMMARY:Lunch rush
    DTSTART;TZID=Asia/Seoul:20270104T120000
    DTEND;TZID=Asia/Seoul:20270104T140000
    RRULE:FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR""", """SUMMARY:Night batch
    DTSTART;TZID=Europe/Berlin:20270105T230000
    DURATION:PT3H
    RRULE:FREQ=WEEKLY""", """SUMMARY:Daily sync
    DTSTART:20270104T090000Z
    DTEND:20270104T093000Z
    RRULE:FREQ=DAILY"""))
    assert calendar["events"] == [
        {"name": "lunch-rush", "timezone": "Asia/Seoul", "start": "0 12 * * 1,2,3,4,5", "end": "0 14 * * 1,2,3,4,5"},
        {"name": "night-batch", "timezone": "Europe/Berlin", "start": "0 23 * * 2", "end": "0 2 * * 3"},
        {"name": "daily-sync", "timezone": "UTC", "start": "0 9 * * *", "end": "30 9 * * *"}]


@pytest.mark.parametrize(("event", "why"), [
    ("SUMMARY:Floating\n    DTSTART:20270104T120000\n    DTEND:20270104T130000", "a floating time"),
    ("SUMMARY:Monthly\n    DTSTART;TZID=UTC:20270104T120000\n    DTEND;TZID=UTC:20270104T130000\n"
     "    RRULE:FREQ=MONTHLY;BYDAY=1MO", "only daily or weekly"),
    ("SUMMARY:Holidays off\n    DTSTART;TZID=UTC:20270104T120000\n    DTEND;TZID=UTC:20270104T130000\n"
     "    RRULE:FREQ=DAILY\n    EXDATE;TZID=UTC:20270105T120000", "EXDATE"),
    ("SUMMARY:Ten times\n    DTSTART;TZID=UTC:20270104T120000\n    DTEND;TZID=UTC:20270104T130000\n"
     "    RRULE:FREQ=DAILY;COUNT=10", "a cron never ends"),
])
def test_what_a_cron_cannot_say_is_refused_with_why(event, why):
    with pytest.raises(IcsError, match=why):
        ics_calendar(ics(event))


# A shared calendar file with one of these stopped every stack reading it with a traceback (KeyError, TypeError,
# OverflowError, icalendar's own errors) before each was found by fuzzing.
UNREADABLE = {
    "no DTSTART": ("SUMMARY:Sale\n    DTEND;TZID=UTC:20270104T130000", "VEVENT 0 (Sale): no DTSTART"),
    "DTSTART given twice": ("SUMMARY:Sale\n    DTSTART;TZID=UTC:20270104T120000\n    DTSTART;TZID=UTC:20270105T120000"
                            "\n    DTEND;TZID=UTC:20270104T130000", "DTSTART given more than once"),
    "a DURATION that is no duration": ("SUMMARY:Sale\n    DTSTART;TZID=UTC:20270104T120000\n    DURATION:soon",
                                       "no end: give it a DTEND or a DURATION"),
    "a DURATION of weeks": ("SUMMARY:Sale\n    DTSTART;TZID=UTC:20270104T120000\n    DURATION:P999999W",
                            "it must end after it starts, within a day"),
    "an RRULE that is no rule": ("SUMMARY:Sale\n    DTSTART;TZID=UTC:20270104T120000\n    DTEND;TZID=UTC:"
                                 "20270104T130000\n    RRULE:FREQ=", "RRULE cannot be read"),
    "two RRULEs": ("SUMMARY:Sale\n    DTSTART;TZID=UTC:20270104T120000\n    DTEND;TZID=UTC:20270104T130000\n"
                   "    RRULE:FREQ=DAILY\n    RRULE:FREQ=WEEKLY", "RRULE given more than once"),
    "a DTEND in year 1": ("SUMMARY:Sale\n    DTSTART;TZID=UTC:20270104T120000\n    DTEND:00010101T000000Z",
                          "DTEND must be in a year from 1970 to 9899"),
    "a DTSTART at the end of year 9999": ("SUMMARY:Sale\n    DTSTART;TZID=Europe/Berlin:99991231T235900\n"
                                          "    DURATION:PT3H", "DTSTART must be in a year from 1970 to 9899"),
}


@pytest.mark.parametrize("event", UNREADABLE.values(), ids=UNREADABLE.keys())
def test_an_event_that_cannot_be_read_is_refused_naming_it_and_the_property(event):
    text, why = event
    with pytest.raises(IcsError, match=re.escape(why)):
        ics_calendar(ics(text))


def test_a_parameter_icalendars_parser_fails_on_is_no_ical_file():
    with pytest.raises(IcsError, match="not an iCalendar file"):
        ics_calendar(ics("SUMMARY:Sale\n    DTSTART;TZID=UTC:20270104T120000\n    DTEND;TZID=UTC:20270104T130000\n"
                         "    DTEND;VALUE=DATE20271126T060000,20271127T060000"))
