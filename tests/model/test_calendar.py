"""A calendar the stacks share (``prescale:calendar``): windows that name an event take its times, what cannot be is
refused whole with the key at fault, the events themselves are checked as windows' times are, and moving an event
moves the window without touching a URN."""

from __future__ import annotations

import copy

import pytest
from prescale.model.validation import ConfigError, load_capacity_config

from tests.support.capacity import NOW, run, stack_config
from tests.support.urns import engine_urns

POOLS = [{"name": "event", "limits": {"cpu": "256", "memory": "1024Gi"}}]
CALENDAR = {"events": [
    {"name": "black-friday-2027", "timezone": "America/New_York", "start": "2027-11-26T06:00",
     "end": "2027-11-26T23:00", "tags": ["retail"]},
    {"name": "lunch-rush", "timezone": "Asia/Seoul", "start": "0 12 * * 1-5", "end": "0 14 * * 1-5"}]}


def raw(*windows: dict, calendar: object = CALENDAR) -> dict:
    found = {"prescale:nodePools": POOLS, "prescale:eventWindows": list(windows)}
    if calendar is not None:
        found["prescale:calendar"] = calendar
    return found


def problems(config: dict) -> list[str]:
    with pytest.raises(ConfigError) as refused:
        load_capacity_config(config, NOW)
    return refused.value.problems


def test_a_window_naming_an_event_takes_its_zone_start_and_end():
    config = load_capacity_config(raw({"name": "bf", "nodePool": "event", "event": "black-friday-2027", "nodes": 3,
                                       "leadTime": "20m"}), NOW)
    (window,) = config.event_windows
    assert (window.event, window.timezone, window.start, window.end, window.lead_time) == (
        "black-friday-2027", "America/New_York", "2027-11-26T06:00", "2027-11-26T23:00", "20m")


def test_an_event_and_times_of_its_own_are_refused():
    found = problems(raw({"name": "bf", "nodePool": "event", "event": "lunch-rush", "timezone": "UTC", "nodes": 3}))
    assert found == ["prescale:eventWindows[0]: event 'lunch-rush' gives the window its timezone, start and end, "
                     "and it also has timezone; allowed: the event, or times of its own, not both"]


def test_an_unknown_event_names_the_known_ones_and_the_closest():
    found = problems(raw({"name": "bf", "nodePool": "event", "event": "black-friday-2028", "nodes": 3}))
    assert found == ["prescale:eventWindows[0].event: 'black-friday-2028' is not an event of prescale:calendar; "
                     "allowed: black-friday-2027, lunch-rush; did you mean 'black-friday-2027'?"]


def test_an_event_without_a_calendar_says_what_to_set():
    (found,) = problems(raw({"name": "bf", "nodePool": "event", "event": "lunch-rush", "nodes": 3}, calendar=None))
    assert found.startswith("prescale:eventWindows[0].event: 'lunch-rush', and this stack has no prescale:calendar")


def test_the_calendars_events_are_checked_as_windows_times_under_their_own_key():
    broken = copy.deepcopy(CALENDAR)
    broken["events"].append({"name": "spring", "timezone": "Europe/Berlin", "start": "30 2 * * 0",
                             "end": "0 5 * * 0"})  # 02:30 does not exist on the day Berlin moves to CEST
    broken["events"].append({"name": "lunch-rush", "timezone": "UTC", "start": "0 1 * * *", "end": "0 2 * * *"})
    found = problems(raw(calendar=broken))
    assert found == [
        "prescale:calendar.events[2].start: '30 2 * * 0': fires at 02:30 on Sun 2027-03-28 in Europe/Berlin, where "
        "clocks jump from 02:00 to 03:00: that time does not exist, so robfig/cron (used by KEDA) skips that fire; "
        "move it out of 02:00-03:00",
        "prescale:calendar.events[3].name: 'lunch-rush' is already used by prescale:calendar.events[1]; names must "
        "be unique"]


# An inline calendar's own mistakes, each refused once, by its key path as the stack file spells it. The key takes
# a map or a file's path: as a union of the two, pydantic named each branch in the path ("prescale:calendar.
# CalendarConfig.events", "prescale:calendar.str"), reported every problem twice, and failed on list, map and
# unknown-key mistakes with a StopIteration; an event's times that were no cron nor date-time failed the calendar's
# checks with a CronError (a shared calendar file's typo stopped every stack).
CALENDAR_MISTAKES = {
    "tags as text": (("events", 0, "tags"), "retail",
                     ["prescale:calendar.events[0].tags: must be a list, like [retail] (got 'retail')"]),
    "an unknown key of an event": (("events", 0, "owner"), "shop",
                                   ["prescale:calendar.events[0].owner: unknown key (value 'shop'); allowed keys: "
                                    "end, name, start, tags, timezone"]),
    "an unknown key of the calendar": (("owner",), "shop",
                                       ["prescale:calendar.owner: unknown key (value 'shop'); allowed keys: events"]),
    "events as a map": (("events",), {"bf": {}},
                        ["prescale:calendar.events: must be a list: start each entry with '- ' on its own line, or "
                         "write [entry, ...] (got {'bf': {}})"]),
    "an event's end that is no cron": (("events", 1, "end"), "@daily",
                                       ["prescale:calendar.events[1].end: '@daily' is not a cron in KEDA's dialect "
                                        "(parser does not accept descriptors: @daily); use 5 fields 'minute hour "
                                        "day-of-month month day-of-week' (day-of-week 0-6), or a local date-time "
                                        "YYYY-MM-DDTHH:MM"]),
    "an event's start as a number": (("events", 1, "start"), 12,
                                     ['prescale:calendar.events[1].start: must be text: write it in quotes, like "12" '
                                      "(got 12)"]),
}


@pytest.mark.parametrize("mistake", CALENDAR_MISTAKES)
def test_an_inline_calendars_mistake_is_refused_once_by_its_own_key(mistake):
    (*parents, last), value, expected = CALENDAR_MISTAKES[mistake]
    calendar = copy.deepcopy(CALENDAR)
    holder = calendar
    for part in parents:
        holder = holder[part]
    holder[last] = value
    assert problems(raw(calendar=calendar)) == expected


def test_a_calendar_path_left_unread_is_refused_with_what_to_do():
    (found,) = problems(raw(calendar="calendar.yaml"))
    assert found.startswith("prescale:calendar: a calendar file ('calendar.yaml') is read by prescale's program and "
                            "CLI")


def test_moving_the_event_moves_the_window_and_keeps_every_urn():
    window = {"name": "bf", "nodePool": "event", "event": "black-friday-2027", "nodes": 3}
    before = stack_config(POOLS, [window], calendar=CALENDAR)
    moved = copy.deepcopy(CALENDAR)
    moved["events"][0].update(start="2027-11-26T05:00", end="2027-11-26T22:00")
    after = stack_config(POOLS, [window], calendar=moved)
    assert (before.event_windows[0].start, after.event_windows[0].start) == ("2027-11-26T06:00", "2027-11-26T05:00")
    assert set(engine_urns(run(before)[0]).values()) == set(engine_urns(run(after)[0]).values())
