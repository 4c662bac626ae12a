"""A window's times as KEDA will run them (:func:`prescale.model.checks.window_times.window_time_problems`,
:func:`~prescale.model.checks.window_times.cron_comma_problems`), called directly on one window: a start and end of
different kinds or in the wrong order, a fire in a DST gap, a cron that never fires, fires that do not alternate, a
lead time that cannot move the start or reaches the previous end, a freeze that is no one UTC budget, and a comma an
old KEDA cannot run, each on the key at fault. (The fire-by-fire helpers: tests/model/schedule/test_schedule.py.)"""

import pytest
from prescale.model.checks.window_times import cron_comma_problems, window_time_problems
from prescale.model.config import EventWindow, KedaConfig

from tests.support.config import NOW

PATH = "prescale:eventWindows[0]"
OLD_KEDA = KedaConfig(install=False, version="2.19.0")
NEVER = ("never fires: no date in the five years after 2026-11-30 matches its day-of-month, month and day-of-week (as "
         "a start KEDA would keep the window always open, as an end never open it)")
COMMA = ("has a comma, which KEDA 2.19.0 (prescale:keda.version) turns into an invalid metric name "
         "(kedacore/keda#7448, fixed in 2.20.0); allowed: ranges such as '1-5' instead of lists, one window per list "
         "item, or KEDA 2.20.0 or newer")


def window(start: str, end: str, timezone: str = "Asia/Seoul", **settings) -> EventWindow:
    return EventWindow.model_validate({"name": "w", "nodePool": "event", "timezone": timezone, "start": start,
                                       "end": end, "nodes": 2, **settings})


@pytest.mark.parametrize("start, end, timezone, settings", [
    ("0 9 * * 1-5", "0 17 * * 1-5", "Asia/Seoul", {}),
    ("0 18 * * 5", "0 6 * * 1", "Europe/London", {"leadTime": "30m"}),  # across the weekend
    ("0 22 * * *", "0 6 * * *", "Europe/Berlin", {}),  # across midnight
    ("2027-03-02T18:00", "2027-03-02T20:00", "Asia/Seoul", {"leadTime": "1h"}),
])
def test_windows_keda_opens_and_closes_as_meant_are_accepted(start, end, timezone, settings):
    assert window_time_problems(PATH, window(start, end, timezone, **settings), NOW) == []


@pytest.mark.parametrize("start, end, problem", [
    ("0 9 * * *", "2027-03-02T20:00", "end: '2027-03-02T20:00' is a date-time but start '0 9 * * *' is a cron; "
                                      "allowed: two crons (a recurring window) or two local date-times (a one-off "
                                      "event)"),
    ("2027-03-02T18:00", "0 9 * * *", "end: '0 9 * * *' is a cron but start '2027-03-02T18:00' is a date-time; "
                                      "allowed: two crons (a recurring window) or two local date-times (a one-off "
                                      "event)"),
    ("2027-03-02T18:00", "2027-03-02T18:00", "end: '2027-03-02T18:00' is not after start '2027-03-02T18:00'; "
                                             "allowed: a later date-time"),
    ("0 9 * * *", "0 9 * * *", "end: '0 9 * * *' equals start; KEDA refuses identical start and end "
                               "(kedacore/keda#2031); allowed: a different time"),
])
def test_a_start_and_end_that_are_no_window_are_refused_on_the_end(start, end, problem):
    assert window_time_problems(PATH, window(start, end), NOW) == [f"{PATH}.{problem}"]


def test_a_moment_that_does_not_exist_in_the_time_zone_is_refused_on_its_own_key():
    """2027-03-14 02:00-03:00 does not exist in New York; a one-off at 03:05 scales up at 02:55, in the gap."""
    gap = "does not exist in America/New_York (clocks jump from 02:00 to 03:00); pick another time"
    assert window_time_problems(PATH, window("2027-03-14T03:05", "2027-03-14T04:00", "America/New_York"), NOW) == [
        f"{PATH}.leadTime: '10m': 2027-03-14 02:55 {gap}"]
    (start, lead) = window_time_problems(PATH, window("30 2 * * *", "0 4 * * *", "America/New_York"), NOW)
    assert start.startswith(f"{PATH}.start: '30 2 * * *': fires at 02:30 on Sun 2027-03-14 in America/New_York, "
                            "where clocks jump from 02:00 to 03:00: that time does not exist, so robfig/cron (used by "
                            "KEDA) skips that fire")
    assert lead.startswith(f"{PATH}.leadTime: '10m' (scale-up cron '20 2 * * *'): fires at 02:20 on Sun 2027-03-14")


def test_crons_that_never_fire_or_do_not_alternate_are_refused():
    assert window_time_problems(PATH, window("0 12 * * *", "0 13 30 2 *"), NOW) == [f"{PATH}.end: '0 13 30 2 *': "
                                                                                    f"{NEVER}"]
    # The scale-up cron is the start moved, so a start that never fires is reported once, under start.
    assert window_time_problems(PATH, window("0 12 30 2 *", "0 13 * * *"), NOW) == [f"{PATH}.start: '0 12 30 2 *': "
                                                                                    f"{NEVER}"]
    (problem,) = window_time_problems(PATH, window("0 9 * * 1-5", "0 17 * * *"), NOW)
    assert problem == (
        f"{PATH}.end: start '0 9 * * 1-5' and end '0 17 * * *' do not alternate: end fires 3 times in a row (Fri "
        "2026-12-04 17:00 KST … Sun 2026-12-06 17:00 KST) with no start in between: KEDA keeps the window open from "
        "Fri 2026-12-04 09:00 KST until Sun 2026-12-06 17:00 KST (kedacore/keda#4677); allowed: the same days in start "
        "and end, e.g. '0 9 * * 1-5' → '0 17 * * 1-5', or a window across days such as '0 18 * * 5' → '0 6 * * 1'")


def test_a_lead_time_that_cannot_move_the_start_or_reaches_the_previous_end_is_refused_on_the_lead_time():
    assert window_time_problems(PATH, window("0 0 1 * *", "0 6 1 * *"), NOW) == [
        f"{PATH}.leadTime: '10m' cannot move start '0 0 1 * *' earlier exactly (the fires of '0 0 1 * *' move 1 day "
        "earlier and day-of-month 1 would cross into another month (months differ in length), which one cron cannot "
        "express (days 2-28 stay in their month)); allowed: a lead time within the day, or a start on the days that "
        "stay in their month"]
    # 09:00 and 09:30, ten minutes earlier: 08:50 and 09:20 are no hours × minutes grid. Not the days' fault.
    assert window_time_problems(PATH, window("0,30 9 * * *", "15,45 9 * * *"), NOW) == [
        f"{PATH}.leadTime: '10m' cannot move start '0,30 9 * * *' earlier exactly (shifting '0,30 9 * * *' by -10m "
        "gives the times 08:50, 09:20, which are not every listed hour at every listed minute; one cron cannot express "
        "them); allowed: one window per start time, each with its own lead time"]
    assert window_time_problems(PATH, window("0 9 * * *", "0 17 * * *", leadTime="17h"), NOW) == [
        f"{PATH}.leadTime: '17h': lead time 17h moves the scale-up for Sun 2026-11-29 09:00 KST to Sat 2026-11-28 "
        "16:00 KST, not after the previous occurrence's end (Sat 2026-11-28 17:00 KST): KEDA would pair it with that "
        "earlier end; allowed: less than 16h"]
    assert window_time_problems(PATH, window("0 9 * * *", "0 17 * * *", leadTime="15h"), NOW) == []


def test_a_freeze_that_is_no_one_utc_budget_is_refused_only_where_prescale_freezes_the_pool():
    """08:00 KST on the 1st is 23:00 UTC on the last day of the month before: no one cron of days names it."""
    monthly = window("0 8 1 * *", "0 10 1 * *")
    (problem,) = window_time_problems(PATH, monthly, NOW)
    assert problem.startswith(f"{PATH}.start: '0 8 1 * *' in Asia/Seoul: the consolidation freeze cannot be written "
                              "as one UTC disruption budget (Karpenter has no time zones)")
    assert window_time_problems(PATH, monthly, NOW, freeze=False) == []  # an existing pool: its owner's budgets


def test_a_comma_an_old_keda_cannot_run_is_blamed_once_on_the_key_that_holds_it():
    assert cron_comma_problems(PATH, window("0 9 * * 1,3", "0 17 * * 1,3"), OLD_KEDA) == [
        f"{PATH}.start: '0 9 * * 1,3' {COMMA}", f"{PATH}.end: '0 17 * * 1,3' {COMMA}"]
    # Sunday and Monday at midnight scale up at 23:50 on Saturday and Sunday: the comma is the lead time's.
    assert cron_comma_problems(PATH, window("0 0 * * 0-1", "0 6 * * 0-1"), OLD_KEDA) == [
        f"{PATH}.leadTime: '10m' (scale-up cron '50 23 * * 0,6') {COMMA}"]
    assert cron_comma_problems(PATH, window("0 9 * * 1,3", "0 17 * * 1,3"), KedaConfig()) == []  # 2.20.2
    assert cron_comma_problems(PATH, window("2027-03-02T18:00", "2027-03-02T20:00"), OLD_KEDA) == []
